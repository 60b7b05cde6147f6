"""Pages: the Dynastic Sequence (issue 7): the turn hub, Births, Survival with the succession
decisions, and the GM's Undo.

Who acts: the GM for everyone; a player for his own dynasty's couples (his house controls the
husband or the wife) and characters (his house controls them), and for the succession of the crown
his house controls; an observer only looks. Births and Survival are each one grid (issue 19): every
row the viewer may roll for, typed dice or the server's per row, sent at once; the typed dice are
checked first (the message next to the die, nothing written while a row is wrong), then every row is
written in one :func:`pages.common.run_action` (one transaction, one undo checkpoint, the one-time
form key). htmx swaps the step in place; without JavaScript the same forms load the page. An
eu-monarchs campaign's Survival is the monarchs' grid (:mod:`pages.monarchs`). The odds and eligibility come from
:mod:`dynasties.services.sequence_view`; nothing is computed here but what to show to whom."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods

from campaign.live import page_version
from campaign.models import STEP_ORDER, Campaign, ChronicleEntry, DiceEntry, Step
from campaign.permissions import (
    Forbidden,
    Seen,
    may_act_for_any,
    may_correct_rolls,
    require,
    runs_the_turn,
    seat_of,
    visible,
)
from campaign.services import dice_entry_for
from campaign.steps import STEP_LABELS, STEP_WAITS
from campaign.table_events import available, happens_now
from campaign.undo import AlreadyDone, describe, redo, redo_plan, undo_offers, undo_plan, undo_step, undo_turn
from dynasties.models import BirthAttempt, Dynasty, Marriage
from dynasties.selectors import label as label_names
from dynasties.services.births import births_attempt, births_finish, births_roll_all, births_sex
from dynasties.services.characteristics import format_characteristics
from dynasties.services.corrections import turn_rolls
from dynasties.services.monarchs_view import monarchs_board
from dynasties.services.naming import NAME_MAX, character_rename
from dynasties.services.play_registry import BirthTerms, play_of, plays
from dynasties.services.sequence_view import (
    SUCCESSION_LINE_LIMIT,
    BirthsBoard,
    CoupleRow,
    SurvivalBoard,
    SurvivalRow,
    births_board,
    dead_regents,
    succession_decisions,
    survival_board,
)
from dynasties.services.succession_choices import pass_over_choose
from dynasties.services.survival import SurvivalResult, Whose, survival_close, survival_roll
from pages import monarchs
from pages.common import ActionFailed, context, counted, may_act_for, member, require_gm, run_action
from pages.dice import spoken
from rules.dice import DiceSpec, TypedTotal
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


def total_field(spec: DiceSpec, label: str, *, required: bool) -> forms.IntegerField:
    """One roll typed from the table as its total: a whole number the dice can show."""
    low, high = spec.count, spec.count * spec.sides
    wrong = f"A {spec} roll totals {low} to {high}."
    return forms.IntegerField(
        label=label,
        required=required,
        min_value=low,
        max_value=high,
        error_messages={
            "required": f"Type the roll's total ({low} to {high}).",
            "invalid": f"Type a whole number from {low} to {high}.",
            "min_value": wrong,
            "max_value": wrong,
        },
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": low, "max": high, "class": "die total"}),
    )


def _as_total(spec: DiceSpec, totals: bool) -> bool:
    """A roll is typed as its total when the table types totals and it has two dice or more."""
    return totals and spec.count > 1


class DiceForm(forms.Form):
    """One throw typed from the table: its faces (``d1`` .. ``dN``), or with ``totals`` its total
    (``total``); not required when the server rolls."""

    def __init__(
        self, *args: Any, spec: DiceSpec, typed: bool = True, totals: bool = False, whose: str = "", **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.spec = spec
        self.totals = _as_total(spec, totals)
        if self.totals:
            self.fields["total"] = total_field(spec, f"Total ({spec})", required=typed)
        for i in range(1, 0 if self.totals else spec.count + 1):
            self.fields[f"d{i}"] = die_field(spec, f"Die {i}", required=typed)
        spoken(self, whose)

    def faces(self) -> list[int] | TypedTotal | None:
        if self.totals:
            total = self.cleaned_data.get("total")
            return None if total is None else TypedTotal(int(total))
        values = [self.cleaned_data.get(f"d{i}") for i in range(1, self.spec.count + 1)]
        return None if all(v is None for v in values) else [int(v) for v in values if v is not None]


class SexForm(forms.Form):
    """After a birth: the sex die, optionally the characteristics' dice (all or none)."""

    def __init__(
        self, *args: Any, board: BirthTerms, typed: bool = True, totals: bool = False, whose: str = "", **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.board = board
        self.totals = _as_total(board.characteristic_dice, totals)
        self.fields["sex"] = die_field(board.sex_dice, f"Sex die ({board.sex_rule})", required=typed)
        spec = board.characteristic_dice
        for n, label in enumerate(board.characteristic_labels, start=1):
            if self.totals:
                self.fields[f"c{n}_t"] = total_field(spec, f"{label}, total", required=False)
            for i in range(1, 0 if self.totals else spec.count + 1):
                self.fields[f"c{n}_{i}"] = die_field(spec, f"{label}, die {i}", required=False)
        spoken(self, whose)

    def _trait_names(self) -> list[list[str]]:
        dice = self.board.characteristic_dice.count
        count = len(self.board.characteristic_labels)
        if self.totals:
            return [[f"c{n}_t"] for n in range(1, count + 1)]
        return [[f"c{n}_{i}" for i in range(1, dice + 1)] for n in range(1, count + 1)]

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
                f"Type every characteristic {'total' if self.totals else 'die'}, or none (the server then rolls them): "
                f"{len(missing)} of {len(names)} missing.",
            )
        return data

    def sex_faces(self) -> list[int] | None:
        value = self.cleaned_data.get("sex")
        return None if value is None else [int(value)]

    def characteristic_faces(self) -> list[list[int] | TypedTotal] | None:
        rows = [[self.cleaned_data.get(name) for name in row] for row in self._trait_names()]
        if any(v is None for row in rows for v in row):
            return None
        if self.totals:
            return [TypedTotal(int(row[0] or 0)) for row in rows]  # none is None: checked above
        return [[int(v) for v in row if v is not None] for row in rows]


