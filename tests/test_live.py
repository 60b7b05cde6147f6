"""The live table (issue 19): every write raises the campaign's live version in its own transaction;
the poll answers 204 while nothing moved and the new version once something did, to members only,
in one query after the session's; the pages that follow the table carry the poll's address."""

from __future__ import annotations

import json
import re
from io import BytesIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.signals import request_started
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from campaign import live
from campaign.models import Audience, Campaign, ChronicleEntry, Membership, Role, Step
from campaign.undo import new_action_key, redo, step_action, undo_step
from contracts.services import contract_draft
from dynasties.models import Character, Dynasty
from dynasties.printing import announcement_sections
from dynasties.services import births_roll_all, marriages_finish, survival_finish, survival_roll
from dynasties.services.announcements import announcements_make
from dynasties.services.notes import note_write
from dynasties.services.portraits import portrait_remove, portrait_set
from dynasties.services.sequence_view import survival_board
from dynasties.treasury import treasury_transfer
from operations.simulation import play_births
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.test_desk_undo import _form_data
from tests.test_notes import png


@pytest.fixture
def observer(campaign):
    user = get_user_model().objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


def version(campaign: Campaign) -> int:
    return Campaign.objects.values_list("live_version", flat=True).get(pk=campaign.pk)


def house(campaign: Campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def poll(client, campaign: Campaign, v: object = None):
    url = reverse("pages:live", args=[campaign.slug])
    return client.get(url if v is None else f"{url}?v={v}")


# --- every write raises the version -------------------------------------------------------------


def test_a_birth_roll_and_a_survival_roll_raise_the_version(campaign, gm):
    before = version(campaign)
    births_roll_all(campaign=campaign, source=RandomSource(1), by=gm)
    after_births = version(campaign)
    assert after_births > before
    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Births",
        action=lambda c: play_births(c, RandomSource(3), by=gm),
        by=gm,
    )
    assert Campaign.objects.get(pk=campaign.pk).step == Step.SURVIVAL
    after_step = version(campaign)
    assert after_step > after_births
    survival_roll(campaign=campaign, source=RandomSource(4), by=gm)
    assert version(campaign) > after_step


def test_a_payment_and_a_contract_raise_the_version(campaign, gm):
    england, france = house(campaign, "England"), house(campaign, "France")
    before = version(campaign)
    treasury_transfer(campaign=campaign, payer=None, payee=england, amount=10, reason="A grant", by=gm)
    paid = version(campaign)
    assert paid > before
    contract_draft(campaign=campaign, kind="agreement", title="Peace", parties=[england, france], by=gm)
    assert version(campaign) > paid


def test_a_refused_write_leaves_the_version_as_it_was(campaign, gm):
    england, france = house(campaign, "England"), house(campaign, "France")
    before = version(campaign)
    with pytest.raises(RuleError):
        treasury_transfer(campaign=campaign, payer=england, payee=france, amount=10**9, reason="Too much", by=gm)
    assert version(campaign) == before


def test_undo_and_redo_raise_the_version_never_put_it_back(campaign, gm):
    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Births",
        action=lambda c: play_births(c, RandomSource(3), by=gm),
        by=gm,
    )
    played = version(campaign)
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    undone = version(campaign)
    assert Campaign.objects.get(pk=campaign.pk).step == Step.BIRTHS
    assert undone > played  # undo restores the campaign's columns, never its live version
    redo(campaign=campaign, key=new_action_key(), by=gm)
    assert Campaign.objects.get(pk=campaign.pk).step == Step.SURVIVAL
    assert version(campaign) > undone


def test_a_note_and_a_portrait_raise_the_version(campaign, gm, settings, tmp_path):
    """What issue 20 added to the pages (a note, a portrait) reaches the open pages like any write."""
    settings.MEDIA_ROOT = str(tmp_path)
    england = house(campaign, "England")
    before = version(campaign)
    note_write(campaign, audience="public", text="The King holds court at Westminster.", dynasty=england, by=gm)
    noted = version(campaign)
    assert noted > before
    portrait_set(campaign, BytesIO(png()), dynasty=england, by=gm)
    pictured = version(campaign)
    assert pictured > noted
    assert portrait_remove(campaign, dynasty=england, by=gm) is True
    assert version(campaign) > pictured


