"""Actions of the Marriages step and the Announcements (issue 8).

Who acts (as ``pages/marriages.py``): either side's player (his house controls the groom or the
bride) or the GM records a match agreed at the table, weds a betrothed couple or breaks the
betrothal off; the GM closes the step, publishes the announcements and starts the next turn; an
observer reads. Legality is the services' (``match_problems``, ``marriage_arrange``); the money a
wedding posts is shown only to whom may see the payer's or the payee's exchequer (the GM, or the
house paying or paid: ``campaign.permissions``). The announcements of a year are the public
entry plus the chronicle lines the caller may see."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.filters import INT_MAX
from api.schema import IDEMPOTENCY_KEY
from api.views.actions import ActionView, IdField, Made, MadeSerializer, act, made_data
from api.views.chronicle import ChronicleOut
from api.views.families import MarriageOut
from api.views.sequence.turn import TurnMadeSerializer, turn_data
from api.views.treasury import PostingOut
from campaign.models import Campaign, ChronicleEntry
from campaign.permissions import require, sees_money, visible
from dynasties.models import Character, Dynasty, Marriage, Posting
from dynasties.printing import announcement_sections
from dynasties.services.announcements import announcements_make, turn_advance
from dynasties.services.marriages import (
    WeddingMoney,
    marriage_arrange,
    marriage_cancel,
    marriage_wed,
    marriages_finish,
    match_problems,
    wedding_money,
    wedding_step,
)
from dynasties.treasury import currency
from rules.errors import IllegalMarriage, NotFound
from rules.families import HUSBAND, TERMS, WIFE, problem_about

# --- who sees and does what ------------------------------------------------------------------


def field_of(problem: str) -> str:
    """Which input a legality problem is about (the groom's, the bride's, the terms, or the pair)."""
    return {HUSBAND: "husband", WIFE: "wife", TERMS: "dowry"}.get(problem_about(problem), "non_field")


def problem_fields(problems: list[str]) -> dict[str, str]:
    fields: dict[str, list[str]] = {}
    for problem in problems:
        fields.setdefault(field_of(problem), []).append(problem)
    return {name: " ".join(texts) for name, texts in fields.items()}


class MoneySerializer(serializers.Serializer[Any]):
    payer = serializers.IntegerField(allow_null=True, help_text="Null: the Treasury pays.")
    payee = serializers.IntegerField(allow_null=True, help_text="Null: the Treasury is paid.")
    payer_name = serializers.CharField()
    payee_name = serializers.CharField()
    amount = serializers.IntegerField()
    currency = serializers.CharField()
    kind = serializers.CharField()
    reason = serializers.CharField()

    class Meta:
        ref_name = "WeddingMoney"


def _house(d: Dynasty | None) -> str:
    return f"the house of {d.name}" if d is not None else "the Treasury"


def money_lines(campaign: Campaign, role: str, mine: int | None, lines: list[WeddingMoney]) -> list[dict[str, Any]]:
    unit = currency(campaign)
    return [
        {
            "payer": x.payer.pk if x.payer else None,
            "payee": x.payee.pk if x.payee else None,
            "payer_name": _house(x.payer),
            "payee_name": _house(x.payee),
            "amount": x.amount,
            "currency": unit,
            "kind": x.kind,
            "reason": x.reason,
        }
        for x in lines
        if sees_money(role, mine, x.payer.pk if x.payer else None, x.payee.pk if x.payee else None)
    ]


def wedding_postings(user: Any, campaign: Campaign, match: Marriage) -> list[Posting]:
    """The postings of the match's wedding (and its contract) the caller may see."""
    rows = Posting.objects.filter(Q(marriage_id=match.pk) | Q(contract_link__contract__marriage_id=match.pk))
    return list(visible(user, campaign, rows).select_related("contract_link").order_by("pk"))


# --- the match ---------------------------------------------------------------------------------


