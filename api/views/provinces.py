"""The province register (Blood Royale; issue 33), public to every member as the map is on the table:
each province's country, who controls it (a house, or none: Neutral under rule F, or of a country no
player plays), whether it is a Home Province of its controller, its capital and castle, its Resource
Area and its Famine and Rebellion markers. The writes are the table's events (``events/province_*/``,
``events/rebellion_put_down/``, ``events/capital_nominated/``). Two queries a page, whatever its size."""

from __future__ import annotations

from typing import Any

from django_filters import rest_framework as filters
from rest_framework import serializers

from api.common import CampaignReadViewSet
from api.filters import FilterSet, IntegerFilter
from api.serializers import LinkField, SelfUrlField
from dynasties.models import Crown, Dynasty, Province
from rules import provinces as rules


class ProvinceOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    url = SelfUrlField("provinces")
    controlled_by = LinkField("dynasties", source="controlled_by_id", help_text="null: no player.")
    home = serializers.SerializerMethodField(help_text="A Home Province of the house that controls it.")

    class Meta:
        model = Province
        fields = [
            "id",
            "url",
            "name",
            "country",
            "controlled_by",
            "neutral",
            "home",
            "original_capital",
            "capital_of",
            "castle",
            "resource",
            "famine_year",
            "rebellion_year",
        ]
        ref_name = "Province"

    def get_home(self, obj: Province) -> bool:
        countries: dict[int, set[str]] = self.context.get("countries", {})
        return obj.controlled_by_id is not None and rules.is_home(obj.country, countries.get(obj.controlled_by_id, set()))


class ProvinceFilter(FilterSet):
    controlled_by = IntegerFilter(field_name="controlled_by_id", help_text="One house's provinces (its id).")
    country = filters.CharFilter(field_name="country")

    class Meta:
        model = Province
        fields = ["neutral"]


class ProvinceViewSet(CampaignReadViewSet):
    """The province register: control, capitals, Resource Areas, Famine and Rebellion markers."""

    api_tag = "families"
    queryset = Province.objects.order_by("country", "name", "pk")
    serializer_class = ProvinceOut
    filterset_class = ProvinceFilter

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        if self.fake or "slug" not in self.kwargs:
            return context
        campaign = self.viewer.campaign
        countries: dict[int, set[str]] = {}
        for pk, crown in Dynasty.objects.filter(campaign=campaign).exclude(crown="").values_list("pk", "crown"):
            countries.setdefault(pk, set()).add(crown)
        ruled = Crown.objects.filter(campaign=campaign, controlled_by__isnull=False).values_list("name", "controlled_by_id")
        for name, pk in ruled:
            countries.setdefault(pk, set()).add(name)
        context["countries"] = countries
        return context
