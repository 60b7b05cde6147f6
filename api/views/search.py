"""Search: the campaign's people, houses, crowns, contracts, chronicle lines and notes by name, as
far as you may see them (``operations.search``, the same search as the pages' box)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.common import CampaignScoped
from operations.search import KINDS, PER_KIND, PER_PAGE, search
from rules.errors import RuleError


class FoundOut(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField(help_text="What the pages show: a person's name (a monarch's with his number), a title, a line.")

    class Meta:
        ref_name = "SearchHit"


class GroupOut(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=list(KINDS))
    found = FoundOut(many=True)
    more = serializers.BooleanField(help_text="There are more of this kind: ask with kind= (and page=).")

    class Meta:
        ref_name = "SearchGroup"


class SearchOut(serializers.Serializer[Any]):
    query = serializers.CharField()
    kind = serializers.CharField(help_text="The one kind asked for, or empty for every kind.")
    page = serializers.IntegerField()
    groups = GroupOut(many=True)

    class Meta:
        ref_name = "SearchResults"


def _name(kind: str, row: Any) -> str:
    if kind == "people":
        return str(row.display_name)
    if kind == "contracts":
        return str(row.title)
    if kind in ("chronicle", "notes"):
        return str(row.text)
    return str(row.name)


class SearchView(CampaignScoped, APIView):
    api_tag = "chronicle"

    @extend_schema(
        responses=SearchOut,
        parameters=[
            OpenApiParameter("q", OpenApiTypes.STR, required=True, description="At least 2 letters; case and accents ignored."),
            OpenApiParameter("kind", OpenApiTypes.STR, enum=list(KINDS), description=f"One kind alone, {PER_PAGE} a page."),
            OpenApiParameter("page", OpenApiTypes.INT, description="The page of the one kind (from 1)."),
        ],
        summary=f"Search by name: {PER_KIND} of each kind you may see, or one kind a page at a time",
    )
    def get(self, request: Request, slug: str) -> Response:
        try:
            page = min(max(1, int(request.query_params.get("page") or 1)), 1000)
        except ValueError:
            page = 1
        results = search(
            self.viewer.campaign,
            request.user,
            request.query_params.get("q", ""),
            kind=request.query_params.get("kind", ""),
            page=page,
        )
        if results.problem:
            raise RuleError(results.problem, code="query", fields={"q": results.problem})
        body = {
            "query": results.query,
            "kind": results.kind,
            "page": results.page,
            "groups": [
                {"kind": g.kind, "more": g.more, "found": [{"id": r.pk, "name": _name(g.kind, r)} for r in g.rows]}
                for g in results.groups
            ],
        }
        return Response(SearchOut(body).data)
