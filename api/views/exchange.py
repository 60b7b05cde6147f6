"""Export and import of a whole campaign as one JSON document, ``regnal/3``
(docs/export-format.md; ``operations.exchange``).

- ``GET campaigns/{slug}/export/``: the GM only (the document holds every secret);
- ``POST campaigns/import/``: any logged-in user; the document is the body; the campaign is
  created new and the importer is its GM. A document at fault is a 400 whose message names the
  problem (``format: missing``, ``characters[3].father: ...``) and nothing is written. The body may
  be up to ``settings.REGNAL_IMPORT_MAX_BYTES`` (50 MB unless set; ``api.parsers.ImportJSONParser``),
  not Django's 2.5 MB; beyond it, a 413 ``too_large`` naming the limit.

An import creates a campaign, so there is no campaign to run it as a step action of; it is the one
transaction of ``campaign_import``. With an ``Idempotency-Key`` the key is recorded on the new
campaign (as ``run_action`` does), so the same key sent again with the same document is a 409 and
imports nothing twice; with another document, or a key already used elsewhere, a 422."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.common import CampaignScoped, idempotency_key, key_use
from api.parsers import ImportJSONParser
from api.schema import IDEMPOTENCY_KEY, ErrorSerializer
from api.views.campaigns import CampaignDetailOut
from campaign.models import Role
from campaign.undo import action_key, key_refuse, step_action
from operations.exchange import FORMAT, campaign_export_for, campaign_import


class ExportView(CampaignScoped, APIView):
    api_tag = "exchange"
    throttle_scope = "render"  # the whole campaign read and written out (api.throttles)

    @extend_schema(
        summary="Export the campaign (GM)",
        description=(
            f"The whole campaign as one `{FORMAT}` JSON document (docs/export-format.md): what `POST "
            "campaigns/import/` reads back. The GM only: it holds every exchequer and contract."
        ),
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description=f"The `{FORMAT}` document.")},
    )
    def get(self, request: Request, slug: str) -> Response:
        v = self.viewer
        response = Response(campaign_export_for(v.campaign, by=request.user))
        response["Content-Disposition"] = f'attachment; filename="{v.campaign.slug}.json"'
        return response


class ImportQuery(serializers.Serializer[Any]):
    slug = serializers.SlugField(
        required=False, max_length=80, help_text="The new campaign's slug; default: the document's (made unique)."
    )


class ImportView(APIView):
    api_tag = "exchange"
    throttle_scope = "import"  # up to REGNAL_IMPORT_MAX_BYTES, a campaign written (api.throttles)
    parser_classes = [ImportJSONParser]

    @extend_schema(
        summary="Import a campaign",
        description=(
            f"Load an exported `{FORMAT}` document (the body; `regnal/2` and `regnal/1` are still read) as a new campaign; "
            "you become its GM. The whole document is checked first: a problem is a 400 `invalid_import` whose message names "
            "where it is, and nothing is written. The body may be up to the server's `REGNAL_IMPORT_MAX_BYTES` "
            "(50 MB unless set); a larger one is a 413 `too_large` naming the limit."
        ),
        request=OpenApiTypes.OBJECT,
        responses={
            201: CampaignDetailOut,
            413: OpenApiResponse(ErrorSerializer, description="The body is larger than REGNAL_IMPORT_MAX_BYTES."),
        },
        parameters=[
            IDEMPOTENCY_KEY,
            OpenApiParameter(
                "slug",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                required=False,
                description=ImportQuery().fields["slug"].help_text or "",
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        query = ImportQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        slug = query.validated_data.get("slug")
        key, use = idempotency_key(request), key_use(request)  # use: None without the header
        data: Any = request.data
        with transaction.atomic():
            if use is not None:
                done = "That import was already done (the same Idempotency-Key): nothing was imported again."
                key_refuse(action_key(key, by=request.user, door="api"), campaign=None, use=use, done=done)
            campaign = campaign_import(data, by=request.user, slug=slug)
            if use is not None:  # record the key on the new campaign, as every other write does
                step_action(campaign=campaign, key=key, label="Import", action=lambda c: c, by=request.user, door="api", use=use)
        campaign.viewer_role, campaign.viewer_dynasty = Role.GM.value, None  # type: ignore[attr-defined]
        body = CampaignDetailOut(campaign, context={"request": request}).data
        location = request.build_absolute_uri(reverse("api:campaign-detail", kwargs={"slug": campaign.slug}))
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})