def test_a_desk_save_raises_the_version(campaign, admin_client):
    person = Character.objects.filter(campaign=campaign).order_by("pk").first()
    assert person is not None
    change = reverse("admin:dynasties_character_change", args=[person.pk])
    data = _form_data(admin_client.get(change))
    data["given_name"] = "Corrected"
    before = version(campaign)
    response = admin_client.post(change, data)
    assert response.status_code == 302
    assert Character.objects.get(pk=person.pk).given_name == "Corrected"
    assert version(campaign) > before


def test_a_page_action_raises_the_version(client, campaign, gm):
    client.force_login(gm)
    before = version(campaign)
    response = client.post(reverse("pages:births", args=[campaign.slug]), {"op": "roll_all", "action_key": new_action_key()})
    assert response.status_code == 302
    assert version(campaign) > before


def test_the_lock_is_the_raise_and_reads_the_whole_row(campaign):
    stored = Campaign.objects.get(pk=campaign.pk)
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        locked = live.lock_and_raise(campaign.pk)
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 1 and statements[0].startswith("UPDATE"), statements  # as the locking read it replaced
    assert locked.live_version == stored.live_version + 1
    for field in Campaign._meta.concrete_fields:
        if field.name != "live_version":
            assert getattr(locked, field.attname) == getattr(stored, field.attname), field.name


@pytest.mark.django_db(transaction=True)
def test_locking_outside_a_transaction_is_refused(campaign):
    with pytest.raises(transaction.TransactionManagementError):
        live.lock_and_raise(campaign.pk)


def test_a_page_drawn_after_its_own_write_shows_that_write_s_version(campaign, gm, django_capture_on_commit_callbacks):
    read_first = Campaign.objects.get(pk=campaign.pk)
    england, france = house(campaign, "England").pk, house(campaign, "France").pk
    as_read = {seat: live.page_version(read_first, *seat) for seat in [(Role.PLAYER, england), (Role.PLAYER, france)]}
    with django_capture_on_commit_callbacks(execute=True):
        treasury_transfer(campaign=campaign, payer=None, payee=england, amount=1, reason="Alms", by=gm)
    assert live.page_version(read_first, Role.GM, None) == version(campaign) > read_first.live_version
    assert live.page_version(read_first, Role.PLAYER, england) == as_read[(Role.PLAYER, england)] + 1  # its own money
    assert live.page_version(read_first, Role.PLAYER, france) == as_read[(Role.PLAYER, france)]  # not his to see
    request_started.send(sender=None)  # the next request starts afresh
    assert live.page_version(read_first, Role.GM, None) == read_first.live_version


# --- the poll ------------------------------------------------------------------------------------


def test_the_poll_answers_204_while_nothing_moved_and_the_version_once_it_did(client, campaign, alice, gm):
    client.force_login(alice)
    now = live.viewer_version(alice, campaign)
    still = poll(client, campaign, now)
    assert still.status_code == 204 and still.content == b""
    assert still["Cache-Control"] == "private, no-store"  # config/cache_control.py adds "private"
    treasury_transfer(campaign=campaign, payer=None, payee=house(campaign, "England"), amount=1, reason="Alms", by=gm)
    moved = poll(client, campaign, now)
    assert moved.status_code == 200 and moved.json() == {"version": live.viewer_version(alice, campaign)}
    assert moved.json()["version"] == now + 1  # her house's money: one write she sees
    assert poll(client, campaign, moved.json()["version"]).status_code == 204
    assert poll(client, campaign).json() == {"version": now + 1}  # no version asked: the one there is
    assert poll(client, campaign, "nonsense").status_code == 200


