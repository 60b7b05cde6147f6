"""Actions of the Dynastic Sequence (issue 8): the turn, Births, Survival and the succession
decisions, the line of succession with "what if", and the GM's undo.

Who acts (as the pages, ``docs/pages.md``): the GM for everyone; a player for his own dynasty's
couples (his house controls the husband or the wife), his own characters' survival and the
succession of the crown his house controls; an observer only reads. Every write is one
``run_action`` (``api.serializers_actions.act``); typed faces are checked against the campaign's
dice before the services see them (``InvalidDice``, 400 naming the field) and the server rolls
whatever is not typed. Each answer carries the rolls the action made and the chronicle lines the
caller may see. The odds and eligibility come from ``dynasties.services.sequence_view``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.common import idempotency_key, may_act_for, require_gm
from api.filters import INT_MAX
from api.schema import IDEMPOTENCY_KEY
from api.serializers import LinkSerializer, link
from api.serializers_actions import (
    MAX_DICE,
    ActionView,
    CharacterRefSerializer,
    FacesField,
    IdField,
    MadeSerializer,
    OddsSerializer,
    ReignsMadeSerializer,
    TurnSerializer,
    act,
    characters_context,
    check_faces,
    made_data,
    odds,
    ref,
    rolls_with_subjects,
    step_states,
)
from api.views.families import CharacterOut
from api.views.rolls import RollOut
from campaign.history import UndoPlan, undo_plan, undo_step, undo_turn
from campaign.models import Campaign, Roll, Step
from campaign.permissions import (
    couple_houses,
    may_act_for_any,
    may_decide_succession,
    require_couple,
    require_crown_player,
    require_play,
)
from campaign.steps import STEP_LABELS, STEP_WAITS
from dynasties.models import BirthAttempt, Character, Crown, Dynasty, Marriage, Reign, Status
from dynasties.services.births import births_attempt, births_finish, births_roll_all, births_sex
from dynasties.services.sequence_view import (
    SUCCESSION_LINE_LIMIT,
    CoupleRow,
    birth_terms,
    births_board,
    successions_due,
    survival_board,
)
from dynasties.services.succession_choices import pass_over_choices, pass_over_choose, pass_over_clear
from dynasties.services.succession_view import SuccessionEntry, SuccessionLine, succession_line, succession_what_if
from dynasties.services.survival import survival_finish, survival_roll
from rules import get_ruleset
from rules.errors import InvalidDice, NotFound, RuleError

LINE_LIMIT = 10
"""How many heirs a line shows unless asked (at most ``LINE_LIMIT_MAX``)."""
LINE_LIMIT_MAX = 50


require_actor = require_play  # 403 for an observer: he reads, he never acts (campaign.permissions)


# --- the turn ----------------------------------------------------------------------------------


def _plan(plan: UndoPlan | None) -> dict[str, Any] | None:
    if plan is None:
        return None
    c = plan.checkpoint
    return {
        "year": c.year, "step": c.step, "step_label": plan.step_label, "description": plan.description,
        "opened_by": c.label, "lost_rolls": plan.lost_rolls, "lost_chronicle": plan.lost_chronicle,
        "lost_postings": plan.lost_postings,
    }  # fmt: skip


def turn_data(campaign: Campaign, is_gm: bool) -> dict[str, Any]:
    """Where the turn stands, what it waits for, and (for the GM) what undo would put back."""
    to_roll: int | None = None
    if campaign.step == Step.BIRTHS:
        board = births_board(campaign)
        to_roll = len(board.waiting) + len(board.pending_sex)
    elif campaign.step == Step.SURVIVAL:
        to_roll = len(survival_board(campaign).to_roll)
    undo = {"step": _plan(undo_plan(campaign)), "turn": _plan(undo_plan(campaign, turn=True))} if is_gm else None
    return {
        "year": campaign.current_year, "turn_number": campaign.turn_number, "step": campaign.step,
        "step_label": STEP_LABELS[campaign.step], "waits": STEP_WAITS.get(campaign.step, ""), "to_roll": to_roll,
        "steps": step_states(campaign, STEP_WAITS, STEP_LABELS), "undo": undo,
    }  # fmt: skip


class TurnMadeSerializer(ReignsMadeSerializer):
    turn = TurnSerializer(help_text="The turn after the action.")

    class Meta:
        ref_name = "TurnResult"


class TurnView(ActionView):
    @extend_schema(responses=TurnSerializer, summary="The turn: year, step, what it waits for, the GM's undo plan")
    def get(self, request: Request, slug: str) -> Response:
        v = self.viewer
        return Response(TurnSerializer(turn_data(v.campaign, v.is_gm)).data)


def _turn_result(view: ActionView, made: Any, campaign: Campaign) -> Response:
    campaign.refresh_from_db()
    data = {**made_data(made), "turn": turn_data(campaign, view.viewer.is_gm)}
    return Response(TurnMadeSerializer(data, context=view.out_context()).data)


# --- Births ------------------------------------------------------------------------------------


class AttemptSerializer(serializers.Serializer):
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
        "id": a.pk, "marriage": link(context, "marriages", a.marriage_id), "year": a.year, "attempt": a.attempt,
        "success": a.success, "child_birth_year": a.child_birth_year, "child": link(context, "characters", a.child_id),
        "waiting_for_sex": a.success and a.child_id is None, "roll": rolls.get(a.roll_id or 0),
    }  # fmt: skip


def _rolls(ids: list[int | None]) -> dict[int, Roll]:
    wanted = [pk for pk in ids if pk]
    if not wanted:
        return {}
    return {r.pk: r for r in rolls_with_subjects(Roll.objects.filter(pk__in=wanted))}


class WifeSurvivalSerializer(serializers.Serializer):
    now = OddsSerializer(help_text="Her odds of surviving this turn's roll as things stand.")
    after = OddsSerializer(help_text="Her odds after one more birth attempt.")
    must_show_now = serializers.CharField()
    must_show_after = serializers.CharField()

    class Meta:
        ref_name = "WifeSurvival"


class CoupleSerializer(serializers.Serializer):
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


class IneligibleSerializer(serializers.Serializer):
    marriage = LinkSerializer()
    husband = CharacterRefSerializer()
    wife = CharacterRefSerializer()
    problem = serializers.CharField()

    class Meta:
        ref_name = "IneligibleCouple"


class BirthDiceSerializer(serializers.Serializer):
    birth = serializers.CharField(help_text="The birth roll, e.g. 2d6.")
    sex = serializers.CharField()
    characteristic = serializers.CharField(help_text="Each of the three characteristics.")

    class Meta:
        ref_name = "BirthDice"


class BirthsBoardSerializer(serializers.Serializer):
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


def _couple(context: dict[str, Any], row: CoupleRow, year: int, rolls: dict[int, Roll], role: str, mine: int | None) -> dict:
    survival = row.wife_survival
    pending = row.pending
    return {
        "marriage": link(context, "marriages", row.marriage.pk), "husband": ref(context, row.husband),
        "wife": ref(context, row.wife), "husband_age": row.husband.age(year), "wife_age": row.wife.age(year),
        "houses": sorted(row.dynasties), "may_act": may_act_for_any(role, mine, row.dynasties),
        "may_attempt": row.may_attempt, "problem": row.problem, "odds": odds(row.odds), "next_cost": row.next_cost,
        "wife_survival": None if survival is None else {
            "now": odds(survival.now), "after": odds(survival.after),
            "must_show_now": survival.must_show_now, "must_show_after": survival.must_show_after,
        },
        "attempts": [_attempt(context, a, rolls) for a in row.attempts],
        "waiting_attempt": pending.pk if pending is not None else None,
    }  # fmt: skip


class BirthsView(ActionView):
    @extend_schema(responses=BirthsBoardSerializer, summary="Births: every couple with its odds, attempts and who may roll")
    def get(self, request: Request, slug: str) -> Response:
        v = self.viewer
        board = births_board(v.campaign)
        context = self.out_context()
        rolls = _rolls([a.roll_id for row in board.couples for a in row.attempts])
        terms = board.terms
        data = {
            "year": board.year, "open": v.campaign.step == Step.BIRTHS, "families": board.families,
            "dice": {
                "birth": str(terms.birth_dice), "sex": str(terms.sex_dice),
                "characteristic": str(terms.characteristic_dice),
            },
            "child_on": terms.child_on, "sex_rule": terms.sex_rule, "characteristic_labels": list(terms.characteristic_labels),
            "couples": [_couple(context, row, board.year, rolls, v.role, v.dynasty) for row in board.couples],
            "ineligible": [
                {"marriage": link(context, "marriages", row.marriage.pk), "husband": ref(context, row.husband),
                 "wife": ref(context, row.wife), "problem": row.problem or ""}
                for row in board.ineligible
            ],
            "waiting": len(board.waiting), "pending_sex": len(board.pending_sex), "born": board.born,
        }  # fmt: skip
        return Response(BirthsBoardSerializer(data, context=context).data)


def _require_couple(role: str, mine: int | None, match: Marriage) -> None:
    require_couple(role, mine, couple_houses(match))


class AttemptIn(serializers.Serializer):
    marriage = IdField(help_text="The wed couple's marriage.")
    faces = FacesField(help_text="The birth roll typed in from the table, e.g. [3, 4]; absent or null: the server rolls.")

    class Meta:
        ref_name = "BirthAttemptRequest"


class AttemptMadeSerializer(MadeSerializer):
    attempt = AttemptSerializer()

    class Meta:
        ref_name = "BirthAttemptResult"


class AttemptsView(ActionView):
    @extend_schema(
        request=AttemptIn, responses={201: AttemptMadeSerializer}, parameters=[IDEMPOTENCY_KEY],
        summary="A birth roll for a wed couple (typed faces or the server's dice)",
    )  # fmt: skip
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        require_actor(v.role)
        data = AttemptIn(data=request.data)
        data.is_valid(raise_exception=True)
        pk = data.validated_data["marriage"]
        match = Marriage.objects.select_related("husband", "wife").filter(campaign=v.campaign, pk=pk).first()
        if match is None:
            raise NotFound(f"There is no marriage #{pk} in this campaign.", fields={"marriage": "not_found"})
        _require_couple(v.role, v.dynasty, match)
        faces = check_faces(
            birth_terms(v.campaign).birth_dice, data.validated_data.get("faces"), field="faces", purpose="birth roll"
        )
        label = f"Birth roll of {match.husband.display_name} and {match.wife.display_name}"
        made_attempt, made = act(
            request, v.campaign, label, lambda c: births_attempt(campaign=c, marriage=match.pk, faces=faces, by=request.user)
        )
        context = self.out_context()
        rolls = {r.pk: r for r in made.rolls}
        body = {**made_data(made), "attempt": _attempt(context, made_attempt, rolls)}
        return Response(AttemptMadeSerializer(body, context=context).data, status=status.HTTP_201_CREATED)


class SexIn(serializers.Serializer):
    faces = FacesField(help_text="The sex die typed in (Blood Royale: 1d6, 1-3 a boy); absent or null: the server rolls.")
    characteristic_faces = serializers.ListField(
        child=serializers.ListField(
            child=serializers.IntegerField(min_value=-INT_MAX, max_value=INT_MAX), max_length=MAX_DICE
        ),
        max_length=MAX_DICE, required=False, allow_null=True,
        help_text="The three characteristics' dice typed in, in order (e.g. [[6, 6, 6], [1, 1, 1], [4, 4, 4]]); "
        "absent or null: the server rolls them.",
    )  # fmt: skip
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


class SexView(ActionView):
    @extend_schema(
        request=SexIn, responses={201: SexMadeSerializer}, parameters=[IDEMPOTENCY_KEY],
        summary="The sex (and characteristics) of the child of a successful birth roll",
    )  # fmt: skip
    def post(self, request: Request, slug: str, attempt: int) -> Response:
        v = self.viewer
        require_actor(v.role)
        found = (
            BirthAttempt.objects.select_related("marriage__husband", "marriage__wife")
            .filter(campaign=v.campaign, pk=attempt)
            .first()
        )
        if found is None:
            raise NotFound(f"There is no birth attempt #{attempt} in this campaign.")
        _require_couple(v.role, v.dynasty, found.marriage)
        data = SexIn(data=request.data)
        data.is_valid(raise_exception=True)
        terms = birth_terms(v.campaign)
        sex = check_faces(terms.sex_dice, data.validated_data.get("faces"), field="faces", purpose="sex roll")
        traits = data.validated_data.get("characteristic_faces")
        if traits is not None:
            labels = terms.characteristic_labels
            if len(traits) != len(labels):
                message = f"Type the dice of all {len(labels)} characteristics ({', '.join(labels)}), or none."
                raise InvalidDice(message, fields={"characteristic_faces": message})
            traits = [
                check_faces(terms.characteristic_dice, row, field=f"characteristic_faces.{i}", purpose=f"{label} roll")
                for i, (row, label) in enumerate(zip(traits, labels, strict=True))
            ]
        name = (data.validated_data.get("given_name") or "").strip() or None

        def roll_sex(c: Campaign) -> Character:
            return births_sex(
                campaign=c, attempt=found.pk, faces=sex, characteristic_faces=traits, given_name=name, by=request.user
            )

        child, made = act(request, v.campaign, f"Sex roll of the child of {found.marriage}", roll_sex)
        found.refresh_from_db()
        context = characters_context(self.out_context(), [child])
        rolls = _rolls([found.roll_id])
        body = {**made_data(made), "child": child, "attempt": _attempt(context, found, rolls)}
        return Response(SexMadeSerializer(body, context=context).data, status=status.HTTP_201_CREATED)


class RollAllMadeSerializer(MadeSerializer):
    attempts = AttemptSerializer(many=True)
    children = CharacterOut(many=True)

    class Meta:
        ref_name = "BirthsRollAllResult"


class RollAllView(ActionView):
    @extend_schema(
        request=None, responses=RollAllMadeSerializer, parameters=[IDEMPOTENCY_KEY],
        summary="The GM rolls, on the server's dice, every couple that has not rolled yet (children complete)",
    )  # fmt: skip
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        require_gm(v.role)
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
        request=None, responses=TurnMadeSerializer, parameters=[IDEMPOTENCY_KEY],
        summary="The GM closes Births (every child born must have its sex): the turn moves to Survival",
    )  # fmt: skip
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        require_gm(v.role)
        _, made = act(request, v.campaign, "Finish Births", lambda c: births_finish(campaign=c, by=request.user))
        return _turn_result(self, made, v.campaign)


# --- Survival ----------------------------------------------------------------------------------


class PassOverSerializer(serializers.Serializer):
    allowed = serializers.BooleanField(help_text="May this heir be passed over now?")
    text = serializers.CharField(help_text="Why it is allowed, or the rule that forbids it.")
    summary = serializers.CharField()
    costs = serializers.ListField(child=serializers.CharField(), help_text="One sentence per penalty.")
    usurper = serializers.IntegerField(allow_null=True, help_text="The dynasty that would pay as usurper.")
    rival = serializers.IntegerField(allow_null=True, help_text="The dynasty that would gain against the usurper.")
    exile_to = serializers.IntegerField(allow_null=True, help_text="Rule C: the dynasty the heir would go into exile with.")

    class Meta:
        ref_name = "PassOverCost"


class LineEntrySerializer(serializers.Serializer):
    position = serializers.IntegerField()
    character = CharacterRefSerializer()
    age = serializers.IntegerField()
    minor = serializers.BooleanField(help_text="Under 15: a regent would rule.")
    kin = serializers.CharField(help_text="Kinship to the monarch.")
    reason = serializers.CharField(help_text="Why this place in the line.")
    level = serializers.IntegerField(help_text="0: the monarch's descendants; 1: his parent's line; ...")
    pass_over = PassOverSerializer(allow_null=True, help_text="Null for a title's line.")

    class Meta:
        ref_name = "SuccessionEntry"


class RelativeSerializer(serializers.Serializer):
    relative_birth_year = serializers.IntegerField()
    wife_birth_year = serializers.IntegerField()
    marriage_year = serializers.IntegerField()
    children_birth_years = serializers.ListField(child=serializers.IntegerField())

    class Meta:
        ref_name = "RelativePlan"


class LineSerializer(serializers.Serializer):
    crown = serializers.CharField()
    title = serializers.CharField(allow_null=True)
    year = serializers.IntegerField()
    monarch = CharacterRefSerializer(allow_null=True, help_text="Whose line this is.")
    player = serializers.IntegerField(allow_null=True, help_text="The dynasty controlling the crown.")
    total = serializers.IntegerField(allow_null=True, help_text="How many are in the line altogether.")
    rule_c = serializers.BooleanField(help_text="Optional rule C (disputed succession) is on.")
    dead = serializers.ListField(child=serializers.IntegerField(), help_text="What-if: those taken as dead.")
    monarch_dies = serializers.BooleanField(help_text="What-if: the monarch is among them.")
    successor = LineEntrySerializer(allow_null=True, help_text="What-if: who would succeed.")
    regent = CharacterRefSerializer(allow_null=True, help_text="The regent now, or the what-if's default regent.")
    relative = RelativeSerializer(allow_null=True, help_text="What-if: nobody of the blood left, the relative created.")
    notes = serializers.ListField(child=serializers.CharField())
    entries = LineEntrySerializer(many=True, help_text="The heirs in order.")

    class Meta:
        ref_name = "SuccessionLine"


def _entry(context: dict[str, Any], e: SuccessionEntry | None) -> dict[str, Any] | None:
    if e is None:
        return None
    p = e.pass_over
    return {
        "position": e.position, "character": ref(context, e.character), "age": e.age, "minor": e.minor, "kin": e.kin,
        "reason": e.reason, "level": e.level,
        "pass_over": None if p is None else {
            "allowed": p.allowed, "text": p.text, "summary": p.summary, "costs": list(p.costs),
            "usurper": p.usurper.pk if p.usurper else None, "rival": p.rival.pk if p.rival else None,
            "exile_to": p.exile_to.pk if p.exile_to else None,
        },
    }  # fmt: skip


def line_data(context: dict[str, Any], line: SuccessionLine) -> dict[str, Any]:
    r = line.relative
    return {
        "crown": line.crown, "title": line.title, "year": line.year, "monarch": ref(context, line.monarch),
        "player": line.player.pk if line.player else None, "total": line.total, "rule_c": line.rule_c,
        "dead": list(line.dead), "monarch_dies": line.monarch_dies, "successor": _entry(context, line.successor),
        "regent": ref(context, line.regent),
        "relative": None if r is None else {
            "relative_birth_year": r.relative_birth_year, "wife_birth_year": r.wife_birth_year,
            "marriage_year": r.marriage_year, "children_birth_years": list(r.children_birth_years),
        },
        "notes": list(line.notes), "entries": [_entry(context, e) for e in line.entries],
    }  # fmt: skip


class SurvivalRowSerializer(serializers.Serializer):
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


class SuccessionDueSerializer(serializers.Serializer):
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


class SurvivalBoardSerializer(serializers.Serializer):
    year = serializers.IntegerField()
    open = serializers.BooleanField(help_text="The Survival step is the current step.")
    families = serializers.BooleanField()
    dice = serializers.CharField()
    rows = SurvivalRowSerializer(many=True)
    to_roll = serializers.IntegerField()
    successions = SuccessionDueSerializer(many=True, help_text="While Survival is open: crowns whose monarch has died.")

    class Meta:
        ref_name = "SurvivalBoard"


def crown_player(campaign: Campaign, crown: str) -> int | None:
    """The dynasty whose player controls the crown now (another in a Dynastic Union)."""
    record = Crown.objects.filter(campaign=campaign, name=crown).only("controlled_by_id").first()
    if record is not None and record.controlled_by_id:
        return record.controlled_by_id
    return Dynasty.objects.filter(campaign=campaign, crown=crown).values_list("pk", flat=True).first()


def require_crown(campaign: Campaign, crown: str) -> None:
    known = (
        Reign.objects.filter(campaign=campaign, crown=crown).exists()
        or Dynasty.objects.filter(campaign=campaign, crown=crown).exists()
        or Crown.objects.filter(campaign=campaign, name=crown).exists()
    )
    if not known:
        raise NotFound(f"There is no crown {crown!r} in this campaign.")


class SurvivalView(ActionView):
    @extend_schema(
        responses=SurvivalBoardSerializer,
        summary="Survival: who must roll, the number needed, the exact odds, results, and the successions to decide",
    )
    def get(self, request: Request, slug: str) -> Response:
        v = self.viewer
        board = survival_board(v.campaign)
        context = self.out_context()
        rolls = _rolls([row.roll.pk for row in board.rows if row.roll is not None])
        rows = [
            {
                "character": ref(context, row.character), "house": row.house.pk if row.house else None, "age": row.age,
                "need": row.need, "modifier": row.modifier, "birth_penalty": row.birth_penalty, "odds": odds(row.odds),
                "must_show": row.must_show or "", "rolled": row.rolled, "died": row.died,
                "roll": rolls.get(row.roll.pk) if row.roll is not None else None,
                "may_act": may_act_for(v.role, v.dynasty, row.character.controlled_by_id) and not row.rolled,
            }
            for row in board.rows
        ]  # fmt: skip
        successions = []
        if v.campaign.step == Step.SURVIVAL:
            choices = pass_over_choices(v.campaign)
            for due in successions_due(v.campaign):
                player = due.line.player.pk if due.line is not None and due.line.player is not None else None
                successions.append({
                    "crown": due.crown, "error": due.error, "player": player,
                    "may_choose": may_decide_succession(v.role, v.dynasty, player),
                    "chosen": choices.get(due.crown), "line": line_data(context, due.line) if due.line else None,
                })  # fmt: skip
        data = {
            "year": board.year, "open": v.campaign.step == Step.SURVIVAL, "families": board.families,
            "dice": str(board.dice), "rows": rows, "to_roll": len(board.to_roll), "successions": successions,
        }  # fmt: skip
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


class SurvivalRollIn(serializers.Serializer):
    characters = serializers.ListField(
        child=IdField(), max_length=1000, required=False, allow_null=True,
        help_text="Who rolls now. Absent: the GM rolls everyone still to roll, a player his own dynasty's.",
    )  # fmt: skip
    faces = TypedByCharacterField(
        required=False, allow_null=True,
        help_text="Typed faces per character id, e.g. {\"12\": [1, 1]}; the others roll on the server's dice.",
    )  # fmt: skip

    class Meta:
        ref_name = "SurvivalRollRequest"


class SurvivalResultSerializer(serializers.Serializer):
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
        request=SurvivalRollIn, responses=SurvivalRollMadeSerializer, parameters=[IDEMPOTENCY_KEY],
        summary="Survival rolls (typed faces or the server's dice); a player rolls for his own characters only",
    )  # fmt: skip
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        require_actor(v.role)
        data = SurvivalRollIn(data=request.data)
        data.is_valid(raise_exception=True)
        chosen: list[int] | None = data.validated_data.get("characters")
        typed: dict[int, list[int]] = data.validated_data.get("faces") or {}
        if chosen is not None:
            chosen = list(dict.fromkeys(chosen))
            found = dict(Character.objects.filter(campaign=v.campaign, pk__in=chosen).values_list("pk", "controlled_by_id"))
            missing = [pk for pk in chosen if pk not in found]
            if missing:
                raise NotFound(f"There is no character #{missing[0]} in this campaign.", fields={"characters": str(missing[0])})
            if not v.is_gm and any(not may_act_for(v.role, v.dynasty, found[pk]) for pk in chosen):
                raise PermissionDenied("You may roll only for your own dynasty's characters.")
        elif not v.is_gm:
            chosen = [r.character.pk for r in survival_board(v.campaign).to_roll if r.character.controlled_by_id == v.dynasty]
        if chosen is not None:
            stray = [pk for pk in typed if pk not in chosen]
            if stray:
                message = f"Dice were typed for character #{stray[0]}, who is not rolling now: name him in 'characters'."
                raise RuleError(message, code="not_due", fields={f"faces.{stray[0]}": message})
        spec = get_ruleset(v.campaign.ruleset).SURVIVAL_DICE
        checked = {
            pk: check_faces(spec, faces, field=f"faces.{pk}", purpose="survival roll") or [] for pk, faces in typed.items()
        }
        results, made = act(
            request, v.campaign, "Survival rolls",
            lambda c: survival_roll(campaign=c, characters=chosen, faces=checked or None, by=request.user),
        )  # fmt: skip
        context = self.out_context()
        due = Reign.objects.filter(campaign=v.campaign, end_year__isnull=True, holder__status=Status.DEAD)
        body = {
            **made_data(made),
            "results": [
                {"character": ref(context, r.character), "faces": list(r.faces), "modifier": r.modifier, "need": r.need,
                 "survived": r.survived}
                for r in results
            ],
            "successions_due": list(due.order_by("crown").values_list("crown", flat=True)),
        }  # fmt: skip
        return Response(SurvivalRollMadeSerializer(body, context=context).data)


@extend_schema_field({"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer"}}})
class PassOverMapField(serializers.DictField):
    """``{"<crown>": [heir ids]}``."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", serializers.ListField(child=IdField(), max_length=SUCCESSION_LINE_LIMIT * 4))
        super().__init__(**kwargs)


