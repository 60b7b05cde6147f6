"""The EU monarchs' phase of a turn (issue 32): what each crown must roll at Survival with the odds,
and the two rolls as actions, typed dice or the server's: a monarch's survival roll and a vacant
throne's succession roll (the successor's values and reign length with it). The services are
``monarch_survival_roll`` and ``monarch_succession_roll``; the board is
:func:`dynasties.services.monarchs_view.monarchs_board`, the Survival page's grid."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.schema import IDEMPOTENCY_KEY
from api.views.actions import (
    ActionView,
    CharacterRefSerializer,
    FacesField,
    OddsSerializer,
    ReignsMadeSerializer,
    act,
    check_faces,
    made_data,
    odds,
    ref,
)
from api.views.rolls import RollOut
from api.views.sequence.common import require_crown, rolls_by_pk
from campaign.models import Step
from campaign.permissions import require
from dynasties.services.eu_monarchs import SUCCESSION_FACES, monarch_succession_roll, monarch_survival_roll, succession_dice
from dynasties.services.monarchs_view import MonarchRow, monarchs_board
from dynasties.services.play_monarchs import SuccessionTerms, SurvivalTerms
from dynasties.services.play_registry import plays, step_of
from rules.errors import InvalidDice, RuleError

DUE_HELP = (
    "survival: the monarch's survival roll is due; succession: the throne is vacant, the succession roll is due; "
    "exempt: a named monarch makes no survival roll this turn; done: rolled this turn (or crowned at this step)."
)


class ChanceSerializer(serializers.Serializer[Any]):
    label = serializers.CharField(help_text="The outcome: 'dies', '+1 turn', 'Dynastic Crisis', 'teenager', '7 turns' ...")  # type: ignore[assignment]  # a declared field "label", not the base class's
    odds = OddsSerializer()

    class Meta:
        ref_name = "MonarchChance"


class ModifierSerializer(serializers.Serializer[Any]):
    value = serializers.IntegerField()
    why = serializers.CharField()

    class Meta:
        ref_name = "MonarchModifier"


def _mods(pairs: list[tuple[int, str]]) -> list[dict[str, Any]]:
    return [{"value": m, "why": why} for m, why in pairs]


def _chances(items: list[Any]) -> list[dict[str, Any]]:
    return [{"label": c.label, "odds": odds(c.odds)} for c in items]


class SurvivalTermsSerializer(serializers.Serializer[Any]):
    modifiers = ModifierSerializer(many=True, help_text="Fragile Health, a crisis's turns, Stability, Turkey's MIL.")
    modifier = serializers.IntegerField()
    chances = ChanceSerializer(many=True, help_text="dies, +1 turn, nothing: the odds before the roll.")
    turkish = ChanceSerializer(many=True, help_text="Turkey only: Pasha, revolt, revolt and Dynastic Crisis.")
    spent = serializers.BooleanField(help_text="The rolled reign is spent: he dies unless the roll gives +1 turn.")
    ends = OddsSerializer(help_text="The odds that the reign ends at this roll (a succession follows).")
    end_faces = serializers.ListField(child=serializers.IntegerField(), help_text="The die faces that end it.")

    class Meta:
        ref_name = "MonarchSurvivalTerms"


class SuccessionTermsSerializer(serializers.Serializer[Any]):
    former = CharacterRefSerializer(allow_null=True, help_text="The monarch the successor follows (his values move the columns).")
    modifiers = ModifierSerializer(many=True, help_text="The succession roll's (Poland's era).")
    modifier = serializers.IntegerField()
    forced_crisis = serializers.BooleanField(help_text="A Dynastic Crisis whatever the die (Turkey's survival column).")
    doge = serializers.BooleanField()
    chances = ChanceSerializer(many=True, help_text="Dynastic Crisis, Fragile Health, normal.")
    minority = ChanceSerializer(many=True, help_text="The successor's minority, the roll again for age included (in 100).")
    age_faces = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Succession die faces after which the 'age' die is due.",
    )
    base_column = serializers.IntegerField()
    column_note = serializers.CharField()
    columns = serializers.DictField(child=serializers.IntegerField(), help_text="The column each value is read in.")
    die_bonus = serializers.IntegerField(help_text="A Doge's bonus to each value die.")
    minimum = serializers.IntegerField(allow_null=True, help_text="A Doge's lowest value.")
    reign_modifiers = ModifierSerializer(many=True)
    reign = ChanceSerializer(many=True, help_text="The reign length's odds.")

    class Meta:
        ref_name = "MonarchSuccessionTerms"


class MonarchRowSerializer(serializers.Serializer[Any]):
    crown = serializers.CharField()
    house = serializers.IntegerField(allow_null=True, help_text="The crown's home dynasty.")
    monarch = CharacterRefSerializer(allow_null=True, help_text="The monarch now (null: none, or the throne is vacant).")
    values = serializers.DictField(child=serializers.IntegerField(), help_text="ADM, DIP, MIL as rolled (or named).")
    effective = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="As they count this turn (a crisis halves, a minority lowers).",
    )
    stage = serializers.CharField(help_text="The minority stage ('' an adult).")
    planned_end_year = serializers.IntegerField(allow_null=True, help_text="When the rolled reign ends.")
    stability = serializers.IntegerField()
    due = serializers.ChoiceField(choices=["survival", "succession", "exempt", "done"], help_text=DUE_HELP)
    exempt_until = serializers.IntegerField(allow_null=True)
    survival = SurvivalTermsSerializer(allow_null=True, help_text="The survival roll's terms, while it is due.")
    succession = SuccessionTermsSerializer(
        allow_null=True, help_text="The succession's terms: a vacant throne's, or the one the survival roll may leave."
    )
    survival_roll = RollOut(allow_null=True, help_text="This turn's survival roll.")
    succession_rolls = RollOut(many=True, help_text="This turn's succession rolls, when the monarch was crowned at this step.")
    died = CharacterRefSerializer(allow_null=True, help_text="The monarch who died at this step.")
    board = serializers.CharField(help_text="What the board must do after Turkey's column ('' nothing).")

    class Meta:
        ref_name = "MonarchRow"


class MonarchsBoardSerializer(serializers.Serializer[Any]):
    year = serializers.IntegerField()
    open = serializers.BooleanField(help_text="The Survival step is the current step.")
    period = serializers.CharField()
    eu_turn = serializers.IntegerField()
    dice = serializers.CharField()
    to_roll = serializers.ListField(child=serializers.CharField(), help_text="Crowns still to roll.")
    rows = MonarchRowSerializer(many=True)

    class Meta:
        ref_name = "MonarchsBoard"


def _survival(t: SurvivalTerms | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "modifiers": _mods(t.modifiers),
        "modifier": t.modifier,
        "chances": _chances(t.chances),
        "turkish": _chances(t.turkish),
        "spent": t.spent,
        "ends": odds(t.ends),
        "end_faces": list(t.end_faces),
    }


def _succession(context: dict[str, Any], t: SuccessionTerms | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "former": ref(context, t.former),
        "modifiers": _mods(t.modifiers),
        "modifier": t.modifier,
        "forced_crisis": t.forced_crisis,
        "doge": t.doge,
        "chances": _chances(t.chances),
        "minority": _chances(t.minority),
        "age_faces": list(t.age_faces),
        "base_column": t.base_column,
        "column_note": t.column_note,
        "columns": t.columns,
        "die_bonus": t.die_bonus,
        "minimum": t.minimum,
        "reign_modifiers": _mods(t.reign_modifiers),
        "reign": _chances(t.reign),
    }


def _row(context: dict[str, Any], row: MonarchRow, rolls: dict[int, Any]) -> dict[str, Any]:
    st = row.status
    alive = row.due != "succession"
    return {
        "crown": row.name,
        "house": row.house.pk if row.house else None,
        "monarch": ref(context, st.monarch) if alive else None,
        "values": st.values if alive else {},
        "effective": st.effective if alive else {},
        "stage": st.stage.name if alive else "",
        "planned_end_year": st.planned_end_year if alive else None,
        "stability": row.crown.stability,
        "due": row.due,
        "exempt_until": row.exempt_until,
        "survival": _survival(row.survival),
        "succession": _succession(context, row.succession),
        "survival_roll": rolls.get(row.survival_roll.pk) if row.survival_roll else None,
        "succession_rolls": [rolls[r.pk] for r in row.succession_rolls],
        "died": ref(context, row.died),
        "board": row.board,
    }


class MonarchsView(ActionView):
    api_tag = "monarchs"

    @extend_schema(
        responses=MonarchsBoardSerializer,
        summary="EU monarchs at Survival: each crown's due roll, its modifiers and the exact odds, this turn's results",
    )
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.viewer.campaign
        _eu_only(campaign)
        board = monarchs_board(campaign)
        context = self.out_context()
        ids = [r.survival_roll.pk if r.survival_roll else None for r in board.rows]
        ids += [x.pk for r in board.rows for x in r.succession_rolls]
        rolls = rolls_by_pk(ids)
        data = {
            "year": board.year,
            "open": campaign.step == Step.SURVIVAL,
            "period": board.period.name,
            "eu_turn": board.period.turn,
            "dice": board.dice,
            "to_roll": [r.name for r in board.to_roll],
            "rows": [_row(context, r, rolls) for r in board.rows],
        }
        return Response(MonarchsBoardSerializer(data, context=context).data)


def _eu_only(campaign: Any) -> None:
    if not plays(campaign, "monarchs"):
        raise RuleError(
            f"{campaign.name} plays {campaign.get_ruleset_display()}: its monarchs are not rolled on the EU monarch tables "
            "(see survival/).",
            code="wrong_ruleset",
        )


def _at_survival(campaign: Any) -> None:
    if campaign.step != Step.SURVIVAL:
        raise RuleError(f"The monarchs roll at Survival; {campaign.name} is at {campaign.get_step_display()}.", code="wrong_step")


class MonarchSurvivalIn(serializers.Serializer[Any]):
    faces = FacesField(help_text="The survival die typed in from the table, e.g. [7]; absent or null: the server rolls.")

    class Meta:
        ref_name = "MonarchSurvivalRequest"


class MonarchSurvivalOut(ReignsMadeSerializer):
    crown = serializers.CharField()
    monarch = CharacterRefSerializer()
    die = serializers.IntegerField()
    modifier = serializers.IntegerField()
    total = serializers.IntegerField()
    modifiers = ModifierSerializer(many=True)
    result = serializers.CharField(help_text="'nothing', '+1 turn' or 'dead', then Turkey's column.")
    turkish = serializers.CharField(help_text="'', 'pasha', 'revolt' or 'revolt_crisis'.")
    board = serializers.CharField(help_text="What the board must do after Turkey's column ('' nothing).")
    died = serializers.BooleanField()
    reign_spent = serializers.BooleanField(help_text="He died because his rolled reign was spent.")
    planned_end_year = serializers.IntegerField(allow_null=True)
    succession_due = serializers.BooleanField(help_text="The throne is vacant: POST succession/ next.")

    class Meta:
        ref_name = "MonarchSurvivalResult"


class MonarchSurvivalView(ActionView):
    api_tag = "monarchs"

    @extend_schema(
        request=MonarchSurvivalIn,
        responses=MonarchSurvivalOut,
        parameters=[IDEMPOTENCY_KEY],
        summary="A monarch's survival roll (GM): 1d10 typed or the server's; a death leaves the succession due",
    )
    def post(self, request: Request, slug: str, crown: str) -> Response:
        v = self.viewer
        require(request.user, v.campaign, "gm")  # the policy, before the body is read (the service asks again)
        _eu_only(v.campaign)
        data = MonarchSurvivalIn(data=request.data)
        data.is_valid(raise_exception=True)
        require_crown(v.campaign, crown)
        _at_survival(v.campaign)
        die = step_of(v.campaign, "monarchs").dice()
        typed = check_faces(die, data.validated_data.get("faces"), field="faces", purpose="survival roll")
        result, made = act(
            request,
            v.campaign,
            f"Survival roll of {crown}",
            lambda c: monarch_survival_roll(campaign=c, crown=crown, faces=typed, by=request.user),
        )
        context = self.out_context()
        body = {
            **made_data(made),
            "crown": result.crown,
            "monarch": ref(context, result.monarch),
            "die": result.result.die,
            "modifier": result.result.modifier,
            "total": result.result.total,
            "modifiers": _mods(result.reasons),
            "result": result.result.label,
            "turkish": result.result.turkish,
            "board": step_of(v.campaign, "monarchs").turkish_line(result.result.turkish),
            "died": result.died,
            "reign_spent": result.reign_spent,
            "planned_end_year": result.planned_end_year,
            "succession_due": result.died,
        }
        return Response(MonarchSurvivalOut(body, context=context).data)


class SuccessionFacesField(serializers.DictField):
    """``{"succession": [4], "age": [9], "adm": [7], "dip": [3], "mil": [10], "reign": [5]}``."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", FacesField(required=True, allow_null=False))
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> dict[str, list[int]]:
        raw = super().to_internal_value(data)
        unknown = sorted(set(raw) - set(SUCCESSION_FACES))
        if unknown:
            raise serializers.ValidationError({unknown[0]: f"No such roll; known: {', '.join(SUCCESSION_FACES)}."})
        return raw


