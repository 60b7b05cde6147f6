"""Money: the ledger's postings and the exchequers' balances. A player sees his own exchequer
only, an observer none, the GM every exchequer and the Treasury's."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from api.common import CampaignReadViewSet, CampaignScoped
from api.filters import FilterSet, IntegerFilter
from api.serializers import LinkField
from campaign.permissions import can_view_exchequer
from contracts.models import ContractPayment
from contracts.services import unpaid_payments
from dynasties.models import Dynasty, Posting
from dynasties.selectors import exchequers_seen
from dynasties.treasury import TREASURY, balance, currency


class PostingOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    payer = serializers.IntegerField(source="payer_id", allow_null=True, help_text="Empty: the Treasury paid.")
    payee = serializers.IntegerField(source="payee_id", allow_null=True, help_text="Empty: the Treasury received.")
    character = LinkField("characters", source="character_id")
    marriage = LinkField("marriages", source="marriage_id")
    contract = LinkField("contracts", source="contract_link.contract_id")  # the contracts keep it

    class Meta:
        model = Posting
        fields = [
            "id",
            "year",
            "step",
            "payer",
            "payee",
            "amount",
            "kind",
            "reason",
            "character",
            "marriage",
            "contract",
            "reverses",
            "created_at",
        ]
        ref_name = "Posting"


class PostingFilter(FilterSet):
    dynasty = IntegerFilter(method="filter_dynasty", help_text="Postings paid or received by this dynasty.")
    contract = IntegerFilter(field_name="contract_link__contract")

    class Meta:
        model = Posting
        fields = ["year", "step", "kind"]

    def filter_dynasty(self, queryset: QuerySet[Posting], name: str, value: int) -> QuerySet[Posting]:
        return queryset.filter(Q(payer_id=value) | Q(payee_id=value))


class LedgerViewSet(CampaignReadViewSet):
    """The postings of the exchequers you may see, oldest first (a correction is a new posting)."""

    api_tag = "treasury"
    queryset = Posting.objects.select_related("contract_link").order_by("pk")
    serializer_class = PostingOut
    filterset_class = PostingFilter


class BalanceOut(serializers.Serializer[Any]):
    dynasty = serializers.IntegerField(allow_null=True, help_text="Empty: the Treasury (the bank), for the GM.")
    name = serializers.CharField()
    balance = serializers.IntegerField()
    currency = serializers.CharField()
    owes = serializers.IntegerField(
        help_text="What the house owes under contracts and could not pay when due (unpaid payments; not in the balance)."
    )
    owed = serializers.IntegerField(help_text="What the house is owed under contracts and not yet paid (not in the balance).")

    class Meta:
        ref_name = "Balance"


class BalanceViewSet(CampaignScoped, viewsets.ViewSet):
    """What each exchequer you may see holds now (not paginated: one row per exchequer)."""

    api_tag = "treasury"
    serializer_class = BalanceOut
    lookup_value_regex = r"\d+"

    def _row(self, dynasty: Dynasty | None, amount: int, debts: list[ContractPayment]) -> dict[str, Any]:
        name = str(dynasty) if dynasty is not None else TREASURY
        pk = dynasty.pk if dynasty else None
        return {
            "dynasty": pk,
            "name": name,
            "balance": amount,
            "currency": currency(self.viewer.campaign),
            "owes": sum(d.amount for d in debts if d.payer_id == pk),
            "owed": sum(d.amount for d in debts if d.payee_id == pk),
        }

    @extend_schema(responses=BalanceOut(many=True), filters=False)
    def list(self, request: Request, slug: str) -> Response:
        v = self.viewer
        seen = exchequers_seen(v.campaign, request.user)
        houses = [d.pk for d, _ in seen if d is not None]
        # one query: every debt for the GM, a player's own house's (the exchequers he may see)
        debts = unpaid_payments(v.campaign, houses[0] if len(houses) == 1 else None) if houses else []
        rows = [self._row(d, amount, debts) for d, amount in seen]
        return Response(BalanceOut(rows, many=True).data)

    @extend_schema(responses=BalanceOut)
    def retrieve(self, request: Request, slug: str, pk: str) -> Response:
        v = self.viewer
        dynasty = Dynasty.objects.filter(campaign=v.campaign, pk=int(pk)).first()
        if dynasty is None or not can_view_exchequer(request.user, dynasty):
            raise Http404("No such exchequer, or not yours to see.")
        debts = unpaid_payments(v.campaign, dynasty)
        return Response(BalanceOut(self._row(dynasty, balance(v.campaign, dynasty), debts)).data)