class NameForm(forms.Form):
    """A child born this turn: its name, prefilled with the one the sex roll gave it."""

    given_name = forms.CharField(
        label="Name",
        required=False,
        max_length=NAME_MAX,
        error_messages={"max_length": f"A name has at most {NAME_MAX} letters."},
        widget=forms.TextInput(attrs={"class": "name", "autocomplete": "off"}),
    )


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
    """A refused POST: re-render the page with this form (status 400); a grid's rows come back as
    they were typed, with their errors (``alert``: the message at the top is the one to read,
    else each wrong row carries its own)."""

    op: str
    target: Any
    form: forms.Form
    lines: list[Any] | None = None
    alert: bool = True


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
        if plays(campaign, "monarchs"):
            due = [r.name for r in monarchs_board(campaign).to_roll]
            return f"Crowns still to roll: {', '.join(due)}." if due else "Every crown has rolled: the GM closes Survival."
        survival = survival_board(campaign)
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
    shown = undo_offers(campaign, by=request.user)  # the policy says who sees them; the losses: the undo page
    at_table = [e for e in available(campaign, seat_of(request.user, campaign)) if happens_now(e, campaign.step)]
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
            corrections=turn_rolls(campaign) if may_correct_rolls(role) else [],
            plans=plans,
            redo=kept,
            at_table=at_table,
            movement=_movement(request, campaign),
        ),
    )


MOVEMENT_LINES = 200
"""At most this many of the year's Movement lines on the turn page (one query, bounded)."""


def _movement(request: HttpRequest, campaign: Campaign) -> list[tuple[int, list[str]]]:
    """This year's board events that say their Event/Movement phase (``dynasties.services.phases``),
    grouped by phase: the lines the user may read (the policy's ``visible``)."""
    lines = visible(
        request.user, campaign, ChronicleEntry.objects.filter(year=campaign.current_year, data__has_key="phase")
    ).order_by("id")[:MOVEMENT_LINES]
    grouped: dict[int, list[str]] = {}
    for entry in lines:
        phase = entry.data.get("phase")
        if isinstance(phase, int):
            grouped.setdefault(phase, []).append(entry.text)
    return sorted(grouped.items())


# --- Births ---------------------------------------------------------------------------------


TYPED, SERVER = "typed", "server"


class RowRefused(RuleError):
    """A service's refusal of one row of a grid: the page shows it on that row."""

    def __init__(self, row: int, exc: RuleError) -> None:
        super().__init__(exc.message, code=exc.code, fields=exc.fields)
        self.row = row


def _refused_row(exc: ActionFailed) -> int | None:
    """The grid row a refusal belongs to, if the service named one."""
    cause = exc.__cause__
    return cause.row if isinstance(cause, RowRefused) else None


F = TypeVar("F", bound=forms.BaseForm)


def _bound_if_typed(form: F, data: Any, make: Callable[..., F]) -> F:
    """The form bound to ``data`` when anything was typed in its fields, else left empty (an
    empty part of a grid is skipped, its dice not asked for)."""
    if data is not None and any((data.get(form.add_prefix(name)) or "").strip() for name in form.fields):
        return make(data)
    return form


