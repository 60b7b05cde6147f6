"""Pages: the Dynastic Sequence (issue 7): the turn hub, Births, Survival with the succession
decisions, and the GM's Undo.

Who acts: the GM for everyone; a player for his own dynasty's couples (his house controls the
husband or the wife) and characters (his house controls them), and for the succession of the crown
his house controls; an observer only looks. Every write goes through :func:`pages.common.run_action`
(one transaction, the undo checkpoint, the one-time form key); the forms validate typed dice first,
with the message next to the die. The odds and eligibility come from
:mod:`dynasties.services.sequence_view`; nothing is computed here but what to show to whom."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.views.decorators.http import require_GET, require_http_methods

from campaign.models import STEP_ORDER, Campaign, ChronicleEntry, Role, Step
from campaign.permissions import couple_houses, may_act_for_any, require_couple, visible
from campaign.steps import STEP_LABELS, STEP_WAITS
from campaign.undo import AlreadyDone, describe, redo, redo_plan, undo_plan, undo_plans, undo_step, undo_turn
from dynasties.models import BirthAttempt, Character, Marriage
from dynasties.services.births import births_attempt, births_finish, births_roll_all, births_sex
from dynasties.services.sequence_view import (
    SUCCESSION_LINE_LIMIT,
    BirthsBoard,
    BirthTerms,
    CoupleRow,
    SurvivalBoard,
    birth_terms,
    births_board,
    dead_regents,
    succession_decisions,
    survival_board,
)
from dynasties.services.setup import format_characteristics
from dynasties.services.succession_choices import pass_over_choose
from dynasties.services.survival import SurvivalResult, survival_close, survival_roll
from pages.common import ActionFailed, context, counted, may_act_for, member, require_gm, run_action
from rules import get_ruleset
from rules.dice import DiceSpec
from rules.errors import RuleError

# --- forms ----------------------------------------------------------------------------------


def die_field(spec: DiceSpec, label: str, *, required: bool) -> forms.IntegerField:
    """One die typed from the table: a whole number from 1 to the die's sides."""
    wrong = f"A d{spec.sides} shows 1 to {spec.sides}."
    return forms.IntegerField(
        label=label,
        required=required,
        min_value=1,
        max_value=spec.sides,
        error_messages={
            "required": f"Type what this die shows (1 to {spec.sides}).",
            "invalid": f"Type a whole number from 1 to {spec.sides}.",
            "min_value": wrong,
            "max_value": wrong,
        },
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": 1, "max": spec.sides, "class": "die"}),
    )


