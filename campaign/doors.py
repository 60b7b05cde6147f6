"""What every door (the pages, the API, the trees, the printables, the GEDCOM export) does the same
way before it reaches a service: find the campaign of the URL for a member of it.

An outsider hears 404, word for word the same whether the campaign exists or not (he cannot tell a
secret campaign from a made-up one); who is a member, and in which seat, is
``campaign.permissions.role_of``'s to say. The doors' own modules (``pages.common``,
``api.common``, ``dynasties.trees.views``, ``dynasties.print_views``, ``dynasties.views``) call
:func:`member` and decide nothing about membership themselves."""

from __future__ import annotations

from typing import Any

from django.http import Http404

from campaign.models import Campaign
from campaign.permissions import role_of

NO_SUCH_CAMPAIGN = "No such campaign."


def member(request: Any, slug: str, *, missing: str = NO_SUCH_CAMPAIGN) -> tuple[Campaign, str, int | None]:
    """The campaign of ``slug``, the requesting user's role in it and his dynasty id; 404 (saying
    ``missing``) for anyone who is not a member, as for a campaign that does not exist."""
    campaign = Campaign.objects.filter(slug=slug).first()
    role, dynasty = role_of(request.user, campaign) if campaign is not None else (None, None)
    if campaign is None or role is None:  # one answer, word for word, for both
        raise Http404(missing)
    return campaign, role, dynasty
