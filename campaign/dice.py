"""The dice service: faces from the server's generator or typed in from the table, every roll
written to the roll log. Services hold one ``DiceBox`` per transaction and flush it at the end,
so a step writes all its rolls in two statements however many characters roll."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth.models import User

from campaign import registry
from campaign.models import Campaign, Roll, RollSource
from campaign.permissions import Actor
from campaign.steps import report_rolls
from rules.dice import DiceSource, DiceSpec, Entered, RandomSource, TypedTotal, validate_faces, validate_total

PURPOSE_LABELS = {
    "birth": "birth roll",
    "sex": "sex roll",
    "characteristic": "characteristic roll",
    "survival": "survival roll",
    "monarch_survival": "monarch's survival roll",
    "monarch_succession": "succession roll",
    "monarch_age": "roll again for age",
    "monarch_value": "successor's value roll",
    "monarch_reign": "reign length roll",
    "monarch_military": "military skill roll",
    "monarch_leader": "leader value roll",
}


class DiceBox:
    def __init__(
        self,
        campaign: Campaign,
        *,
        source: DiceSource | None = None,
        by: Actor | None = None,
        step: str | None = None,
    ) -> None:
        self.campaign = campaign
        self.source = source or RandomSource()
        # the roll is typed by a person; the system and the anonymous are recorded as no one
        self.by: User | None = by if isinstance(by, User) and by.is_authenticated else None
        self.step = step or campaign.step
        # Subjects are kept as given (ids or model instances) and resolved when flushed, so a
        # roll may name a character created, unsaved, in the same step.
        self.pending: list[tuple[Roll, list[Any]]] = []

    def roll(
        self,
        spec: DiceSpec,
        *,
        purpose: str,
        characters: Iterable[Any] = (),
        entered: Entered | None = None,
        modifier: int = 0,
        target: int | None = None,
        detail: str = "",
        year: int | None = None,
    ) -> Roll:
        """Roll (or take the typed faces, or the typed total), and queue the log row. Set
        ``outcome`` on the result. A typed total is kept as the roll's one "face" (so the sums
        read the same) and marked ``total``; on one die a total is its face."""
        faces: Sequence[int]
        if entered is not None:
            label = PURPOSE_LABELS.get(purpose, f"{purpose} roll")
            if detail:
                label = f"{label} ({detail})"
            if isinstance(entered, TypedTotal) and spec.count > 1:
                faces, source = [validate_total(spec, entered.value, purpose=label)], RollSource.TOTAL
            else:
                typed = [entered.value] if isinstance(entered, TypedTotal) else entered
                faces, source = validate_faces(spec, typed, purpose=label), RollSource.ENTERED
            by = self.by
        else:
            faces = self.source.faces(spec)
            source = RollSource.SERVER
            by = None
        roll = Roll(
            campaign=self.campaign,
            year=self.campaign.current_year if year is None else year,
            step=self.step,
            purpose=purpose,
            detail=detail,
            dice=str(spec),
            faces=list(faces),
            modifier=modifier,
            target=target,
            source=source,
            entered_by=by,
        )
        self.pending.append((roll, list(characters)))
        return roll

    def certain(
        self,
        spec: DiceSpec,
        *,
        purpose: str,
        outcome: str,
        characters: Iterable[Any] = (),
        modifier: int = 0,
        target: int | None = None,
        detail: str = "",
    ) -> Roll:
        """A roll whose outcome is certain, so not rolled: logged as such (no faces, no die drawn)."""
        roll = Roll(
            campaign=self.campaign,
            year=self.campaign.current_year,
            step=self.step,
            purpose=purpose,
            detail=detail,
            dice=str(spec),
            faces=[],
            modifier=modifier,
            target=target,
            outcome=outcome,
            source=RollSource.CERTAIN,
        )
        self.pending.append((roll, list(characters)))
        return roll

    def add_subject(self, roll: Roll, character: Any) -> None:
        for queued, ids in self.pending:
            if queued is roll:
                ids.append(character)
                return
        raise ValueError("roll is not pending in this box")

    def flush(self) -> list[Roll]:
        """Write the queued rolls and their subjects (two statements), and report them to the open
        outcome (``campaign.steps.Outcome``)."""
        if not self.pending:
            return []
        for roll, _ in self.pending:
            if not roll.outcome:
                raise ValueError(f"roll {roll.purpose} has no outcome set")
        rolls = Roll.objects.bulk_create([roll for roll, _ in self.pending])
        # whom they were rolled for is the game's to write (campaign.registry.register_roll_subjects)
        subjects = registry.roll_subjects()([(roll, chars) for roll, (_, chars) in zip(rolls, self.pending, strict=True)])
        report_rolls(rolls, subjects)
        self.pending = []
        return rolls
