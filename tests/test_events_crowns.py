"""What the table decides about a crown (issue 31): the regent a minor's player chooses (a created baron's
dice typed in labelled fields), a crown given back, Stability changed by the board with its cause, a
capital lost and retaken and foreign military aid (the ruler's Charisma, lasting modifiers that follow
the ruler); and the crown's page and API for every member."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import ActionKey, ChronicleEntry, Membership, Role, Roll, Step
from campaign.permissions import SYSTEM_ACTOR, Forbidden
from campaign.steps import Chronicle, load_tables
from dynasties.models import (
    Character,
    Crown,
    CrownEvent,
    Dynasty,
    Marriage,
    Modifier,
    ModifierKind,
    Origin,
    Reign,
    Status,
)
from dynasties.services import campaign_create, survival_finish, survival_roll, turn_advance
from dynasties.services.bloodline import crown_stability_change, revolt
from dynasties.services.common import World
from dynasties.services.crowns import capital_lose, capital_retake, foreign_intervention
from dynasties.services.events import regent_appoint, survival_event
from dynasties.services.survival import survival_due
from rules import blood_royale as br
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.events_helpers import api, key, logged
from tests.factories import at_step, crown, person, seat_member

# --- helpers -------------------------------------------------------------------------------------------


def house(campaign, name: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=name)


def reign_of(campaign, name: str) -> Reign:
    return Reign.objects.select_related("holder", "regent").get(campaign=campaign, crown=name, end_year__isnull=True)


def charisma(c: Character) -> int:
    c.refresh_from_db()
    return int(c.characteristics.get("charisma", 0))


def england_regency(campaign) -> Reign:
    """England's King dies at Survival: his heir is a child, a baron is created to rule for him
    (nobody of the house is of age but the widow)."""
    at_step(campaign, Step.SURVIVAL)
    king = reign_of(campaign, "England").holder
    due = [d.character.pk for d in survival_due(campaign, World(campaign), load_tables(campaign))]
    survival_roll(campaign=campaign, faces={pk: [1, 1] if pk == king.pk else [6, 6] for pk in due}, by=SYSTEM_ACTOR)
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    reign = reign_of(campaign, "England")
    assert reign.regent is not None and reign.regent.origin == Origin.BARON
    return reign


def event_url(campaign, name: str) -> str:
    return reverse("pages:event", args=[campaign.slug, name])


# --- the regent: the player's choice -------------------------------------------------------------------


@pytest.mark.django_db
def test_the_player_chooses_his_regent_from_his_page_with_the_rules_choice_proposed(campaign, alice):
    reign = england_regency(campaign)
    baron = reign.regent
    uncle = person(campaign, house(campaign, "England"), "Uncle", "M", 1270)
    client = logged(alice)
    assert "A regent chosen" in client.get(reverse("pages:events", args=[campaign.slug])).content.decode()
    page = client.get(event_url(campaign, "regent_appoint"))
    body = page.content.decode()
    assert page.status_code == 200
    assert f'<option value="{uncle.pk}" selected>' in body  # the regent the rules would name today, proposed
    assert "the rules&#x27; choice" in body
    assert '<option value="England" selected>' in body
    assert "The baron&#x27;s Charisma (3d6): die 1" in body  # the baron's dice, one labelled field each
    done = client.post(
        event_url(campaign, "regent_appoint"), {"crown": "England", "regent": uncle.pk, "action_key": key()}, follow=True
    )
    assert done.status_code == 200 and "Uncle" in done.content.decode()
    reign.refresh_from_db()
    baron.refresh_from_db()
    assert reign.regent == uncle
    assert baron.status == Status.RETIRED  # a baron created to be regent retires when replaced
    assert ActionKey.objects.filter(campaign=campaign, label="A regent chosen").exists()  # one step action
    line = ChronicleEntry.objects.filter(campaign=campaign, kind="regency").order_by("-pk").first()
    assert "Uncle" in line.text and "replaces" in line.text and line.audience == "public"


@pytest.mark.django_db
def test_another_player_is_not_offered_a_regency_that_is_not_his(campaign, bob):
    england_regency(campaign)
    uncle = person(campaign, house(campaign, "England"), "Uncle", "M", 1270)
    assert logged(bob).get(event_url(campaign, "regent_appoint")).status_code == 403
    url = f"/api/v1/campaigns/{campaign.slug}/events/regent_appoint/"
    assert api(bob).post(url, {"crown": "England", "regent": uncle.pk}, format="json").status_code == 403
    with pytest.raises(Forbidden):
        regent_appoint(campaign=campaign, crown="England", character=uncle, by=bob)
    assert reign_of(campaign, "England").regent != uncle


@pytest.mark.django_db
def test_the_regent_must_be_one_of_the_house_of_age_and_free_as_the_rule_says(campaign, gm):
    england_regency(campaign)
    england, france = house(campaign, "England"), house(campaign, "France")
    stranger = person(campaign, france, "Pierre", "M", 1270)
    child = person(campaign, england, "Kid", "M", 1290)
    captive = person(campaign, england, "Captive", "M", 1272)
    Character.objects.filter(pk=captive.pk).update(prisoner_of=france)  # taken on the board
    for who, words in (
        (stranger, "not a character of the house that plays England"),
        (child, "is 10: a regent must be of age"),
        (captive, "is a prisoner"),
    ):
        with pytest.raises(RuleError, match=words) as refused:
            regent_appoint(campaign=campaign, crown="England", character=who, by=gm)
        assert "Blood Royale A7" in refused.value.message  # the refusal cites the rule
    uncle = person(campaign, england, "Uncle", "M", 1270)
    with pytest.raises(RuleError, match="only 'if none are available'"):
        regent_appoint(campaign=campaign, crown="England", baron=True, by=gm)
    with pytest.raises(RuleError, match="one of the two"):
        regent_appoint(campaign=campaign, crown="England", character=uncle, baron=True, by=gm)
    with pytest.raises(RuleError, match="France has no regency"):
        regent_appoint(campaign=campaign, crown="France", character=uncle, by=gm)


@pytest.mark.django_db
def test_a_baron_is_created_with_the_dice_typed_in_labelled_fields_when_nobody_can_act(campaign, alice):
    reign = england_regency(campaign)
    old = reign.regent
    england, france = house(campaign, "England"), house(campaign, "France")
    # nobody of the house can act: the late King's widow retired at the Announcements, the baron is taken
    Character.objects.filter(campaign=campaign, controlled_by=england, status=Status.ALIVE, birth_year__lte=1285).exclude(
        pk=old.pk
    ).update(status=Status.RETIRED, retired_year=campaign.current_year)
    Character.objects.filter(pk=old.pk).update(prisoner_of=france)  # the regent taken on the board
    faces = {"strength": [6, 6, 5], "constitution": [1, 1, 2], "charisma": [3, 4, 3]}
    form = {"crown": "England", "baron": "on", "action_key": key()}
    for name, dice in faces.items():
        form.update({f"baron_{name}-{i}": face for i, face in enumerate(dice)})
    response = logged(alice).post(event_url(campaign, "regent_appoint"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    reign.refresh_from_db()
    baron = reign.regent
    assert baron.origin == Origin.BARON and baron.pk != old.pk and baron.controlled_by == england
    bands = load_tables(campaign)["characteristic_bands"]
    want = br.characteristics_from_totals(bands, "M", [sum(f) for f in faces.values()])
    assert baron.characteristics == want
    rolls = Roll.objects.filter(campaign=campaign, purpose="characteristic", subjects__character=baron).order_by("pk")
    assert [(r.detail, r.faces, r.source) for r in rolls] == [(k, f, "entered") for k, f in faces.items()]
    old.refresh_from_db()
    assert old.status == Status.RETIRED
    # half-typed dice are refused beside the field, and nothing is written
    Character.objects.filter(pk=baron.pk).update(prisoner_of=france)
    partly = {"crown": "England", "baron": "on", "baron_charisma-0": 3, "action_key": key()}
    refused = logged(alice).post(event_url(campaign, "regent_appoint"), partly)
    assert refused.status_code == 400 and reign_of(campaign, "England").regent == baron


@pytest.mark.django_db
def test_bloodline_has_no_regents(gm):
    eu = campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4), by=gm)
    assert logged(gm).get(event_url(eu, "regent_appoint")).status_code == 404


# --- a crown given back --------------------------------------------------------------------------------


def union(campaign):
    """England's Queen regnant weds the King of France: France's player holds both crowns."""
    at_step(campaign, Step.MARRIAGES)
    england = house(campaign, "England")
    old_king = reign_of(campaign, "England").holder
    queen = person(campaign, england, "Regina", "F", 1278)
    crown(campaign, queen, "England", 1300)
    old_king.status, old_king.death_year = Status.DEAD, 1299
    old_king.save()
    Marriage.objects.filter(husband=old_king).update(ended_year=1299, end_cause="death of the husband")
    french_king = reign_of(campaign, "France").holder
    Marriage.objects.filter(husband=french_king).update(ended_year=1299, end_cause="death of the wife")
    from dynasties.services import marriage_arrange

    marriage_arrange(campaign=campaign, husband=french_king, wife=queen, wed=True, by=SYSTEM_ACTOR)
    assert Crown.objects.get(campaign=campaign, name="England").controlled_by == house(campaign, "France")
    return queen


@pytest.mark.django_db
def test_the_player_holding_a_second_crown_gives_it_back_and_a_minor_gets_a_regent(campaign, alice, bob):
    union(campaign)
    england = house(campaign, "England")
    boy = person(campaign, england, "Edmund", "M", 1292)
    assert logged(alice).get(event_url(campaign, "crown_give_back")).status_code == 403  # not hers to give
    page = logged(bob).get(event_url(campaign, "crown_give_back"))
    assert (
        page.status_code == 200
        and "Edmund" in page.content.decode()
        and "a minor: a regent rules for him" in page.content.decode()
    )
    done = logged(bob).post(event_url(campaign, "crown_give_back"), {"crown": "England", "monarch": boy.pk, "action_key": key()})
    assert done.status_code == 302
    record = Crown.objects.get(campaign=campaign, name="England")
    assert record.controlled_by == england and record.union_with is None
    reign = reign_of(campaign, "England")
    assert reign.holder == boy and reign.regent is not None  # a minor set up rules through a regent (A7)
    assert reign.regent.controlled_by == england
    assert "given back to the house of" in ChronicleEntry.objects.get(campaign=campaign, kind="union_ends").text


@pytest.mark.django_db
def test_a_baron_for_a_crown_given_back_is_30_and_of_its_house_the_king_who_gave_it_lives(campaign, bob):
    """A7: the baron is "5 years younger than the late King (or 30 years old, whichever is older)". A crown
    given back has no late King (its King lives on, with his own crown): the baron is 30, of the house."""
    union(campaign)
    england = house(campaign, "England")
    boy = person(campaign, england, "Edmund", "M", 1292)
    Character.objects.filter(campaign=campaign, controlled_by=england).exclude(pk=boy.pk).exclude(
        pk=reign_of(campaign, "England").holder_id
    ).update(status=Status.DEAD, death_year=1299)  # nobody of the house can act as regent
    done = logged(bob).post(event_url(campaign, "crown_give_back"), {"crown": "England", "monarch": boy.pk, "action_key": key()})
    assert done.status_code == 302
    regent = reign_of(campaign, "England").regent
    assert regent.origin == Origin.BARON and regent.age(campaign.current_year) == 30
    assert regent.dynastic_name == england.name
    created = ChronicleEntry.objects.get(campaign=campaign, kind="created").text
    assert f"a baron and cousin of the house of {england.name}" in created and "the late" not in created


# --- Stability changed by the board --------------------------------------------------------------------


@pytest.fixture
def europa(gm, alice):
    c = campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4), by=gm)
    seat_member(campaign=c, user=alice, role=Role.PLAYER, dynasty=house(c, "France"))
    return c


@pytest.mark.django_db
def test_the_gm_records_a_stability_change_with_its_cause_as_the_rulebook_names_it(europa, gm, alice):
    url = f"/api/v1/campaigns/{europa.slug}/events/crown_stability_change/"
    assert api(alice).post(url, {"crown": "France", "cause": "peace"}, format="json").status_code == 403
    peace = api(gm).post(url, {"crown": "France", "cause": "peace"}, format="json")  # the rule fixes +1
    assert peace.status_code == 200, peace.content
    assert Crown.objects.get(campaign=europa, name="France").stability == 1
    for body, words in (
        ({"cause": "bankruptcy"}, "type the change the board gave (-2 to +0"),
        ({"cause": "levies", "delta": 2}, "Exceptional levies is -1 Stability"),
        ({"cause": "bankruptcy", "delta": -3}, "not -3"),
        ({"cause": "table", "delta": 1}, "Say why"),
        ({"cause": "enhance_stability", "delta": 0}, "0 changes nothing"),
    ):
        refused = api(gm).post(url, {"crown": "France", **body}, format="json")
        assert refused.status_code == 400 and words in str(refused.json()), (body, refused.json())
    assert (
        api(gm)
        .post(url, {"crown": "France", "cause": "bankruptcy", "delta": -2, "reason": "the Fuggers"}, format="json")
        .status_code
        == 200
    )
    assert api(gm).post(url, {"crown": "France", "cause": "war_lost", "delta": -4}, format="json").status_code == 200
    history = list(
        CrownEvent.objects.filter(campaign=europa, crown__name="France")
        .order_by("pk")
        .values_list("cause", "delta", "stability_after", "reason")
    )
    assert history == [
        ("peace", 1, 1, "a full peace"),
        ("bankruptcy", -2, -1, "a bankruptcy: the Fuggers"),
        ("war_lost", -4, -3, "a war lost"),
    ]
    # the page offers the causes with their change and rule beside each
    page = logged(gm).get(event_url(europa, "crown_stability_change")).content.decode()
    assert "A full peace" in page and "Stability +1 Full peace after war against MAJ" in page


@pytest.mark.django_db
def test_blood_royale_keeps_no_stability_to_record(campaign, gm):
    assert logged(gm).get(event_url(campaign, "crown_stability_change")).status_code == 404


# --- Charisma changed by the board ---------------------------------------------------------------------


@pytest.mark.django_db
def test_a_lost_capital_costs_its_ruler_one_charisma_until_it_is_retaken(campaign, gm, alice):
    king = reign_of(campaign, "England").holder
    before = charisma(king)
    assert logged(alice).get(event_url(campaign, "capital_lost")).status_code == 403  # the board's: the GM's
    done = logged(gm).post(event_url(campaign, "capital_lost"), {"crown": "England", "note": "the French", "action_key": key()})
    assert done.status_code == 302
    lost = Modifier.objects.get(campaign=campaign, kind=ModifierKind.CAPITAL_LOST, end_year__isnull=True)
    expected = -1 if before > -2 else 0
    assert (lost.crown, lost.character, lost.value) == ("England", king, expected)
    assert charisma(king) == before + expected
    line = ChronicleEntry.objects.get(campaign=campaign, kind="capital")
    assert line.audience == "public" and "until it is retaken" in line.text
    with pytest.raises(RuleError, match="already lost"):
        capital_lose(campaign=campaign, crown="England", by=gm)
    again = logged(gm).post(event_url(campaign, "capital_lost"), {"crown": "England", "action_key": key()})
    assert again.status_code == 400  # not offered: its capital is lost
    assert logged(gm).post(event_url(campaign, "capital_retaken"), {"crown": "England", "action_key": key()}).status_code == 302
    assert charisma(king) == before
    lost.refresh_from_db()
    assert lost.end_year == campaign.current_year and "retaken" in lost.end_reason
    with pytest.raises(RuleError, match="not lost"):
        capital_retake(campaign=campaign, crown="England", by=gm)


@pytest.mark.django_db
def test_a_lost_capital_never_takes_charisma_below_minus_two(campaign, gm):
    king = reign_of(campaign, "England").holder
    Character.objects.filter(pk=king.pk).update(characteristics={**king.characteristics, "charisma": -2})
    lost = capital_lose(campaign=campaign, crown="England", by=gm)
    assert lost.value == 0 and charisma(king) == -2
    assert "goes no lower than -2" in ChronicleEntry.objects.get(campaign=campaign, kind="capital").text
    capital_retake(campaign=campaign, crown="England", by=gm)
    assert charisma(king) == -2  # nothing was taken: nothing comes back


@pytest.mark.django_db
def test_the_lost_capitals_penalty_follows_the_ruler_regent_then_king_come_of_age(campaign, gm):
    england = house(campaign, "England")
    boy = person(campaign, england, "Boy", "M", campaign.current_year - 14, charisma=1)
    regent = person(campaign, england, "Regent", "M", 1260, charisma=0)
    reign = crown(campaign, boy, "England", campaign.current_year)
    reign.regent = regent
    reign.save()
    capital_lose(campaign=campaign, crown="England", by=gm)
    assert (charisma(regent), charisma(boy)) == (-1, 1)  # the regent rules: "regarded as 'King'" (A7)
    at_step(campaign, Step.INTERPHASE)
    turn_advance(campaign=campaign, by=SYSTEM_ACTOR)  # the King is 19: the regency ends
    assert (charisma(regent), charisma(boy)) == (0, 0)
    active = Modifier.objects.get(campaign=campaign, kind=ModifierKind.CAPITAL_LOST, end_year__isnull=True)
    assert active.character == boy
    assert Modifier.objects.get(campaign=campaign, kind=ModifierKind.CAPITAL_LOST, character=regent).end_year is not None
    assert "Boy" in ChronicleEntry.objects.filter(campaign=campaign, kind="capital").order_by("-pk").first().text


@pytest.mark.django_db
def test_the_lost_capitals_penalty_passes_to_the_new_monarch_when_the_king_dies(campaign, gm):
    king = reign_of(campaign, "England").holder
    capital_lose(campaign=campaign, crown="England", by=gm)
    at_step(campaign, Step.SURVIVAL)
    survival_event(campaign=campaign, reason="killed", characters=[king.pk], by=gm)
    new = reign_of(campaign, "England")
    ruler = new.regent if new.regent is not None else new.holder
    active = Modifier.objects.get(campaign=campaign, kind=ModifierKind.CAPITAL_LOST, end_year__isnull=True)
    assert active.character == ruler and ruler != king


@pytest.mark.django_db
def test_foreign_aid_is_the_players_to_record_and_may_take_charisma_below_minus_two(campaign, gm, alice, bob):
    king = reign_of(campaign, "England").holder
    Character.objects.filter(pk=king.pk).update(characteristics={**king.characteristics, "charisma": -2})
    url = f"/api/v1/campaigns/{campaign.slug}/events/foreign_intervention/"
    assert api(bob).post(url, {"crown": "England"}, format="json").status_code == 400  # not one of his crowns
    with pytest.raises(Forbidden):
        foreign_intervention(campaign=campaign, crown="England", by=bob)
    done = api(alice).post(url, {"crown": "England", "note": "Scottish lances"}, format="json")
    assert done.status_code == 200, done.content
    assert charisma(king) == -3  # "This can have the effect of reducing a monarch's Charisma below -2"
    foreign_intervention(campaign=campaign, crown="England", by=gm)
    assert charisma(king) == -4
    aid = Modifier.objects.filter(campaign=campaign, kind=ModifierKind.FOREIGN_INTERVENTION, character=king)
    assert aid.count() == 2 and all(m.end_year is None for m in aid)
    at_step(campaign, Step.SURVIVAL)
    survival_event(campaign=campaign, reason="killed", characters=[king.pk], by=gm)
    assert all(m.end_year == campaign.current_year and "death of" in m.end_reason for m in aid.all())


@pytest.mark.django_db
def test_the_capital_and_foreign_aid_are_blood_royales(europa, gm):
    for name in ("capital_lost", "capital_retaken", "foreign_intervention"):
        assert logged(gm).get(event_url(europa, name)).status_code == 404
    with pytest.raises(RuleError, match="Blood Royale"):
        capital_lose(campaign=europa, crown="France", by=gm)


# --- the crown's page and the API ----------------------------------------------------------------------


@pytest.mark.django_db
def test_every_member_sees_a_crowns_page_with_its_stability_on_the_track_and_its_history(europa, gm, alice):
    crown_stability_change(campaign=europa, crown="France", cause="peace", by=gm)
    world = World(europa)
    lines = Chronicle(europa)
    revolt(world, world.crowns["France"], 2, "a disputed succession", lines)
    lines.flush()
    observer = get_user_model().objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=europa, user=observer, role=Role.OBSERVER)
    url = reverse("pages:crown", args=[europa.slug, "France"])
    for user in (gm, alice, observer):
        page = logged(user).get(url)
        assert page.status_code == 200
    body = page.content.decode()
    assert 'class="high here" aria-current="true">+1</li>' in body  # the marker on the board's track
    assert "a full peace" in body and "2 revolts" in body and "2 revolts rolled in all" in body
    assert "Royal leaders" in body
    outsider = get_user_model().objects.create_user("stranger", password="stranger-password-1")
    assert logged(outsider).get(url).status_code == 404
    assert logged(gm).get(reverse("pages:crown", args=[europa.slug, "Narnia"])).status_code == 404
    # linked from the dashboard and the house's page
    assert url in logged(alice).get(reverse("pages:dashboard", args=[europa.slug])).content.decode()
    assert url in logged(alice).get(reverse("pages:dynasty", args=[europa.slug, house(europa, "France").pk])).content.decode()
    # the GM is offered the crown's events, the crown filled in
    assert event_url(europa, "crown_stability_change") + "?crown=France" in logged(gm).get(url).content.decode()
    assert event_url(europa, "crown_stability_change") not in logged(alice).get(url).content.decode()


@pytest.mark.django_db
def test_the_crown_page_shows_the_regency_the_union_and_the_lost_capital(campaign, gm, alice):
    england_regency(campaign)
    capital_lose(campaign=campaign, crown="England", by=gm)
    body = logged(alice).get(reverse("pages:crown", args=[campaign.slug, "England"])).content.decode()
    reign = reign_of(campaign, "England")
    assert "A minor, aged" in body and f"{reign.regent.display_name} rules as regent" in body
    assert "The capital is lost" in body and "Charisma of the ruler (the regent)" in body
    assert "Lasting modifiers" in body
    assert 'id="stability-h"' not in body  # no Stability in Blood Royale


@pytest.mark.django_db
def test_the_crown_page_costs_the_same_queries_however_long_its_history(europa, gm):
    url = reverse("pages:crown", args=[europa.slug, "France"])
    client = logged(gm)

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    crown_stability_change(campaign=europa, crown="France", cause="peace", by=gm)
    one = queries()
    for _ in range(12):
        crown_stability_change(campaign=europa, crown="France", cause="levies", by=gm)
    assert queries() == one


@pytest.mark.django_db
def test_the_api_reads_the_crowns_and_their_history(europa, campaign, gm, alice):
    crown_stability_change(campaign=europa, crown="France", cause="peace", by=gm)
    crowns = api(alice).get(f"/api/v1/campaigns/{europa.slug}/crowns/").json()["results"]
    france = next(c for c in crowns if c["name"] == "France")
    assert france["stability"] == 1 and france["monarch"] is not None and france["annexed"] is False
    events = api(alice).get(f"/api/v1/campaigns/{europa.slug}/crown-events/?crown={france['id']}").json()["results"]
    assert [(e["cause"], e["delta"], e["stability_after"]) for e in events] == [("peace", 1, 1)]
    # Blood Royale: no Stability; a lost capital and the regent are there
    capital_lose(campaign=campaign, crown="England", by=gm)
    england = next(
        c for c in api(alice).get(f"/api/v1/campaigns/{campaign.slug}/crowns/").json()["results"] if c["name"] == "England"
    )
    assert england["stability"] is None and england["capital_lost_since"] == campaign.current_year
    assert [m["kind"] for m in england["modifiers"]] == ["capital_lost"]


@pytest.mark.django_db
def test_the_apis_crowns_cost_the_same_queries_however_many_modifiers_and_events(europa, gm):
    client = api(gm)

    def queries(path: str) -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(f"/api/v1/campaigns/{europa.slug}/{path}").status_code == 200
        return len(ctx.captured_queries)

    crown_stability_change(campaign=europa, crown="France", cause="peace", by=gm)
    before = (queries("crowns/"), queries("crown-events/?page_size=100"))
    for name in ("France", "England", "Spain"):
        for _ in range(6):
            crown_stability_change(campaign=europa, crown=name, cause="levies", by=gm)
        Modifier.objects.create(
            campaign=europa, kind=ModifierKind.COMBAT_MALUS, value=-1, crown=name, reason="a spurned heir", start_year=1492
        )
    assert (queries("crowns/"), queries("crown-events/?page_size=100")) == before


@pytest.mark.django_db
def test_an_eu_monarchs_crown_shows_its_monarchs_values_and_a_union_its_partner(campaign, gm, alice):
    eu = campaign_create(name="Monarchs", ruleset="eu-monarchs", players=3, source=RandomSource(2), by=gm)
    from dynasties.services.eu_monarchs import monarch_succession_roll

    monarch_succession_roll(campaign=eu, crown="England", source=RandomSource(3), by=gm)
    body = logged(gm).get(reverse("pages:crown", args=[eu.slug, "England"])).content.decode()
    assert "ADM" in body and "DIP" in body and "MIL" in body and 'id="stability-h"' in body
    assert "line of succession" not in body  # the EU monarch tables keep no families
    union(campaign)  # England's Queen weds France's King: France's player holds England
    england = logged(alice).get(reverse("pages:crown", args=[campaign.slug, "England"])).content.decode()
    assert "held now by the house of" in england and "In a Dynastic Union with" in england
    assert reverse("pages:crown", args=[campaign.slug, "France"]) in england
