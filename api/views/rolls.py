"""The roll log: every die rolled or typed in, public to the campaign's members."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.common import CampaignReadViewSet
from api.filters import FilterSet, IntegerFilter
from api.serializers import LinkField, LinkSerializer, SelfUrlField, link
from campaign.models import Roll
from dynasties.models import RollSubject


class RollOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    url = SelfUrlField("rolls")
    total = serializers.IntegerField(help_text="Faces plus modifier.")
    faces = serializers.ListField(child=serializers.IntegerField())
    entered_by = serializers.SerializerMethodField(help_text="Who typed the dice in (empty: the server rolled).")
    characters = serializers.SerializerMethodField(help_text="The characters the roll was for, in order.")
    corrects = LinkField(
        "rolls", source="corrects_id", help_text="The roll this one corrects (the GM changed its faces): that one was wrong."
    )

    class Meta:
        model = Roll
        fields = [
            "id",
            "url",
            "year",
            "step",
            "purpose",
            "detail",
            "dice",
            "faces",
            "modifier",
            "total",
            "target",
            "outcome",
            "source",
            "entered_by",
            "created_at",
            "characters",
            "corrects",
        ]
        ref_name = "Roll"

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_entered_by(self, obj: Roll) -> str | None:
        return obj.entered_by.get_username() if obj.entered_by is not None else None

    @extend_schema_field(LinkSerializer(many=True))
    def get_characters(self, obj: Roll) -> list[dict[str, object] | None]:
        return [link(self.context, "characters", s.character_id) for s in obj.subjects.all()]


class RollFilter(FilterSet):
    character = IntegerFilter(method="filter_character", help_text="Rolls for this character.")
    dynasty = IntegerFilter(method="filter_dynasty", help_text="Rolls for a character controlled by this dynasty.")

    class Meta:
        model = Roll
        fields = ["year", "step", "purpose", "source"]

    def filter_character(self, queryset: QuerySet[Roll], name: str, value: int) -> QuerySet[Roll]:
        return queryset.filter(pk__in=RollSubject.objects.filter(character_id=value).values("roll_id"))

    def filter_dynasty(self, queryset: QuerySet[Roll], name: str, value: int) -> QuerySet[Roll]:
        return queryset.filter(pk__in=RollSubject.objects.filter(character__controlled_by_id=value).values("roll_id"))


class RollViewSet(CampaignReadViewSet):
    """Every roll of the dice, oldest first: purpose, dice, faces, modifier, target, outcome, and
    whether the server rolled it or the table typed it in."""

    api_tag = "rolls"
    queryset = (
        Roll.objects.order_by("pk")
        .select_related("entered_by")
        .prefetch_related(
            Prefetch(
                "subjects",
                queryset=RollSubject.objects.only("id", "roll_id", "character_id", "position").order_by("position", "pk"),
            )
        )
    )
    serializer_class = RollOut
    filterset_class = RollFilter