def _typed_for(data: Any, prefixes: tuple[str, ...]) -> bool:
    """Whether anything was typed under these form prefixes (a row of a grid shown earlier)."""
    return any(key.startswith(prefixes) and (value or "").strip() for key, value in data.items())


def _asked_for(data: Any, pk: int, prefixes: tuple[str, ...]) -> bool:
    """Whether a grid's POST asks anything of row ``pk``: its dice typed, the server's dice chosen, or its state sent."""
    return (
        data.get(f"how-{pk}") == SERVER
        or f"state-{pk}" in data
        or _typed_for(data, tuple(f"{prefix}{pk}-" for prefix in prefixes))
    )


def _closed(step: str, campaign: Campaign) -> str:
    return f"{step} is closed (the campaign is at {STEP_LABELS[campaign.step]}): nothing was entered."


def _field_problems(form: forms.Form) -> list[str]:
    """Each wrong die of a form, with its label: what the row must fix."""
    return [
        f"{form.fields[name].label}: {error}" for name, errors in form.errors.items() if name in form.fields for error in errors
    ]


VERSION_HEADER = "Regnal-Version"
"""The header carrying the viewer's live version on a step's fragment, the answer to its own htmx
form (the whole page has it on ``<main>``): his own write is not news to the page
(``campaign.live.page_version``, ``pages/static/regnal-live.js``)."""


@dataclass
class CoupleLine:
    """One couple in the Births grid: what it has rolled, and the dice due now if the viewer may
    roll for it: the attempt, or after a child its sex and characteristics with the next attempt
    offered in place (left empty: no further attempt); the names of its children born this turn."""

    row: CoupleRow
    may_act: bool
    mine: bool
    house: Dynasty | None
    husband_age: int
    wife_age: int
    how: str = TYPED
    attempt: forms.Form | None = None
    sex: forms.Form | None = None
    again: forms.Form | None = None
    names: dict[int, forms.Form] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @property
    def pk(self) -> int:
        return self.row.marriage.pk

    @property
    def state(self) -> str:
        """What is due: the page sends it back, so dice typed for a row someone has rolled since are not lost silently."""
        if self.row.pending is not None:
            return f"sex-{self.row.pending.pk}"
        if self.row.may_attempt:
            return f"attempt-{len(self.row.attempts) + 1}"
        return "done"

    @property
    def dice_due(self) -> bool:
        return self.attempt is not None or self.sex is not None

    @property
    def acting(self) -> bool:
        return self.may_act and (self.dice_due or bool(self.names))

    @property
    def attempt_rows(self) -> list[tuple[BirthAttempt, forms.Form | None]]:
        return [(a, self.names.get(a.child_id) if a.child_id else None) for a in self.row.attempts]

    @property
    def failed(self) -> bool:
        return bool(self.errors)


def _totals(request: HttpRequest, campaign: Campaign) -> bool:
    """The viewer types totals: the campaign's choice, or his own when each player chooses."""
    return dice_entry_for(campaign, request.user) == DiceEntry.TOTALS


def _couple_lines(
    campaign: Campaign,
    board: BirthsBoard,
    role: str,
    mine: int | None,
    data: Any = None,
    *,
    totals: bool = False,
    houses: dict[int, Dynasty] | None = None,
) -> list[CoupleLine]:
    """The Births grid, a player's own couples first; bound to ``data`` (a POST) where it was typed in;
    with ``totals``, each roll of two dice or more is typed as its total. ``houses``: the campaign's
    dynasties by id, if the request has read them already (a grid's write does not change them)."""
    if houses is None:
        houses = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign)}
    is_open = campaign.step == Step.BIRTHS
    terms, spec = board.terms, board.birth_dice
    lines = []
    for row in board.couples:
        pk = row.marriage.pk
        own = mine is not None and mine in row.dynasties
        house = mine if own else (row.husband.controlled_by_id or row.wife.controlled_by_id)
        line = CoupleLine(
            row,
            is_open and may_act_for_any(role, mine, row.dynasties),
            own,
            houses.get(house or 0),
            row.husband.age(board.year),
            row.wife.age(board.year),
        )
        if line.may_act:
            line.how = SERVER if data is not None and data.get(f"how-{pk}") == SERVER else TYPED
            typed = data if line.how == TYPED else None
            quiet: dict[str, Any] = {"use_required_attribute": False}
            couple = f"{row.husband.display_name} and {row.wife.display_name}"
            attempt = {**quiet, "whose": f"{couple}, birth attempt {len(row.attempts) + 1}"}
            if row.pending is not None:
                child = {**quiet, "whose": f"the child of {couple}"}
                line.sex = _bound_if_typed(
                    SexForm(board=terms, prefix=f"x{pk}", totals=totals, **child),
                    typed,
                    lambda d, pk=pk, child=child: SexForm(d, board=terms, prefix=f"x{pk}", totals=totals, **child),
                )
                if row.problem is None:
                    line.again = _bound_if_typed(
                        DiceForm(spec=spec, prefix=f"r{pk}", totals=totals, **attempt),
                        typed,
                        lambda d, pk=pk, attempt=attempt: DiceForm(d, spec=spec, prefix=f"r{pk}", totals=totals, **attempt),
                    )
            elif row.may_attempt:
                line.attempt = _bound_if_typed(
                    DiceForm(spec=spec, prefix=f"a{pk}", totals=totals, **attempt),
                    typed,
                    lambda d, pk=pk, attempt=attempt: DiceForm(d, spec=spec, prefix=f"a{pk}", totals=totals, **attempt),
                )
            for a in row.attempts:
                if a.child is not None:
                    initial = {"given_name": a.child.given_name}
                    line.names[a.child.pk] = NameForm(data, prefix=f"n{a.child.pk}", initial=initial)
        lines.append(line)
    lines.sort(key=lambda line: not line.mine)  # stable: a player's own couples first
    return lines


