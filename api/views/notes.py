"""Notes (issue 20): the public note, its player's and the GM's on a character, a dynasty or the
campaign, as the pages show them (``html``: stored when the note was written, issue 30). Read
through the policy (``campaign.permissions.visible``: ``note_filter``); written through the pages'
service (``dynasties.services.notes.note_write``), which asks the policy who may write. A note is
not a move of the game: it is written outside the step's undo checkpoint, as on the pages
(docs/rulings.md, "Notes and portraits")."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response

from api.common import CampaignReadViewSet
from api.filters import INT_MAX, FilterSet, IntegerFilter
from dynasties.models import Character, Dynasty, Note, NoteAudience
from dynasties.notes import MAX_LENGTH
from dynasties.services.notes import note_write
from rules.errors import NotFound

SUBJECTS = [("campaign", "campaign"), ("character", "character"), ("dynasty", "dynasty")]


class NoteOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    subject = serializers.SerializerMethodField(help_text="What the note is about: campaign, character or dynasty.")

    class Meta:
        model = Note
        fields = ["id", "subject", "character", "dynasty", "audience", "text", "html"]
        extra_kwargs = {
            "text": {"help_text": "The note as written, in Markdown."},
            "html": {"help_text": "The Markdown rendered and sanitized (no script, no event attribute) when it was written."},
        }
        ref_name = "Note"

    @extend_schema_field(serializers.ChoiceField(choices=SUBJECTS))
    def get_subject(self, note: Note) -> str:
        return "character" if note.character_id else "dynasty" if note.dynasty_id else "campaign"


class NoteFilter(FilterSet):
    subject = filters.ChoiceFilter(choices=SUBJECTS, method="filter_subject", help_text="campaign, character or dynasty.")
    character = IntegerFilter(field_name="character", help_text="The notes on this character.")
    dynasty = IntegerFilter(field_name="dynasty", help_text="The notes on this dynasty.")

    class Meta:
        model = Note
        fields = ["audience"]

    def filter_subject(self, queryset: QuerySet[Note], name: str, value: str) -> QuerySet[Note]:
        if value == "character":
            return queryset.filter(character__isnull=False)
        if value == "dynasty":
            return queryset.filter(dynasty__isnull=False)
        return queryset.filter(character__isnull=True, dynasty__isnull=True)


class NoteIn(serializers.Serializer):  # type: ignore[type-arg]
    character = serializers.IntegerField(
        min_value=1, max_value=INT_MAX, required=False, allow_null=True, help_text="The character the note is on."
    )
    dynasty = serializers.IntegerField(
        min_value=1, max_value=INT_MAX, required=False, allow_null=True, help_text="Or the dynasty (neither: the campaign)."
    )
    audience = serializers.ChoiceField(
        choices=NoteAudience.choices, help_text="public (every member), player (its house's players and the GM) or gm."
    )
    text = serializers.CharField(
        allow_blank=True, max_length=MAX_LENGTH, trim_whitespace=False, help_text="Markdown; empty clears the note."
    )

    class Meta:
        ref_name = "NoteWrite"

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("character") is not None and attrs.get("dynasty") is not None:
            raise serializers.ValidationError({"dynasty": "A note is on one character, one dynasty or the campaign: not both."})
        return attrs


class NoteViewSet(CampaignReadViewSet):
    """The notes you may read (the GM: all of them; a player: the public ones, every player note of
    the campaign and those of his own house and its people; an observer: the public ones)."""

    api_tag = "notes"
    queryset = Note.objects.order_by("pk")
    serializer_class = NoteOut
    filterset_class = NoteFilter
    parser_classes = [JSONParser]

    @extend_schema(
        request=NoteIn,
        responses={200: NoteOut},  # a subject has one note an audience: writing replaces it (200, not 201)
        summary="Write a note (empty text clears it): the GM any note, a player the player note on his own house "
        "and on the people it controls",
    )
    def create(self, request: Request, slug: str) -> Response:
        data = NoteIn(data=request.data)
        data.is_valid(raise_exception=True)
        found = data.validated_data
        campaign = self.viewer.campaign
        character = dynasty = None
        if found.get("character") is not None:
            character = Character.objects.filter(campaign=campaign, pk=found["character"]).first()
            if character is None:
                raise NotFound("No such character in this campaign.", code="not_found", fields={"character": "not found"})
        if found.get("dynasty") is not None:
            dynasty = Dynasty.objects.filter(campaign=campaign, pk=found["dynasty"]).first()
            if dynasty is None:
                raise NotFound("No such dynasty in this campaign.", code="not_found", fields={"dynasty": "not found"})
        note = note_write(  # who may write it, the service asks the policy
            campaign, audience=found["audience"], text=found["text"], character=character, dynasty=dynasty, by=request.user
        )
        return Response(NoteOut(note, context=self.get_serializer_context()).data)
