"""The campaign the desk works on, kept in the session, and the site's plumbing: what the admin
(``desk.admin.scope``) and its site (``desk.site``) both ask, outside the ``desk.admin`` package so
that the site can be imported while the apps' admins register on it."""

from __future__ import annotations

from django.http import HttpRequest

from campaign.models import Campaign
from campaign.permissions import gm_campaigns

CHOSEN = "desk_campaign"
"""The session's key of the campaign the desk works on (its id)."""

PLUMBING = frozenset(
    {
        "auth.user",  # accounts are the site's (a GM adds players by invitation), and staff rights with them
        "auth.group",
        "axes.accessattempt",
        "axes.accesslog",
        "axes.accessfailurelog",
        "django_tasks_database.dbtaskresult",
        "api.apitoken",
        "campaign.actionkey",
        "campaign.checkpoint",
    }
)
"""The site's machinery, kept out of a GM's way: superusers only, in the index's "Site plumbing"."""


def chosen_campaign(request: HttpRequest) -> Campaign | None:
    """The campaign the desk works on: the session's choice if the user still keeps its books."""
    if not hasattr(request, "_desk_campaign"):
        pk = request.session.get(CHOSEN) if hasattr(request, "session") else None
        request._desk_campaign = gm_campaigns(request.user).filter(pk=pk).first() if pk else None  # type: ignore[attr-defined]
    return request._desk_campaign  # type: ignore[attr-defined,no-any-return]


def choose_campaign(request: HttpRequest, campaign: Campaign | None) -> None:
    """Keep ``campaign`` (None: every campaign of the user's) as the desk's choice."""
    if campaign is None:
        request.session.pop(CHOSEN, None)
    else:
        request.session[CHOSEN] = campaign.pk
    request._desk_campaign = campaign  # type: ignore[attr-defined]
