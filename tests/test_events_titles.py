"""Titles the table grants (issue 31; RULES.md A9, B): rule G's Governors made by the King's player or the
GM during the Dynastic Sequence, BloodLine's titles given by a player's house and their income, each
title's page with its line of succession, and what titles feed once they exist: the Titles page, a
King's dispute, the governed provinces' taxes, a Dynastic Crisis's claims and a royal match's title."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import ActionKey, ChronicleEntry, Membership, Role, Step
from campaign.permissions import SYSTEM_ACTOR, Forbidden
from dynasties.models import Character, Dynasty, Modifier, ModifierKind, Posting, Reign, Status, Title, TitleHolding
from dynasties.services import campaign_create
from dynasties.services.bloodline_titles import bloodline_title_grant, title_income_pay
from dynasties.services.interphase import interphase_run
from dynasties.services.succession_view import title_succession_line
from dynasties.services.titles import governed_provinces, title_grant
from rules import bloodline as bl
from rules.dice import RandomSource
from rules.errors import RuleError, StepOrderError
from rules.interphase import Governed, InterphaseEntry
from tests.events_helpers import api, key, logged
from tests.factories import at_step, person, seat_member


def event_url(c, k: str) -> str:
    return reverse("pages:event", args=[c.slug, k])


# --- rule G: a Governor made at the table --------------------------------------------------------------


@pytest.fixture
def rule_g(campaign):
    """Rule G in force; England's King has a son of 20 (Henry) and a younger of 5 (John); Henry has a
    son of 2 (Arthur)."""
    campaign.optional_rules = {**campaign.optional_rules, "governing_provinces": True}
    campaign.save()
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    king = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    queen = Character.objects.get(campaign=campaign, controlled_by=england, sex="F", father__isnull=True)
    henry = person(campaign, england, "Henry", "M", 1280, father=king, mother=queen)
    arthur = person(campaign, england, "Arthur", "M", 1298, father=henry)
    return campaign, england, king, henry, arthur


@pytest.fixture
def observer(campaign):
    user = get_user_model().objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


@pytest.mark.django_db
def test_the_gm_makes_a_governor_from_the_page_and_the_chronicle_has_it(rule_g, gm):
    c, _england, king, henry, _arthur = rule_g
    client = logged(gm)
    assert "A Governor made" in client.get(reverse("pages:events", args=[c.slug])).content.decode()
    turn = client.get(reverse("pages:turn", args=[c.slug])).content.decode()
    assert "A Governor made" in turn  # Births: the Dynastic Sequence, when Governors are made
    page = client.get(event_url(c, "title_grant")).content.decode()
    assert "Henry Plantagenet" in page and "for England: +1 Strength" in page
    assert f'value="{king.pk}"' not in page  # the King governs nothing: his provinces are his already
    response = client.post(
        event_url(c, "title_grant"), {"character": henry.pk, "province": "Kent", "action_key": key()}, follow=True
    )
    assert response.status_code == 200
    title = Title.objects.get(campaign=c, province="Kent")
    assert (title.name, title.crown, title.holder) == ("Duke of Kent", "England", henry)
    henry.refresh_from_db()
    assert henry.characteristics["strength"] == 1  # +1 once
    assert Modifier.objects.filter(character=henry, kind=ModifierKind.GOVERNOR).count() == 1
    assert "Henry Plantagenet is Duke of Kent, Governor of Kent in England" in response.content.decode()
    assert ChronicleEntry.objects.filter(campaign=c, kind="title_granted", data__title=title.pk).exists()
    assert ActionKey.objects.filter(campaign=c, label="A Governor made").exists()  # one step action: undo takes it


@pytest.mark.django_db
def test_the_kings_player_makes_his_own_prince_governor_and_no_other_player_may(rule_g, alice, bob):
    """Rule G: 'a player may choose to bring a Province into the direct ownership of his or her Dynastic
    house by making a Prince the Governor': England's player for England's Prince; France's player may not."""
    c, _england, _king, henry, _arthur = rule_g
    french_page = logged(bob).get(event_url(c, "title_grant")).content.decode()
    assert "Henry Plantagenet" not in french_page  # Bob is offered France's Princes (none of 15 yet)
    refused = logged(bob).post(event_url(c, "title_grant"), {"character": henry.pk, "province": "Kent", "action_key": key()})
    assert refused.status_code == 400 and not Title.objects.filter(campaign=c).exists()
    with pytest.raises(Forbidden, match="You may act only for your own dynasty"):
        title_grant(campaign=c, character=henry, province="Kent", by=bob)  # the service asks the policy itself
    with pytest.raises(RuleError, match="not controlled by the player who rules France"):
        title_grant(campaign=c, character=henry, province="Kent", crown="France", by=bob)  # nor in his own country
    done = api(alice).post(
        f"/api/v1/campaigns/{c.slug}/events/title_grant/", {"character": henry.pk, "province": "Kent"}, format="json"
    )
    assert done.status_code == 200, done.content
    assert "Duke of Kent" in done.json()["message"]
    assert Title.objects.get(campaign=c, province="Kent").holder == henry


@pytest.mark.django_db
def test_an_observer_is_not_offered_the_grant(rule_g, observer):
    c, *_ = rule_g
    assert logged(observer).get(event_url(c, "title_grant")).status_code == 403
    assert "A Governor made" not in logged(observer).get(reverse("pages:events", args=[c.slug])).content.decode()


@pytest.mark.django_db
def test_the_refusals_cite_rule_g(rule_g, gm):
    c, _england, king, henry, arthur = rule_g
    with pytest.raises(RuleError, match=r"Arthur Plantagenet is 2: only a Prince aged at least 15.*rule G"):
        title_grant(campaign=c, character=arthur, province="Kent", by=gm)
    with pytest.raises(RuleError, match="reigns: the provinces nobody governs are under the monarch's direct control"):
        title_grant(campaign=c, character=king, province="Kent", by=gm)
    title_grant(campaign=c, character=henry, province="Kent", by=gm)
    refused = logged(gm).post(event_url(c, "title_grant"), {"character": henry.pk, "province": "kent", "action_key": key()})
    assert refused.status_code == 400
    assert "Kent already has a Governor: Henry Plantagenet, Duke of Kent. A province has one title (rule G)." in (
        refused.content.decode().replace("&#x27;", "'")
    )
    at_step(c, Step.INTERPHASE)
    with pytest.raises(
        StepOrderError, match=r"only during the Dynastic Sequence.*rule G: 'At any time during the Dynastic Phase'"
    ):
        title_grant(campaign=c, character=henry, province="Essex", by=gm)
    assert "A Governor made" not in logged(gm).get(reverse("pages:turn", args=[c.slug])).content.decode()


@pytest.mark.django_db
def test_without_rule_g_there_is_no_governor_to_make(campaign, gm):
    assert logged(gm).get(event_url(campaign, "title_grant")).status_code == 404
    assert "A Governor made" not in logged(gm).get(reverse("pages:events", args=[campaign.slug])).content.decode()


# --- a title's page: its line of succession ----------------------------------------------------------


@pytest.mark.django_db
def test_a_titles_page_shows_its_holder_its_province_and_its_line_to_every_member(rule_g, gm, bob, observer, outsider):
    c, _england, _king, henry, _arthur = rule_g
    title = title_grant(campaign=c, character=henry, province="Kent", by=gm)
    url = reverse("pages:title", args=[c.slug, title.pk])
    for user in (gm, bob, observer):  # public record, as the title is
        page = logged(user).get(url)
        assert page.status_code == 200
        text = page.content.decode()
        assert "Duke of Kent" in text and "Held by" in text and "Henry Plantagenet" in text
        assert "raises 2 Crowns more" in text
        assert "Line of succession" in text and "Arthur Plantagenet" in text  # his son first
        assert text.index("Arthur Plantagenet") < text.index("John Plantagenet")  # then his brother
    assert logged(outsider).get(url).status_code == 404
    assert logged(gm).get(reverse("pages:title", args=[c.slug, 987654])).status_code == 404
    listing = logged(bob).get(reverse("pages:titles", args=[c.slug])).content.decode()
    assert url in listing  # the Titles page lists every title, linked
    character = logged(bob).get(reverse("pages:character", args=[c.slug, henry.pk])).content.decode()
    assert url in character


@pytest.mark.django_db
def test_the_api_gives_a_titles_line(rule_g, gm, bob):
    c, _england, _king, henry, arthur = rule_g
    title = title_grant(campaign=c, character=henry, province="Kent", by=gm)
    detail = api(bob).get(f"/api/v1/campaigns/{c.slug}/titles/{title.pk}/").json()
    assert detail["line"].endswith(f"/titles/{title.pk}/line/")
    line = api(bob).get(detail["line"]).json()
    assert line["title"] == "Duke of Kent" and line["monarch"]["id"] == henry.pk
    assert line["entries"][0]["character"]["id"] == arthur.pk and line["entries"][0]["pass_over"] is None
    assert api(bob).get(f"/api/v1/campaigns/{c.slug}/titles/987654/line/").status_code == 404


@pytest.mark.django_db
def test_a_titles_page_makes_as_many_queries_however_long_its_history(rule_g, gm):
    c, england, _king, henry, _arthur = rule_g
    title = title_grant(campaign=c, character=henry, province="Kent", by=gm)
    client = logged(gm)
    url = reverse("pages:title", args=[c.slug, title.pk])
    client.get(url)
    with CaptureQueriesContext(connection) as short:
        client.get(url)
    for year in range(1301, 1309):
        holder = person(c, england, f"Heir{year}", "M", 1270)
        TitleHolding.objects.create(title=title, holder=holder, start_year=year, end_year=year + 1, how="by hand")
    with CaptureQueriesContext(connection) as long:
        client.get(url)
    assert len(long) == len(short), [q["sql"] for q in long][-5:]


# --- rule G end to end: inherited, disputed, taxed --------------------------------------------------------


@pytest.mark.django_db
def test_a_governor_killed_at_the_table_leaves_his_title_to_his_son_and_the_king_may_dispute_it(rule_g, gm):
    c, _england, king, henry, arthur = rule_g
    title = title_grant(campaign=c, character=henry, province="Kent", by=gm)
    client = logged(gm)
    client.post(event_url(c, "killed"), {"characters": [henry.pk], "action_key": key()})
    title.refresh_from_db()
    assert title.holder == arthur
    page = client.get(reverse("pages:title", args=[c.slug, title.pk])).content.decode()
    assert "inherited from Henry Plantagenet" in page and "The King may dispute" in page
    titles = client.get(reverse("pages:titles", args=[c.slug])).content.decode()
    assert "Dispute the inheritance" in titles
    john = Character.objects.get(campaign=c, given_name="John", father=king)
    john.birth_year = 1280  # of age: a Prince the King may name
    john.save()
    client.post(
        reverse("pages:titles", args=[c.slug]), {"op": "dispute", "title": title.pk, "holder": john.pk, "action_key": key()}
    )
    title.refresh_from_db()
    assert title.holder == john
    assert TitleHolding.objects.get(title=title, holder=arthur).disputed


@pytest.mark.django_db
def test_a_governed_province_is_proposed_to_the_interphase_and_raises_two_crowns_more(rule_g, gm, alice):
    c, england, _king, henry, _arthur = rule_g
    title_grant(campaign=c, character=henry, province="Kent", by=gm)
    assert governed_provinces(c, "England") == ["Kent"] and governed_provinces(c, "France") == []
    at_step(c, Step.INTERPHASE)
    form = logged(alice).get(reverse("pages:interphase", args=[c.slug, england.pk])).content.decode()
    assert ">Kent</textarea>" in form.replace("\n", "")
    run = interphase_run(
        campaign=c, dynasty=england, entry=InterphaseEntry(provinces=6, governed=[Governed(province="Kent")]), by=alice
    )
    extra = [p for p in run.postings if p.reason.startswith("Governed provinces (rule G): Kent")]
    assert [p.amount for p in extra] == [2] and extra[0].payee == england


# --- BloodLine: titles given, their line and their income -----------------------------------------------


@pytest.fixture
def eu(db, gm, alice, bob):
    """BloodLine: the GM; Alice plays England, Bob France. France's King has two sons (Elder 22, Younger
    20); Elder has a son (Grandson, 2)."""
    c = campaign_create(name="Europa", ruleset="eu-bloodline", players=2, source=RandomSource(8), by=gm)
    france = Dynasty.objects.get(campaign=c, crown="France")
    england = Dynasty.objects.get(campaign=c, crown="England")
    seat_member(campaign=c, user=alice, role=Role.PLAYER, dynasty=england)
    seat_member(campaign=c, user=bob, role=Role.PLAYER, dynasty=france)
    king = Reign.objects.get(campaign=c, crown="France", end_year__isnull=True).holder
    Character.objects.filter(father=king).update(status=Status.DEAD, death_year=1491)  # a clean slate of children
    elder = person(c, france, "Elder", "M", c.current_year - 22, father=king)
    younger = person(c, france, "Younger", "M", c.current_year - 20, father=king)
    grandson = person(c, france, "Grandson", "M", c.current_year - 2, father=elder)
    return c, france, england, king, elder, younger, grandson


def giver_options(page: str) -> list[int]:
    """The houses the grant's form offers as the giver."""
    select = re.search(r'<select name="giver".*?</select>', page, re.S)
    assert select is not None
    return [int(v) for v in re.findall(r'<option value="(\d+)"', select.group(0))]


