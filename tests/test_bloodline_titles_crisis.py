"""BloodLine titles at a holder's death, and a Dynastic Crisis's bankruptcy and title claims
(RULES.md B; ../shared/seeds/eu-bloodline-variant.txt, "Titles" and "Dynastic Crisis")."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Crown, CrownEvent, Dynasty, Reign, Status, Title
from dynasties.services import campaign_create, survival_finish, survival_roll
from dynasties.services.bloodline_titles import (
    bloodline_title_grant,
    crisis_claim,
    crisis_claim_waive,
    title_bequeath,
    title_reclaim,
)
from dynasties.services.common import World
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.factories import at_step, person, seat_member


@pytest.fixture
def eu(db):
    c = campaign_create(name="Europa", ruleset="eu-bloodline", players=2, source=RandomSource(8))
    france = Dynasty.objects.get(campaign=c, crown="France")
    king = Reign.objects.get(campaign=c, crown="France").holder
    Character.objects.filter(father=king).update(status=Status.DEAD, death_year=1491)  # a clean slate of children
    return c, france, king


def land(*pairs):
    return [{"name": n, "value": v} for n, v in pairs]


def deaths(c, *dying):
    at_step(c, Step.SURVIVAL)
    faces = {p.pk: [7, 7] for p in World(c).in_play()}
    for d in dying:
        faces[d.pk] = [1, 1]
    survival_roll(campaign=c, faces=faces, by=SYSTEM_ACTOR)
    survival_finish(campaign=c, source=RandomSource(3), by=SYSTEM_ACTOR)


def titled_son(eu):
    """The King's son, Duke of Burgundy, with two sons of his own; he dies this turn."""
    c, france, king = eu
    duke = person(c, france, "Charles", "M", 1470, father=king)
    elder = person(c, france, "Philip", "M", 1488, father=duke)
    younger = person(c, france, "John", "M", 1490, father=duke)
    title = bloodline_title_grant(
        campaign=c,
        giver=france,
        character=duke,
        name="Duke of Burgundy",
        provinces=land(("Burgundy", 5), ("Nevers", 2)),
        by=SYSTEM_ACTOR,
    )
    return title, duke, elder, younger


@pytest.mark.django_db
def test_the_giving_player_takes_a_title_back_at_the_holders_death(eu):
    """Titles: 'Once a title is given it cannot be taken away, except by the death of the titled
    character and only if the Player controls that character at the time of its death (death occurs
    before testing for title control).'"""
    c, france, _king = eu
    title, duke, elder, younger = titled_son(eu)
    with pytest.raises(RuleError, match="did not die this turn"):
        title_reclaim(campaign=c, title=title, by=SYSTEM_ACTOR)  # a living holder keeps it
    deaths(c, duke)
    title.refresh_from_db()
    assert title.holder == elder  # nobody decided: the first descendant has it, as before
    title_reclaim(campaign=c, title=title, by=SYSTEM_ACTOR)
    title.refresh_from_db()
    assert title.holder is None
    assert list(title.holdings.order_by("pk").values_list("holder_id", "end_year")) == [(duke.pk, 1492), (elder.pk, 1492)]
    assert "takes back Duke of Burgundy" in ChronicleEntry.objects.filter(campaign=c, kind="title").last().text
    # the lands are free to be given again, Burgundy first too (before: refused by the database, as the
    # lapsed title's record still named Burgundy)
    bloodline_title_grant(
        campaign=c, giver=france, character=elder, name="Count of Nevers", provinces=land(("Nevers", 2)), by=SYSTEM_ACTOR
    )
    again = bloodline_title_grant(
        campaign=c, giver=france, character=younger, name="Duke of Burgundy", provinces=land(("Burgundy", 5)), by=SYSTEM_ACTOR
    )
    assert again.pk == title.pk and again.holder == younger
    assert [(p["name"], p["value"]) for p in again.provinces] == [("Burgundy", 5)]
    assert list(again.holdings.order_by("pk").values_list("holder_id", "end_year")) == [
        (duke.pk, 1492),
        (elder.pk, 1492),
        (younger.pk, None),
    ]


