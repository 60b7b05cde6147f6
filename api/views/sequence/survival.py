"""Survival: who must roll and the odds, the rolls, and the GM's finish (the successions decided)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.filters import INT_MAX
from api.schema import IDEMPOTENCY_KEY
from api.views.actions import (
    MAX_DICE,
    ActionView,
    CharacterRefSerializer,
    FacesField,
    IdField,
    MadeSerializer,
    OddsSerializer,
    act,
    check_typed,
    made_data,
    odds,
    ref,
)
from api.views.rolls import RollOut
from api.views.sequence.common import rolls_by_pk
from api.views.sequence.lines import LineSerializer, line_data
from api.views.sequence.turn import TurnMadeSerializer, turn_data
from campaign.models import Step
from campaign.permissions import may_act_for
from dynasties.models import Character
from dynasties.services.play_registry import play_of
from dynasties.services.sequence_view import (
    SUCCESSION_LINE_LIMIT,
    crowns_awaiting_succession,
    succession_decisions,
    survival_board,
)
from dynasties.services.survival import survival_close, survival_roll
from rules.errors import NotFound, RuleError


class SurvivalRowSerializer(serializers.Serializer[Any]):
    character = CharacterRefSerializer()
    house = serializers.IntegerField(allow_null=True, help_text="The dynasty controlling the character.")
    age = serializers.IntegerField()
    need = serializers.IntegerField(
        allow_null=True, help_text="Blood Royale: what dice + modifier must reach; BloodLine: the column."
    )
    modifier = serializers.IntegerField()
    birth_penalty = serializers.IntegerField()
    odds = OddsSerializer(allow_null=True, help_text="Of surviving the roll.")
    must_show = serializers.CharField(help_text="What the dice must show.")
    rolled = serializers.BooleanField()
    died = serializers.BooleanField()
    roll = RollOut(allow_null=True, help_text="This turn's survival roll, once made.")
    may_act = serializers.BooleanField(help_text="You may roll for this character.")

    class Meta:
        ref_name = "SurvivalRow"


class SuccessionDueSerializer(serializers.Serializer[Any]):
    crown = serializers.CharField()
    error = serializers.CharField(help_text="Why the line cannot be read (empty when it can).")
    player = serializers.IntegerField(allow_null=True, help_text="The dynasty whose player decides.")
    may_choose = serializers.BooleanField(help_text="You may choose who is passed over.")
    chosen = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="The heirs the crown's player chose to pass over (null: no choice yet).",
    )
    line = LineSerializer(allow_null=True, help_text="The line at the monarch's death: the first entry succeeds.")

    class Meta:
        ref_name = "SuccessionDue"


class SurvivalBoardSerializer(serializers.Serializer[Any]):
    year = serializers.IntegerField()
    open = serializers.BooleanField(help_text="The Survival step is the current step.")
    families = serializers.BooleanField()
    dice = serializers.CharField()
    rows = SurvivalRowSerializer(many=True)
    to_roll = serializers.IntegerField()
    successions = SuccessionDueSerializer(many=True, help_text="While Survival is open: crowns whose monarch has died.")

    class Meta:
        ref_name = "SurvivalBoard"


class SurvivalView(ActionView):
    @extend_schema(
        responses=SurvivalBoardSerializer,
        summary="Survival: who must roll, the number needed, the exact odds, results, and the successions to decide",
    )
    def get(self, request: Request, slug: str) -> Response:
        v = self.viewer
        board = survival_board(v.campaign)
        context = self.out_context()
        rolls = rolls_by_pk([row.roll.pk for row in board.rows if row.roll is not None])
        rows = [
            {
                "character": ref(context, row.character),
                "house": row.house.pk if row.house else None,
                "age": row.age,
                "need": row.need,
                "modifier": row.modifier,
                "birth_penalty": row.birth_penalty,
                "odds": odds(row.odds),
                "must_show": row.must_show or "",
                "rolled": row.rolled,
                "died": row.died,
                "roll": rolls.get(row.roll.pk) if row.roll is not None else None,
                "may_act": may_act_for(v.role, v.dynasty, row.character.controlled_by_id) and not row.rolled,
            }
            for row in board.rows
        ]
        successions = []
        if v.campaign.step == Step.SURVIVAL:
            for d in succession_decisions(v.campaign, v.role, v.dynasty):
                successions.append(
                    {
                        "crown": d.due.crown,
                        "error": d.due.error,
                        "player": d.player.pk if d.player is not None else None,
                        "may_choose": d.may_choose,
                        "chosen": d.chosen,
                        "line": line_data(context, d.due.line) if d.due.line else None,
                    }
                )
        data = {
            "year": board.year,
            "open": v.campaign.step == Step.SURVIVAL,
            "families": board.families,
            "dice": str(board.dice),
            "rows": rows,
            "to_roll": len(board.to_roll),
            "successions": successions,
        }
        return Response(SurvivalBoardSerializer(data, context=context).data)


@extend_schema_field(
    {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer"}, "maxItems": MAX_DICE}}
)
class TypedByCharacterField(serializers.DictField):
    """``{"<character id>": [faces]}``."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", FacesField(required=True, allow_null=False))
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> dict[int, list[int]]:
        raw = super().to_internal_value(data)
        out: dict[int, list[int]] = {}
        errors: dict[str, str] = {}
        for key, faces in raw.items():
            try:
                pk = int(key)
            except ValueError:
                pk = 0
            if not 1 <= pk <= INT_MAX:
                errors[key] = "Not a character id."
            else:
                out[pk] = faces
        if errors:
            raise serializers.ValidationError(errors)
        return out


