"""Pages: the table's events (``campaign.table_events``): what the board and the cards decided, each
recorded through its declaration's form.

``events/`` lists the events of the campaign's rules whose form the viewer is offered, grouped, each
with when it happens; ``events/<key>/`` is one event's form, made from its declaration's fields (a
character or several with the dice each rolls typed beside him, a house, a crown, a number, an
amount, words), and its POST runs the event as one step action (``pages.common.run_action``): the
service decides, and its refusal is shown beside the field it names. Nothing here knows an event."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.http import require_http_methods

from campaign.models import Campaign
from campaign.permissions import Seat, seat_of
from campaign.table_events import IDS, WHEN, Choice, Field, Kind, TableEvent, available, event, offered_to
from pages.common import ActionFailed, context, member, run_action
from pages.sequence import die_field
from rules.dice import DiceSpec

MONEY_MAX = 1_000_000
"""No payment of the game comes near this (a typed amount beyond it is a slip of the keyboard)."""

PICKED = (Kind.CHARACTER, Kind.DYNASTY, Kind.TITLE, Kind.OFFER, Kind.CROWN, Kind.CHOICE)
"""The kinds of one pick a link may fill in (the form still offers only what the seat may choose)."""


def _id_or_word(kind: Kind) -> Any:
    return int if kind in IDS else str


def _choices(f: Field, offered: list[Choice]) -> list[tuple[Any, str]]:
    """A list's options; a select shows each choice's note beside its label (a row of characters shows it apart)."""
    if f.kind == Kind.CHARACTERS:
        return [(c.value, c.label) for c in offered]
    return [(c.value, f"{c.label} — {c.note}" if c.note else c.label) for c in offered]


def _choices_noted(f: Field, offered: list[Choice]) -> list[tuple[Any, str]]:
    """A list to pick one from shows each choice's note in its line (a row of characters shows it beside)."""
    return [(c.value, f"{c.label} — {c.note}" if c.note else c.label) for c in offered]


def _form_field(f: Field, offered: list[Choice], initial: Any) -> forms.Field:
    """The Django field a declaration's field becomes."""
    common: dict[str, Any] = {"label": f.label, "help_text": f.help, "required": f.required, "initial": initial}
    if f.kind == Kind.CHARACTERS:
        return forms.TypedMultipleChoiceField(
            choices=_choices(f, offered), coerce=int, widget=forms.CheckboxSelectMultiple, **common
        )
    if f.kind == Kind.TITLES:
        return forms.TypedMultipleChoiceField(
            choices=_choices(f, offered), coerce=int, widget=forms.CheckboxSelectMultiple, **common
        )
    if f.kind in (Kind.CHARACTER, Kind.DYNASTY, Kind.TITLE, Kind.OFFER, Kind.CROWN, Kind.CHOICE):
        blank = [] if f.required else [("", "—")]
        if f.kind == Kind.CHARACTER and f.rows:  # rows to pick one from, each with its note
            return forms.TypedChoiceField(
                choices=_choices(f, offered), coerce=int, empty_value=None, widget=forms.RadioSelect, **common
            )
        return forms.TypedChoiceField(
            choices=blank + _choices_noted(f, offered), coerce=_id_or_word(f.kind), empty_value=None, **common
        )
    if f.kind == Kind.NUMBER:
        return forms.IntegerField(min_value=f.low, max_value=f.high, **common)
    if f.kind == Kind.MONEY:
        return forms.IntegerField(min_value=0, max_value=MONEY_MAX, **common)
    if f.kind == Kind.FLAG:
        return forms.BooleanField(**{**common, "required": False})
    if f.kind == Kind.TEXT:
        return forms.CharField(max_length=200, **common)
    raise ValueError(f"{f.name}: {f.kind} is asked for beside its characters")


@dataclass
class Row:
    """A character offered by a characters field, with the dice he would roll typed beside him."""

    choice: Choice
    box: Any
    dice: list[forms.BoundField] = field(default_factory=list)
    groups: list[tuple[str, list[forms.BoundField]]] = field(default_factory=list)
    """The dice by throw, each with its field's label (shown when he rolls more than one throw)."""


@dataclass
class Part:
    """One piece of the form as the page shows it: a field, a field of characters as rows (or of one
    character picked from rows), the dice of one throw side by side, or an amount for each thing a
    field offers."""

    field: forms.BoundField | None
    rows: list[Row] | None = None
    dice: str = ""
    legend: str = ""
    help: str = ""
    inputs: list[forms.BoundField] | None = None
    """A throw's dice (``DICE``) or the amounts (``AMOUNTS``), each its own input, under one legend."""


