"""The crowns, public to every member (the crown page's data, ``pages/crowns.py``): whose country each
is and who holds it, its union and since when, its monarch and regent now, its Stability (where the
ruleset keeps one), a lost capital and the lasting modifiers it carries; and each crown's history of
Stability changes and revolts (``crown-events``). Two more queries for a page of crowns whatever its
size (the reigns going on, the modifiers in force)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.common import CampaignReadViewSet
from api.filters import FilterSet, IntegerFilter
from api.serializers import LinkField, LinkSerializer, SelfUrlField, link
from dynasties.models import Crown, CrownEvent, CrownEventKind, Modifier, ModifierKind, Reign
from dynasties.services.eu_crowns_view import eu_reign_reader, eu_standings
from dynasties.services.play_registry import play_of


class CrownModifierOut(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=ModifierKind.choices)
    value = serializers.IntegerField()
    reason = serializers.CharField()
    start_year = serializers.IntegerField()
    character = LinkField("characters", source="character_id")

    class Meta:
        ref_name = "CrownModifier"


class EuValuesOut(serializers.Serializer[Any]):
    adm = serializers.IntegerField()
    dip = serializers.IntegerField()
    mil = serializers.IntegerField()

    class Meta:
        ref_name = "EuValues"


class EuModifierOut(serializers.Serializer[Any]):
    modifier = serializers.IntegerField()
    why = serializers.CharField()

    class Meta:
        ref_name = "EuSurvivalModifier"


class EuCrisisTurnOut(serializers.Serializer[Any]):
    year = serializers.IntegerField()
    modifier = serializers.IntegerField(help_text="To the survival roll that turn (0: the crisis's own turn, values halved).")
    what = serializers.CharField()

    class Meta:
        ref_name = "EuCrisisTurn"


class EuMonarchStandingOut(serializers.Serializer[Any]):
    """A crown's monarch as the EU tables count him this turn (``dynasties.services.eu_crowns_view``)."""

    country = serializers.CharField()
    period = serializers.CharField(help_text="The EU period of the current turn (I ... VII).")
    monarch = serializers.IntegerField(allow_null=True, help_text="The monarch's character id (null: the throne is vacant).")
    values = serializers.DictField(child=serializers.IntegerField(), help_text="ADM, DIP, MIL as rolled (or named).")
    values_this_turn = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="As they count this turn: halved in a crisis's first turn, less the minority's penalty.",
    )
    minority = serializers.CharField(help_text="teenager, child, baby, or empty for an adult.")
    can_lead = serializers.BooleanField()
    halved = serializers.BooleanField(help_text="The first turn of a Dynastic Crisis.")
    fragile_health = serializers.BooleanField()
    crisis_year = serializers.IntegerField(allow_null=True)
    crisis_turns = EuCrisisTurnOut(many=True)
    planned_end_year = serializers.IntegerField(allow_null=True, help_text="The rolled reign length's end (null: none).")
    survival_modifiers = EuModifierOut(many=True)
    survival_rolled = serializers.BooleanField(help_text="This turn's survival roll is made.")
    no_survival_until = serializers.IntegerField(allow_null=True, help_text="A named monarch: no survival roll before this year.")
    named = serializers.BooleanField()
    doge = serializers.BooleanField()
    turkey = serializers.BooleanField()
    base_column = serializers.IntegerField()
    leader = serializers.DictField(
        child=serializers.IntegerField(), allow_null=True, help_text="His values as a leader, once rolled."
    )
    prisoner = serializers.CharField(help_text="Who holds him, or empty.")

    class Meta:
        ref_name = "EuMonarchStanding"


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
    eu_monarch = serializers.SerializerMethodField(
        help_text="EU monarch tables: the monarch as they count him this turn (null in another ruleset); his crown's "
        "monarchs are ``monarchs/?crown=<name>``."
    )

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
            "eu_monarch",
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
        return crown.stability if viewer is not None and play_of(viewer.campaign).succession.crown_terms().stability else None

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

    @extend_schema_field(EuMonarchStandingOut(allow_null=True))
    def get_eu_monarch(self, crown: Crown) -> dict[str, Any] | None:
        standings = self.context.get("eu_standings") or {}
        standing = standings.get(crown.name)
        return EuMonarchStandingOut(standing.as_data()).data if standing is not None else None

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
        context["eu_standings"] = eu_standings(campaign)  # the EU monarch tables' (empty otherwise): fixed queries
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