@extend_schema_field({"type": "object", "additionalProperties": {"type": "integer"}})
class TotalByCharacterField(serializers.DictField):
    """``{"<character id>": total}``."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", serializers.IntegerField(min_value=-INT_MAX, max_value=INT_MAX))
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> dict[int, int]:
        raw = super().to_internal_value(data)
        out: dict[int, int] = {}
        for key, total in raw.items():
            pk = int(key) if str(key).isdigit() else 0
            if not 1 <= pk <= INT_MAX:
                raise serializers.ValidationError({key: "Not a character id."})
            out[pk] = total
        return out


class SurvivalRollIn(serializers.Serializer[Any]):
    characters = serializers.ListField(
        child=IdField(),
        max_length=1000,
        required=False,
        allow_null=True,
        help_text="Who rolls now. Absent: the GM rolls everyone still to roll, a player his own dynasty's.",
    )
    faces = TypedByCharacterField(
        required=False,
        allow_null=True,
        help_text='Typed faces per character id, e.g. {"12": [1, 1]}; the others roll on the server\'s dice.',
    )
    totals = TotalByCharacterField(
        required=False,
        allow_null=True,
        help_text='Instead of faces: rolls typed in as totals per character id, e.g. {"12": 7}.',
    )

    class Meta:
        ref_name = "SurvivalRollRequest"


class SurvivalResultSerializer(serializers.Serializer[Any]):
    character = CharacterRefSerializer()
    faces = serializers.ListField(child=serializers.IntegerField())
    modifier = serializers.IntegerField()
    need = serializers.IntegerField()
    survived = serializers.BooleanField()

    class Meta:
        ref_name = "SurvivalResult"


class SurvivalRollMadeSerializer(MadeSerializer):
    results = SurvivalResultSerializer(many=True)
    successions_due = serializers.ListField(
        child=serializers.CharField(), help_text="Crowns whose monarch has died this turn: decide at the finish."
    )

    class Meta:
        ref_name = "SurvivalRollResult"


class SurvivalRollsView(ActionView):
    @extend_schema(
        request=SurvivalRollIn,
        responses=SurvivalRollMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="Survival rolls (typed faces or the server's dice); a player rolls for his own characters only",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = SurvivalRollIn(data=request.data)
        data.is_valid(raise_exception=True)
        chosen: list[int] | None = data.validated_data.get("characters")
        faces: dict[int, list[int]] = data.validated_data.get("faces") or {}
        totals: dict[int, int] = data.validated_data.get("totals") or {}
        typed = {**{pk: None for pk in faces}, **{pk: None for pk in totals}}
        if chosen is not None:  # who may roll for whom, and whose by default: the service asks the policy
            chosen = list(dict.fromkeys(chosen))
            found = set(Character.objects.filter(campaign=v.campaign, pk__in=chosen).values_list("pk", flat=True))
            missing = [pk for pk in chosen if pk not in found]
            if missing:
                raise NotFound(f"There is no character #{missing[0]} in this campaign.", fields={"characters": str(missing[0])})
            stray = [pk for pk in typed if pk not in chosen]
            if stray:
                message = f"Dice were typed for character #{stray[0]}, who is not rolling now: name him in 'characters'."
                raise RuleError(message, code="not_due", fields={f"faces.{stray[0]}": message})
        spec = play_of(v.campaign).survival.survival_dice()
        checked = {
            pk: check_typed(
                spec, faces.get(pk), totals.get(pk), field=f"faces.{pk}", total_field=f"totals.{pk}", purpose="survival roll"
            )
            or []
            for pk in typed
        }
        results, made = act(
            request,
            v.campaign,
            "Survival rolls",
            lambda c: survival_roll(campaign=c, characters=chosen, faces=checked or None, by=request.user),
        )
        context = self.out_context()
        body = {
            **made_data(made),
            "results": [
                {
                    "character": ref(context, r.character),
                    "faces": list(r.faces),
                    "modifier": r.modifier,
                    "need": r.need,
                    "survived": r.survived,
                }
                for r in results
            ],
            "successions_due": crowns_awaiting_succession(v.campaign),
        }
        return Response(SurvivalRollMadeSerializer(body, context=context).data)


@extend_schema_field({"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer"}}})
class PassOverMapField(serializers.DictField):
    """``{"<crown>": [heir ids]}``."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", serializers.ListField(child=IdField(), max_length=SUCCESSION_LINE_LIMIT * 4))
        super().__init__(**kwargs)