def grant_form(giver, character, name, *rows):
    body = {"giver": giver.pk, "character": character.pk, "name": name, "action_key": key()}
    for n, (province, value) in enumerate(rows, start=1):
        body[f"province_{n}"], body[f"value_{n}"] = province, value
    return body


@pytest.mark.django_db
def test_a_player_gives_a_bloodline_title_from_the_page_and_its_page_shows_income_and_line(eu, bob):
    c, france, _england, _king, elder, younger, grandson = eu
    client = logged(bob)
    page = client.get(event_url(c, "bloodline_title_grant")).content.decode()
    assert "untitled child of the monarch of France" in page
    assert giver_options(page) == [france.pk]
    wrong = client.post(event_url(c, "bloodline_title_grant"), grant_form(france, younger, "Duke of Berry", ("Berry", 3)))
    assert wrong.status_code == 400 and "Elder Anjou is older and still untitled" in wrong.content.decode()
    done = client.post(
        event_url(c, "bloodline_title_grant"),
        grant_form(france, elder, "Duke of Burgundy", ("Burgundy", 5), ("Nevers", 2)),
        follow=True,
    )
    assert done.status_code == 200
    title = Title.objects.get(campaign=c, name="Duke of Burgundy")
    assert title.holder == elder and title.granted_by == france
    assert [(p["name"], p["value"]) for p in title.provinces] == [("Burgundy", 5), ("Nevers", 2)]
    assert "12 a turn, at least 6 of it to the provinces&#x27; controller" in done.content.decode()
    text = client.get(reverse("pages:title", args=[c.slug, title.pk])).content.decode()
    assert "Burgundy" in text and "land value 5" in text and "12 ducats" in text
    assert "Grandson Anjou" in text and "Younger Anjou" not in text.split("Line of succession")[1].split("Holders")[0]
    line = title_succession_line(campaign=c, title=title.pk)
    assert [e.character for e in line.entries] == [grandson]  # BloodLine: to the holder's descendants only


