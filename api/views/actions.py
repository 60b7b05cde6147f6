"""What the action endpoints share (issue 8): typed dice as input, the record of what an action
made, the small output pieces, and the base view.

- Typed dice: ``FacesField`` takes a list of whole numbers; :func:`check_faces` checks them against
  the campaign's dice and refuses with ``InvalidDice`` (400 ``invalid_dice``) naming the field;
  :func:`dice_field` does the same for a refusal raised by the services themselves.
- :func:`act` runs a service call through ``api.common.run_action`` (one transaction, the undo
  checkpoint, the ``Idempotency-Key``) and returns its result with what it made: the action's
  outcome as its writers reported it (``campaign.steps.Outcome``): the rolls (faces, outcome, typed
  or not), the chronicle lines the caller may see (``campaign.permissions.may_read_line``) and the
  reigns begun (reported by ``dynasties.services.regnal.enthrone``). No table is read back.

No rule lives here: the views call the services; this module only shapes input and output."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from django.db.models import Prefetch, prefetch_related_objects
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from api.common import CampaignScoped, run_action
from api.filters import INT_MAX
from api.parsers import JSONParser
from api.serializers import link
from api.views.chronicle import ChronicleOut
from api.views.families import ReignOut, family_of
from api.views.rolls import RollOut
from campaign.models import STEP_ORDER, Campaign, ChronicleEntry, Roll, Step
from campaign.permissions import Seat, Seen, may_read_line, seat_of
from campaign.steps import Outcome, current_outcome
from dynasties.models import Character, PassedOver, Reign, RollSubject
from rules.dice import DiceSpec, TypedTotal, validate_faces, validate_total
from rules.errors import InvalidDice, RuleError
from rules.odds import Odds

T = TypeVar("T")

MAX_DICE = 20
"""No throw of the game has more dice than this (a typed list longer is refused before the rules)."""


# --- input -------------------------------------------------------------------------------------


def IdField(**kwargs: Any) -> serializers.IntegerField:
    """A row's id: a whole number the database can store."""
    return serializers.IntegerField(min_value=1, max_value=INT_MAX, **kwargs)


class FacesField(serializers.ListField):
    """Faces typed in from the table's dice, e.g. ``[3, 4]`` for 2d6; null or absent: the server rolls."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", serializers.IntegerField(min_value=-INT_MAX, max_value=INT_MAX))
        kwargs.setdefault("max_length", MAX_DICE)
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("help_text", "The faces of the dice typed in from the table; absent or null: the server rolls.")
        super().__init__(**kwargs)


def check_faces(spec: DiceSpec, faces: Sequence[int] | None, *, field: str, purpose: str) -> list[int] | None:
    """The typed faces if they fit ``spec``; else ``InvalidDice`` naming ``field``."""
    if faces is None:
        return None
    try:
        return list(validate_faces(spec, list(faces), purpose=purpose))
    except InvalidDice as exc:
        raise InvalidDice(exc.message, fields={field: exc.message}) from None


def check_typed(
    spec: DiceSpec, faces: Sequence[int] | None, total: int | None, *, field: str, purpose: str, total_field: str
) -> list[int] | TypedTotal | None:
    """The typed faces, or the typed total (where only the sum counts), if they fit ``spec``;
    both at once, or a total the dice cannot show, is refused naming the field."""
    if faces is not None and total is not None:
        message = f"Give the {purpose}'s faces or its total, not both."
        raise InvalidDice(message, fields={total_field: message})
    if total is None:
        return check_faces(spec, faces, field=field, purpose=purpose)
    try:
        return TypedTotal(validate_total(spec, total, purpose=purpose))
    except InvalidDice as exc:
        raise InvalidDice(exc.message, fields={total_field: exc.message}) from None


@contextmanager
def dice_field(name: str) -> Iterator[None]:
    """A refusal of typed dice by the services (``invalid_dice``) names ``name`` when it names no field."""
    try:
        yield
    except RuleError as exc:
        if exc.code == InvalidDice.code and not exc.fields:
            exc.fields = {name: exc.message}
        raise


# --- what an action made -------------------------------------------------------------------------


@dataclass
class Made:
    rolls: list[Roll] = field(default_factory=list)
    chronicle: list[ChronicleEntry] = field(default_factory=list)
    reigns: list[Reign] = field(default_factory=list)


SUBJECTS = RollSubject.objects.only("id", "roll_id", "character_id", "position").order_by("position", "pk")
"""A roll's characters, as ``RollOut`` lists them."""


