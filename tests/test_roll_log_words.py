"""Issue 34, "The table, the phone and the print": the roll log shows this turn by default (a choice
of one turn or all of them), a compact row a roll, paged, in a fixed number of queries whatever the
history; the pages write rolls and characteristics as the rest of the site does ("Strength +1",
"Characteristic roll (strength)", "Births", the King with his regnal numeral); a favicon; one
"Admin" link, not two; and the table screen's "a child (7); its sex" without the stray space."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import Campaign, Roll
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Marriage, Reign
from dynasties.selectors import label
from dynasties.services import births_attempt, births_roll_all
from operations.simulation import simulate
from pages.views import ROLLS_PER_PAGE
from rules.dice import RandomSource

pytestmark = pytest.mark.django_db


def _log(campaign: Campaign) -> str:
    return reverse("pages:rolls", args=[campaign.slug])


def _rows(html: str) -> int:
    return html.count('<tr class="roll">')


def _into_the_turn(campaign: Campaign, turns: int, gm) -> Campaign:
    """``turns`` turns played, then the next turn's Births rolled: this turn has rolls."""
    simulate(campaign, turns=turns, source=RandomSource(5), by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    births_roll_all(campaign=campaign, source=RandomSource(9), by=gm)
    campaign.refresh_from_db()
    assert Roll.objects.filter(campaign=campaign, year=campaign.current_year).exists()
    return campaign


def test_the_roll_log_shows_this_turn_by_default_and_all_turns_on_request(client, campaign, gm):
    campaign = _into_the_turn(campaign, 3, gm)
    client.force_login(gm)
    this_turn = Roll.objects.filter(campaign=campaign, year=campaign.current_year)
    page = client.get(_log(campaign))
    html = page.content.decode()
    assert page.context["page"].paginator.count == this_turn.count() < Roll.objects.filter(campaign=campaign).count()
    assert _rows(html) == min(this_turn.count(), ROLLS_PER_PAGE)
    assert f'<strong aria-current="page">This turn ({campaign.current_year})</strong>' in html
    assert '<a href="?year=all">All turns</a>' in html
    every = client.get(_log(campaign), {"year": "all"})
    assert every.context["page"].paginator.count == Roll.objects.filter(campaign=campaign).count() > ROLLS_PER_PAGE
    assert _rows(every.content.decode()) == ROLLS_PER_PAGE  # paged
    assert '<strong aria-current="page">All turns</strong>' in every.content.decode()
    last = every.context["page"].paginator.num_pages
    tail = client.get(_log(campaign), {"year": "all", "page": last})
    assert _rows(tail.content.decode()) == Roll.objects.filter(campaign=campaign).count() - (last - 1) * ROLLS_PER_PAGE
    assert "« newer" in tail.content.decode()
    # one earlier turn; a character's rolls: all his turns unless a turn is asked
    earlier = campaign.current_year - campaign.turn_length
    one = client.get(_log(campaign), {"year": earlier}).context["page"]
    assert one.paginator.count == Roll.objects.filter(campaign=campaign, year=earlier).count() > 0
    someone = Roll.objects.filter(campaign=campaign, year=earlier, subjects__isnull=False).first().subjects.first().character
    his = client.get(_log(campaign), {"character": someone.pk}).context["page"]
    assert his.paginator.count == Roll.objects.filter(campaign=campaign, subjects__character=someone).count()


def test_a_turn_with_no_rolls_yet_says_so_and_offers_the_last_one(client, campaign, gm):
    simulate(campaign, turns=1, source=RandomSource(5), by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    client.force_login(gm)
    html = client.get(_log(campaign)).content.decode()
    last = campaign.current_year - campaign.turn_length
    assert _rows(html) == 0
    assert f"No rolls in {campaign.current_year} yet." in html and f'<a href="?year={last}">The rolls of {last}</a>' in html


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_the_roll_log_runs_a_fixed_number_of_queries_whatever_the_history(client, campaign, gm):
    client.force_login(gm)
    campaign = _into_the_turn(campaign, 2, gm)
    urls = [_log(campaign), _log(campaign) + "?year=all", _log(campaign) + "?year=all&page=2"]
    small = [_queries(client, u) for u in urls]
    rows_before = Roll.objects.filter(campaign=campaign).count()
    simulate(campaign, turns=5, source=RandomSource(1), by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    births_roll_all(campaign=campaign, source=RandomSource(2), by=gm)
    grown = [_queries(client, u) for u in urls]
    assert Roll.objects.filter(campaign=campaign).count() > 2 * rows_before
    print(f"roll log queries (this turn, all turns, page 2): {small} -> {grown}")
    assert grown == small and max(grown) <= 16, (small, grown)


def test_the_roll_log_names_a_king_with_his_regnal_numeral(client, campaign, gm):
    simulate(campaign, turns=2, source=RandomSource(5), by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    reign = Reign.objects.filter(campaign=campaign, numeral__isnull=False, end_year__isnull=True).select_related("holder").first()
    king = reign.holder
    year = Roll.objects.filter(campaign=campaign, subjects__character=king).order_by("-year").values_list("year", flat=True)[0]
    label(campaign, [king])
    assert re.search(r" [IVXLC]+ ", king.display_name), king.display_name  # "Edward I Plantagenet"
    client.force_login(gm)
    html = client.get(_log(campaign), {"year": year}).content.decode()
    assert f">{king.display_name}</a>" in html


def test_rolls_and_characteristics_in_the_sites_words(client, campaign, gm):
    """ "Strength +1", not "strength 1"; "Characteristic roll (strength)" and "Births", not
    "characteristic strength" and "births", on the character page's roll table and in the log."""
    simulate(campaign, turns=1, source=RandomSource(5), by=SYSTEM_ACTOR)
    child = Character.objects.filter(campaign=campaign, rolls__purpose="characteristic", rolls__step="births").first()
    assert child is not None
    client.force_login(gm)
    html = client.get(reverse("pages:character", args=[campaign.slug, child.pk])).content.decode()
    values = child.characteristics
    first = next(iter(values))
    assert f"{first.capitalize()} {values[first]:+d}" in html  # "Strength +1" / "Guile -1"
    assert f"{first} {values[first]}," not in html and f"{first} {values[first]}<" not in html
    assert f"Characteristic roll ({first})" in html and f"characteristic {first}" not in html
    assert '<td data-label="Step">Births</td>' in html and '<td data-label="Step">births</td>' not in html
    assert re.search(r"3d6: \d \+ \d \+ \d = \d+", html) and "[" not in html.split("<h2>Rolls</h2>")[1].split("</table>")[0]
    log = client.get(_log(campaign), {"character": child.pk}).content.decode()  # his rolls, every turn
    assert f"{first.capitalize()} {values[first]:+d}</td>" in log or f"{first.capitalize()} {values[first]:+d}<br>" in log
    dynasty = client.get(reverse("pages:dynasty", args=[campaign.slug, child.controlled_by_id])).content.decode()
    assert f"{first.capitalize()} {values[first]:+d}" in dynasty
    # the record of changes too: a set-up character's characteristics, rolled after he was made
    rolled = Character.objects.filter(campaign=campaign, rolls__purpose="characteristic", rolls__step="setup").first()
    page = client.get(reverse("pages:character", args=[campaign.slug, rolled.pk])).content.decode()
    trail = page.split('<h2 id="changes">', 1)[1]
    words = ", ".join(f"{k.capitalize()} {v:+d}" for k, v in rolled.characteristics.items())
    assert f"Characteristics: — &rarr; {words}</li>" in trail, trail


def test_one_admin_link_and_a_favicon(client, campaign, gm, alice):
    client.force_login(gm)
    html = client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
    assert html.count(">Admin</a>") == 1
    assert f'href="{reverse("admin:desk_choose", args=[campaign.pk])}">Admin</a>' in html
    icon = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html)
    assert icon is not None
    svg = b"".join(client.get(icon.group(1)).streaming_content)
    assert svg.startswith(b"<svg") and b"</svg>" in svg
    client.force_login(alice)
    assert ">Admin</a>" not in client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
    keeper = get_user_model().objects.create_superuser("root", password="root-password-1")
    client.force_login(keeper)
    home = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("admin:index")}">Admin</a>' in home


def test_the_table_screen_writes_a_pending_sex_without_a_stray_space(client, campaign, gm):
    match = Marriage.objects.filter(campaign=campaign, ended_year__isnull=True, husband__controlled_by__crown="England").get()
    births_attempt(campaign=campaign, marriage=match, faces=[6, 6], by=gm)
    client.force_login(gm)
    html = client.get(reverse("pages:table", args=[campaign.slug])).content.decode()
    assert 'a child (12)</span>; <span class="ts-wait">its sex to roll</span>' in html
    assert not re.search(r"</span>\s+;", html)
