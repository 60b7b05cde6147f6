"""The chronicle: what happened each year. Lines about money are private to their dynasty and
lines about a contract to its parties (``campaign.permissions.visible``)."""

from __future__ import annotations

from django.db.models import QuerySet
from rest_framework import serializers

from api.common import CampaignReadViewSet
from api.filters import FilterSet, IntegerFilter
from campaign.models import ChronicleEntry


class ChronicleOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = ChronicleEntry
        fields = ["id", "year", "step", "kind", "text", "data"]
        ref_name = "ChronicleEntry"


class ChronicleFilter(FilterSet):
    character = IntegerFilter(method="filter_character", help_text="Lines about this character.")

    class Meta:
        model = ChronicleEntry
        fields = ["year", "step", "kind"]

    def filter_character(self, queryset: QuerySet[ChronicleEntry], name: str, value: int) -> QuerySet[ChronicleEntry]:
        return queryset.filter(data__character=value)


class ChronicleViewSet(CampaignReadViewSet):
    """The chronicle's lines you may see, year by year."""

    api_tag = "chronicle"
    queryset = ChronicleEntry.objects.order_by("year", "pk")
    serializer_class = ChronicleOut
    filterset_class = ChronicleFilter