def rolls_with_subjects(queryset: Any) -> Any:
    """Rolls ready for ``RollOut``: who typed them and their characters, in two more queries."""
    return queryset.select_related("entered_by").prefetch_related(Prefetch("subjects", queryset=SUBJECTS))


def made_of(outcome: Outcome, seat: Seat) -> Made:
    """What an action's outcome shows the caller: its rolls with their subjects, the chronicle lines
    his seat may read, the reigns it began (read again, with whom they passed over: two queries, and
    none when it began none)."""
    for roll in outcome.rolls:  # as a prefetch of ``subjects`` leaves them: no query to list them
        subjects = RollSubject.objects.filter(roll_id=roll.pk)
        subjects._result_cache = sorted(outcome.subjects.get(roll.pk, []), key=lambda s: (s.position, s.pk))
        subjects._prefetch_done = True  # type: ignore[attr-defined]
        roll._prefetched_objects_cache = {"subjects": subjects}  # type: ignore[attr-defined]
    lines = [e for e in outcome.chronicle if may_read_line(seat, e.audience, e.readers)]
    begun = [r.pk for r in outcome.of("reigns")]
    reigns: list[Reign] = []
    if begun:
        reigns = list(Reign.objects.filter(pk__in=begun).order_by("pk"))
        prefetch_related_objects(reigns, Prefetch("passed_over", queryset=PassedOver.objects.order_by("pk")))
    return Made(rolls=sorted(outcome.rolls, key=lambda r: r.pk), chronicle=sorted(lines, key=lambda e: e.pk), reigns=reigns)


def act(
    request: Request,
    campaign: Campaign,
    label: str,
    call: Callable[[Campaign], T],
    *,
    dice: str = "faces",
    seen: Seen = Seen.GM,
) -> tuple[T, Made]:
    """``call(locked campaign)`` as one step action (``run_action``), with what it made (its outcome,
    :func:`made_of`); a refusal of typed dice by the services names the input field ``dice``.
    ``seen``: who the service says sees the write, counted by the action's lock at once."""
    made = Made()
    seat = seat_of(request.user, campaign)  # the policy's: the seat the door read, remembered for the request

    def action(locked: Campaign) -> T:
        result = call(locked)
        outcome = current_outcome()
        if outcome is not None:
            found = made_of(outcome, seat)
            made.rolls, made.chronicle, made.reigns = found.rolls, found.chronicle, found.reigns
        return result

    with dice_field(dice):
        result = run_action(request, campaign, label, action, seen=seen)
    return result, made


# --- output ------------------------------------------------------------------------------------


class CharacterRefSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    url = serializers.URLField()
    name = serializers.CharField(help_text="Christian and dynastic name.")

    class Meta:
        ref_name = "CharacterRef"


def ref(context: dict[str, Any], character: Any) -> dict[str, Any] | None:
    """A character as ``{"id", "url", "name"}`` (None stays None)."""
    if character is None:
        return None
    return {**(link(context, "characters", character.pk) or {}), "name": character.display_name}


class OddsSerializer(serializers.Serializer[Any]):
    """An exact chance on a throw of the dice: 21 of the 36 throws of 2d6 is 7/12, 58.3%."""

    chance = serializers.FloatField(help_text="Between 0 and 1.")
    favourable = serializers.IntegerField(help_text="How many of the equally likely throws succeed.")
    throws = serializers.IntegerField(help_text="How many equally likely throws the dice have (36 for 2d6).")
    fraction = serializers.CharField(help_text="'7/12', 'certain' or 'impossible'.")
    percent = serializers.CharField()
    text = serializers.CharField(help_text="'21 in 36 (7/12, 58.3%)'.")
    dice = serializers.CharField()

    class Meta:
        ref_name = "Odds"