class DiceForm(forms.Form):
    """The faces of one throw typed from the table (``d1`` .. ``dN``); not required when the server rolls."""

    def __init__(self, *args: Any, spec: DiceSpec, typed: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spec = spec
        for i in range(1, spec.count + 1):
            self.fields[f"d{i}"] = die_field(spec, f"Die {i}", required=typed)

    def faces(self) -> list[int] | None:
        values = [self.cleaned_data.get(f"d{i}") for i in range(1, self.spec.count + 1)]
        return None if all(v is None for v in values) else [int(v) for v in values if v is not None]


class SexForm(forms.Form):
    """After a birth: the sex die (typed or the server's), optionally the characteristics' dice, a name."""

    given_name = forms.CharField(
        label="Name (optional)", required=False, max_length=60, help_text="Empty: the usual name of the house."
    )

    def __init__(self, *args: Any, board: BirthTerms, typed: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.board = board
        self.fields["sex"] = die_field(board.sex_dice, f"Sex die ({board.sex_rule})", required=typed)
        self.fields["given_name"] = self.fields.pop("given_name")  # after the sex die
        for n, label in enumerate(board.characteristic_labels, start=1):
            for i in range(1, board.characteristic_dice.count + 1):
                self.fields[f"c{n}_{i}"] = die_field(board.characteristic_dice, f"{label}, die {i}", required=False)

    def _trait_names(self) -> list[list[str]]:
        dice = self.board.characteristic_dice.count
        return [[f"c{n}_{i}" for i in range(1, dice + 1)] for n in range(1, len(self.board.characteristic_labels) + 1)]

    def trait_rows(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [
            (label, [self[name] for name in names])
            for label, names in zip(self.board.characteristic_labels, self._trait_names(), strict=True)
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        names = [name for row in self._trait_names() for name in row]
        given = [name for name in names if data.get(name) is not None]
        missing = [name for name in names if data.get(name) is None and name not in self.errors]
        if given and missing:
            self.add_error(
                missing[0],
                f"Type every characteristic die, or none (the server then rolls them): {len(missing)} of {len(names)} missing.",
            )
        return data

    def sex_faces(self) -> list[int] | None:
        value = self.cleaned_data.get("sex")
        return None if value is None else [int(value)]

    def characteristic_faces(self) -> list[list[int]] | None:
        rows = [[self.cleaned_data.get(name) for name in row] for row in self._trait_names()]
        if any(v is None for row in rows for v in row):
            return None
        return [[int(v) for v in row if v is not None] for row in rows]

    def name(self) -> str | None:
        return (self.cleaned_data.get("given_name") or "").strip() or None


_GROUP = re.compile(r"^\d+(?:[ ,]+\d+)*$")


class FinishSurvivalForm(forms.Form):
    entered = forms.CharField(
        label="Typed dice for the succession's rolls (optional)",
        required=False,
        max_length=400,
        help_text="One roll per group, in the order the rolls are made, groups separated by ';' "
        "(e.g. '4' for a Charisma roll, or '4; 3 5 2'). Empty: the server rolls them.",
    )

    def clean_entered(self) -> list[list[int]] | None:
        text = (self.cleaned_data.get("entered") or "").strip().strip(";").strip()
        if not text:
            return None
        groups = []
        for part in text.split(";"):
            part = part.strip()
            if not _GROUP.match(part):
                raise forms.ValidationError(
                    f"{part!r} is not a roll: give the faces as numbers separated by spaces, one roll per "
                    "group, groups separated by ';' (e.g. '4; 3 5 2')."
                )
            groups.append([int(x) for x in re.split(r"[ ,]+", part)])
        return groups


def _failed(message: str) -> forms.Form:
    """A form carrying a refusal at its top (for buttons without fields)."""
    form = forms.Form(data={})
    form.is_valid()
    form.add_error(None, message)
    return form


def _refused(form: forms.Form, exc: ActionFailed) -> forms.Form:
    """The services' refusal next to the field it names, else at the top of the form."""
    named = [f for f in exc.fields if f in form.fields]
    if named:
        form.add_error(named[0], exc.message)
    else:
        form.add_error(None, exc.message)
    return form


@dataclass
class Failure:
    """A refused POST: re-render the page with this form (status 400)."""

    op: str
    target: Any
    form: forms.Form


def _field_errors(form: forms.Form) -> bool:
    """Errors next to a field (the typed-dice part of the page opens to show them)."""
    return any(name != "__all__" for name in form.errors)


def _pk(value: str | None) -> int:
    try:
        return int(value or "")
    except ValueError:
        return 0


def _top(name: str, campaign: Campaign) -> str:
    """A page's address with ``#top``, for a redirect to another page: without a fragment of its
    own the browser would carry the form page's (``/births/#couple-5`` would land on
    ``/survival/#couple-5``); ``#top`` is the top of any page (HTML's indicated part), where the
    message is."""
    return reverse(name, args=[campaign.slug]) + "#top"


def _turn_url(campaign: Campaign, name: str, fallback: str) -> str:
    """A step page by URL name, or its planned address while that page is not built yet."""
    try:
        return reverse(name, args=[campaign.slug])
    except NoReverseMatch:
        return f"/c/{campaign.slug}/turn/{fallback}"


# --- the turn hub ---------------------------------------------------------------------------

STEP_PAGES = {
    Step.BIRTHS: ("pages:births", "births/"),
    Step.SURVIVAL: ("pages:survival", "survival/"),
    Step.MARRIAGES: ("pages:marriages", "marriages/"),
    Step.ANNOUNCEMENTS: ("pages:announcements", "announcements/"),
    Step.INTERPHASE: ("pages:announcements", "announcements/"),
}


def step_page(campaign: Campaign) -> str:
    """The page of the campaign's current step (the dashboard's "Next" button)."""
    return _turn_url(campaign, *STEP_PAGES[Step(campaign.step)])


def _summary(campaign: Campaign) -> str:
    """Where the current step stands, in one sentence."""
    if campaign.step == Step.BIRTHS:
        board = births_board(campaign)
        if not board.families:
            return "No families in this ruleset: the GM closes Births."
        parts = [
            f"{counted(len(board.waiting), 'couple')} still to roll",
            f"{counted(board.born, 'child', 'children')} born so far",
        ]
        if board.pending_sex:
            parts.append(f"{counted(len(board.pending_sex), 'child', 'children')} waiting for the sex roll")
        return "; ".join(parts) + "."
    if campaign.step == Step.SURVIVAL:
        survival = survival_board(campaign)
        if not survival.families:
            return "The monarchs roll on the EU monarch tables (admin); the GM then closes Survival."
        dead = ", ".join(r.character.display_name for r in survival.dead) or "nobody"
        return f"{len(survival.to_roll)} still to roll; died so far: {dead}."
    return ""


@require_GET
@login_required
def turn(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    current = STEP_ORDER.index(Step(campaign.step))
    steps = []
    for i, step in enumerate(STEP_ORDER):
        name, fallback = STEP_PAGES[step]
        steps.append(
            {
                "label": STEP_LABELS[step],
                "url": _turn_url(campaign, name, fallback),
                "waits": STEP_WAITS.get(step, ""),
                "state": "done" if i < current else "current" if i == current else "todo",
                "number": i + 1,
            }
        )
    shown = undo_plans(campaign, by=request.user)  # the policy says who sees them
    plans = {"step": shown.step, "turn": shown.turn} if shown else {}
    kept = shown.redo if shown else None
    return render(
        request,
        "pages/sequence/turn.html",
        context(
            campaign,
            role,
            mine,
            steps=steps,
            waits=STEP_WAITS.get(campaign.step, ""),
            summary=_summary(campaign),
            plans=plans,
            redo=kept,
        ),
    )


# --- Births ---------------------------------------------------------------------------------


def _require_couple(role: str, mine: int | None, match: Marriage) -> None:
    require_couple(role, mine, couple_houses(match))


def _couple_context(row: CoupleRow, board: BirthsBoard, role: str, mine: int | None, failure: Failure | None) -> dict:
    pk = row.marriage.pk
    may_act = may_act_for_any(role, mine, row.dynasties)
    attempt_form: forms.Form = DiceForm(spec=board.birth_dice, auto_id=f"m{pk}-%s")
    sex_form: forms.Form = SexForm(board=board.terms, auto_id=f"s{pk}-%s", use_required_attribute=False)
    failed = failure is not None and failure.target == pk
    if failed and failure is not None and failure.op == "attempt":
        attempt_form = failure.form
    if failed and failure is not None and failure.op == "sex":
        sex_form = failure.form
    return {
        "row": row,
        "may_act": may_act,
        "attempt_form": attempt_form,
        "sex_form": sex_form,
        "husband_age": row.husband.age(board.year),
        "wife_age": row.wife.age(board.year),
        "open_typed": failed and failure is not None and _field_errors(failure.form),
        "errors": failure.form.non_field_errors() if failed and failure is not None else [],
    }


def _attempt_message(match: Marriage, made: BirthAttempt) -> str:
    faces = made.roll.faces if made.roll else []
    dice = " + ".join(str(f) for f in faces)
    couple = f"{match.husband.display_name} and {match.wife.display_name}"
    result = "a child! Now roll the child's sex." if made.success else "no child."
    return f"{couple}, attempt {made.attempt}: {dice} = {sum(faces)}: {result}"


def _births_post(request: HttpRequest, campaign: Campaign, role: str, mine: int | None) -> HttpResponse | Failure:
    op = request.POST.get("op", "")
    here = reverse("pages:births", args=[campaign.slug])
    user = request.user
    if op == "attempt":
        match = get_object_or_404(
            Marriage.objects.select_related("husband", "wife"), campaign=campaign, pk=_pk(request.POST.get("marriage"))
        )
        _require_couple(role, mine, match)
        typed = request.POST.get("how") == "typed"
        form = DiceForm(request.POST, spec=birth_terms(campaign).birth_dice, typed=typed, auto_id=f"m{match.pk}-%s")
        if not form.is_valid():
            return Failure("attempt", match.pk, form)
        faces = form.faces() if typed else None
        label = f"Birth roll of {match.husband.display_name} and {match.wife.display_name}"
        try:
            made = run_action(
                request, campaign, label, lambda c: births_attempt(campaign=c, marriage=match.pk, faces=faces, by=user)
            )
        except ActionFailed as exc:
            return Failure("attempt", match.pk, _refused(form, exc))
        if made is not None:
            (messages.success if made.success else messages.info)(request, _attempt_message(match, made))
        return redirect(f"{here}#couple-{match.pk}")
    if op == "sex":
        found = get_object_or_404(
            BirthAttempt.objects.select_related("marriage__husband", "marriage__wife"),
            campaign=campaign,
            pk=_pk(request.POST.get("attempt")),
        )
        _require_couple(role, mine, found.marriage)
        typed = request.POST.get("how") == "typed"
        form = SexForm(
            request.POST,
            board=birth_terms(campaign),
            typed=typed,
            auto_id=f"s{found.marriage_id}-%s",
            use_required_attribute=False,
        )
        if not form.is_valid():
            return Failure("sex", found.marriage_id, form)
        sex = form.sex_faces() if typed else None
        traits, name = form.characteristic_faces(), form.name()

        def roll_sex(c: Campaign) -> Character:
            return births_sex(campaign=c, attempt=found.pk, faces=sex, characteristic_faces=traits, given_name=name, by=user)

        try:
            child = run_action(request, campaign, f"Sex roll of the child of {found.marriage}", roll_sex)
        except ActionFailed as exc:
            return Failure("sex", found.marriage_id, _refused(form, exc))
        if child is not None:
            kind = "A son" if child.sex == "M" else "A daughter"
            messages.success(request, f"{kind}: {child.display_name} ({format_characteristics(child.characteristics)}).")
        return redirect(f"{here}#couple-{found.marriage_id}")
    if op in ("roll_all", "finish"):
        require_gm(role)
        try:
            if op == "roll_all":
                made = run_action(request, campaign, "Roll all remaining births", lambda c: births_roll_all(campaign=c, by=user))
                if made is not None:
                    born = sum(1 for a in made if a.success)
                    rolls = counted(len(made), "birth roll")
                    messages.success(request, f"{rolls} on the server's dice: {counted(born, 'child', 'children')} born.")
                return redirect(f"{here}#top")
            done = run_action(request, campaign, "Finish Births", lambda c: births_finish(campaign=c, by=user))
        except ActionFailed as exc:
            return Failure(op, None, _failed(exc.message))
        if done is not None:
            messages.success(request, f"Births of {campaign.current_year} closed: now Survival.")
        return redirect(_top("pages:survival", campaign))
    return Failure("unknown", None, _failed("Unknown action: reload the page and try again."))


@require_http_methods(["GET", "POST"])
@login_required
def births(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    failure = None
    if request.method == "POST":
        if role == Role.OBSERVER:
            raise PermissionDenied("An observer only looks.")
        outcome = _births_post(request, campaign, role, mine)
        if isinstance(outcome, HttpResponse):
            return outcome
        failure = outcome
        campaign.refresh_from_db()
    board = births_board(campaign)
    couples = [_couple_context(row, board, role, mine, failure) for row in board.couples]
    shown = {c["row"].marriage.pk for c in couples}
    top = failure.form if failure is not None and failure.target not in shown else None  # no card shows it
    return render(
        request,
        "pages/sequence/births.html",
        context(
            campaign,
            role,
            mine,
            board=board,
            couples=couples,
            is_open=campaign.step == Step.BIRTHS,
            top=top,
            step_label=STEP_LABELS[campaign.step],
            survival_url=reverse("pages:survival", args=[campaign.slug]),
        ),
        status=400 if failure else 200,
    )


# --- Survival and the succession decisions ---------------------------------------------------


def _results_message(results: list[SurvivalResult]) -> str:
    died = [r for r in results if not r.survived]
    if not results:
        return "Nobody was left to roll."
    if not died:
        return f"{counted(len(results), 'survival roll')}: everyone survives."
    names = "; ".join(
        f"{r.character.display_name} ({' + '.join(map(str, r.faces))} {r.modifier:+d}, needed {r.need})" for r in died
    )
    return f"{counted(len(results), 'survival roll')}. Died: {names}."


def _survival_rows(board: SurvivalBoard, role: str, mine: int | None, failure: Failure | None) -> list[dict]:
    rows = []
    for row in board.rows:
        pk = row.character.pk
        failed = failure is not None and failure.op == "roll" and failure.target == pk
        form = failure.form if failed and failure is not None else DiceForm(spec=board.dice, auto_id=f"c{pk}-%s")
        rows.append(
            {
                "row": row,
                "may_act": may_act_for(role, mine, row.character.controlled_by_id),
                "form": form,
                "open_typed": failed and _field_errors(form),
                "errors": form.non_field_errors() if failed else [],
            }
        )
    return rows


def _successions(campaign: Campaign, role: str, mine: int | None) -> list[dict]:
    out = []
    for d in succession_decisions(campaign, role, mine):
        names = {e.character.pk: e.character.display_name for e in (d.due.line.entries if d.due.line else ())}
        chosen_names = ", ".join(names.get(pk, f"#{pk}") for pk in d.chosen or [])
        out.append(
            {
                "due": d.due,
                "line": d.due.line,
                "player": d.player,
                "chosen": d.chosen,
                "chosen_set": set(d.chosen or []),
                "may_choose": d.may_choose,
                "chosen_names": chosen_names,
            }
        )
    return out


def _survival_post(request: HttpRequest, campaign: Campaign, role: str, mine: int | None) -> HttpResponse | Failure:
    op = request.POST.get("op", "")
    here = reverse("pages:survival", args=[campaign.slug])
    user = request.user
    if op == "roll":
        character = get_object_or_404(Character, campaign=campaign, pk=_pk(request.POST.get("character")))
        if not may_act_for(role, mine, character.controlled_by_id):
            raise PermissionDenied("You may roll only for your own dynasty's characters.")
        typed = request.POST.get("how") == "typed"
        spec = get_ruleset(campaign.ruleset).SURVIVAL_DICE
        form = DiceForm(request.POST, spec=spec, typed=typed, auto_id=f"c{character.pk}-%s")
        if not form.is_valid():
            return Failure("roll", character.pk, form)
        faces = {character.pk: form.faces() or []} if typed else None
        try:
            results = run_action(
                request,
                campaign,
                f"Survival roll of {character.display_name}",
                lambda c: survival_roll(campaign=c, characters=[character.pk], faces=faces, by=user),
            )
        except ActionFailed as exc:
            return Failure("roll", character.pk, _refused(form, exc))
        if results is not None:
            (messages.success if all(r.survived for r in results) else messages.warning)(request, _results_message(results))
        return redirect(f"{here}#character-{character.pk}")
    if op in ("roll_all", "roll_mine"):
        if op == "roll_all":
            require_gm(role)
            chosen = None
        else:
            if role != Role.PLAYER or mine is None:
                raise PermissionDenied("Only a player rolls for his own dynasty.")
            chosen = [r.character.pk for r in survival_board(campaign).to_roll if r.character.controlled_by_id == mine]
        try:
            results = run_action(
                request,
                campaign,
                "Roll all survival" if chosen is None else "Roll my dynasty's survival",
                lambda c: survival_roll(campaign=c, characters=chosen, by=user),
            )
        except ActionFailed as exc:
            return Failure(op, None, _failed(exc.message))
        if results is not None:
            (messages.success if all(r.survived for r in results) else messages.warning)(request, _results_message(results))
        return redirect(f"{here}#top")
    if op == "pass_over":
        crown = request.POST.get("crown", "")
        due = next((s for s in _successions(campaign, role, mine) if s["due"].crown == crown), None)
        if due is None:
            return Failure("pass_over", crown, _failed(f"No succession of {crown or 'that crown'} is waiting for a decision."))
        if not due["may_choose"]:
            raise PermissionDenied("Only the crown's player (or the GM) decides its succession.")
        heirs = [_pk(v) for v in request.POST.getlist("heirs")]
        try:
            chosen = run_action(
                request,
                campaign,
                f"Succession of {crown}: heirs passed over",
                lambda c: pass_over_choose(campaign=c, crown=crown, heirs=heirs, limit=SUCCESSION_LINE_LIMIT, by=user),
            )
        except ActionFailed as exc:
            return Failure("pass_over", crown, _failed(exc.message))
        if chosen is not None:
            names = {e.character.pk: e.character.display_name for e in due["line"].entries} if due["line"] else {}
            text = ", ".join(names.get(pk, f"#{pk}") for pk in chosen) or "nobody"
            messages.success(
                request, f"{crown}: your choice is recorded (passing over: {text}). The GM applies it at the end of Survival."
            )
        return redirect(f"{here}#succession")
    if op == "finish":
        require_gm(role)
        form = FinishSurvivalForm(request.POST, auto_id="finish-%s")
        if not form.is_valid():
            return Failure("finish", None, form)
        pass_over: dict[str, list[int]] = {}
        for value in request.POST.getlist("pass_over"):
            crown, _, pk = value.rpartition("::")
            if crown and _pk(pk):
                pass_over.setdefault(crown, []).append(_pk(pk))
        entered = form.cleaned_data["entered"]

        try:  # the ticked boxes are the decision (the recorded choices come ticked): none ticked, nobody passed over
            done = run_action(
                request,
                campaign,
                "Finish Survival",
                lambda c: survival_close(campaign=c, pass_over=pass_over, entered=entered, by=user),
            )
        except ActionFailed as exc:
            return Failure("finish", None, _refused(form, exc))
        if done is not None:
            messages.success(request, f"Survival of {campaign.current_year} closed: successions resolved; now Marriages.")
        return redirect(f"{here}#succession")
    return Failure("unknown", None, _failed("Unknown action: reload the page and try again."))


@require_http_methods(["GET", "POST"])
@login_required
def survival(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    failure = None
    if request.method == "POST":
        if role == Role.OBSERVER:
            raise PermissionDenied("An observer only looks.")
        outcome = _survival_post(request, campaign, role, mine)
        if isinstance(outcome, HttpResponse):
            return outcome
        failure = outcome
        campaign.refresh_from_db()
    is_open = campaign.step == Step.SURVIVAL
    board = survival_board(campaign)
    successions = _successions(campaign, role, mine) if is_open else []
    finish_form = FinishSurvivalForm(auto_id="finish-%s")
    top = failure.form if failure is not None else None  # unless shown where it was made:
    if failure is not None and failure.op == "finish" and is_open and role == Role.GM:
        finish_form, top = failure.form, None
    if failure is not None and failure.op == "roll" and any(r.character.pk == failure.target for r in board.rows):
        top = None
    if failure is not None and failure.op == "pass_over" and any(s["due"].crown == failure.target for s in successions):
        top = None
    done_index = STEP_ORDER.index(Step.SURVIVAL)
    closed = STEP_ORDER.index(Step(campaign.step)) > done_index
    made = []
    if closed:
        made = list(
            visible(
                request.user,
                campaign,
                ChronicleEntry.objects.filter(
                    year=campaign.current_year,
                    step=Step.SURVIVAL,
                    kind__in=["succession", "regency"],
                ),
            ).order_by("pk")
        )
    mine_to_roll = [r for r in board.to_roll if mine is not None and r.character.controlled_by_id == mine]
    return render(
        request,
        "pages/sequence/survival.html",
        context(
            campaign,
            role,
            mine,
            board=board,
            rows=_survival_rows(board, role, mine, failure),
            is_open=is_open,
            closed=closed,
            successions=successions,
            regents=dead_regents(campaign) if is_open else [],
            finish_form=finish_form,
            failure=failure,
            made=made,
            mine_to_roll=mine_to_roll,
            top=top,
            step_label=STEP_LABELS[campaign.step],
            bloodline=campaign.rules.effective_ages,
            announcements_url=_turn_url(campaign, "pages:announcements", "announcements/"),
            marriages_url=_turn_url(campaign, "pages:marriages", "marriages/"),
        ),
        status=400 if failure else 200,
    )


# --- Undo -----------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def undo(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    require_gm(role)
    if request.method == "POST":
        which = request.POST.get("which")
        if which not in ("step", "turn"):
            messages.error(request, "Choose what to undo: the step or the turn.")
            return redirect(_top("pages:undo", campaign))
        action = undo_turn if which == "turn" else undo_step
        try:
            restored = action(campaign=campaign, key=request.POST.get("action_key"), by=request.user)
        except AlreadyDone as exc:
            messages.info(request, exc.message)
        except RuleError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"Undone: the campaign is back at {describe(restored)}. Redo brings it back.")
        return redirect(_top("pages:turn", campaign))
    return render(
        request,
        "pages/sequence/undo.html",
        context(
            campaign,
            role,
            mine,
            plans={"step": undo_plan(campaign), "turn": undo_plan(campaign, turn=True)},
            redo=redo_plan(campaign),
            confirm=True,  # the turn page links here: the undo is asked for, then confirmed
        ),
    )


@require_http_methods(["POST"])
@login_required
def redo_view(request: HttpRequest, slug: str) -> HttpResponse:
    """The GM's Redo: the last undo written again (campaign.undo.redo asks the policy)."""
    campaign, role, _mine = member(request, slug)
    require_gm(role)
    try:
        restored = redo(campaign=campaign, key=request.POST.get("action_key"), by=request.user)
    except AlreadyDone as exc:
        messages.info(request, exc.message)
    except RuleError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Redone: what the undo back to {describe(restored)} took back is written again.")
    return redirect(_top("pages:turn", campaign))


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/turn/", turn, name="turn"),
    path("<slug:slug>/turn/births/", births, name="births"),
    path("<slug:slug>/turn/survival/", survival, name="survival"),
    path("<slug:slug>/turn/undo/", undo, name="undo"),
    path("<slug:slug>/turn/redo/", redo_view, name="redo"),
]