class MatchIn(serializers.Serializer[Any]):
    husband = IdField(help_text="The groom.")
    wife = IdField(help_text="The bride.")
    wed = serializers.BooleanField(default=False, help_text="Wed now (in the wedding step, both 15 or older); else a betrothal.")
    husband_joins_wife = serializers.BooleanField(
        default=False, help_text="He joins her house (their children are raised in it)."
    )
    children_raised_by = IdField(
        required=False, allow_null=True, help_text="The dynasty raising the children, if the contract says."
    )
    dowry = serializers.CharField(
        max_length=120,
        required=False,
        allow_blank=True,
        default="",
        help_text="BloodLine: '100 ducats' or 'province: <name>' (a match of a monarch or a monarch's child).",
    )
    alliance_title = serializers.CharField(
        max_length=120, required=False, allow_blank=True, default="", help_text="BloodLine: the title for the giving dynasty."
    )

    class Meta:
        ref_name = "MatchRequest"


class CheckSerializer(serializers.Serializer[Any]):
    ok = serializers.BooleanField(help_text="Nothing forbids the match (or the wedding) now.")
    wed = serializers.BooleanField()
    problems = serializers.ListField(
        child=serializers.CharField(), help_text="Everything that forbids it, as the services would refuse it."
    )
    fields = serializers.DictField(child=serializers.CharField(), help_text="The problems by the input they are about.")  # type: ignore[assignment]  # a declared field "fields", not the base class's
    wedding_step = serializers.CharField(help_text="The step in which weddings are held (marriages, or interphase in BloodLine).")
    wedding_open = serializers.BooleanField(help_text="The campaign is at the wedding step now.")
    wedding_money = MoneySerializer(many=True, help_text="What the wedding would post now, as far as you may see it.")

    class Meta:
        ref_name = "MatchCheck"


def _match(view: ActionView, data: dict[str, Any]) -> Marriage:
    """The pair as an unsaved match (404 for an unknown character, 403 if neither side is the caller's)."""
    v = view.viewer
    people = Character.objects.select_related("controlled_by", "birth_dynasty").in_bulk([data["husband"], data["wife"]])
    for role in ("husband", "wife"):
        if data[role] not in people or people[data[role]].campaign_id != v.campaign.pk:
            raise NotFound(f"There is no character #{data[role]} in this campaign.", fields={role: "not_found"})
    groom, bride = people[data["husband"]], people[data["wife"]]
    require(view.request.user, v.campaign, "couple", houses=(groom.controlled_by_id, bride.controlled_by_id))
    raised = data.get("children_raised_by")
    return Marriage(
        campaign=v.campaign,
        husband=groom,
        wife=bride,
        arranged_year=v.campaign.current_year,
        husband_joins_wife=data["husband_joins_wife"],
        dowry=data["dowry"].strip(),
        alliance_title=data["alliance_title"].strip(),
        children_raised_by_id=raised,
    )