class SurvivalFinishIn(serializers.Serializer):
    pass_over = PassOverMapField(
        required=False, allow_null=True,
        help_text="Crown -> the heirs passed over. Absent or null: the choices the crowns' players recorded "
        "(pass-over endpoint); {} passes nobody over.",
    )  # fmt: skip
    entered = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=-INT_MAX, max_value=INT_MAX), max_length=MAX_DICE),
        max_length=200, required=False, allow_null=True,
        help_text="Typed faces for the succession's rolls, one list per roll in the order they are made (the "
        "Charisma roll, a regent baron's characteristics, ...); absent: the server rolls them.",
    )  # fmt: skip

    class Meta:
        ref_name = "SurvivalFinishRequest"


class SurvivalFinishMadeSerializer(TurnMadeSerializer):
    pass_over = PassOverMapField(help_text="The heirs passed over, per crown.")

    class Meta:
        ref_name = "SurvivalFinishResult"


class SurvivalFinishView(ActionView):
    @extend_schema(
        request=SurvivalFinishIn, responses=SurvivalFinishMadeSerializer, parameters=[IDEMPOTENCY_KEY],
        summary="The GM closes Survival: successions resolved (heirs passed over as decided); now Marriages",
    )  # fmt: skip
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        require_gm(v.role)
        data = SurvivalFinishIn(data=request.data)
        data.is_valid(raise_exception=True)
        wanted = data.validated_data.get("pass_over")
        entered = data.validated_data.get("entered")
        applied: dict[str, list[int]] = {}

        def finish(c: Campaign) -> Campaign:
            chosen = pass_over_choices(c) if wanted is None else wanted
            applied.update({crown: list(dict.fromkeys(ids)) for crown, ids in chosen.items() if ids})
            done = survival_finish(campaign=c, pass_over=applied or None, entered=entered, by=request.user)
            pass_over_clear(done)
            return done

        _, made = act(request, v.campaign, "Finish Survival", finish, dice="entered")
        v.campaign.refresh_from_db()
        body = {**made_data(made), "turn": turn_data(v.campaign, v.is_gm), "pass_over": applied}
        return Response(SurvivalFinishMadeSerializer(body, context=self.out_context()).data)