class SurvivalFinishIn(serializers.Serializer[Any]):
    pass_over = PassOverMapField(
        required=False,
        allow_null=True,
        help_text="Crown -> the heirs passed over. Absent or null: the choices the crowns' players recorded "
        "(pass-over endpoint); {} passes nobody over.",
    )
    entered = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=-INT_MAX, max_value=INT_MAX), max_length=MAX_DICE),
        max_length=200,
        required=False,
        allow_null=True,
        help_text="Typed faces for the succession's rolls, one list per roll in the order they are made (the "
        "Charisma roll, a regent baron's characteristics, ...); absent: the server rolls them.",
    )

    class Meta:
        ref_name = "SurvivalFinishRequest"


class SurvivalFinishMadeSerializer(TurnMadeSerializer):
    pass_over = PassOverMapField(help_text="The heirs passed over, per crown.")

    class Meta:
        ref_name = "SurvivalFinishResult"


class SurvivalFinishView(ActionView):
    @extend_schema(
        request=SurvivalFinishIn,
        responses=SurvivalFinishMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM closes Survival: successions resolved (heirs passed over as decided); now Marriages",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = SurvivalFinishIn(data=request.data)
        data.is_valid(raise_exception=True)
        wanted = data.validated_data.get("pass_over")
        entered = data.validated_data.get("entered")
        closed, made = act(
            request,
            v.campaign,
            "Finish Survival",
            lambda c: survival_close(campaign=c, pass_over=wanted, entered=entered, by=request.user),
            dice="entered",
        )
        v.campaign.refresh_from_db()
        body = {**made_data(made), "turn": turn_data(v.campaign, request.user), "pass_over": closed.pass_over}
        return Response(SurvivalFinishMadeSerializer(body, context=self.out_context()).data)
