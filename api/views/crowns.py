"""The crowns, public to every member (the crown page's data, ``pages/crowns.py``): whose country each
is and who holds it, its union and since when, its monarch and regent now, its Stability (where the
ruleset keeps one), a lost capital and the lasting modifiers it carries; and each crown's history of
Stability changes and revolts (``crown-events``). Two more queries for a page of crowns whatever its
size (the reigns going on, the modifiers in force)."""

from __future__ import annotations

from typing import Any

from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.common import CampaignReadViewSet
from api.filters import FilterSet, IntegerFilter
from api.serializers import LinkField, LinkSerializer, SelfUrlField, link
from dynasties.models import Crown, CrownEvent, CrownEventKind, Modifier, ModifierKind, Reign


class CrownModifierOut(serializers.Serializer):
    kind = serializers.ChoiceField(choices=ModifierKind.choices)
    value = serializers.IntegerField()
    reason = serializers.CharField()
    start_year = serializers.IntegerField()
    character = LinkField("characters", source="character_id")

    class Meta:
        ref_name = "CrownModifier"


class CrownOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    url = SelfUrlField("crowns")
    home_dynasty = LinkField("dynasties", source="home_dynasty_id", help_text="The house whose country it is.")
    controlled_by = LinkField("dynasties", source="controlled_by_id", help_text="The house that holds it now.")
    annexed = serializers.BooleanField(read_only=True, help_text="Held by another house than its own (a union, a second crown).")
    union_with = LinkField("crowns", source="union_with_id", help_text="The crown it is joined to in a Dynastic Union.")
    stability = serializers.SerializerMethodField(help_text="On the -3..+3 track; null where the ruleset keeps no Stability.")
    reign = serializers.SerializerMethodField(help_text="The reign going on.")
    monarch = serializers.SerializerMethodField()
    regent = serializers.SerializerMethodField(help_text="While the monarch is a minor (Blood Royale).")
    capital_lost_since = serializers.SerializerMethodField(help_text="Blood Royale: the year its capital fell, while it is lost.")
    modifiers = serializers.SerializerMethodField(help_text="The lasting modifiers in force on the crown.")

    class Meta:
        model = Crown
        fields = [
            "id",
            "url",
            "name",
            "home_dynasty",
            "controlled_by",
            "annexed",
            "union_with",
            "union_since",
            "stability",
            "reign",
            "monarch",
            "regent",
            "capital_lost_since",
            "modifiers",
        ]
        ref_name = "Crown"

    def _reign(self, crown: Crown) -> Reign | None:
        reigns: dict[str, Reign] = self.context.get("reigns", {})
        return reigns.get(crown.name)

    def _modifiers(self, crown: Crown) -> list[Modifier]:
        found: dict[str, list[Modifier]] = self.context.get("modifiers", {})
        return found.get(crown.name, [])

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_stability(self, crown: Crown) -> int | None:
        viewer = self.context.get("viewer")
        return crown.stability if viewer is not None and viewer.campaign.rules.europa_crowns else None

    @extend_schema_field(LinkSerializer(allow_null=True))
    def get_reign(self, crown: Crown) -> dict[str, Any] | None:
        reign = self._reign(crown)
        return link(self.context, "reigns", reign.pk if reign else None)

    @extend_schema_field(LinkSerializer(allow_null=True))
    def get_monarch(self, crown: Crown) -> dict[str, Any] | None:
        reign = self._reign(crown)
        return link(self.context, "characters", reign.holder_id if reign else None)

    @extend_schema_field(LinkSerializer(allow_null=True))
    def get_regent(self, crown: Crown) -> dict[str, Any] | None:
        reign = self._reign(crown)
        regent = reign.regent_id if reign is not None and reign.regency_end_year is None else None
        return link(self.context, "characters", regent)

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_capital_lost_since(self, crown: Crown) -> int | None:
        lost = next((m for m in self._modifiers(crown) if m.kind == ModifierKind.CAPITAL_LOST), None)
        return lost.start_year if lost is not None else None

    @extend_schema_field(CrownModifierOut(many=True))
    def get_modifiers(self, crown: Crown) -> list[dict[str, Any]]:
        return CrownModifierOut(self._modifiers(crown), many=True, context=self.context).data  # type: ignore[return-value]


class CrownViewSet(CampaignReadViewSet):
    """The campaign's crowns: who holds each, its union, its monarch and regent, its Stability, a lost
    capital and its lasting modifiers. Their Stability history is ``crown-events``."""

    api_tag = "families"
    queryset = Crown.objects.order_by("name", "pk")
    serializer_class = CrownOut

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        if self.fake or "slug" not in self.kwargs:
            return context
        campaign = self.viewer.campaign
        context["reigns"] = {r.crown: r for r in Reign.objects.filter(campaign=campaign, end_year__isnull=True).order_by("pk")}
        mods: dict[str, list[Modifier]] = {}
        for m in Modifier.objects.filter(campaign=campaign, end_year__isnull=True).exclude(crown="").order_by("start_year", "pk"):
            mods.setdefault(m.crown, []).append(m)
        context["modifiers"] = mods
        return context


class CrownEventOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    url = SelfUrlField("crown-events")
    crown = LinkField("crowns", source="crown_id")
    reign = LinkField("reigns", source="reign_id", help_text="The reign the change belongs to.")

    class Meta:
        model = CrownEvent
        fields = ["id", "url", "crown", "year", "kind", "delta", "stability_after", "reason", "cause", "reign"]
        ref_name = "CrownEvent"


class CrownEventFilter(FilterSet):
    crown = IntegerFilter(field_name="crown_id", help_text="One crown's history (its id).")
    year = IntegerFilter(field_name="year")
    kind = filters.ChoiceFilter(choices=CrownEventKind.choices)

    class Meta:
        model = CrownEvent
        fields = ["cause"]


class CrownEventViewSet(CampaignReadViewSet):
    """Every crown's Stability changes and revolts, oldest first, with their causes (a code, as the
    export's: ``war_lost``, ``minor_monarch``, ``pass_over`` ...) and the reign each belongs to."""

    api_tag = "families"
    queryset = CrownEvent.objects.order_by("year", "pk")
    serializer_class = CrownEventOut
    filterset_class = CrownEventFilter
