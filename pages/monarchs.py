"""Pages: the EU monarchs' phase of a turn as one typed-dice grid (issue 32), on the Survival page of
an ``eu-monarchs`` campaign.

Every crown is a row: its monarch's survival roll (1d10, the modifiers listed, the odds shown before
the roll) or, for a vacant throne, the succession roll with the successor's values and the reign
length (Dynastic Crisis, Fragile Health, the minority and its roll again for age, the columns moved
by the former monarch's values, Venice's and Poland's modifiers). A monarch whose typed survival die
ends his reign (a death, or his rolled reign spent) can have his successor's dice typed in the same
row: the script shows them when the die ends the reign. Typed dice or the server's, per roll; the
typed dice are checked first (the message next to the die, nothing written while a row is wrong),
then every row is written in one :func:`pages.common.run_action` (one transaction, one undo
checkpoint). The rolls are the services' (``monarch_survival_roll``, ``monarch_succession_roll``);
the odds and what is due come from :mod:`dynasties.services.monarchs_view`. The GM rolls; everyone
else looks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from campaign.models import STEP_ORDER, Campaign, Step
from campaign.permissions import Forbidden, may_correct_rolls, runs_the_turn
from campaign.steps import STEP_LABELS
from dynasties.selectors import label as label_names
from dynasties.services.eu_monarchs import MonarchSuccession, MonarchSurvival, monarch_succession_roll, monarch_survival_roll
from dynasties.services.monarchs_view import DONE, EXEMPT, SUCCESSION, SURVIVAL, MonarchRow, MonarchsBoard, monarchs_board
from pages.common import ActionFailed, context, counted, run_action
from pages.dice import spoken
from rules.errors import RuleError

TYPED, SERVER = "typed", "server"
VALUE_LABELS = {"adm": "ADM", "dip": "DIP", "mil": "MIL"}


def _die(label: str, sides: int) -> forms.IntegerField:
    """One die typed from the table (every roll of the EU monarch tables is one d10: the board's ``sides``)."""
    wrong = f"A d{sides} shows 1 to {sides}."
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=1,
        max_value=sides,
        error_messages={"invalid": f"Type a whole number from 1 to {sides}.", "min_value": wrong, "max_value": wrong},
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": 1, "max": sides, "class": "die"}),
    )