@pytest.mark.django_db
def test_a_title_is_not_taken_back_from_a_holder_another_player_controlled(eu):
    """Titles: taken away 'only if the Player controls that character at the time of its death'."""
    c, _france, _king = eu
    title, duke, _elder, _younger = titled_son(eu)
    england = Dynasty.objects.get(campaign=c, crown="England")
    Character.objects.filter(pk=duke.pk).update(controlled_by=england)  # married away, say
    deaths(c, duke)
    with pytest.raises(RuleError, match="only if the Player controls that character"):
        title_reclaim(campaign=c, title=title, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_the_controlling_player_chooses_which_descendant_inherits(eu):
    """Titles: 'Titles are passed down to descendants if the title is not taken away, at the whim of
    the player controlling the titled character.'"""
    c, france, king = eu
    title, duke, elder, younger = titled_son(eu)
    cousin = person(c, france, "Cousin", "M", 1475, father=king)
    deaths(c, duke)
    with pytest.raises(RuleError, match="not a living descendant"):
        title_bequeath(campaign=c, title=title, heir=cousin, by=SYSTEM_ACTOR)
    holding = title_bequeath(campaign=c, title=title, heir=younger, by=SYSTEM_ACTOR)
    title.refresh_from_db()
    assert title.holder == younger and holding.holder == younger and holding.end_year is None
    assert title.holdings.filter(holder=elder).count() == 0


def crisis(eu, *, extra_title: bool = False):
    """France's line dies out; an English lord holds a French title (Burgundy, Nevers)."""
    c, france, king = eu
    england = Dynasty.objects.get(campaign=c, crown="England")
    lord = person(c, england, "Edmund", "M", 1470)
    title = bloodline_title_grant(
        campaign=c,
        giver=france,
        character=lord,
        name="Duke of Burgundy",
        provinces=land(("Burgundy", 5), ("Nevers", 2)),
        by=SYSTEM_ACTOR,
    )
    other = None
    if extra_title:
        other = bloodline_title_grant(
            campaign=c, giver=france, character=lord, name="Count of Maine", provinces=land(("Maine", 1)), by=SYSTEM_ACTOR
        )
    deaths(c, king)
    return c, france, england, title, other


def stability_of(c, name):
    return Crown.objects.get(campaign=c, name=name).stability


@pytest.mark.django_db
def test_a_dynastic_crisis_is_a_bankruptcy_on_record(eu):
    """Dynastic Crisis: 'The Player suffer an immediate "bankruptcy." Apply the same effects as when a
    financial bankruptcy occurs, including the Victory Point penalty. The Player's treasury remains
    untouched, however.'"""
    c, _france, _england, _title, _ = crisis(eu)
    assert ChronicleEntry.objects.filter(campaign=c, kind="created", text__contains="Dynastic Crisis").exists()
    line = ChronicleEntry.objects.get(campaign=c, kind="dynastic_crisis", text__contains="bankruptcy")
    assert "France suffers an immediate bankruptcy" in line.text and "treasury is untouched" in line.text
    assert ChronicleEntry.objects.filter(campaign=c, kind="dynastic_crisis", text__contains="Duke of Burgundy").exists()


@pytest.mark.django_db
def test_a_title_holder_claims_provinces_of_the_dead_lines_title(eu):
    """Dynastic Crisis: 'Players controlling characters who hold titles in the dead dynastic line may
    now exercise their claim to this territory, taking immediate possession of any number of provinces
    that are part of the title. For each province after the first that they take they lose one level of
    stability. The Player suffering the dynastic crisis gains one level of stability for any province
    lost in this way as well as a free CB against the title holder valid thru the end of the new
    Monarch's life. ... Once any such deal or non-voluntary claim is exercised, all such titles are
    nullified.'"""
    c, _france, england, title, other = crisis(eu, extra_title=True)
    before = {n: stability_of(c, n) for n in ("France", "England")}
    with pytest.raises(RuleError, match="only the provinces of Duke of Burgundy"):
        crisis_claim(campaign=c, title=title, provinces=["Paris"], by=SYSTEM_ACTOR)
    crisis_claim(campaign=c, title=title, provinces=["Burgundy", "Nevers"], by=SYSTEM_ACTOR)
    assert stability_of(c, "England") == before["England"] - 1  # one level for the province after the first
    assert stability_of(c, "France") == before["France"] + 2  # one level for each province lost
    title.refresh_from_db()
    other.refresh_from_db()
    assert title.holder is None and other.holder is None  # the claimant's titles of the dead line: nullified
    assert {p["name"]: p["controller"] for p in title.provinces} == {"Burgundy": england.pk, "Nevers": england.pk}
    assert ChronicleEntry.objects.filter(campaign=c, kind="dynastic_crisis", text__contains="free CB against").exists()
    [cb] = Crown.objects.get(campaign=c, name="France").state["dynastic_crisis"]["casus_belli"]
    king = Reign.objects.get(campaign=c, crown="France", end_year__isnull=True).holder
    assert cb == {"against": england.name, "title": "Duke of Burgundy", "until": f"the death of {king.display_name}"}
    with pytest.raises(RuleError):
        crisis_claim(campaign=c, title=title, provinces=["Burgundy"], by=SYSTEM_ACTOR)  # settled


@pytest.mark.django_db
def test_giving_up_the_claim_gains_both_sides_a_level_of_stability(eu):
    """Dynastic Crisis: 'Players may also freely give up all claim to a title at this time, and both
    sides gain a level of stability in doing so. A Player may also take no sides in the dynastic crisis
    (neither making a land claim nor giving up the title) in which case neither side suffers any penalty
    or loss and the title continues in force.'"""
    c, _france, _england, title, other = crisis(eu, extra_title=True)
    before = {n: stability_of(c, n) for n in ("France", "England")}
    crisis_claim_waive(campaign=c, title=title, by=SYSTEM_ACTOR)
    assert stability_of(c, "England") == before["England"] + 1
    assert stability_of(c, "France") == before["France"] + 1
    title.refresh_from_db()
    other.refresh_from_db()
    assert title.holder is None
    assert other.holder is not None  # no side taken on this one: it continues in force
    reasons = list(CrownEvent.objects.filter(campaign=c, reason__contains="gave up").values_list("crown__name", "delta"))
    assert sorted(reasons) == [("England", 1), ("France", 1)]


@pytest.mark.django_db
def test_claims_are_made_at_the_time_of_the_crisis_only(eu):
    """Dynastic Crisis: the claim is exercised 'now', in the crisis: a title of a living line is
    not claimed."""
    c, france, _king = eu
    england = Dynasty.objects.get(campaign=c, crown="England")
    lord = person(c, england, "Edmund", "M", 1470)
    title = bloodline_title_grant(
        campaign=c, giver=france, character=lord, name="Duke of Burgundy", provinces=land(("Burgundy", 5)), by=SYSTEM_ACTOR
    )
    with pytest.raises(RuleError, match="not a title of a dynastic line that died out this turn"):
        crisis_claim(campaign=c, title=title, provinces=["Burgundy"], by=SYSTEM_ACTOR)
    assert Title.objects.get(pk=title.pk).holder == lord


@pytest.fixture
def players(eu, gm, alice, bob):
    """The GM runs the campaign; Alice plays England, Bob France."""
    from campaign.models import Membership, Role

    c, france, _king = eu
    Membership.objects.create(campaign=c, user=gm, role=Role.GM)
    seat_member(campaign=c, user=alice, role=Role.PLAYER, dynasty=Dynasty.objects.get(campaign=c, crown="England"))
    seat_member(campaign=c, user=bob, role=Role.PLAYER, dynasty=france)
    return gm, alice, bob


def post(user, c, path: str, body: dict | None = None):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_login(user)
    return client.post(f"/api/v1/campaigns/{c.slug}/{path}", body or {}, format="json")


@pytest.mark.django_db
def test_the_api_bequeaths_and_takes_back_a_title_for_its_houses_player_only(eu, players):
    """Titles: passed down 'at the whim of the player controlling the titled character'; taken away
    'only if the Player controls that character at the time of its death'."""
    c, _france, _king = eu
    _gm, alice, bob = players
    title, duke, _elder, younger = titled_son(eu)
    deaths(c, duke)
    refused = post(alice, c, f"titles/{title.pk}/bequeath/", {"heir": younger.pk})
    assert refused.status_code == 403, refused.content
    done = post(bob, c, f"titles/{title.pk}/bequeath/", {"heir": younger.pk})
    assert done.status_code == 200, done.content
    assert done.json()["title"]["holder"]["id"] == younger.pk
    assert any("chosen among the descendants" in line["text"] for line in done.json()["chronicle"])
    assert post(alice, c, f"titles/{title.pk}/reclaim/").status_code == 403
    taken = post(bob, c, f"titles/{title.pk}/reclaim/")
    assert taken.status_code == 200, taken.content
    assert taken.json()["title"]["holder"] is None


@pytest.mark.django_db
def test_the_api_claims_and_waives_a_dead_lines_titles_for_the_holders_player(eu, players):
    """Dynastic Crisis: 'Players controlling characters who hold titles in the dead dynastic line may
    now exercise their claim to this territory'; 'Players may also freely give up all claim to a
    title at this time'."""
    c, _france, _england, title, other = crisis(eu, extra_title=True)
    gm, alice, bob = players
    assert post(bob, c, f"titles/{title.pk}/crisis-waive/").status_code == 403  # France's player: not the holder's
    waived = post(alice, c, f"titles/{other.pk}/crisis-waive/")
    assert waived.status_code == 200, waived.content
    assert waived.json()["title"]["holder"] is None
    bad = post(alice, c, f"titles/{title.pk}/crisis-claim/", {"provinces": ["Paris"]})
    assert bad.status_code == 400
    claimed = post(gm, c, f"titles/{title.pk}/crisis-claim/", {"provinces": ["Burgundy"]})
    assert claimed.status_code == 200, claimed.content
    assert any("free CB against" in line["text"] for line in claimed.json()["chronicle"])


@pytest.mark.django_db
def test_the_titles_page_shows_the_decisions_and_takes_them(eu, players, client):
    """Titles: passed down 'at the whim of the player controlling the titled character' - the page
    shows the late holder's player the heirs to choose from."""
    from campaign.undo import new_action_key

    c, _france, _king = eu
    _gm, alice, bob = players
    title, duke, _elder, younger = titled_son(eu)
    deaths(c, duke)
    client.force_login(bob)
    page = client.get(f"/c/{c.slug}/titles/").content.decode()
    assert "Duke of Burgundy" in page and "Bequeath" in page and "Take the title back" in page
    form = {"op": "bequeath", "title": title.pk, "heir": younger.pk, "action_key": new_action_key()}
    answer = client.post(f"/c/{c.slug}/titles/", form)
    assert answer.status_code == 302
    assert Title.objects.get(pk=title.pk).holder == younger
    client.force_login(alice)
    page = client.get(f"/c/{c.slug}/titles/").content.decode()
    assert "Duke of Burgundy" in page and "Bequeath" not in page  # not hers to decide
    form = {"op": "reclaim", "title": title.pk, "action_key": new_action_key()}
    assert client.post(f"/c/{c.slug}/titles/", form).status_code == 403


@pytest.mark.django_db
def test_the_titles_page_gives_up_a_claim_in_a_dynastic_crisis(eu, players, client):
    """Dynastic Crisis: 'Players may also freely give up all claim to a title at this time, and both
    sides gain a level of stability in doing so.'"""
    from campaign.undo import new_action_key

    c, _france, _england, title, _ = crisis(eu)
    _gm, alice, _bob = players
    before = stability_of(c, "England")
    client.force_login(alice)
    page = client.get(f"/c/{c.slug}/titles/").content.decode()
    assert "Dynastic Crisis" in page and "Give up all claim" in page
    answer = client.post(f"/c/{c.slug}/titles/", {"op": "crisis_waive", "title": title.pk, "action_key": new_action_key()})
    assert answer.status_code == 302
    assert stability_of(c, "England") == before + 1 and Title.objects.get(pk=title.pk).holder is None