# The EU monarch tables (issue 32): the monarch as the tables count him this turn, and his crown's monarchs.


class MonarchOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    """One monarch of an EU monarchs crown: his reign, his values as rolled (or named), how he came
    and how he went."""

    url = SelfUrlField("monarchs")
    reign = SelfUrlField("reigns", help_text="The same reign in the reigns resource.")
    monarch = LinkField("characters", source="holder_id")
    name = serializers.SerializerMethodField()
    values = serializers.SerializerMethodField(help_text="ADM, DIP, MIL as rolled (or named).")
    age_at_accession = serializers.SerializerMethodField()
    minority = serializers.SerializerMethodField(help_text="The minority stage at accession (empty: an adult).")
    dynastic_crisis = serializers.SerializerMethodField()
    fragile_health = serializers.SerializerMethodField()
    named = serializers.SerializerMethodField()
    doge = serializers.SerializerMethodField()
    leader = serializers.SerializerMethodField()
    ended = serializers.SerializerMethodField(help_text="How the reign ended (empty while it goes on).")

    class Meta:
        model = Reign
        fields = [
            "id",
            "url",
            "reign",
            "crown",
            "monarch",
            "name",
            "start_year",
            "end_year",
            "planned_end_year",
            "values",
            "age_at_accession",
            "minority",
            "dynastic_crisis",
            "fragile_health",
            "named",
            "doge",
            "leader",
            "ended",
        ]
        ref_name = "Monarch"

    def _row(self, reign: Reign) -> Any:
        return self.context["read_monarch"](reign)

    @extend_schema_field(serializers.CharField())
    def get_name(self, reign: Reign) -> str:
        return str(reign.holder.display_name)

    @extend_schema_field(EuValuesOut())
    def get_values(self, reign: Reign) -> dict[str, int]:
        return dict(self._row(reign).values)

    @extend_schema_field(serializers.IntegerField())
    def get_age_at_accession(self, reign: Reign) -> int:
        return int(self._row(reign).age)

    @extend_schema_field(serializers.CharField())
    def get_minority(self, reign: Reign) -> str:
        return str(self._row(reign).minority)

    @extend_schema_field(serializers.BooleanField())
    def get_dynastic_crisis(self, reign: Reign) -> bool:
        return bool(self._row(reign).crisis)

    @extend_schema_field(serializers.BooleanField())
    def get_fragile_health(self, reign: Reign) -> bool:
        return bool(self._row(reign).fragile_health)

    @extend_schema_field(serializers.BooleanField())
    def get_named(self, reign: Reign) -> bool:
        return bool(self._row(reign).named)

    @extend_schema_field(serializers.BooleanField())
    def get_doge(self, reign: Reign) -> bool:
        return bool(self._row(reign).doge)

    @extend_schema_field(serializers.DictField(child=serializers.IntegerField(), allow_null=True))
    def get_leader(self, reign: Reign) -> dict[str, int] | None:
        leader = self._row(reign).leader
        return dict(leader) if leader else None

    @extend_schema_field(serializers.CharField())
    def get_ended(self, reign: Reign) -> str:
        return str(self._row(reign).ended)


class MonarchFilter(FilterSet):
    current = filters.BooleanFilter(field_name="end_year", lookup_expr="isnull", help_text="Only the monarchs reigning now.")

    class Meta:
        model = Reign
        fields = ["crown"]


class MonarchViewSet(CampaignReadViewSet):
    """The EU monarch tables' monarchs, each crown's history (``?crown=France``), oldest first: the
    values each was rolled (or named) with, his age and minority at accession, a Dynastic Crisis,
    Fragile Health, his values as a leader, how his reign ended. Empty in a campaign of another
    ruleset. Four queries for a page, whatever its size."""

    api_tag = "families"
    queryset = Reign.objects.select_related("holder").order_by("crown", "start_year", "pk")
    serializer_class = MonarchOut
    filterset_class = MonarchFilter

    def scope(self, queryset: QuerySet[Reign]) -> QuerySet[Reign]:
        scoped: QuerySet[Reign] = super().scope(queryset)
        return scoped if play_of(self.viewer.campaign).succession.crown_terms().monarch_table else scoped.none()

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        if self.fake or "slug" not in self.kwargs:
            return context
        campaign = self.viewer.campaign
        context["read_monarch"] = eu_reign_reader(campaign) if play_of(campaign).succession.crown_terms().monarch_table else None
        return context
