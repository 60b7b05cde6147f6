"""The dashboard costs the same at a long campaign as at a short one (issue 36): the same queries, and
its heirs (``succession_view.heirs_now``) found from the living and the recently born, not from every
character of the campaign's history, with the same answers as the line of each crown."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import Campaign
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Reign, Renunciation, Status
from dynasties.services import campaign_create
from dynasties.services.succession_view import _RecentWorld, heirs_now, succession_line
from operations.simulation import simulate
from rules.dice import RandomSource

LONG_TURNS = 40


def _count(fn) -> int:
    with CaptureQueriesContext(connection) as ctx:
        fn()
    return len(ctx.captured_queries)


def _started(gm, name: str, turns: int) -> Campaign:
    c = campaign_create(name=name, players=5, source=RandomSource(7), by=gm)  # run by the GM
    return simulate(c, turns=turns, source=RandomSource(7), by=SYSTEM_ACTOR) if turns else c


def _rows(world: _RecentWorld) -> int:
    return len(world._plain[0]) if world.recent else len(world.characters)


def _as_the_lines_say(campaign: Campaign) -> None:
    heirs = heirs_now(campaign=campaign)
    crowns = set(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("crown", flat=True))
    assert set(heirs) == crowns
    for crown, heir in heirs.items():
        line = succession_line(campaign=campaign, crown=crown, limit=1)  # every character read
        expected = line.heir
        if expected is None:
            assert heir is None
            continue
        assert (heir.character, heir.position, heir.age, heir.minor, heir.kin, heir.reason, heir.level) == (
            expected.character,
            expected.position,
            expected.age,
            expected.minor,
            expected.kin,
            expected.reason,
            expected.level,
        )
        assert heir.character.label == expected.character.label  # "Jean Valois (b. 1401)"


@pytest.fixture
def long_campaign(gm) -> Campaign:
    """A campaign of at least LONG_TURNS turns, played on (the same dice) to a turn where every
    monarch has a living legitimate child: his heir is then among his descendants."""
    c = _started(gm, "Long", LONG_TURNS)
    source = RandomSource(8)
    for _ in range(30):
        if _RecentWorld(c).recent:
            return c
        c = simulate(c, turns=1, source=source, by=SYSTEM_ACTOR)
    raise AssertionError("no turn with a living child for every monarch")


@pytest.mark.long
@pytest.mark.django_db
def test_the_dashboard_queries_are_the_same_at_a_short_and_a_long_campaign(client, gm, long_campaign):
    short = _started(gm, "Short", 0)
    assert Character.objects.filter(campaign=long_campaign).count() > 5 * Character.objects.filter(campaign=short).count()
    client.force_login(gm)

    def dashboard(c: Campaign) -> int:
        def get() -> None:
            assert client.get(reverse("pages:dashboard", args=[c.slug])).status_code == 200

        return _count(get)

    assert dashboard(short) == dashboard(long_campaign) == 22
    assert _count(lambda: heirs_now(campaign=short)) == _count(lambda: heirs_now(campaign=long_campaign)) == 7


@pytest.mark.long
@pytest.mark.django_db
def test_the_heirs_are_found_among_the_recent_and_are_the_lines_heirs(long_campaign):
    world = _RecentWorld(long_campaign)
    assert world.recent  # every monarch has a living child: his heir is among his descendants
    characters = Character.objects.filter(campaign=long_campaign)
    since = min(characters.filter(status=Status.ALIVE).values_list("birth_year", flat=True))
    assert _rows(world) == characters.filter(birth_year__gte=since).count() < characters.count()  # not the dead of long ago
    _as_the_lines_say(long_campaign)


@pytest.mark.long
@pytest.mark.django_db
def test_when_a_child_of_the_recent_was_born_before_them_everyone_is_read(long_campaign):
    """The recent rows must hold the whole family of each of them: a (wrongly entered) child born
    before the eldest of the living to a parent among them makes the one query read everyone."""
    since = min(Character.objects.filter(campaign=long_campaign, status=Status.ALIVE).values_list("birth_year", flat=True))
    old = Character.objects.filter(campaign=long_campaign, status=Status.DEAD, birth_year__lt=since - 50).first()
    parent = Character.objects.filter(campaign=long_campaign, status=Status.ALIVE, sex="M").order_by("birth_year").first()
    Character.objects.filter(pk=old.pk).update(father=parent)
    world = _RecentWorld(long_campaign)
    assert not world.recent and _rows(world) == Character.objects.filter(campaign=long_campaign).count()
    _as_the_lines_say(long_campaign)


@pytest.mark.long
@pytest.mark.django_db
def test_a_line_that_climbs_past_the_recent_reads_everyone_and_finds_the_same_heir(long_campaign):
    """Every living child of a monarch renounced the crown: his heir is found by a climb up the tree,
    which the recent rows cannot answer; heirs_now reads every character (one query more) and
    finds the heir the full line finds."""
    year = long_campaign.current_year
    reign = Reign.objects.filter(campaign=long_campaign, end_year__isnull=True).order_by("crown").first()
    children = Character.objects.filter(campaign=long_campaign, status=Status.ALIVE).filter(
        father=reign.holder_id
    ) | Character.objects.filter(campaign=long_campaign, status=Status.ALIVE, mother=reign.holder_id)
    assert children
    before = _count(lambda: heirs_now(campaign=long_campaign))
    for child in children:
        for c in Character.objects.filter(campaign=long_campaign, pk=child.pk):
            Renunciation.objects.create(campaign=long_campaign, character=c, crown=reign.crown, year=year)
    assert _RecentWorld(long_campaign).recent  # the query sees living children ...
    assert _count(lambda: heirs_now(campaign=long_campaign)) == before + 1  # ... the walk reads everyone
    heir = heirs_now(campaign=long_campaign)[reign.crown]
    assert heir is not None and heir.level >= 1  # a brother, a cousin ...: found by the climb
    _as_the_lines_say(long_campaign)
