"""Diplomacy's consequences (the medieval game 20-22): the claims register (public at the table, as the
board shows claims) and what parley decisions made due; record, exchange and renounce claims, comply
with or refuse a decision."""

from __future__ import annotations

from typing import Any

from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.common import CampaignReadViewSet, visible_or_404
from api.filters import FilterSet, IntegerFilter
from api.schema import IDEMPOTENCY_KEY
from api.views.contract_actions import ID, ActionView, _act
from campaign.models import Campaign
from contracts import services
from contracts.models import Claim, Obligation, ObligationState

MAX_GIVEN = 50


class ClaimOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Claim
        fields = ["id", "dynasty", "area", "since_year", "how", "parley", "came_from", "ended_year", "end", "note"]
        ref_name = "Claim"


class ObligationOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Obligation
        fields = ["id", "parley", "obliged", "owed_to", "area", "action", "due_year", "state", "resolved_year", "excommunication"]
        ref_name = "Obligation"


class ClaimFilter(FilterSet):
    dynasty = IntegerFilter(field_name="dynasty_id", help_text="One house's claims (its id).")
    held = filters.BooleanFilter(field_name="ended_year", lookup_expr="isnull", help_text="true: held now; false: ended.")

    class Meta:
        model = Claim
        fields = ["how"]


class ClaimViewSet(CampaignReadViewSet):
    """Every house's claims to areas, oldest first: how each came (a claim parley, an exchange, the
    GM's record of the board) and, when it ended, how (given away, renounced). Public at the table."""

    api_tag = "contracts"
    queryset = Claim.objects.order_by("since_year", "pk")
    serializer_class = ClaimOut
    filterset_class = ClaimFilter


class ObligationFilter(FilterSet):
    dynasty = IntegerFilter(field_name="obliged_id", help_text="What one house is obliged to do (its id).")
    state = filters.ChoiceFilter(choices=ObligationState.choices)

    class Meta:
        model = Obligation
        fields: list[str] = []


class ObligationViewSet(CampaignReadViewSet):
    """What parley decisions made due (20.41, 20.43): the loser returns or relinquishes the area, or
    is excommunicated (refused, or flouted: still open at the next turn's advance)."""

    api_tag = "contracts"
    queryset = Obligation.objects.order_by("due_year", "pk")
    serializer_class = ObligationOut
    filterset_class = ObligationFilter


class ClaimRecordIn(serializers.Serializer[Any]):
    dynasty = serializers.IntegerField(help_text="The house holding the claim.", **ID)
    area = serializers.CharField(max_length=100, help_text="The area as the board names it.")
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)

    class Meta:
        ref_name = "ClaimRecord"


class ClaimRecordView(ActionView):
    @extend_schema(
        summary="Record a claim from the board (GM)",
        description="A claim the board shows (made before the register was kept, or by a diplomacy endeavour).",
        request=ClaimRecordIn,
        responses={201: ClaimOut},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = ClaimRecordIn(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data

        def run(c: Campaign) -> Any:
            return services.area_claim_record(campaign=c, dynasty=d["dynasty"], area=d["area"], note=d["note"], by=request.user)

        claim = _act(request, v.campaign, "Record a claim", run)
        return Response(ClaimOut(claim).data, status=status.HTTP_201_CREATED)


class ClaimExchangeIn(serializers.Serializer[Any]):
    first = serializers.IntegerField(help_text="One house.", **ID)
    second = serializers.IntegerField(help_text="The other house.", **ID)
    first_gives = serializers.ListField(
        child=serializers.IntegerField(**ID), required=False, default=list, max_length=MAX_GIVEN, help_text="Its claims."
    )
    second_gives = serializers.ListField(
        child=serializers.IntegerField(**ID), required=False, default=list, max_length=MAX_GIVEN, help_text="Its claims."
    )
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)

    class Meta:
        ref_name = "ClaimExchange"


class ClaimExchangeView(ActionView):
    @extend_schema(
        summary="Record an exchange of claims (GM)",
        description=(
            '"Players may freely exchange existing claims to areas" (20.1): each claim one house gives passes to '
            "the other (one side may give nothing). The GM records what both agreed at the table."
        ),
        request=ClaimExchangeIn,
        responses={201: ClaimOut(many=True)},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = ClaimExchangeIn(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data

        def run(c: Campaign) -> Any:
            return services.area_claim_exchange(
                campaign=c,
                first=d["first"],
                second=d["second"],
                first_gives=d["first_gives"],
                second_gives=d["second_gives"],
                note=d["note"],
                by=request.user,
            )

        made = _act(request, v.campaign, "Exchange claims", run)
        return Response(ClaimOut(made, many=True).data, status=status.HTTP_201_CREATED)


class ClaimRenounceView(ActionView):
    @extend_schema(
        summary="Renounce a claim",
        description="The house's player, or the GM for it.",
        request=None,
        responses={200: ClaimOut},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        v = self.viewer
        claim = visible_or_404(request, v.campaign, Claim.objects.all(), pk=pk)
        pk = claim.pk
        done = _act(
            request, v.campaign, "Renounce a claim", lambda c: services.area_claim_renounce(campaign=c, claim=pk, by=request.user)
        )
        return Response(ClaimOut(done).data)


class ObligationResolveIn(serializers.Serializer[Any]):
    complied = serializers.BooleanField(help_text="true: the area returned or relinquished; false: refused (excommunicated).")

    class Meta:
        ref_name = "ObligationResolve"


class ObligationResolveView(ActionView):
    @extend_schema(
        summary="Comply with or refuse a parley's decision",
        description=(
            "The obliged house returns (a conquest) or relinquishes (an inheritance) the area, or refuses and is "
            "excommunicated (20.41, 20.43, 22.1). Its player or the GM. One still open at the next turn's advance "
            "is flouted: excommunicated."
        ),
        request=ObligationResolveIn,
        responses={200: ObligationOut},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        v = self.viewer
        data = ObligationResolveIn(data=request.data)
        data.is_valid(raise_exception=True)
        due = visible_or_404(request, v.campaign, Obligation.objects.all(), pk=pk)
        complied = data.validated_data["complied"]
        done = _act(
            request,
            v.campaign,
            "Resolve a parley's decision",
            lambda c: services.obligation_resolve(campaign=c, obligation=due.pk, complied=complied, by=request.user),
        )
        return Response(ObligationOut(done).data)
