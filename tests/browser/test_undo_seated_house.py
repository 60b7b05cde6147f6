"""A house a player plays is not taken from under him (docs/rulings.md, "Undo (game night)"): the
GM's undo of the desk save that made the house is refused on the page, naming the seat and where to
move it; the desk's delete page names the seat too. Nothing is undone or deleted."""

from __future__ import annotations

from django.contrib.auth.models import Permission
from playwright.sync_api import Browser, expect

from campaign.models import Membership, Role
from campaign.services import membership_add
from campaign.undo import change_set
from dynasties.models import Dynasty
from tests.browser.helpers import log_in
from tests.factories import member_house_id


def test_the_gm_sees_why_a_seated_house_is_neither_undone_nor_deleted(
    browser: Browser, live_server, campaign, gm, django_user_model
):
    gm.is_staff = True  # the desk's staff GM, as the desk's own tests make him
    gm.save()
    gm.user_permissions.set(Permission.objects.filter(content_type__app_label__in=["campaign", "dynasties", "contracts"]))
    with change_set(campaign.pk, label="A new house", by=gm) as locked:
        house = Dynasty.objects.create(campaign=locked, name="Anjou-Sicily", kind="player")
    player = django_user_model.objects.create_user("anjou_player", password="a-long-password-1")
    membership_add(campaign=campaign, user=player, role=Role.PLAYER, dynasty=house, by=gm)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/undo/")
        page.get_by_role("button", name="Yes, undo the step").click()
        refusal = page.get_by_text("anjou_player plays the house of Anjou-Sicily")
        expect(refusal).to_be_visible()
        expect(refusal).to_contain_text("on the Players page, then undo")
        page.goto(f"{live_server.url}/admin/dynasties/dynasty/{house.pk}/delete/")
        expect(page.get_by_role("heading", name="Cannot delete dynasty")).to_be_visible()
        expect(page.get_by_text("anjou_player as Player")).to_be_visible()
    finally:
        context.close()
    assert Dynasty.objects.filter(pk=house.pk).exists()
    assert member_house_id(Membership.objects.get(user=player)) == house.pk