@dataclass(frozen=True)
class GridStep:
    """One write of a grid, in page order: ``attempt``, ``sex`` or ``name``."""

    kind: str
    line: CoupleLine
    faces: list[int] | TypedTotal | None = None
    traits: list[list[int] | TypedTotal] | None = None
    child: int = 0
    name: str = ""


def _births_plan(lines: list[CoupleLine], data: Any) -> list[GridStep]:
    """What the grid asks for, row by row; each wrong row gets its errors (then nothing is written)."""
    plan: list[GridStep] = []
    for line in lines:
        if not line.acting:
            continue
        for a, form in line.attempt_rows:
            if form is None or a.child is None:
                continue
            if not form.is_valid():
                line.errors.extend(f"Name of {a.child.display_name}: {e}" for e in form.errors.get("given_name", []))
                continue
            name = " ".join(form.cleaned_data["given_name"].split())
            if name and name != a.child.given_name:
                plan.append(GridStep("name", line, child=a.child.pk, name=name))
        posted = data.get(f"state-{line.pk}")
        if not line.dice_due:
            continue
        if posted is not None and posted != line.state:
            if line.how == SERVER or _typed_for(data, (f"a{line.pk}-", f"x{line.pk}-", f"r{line.pk}-")):
                line.errors.append(
                    "These dice were not entered: someone rolled for this couple since the page was shown. "
                    "Look at the row again and type what is due now."
                )
            continue
        if line.how == SERVER:
            plan.append(GridStep("sex" if line.sex is not None else "attempt", line))
            continue
        sex, again, attempt = line.sex, line.again, line.attempt
        if sex is not None and sex.is_bound:
            if sex.is_valid():
                assert isinstance(sex, SexForm)
                plan.append(GridStep("sex", line, faces=sex.sex_faces(), traits=sex.characteristic_faces()))
            else:
                line.errors.extend(_field_problems(sex))
        if again is not None and again.is_bound:
            if sex is not None and not sex.is_bound:
                line.errors.append("Type the child's sex die first: another attempt comes after it.")
            elif again.is_valid():
                assert isinstance(again, DiceForm)
                plan.append(GridStep("attempt", line, faces=again.faces()))
            else:
                line.errors.extend(_field_problems(again))
        if attempt is not None and attempt.is_bound:
            if attempt.is_valid():
                assert isinstance(attempt, DiceForm)
                plan.append(GridStep("attempt", line, faces=attempt.faces()))
            else:
                line.errors.extend(_field_problems(attempt))
    return plan


def _attempt_message(match: Marriage, made: BirthAttempt) -> str:
    faces = made.roll.faces if made.roll else []
    dice = " + ".join(str(f) for f in faces)
    couple = f"{match.husband.display_name} and {match.wife.display_name}"
    result = "a child! Now its sex." if made.success else "no child."
    return f"{couple}, attempt {made.attempt}: {dice} = {sum(faces)}: {result}"