# --- the succession: the line, what if, passing over ---------------------------------------------


LIMIT_PARAM = OpenApiParameter(
    "limit", OpenApiTypes.INT, description=f"How many heirs to show: {LINE_LIMIT} unless asked, at most {LINE_LIMIT_MAX}."
)


class LineQuery(serializers.Serializer):
    year = serializers.IntegerField(required=False, min_value=-INT_MAX, max_value=INT_MAX)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=LINE_LIMIT_MAX, default=LINE_LIMIT)
    dies = serializers.ListField(child=IdField(), required=False, max_length=50)


class SuccessionView(ActionView):
    api_tag = "succession"

    @extend_schema(
        responses=LineSerializer,
        parameters=[
            OpenApiParameter("year", OpenApiTypes.INT, description="The line as it stood that year (default: now)."),
            LIMIT_PARAM,
        ],
        summary="The line of succession of a crown, with the reasons and what passing each heir over would cost",
    )
    def get(self, request: Request, slug: str, crown: str) -> Response:
        v = self.viewer
        query = LineQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        line = succession_line(campaign=v.campaign, crown=crown, limit=q["limit"], year=q.get("year"))
        context = self.out_context()
        return Response(LineSerializer(line_data(context, line), context=context).data)


class WhatIfView(ActionView):
    api_tag = "succession"

    @extend_schema(
        responses=LineSerializer,
        parameters=[
            OpenApiParameter(
                "dies", OpenApiTypes.INT, many=True, explode=True,
                description="A character taken as dead now (repeat it: ?dies=12&dies=15). Nothing is written.",
            ),
            LIMIT_PARAM,
        ],
        summary="What if these characters died now: the line, who would succeed, the regent, a relative created",
    )  # fmt: skip
    def get(self, request: Request, slug: str, crown: str) -> Response:
        v = self.viewer
        query = LineQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        line = succession_what_if(campaign=v.campaign, crown=crown, dies=q.get("dies", []), limit=q["limit"])
        context = self.out_context()
        return Response(LineSerializer(line_data(context, line), context=context).data)