def odds(value: Odds | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {
        "chance": float(value.chance),
        "favourable": value.favourable,
        "throws": value.throws,
        "fraction": value.fraction,
        "percent": value.percent,
        "text": value.text,
        "dice": str(value.spec),
    }


class MadeSerializer(serializers.Serializer[Any]):
    """What every action of the sequence answers besides its own objects."""

    rolls = RollOut(many=True, help_text="The dice rolled or typed in by this action, in order, with their outcome.")
    chronicle = ChronicleOut(many=True, help_text="The chronicle lines this action wrote that you may see.")


class ReignsMadeSerializer(MadeSerializer):
    reigns = ReignOut(many=True, help_text="Reigns begun by this action (a succession).")


def made_data(made: Made) -> dict[str, Any]:
    return {"rolls": made.rolls, "chronicle": made.chronicle, "reigns": made.reigns}


def characters_context(context: dict[str, Any], characters: Sequence[Character]) -> dict[str, Any]:
    """The serializer context ``CharacterOut`` needs for these characters (their family, 2 queries)."""
    return {**context, "family": family_of([c.pk for c in characters])}


# --- the turn ----------------------------------------------------------------------------------


class StepStateSerializer(serializers.Serializer[Any]):
    step = serializers.ChoiceField(choices=Step.choices)
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field "label", not the base class's
    state = serializers.CharField(help_text="done, current or todo.")
    waits = serializers.CharField(help_text="What the step waits for.")

    class Meta:
        ref_name = "TurnStep"


class CheckpointSerializer(serializers.Serializer[Any]):
    """A checkpoint (a change set): where going back to it leads, and the action that opened it."""

    year = serializers.IntegerField()
    step = serializers.ChoiceField(choices=Step.choices)
    step_label = serializers.CharField()
    description = serializers.CharField(help_text="Where it goes back to: 'the start of Births 1300'.")
    opened_by = serializers.CharField(help_text="The action (or desk save) that opened the change set.")

    class Meta:
        ref_name = "Checkpoint"


class UndoPlanSerializer(CheckpointSerializer):
    lost_rolls = serializers.IntegerField()
    lost_chronicle = serializers.IntegerField()
    lost_postings = serializers.IntegerField()
    losses = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="What else the undo throws away, counted: characters (added: births mostly), deaths, successions, weddings.",
    )
    summary = serializers.CharField(help_text="All of it in words, to confirm with: '37 rolls, 2 deaths, 1 succession, ...'.")

    class Meta:
        ref_name = "UndoPlan"


class RedoPlanSerializer(CheckpointSerializer):
    change_sets = serializers.IntegerField(help_text="How many change sets the redo writes again (a turn's undo: several).")

    class Meta:
        ref_name = "RedoPlan"


class UndoOffersSerializer(serializers.Serializer[Any]):
    step = CheckpointSerializer(allow_null=True, help_text="Undo the step: back to the start of the step last worked on.")
    turn = CheckpointSerializer(allow_null=True, help_text="Undo the turn: back to the start of its Births.")
    redo = RedoPlanSerializer(
        allow_null=True,
        help_text="What POST redo/ would write again; null when no undo is kept (anything written since an undo forgets it).",
    )

    class Meta:
        ref_name = "UndoOffers"


class UndoPlansSerializer(serializers.Serializer[Any]):
    step = UndoPlanSerializer(allow_null=True, help_text="Undo the step: back to the start of the step last worked on.")
    turn = UndoPlanSerializer(allow_null=True, help_text="Undo the turn: back to the start of its Births.")
    redo = RedoPlanSerializer(
        allow_null=True,
        help_text="What POST redo/ would write again; null when no undo is kept (anything written since an undo forgets it).",
    )

    class Meta:
        ref_name = "UndoPlans"


class TurnSerializer(serializers.Serializer[Any]):
    year = serializers.IntegerField()
    turn_number = serializers.IntegerField()
    step = serializers.ChoiceField(choices=Step.choices, help_text="Where the turn stands.")
    step_label = serializers.CharField()
    waits = serializers.CharField(help_text="What the current step waits for.")
    to_roll = serializers.IntegerField(
        allow_null=True,
        help_text="Births: couples still to roll plus children waiting for their sex roll; Survival: characters "
        "still to roll; other steps: null.",
    )
    steps = StepStateSerializer(many=True)
    undo = UndoOffersSerializer(
        allow_null=True,
        help_text="The GM's: where undo would go back to and what redo would write again (null for the others); "
        "what an undo would throw away: GET undo/.",
    )

    class Meta:
        ref_name = "Turn"


def step_states(campaign: Campaign, waits: dict[str, str], labels: dict[str, str]) -> list[dict[str, Any]]:
    current = STEP_ORDER.index(Step(campaign.step))
    return [
        {
            "step": step.value,
            "label": labels[step],
            "waits": waits.get(step, ""),
            "state": "done" if i < current else "current" if i == current else "todo",
        }
        for i, step in enumerate(STEP_ORDER)
    ]


class ActionView(CampaignScoped, APIView):
    """An endpoint of the campaign at ``campaigns/<slug>/``: its viewer, and the serializer context
    the output needs (the request and the viewer, for links). Input is JSON."""

    api_tag: ClassVar[str] = "sequence"
    parser_classes = [JSONParser]  # nested input (lists of faces, maps of ids): JSON only (api/parsers.py)

    def out_context(self) -> dict[str, Any]:
        return {"request": self.request, "viewer": self.viewer}