class MonarchSuccessionIn(serializers.Serializer[Any]):
    faces = SuccessionFacesField(
        required=False,
        allow_null=True,
        help_text="Typed faces by roll: succession, age (only after a Dynastic Crisis or Fragile Health: see the board's "
        "age_faces), adm, dip, mil, reign; every roll due must be given. Absent or null: the server rolls them all.",
    )
    given_name = serializers.CharField(required=False, allow_blank=True, max_length=60, help_text="Default: the next name.")
    dynastic_name = serializers.CharField(required=False, allow_blank=True, max_length=80)

    class Meta:
        ref_name = "MonarchSuccessionRequest"


class MonarchSuccessionOut(ReignsMadeSerializer):
    crown = serializers.CharField()
    monarch = CharacterRefSerializer()
    outcome = serializers.CharField(help_text="'Dynastic Crisis', 'Fragile Health' or 'normal' (the succession roll).")
    crisis = serializers.BooleanField()
    fragile_health = serializers.BooleanField()
    stage = serializers.CharField(help_text="The minority stage at accession ('' an adult).")
    values = serializers.DictField(child=serializers.IntegerField())
    columns = serializers.DictField(child=serializers.IntegerField())
    reign_turns = serializers.IntegerField()
    planned_end_year = serializers.IntegerField(allow_null=True)

    class Meta:
        ref_name = "MonarchSuccessionResult"