class PassOverIn(serializers.Serializer):
    heirs = serializers.ListField(
        child=IdField(), max_length=SUCCESSION_LINE_LIMIT * 4, allow_empty=True,
        help_text=f"The heirs to pass over, among the first {SUCCESSION_LINE_LIMIT} of the line ([]: nobody).",
    )  # fmt: skip

    class Meta:
        ref_name = "PassOverRequest"


class PassOverMadeSerializer(serializers.Serializer):
    crown = serializers.CharField()
    passed_over = CharacterRefSerializer(many=True, help_text="Recorded: applied when the GM finishes Survival.")

    class Meta:
        ref_name = "PassOverResult"


class PassOverView(ActionView):
    api_tag = "succession"

    @extend_schema(
        request=PassOverIn, responses=PassOverMadeSerializer, parameters=[IDEMPOTENCY_KEY],
        summary="The crown's player (or the GM) records which heirs of the dead monarch to pass over",
    )  # fmt: skip
    def post(self, request: Request, slug: str, crown: str) -> Response:
        v = self.viewer
        require_actor(v.role)
        require_crown(v.campaign, crown)
        if not v.is_gm:
            require_crown_player(v.role, v.dynasty, crown_player(v.campaign, crown), crown)
        data = PassOverIn(data=request.data)
        data.is_valid(raise_exception=True)
        heirs = data.validated_data["heirs"]
        chosen, _ = act(
            request, v.campaign, f"Succession of {crown}: heirs passed over",
            lambda c: pass_over_choose(campaign=c, crown=crown, heirs=heirs, limit=SUCCESSION_LINE_LIMIT, by=request.user),
        )  # fmt: skip
        people = Character.objects.in_bulk(chosen)
        context = self.out_context()
        body = {"crown": crown, "passed_over": [ref(context, people[pk]) for pk in chosen if pk in people]}
        return Response(PassOverMadeSerializer(body, context=context).data)


