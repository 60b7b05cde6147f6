"""Output helpers shared by the read resources: links to other rows as ``{"id", "url"}``.

A link's URL is the list URL of its resource (reversed once per request) plus the id, so a page of
a hundred characters with their families reverses no URL per row."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.filters import INT_MAX


class LinkSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(max_value=INT_MAX)
    url = serializers.URLField()

    class Meta:
        ref_name = "Link"


def list_url(context: Mapping[str, Any], resource: str) -> str:
    """The absolute list URL of ``resource`` in the campaign of the request, cached in the context
    (a serializer's context is a dict; DRF's stubs call it a Mapping)."""
    cache: dict[str, str] = cast(dict[str, Any], context).setdefault("_list_urls", {})
    if resource not in cache:
        request = context["request"]
        path = reverse(f"api:{resource}-list", kwargs={"slug": context["viewer"].campaign.slug})
        cache[resource] = request.build_absolute_uri(path)
    return cache[resource]


def link(context: Mapping[str, Any], resource: str, pk: int | None) -> dict[str, Any] | None:
    if pk is None:
        return None
    return {"id": pk, "url": f"{list_url(context, resource)}{pk}/"}


@extend_schema_field(LinkSerializer(allow_null=True))
class LinkField(serializers.Field):  # type: ignore[type-arg]
    """A read-only link to a row of ``resource`` from an id attribute (``source="father_id"``)."""

    def __init__(self, resource: str, **kwargs: Any) -> None:
        self.resource = resource
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> Any:
        return link(self.context, self.resource, value)


@extend_schema_field({"type": "string", "format": "uri"})
class SelfUrlField(serializers.Field):  # type: ignore[type-arg]
    """The row's own URL."""

    def __init__(self, resource: str, **kwargs: Any) -> None:
        self.resource = resource
        kwargs["read_only"] = True
        kwargs["source"] = "pk"
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> str:
        return f"{list_url(self.context, self.resource)}{value}/"