@pytest.mark.django_db
def test_only_the_giving_house_gives_its_titles(eu, alice):
    c, france, england, _king, elder, *_ = eu
    page = logged(alice).get(event_url(c, "bloodline_title_grant")).content.decode()
    assert giver_options(page) == [england.pk]
    with pytest.raises(Forbidden):
        bloodline_title_grant(
            campaign=c, giver=france, character=elder, name="Duke of Anjou", provinces=[{"name": "Anjou", "value": 4}], by=alice
        )
    assert not Title.objects.filter(campaign=c).exists()


@pytest.mark.django_db
def test_a_title_draws_its_income_once_a_turn_at_least_half_to_the_provinces_controller(eu, bob, alice, gm):
    c, france, england, _king, elder, *_ = eu
    title = bloodline_title_grant(
        campaign=c,
        giver=france,
        character=elder,
        name="Duke of Burgundy",
        provinces=[{"name": "Burgundy", "value": 5}, {"name": "Nevers", "value": 2}],
        by=bob,
    )
    with pytest.raises(StepOrderError, match="after the Dynastic Sequence"):
        title_income_pay(campaign=c, title=title, by=bob)
    at_step(c, Step.INTERPHASE)
    assert logged(alice).get(event_url(c, "title_income")).content.decode().count("Duke of Burgundy") == 0  # not hers
    with pytest.raises(Forbidden):
        title_income_pay(campaign=c, title=title, by=alice)
    page = logged(bob).get(event_url(c, "title_income")).content.decode()
    assert "Duke of Burgundy (Elder Anjou) — 12: at least 6 to the provinces&#x27; controller" in page
    done = logged(bob).post(event_url(c, "title_income"), {"title": title.pk, "action_key": key()}, follow=True)
    assert done.status_code == 200
    [paid] = Posting.objects.filter(campaign=c, kind="title_income")
    assert (paid.payer, paid.payee, paid.amount) == (None, france, 12)  # France holds and controls: all of it
    with pytest.raises(RuleError, match="already drawn its income of"):
        title_income_pay(campaign=c, title=title, by=gm)
    # another house comes to control the provinces (a claim, a conquest): it gets at least half
    c.current_year += 3
    c.save()
    Title.objects.filter(pk=title.pk).update(provinces=[{**p, "controller": england.pk} for p in title.provinces])
    with pytest.raises(RuleError, match=r"at least half of their income, rounded up \(6\)"):
        title_income_pay(campaign=c, title=title, given=5, by=bob)
    api(bob).post(f"/api/v1/campaigns/{c.slug}/events/title_income/", {"title": title.pk, "given": 8}, format="json")
    later = {p.payee: p.amount for p in Posting.objects.filter(campaign=c, kind="title_income", year=c.current_year)}
    assert later == {england: 8, france: 4}
    line = ChronicleEntry.objects.filter(campaign=c, kind="title_income").last()
    assert line.readers == f",{min(france.pk, england.pk)},{max(france.pk, england.pk)},"  # money: the houses paid only