def test_the_poll_is_for_members_only(client, campaign, outsider, alice):
    assert poll(client, campaign, 0).status_code == 404  # anonymous: as a campaign that does not exist
    client.force_login(outsider)
    assert poll(client, campaign, 0).status_code == 404
    assert client.get(reverse("pages:live", args=["no-such-campaign"])).status_code == 404
    client.force_login(alice)
    assert poll(client, campaign, 0).status_code in (200, 204)
    assert client.post(reverse("pages:live", args=[campaign.slug])).status_code == 405


def test_the_poll_makes_one_query_after_the_session_and_writes_nothing(client, campaign, alice):
    client.force_login(alice)
    now = version(campaign)
    with CaptureQueriesContext(connection) as queries:
        answer = poll(client, campaign, now)
    assert answer.status_code == 204
    sql = [q["sql"] for q in queries]
    assert len(sql) == 3, sql  # the session, the user, the campaign's version for a member (his count)
    assert "django_session" in sql[0] and "live_version" in sql[2]
    assert not [s for s in sql if re.match(r"\s*(INSERT|UPDATE|DELETE)", s, re.IGNORECASE)]
    assert "sessionid" not in answer.cookies  # the session is not written again


# --- the pages that follow the table ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["dashboard", "turn", "births", "survival", "marriages", "announcements", "treasury", "rolls"])
def test_the_pages_of_the_table_carry_the_poll(client, campaign, alice, gm, name):
    """Each carries its viewer's own version: Alice's counts her house's money too (a page that
    carried another count than her poll answers would be rebuilt on every poll)."""
    treasury_transfer(campaign=campaign, payer=None, payee=house(campaign, "England"), amount=1, reason="Alms", by=gm)
    client.force_login(alice)
    html = client.get(reverse(f"pages:{name}", args=[campaign.slug]), follow=True).content.decode()  # the treasury: his own
    live_url = reverse("pages:live", args=[campaign.slug])
    assert f'<main data-live="{live_url}" data-version="{live.viewer_version(alice, campaign)}">' in html
    assert "regnal-live.js" in html
    # htmx asks the poll (every 700 ms, and when the tab is shown again), one request at a time, and
    # morphs the page asked again into this one (idiomorph's extension, on the body)
    assert (
        f'<span hidden id="live-poll" hx-get="{live_url}" hx-trigger="every 700ms, visibilitychange from:document"'
        ' hx-swap="none" hx-sync="this:drop"></span>'
    ) in html
    assert html.count('id="live-poll"') == 1 and '<body hx-ext="morph">' in html and IDIOMORPH.name in html


def test_other_pages_do_not_poll(client, campaign, alice):
    client.force_login(alice)
    person = Character.objects.filter(campaign=campaign).order_by("pk").first()
    assert person is not None
    html = client.get(reverse("pages:character", args=[campaign.slug, person.pk])).content.decode()
    assert "data-live=" not in html and "<main>" in html and "live-poll" not in html
    home = client.get(reverse("home")).content.decode()
    assert "data-live=" not in home and "live-poll" not in home


IDIOMORPH = Path(settings.BASE_DIR) / "pages" / "static" / "idiomorph-ext-0.8.0.min.js"


