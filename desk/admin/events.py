"""The desk's door to the table's events (``campaign.table_events``): an event that happens to
characters chosen from a list is a list action on the characters ("At the table: killed"), made from
its declaration. An event that asks nothing more is recorded at once, through its service, for the
ticked characters of each campaign; one that asks more (dice, a captor, a ransom) opens its page's
form with them ticked. Nothing here knows an event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from campaign.models import Campaign
from campaign.table_events import Kind, TableEvent, events
from rules.errors import RuleError


def _asks_more(e: TableEvent) -> bool:
    """Whether the event needs more than the characters ticked (a required field of another kind), or
    says its form is to be seen first (``extra["desk_form"]``: an optional field that changes what
    is recorded, such as a ransom)."""
    if e.extra.get("desk_form"):
        return True
    return any(f.required for f in e.fields[1:] if f.kind not in (Kind.FACES, Kind.DICE))


def event_action(e: TableEvent) -> Callable[..., HttpResponse | None]:
    people = e.fields[0].name

    def action(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:  # type: ignore[type-arg]
        by_campaign: dict[int, list[int]] = {}
        for c in queryset.order_by("pk"):
            by_campaign.setdefault(c.campaign_id, []).append(c.pk)
        if _asks_more(e):  # its page's form, with the ticked characters of the (one) campaign
            if len(by_campaign) != 1:
                model_admin.message_user(request, f"{e.label}: tick characters of one campaign.", messages.ERROR)
                return None
            [(campaign, ids)] = by_campaign.items()
            slug = Campaign.objects.values_list("slug", flat=True).get(pk=campaign)
            url = reverse("pages:event", args=[slug, e.key]) + "?" + urlencode([(people, pk) for pk in ids])
            return HttpResponseRedirect(url)
        for campaign, ids in by_campaign.items():
            try:
                result = e.run(campaign=campaign, by=request.user, **{people: ids})
            except RuleError as exc:
                model_admin.message_user(request, f"Nothing recorded: {exc.message}", messages.ERROR)
            else:
                model_admin.message_user(request, e.done(result))
        return None

    action.__name__ = f"event_{e.key}"
    return admin.action(description=f"At the table: {e.desk}")(action)


def character_event_actions() -> dict[str, tuple[Callable[..., Any], str, str]]:
    """The list actions of the declared events on characters, as ``ModelAdmin.get_actions`` lists them."""
    out = {}
    for e in events():
        if e.desk and e.fields and e.fields[0].kind == Kind.CHARACTERS:
            made = event_action(e)
            out[made.__name__] = (made, made.__name__, made.short_description)  # type: ignore[attr-defined]
    return out