class MarriageCheckView(ActionView):
    api_tag = "marriages"

    @extend_schema(
        request=MatchIn,
        responses=CheckSerializer,
        summary="Check a match before making it: what forbids it, and the wedding money (nothing is written)",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = MatchIn(data=request.data)
        data.is_valid(raise_exception=True)
        match = _match(self, data.validated_data)
        wed = data.validated_data["wed"]
        problems = match_problems(v.campaign, [match], wedding=wed)[0]
        money = wedding_money(v.campaign, [match])[0]
        body = {
            "ok": not problems,
            "wed": wed,
            "problems": problems,
            "fields": problem_fields(problems),
            "wedding_step": wedding_step(v.campaign),
            "wedding_open": v.campaign.step == wedding_step(v.campaign),
            "wedding_money": money_lines(v.campaign, v.role, v.dynasty, money),
        }
        return Response(CheckSerializer(body).data)


class MatchMadeSerializer(MadeSerializer):
    marriage = MarriageOut()
    postings = PostingOut(many=True, help_text="What the wedding posted, as far as you may see it.")
    wedding_money = MoneySerializer(
        many=True, help_text="A betrothal: what its wedding would post if held now, as far as you may see it."
    )
    problems_to_wed = serializers.ListField(child=serializers.CharField(), help_text="A betrothal: what forbids the wedding now.")

    class Meta:
        ref_name = "MatchResult"


def _match_body(view: ActionView, match: Marriage, made: Made) -> dict[str, Any]:
    v = view.viewer
    match = Marriage.objects.select_related(
        "husband__controlled_by", "husband__birth_dynasty", "wife__controlled_by", "wife__birth_dynasty"
    ).get(pk=match.pk)
    betrothed = match.wedding_year is None and match.ended_year is None
    return {
        **made_data(made),
        "marriage": match,
        "postings": wedding_postings(view.request.user, v.campaign, match),
        "wedding_money": money_lines(v.campaign, v.role, v.dynasty, wedding_money(v.campaign, [match])[0]) if betrothed else [],
        "problems_to_wed": match_problems(v.campaign, [match], wedding=True)[0] if betrothed else [],
    }


class ArrangeView(ActionView):
    api_tag = "marriages"

    @extend_schema(
        request=MatchIn,
        responses={201: MatchMadeSerializer},
        parameters=[IDEMPOTENCY_KEY],
        summary="Arrange a match (a betrothal), or wed at once in the wedding step",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = MatchIn(data=request.data)
        data.is_valid(raise_exception=True)
        match = _match(self, data.validated_data)
        wed = data.validated_data["wed"]
        problems = match_problems(v.campaign, [match], wedding=wed)[0]
        if problems:
            raise IllegalMarriage(" ".join(problems), fields=problem_fields(problems))
        groom, bride = match.husband, match.wife
        what = "Wedding" if wed else "Betrothal"
        made_match, made = act(
            request,
            v.campaign,
            f"{what} of {groom.display_name} and {bride.display_name}",
            lambda c: marriage_arrange(
                campaign=c,
                husband=groom.pk,
                wife=bride.pk,
                wed=wed,
                husband_joins_wife=match.husband_joins_wife,
                children_raised_by=match.children_raised_by_id,
                dowry=match.dowry,
                alliance_title=match.alliance_title,
                by=request.user,
            ),
        )
        body = _match_body(self, made_match, made)
        return Response(MatchMadeSerializer(body, context=self.out_context()).data, status=status.HTTP_201_CREATED)


def _betrothal(view: ActionView, pk: int) -> Marriage:
    v = view.viewer
    match = Marriage.objects.select_related("husband", "wife").filter(campaign=v.campaign, pk=pk).first()
    if match is None:
        raise NotFound(f"There is no marriage #{pk} in this campaign.")
    return match  # who may wed or break it off: the services ask the policy ("couple")


class WedView(ActionView):
    api_tag = "marriages"

    @extend_schema(
        request=None,
        responses=MatchMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="Wed a betrothed couple (in the wedding step, both 15 or older): control passes, the money is posted",
    )
    def post(self, request: Request, slug: str, marriage: int) -> Response:
        v = self.viewer
        match = _betrothal(self, marriage)
        couple = f"{match.husband.display_name} and {match.wife.display_name}"
        done, made = act(
            request, v.campaign, f"Wedding of {couple}", lambda c: marriage_wed(campaign=c, marriage=match.pk, by=request.user)
        )
        return Response(MatchMadeSerializer(_match_body(self, done, made), context=self.out_context()).data)


class CancelIn(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=100, help_text="Why the betrothal is broken off.")

    class Meta:
        ref_name = "BetrothalCancelRequest"


class CancelView(ActionView):
    api_tag = "marriages"

    @extend_schema(
        request=CancelIn,
        responses=MatchMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="Break off a betrothal (a wedded marriage ends only by death)",
    )
    def post(self, request: Request, slug: str, marriage: int) -> Response:
        v = self.viewer
        match = _betrothal(self, marriage)
        data = CancelIn(data=request.data)
        data.is_valid(raise_exception=True)
        reason = data.validated_data["reason"]
        couple = f"{match.husband.display_name} and {match.wife.display_name}"
        done, made = act(
            request,
            v.campaign,
            f"Betrothal of {couple} broken off",
            lambda c: marriage_cancel(campaign=c, marriage=match.pk, reason=reason, by=request.user),
        )
        return Response(MatchMadeSerializer(_match_body(self, done, made), context=self.out_context()).data)


class MarriagesFinishView(ActionView):
    api_tag = "marriages"

    @extend_schema(
        request=None,
        responses=TurnMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM closes the Marriages step; the announcements come next",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        _, made = act(request, v.campaign, "Finish Marriages", lambda c: marriages_finish(campaign=c, by=request.user))
        v.campaign.refresh_from_db()
        body = {**made_data(made), "turn": turn_data(v.campaign, request.user)}
        return Response(TurnMadeSerializer(body, context=self.out_context()).data)


# --- the announcements ---------------------------------------------------------------------------


class SectionSerializer(serializers.Serializer[Any]):
    title = serializers.CharField()
    lines = serializers.ListField(child=serializers.CharField())

    class Meta:
        ref_name = "AnnouncementSection"


class AnnouncementsSerializer(serializers.Serializer[Any]):
    year = serializers.IntegerField()
    published = serializers.BooleanField(help_text="The GM has published the announcements of that year.")
    sections = SectionSerializer(many=True, help_text="The public announcements (money and contracts are never in them).")
    lines = ChronicleOut(many=True, help_text="The year's chronicle lines you may see (yours private ones included).")

    class Meta:
        ref_name = "Announcements"


class AnnouncementsQuery(serializers.Serializer[Any]):
    year = serializers.IntegerField(required=False, min_value=-INT_MAX, max_value=INT_MAX)


def announcements_data(user: Any, campaign: Campaign, year: int) -> dict[str, Any]:
    lines = visible(user, campaign, ChronicleEntry.objects.filter(year=year).exclude(kind="announcements")).order_by("pk")
    return {
        "year": year,
        "published": ChronicleEntry.objects.filter(campaign=campaign, year=year, kind="announcements").exists(),
        "sections": [{"title": title, "lines": texts} for title, texts in announcement_sections(campaign, year)],
        "lines": list(lines),
    }


class AnnouncementsView(ActionView):
    api_tag = "marriages"

    @extend_schema(
        responses=AnnouncementsSerializer,
        parameters=[OpenApiParameter("year", OpenApiTypes.INT, description="The year (default: the current one).")],
        summary="A year's announcements: the public entry and the chronicle lines you may see",
    )
    def get(self, request: Request, slug: str) -> Response:
        v = self.viewer
        query = AnnouncementsQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        year = query.validated_data.get("year", v.campaign.current_year)
        if not v.campaign.start_year <= year <= v.campaign.current_year:
            raise NotFound(
                f"No announcements for {year}: the campaign runs from {v.campaign.start_year} to {v.campaign.current_year}.",
                fields={"year": "not_found"},
            )
        body = announcements_data(request.user, v.campaign, year)
        return Response(AnnouncementsSerializer(body, context=self.out_context()).data)


class PublishMadeSerializer(TurnMadeSerializer):
    announcements = AnnouncementsSerializer()

    class Meta:
        ref_name = "PublishResult"


class PublishView(ActionView):
    api_tag = "marriages"

    @extend_schema(
        request=None,
        responses=PublishMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM publishes the announcements (widows return, Prince pieces, ...); then the Interphase",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        _, made = act(request, v.campaign, "Publish the announcements", lambda c: announcements_make(campaign=c, by=request.user))
        v.campaign.refresh_from_db()
        body = {
            **made_data(made),
            "turn": turn_data(v.campaign, request.user),
            "announcements": announcements_data(request.user, v.campaign, v.campaign.current_year),
        }
        return Response(PublishMadeSerializer(body, context=self.out_context()).data)


class AdvanceIn(serializers.Serializer[Any]):
    to_year = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=-INT_MAX,
        max_value=INT_MAX,
        help_text="BloodLine: the year of the next turn (the characters age by the difference). Blood Royale: "
        "absent, or the current year plus the turn's length.",
    )

    class Meta:
        ref_name = "TurnAdvanceRequest"


class AdvanceView(ActionView):
    @extend_schema(
        request=AdvanceIn,
        responses=TurnMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM starts the next turn (at its Births)",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = AdvanceIn(data=request.data)
        data.is_valid(raise_exception=True)
        to_year = data.validated_data.get("to_year")
        _, made = act(
            request, v.campaign, "Start the next turn", lambda c: turn_advance(campaign=c, to_year=to_year, by=request.user)
        )
        v.campaign.refresh_from_db()
        body = {**made_data(made), "turn": turn_data(v.campaign, request.user)}
        return Response(TurnMadeSerializer(body, context=self.out_context()).data)