class EventForm(forms.Form):
    """The form of one table event, made from its declaration for one seat."""

    def __init__(self, *args: Any, event: TableEvent, campaign: Campaign, seat: Seat, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.event, self.campaign = event, campaign
        self.offered: dict[str, list[Choice]] = {}
        self.faces: dict[str, list[tuple[Field, DiceSpec]]] = {}  # by the characters field whose rows roll them
        for f in event.fields:
            if f.kind == Kind.FACES:
                self.faces.setdefault(f.of, []).append((f, DiceSpec.parse(f.dice)))
                continue
            offered = f.offered(campaign, seat)
            self.offered[f.name] = offered
            initial = f.initial(campaign, seat) if f.initial is not None else None
            if f.kind == Kind.DICE:
                spec = DiceSpec.parse(f.dice)
                for i in range(spec.count):
                    self.fields[f"{f.name}-{i}"] = die_field(spec, f"{f.label}: die {i + 1}", required=False)
                continue
            if f.kind == Kind.AMOUNTS:
                for choice in offered:
                    self.fields[f"{f.name}-{choice.value}"] = forms.IntegerField(
                        label=choice.label, required=False, min_value=0, max_value=MONEY_MAX
                    )
                continue
            self.fields[f.name] = _form_field(f, offered, initial)
        for of, throws in self.faces.items():
            for f, spec in throws:
                label = f"{f.label}: die" if len(throws) > 1 else "die"
                for choice in self.offered.get(of, []):
                    for i in range(spec.count):
                        self.fields[f"{f.name}-{choice.value}-{i}"] = die_field(spec, f"{label} {i + 1}", required=False)

    def parts(self) -> list[Part]:
        """The form as the page shows it, in the declaration's order."""
        out = []
        for f in self.event.fields:
            if f.kind == Kind.FACES:
                continue
            if f.kind == Kind.DICE:
                spec = DiceSpec.parse(f.dice)
                dice = [self[f"{f.name}-{i}"] for i in range(spec.count)]
                out.append(Part(None, dice=str(spec), legend=f.label, help=f.help, inputs=dice))
                continue
            if f.kind == Kind.AMOUNTS:
                amounts = [self[f"{f.name}-{c.value}"] for c in self.offered[f.name]]
                out.append(Part(None, legend=f.label, help=f.help, inputs=amounts))
                continue
            if f.choices is not None and not f.required and not self.offered.get(f.name):
                continue  # an optional field with nothing to offer here (e.g. a rule not played): not shown
            bound = self[f.name]
            if f.kind == Kind.CHARACTER and f.rows:
                radios = {str(w.data["value"]): w for w in bound.subwidgets}
                out.append(Part(bound, [Row(choice, radios[str(choice.value)]) for choice in self.offered[f.name]]))
                continue
            if f.kind != Kind.CHARACTERS:
                out.append(Part(bound))
                continue
            boxes = {str(w.data["value"]): w for w in bound.subwidgets}
            throws = self.faces.get(f.name, [])
            rows = []
            for choice in self.offered[f.name]:
                groups = [(d.label, [self[f"{d.name}-{choice.value}-{i}"] for i in range(spec.count)]) for d, spec in throws]
                rows.append(Row(choice, boxes[str(choice.value)], [die for _, dice in groups for die in dice], groups))
            said = str(throws[0][1]) if len(throws) == 1 else ", ".join(f"{d.label} {spec}" for d, spec in throws)
            out.append(Part(bound, rows, said))
        return out

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        for of, throws in self.faces.items():
            chosen = set(cleaned.get(of) or [])
            for f, spec in throws:
                for choice in self.offered.get(of, []):
                    names = [f"{f.name}-{choice.value}-{i}" for i in range(spec.count)]
                    typed = [cleaned.get(n) for n in names]
                    if any(v is not None for v in typed) and choice.value not in chosen:
                        untick = f"Dice were typed for {choice.label}, who is not ticked: tick him or clear them."
                        self.add_error(names[0], untick)
                    elif any(v is None for v in typed) and any(v is not None for v in typed):
                        self.add_error(names[0], f"Type all {spec.count} dice of {choice.label}, or none (the server rolls).")
        for f in self.event.fields:
            if f.kind == Kind.DICE:
                spec = DiceSpec.parse(f.dice)
                names = [f"{f.name}-{i}" for i in range(spec.count)]
                typed = [cleaned.get(n) for n in names]
                if any(v is None for v in typed) and any(v is not None for v in typed):
                    self.add_error(names[0], f"{f.label}: type all {spec.count} dice, or none (the server rolls).")
        return cleaned

    def values(self) -> dict[str, Any]:
        """The service's arguments: ids, words, numbers, and the typed dice by character."""
        out: dict[str, Any] = {}
        for f in self.event.fields:
            if f.kind == Kind.FACES:
                spec = DiceSpec.parse(f.dice)
                typed: dict[Any, list[Any]] = {}
                for pk in self.cleaned_data.get(f.of) or []:
                    faces = [self.cleaned_data.get(f"{f.name}-{pk}-{i}") for i in range(spec.count)]
                    if all(v is not None for v in faces):
                        typed[pk] = faces
                out[f.name] = typed
            elif f.kind == Kind.DICE:
                faces = [self.cleaned_data.get(f"{f.name}-{i}") for i in range(DiceSpec.parse(f.dice).count)]
                out[f.name] = faces if all(v is not None for v in faces) else None
            elif f.kind == Kind.AMOUNTS:
                amounts = {c.value: self.cleaned_data.get(f"{f.name}-{c.value}") for c in self.offered[f.name]}
                out[f.name] = {value: amount for value, amount in amounts.items() if amount is not None}
            else:
                value = self.cleaned_data.get(f.name)
                if value in (None, "") and not f.required and f.kind not in (Kind.FLAG, Kind.TEXT):
                    continue
                out[f.name] = value if value is not None else ""
        return out

    def refused(self, failure: ActionFailed) -> None:
        """The service's refusal beside the field it names (or above the form)."""
        named = [n if n in self.fields else f"{n}-0" for n in failure.fields if n in self.fields or f"{n}-0" in self.fields]
        if named:
            self.add_error(named[0], failure.message)
        else:
            self.add_error(None, failure.message)


def _event_for(campaign: Campaign, key: str) -> TableEvent:
    found = event(key)
    if found is None or not found.applies(campaign):
        raise Http404("No such event in this campaign's rules.")
    return found


@require_http_methods(["GET"])
@login_required
def events_list(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    seat = seat_of(request.user, campaign)
    groups: dict[str, list[TableEvent]] = {}
    for e in available(campaign, seat):
        groups.setdefault(e.group, []).append(e)
    return render(request, "pages/events/list.html", context(campaign, role, mine, groups=groups))


@require_http_methods(["GET", "POST"])
@login_required
def event_form(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    chosen = _event_for(campaign, key)
    seat = offered_to(chosen, campaign, request.user)  # 403 unless the policy offers it to him
    if request.method == "GET":
        initial: dict[str, Any] = {
            f.name: request.GET.getlist(f.name) for f in chosen.fields if f.kind == Kind.CHARACTERS and f.name in request.GET
        }
        initial |= {  # a page's link fills in what it is about (a crown's page: ?crown=England)
            f.name: request.GET[f.name] for f in chosen.fields if f.kind in PICKED and f.name in request.GET
        }
        form = EventForm(event=chosen, campaign=campaign, seat=seat, initial=initial)
        return _page(request, campaign, role, mine, chosen, form)
    form = EventForm(request.POST, event=chosen, campaign=campaign, seat=seat)
    if not form.is_valid():
        return _page(request, campaign, role, mine, chosen, form, status=400)
    values, by = form.values(), request.user
    try:
        result = run_action(request, campaign, chosen.label, lambda locked: chosen.run(campaign=locked, by=by, **values))
    except ActionFailed as failure:
        form.refused(failure)
        return _page(request, campaign, role, mine, chosen, form, status=400)
    if result is not None:
        messages.success(request, chosen.done(result))
    return redirect("pages:event", slug=campaign.slug, key=chosen.key)


def _page(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    chosen: TableEvent,
    form: EventForm,
    status: int = 200,
) -> HttpResponse:
    extra = {"event": chosen, "form": form, "parts": form.parts(), "when": WHEN.get(chosen.when, "")}
    return render(request, "pages/events/form.html", context(campaign, role, mine, **extra), status=status)


urlpatterns = [
    path("<slug:slug>/events/", events_list, name="events"),
    path("<slug:slug>/events/<slug:key>/", event_form, name="event"),
]