# --- undo ----------------------------------------------------------------------------------------


class UndoIn(serializers.Serializer):
    which = serializers.ChoiceField(
        choices=[("step", "The step"), ("turn", "The turn")],
        help_text="step: back to the start of the step last worked on; turn: back to the start of its Births.",
    )

    class Meta:
        ref_name = "UndoRequest"


class UndoneSerializer(serializers.Serializer):
    year = serializers.IntegerField()
    step = serializers.ChoiceField(choices=Step.choices)
    step_label = serializers.CharField()
    opened_by = serializers.CharField(help_text="The action that had opened that step.")

    class Meta:
        ref_name = "Undone"


class UndoMadeSerializer(serializers.Serializer):
    restored = UndoneSerializer(help_text="The checkpoint put back (now consumed).")
    turn = TurnSerializer()

    class Meta:
        ref_name = "UndoResult"


class UndoView(ActionView):
    @extend_schema(
        request=UndoIn, responses=UndoMadeSerializer, parameters=[IDEMPOTENCY_KEY],
        summary="The GM puts back the start of the last step (or turn) played; 409 when there is nothing to undo",
    )  # fmt: skip
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        require_gm(v.role)
        data = UndoIn(data=request.data)
        data.is_valid(raise_exception=True)
        undo = undo_turn if data.validated_data["which"] == "turn" else undo_step
        restored = undo(campaign=v.campaign, key=idempotency_key(request), by=request.user, door="api")
        v.campaign.refresh_from_db()
        body = {
            "restored": {"year": restored.year, "step": restored.step, "step_label": STEP_LABELS[restored.step],
                         "opened_by": restored.label},
            "turn": turn_data(v.campaign, True),
        }  # fmt: skip
        return Response(UndoMadeSerializer(body, context=self.out_context()).data)