def test_the_income_split_follows_the_provinces():
    assert bl.title_income_split([(5, 1), (2, 1)], 1) == {1: 12}
    assert bl.title_income_split([(5, 2), (2, 1)], 1) == {2: 5, 1: 7}  # 10 of the largest's part: half to its controller
    assert bl.title_income_split([(5, 2), (2, 3)], 1) == {2: 5, 3: 1, 1: 6}
    with pytest.raises(RuleError, match="several do"):
        bl.title_income_split([(5, 2), (2, 3)], 1, given=7)


@pytest.mark.django_db
def test_a_royal_matchs_title_is_a_title_given_at_the_table(eu, bob, gm):
    """BloodLine, Marriage: a match of the monarch's child 'must involve a title for the Dynasty that accepts
    giving up its character'; the title given at the table is the one the match names."""
    from dynasties.services.marriages import marriage_arrange, marriage_terms_set, marriage_wed

    c, france, england, _king, elder, *_ = eu
    bride = person(c, england, "Bride", "F", c.current_year - 18)
    match = marriage_arrange(campaign=c, husband=elder, wife=bride, dowry="100 ducats", by=gm)
    at_step(c, Step.INTERPHASE)  # BloodLine weds at the start of the Diplomacy phase
    with pytest.raises(RuleError, match="needs a title for the giving dynasty"):
        marriage_wed(campaign=c, marriage=match, by=gm)
    title = logged(bob).post(
        event_url(c, "bloodline_title_grant"), grant_form(france, elder, "Duke of Burgundy", ("Burgundy", 5))
    )
    title = Title.objects.get(campaign=c, name="Duke of Burgundy")
    marriage_terms_set(campaign=c, marriage=match, dowry="100 ducats", alliance_title=title.name, by=gm)
    wed = marriage_wed(campaign=c, marriage=match, by=gm)
    assert wed.wedding_year == c.current_year and wed.alliance_title == "Duke of Burgundy"