class MonarchSuccessionView(ActionView):
    api_tag = "monarchs"

    @extend_schema(
        request=MonarchSuccessionIn,
        responses=MonarchSuccessionOut,
        parameters=[IDEMPOTENCY_KEY],
        summary="A vacant throne's succession roll (GM): crisis, Fragile Health, minority, the three values, the reign",
    )
    def post(self, request: Request, slug: str, crown: str) -> Response:
        v = self.viewer
        require(request.user, v.campaign, "gm")  # the policy, before the body is read (the service asks again)
        _eu_only(v.campaign)
        data = MonarchSuccessionIn(data=request.data)
        data.is_valid(raise_exception=True)
        require_crown(v.campaign, crown)
        _at_survival(v.campaign)
        raw = data.validated_data.get("faces")
        typed = None
        if raw is not None:
            dice = succession_dice(v.campaign)
            typed = {k: check_faces(dice[k], f, field=f"faces.{k}", purpose=f"{k} roll") or [] for k, f in raw.items()}
        given = (data.validated_data.get("given_name") or "").strip() or None
        dynastic = (data.validated_data.get("dynastic_name") or "").strip() or None
        try:
            result, made = act(
                request,
                v.campaign,
                f"Succession of {crown}",
                lambda c: monarch_succession_roll(
                    campaign=c, crown=crown, faces=typed, given_name=given, dynastic_name=dynastic, by=request.user
                ),
            )
        except RuleError as exc:  # a die due but not typed (or typed but not due) names its field
            if exc.code == InvalidDice.code and exc.fields and not any(k.startswith("faces") for k in exc.fields):
                exc.fields = {f"faces.{k}": exc.message for k in exc.fields}
            raise
        context = self.out_context()
        body = {
            **made_data(made),
            "crown": result.crown,
            "monarch": ref(context, result.monarch),
            "outcome": result.outcome,
            "crisis": result.crisis,
            "fragile_health": result.fragile_health,
            "stage": result.stage,
            "values": result.values,
            "columns": result.columns,
            "reign_turns": result.reign_turns,
            "planned_end_year": result.reign.planned_end_year,
        }
        return Response(MonarchSuccessionOut(body, context=context).data)
