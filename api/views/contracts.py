"""Contracts with their clauses, breaches, parleys and votes: the GM sees them all, a player the
contracts his dynasty is party to, an observer none (``campaign.permissions.visible``)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Prefetch, QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.common import CampaignReadViewSet
from api.filters import FilterSet, IntegerFilter
from api.serializers import LinkField, SelfUrlField
from contracts.models import (
    Breach,
    Clause,
    Contract,
    ContractSignature,
    Dispute,
    DisputeTerm,
    DisputeVote,
    Parley,
    ParleyVote,
)
from dynasties.models import Dynasty


class ClauseOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Clause
        fields = ["id", "position", "kind", "params", "text"]
        ref_name = "Clause"


class ParleyVoteOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = ParleyVote
        fields = ["dynasty", "stature", "church_cards", "christian", "votes", "choice", "position", "excluded"]
        ref_name = "ParleyVote"


class ParleyOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    votes = ParleyVoteOut(many=True, read_only=True)

    class Meta:
        model = Parley
        fields = [
            "id",
            "year",
            "step",
            "kind",
            "subject",
            "caller",
            "opponent",
            "area",
            "votes_for",
            "votes_against",
            "carried",
            "outcome",
            "votes",
        ]
        ref_name = "Parley"


class ParleyDecisionOut(ParleyOut):
    """A parley held, with what its decision did (``POST parleys/``)."""

    claim = serializers.SerializerMethodField(help_text="A claim parley that carried: the claim it granted (20.42).")
    obligation = serializers.SerializerMethodField(
        help_text="A contested conquest or inheritance: what its decision made due (20.41, 20.43)."
    )

    class Meta:
        model = Parley
        fields = [
            "id",
            "year",
            "step",
            "kind",
            "subject",
            "caller",
            "opponent",
            "area",
            "votes_for",
            "votes_against",
            "carried",
            "outcome",
            "votes",
            "claim",
            "obligation",
        ]
        ref_name = "ParleyDecision"

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_claim(self, obj: Parley) -> int | None:
        claim = _one(obj, "claim")
        return claim.pk if claim else None

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_obligation(self, obj: Parley) -> int | None:
        due = _one(obj, "obligation")
        return due.pk if due else None


class DisputeTermOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = DisputeTerm
        fields = ["clause", "upheld_by", "rejected_by", "upheld", "enforcement"]
        ref_name = "DisputeTerm"


class DisputeVoteOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = DisputeVote
        fields = ["dynasty", "clause", "upholds"]
        ref_name = "DisputeVote"


class DisputeOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    terms = DisputeTermOut(many=True, read_only=True)
    votes = DisputeVoteOut(many=True, read_only=True)

    class Meta:
        model = Dispute
        fields = ["id", "year", "voters", "outcome", "terms", "votes"]
        ref_name = "Dispute"


def _one(obj: Any, name: str) -> Any:
    try:
        return getattr(obj, name)
    except ObjectDoesNotExist:
        return None


class BreachOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    parley = serializers.SerializerMethodField(help_text="The parley that considered the breach (medieval game 20.44).")
    dispute = serializers.SerializerMethodField(help_text="BloodLine: the other players' ruling, term by term.")

    class Meta:
        model = Breach
        fields = ["id", "clause", "by_dynasty", "raised_by", "year", "text", "resolution", "resolved_year", "parley", "dispute"]
        ref_name = "Breach"

    @extend_schema_field(ParleyOut(allow_null=True))
    def get_parley(self, obj: Breach) -> dict[str, Any] | None:
        parley = _one(obj, "parley")
        return ParleyOut(parley, context=self.context).data if parley else None

    @extend_schema_field(DisputeOut(allow_null=True))
    def get_dispute(self, obj: Breach) -> dict[str, Any] | None:
        dispute = _one(obj, "dispute")
        return DisputeOut(dispute, context=self.context).data if dispute else None


class SignatureOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    """One party's signature (``contracts.services.signatures``): a draft is signed once every party has."""

    signed_by = serializers.SerializerMethodField(help_text="Who recorded it: the house's player or the GM.")

    class Meta:
        model = ContractSignature
        fields = ["dynasty", "year", "signed_by", "created_at"]
        ref_name = "ContractSignature"

    def get_signed_by(self, obj: ContractSignature) -> str | None:
        return obj.signed_by.get_username() if obj.signed_by is not None else None


class ContractOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    url = SelfUrlField("contracts")
    parties = serializers.SerializerMethodField(help_text="The dynasties party to the contract.")
    marriage = LinkField("marriages", source="marriage_id")
    clauses = ClauseOut(many=True, read_only=True)
    signatures = SignatureOut(many=True, read_only=True, help_text="The parties that have signed, in the order they did.")
    breaches = BreachOut(many=True, read_only=True)

    class Meta:
        model = Contract
        fields = [
            "id",
            "url",
            "kind",
            "title",
            "parties",
            "marriage",
            "start_year",
            "term_years",
            "state",
            "signed_year",
            "in_force_year",
            "ended_year",
            "end_kind",
            "end_reason",
            "text",
            "clauses",
            "signatures",
            "breaches",
        ]
        ref_name = "Contract"

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_parties(self, obj: Contract) -> list[int]:
        return sorted(p.pk for p in obj.parties.all())


class ContractFilter(FilterSet):
    party = IntegerFilter(method="filter_party", help_text="Contracts this dynasty is party to.")
    year = IntegerFilter(field_name="start_year", help_text="Contracts drawn up that year.")

    class Meta:
        model = Contract
        fields = ["kind", "state"]

    def filter_party(self, queryset: QuerySet[Contract], name: str, value: int) -> QuerySet[Contract]:
        return queryset.filter(pk__in=Contract.parties.through.objects.filter(dynasty_id=value).values("contract_id"))


class ContractViewSet(CampaignReadViewSet):
    """The contracts you may see: all for the GM, your dynasty's for a player, none for an observer."""

    api_tag = "contracts"
    queryset = Contract.objects.order_by("start_year", "pk").prefetch_related(
        Prefetch("parties", queryset=Dynasty.objects.only("id").order_by("pk")),
        Prefetch("clauses", queryset=Clause.objects.order_by("position", "pk")),
        Prefetch("signatures", queryset=ContractSignature.objects.select_related("signed_by").order_by("pk")),
        Prefetch(
            "breaches",
            queryset=Breach.objects.order_by("year", "pk").prefetch_related(
                "parley",
                Prefetch("parley__votes", queryset=ParleyVote.objects.order_by("position", "pk")),
                "dispute",
                Prefetch("dispute__terms", queryset=DisputeTerm.objects.order_by("clause__position", "clause_id")),
                Prefetch("dispute__votes", queryset=DisputeVote.objects.order_by("clause_id", "dynasty_id")),
            ),
        ),
    )
    serializer_class = ContractOut
    filterset_class = ContractFilter
