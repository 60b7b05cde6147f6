"""Titles at the table. BloodLine (RULES.md B, Titles and Dynastic Crisis): at a holder's death the
giving house takes the title back or the holder's player chooses the heir; in a Dynastic Crisis the
holder's player claims the dead line's provinces or gives the title up. Blood Royale (rule G): the
King disputes this turn's inheritance of a title and names its holder (the GM enters it). The
services check who may act (``dynasties.services.bloodline_titles``, ``dynasties.services.titles``);
each answer is the title and the chronicle lines the action wrote that the caller may see. A title's line
of succession is public record, as the title is (``titles/{id}/line/``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.schema import IDEMPOTENCY_KEY
from api.views.actions import ActionView, IdField, MadeSerializer, act, made_data
from api.views.families import TitleOut
from api.views.sequence.lines import LineSerializer, line_data
from api.views.sequence.succession import LIMIT_PARAM, LineQuery
from campaign.models import Campaign
from dynasties.models import Title
from dynasties.services.bloodline_titles import crisis_claim, crisis_claim_waive, title_bequeath, title_reclaim
from dynasties.services.succession_view import title_succession_line
from dynasties.services.titles import title_dispute


class TitleMadeSerializer(MadeSerializer):
    title = TitleOut(help_text="The title as it stands after the action.")

    class Meta:
        ref_name = "TitleActionResult"


class BequeathIn(serializers.Serializer[Any]):
    heir = IdField(help_text="The living descendant of the late holder who inherits the title.")

    class Meta:
        ref_name = "TitleBequeathRequest"


class DisputeIn(serializers.Serializer[Any]):
    holder = IdField(
        help_text="Whom the King names to hold the title: one of the late holder's other heirs, or a Prince his "
        "player could create Governor (the title's `dispute` choices on the Titles page; a 400 lists them)."
    )

    class Meta:
        ref_name = "TitleDisputeRequest"


class CrisisClaimIn(serializers.Serializer[Any]):
    provinces = serializers.ListField(
        child=serializers.CharField(max_length=80),
        max_length=50,
        allow_empty=True,
        help_text="The provinces of the title taken ([] for a deal of other goods, with its terms).",
    )
    terms = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        default="",
        help_text="A deal negotiated instead (e.g. a colony rather than a province of the title).",
    )

    class Meta:
        ref_name = "CrisisClaimRequest"


class _TitleAction(ActionView):
    api_tag = "titles"

    def _answer(self, request: Request, label: str, call: Callable[[Campaign], Any], pk: int) -> Response:
        v = self.viewer  # who may act on the title: the services ask the policy
        _, made = act(request, v.campaign, label, call)
        body = {**made_data(made), "title": Title.objects.get(pk=pk)}
        return Response(TitleMadeSerializer(body, context=self.out_context()).data)


class ReclaimView(_TitleAction):
    @extend_schema(
        request=None,
        responses=TitleMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The giving house takes a title back at its holder's death (only if it controlled him then)",
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        return self._answer(
            request, f"Title #{pk} taken back", lambda c: title_reclaim(campaign=c, title=pk, by=request.user), pk
        )


class BequeathView(_TitleAction):
    @extend_schema(
        request=BequeathIn,
        responses=TitleMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The late holder's player gives the title to a descendant of his choice (in the turn of the death)",
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        data = BequeathIn(data=request.data)
        data.is_valid(raise_exception=True)
        heir = data.validated_data["heir"]
        return self._answer(
            request,
            f"Title #{pk} bequeathed",
            lambda c: title_bequeath(campaign=c, title=pk, heir=heir, by=request.user),
            pk,
        )


class CrisisClaimView(_TitleAction):
    @extend_schema(
        request=CrisisClaimIn,
        responses=TitleMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="Dynastic Crisis: the title-holder's player takes provinces of the dead line's title",
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        data = CrisisClaimIn(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data
        return self._answer(
            request,
            f"Title #{pk} claimed in a Dynastic Crisis",
            lambda c: crisis_claim(campaign=c, title=pk, provinces=d["provinces"], terms=d["terms"], by=request.user),
            pk,
        )


class CrisisWaiveView(_TitleAction):
    @extend_schema(
        request=None,
        responses=TitleMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="Dynastic Crisis: the title-holder's player gives up all claim to the title (+1 Stability to both)",
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        return self._answer(
            request,
            f"Claim to title #{pk} given up",
            lambda c: crisis_claim_waive(campaign=c, title=pk, by=request.user),
            pk,
        )


class DisputeView(_TitleAction):
    @extend_schema(
        request=DisputeIn,
        responses=TitleMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="Blood Royale rule G (GM): the King disputes this turn's inheritance of the title and names its holder",
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        data = DisputeIn(data=request.data)
        data.is_valid(raise_exception=True)
        holder = data.validated_data["holder"]
        return self._answer(
            request,
            f"Title #{pk}: the King's dispute",
            lambda c: title_dispute(campaign=c, title=pk, holder=holder, by=request.user),
            pk,
        )


class TitleLineView(ActionView):
    """A title's line of succession (rule G: like the crown's; BloodLine: the holder's descendants)."""

    api_tag = "titles"

    @extend_schema(
        responses=LineSerializer,
        parameters=[LIMIT_PARAM],
        summary="The line of succession of a title: its heirs in order, with the reason for each place",
    )
    def get(self, request: Request, slug: str, pk: int) -> Response:
        v = self.viewer
        query = LineQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        found = Title.objects.filter(campaign=v.campaign, pk=pk).first()
        if found is None:
            raise Http404("No such title in this campaign.")
        line = title_succession_line(campaign=v.campaign, title=found, limit=query.validated_data["limit"])
        context = self.out_context()
        return Response(LineSerializer(line_data(context, line), context=context).data)