def _apply_births(plan: list[GridStep], by: Any) -> Any:
    """The grid's writes in page order, in the one transaction of :func:`run_action`."""

    def apply(c: Campaign) -> list[tuple[GridStep, Any]]:
        done: list[tuple[GridStep, Any]] = []
        for step in plan:
            row = step.line.row
            try:
                if step.kind == "attempt":
                    made: Any = births_attempt(campaign=c, marriage=step.line.pk, faces=step.faces, by=by)
                elif step.kind == "sex":
                    assert row.pending is not None
                    made = births_sex(
                        campaign=c, attempt=row.pending.pk, faces=step.faces, characteristic_faces=step.traits, by=by
                    )
                else:
                    made = character_rename(campaign=c, character=step.child, given_name=step.name, by=by)
            except Forbidden:
                raise
            except RuleError as exc:
                raise RowRefused(step.line.pk, exc) from exc
            done.append((step, made))
        return done

    return apply


@dataclass(frozen=True)
class Entered:
    """A grid's rows written: the page is drawn again (the lines' houses, read before, kept; and
    the board read before, when the grid's action was the only write since: ``births_board(kept=)``)."""

    houses: dict[int, Dynasty]
    board: BirthsBoard | None = None


def _foreign_rows(lines: list[CoupleLine], data: Any) -> list[GridStep]:
    """The rows of the grid's POST the viewer asked something of but may not roll for: each is sent
    to its service as it was asked (the server's dice), so that the policy, asked there, refuses it."""
    steps = []
    for line in lines:
        if line.may_act or not _asked_for(data, line.pk, ("a", "x", "r")):
            continue
        steps.append(GridStep("sex" if line.row.pending is not None else "attempt", line))
    return steps


def _refuse(request: HttpRequest, campaign: Campaign, label: str, apply: Any, refused: str) -> None:
    """Send a grid's rows the viewer may not act on to their services, for the policy to refuse them
    (403): the page draws no dice for them, so nothing is ever written for them here (had the policy
    let them pass, the action is rolled back and ``refused`` said); any other refusal (the step is
    closed), and the grid goes on to say it."""

    def asked(c: Campaign) -> None:
        apply(c)
        raise PermissionDenied(refused)

    try:
        run_action(request, campaign, label, asked)
    except ActionFailed:
        return


def _births_grid(request: HttpRequest, campaign: Campaign, role: str, mine: int | None) -> Entered | Failure:
    """The Births grid sent: every filled row checked first, then all written in one action. Who
    may roll for which couple is the services' to say (``births_attempt``, ``births_sex``): a row
    of another house's couple is sent to them, and refused there (403)."""
    board = births_board(campaign)
    totals = _totals(request, campaign)
    houses = board.houses
    if houses is None:
        houses = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign)}
    lines = _couple_lines(campaign, board, role, mine, request.POST, totals=totals, houses=houses)
    foreign = _foreign_rows(lines, request.POST) if campaign.step == Step.BIRTHS else []
    if foreign:  # the policy's refusal (403) before anything else is looked at
        _refuse(
            request,
            campaign,
            "Births: rolls for another house",
            _apply_births(foreign, request.user),
            "You may roll only for your own dynasty's couples.",
        )
    if campaign.step != Step.BIRTHS:
        return Failure("grid", None, _failed(_closed("Births", campaign)))
    plan = _births_plan(lines, request.POST)
    wrong = [line for line in lines if line.errors]
    if wrong:
        return Failure("grid", None, _failed(_nothing_entered(len(wrong), "couple")), lines, alert=False)
    if not plan:
        return Failure(
            "grid", None, _failed("Nothing to enter: type a couple's dice, or choose the server's dice for it."), lines
        )
    apply = _apply_births(plan, request.user)
    locked_at: list[int] = []

    def action(c: Campaign) -> Any:
        locked_at.append(c.live_version)
        return apply(c)

    try:
        done = run_action(
            request,
            campaign,
            f"Births: {counted(len(plan), 'roll')} entered",
            action,
            seen=Seen.ALL,  # as births_attempt's and births_sex's own locks say (a rename: every member too)
        )
    except ActionFailed as exc:
        row = _refused_row(exc)
        hit = next((line for line in lines if line.pk == row), None)
        if hit is None:
            return Failure("grid", None, _failed(exc.message), lines)
        hit.errors.append(exc.message)
        return Failure("grid", None, _failed(_nothing_entered(1, "couple")), lines, alert=False)
    for step, made in done or []:
        match = step.line.row.marriage
        if step.kind == "attempt":
            (messages.success if made.success else messages.info)(request, _attempt_message(match, made))
        elif step.kind == "sex":
            kind = "A son" if made.sex == "M" else "A daughter"
            messages.success(request, f"{kind}: {made.display_name} ({format_characteristics(made.characteristics)}).")
        else:
            messages.success(request, f"The child is named {made.display_name}.")
    # the board read above is this action's starting point if nothing else was written since the
    # campaign was read (its version raised by this action's lock alone): drawn again from it
    alone = done is not None and locked_at == [campaign.live_version + 1]
    return Entered(houses, board if alone else None)