class SurvivalDieForm(forms.Form):
    def __init__(self, *args: Any, sides: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["d1"] = _die("Survival die", sides)

    def face(self) -> int | None:
        value = self.cleaned_data.get("d1")
        return None if value is None else int(value)


class SuccessionForm(forms.Form):
    """The succession's dice: the succession roll, the roll again for age (only after a Dynastic
    Crisis or Fragile Health), ADM, DIP and MIL, the reign length. All typed, or none."""

    def __init__(
        self, *args: Any, age_faces: tuple[int, ...], doge: bool, sides: int, values: tuple[str, ...], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.age_faces, self.doge, self.values = age_faces, doge, values
        self.fields["succession"] = _die("Succession die", sides)
        if age_faces:
            self.fields["age"] = _die("Age die", sides)
        for name in values:
            self.fields[name] = _die(f"{VALUE_LABELS[name]} die", sides)
        self.fields["reign"] = _die("Reign die", sides)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        face = data.get("succession")
        age_due = face is not None and face in self.age_faces
        needed = ["succession", *(["age"] if age_due else []), *self.values, "reign"]
        missing = [n for n in needed if data.get(n) is None]
        if missing:
            self.add_error(
                missing[0],
                f"Type every die of the succession ({counted(len(missing), 'die', 'dice')} missing), "
                "or choose the server's dice.",
            )
        if not age_due and data.get("age") is not None:
            self.add_error(
                "age",
                f"No roll again for age: the succession die {face} reads neither a Dynastic Crisis nor Fragile Health "
                "(leave the age die empty).",
            )
        return data

    def faces(self) -> dict[str, list[int]]:
        return {k: [int(v)] for k, v in self.cleaned_data.items() if v is not None}


@dataclass
class MonarchLine:
    """One crown in the grid: its row of the board, and the GM's forms while its rolls are due."""

    row: MonarchRow
    may_act: bool
    how: str = TYPED  # the survival die's
    how_succession: str = TYPED
    survival: SurvivalDieForm | None = None
    succession: SuccessionForm | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def pk(self) -> int:
        return self.row.key

    @property
    def end_faces(self) -> str:
        terms = self.row.survival
        return ",".join(map(str, terms.end_faces)) if terms else ""

    @property
    def age_faces(self) -> str:
        terms = self.row.succession
        return ",".join(map(str, terms.age_faces)) if terms else ""

    @property
    def value_rows(self) -> list[tuple[str, forms.BoundField | None, int, int | None]]:
        """ADM, DIP, MIL: the die, the column read, the former monarch's value."""
        terms = self.row.succession
        if terms is None:
            return []
        return [
            (
                VALUE_LABELS[n],
                self.succession[n] if self.succession is not None else None,
                terms.columns[n],
                terms.former_values.get(n),
            )
            for n in terms.columns  # in the order the values are rolled
        ]


def _sent(data: Any, pk: int) -> bool:
    """Whether a POST typed dice for crown ``pk``, or chose the server's for it."""
    typed = any(k.startswith((f"m{pk}-", f"n{pk}-")) and (v or "").strip() for k, v in data.items())
    return typed or data.get(f"how-m{pk}") == SERVER or data.get(f"how-n{pk}") == SERVER


def _typed(data: Any, form: forms.Form) -> bool:
    return any((data.get(form.add_prefix(name)) or "").strip() for name in form.fields)


def _lines(board: MonarchsBoard, rolls: bool, is_open: bool, data: Any = None) -> list[MonarchLine]:
    quiet = {"use_required_attribute": False}
    lines = []
    for row in board.rows:
        pk = row.key
        line = MonarchLine(row, rolls and is_open and row.due in (SURVIVAL, SUCCESSION))
        if line.may_act:
            if data is not None:
                line.how = SERVER if data.get(f"how-m{pk}") == SERVER else TYPED
                line.how_succession = SERVER if data.get(f"how-n{pk}") == SERVER else TYPED
            who = f"{row.monarch.display_name}, {row.name}" if row.monarch is not None else row.name
            if row.due == SURVIVAL:
                line.survival = SurvivalDieForm(prefix=f"m{pk}", sides=board.sides, **quiet)
                if data is not None and line.how == TYPED and _typed(data, line.survival):
                    line.survival = SurvivalDieForm(data, prefix=f"m{pk}", sides=board.sides, **quiet)
                spoken(line.survival, who)
            terms = row.succession
            assert terms is not None
            kwargs = {
                "age_faces": terms.age_faces,
                "doge": terms.doge,
                "sides": board.sides,
                "values": board.values,
                "prefix": f"n{pk}",
                **quiet,
            }
            line.succession = SuccessionForm(**kwargs)  # type: ignore[arg-type]
            if data is not None and line.how_succession == TYPED and _typed(data, line.succession):
                line.succession = SuccessionForm(data, **kwargs)  # type: ignore[arg-type]
            spoken(line.succession, f"{row.name}, succession" if row.due == SUCCESSION else f"{row.name}, if the reign ends")
        lines.append(line)
    return lines


def _problems(form: forms.Form) -> list[str]:
    return [f"{form.fields[n].label}: {e}" if n in form.fields else str(e) for n, errs in form.errors.items() for e in errs]


@dataclass(frozen=True)
class Planned:
    """One row's writes: the survival roll (faces or the server's) and/or the succession."""

    line: MonarchLine
    survival: bool = False
    survival_faces: list[int] | None = None
    succession: bool = False  # due now (a vacant throne) or if the survival roll ends the reign
    succession_faces: dict[str, list[int]] | None = None


def _plan(lines: list[MonarchLine], data: Any) -> list[Planned]:
    """What the grid asks for, row by row; each wrong row gets its errors (then nothing is written)."""
    plan: list[Planned] = []
    for line in lines:
        if not line.may_act:
            continue
        row, name = line.row, line.row.name
        sform, nform = line.survival, line.succession
        assert nform is not None
        succession_server = line.how_succession == SERVER
        succession_typed = nform.is_bound
        if succession_typed and not nform.is_valid():
            line.errors.extend(_problems(nform))
            continue
        wants_succession = succession_server or succession_typed
        faces = nform.faces() if succession_typed else None
        if row.due == SUCCESSION:
            if wants_succession:
                plan.append(Planned(line, succession=True, succession_faces=faces))
            continue
        assert sform is not None and row.survival is not None and row.monarch is not None
        if line.how == SERVER:
            if succession_typed:
                line.errors.append(
                    f"The server rolls {row.monarch.display_name}'s survival: type the succession's dice once his death "
                    "is known (leave them empty now)."
                )
                continue
            plan.append(Planned(line, survival=True, succession=succession_server))
            continue
        if not sform.is_bound:
            if succession_typed:
                line.errors.append(f"Type {row.monarch.display_name}'s survival die first: the succession follows his death.")
            continue
        if not sform.is_valid():
            line.errors.extend(_problems(sform))
            continue
        face = sform.face()
        ends = face in row.survival.end_faces
        if succession_typed and not ends:
            line.errors.append(
                f"{row.monarch.display_name} of {name} lives on a survival die of {face}: no succession is due "
                "(leave the succession's dice empty)."
            )
            continue
        typed = [face] if face is not None else None
        plan.append(Planned(line, True, typed, ends and wants_succession, faces))
    return plan


class RowRefused(RuleError):
    """A service's refusal of one row: the page shows it on that row."""

    def __init__(self, row: int, exc: RuleError) -> None:
        super().__init__(exc.message, code=exc.code, fields=exc.fields)
        self.row = row


Made = tuple[Planned, MonarchSurvival | None, MonarchSuccession | None]


def _apply(plan: list[Planned], by: Any) -> Any:
    def apply(c: Campaign) -> list[Made]:
        done: list[Made] = []
        for step in plan:
            crown = step.line.row.name
            survived: MonarchSurvival | None = None
            crowned: MonarchSuccession | None = None
            try:
                if step.survival:
                    survived = monarch_survival_roll(campaign=c, crown=crown, faces=step.survival_faces, by=by)
                if step.succession and (survived is None or survived.died):
                    crowned = monarch_succession_roll(campaign=c, crown=crown, faces=step.succession_faces, by=by)
            except Forbidden:
                raise
            except RuleError as exc:
                raise RowRefused(step.line.pk, exc) from exc
            done.append((step, survived, crowned))
        return done

    return apply


def _survival_message(s: MonarchSurvival) -> str:
    why = "".join(f" {m:+d} {text}" for m, text in s.reasons)
    text = f"{s.crown}: {s.monarch.display_name}, survival roll {s.result.die}{why} = {s.result.total}: {s.result.label}"
    if s.reign_spent:
        text += "; his rolled reign is spent: he dies"
    elif s.died:
        text += ": he dies"
    return text + (". The succession roll is due." if s.died else ".")


def _succession_message(s: MonarchSuccession) -> str:
    values = ", ".join(f"{VALUE_LABELS[n]} {v}" for n, v in s.values.items())  # in the order rolled
    parts = [f"{s.crown}: {s.monarch.display_name} succeeds ({values})"]
    if s.crisis:
        parts.append("a Dynastic Crisis")
    if s.fragile_health:
        parts.append("Fragile Health")
    if s.stage:
        parts.append(f"a {s.stage}")
    parts.append(f"a reign of {s.reign_turns} turns (to {s.reign.planned_end_year})")
    return "; ".join(parts) + "."


def _nothing_entered(rows: int) -> str:
    return f"Nothing was entered: fix the {counted(rows, 'crown')} marked below, then enter the dice again."


@dataclass
class Failure:
    form: forms.Form
    lines: list[MonarchLine] | None = None
    alert: bool = True


def _failed(message: str) -> forms.Form:
    form = forms.Form(data={})
    form.is_valid()
    form.add_error(None, message)
    return form


def _grid(request: HttpRequest, campaign: Campaign) -> HttpResponse | Failure:
    if campaign.step != Step.SURVIVAL:
        return Failure(_failed(f"Survival is closed (the campaign is at {STEP_LABELS[campaign.step]}): nothing was entered."))
    board = monarchs_board(campaign)
    lines = _lines(board, True, True, request.POST)
    shown = set(request.POST.getlist("rows"))
    stale = [line.row.name for line in lines if not line.may_act and str(line.pk) in shown and _sent(request.POST, line.pk)]
    if stale:
        message = (
            f"Nothing was entered: the rolls of {', '.join(stale)} were made since the page was shown (the grid shows "
            "them now). Enter the other dice again."
        )
        return Failure(_failed(message), lines)
    plan = _plan(lines, request.POST)
    wrong = [line for line in lines if line.errors]
    if wrong:
        return Failure(_failed(_nothing_entered(len(wrong))), lines, alert=False)
    if not plan:
        return Failure(_failed("Nothing to enter: type a crown's dice, or choose the server's dice for it."), lines)
    rolls = sum(1 for p in plan if p.survival) + sum(1 for p in plan if p.succession)
    try:
        done = run_action(request, campaign, f"Monarchs: {counted(rolls, 'roll')} entered", _apply(plan, request.user))
    except ActionFailed as exc:
        cause = exc.__cause__
        hit = next((line for line in lines if isinstance(cause, RowRefused) and line.pk == cause.row), None)
        if hit is None:
            return Failure(_failed(exc.message), lines)
        hit.errors.append(exc.message)
        return Failure(_failed(_nothing_entered(1)), lines, alert=False)
    for _step, survived, crowned in done or []:
        if survived is not None:
            (messages.warning if survived.died else messages.success)(request, _survival_message(survived))
        if crowned is not None:
            messages.success(request, _succession_message(crowned))
    return redirect(reverse("pages:survival", args=[campaign.slug]) + "#step")


def survival(request: HttpRequest, campaign: Campaign, role: str, mine: int | None, finish: Any) -> HttpResponse:
    """The Survival page of an ``eu-monarchs`` campaign: the monarchs' grid. ``finish`` is the
    Survival page's own handler of the GM's finish (shared with the other rulesets)."""
    failure: Failure | None = None
    if request.method == "POST":  # the services ask the policy: only the GM rolls the monarchs (403 otherwise)
        op = request.POST.get("op", "")
        if op == "finish":
            outcome = finish(request, campaign, role, mine)
            if isinstance(outcome, HttpResponse):
                return outcome
            failure = Failure(outcome.form)
        elif op == "grid":
            result = _grid(request, campaign)
            if isinstance(result, HttpResponse):
                return result
            failure = result
        else:
            failure = Failure(_failed("Unknown action: reload the page and try again."))
        campaign.refresh_from_db()
    is_open = campaign.step == Step.SURVIVAL
    board = monarchs_board(campaign)
    rolls = runs_the_turn(role)  # the policy's: who is shown the dice (the services decide who rolls)
    lines = failure.lines if failure is not None and failure.lines is not None else _lines(board, rolls, is_open)
    people = [p for line in lines for p in (line.row.monarch, line.row.died) if p is not None]
    label_names(campaign, people)
    closed = STEP_ORDER.index(Step(campaign.step)) > STEP_ORDER.index(Step.SURVIVAL)
    return render(
        request,
        "pages/sequence/monarchs.html",
        context(
            campaign,
            role,
            mine,
            board=board,
            lines=lines,
            grid=any(line.may_act for line in lines),
            to_roll=[r for r in board.rows if r.due in (SURVIVAL, SUCCESSION)],
            may_correct=may_correct_rolls(role),
            is_open=is_open,
            closed=closed,
            top=failure.form if failure is not None else None,
            alert=failure is None or failure.alert,
            step_label=STEP_LABELS[campaign.step],
            marriages_url=reverse("pages:marriages", args=[campaign.slug]),
            announcements_url=reverse("pages:announcements", args=[campaign.slug]),
            DONE=DONE,
            EXEMPT=EXEMPT,
            SURVIVAL=SURVIVAL,
            SUCCESSION=SUCCESSION,
        ),
        status=400 if failure else 200,
    )