@pytest.mark.django_db
def test_a_title_given_at_the_table_is_claimed_in_a_dynastic_crisis_from_the_titles_page(eu, bob, alice):
    from dynasties.services import survival_finish, survival_roll
    from dynasties.services.common import World

    c, france, england, king, elder, younger, grandson = eu
    Character.objects.filter(pk__in=[elder.pk, younger.pk, grandson.pk]).update(status=Status.DEAD, death_year=1491)
    lord = person(c, england, "Edmund", "M", c.current_year - 30)
    logged(bob).post(
        event_url(c, "bloodline_title_grant"), grant_form(france, lord, "Duke of Burgundy", ("Burgundy", 5), ("Nevers", 2))
    )
    title = Title.objects.get(campaign=c, name="Duke of Burgundy")
    at_step(c, Step.SURVIVAL)
    faces = {p.pk: [7, 7] for p in World(c).in_play()}
    faces[king.pk] = [1, 1]
    survival_roll(campaign=c, faces=faces, by=SYSTEM_ACTOR)
    survival_finish(campaign=c, source=RandomSource(3), by=SYSTEM_ACTOR)
    titles = logged(alice).get(reverse("pages:titles", args=[c.slug])).content.decode()
    assert "Dynastic Crisis" in titles and "Claim" in titles
    logged(alice).post(
        reverse("pages:titles", args=[c.slug]),
        {"op": "crisis_claim", "title": title.pk, "provinces": "Burgundy", "action_key": key()},
    )
    title.refresh_from_db()
    assert title.holder is None and {p["name"]: p["controller"] for p in title.provinces}["Burgundy"] == england.pk


@pytest.mark.django_db
def test_the_desks_titles_list_points_to_the_grant_at_the_table(rule_g, gm):
    """The desk adds no title ("granted at the table"): its list links to the event's form."""
    c, *_ = rule_g
    client = logged(gm)
    client.get(reverse("admin:desk_choose", args=[c.pk]))
    listing = client.get(reverse("admin:dynasties_title_changelist"))
    assert listing.status_code == 200
    body = listing.content.decode()
    assert event_url(c, "title_grant") in body and "A Governor made (at the table)" in body
    assert reverse("admin:dynasties_title_add") not in body  # still no hand-made title
