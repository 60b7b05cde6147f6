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


POLL_EVERY = "700ms"
"""How often an open page asks the poll (htmx's ``every`` trigger): a write shows within a second."""


def _followed(context: Any) -> tuple[Campaign, str, bool] | None:
    """The campaign a page follows, its poll's address and whether it is a page the whole table
    looks at (``PUBLIC_PAGES``); None on a page that does not follow the table."""
    request = context.get("request")
    campaign = context.get("campaign")
    match = getattr(request, "resolver_match", None)
    if not isinstance(campaign, Campaign) or match is None or match.namespace != "pages" or match.url_name not in LIVE_PAGES:
        return None
    if match.kwargs.get("slug") != campaign.slug:
        return None
    public = match.url_name in PUBLIC_PAGES
    poll = reverse("pages:live", args=[campaign.slug]) + ("?as=public" if public else "")
    return campaign, poll, public


@register.simple_tag(takes_context=True)
def live_attrs(context: Any) -> str:
    """`` data-live="<poll url>" data-version="<n>"`` on a page that follows the table
    (``pages/static/regnal-live.js`` rebuilds the page when its poll says the version moved),
    ``<n>`` being the viewer's version (``campaign.live.page_version``), the one his poll answers;
    nothing on any other page."""
    followed = _followed(context)
    if followed is None:
        return ""
    campaign, poll, public = followed
    role: str | None
    if public:  # the whole table looks at it: the public writes, whoever opened it
        role, mine = Role.OBSERVER, None
    elif "role" in context and "mine" in context:  # a campaign page's context (pages.common.context)
        role, mine = context["role"], context["mine"]
    else:
        role, mine = role_of(getattr(context.get("request"), "user", None), campaign)
    shown = page_version(campaign, role, mine)  # the viewer's own count: what he may see, no more
    return format_html(' data-live="{}" data-version="{}"', poll, shown)


@register.simple_tag(takes_context=True)
def live_poll(context: Any) -> str:
    """The poll of a page that follows the table, inside its ``<main>``: a hidden element htmx asks
    the poll from every ``POLL_EVERY`` and when the tab is shown again (``hx-trigger``), one request
    at a time (``hx-sync``), its answer read by ``pages/static/regnal-live.js`` (``?v=``, the page's
    version, added there), never swapped; an answer 286 stops it (htmx). Nothing on any other page."""
    followed = _followed(context)
    if followed is None:
        return ""
    return format_html(
        '<span hidden id="live-poll" hx-get="{}" hx-trigger="every {}, visibilitychange from:document" hx-swap="none"'
        ' hx-sync="this:drop"></span>',
        followed[1],
        POLL_EVERY,
    )


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
