"""The live table's mark on a page: ``<main{% live_attrs %}>`` in ``templates/base.html``."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html

from campaign.live import page_version
from campaign.models import STEP_ORDER, Campaign, Role, Step
from campaign.permissions import role_of

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

PUBLIC_PAGES = frozenset({"table"})
"""Those the whole table looks at (a projector, a TV), whoever opened them: they show public things
only and follow the public writes only (``?as=public`` on the poll), so a GM's screen on the wall
does not move on his secret writes."""


@register.simple_tag(takes_context=True)
def live_attrs(context: Any) -> str:
    """`` data-live="<poll url>" data-version="<n>"`` on a page that follows the table
    (``pages/static/regnal-live.js`` polls the url and rebuilds the page when the version moved),
    ``<n>`` being the viewer's version (``campaign.live.page_version``), the one his poll answers;
    nothing on any other page."""
    request = context.get("request")
    campaign = context.get("campaign")
    match = getattr(request, "resolver_match", None)
    if not isinstance(campaign, Campaign) or match is None or match.namespace != "pages" or match.url_name not in LIVE_PAGES:
        return ""
    if match.kwargs.get("slug") != campaign.slug:
        return ""
    poll = reverse("pages:live", args=[campaign.slug])
    role: str | None
    if match.url_name in PUBLIC_PAGES:  # the whole table looks at it: the public writes, whoever opened it
        role, mine = Role.OBSERVER, None
        poll += "?as=public"
    elif "role" in context and "mine" in context:  # a campaign page's context (pages.common.context)
        role, mine = context["role"], context["mine"]
    else:
        role, mine = role_of(getattr(request, "user", None), campaign)
    shown = page_version(campaign, role, mine)  # the viewer's own count: what he may see, no more
    return format_html(' data-live="{}" data-version="{}"', poll, shown)


FOLLOWED_STEPS = ("births", "survival")
"""The dice steps whose open page follows the table to the next step when the GM closes it
(issue 34). The Marriages page stays: betrothals are arranged there at any time."""


@register.simple_tag
def follow_step(campaign: Campaign, step: str, is_open: bool) -> str:
    """A step page's mark for the live table's script (``pages/static/regnal-live.js``): while the
    step is open, ``data-step-open``; once the campaign has gone past it this turn, a hidden link to
    the page of the step now played (``data-follow``). A page drawn open and redrawn closed by the
    poll goes on to that page, as the GM's own page does when he closes the step."""
    from pages.sequence import step_page  # the pages' module, asked only here (it loads the views)

    if step not in FOLLOWED_STEPS:
        return ""
    if is_open:
        return format_html('<span hidden data-step-open="{}"></span>', step)
    if STEP_ORDER.index(Step(campaign.step)) > STEP_ORDER.index(Step(step)):
        return format_html('<a hidden data-follow href="{}" tabindex="-1">{}</a>', step_page(campaign), "the step now played")
    return ""