def _nothing_entered(rows: int, what: str) -> str:
    return f"Nothing was entered: fix the {counted(rows, what)} marked below, then enter the dice again."


def _births_post(request: HttpRequest, campaign: Campaign, role: str, mine: int | None) -> HttpResponse | Entered | Failure:
    op = request.POST.get("op", "")
    here = reverse("pages:births", args=[campaign.slug])
    user = request.user
    if op == "grid":
        return _births_grid(request, campaign, role, mine)
    if op in ("roll_all", "finish"):  # the GM's: the services ask the policy (403 to anyone else)
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


def htmx(request: HttpRequest) -> bool:
    """The request is htmx's (a form swapping its part of the page in place)."""
    return request.headers.get("HX-Request") == "true"


@require_http_methods(["GET", "POST"])
@login_required
def births(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    failure = None
    houses = None
    kept = None
    if request.method == "POST":
        outcome = _births_post(request, campaign, role, mine)
        if isinstance(outcome, HttpResponse):
            return outcome
        if isinstance(outcome, Entered):
            if not htmx(request):  # a plain form: the page again, by its address
                return redirect(reverse("pages:births", args=[campaign.slug]) + "#step")
            houses, kept = outcome.houses, outcome.board  # htmx: the step's fragment, drawn now (no redirect)
        else:
            failure = outcome
            campaign.refresh_from_db()
    board = births_board(campaign, kept=kept)
    lines = (
        failure.lines
        if failure is not None and failure.lines is not None
        else _couple_lines(campaign, board, role, mine, totals=_totals(request, campaign), houses=houses)
    )
    shown = [p for line in lines for p in (line.row.husband, line.row.wife, *(a.child for a in line.row.attempts if a.child))]
    label_names(campaign, shown, known=board.known)  # regnal numbers, living namesakes told apart
    fragment = houses is not None  # htmx, after the grid's write: the step's part alone
    response = render(
        request,
        "pages/sequence/_births_step.html" if fragment else "pages/sequence/births.html",
        context(
            campaign,
            role,
            mine,
            board=board,
            lines=lines,
            grid=any(line.acting for line in lines),
            may_correct=may_correct_rolls(role),  # a "Correct" link on each roll of the open step
            is_open=campaign.step == Step.BIRTHS,
            top=failure.form if failure is not None else None,
            alert=failure is None or failure.alert,
            step_label=STEP_LABELS[campaign.step],
            survival_url=reverse("pages:survival", args=[campaign.slug]),
        ),
        status=400 if failure else 200,
    )
    if fragment:
        response[VERSION_HEADER] = str(page_version(campaign, role, mine))
    patch_vary_headers(response, ["HX-Request"])
    return response


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


@dataclass
class SurvivalLine:
    """One character in the Survival grid: the odds, and the dice if the viewer may roll for him now."""

    row: SurvivalRow
    may_act: bool
    mine: bool
    how: str = TYPED
    form: forms.Form | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def pk(self) -> int:
        return self.row.character.pk


def _survival_lines(
    board: SurvivalBoard, role: str, mine: int | None, is_open: bool, data: Any = None, *, totals: bool = False
) -> list[SurvivalLine]:
    """The Survival grid, a player's own characters first; bound to ``data`` (a POST) where it was typed in;
    with ``totals``, each roll is typed as its total."""
    lines = []
    quiet = {"use_required_attribute": False}
    for row in board.rows:
        pk = row.character.pk
        house = row.character.controlled_by_id
        line = SurvivalLine(
            row, is_open and not row.rolled and may_act_for(role, mine, house), mine is not None and house == mine
        )
        if line.may_act:
            line.how = SERVER if data is not None and data.get(f"how-{pk}") == SERVER else TYPED
            whose = f"{row.character.display_name}, survival"
            line.form = _bound_if_typed(
                DiceForm(spec=board.dice, prefix=f"s{pk}", totals=totals, whose=whose, **quiet),
                data if line.how == TYPED else None,
                lambda d, pk=pk, whose=whose: DiceForm(d, spec=board.dice, prefix=f"s{pk}", totals=totals, whose=whose, **quiet),
            )
        lines.append(line)
    lines.sort(key=lambda line: not line.mine)  # stable: a player's own characters first
    return lines


def _survival_grid(request: HttpRequest, campaign: Campaign, role: str, mine: int | None) -> HttpResponse | Failure:
    """The Survival grid sent: every filled row checked first, then one survival roll for them all
    (the rows left to the server roll on its dice)."""
    board = survival_board(campaign)
    shown = {_pk(v) for v in request.POST.getlist("rows")}
    foreign = [
        row.character.pk
        for row in board.rows
        if not may_act_for(role, mine, row.character.controlled_by_id)
        and (row.character.pk in shown or _asked_for(request.POST, row.character.pk, ("s",)))
    ]
    if foreign:  # rows of another house's characters: the service's policy refuses them (403), first
        _refuse(
            request,
            campaign,
            "Survival: rolls for another house",
            lambda c: survival_roll(campaign=c, characters=foreign, by=request.user),
            "You may roll only for your own dynasty's characters.",
        )
    if campaign.step != Step.SURVIVAL:
        return Failure("grid", None, _failed(_closed("Survival", campaign)))
    lines = _survival_lines(board, role, mine, True, request.POST, totals=_totals(request, campaign))
    chosen: list[int] = []
    faces: dict[int, list[int] | TypedTotal] = {}
    for line in lines:
        if not line.may_act or line.form is None or (shown and line.pk not in shown):
            continue
        if line.how == SERVER:
            chosen.append(line.pk)
        elif line.form.is_bound:
            if line.form.is_valid():
                assert isinstance(line.form, DiceForm)
                chosen.append(line.pk)
                faces[line.pk] = line.form.faces() or []
            else:
                line.errors.extend(_field_problems(line.form))
    wrong = [line for line in lines if line.errors]
    if wrong:
        return Failure("grid", None, _failed(_nothing_entered(len(wrong), "character")), lines, alert=False)
    rolled = [
        line.row.character.display_name
        for line in lines
        if line.row.rolled and line.pk in shown and _asked_for(request.POST, line.pk, ("s",))
    ]
    if rolled:
        names = ", ".join(rolled)
        message = (
            f"Nothing was entered: already rolled for survival this turn: {names} (the grid shows the result). "
            "Enter the other dice again."
        )
        return Failure("grid", None, _failed(message), lines)
    if not chosen:
        return Failure(
            "grid", None, _failed("Nothing to enter: type a character's dice, or choose the server's dice for him."), lines
        )
    try:
        results = run_action(
            request,
            campaign,
            f"Survival: {counted(len(chosen), 'roll')} entered",
            lambda c: survival_roll(campaign=c, characters=chosen, faces=faces, by=request.user),
        )
    except ActionFailed as exc:
        hit = next((line for line in lines if str(line.pk) == exc.fields.get("characters")), None)
        if hit is None:
            return Failure("grid", None, _failed(exc.message), lines)
        hit.errors.append(exc.message)
        return Failure("grid", None, _failed(_nothing_entered(1, "character")), lines, alert=False)
    if results is not None:
        (messages.success if all(r.survived for r in results) else messages.warning)(request, _results_message(results))
    return redirect(reverse("pages:survival", args=[campaign.slug]) + "#step")


def _successions(campaign: Campaign, role: str, mine: int | None) -> list[dict[str, Any]]:
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
    if op == "grid":
        return _survival_grid(request, campaign, role, mine)
    if op in ("roll_all", "roll_mine"):  # who may press which is the service's policy to say (403)
        whose: Whose = "all" if op == "roll_all" else "mine"
        try:
            results = run_action(
                request,
                campaign,
                "Roll all survival" if whose == "all" else "Roll my dynasty's survival",
                lambda c: survival_roll(campaign=c, whose=whose, by=user),
            )
        except ActionFailed as exc:
            return Failure(op, None, _failed(exc.message))
        if results is not None:
            (messages.success if all(r.survived for r in results) else messages.warning)(request, _results_message(results))
        return redirect(f"{here}#top")
    if op == "pass_over":
        crown = request.POST.get("crown", "")
        heirs = [_pk(v) for v in request.POST.getlist("heirs")]
        try:  # the service asks the policy before it looks for the succession (an observer: 403)
            chosen = run_action(
                request,
                campaign,
                f"Succession of {crown}: heirs passed over",
                lambda c: pass_over_choose(campaign=c, crown=crown, heirs=heirs, limit=SUCCESSION_LINE_LIMIT, by=user),
            )
        except ActionFailed as exc:
            return Failure("pass_over", crown, _failed(exc.message))
        if chosen is not None:
            due = next((s for s in _successions(campaign, role, mine) if s["due"].crown == crown), None)
            names = {e.character.pk: e.character.display_name for e in due["line"].entries} if due and due["line"] else {}
            text = ", ".join(names.get(pk, f"#{pk}") for pk in chosen) or "nobody"
            messages.success(
                request, f"{crown}: your choice is recorded (passing over: {text}). The GM applies it at the end of Survival."
            )
        return redirect(f"{here}#succession")
    if op == "finish":
        form = FinishSurvivalForm(request.POST, auto_id="finish-%s")
        valid = form.is_valid()  # said only once the service's policy lets the GM through (anyone else: 403)
        invalid = None if valid else RuleError("Check the typed dice.", fields={"entered": "invalid"})
        pass_over: dict[str, list[int]] = {}
        for value in request.POST.getlist("pass_over"):
            crown, _, pk = value.rpartition("::")
            if crown and _pk(pk):
                pass_over.setdefault(crown, []).append(_pk(pk))
        entered = form.cleaned_data["entered"] if valid else None

        try:  # the ticked boxes are the decision (the recorded choices come ticked): none ticked, nobody passed over
            done = run_action(
                request,
                campaign,
                "Finish Survival",
                lambda c: survival_close(campaign=c, pass_over=pass_over, entered=entered, invalid=invalid, by=user),
            )
        except ActionFailed as exc:
            return Failure("finish", None, form if not valid else _refused(form, exc))
        if done is None:
            return redirect(f"{here}#succession")
        messages.success(request, f"Survival of {campaign.current_year} closed: successions resolved; now Marriages.")
        made = visible(
            user,
            campaign,
            ChronicleEntry.objects.filter(year=campaign.current_year, step=Step.SURVIVAL, kind__in=["succession", "regency"]),
        ).order_by("pk")
        texts = [entry.text for entry in made]
        if texts:
            messages.info(request, "New monarchs: " + " ".join(texts))
        # on to the next step's page (issue 34); the successions stay on the Survival page too
        return redirect(step_page(Campaign.objects.get(pk=campaign.pk)) + "#top")
    return Failure("unknown", None, _failed("Unknown action: reload the page and try again."))


@require_http_methods(["GET", "POST"])
@login_required
def survival(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    if plays(campaign, "monarchs"):  # the EU monarch tables: the monarchs' grid (pages/monarchs.py)
        return monarchs.survival(request, campaign, role, mine, _survival_post)
    failure = None
    if request.method == "POST":
        outcome = _survival_post(request, campaign, role, mine)
        if isinstance(outcome, HttpResponse):
            return outcome
        failure = outcome
        campaign.refresh_from_db()
    is_open = campaign.step == Step.SURVIVAL
    board = survival_board(campaign)
    successions = _successions(campaign, role, mine) if is_open else []
    finish_form: forms.Form = FinishSurvivalForm(auto_id="finish-%s")
    top = failure.form if failure is not None else None  # unless shown where it was made:
    lines = (
        failure.lines
        if failure is not None and failure.lines is not None
        else _survival_lines(board, role, mine, is_open, totals=_totals(request, campaign))
    )
    label_names(campaign, [line.row.character for line in lines])  # regnal numbers, living namesakes told apart
    if failure is not None and failure.op == "finish" and is_open and runs_the_turn(role):
        finish_form, top = failure.form, None
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
            lines=lines,
            grid=any(line.may_act for line in lines),
            may_correct=may_correct_rolls(role),  # a "Correct" link on each roll of the open step
            alert=failure is None or failure.alert,
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
            bloodline=play_of(campaign).survival.effective_ages(),
            announcements_url=_turn_url(campaign, "pages:announcements", "announcements/"),
            marriages_url=_turn_url(campaign, "pages:marriages", "marriages/"),
        ),
        status=400 if failure else 200,
    )


