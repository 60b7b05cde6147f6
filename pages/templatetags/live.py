"""The live table's mark on a page: ``<main{% live_attrs %}>`` in ``templates/base.html``."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html

from campaign.live import page_version
from campaign.models import Campaign

register = template.Library()

LIVE_PAGES = frozenset(
    {
        "dashboard",
        "turn",
        "births",
        "survival",
        "marriages",
        "announcements",
        "treasury",
        "exchequer",
        "interphase",
        "rolls",
        "table",
    }
)
"""The pages (names in the ``pages`` namespace) that follow the table as it plays: the dashboard,
the turn and its steps, the treasury and each exchequer, the roll log and the table screen."""


@register.simple_tag(takes_context=True)
def live_attrs(context: Any) -> str:
    """`` data-live="<poll url>" data-version="<n>"`` on a page that follows the table
    (``pages/static/regnal-live.js`` polls the url and rebuilds the page when the version moved);
    nothing on any other page."""
    request = context.get("request")
    campaign = context.get("campaign")
    match = getattr(request, "resolver_match", None)
    if not isinstance(campaign, Campaign) or match is None or match.namespace != "pages" or match.url_name not in LIVE_PAGES:
        return ""
    if match.kwargs.get("slug") != campaign.slug:
        return ""
    return format_html(' data-live="{}" data-version="{}"', reverse("pages:live", args=[campaign.slug]), page_version(campaign))
