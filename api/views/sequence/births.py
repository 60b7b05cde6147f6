"""Births (issue 8): the couples and their odds, birth attempts, the child's sex, the GM's roll-all and finish."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, prefetch_related_objects
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.filters import INT_MAX
from api.schema import IDEMPOTENCY_KEY
from api.serializers import LinkSerializer, link
from api.views.actions import (
    MAX_DICE,
    SUBJECTS,
    ActionView,
    CharacterRefSerializer,
    FacesField,
    IdField,
    MadeSerializer,
    OddsSerializer,
    act,
    characters_context,
    check_faces,
    check_typed,
    made_data,
    odds,
    ref,
)
from api.views.families import CharacterOut, Family
from api.views.rolls import RollOut
from api.views.sequence.common import rolls_by_pk
from api.views.sequence.turn import TurnMadeSerializer, turn_result
from campaign.models import Campaign, Roll, Step
from campaign.permissions import Seen, may_act_for_any
from dynasties.models import BirthAttempt, Character, Marriage
from dynasties.services.births import births_attempt, births_finish, births_roll_all, births_sex
from dynasties.services.sequence_view import CoupleRow, birth_terms, births_board
from rules.dice import TypedTotal
from rules.errors import InvalidDice, NotFound

# --- Births ------------------------------------------------------------------------------------


class AttemptSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    marriage = LinkSerializer()
    year = serializers.IntegerField()
    attempt = serializers.IntegerField(help_text="1 to 3: the couple's attempts this turn.")
    success = serializers.BooleanField(help_text="A child is born.")
    child_birth_year = serializers.IntegerField(allow_null=True)
    child = LinkSerializer(allow_null=True, help_text="The child, once its sex is rolled.")
    waiting_for_sex = serializers.BooleanField(help_text="Born: its sex (and characteristics) are still to roll.")
    roll = RollOut(allow_null=True, help_text="The birth roll.")

    class Meta:
        ref_name = "BirthAttempt"


def _attempt(context: dict[str, Any], a: BirthAttempt, rolls: dict[int, Roll]) -> dict[str, Any]:
    return {
        "id": a.pk,
        "marriage": link(context, "marriages", a.marriage_id),
        "year": a.year,
        "attempt": a.attempt,
        "success": a.success,
        "child_birth_year": a.child_birth_year,
        "child": link(context, "characters", a.child_id),
        "waiting_for_sex": a.success and a.child_id is None,
        "roll": rolls.get(a.roll_id or 0),
    }


class WifeSurvivalSerializer(serializers.Serializer[Any]):
    now = OddsSerializer(help_text="Her odds of surviving this turn's roll as things stand.")
    after = OddsSerializer(help_text="Her odds after one more birth attempt.")
    must_show_now = serializers.CharField()
    must_show_after = serializers.CharField()

    class Meta:
        ref_name = "WifeSurvival"


class CoupleSerializer(serializers.Serializer[Any]):
    marriage = LinkSerializer()
    husband = CharacterRefSerializer()
    wife = CharacterRefSerializer()
    husband_age = serializers.IntegerField()
    wife_age = serializers.IntegerField()
    houses = serializers.ListField(child=serializers.IntegerField(), help_text="The dynasties whose players may roll.")
    may_act = serializers.BooleanField(help_text="You may roll for this couple.")
    may_attempt = serializers.BooleanField(help_text="A birth roll may be made now.")
    problem = serializers.CharField(allow_null=True, help_text="Why no (further) birth roll may be made now.")
    odds = OddsSerializer(help_text="Of a child on the next attempt.")
    next_cost = serializers.CharField(help_text="What one more attempt costs the wife (empty before the first).")
    wife_survival = WifeSurvivalSerializer(allow_null=True, help_text="Her survival odds now and after another attempt.")
    attempts = AttemptSerializer(many=True, help_text="This turn's attempts, in order.")
    waiting_attempt = serializers.IntegerField(allow_null=True, help_text="The attempt whose child's sex is to roll.")

    class Meta:
        ref_name = "BirthCouple"


class IneligibleSerializer(serializers.Serializer[Any]):
    marriage = LinkSerializer()
    husband = CharacterRefSerializer()
    wife = CharacterRefSerializer()
    problem = serializers.CharField()

    class Meta:
        ref_name = "IneligibleCouple"


class BirthDiceSerializer(serializers.Serializer[Any]):
    birth = serializers.CharField(help_text="The birth roll, e.g. 2d6.")
    sex = serializers.CharField()
    characteristic = serializers.CharField(help_text="Each of the three characteristics.")

    class Meta:
        ref_name = "BirthDice"


class BirthsBoardSerializer(serializers.Serializer[Any]):
    year = serializers.IntegerField()
    open = serializers.BooleanField(help_text="The Births step is the current step.")
    families = serializers.BooleanField(help_text="False for the EU monarch tables (no families to roll).")
    dice = BirthDiceSerializer()
    child_on = serializers.CharField(help_text="'7 or more on 2d6'.")
    sex_rule = serializers.CharField()
    characteristic_labels = serializers.ListField(child=serializers.CharField())
    couples = CoupleSerializer(many=True, help_text="Couples that may roll, or have rolled, this turn.")
    ineligible = IneligibleSerializer(many=True, help_text="Wed couples who may not roll at all this turn, and why.")
    waiting = serializers.IntegerField(help_text="Couples that have not rolled yet.")
    pending_sex = serializers.IntegerField(help_text="Children waiting for their sex roll.")
    born = serializers.IntegerField()

    class Meta:
        ref_name = "BirthsBoard"


def _couple(
    context: dict[str, Any], row: CoupleRow, year: int, rolls: dict[int, Roll], role: str, mine: int | None
) -> dict[str, Any]:
    survival = row.wife_survival
    pending = row.pending
    return {
        "marriage": link(context, "marriages", row.marriage.pk),
        "husband": ref(context, row.husband),
        "wife": ref(context, row.wife),
        "husband_age": row.husband.age(year),
        "wife_age": row.wife.age(year),
        "houses": sorted(row.dynasties),
        "may_act": may_act_for_any(role, mine, row.dynasties),
        "may_attempt": row.may_attempt,
        "problem": row.problem,
        "odds": odds(row.odds),
        "next_cost": row.next_cost,
        "wife_survival": None
        if survival is None
        else {
            "now": odds(survival.now),
            "after": odds(survival.after),
            "must_show_now": survival.must_show_now,
            "must_show_after": survival.must_show_after,
        },
        "attempts": [_attempt(context, a, rolls) for a in row.attempts],
        "waiting_attempt": pending.pk if pending is not None else None,
    }


class BirthsView(ActionView):
    @extend_schema(responses=BirthsBoardSerializer, summary="Births: every couple with its odds, attempts and who may roll")
    def get(self, request: Request, slug: str) -> Response:
        v = self.viewer
        board = births_board(v.campaign)
        context = self.out_context()
        rolls = rolls_by_pk([a.roll_id for row in board.couples for a in row.attempts])
        terms = board.terms
        data = {
            "year": board.year,
            "open": v.campaign.step == Step.BIRTHS,
            "families": board.families,
            "dice": {
                "birth": str(terms.birth_dice),
                "sex": str(terms.sex_dice),
                "characteristic": str(terms.characteristic_dice),
            },
            "child_on": terms.child_on,
            "sex_rule": terms.sex_rule,
            "characteristic_labels": list(terms.characteristic_labels),
            "couples": [_couple(context, row, board.year, rolls, v.role, v.dynasty) for row in board.couples],
            "ineligible": [
                {
                    "marriage": link(context, "marriages", row.marriage.pk),
                    "husband": ref(context, row.husband),
                    "wife": ref(context, row.wife),
                    "problem": row.problem or "",
                }
                for row in board.ineligible
            ],
            "waiting": len(board.waiting),
            "pending_sex": len(board.pending_sex),
            "born": board.born,
        }
        return Response(BirthsBoardSerializer(data, context=context).data)


class AttemptIn(serializers.Serializer[Any]):
    marriage = IdField(help_text="The wed couple's marriage.")
    faces = FacesField(help_text="The birth roll typed in from the table, e.g. [3, 4]; absent or null: the server rolls.")
    total = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=-INT_MAX,
        max_value=INT_MAX,
        help_text="The birth roll typed in as its total, e.g. 7 (instead of its faces).",
    )

    class Meta:
        ref_name = "BirthAttemptRequest"


class AttemptMadeSerializer(MadeSerializer):
    attempt = AttemptSerializer()

    class Meta:
        ref_name = "BirthAttemptResult"


class AttemptsView(ActionView):
    @extend_schema(
        request=AttemptIn,
        responses={201: AttemptMadeSerializer},
        parameters=[IDEMPOTENCY_KEY],
        summary="A birth roll for a wed couple (typed faces or the server's dice)",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = AttemptIn(data=request.data)
        data.is_valid(raise_exception=True)
        pk = data.validated_data["marriage"]
        match = Marriage.objects.select_related("husband", "wife").filter(campaign=v.campaign, pk=pk).first()
        if match is None:
            raise NotFound(f"There is no marriage #{pk} in this campaign.", fields={"marriage": "not_found"})
        faces = check_typed(
            birth_terms(v.campaign).birth_dice,
            data.validated_data.get("faces"),
            data.validated_data.get("total"),
            field="faces",
            total_field="total",
            purpose="birth roll",
        )
        label = f"Birth roll of {match.husband.display_name} and {match.wife.display_name}"
        made_attempt, made = act(
            request,
            v.campaign,
            label,
            lambda c: births_attempt(campaign=c, marriage=match.pk, faces=faces, by=request.user),
            seen=Seen.ALL,  # as births_attempt's own lock says
        )
        context = self.out_context()
        rolls = {r.pk: r for r in made.rolls}
        body = {**made_data(made), "attempt": _attempt(context, made_attempt, rolls)}
        return Response(AttemptMadeSerializer(body, context=context).data, status=status.HTTP_201_CREATED)


class SexIn(serializers.Serializer[Any]):
    faces = FacesField(help_text="The sex die typed in (Blood Royale: 1d6, 1-3 a boy); absent or null: the server rolls.")
    characteristic_faces = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=-INT_MAX, max_value=INT_MAX), max_length=MAX_DICE),
        max_length=MAX_DICE,
        required=False,
        allow_null=True,
        help_text="The three characteristics' dice typed in, in order (e.g. [[6, 6, 6], [1, 1, 1], [4, 4, 4]]); "
        "absent or null: the server rolls them.",
    )
    characteristic_totals = serializers.ListField(
        child=serializers.IntegerField(min_value=-INT_MAX, max_value=INT_MAX),
        max_length=MAX_DICE,
        required=False,
        allow_null=True,
        help_text="Instead: the three characteristics' rolls typed in as totals, in order (e.g. [18, 3, 12]).",
    )
    given_name = serializers.CharField(
        max_length=60, required=False, allow_blank=True, allow_null=True, help_text="Empty: the usual name of the house."
    )

    class Meta:
        ref_name = "BirthSexRequest"


class SexMadeSerializer(MadeSerializer):
    child = CharacterOut()
    attempt = AttemptSerializer()

    class Meta:
        ref_name = "BirthSexResult"


def _characteristics(terms: Any, given: dict[str, Any]) -> list[list[int] | TypedTotal] | None:
    """The characteristics typed in, as faces or as totals (all of them, or none)."""
    faces, totals = given.get("characteristic_faces"), given.get("characteristic_totals")
    if faces is not None and totals is not None:
        message = "Give the characteristics' faces or their totals, not both."
        raise InvalidDice(message, fields={"characteristic_totals": message})
    name = "characteristic_faces" if totals is None else "characteristic_totals"
    rows = faces if totals is None else totals
    if rows is None:
        return None
    labels = terms.characteristic_labels
    if len(rows) != len(labels):
        message = f"Type the dice of all {len(labels)} characteristics ({', '.join(labels)}), or none."
        raise InvalidDice(message, fields={name: message})
    out: list[list[int] | TypedTotal] = []
    for i, (row, label) in enumerate(zip(rows, labels, strict=True)):
        typed = check_typed(
            terms.characteristic_dice,
            row if totals is None else None,
            row if totals is not None else None,
            field=f"{name}.{i}",
            total_field=f"{name}.{i}",
            purpose=f"{label} roll",
        )
        if typed is not None:  # (always: one of the two was given)
            out.append(typed)
    return out


class SexView(ActionView):
    @extend_schema(
        request=SexIn,
        responses={201: SexMadeSerializer},
        parameters=[IDEMPOTENCY_KEY],
        summary="The sex (and characteristics) of the child of a successful birth roll",
    )
    def post(self, request: Request, slug: str, attempt: int) -> Response:
        v = self.viewer
        found = (
            BirthAttempt.objects.select_related("marriage__husband", "marriage__wife", "roll__entered_by")
            .filter(campaign=v.campaign, pk=attempt)
            .first()
        )
        if found is None:
            raise NotFound(f"There is no birth attempt #{attempt} in this campaign.")
        data = SexIn(data=request.data)
        data.is_valid(raise_exception=True)
        terms = birth_terms(v.campaign)
        sex = check_faces(terms.sex_dice, data.validated_data.get("faces"), field="faces", purpose="sex roll")
        traits = _characteristics(terms, data.validated_data)
        name = (data.validated_data.get("given_name") or "").strip() or None

        def roll_sex(c: Campaign) -> Character:
            return births_sex(
                campaign=c, attempt=found.pk, faces=sex, characteristic_faces=traits, given_name=name, by=request.user
            )

        child, made = act(request, v.campaign, f"Sex roll of the child of {found.marriage}", roll_sex, seen=Seen.ALL)
        found.child, found.child_birth_year = child, child.birth_year  # as the service wrote them: born that year
        context = {**self.out_context(), "family": Family()}  # a child just born has no children nor matches
        rolls: dict[int, Roll] = {}
        if found.roll is not None:  # the birth roll, read with the attempt: its subjects only
            prefetch_related_objects([found.roll], Prefetch("subjects", queryset=SUBJECTS))
            rolls = {found.roll.pk: found.roll}
        body = {**made_data(made), "child": child, "attempt": _attempt(context, found, rolls)}
        return Response(SexMadeSerializer(body, context=context).data, status=status.HTTP_201_CREATED)


class RollAllMadeSerializer(MadeSerializer):
    attempts = AttemptSerializer(many=True)
    children = CharacterOut(many=True)

    class Meta:
        ref_name = "BirthsRollAllResult"


class RollAllView(ActionView):
    @extend_schema(
        request=None,
        responses=RollAllMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM rolls, on the server's dice, every couple that has not rolled yet (children complete)",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        attempts, made = act(
            request, v.campaign, "Roll all remaining births", lambda c: births_roll_all(campaign=c, by=request.user)
        )
        children = [a.child for a in attempts if a.child is not None]
        context = characters_context(self.out_context(), children)
        rolls = {r.pk: r for r in made.rolls}
        body = {**made_data(made), "attempts": [_attempt(context, a, rolls) for a in attempts], "children": children}
        return Response(RollAllMadeSerializer(body, context=context).data)


class BirthsFinishView(ActionView):
    @extend_schema(
        request=None,
        responses=TurnMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM closes Births (every child born must have its sex): the turn moves to Survival",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        _, made = act(request, v.campaign, "Finish Births", lambda c: births_finish(campaign=c, by=request.user))
        return turn_result(self, made, v.campaign)