# --- Undo -----------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def undo(request: HttpRequest, slug: str) -> HttpResponse:
    """The GM's Undo: what each undo would take back (the page, the GM's), then the undo (the
    service asks the policy: 403 to anyone else, the door only says what it answered)."""
    campaign, role, mine = member(request, slug)
    if request.method == "POST":
        which = request.POST.get("which")
        action = undo_turn if which == "turn" else undo_step
        try:
            if which not in ("step", "turn"):  # the policy first: a refusal says so, else what to choose
                require(request.user, campaign, "gm")
                messages.error(request, "Choose what to undo: the step or the turn.")
                return redirect(_top("pages:undo", campaign))
            restored = action(campaign=campaign, key=request.POST.get("action_key"), by=request.user)
        except AlreadyDone as exc:
            messages.info(request, exc.message)
        except Forbidden:
            raise  # 403: the policy refused
        except RuleError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"Undone: the campaign is back at {describe(restored)}. Redo brings it back.")
        return redirect(_top("pages:turn", campaign))
    require_gm(role)  # the plans of the undo are the GM's to read
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
    campaign, _role, _mine = member(request, slug)
    try:
        restored = redo(campaign=campaign, key=request.POST.get("action_key"), by=request.user)
    except AlreadyDone as exc:
        messages.info(request, exc.message)
    except Forbidden:
        raise  # 403: the policy refused
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