def test_the_vendored_idiomorph_is_the_pinned_npm_package_s_own_file():
    """pages/static's idiomorph (its htmx extension, the morph swaps of the live table) is the file
    of the npm package package-lock.json pins, byte for byte, with its licence beside it."""
    lock = json.loads((Path(settings.BASE_DIR) / "package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/idiomorph"]
    assert IDIOMORPH.name == f"idiomorph-ext-{pinned['version']}.min.js" and pinned["license"] == "0BSD"
    package = Path(settings.BASE_DIR) / "node_modules" / "idiomorph"
    assert package.exists(), f"{package} is missing: `make setup-dev` installs it from the npm registry (npm ci)"
    assert json.loads((package / "package.json").read_text())["version"] == pinned["version"]
    assert IDIOMORPH.read_bytes() == (package / "dist" / "idiomorph-ext.min.js").read_bytes()
    notice = (IDIOMORPH.parent / "idiomorph-LICENSE").read_text()
    assert f"idiomorph {pinned['version']}" in notice and (package / "LICENSE").read_text() in notice


# --- the table screen --------------------------------------------------------------------------------


def table_url(campaign: Campaign) -> str:
    return reverse("pages:table", args=[campaign.slug])


def test_the_table_screen_shows_the_step_its_waits_and_the_odds_of_the_births(client, campaign, observer):
    client.force_login(observer)
    html = client.get(table_url(campaign)).content.decode()
    assert '<h1 class="ts-step">Births</h1>' in html
    assert "Waiting for: The birth rolls of every eligible couple" in html
    assert "a child on 7 or more on 2d6" in html and "58.3%" in html  # 21 in 36
    assert f'data-live="{reverse("pages:live", args=[campaign.slug])}?as=public"' in html  # the whole table's
    assert 'class="site"' in html and "regnal-table.css" in html


def test_the_table_screen_shows_each_result_and_public_lines_only(client, campaign, gm):
    births_roll_all(campaign=campaign, source=RandomSource(1), by=gm)
    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Births",
        action=lambda c: play_births(c, RandomSource(3), by=gm),
        by=gm,
    )
    treasury_transfer(campaign=campaign, payer=None, payee=house(campaign, "England"), amount=7, reason="A secret grant", by=gm)
    survival_roll(campaign=campaign, source=RandomSource(4), by=gm)
    client.force_login(gm)  # even the GM's screen is the table's: nothing private on it
    html = client.get(table_url(campaign)).content.decode()
    assert '<h1 class="ts-step">Survival</h1>' in html
    board = survival_board(Campaign.objects.get(pk=campaign.pk))
    assert board.rows and all(row.rolled for row in board.rows)
    shown = re.findall(r'<span class="ts-(good|bad)">(lives|dies)</span>', html)
    assert len(shown) == min(len(board.rows), 16)
    assert [w == "dies" for _, w in shown] == [row.died for row in board.rows][:16]
    lines = ChronicleEntry.objects.filter(campaign=campaign, year=campaign.current_year)
    public = [e.text for e in lines.filter(audience=Audience.PUBLIC).exclude(kind="setup").order_by("-pk")[:8]]
    assert public and all(text in html for text in public)
    assert lines.filter(text__contains="A secret grant").exclude(audience=Audience.PUBLIC).exists()
    assert "A secret grant" not in html


def test_the_table_screen_shows_the_announcements_once_published(client, campaign, gm, alice):
    for name in ("births", "survival", "marriages"):
        campaign = Campaign.objects.get(pk=campaign.pk)
        if name == "births":
            step_action(
                campaign=campaign,
                key=new_action_key(),
                label=name,
                action=lambda c: play_births(c, RandomSource(3), by=gm),
                by=gm,
            )
        elif name == "survival":
            survival_roll(campaign=campaign, source=RandomSource(4), by=gm)
            survival_finish(campaign=campaign, by=gm)
        else:
            marriages_finish(campaign=campaign, by=gm)
    client.force_login(alice)
    html = client.get(table_url(campaign)).content.decode()
    assert '<h1 class="ts-step">Announcements</h1>' in html and "The announcements of" not in html
    announcements_make(campaign=campaign, by=gm)
    html = client.get(table_url(campaign)).content.decode()
    assert f"The announcements of {campaign.current_year}" in html
    for title, lines in announcement_sections(campaign, campaign.current_year):
        assert f"<h3>{title}</h3>" in html and all(str(escape(line)) in html for line in lines)


def test_the_table_screen_is_for_members_only(client, campaign, outsider):
    assert client.get(table_url(campaign)).status_code == 302  # to log in
    client.force_login(outsider)
    assert client.get(table_url(campaign)).status_code == 404


def test_without_returning_the_lock_is_an_update_then_a_read(campaign, monkeypatch):
    monkeypatch.setattr(connection.features, "can_return_columns_from_insert", False)
    stored = Campaign.objects.get(pk=campaign.pk)
    with transaction.atomic():
        locked = live.lock_and_raise(campaign.pk)
    assert locked.live_version == stored.live_version + 1 == version(campaign)
    with pytest.raises(RuleError), transaction.atomic():
        live.lock_and_raise(10**9)
