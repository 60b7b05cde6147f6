"""BloodLine's minor houses at the table (issue 31): a minor house brought into play by its set-up
rolls, a player's offer made and withdrawn from his own page, the minor houses' answers with the
table's dice, the Royal Marriage box rating; each through the page and the API, refused with the
rule cited, one step action (undo takes it back)."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import ActionKey, ChronicleEntry, Membership, Role, Roll, RollSource, Step
from campaign.permissions import SYSTEM_ACTOR, Forbidden
from campaign.undo import new_action_key, undo_step
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Marriage, MarriageOffer, OfferStatus, Reign, Status
from dynasties.services import DynastySpec, campaign_create
from dynasties.services.minor_houses import minor_house_create, offer_make, offer_withdraw, offers_resolve
from rules import bloodline as bl
from rules.dice import FixedSource, RandomSource
from rules.errors import IllegalMarriage
from tests.factories import at_step, person, seat_member

_names = itertools.count()


# --- the cast -------------------------------------------------------------------------------------


def user(name: str):
    return get_user_model().objects.create_user(f"{name}-{next(_names)}", password="pw-minor-houses-1")


@pytest.fixture
def table(db):
    """A BloodLine campaign: Alice plays France, Bob England, an observer looks; the GM runs it. The
    minor house of Savoia (Savoy) has its set-up children put out of the way: each test brings its own."""
    gm, alice, bob, observer = user("gm"), user("alice"), user("bob"), user("observer")
    c = campaign_create(
        name=f"Minors at the table {next(_names)}",
        ruleset=bl.NAME,
        dynasties=[DynastySpec("Valois", "France"), DynastySpec("Tudor", "England"), DynastySpec("Savoia", "Savoy", "minor")],
        source=RandomSource(4),
        by=gm,
    )
    houses = {d.crown: d for d in Dynasty.objects.filter(campaign=c)}
    seat_member(campaign=c, user=alice, role=Role.PLAYER, dynasty=houses["France"])
    seat_member(campaign=c, user=bob, role=Role.PLAYER, dynasty=houses["England"])
    Membership.objects.create(campaign=c, user=observer, role=Role.OBSERVER)
    Character.objects.filter(campaign=c, controlled_by=houses["Savoy"], father__isnull=False).update(
        status=Status.DEAD, death_year=c.current_year, death_cause="out of the way"
    )
    return type("Table", (), {"campaign": c, "gm": gm, "alice": alice, "bob": bob, "observer": observer, "house": houses})


def savoy_child(t, name: str, sex: str, born: int, order: int = 1) -> Character:
    king = Reign.objects.get(campaign=t.campaign, crown="Savoy", end_year__isnull=True).holder
    queen = Marriage.objects.get(campaign=t.campaign, husband=king, ended_year__isnull=True).wife
    return person(t.campaign, t.house["Savoy"], name, sex, born, father=king, mother=queen, order=order, adm=5, dip=5, mil=5)


def royal(t, crown: str, name: str, sex: str, born: int = 1470) -> Character:
    """A player's unmarried character outside the line of succession (no derived dowry factor)."""
    return person(t.campaign, t.house[crown], name, sex, born, adm=5, dip=5, mil=5)


def page(u) -> Client:
    client = Client()
    client.force_login(u)
    return client


def api(u) -> APIClient:
    client = APIClient()
    client.force_authenticate(u)
    return client


def url(t, key: str) -> str:
    return reverse("pages:event", args=[t.campaign.slug, key])


def endpoint(t, key: str) -> str:
    return f"/api/v1/campaigns/{t.campaign.slug}/events/{key}/"


def dice(name: str, faces: list[int]) -> dict[str, int]:
    """A DICE field's dice as the page's form posts them."""
    return {f"{name}-{i}": face for i, face in enumerate(faces)}


# --- the rules ------------------------------------------------------------------------------------


def test_the_minor_set_up_gives_one_child_for_each_20_years_of_the_kings_age():
    assert bl.minor_king_age([5, 5]) == 40
    assert [bl.minor_children(bl.minor_king_age([a, b])) for a, b in ((1, 1), (2, 2), (3, 2), (10, 10))] == [0, 0, 1, 4]
    assert bl.MINOR_MAX_CHILDREN == 4
    assert bl.minor_house_setup([5, 5], 1500) == (1460, 1465, (1480, 1481))
    assert bl.minor_nobility_chance() == bl.minor_nobility_chance().__class__(1, 2)


# --- who is offered what --------------------------------------------------------------------------


def test_each_seat_is_listed_the_events_it_may_record(table):
    t = table
    listed = {
        who: [e["key"] for e in api(u).get(f"/api/v1/campaigns/{t.campaign.slug}/events/").json()]
        for who, u in (("gm", t.gm), ("alice", t.alice), ("observer", t.observer))
    }
    ours = ("minor_house_create", "offer_make", "offer_withdraw", "offers_resolve", "royal_marriage_box_set")
    assert set(ours) <= set(listed["gm"])
    assert [k for k in listed["alice"] if k in ours] == ["offer_make", "offer_withdraw"]
    assert not [k for k in listed["observer"] if k in ours]
    text = page(t.alice).get(reverse("pages:events", args=[t.campaign.slug])).content.decode()
    assert "An offer for a minor house&#x27;s child" in text and "A minor house enters play" not in text
    for key in ("minor_house_create", "offers_resolve", "royal_marriage_box_set"):
        assert page(t.alice).get(url(t, key)).status_code == 403
    assert page(t.observer).get(url(t, "offer_make")).status_code == 403


def test_a_blood_royale_campaign_has_no_minor_houses_events(campaign, gm):
    for key in ("minor_house_create", "offer_make", "offers_resolve"):
        assert page(gm).get(reverse("pages:event", args=[campaign.slug, key])).status_code == 404
        assert api(gm).post(f"/api/v1/campaigns/{campaign.slug}/events/{key}/", {}, format="json").status_code == 404


# --- a minor house enters play ----------------------------------------------------------------------


def test_the_gm_brings_a_minor_house_into_play_with_the_tables_dice(table):
    t = table
    form = {
        "name": "Gonzaga",
        "crown": "Mantua",
        "rating": 3,
        **dice("king_age", [5, 5]),  # 40 years: two children
        **dice("king", [3, 4, 10]),
        **dice("wife", [6, 7, 8]),
        **dice("child_1", [2, 5, 1, 9]),  # a boy
        **dice("child_2", [7, 9, 9, 9]),  # a girl
        "action_key": new_action_key(),
    }
    answer = page(t.gm).post(url(t, "minor_house_create"), form, follow=True)
    assert answer.status_code == 200, answer.content.decode()[:2000]
    house = Dynasty.objects.get(campaign=t.campaign, name="Gonzaga")
    assert house.kind == DynastyKind.MINOR and house.crown == "Mantua"
    crown = Crown.objects.get(campaign=t.campaign, name="Mantua")
    assert crown.home_dynasty == house and crown.state[bl.ROYAL_MARRIAGE_BOX_KEY] == 3
    king = Reign.objects.get(campaign=t.campaign, crown="Mantua", end_year__isnull=True).holder
    year = t.campaign.current_year
    assert king.age(year) == 40 and king.characteristics == {"adm": 3, "dip": 4, "mil": 9}  # 10 held to 9
    wife = Marriage.objects.get(husband=king).wife
    assert wife.age(year) == 35 and wife.characteristics == {"adm": 6, "dip": 7, "mil": 8}
    children = list(Character.objects.filter(campaign=t.campaign, father=king).order_by("birth_year"))
    assert [(c.sex, c.age(year), c.characteristics) for c in children] == [
        ("M", 20, {"adm": 5, "dip": 3, "mil": 9}),  # unmodified: 1 held to 3
        ("F", 19, {"adm": 9, "dip": 9, "mil": 9}),
    ]
    rolls = Roll.objects.filter(campaign=t.campaign, subjects__character__controlled_by=house).distinct()
    assert rolls.count() == 1 + 3 + 3 + 2 * 4 and set(rolls.values_list("source", flat=True)) == {RollSource.ENTERED}
    assert ChronicleEntry.objects.filter(campaign=t.campaign, kind="created", text__contains="Gonzaga rules Mantua").exists()
    assert ActionKey.objects.filter(campaign=t.campaign, label="A minor house enters play").exists()
    assert "The house of Gonzaga rules Mantua" in answer.content.decode()


def test_dice_typed_for_a_child_the_kings_age_does_not_give_are_refused_and_nothing_is_written(table):
    t = table
    before = Dynasty.objects.filter(campaign=t.campaign).count(), Roll.objects.filter(campaign=t.campaign).count()
    form = {
        "name": "Gonzaga",
        "crown": "Mantua",
        **dice("king_age", [3, 3]),  # 24 years: one child
        **dice("child_2", [1, 5, 5, 5]),
        "action_key": new_action_key(),
    }
    answer = page(t.gm).post(url(t, "minor_house_create"), form)
    assert answer.status_code == 400
    text = answer.content.decode()
    assert "BloodLine, Minor Set-up" in text and "child 2" in text
    assert (Dynasty.objects.filter(campaign=t.campaign).count(), Roll.objects.filter(campaign=t.campaign).count()) == before
    half = page(t.gm).post(
        url(t, "minor_house_create"), {"name": "Este", "crown": "Ferrara", "king-0": 4, "action_key": new_action_key()}
    )
    assert half.status_code == 400 and "type all 3 dice, or none" in half.content.decode()
    assert not Dynasty.objects.filter(campaign=t.campaign, name="Este").exists()


def test_a_minor_house_through_the_api_with_the_servers_dice_and_its_refusals(table):
    t = table
    done = api(t.gm).post(
        endpoint(t, "minor_house_create"), {"name": "Este", "crown": "Ferrara"}, format="json", HTTP_IDEMPOTENCY_KEY="mh-1"
    )
    assert done.status_code == 200, done.content
    assert "Este rules Ferrara" in done.json()["message"]
    assert any(r["purpose"] == "minor_setup" for r in done.json()["rolls"])
    assert Reign.objects.filter(campaign=t.campaign, crown="Ferrara", end_year__isnull=True).exists()
    taken = api(t.gm).post(endpoint(t, "minor_house_create"), {"name": "Estense", "crown": "ferrara"}, format="json")
    assert taken.status_code == 400 and "Ferrara has its royal house" in str(taken.json())
    refused = api(t.alice).post(endpoint(t, "minor_house_create"), {"name": "Medici", "crown": "Florence"}, format="json")
    assert refused.status_code == 403
    with pytest.raises(Forbidden):
        minor_house_create(campaign=t.campaign, name="Medici", crown="Florence", by=t.bob)
    assert not Dynasty.objects.filter(campaign=t.campaign, name="Medici").exists()


# --- offers ---------------------------------------------------------------------------------------


def test_a_player_makes_an_offer_from_his_own_page(table):
    t = table
    bianca = savoy_child(t, "Bianca", "F", 1475)
    jean = royal(t, "France", "Jean", "M")
    henry = royal(t, "England", "Henry", "M")
    client = page(t.alice)
    form_page = client.get(url(t, "offer_make")).content.decode()
    assert "Jean" in form_page and "Henry" not in form_page  # her own house's suitors only
    assert "Bianca" in form_page and "min. 2 ducats (box 1 x2 heir apparent)" in form_page
    answer = client.post(
        url(t, "offer_make"),
        {"suitor": jean.pk, "minor_character": bianca.pk, "dowry": 40, "stays_in_minor": "on", "action_key": new_action_key()},
        follow=True,
    )
    assert answer.status_code == 200, answer.content.decode()[:2000]
    offer = MarriageOffer.objects.get(campaign=t.campaign, suitor=jean)
    assert (offer.minor_character, offer.dowry, offer.stays_in_minor, offer.status) == (bianca, 40, True, OfferStatus.OPEN)
    assert "Offered: Jean" in answer.content.decode()
    line = ChronicleEntry.objects.get(campaign=t.campaign, kind="minor_offer", data__offer=offer.pk)
    assert "Valois offers Jean" in line.text
    # another house's suitor: not offered to her, refused by the service itself
    other = client.post(
        url(t, "offer_make"), {"suitor": henry.pk, "minor_character": bianca.pk, "dowry": 40, "action_key": new_action_key()}
    )
    assert other.status_code == 400 and "not one of the available choices" in other.content.decode()
    through_api = api(t.alice).post(
        endpoint(t, "offer_make"), {"suitor": henry.pk, "minor_character": bianca.pk, "dowry": 40}, format="json"
    )
    assert through_api.status_code == 400 and "suitor" in str(through_api.json())
    with pytest.raises(Forbidden, match="your own dynasty"):
        offer_make(campaign=t.campaign, minor_character=bianca, suitor=henry, dowry=40, by=t.alice)
    assert not MarriageOffer.objects.filter(suitor=henry).exists()


def test_an_offer_through_the_api_and_below_the_minimum_dowry(table):
    t = table
    carlo = savoy_child(t, "Carlo", "M", 1476)
    anne = royal(t, "England", "Anne", "F")
    from dynasties.services.minor_houses import royal_marriage_box_set

    royal_marriage_box_set(campaign=t.campaign, crown="Savoy", rating=10, by=SYSTEM_ACTOR)
    # Carlo is Savoy's heir apparent (the only son left): x2
    low = api(t.bob).post(endpoint(t, "offer_make"), {"suitor": anne.pk, "minor_character": carlo.pk, "dowry": 19}, format="json")
    assert low.status_code == 400
    assert "minimum dowry for Carlo Savoia: 20 ducats" in str(low.json()) and bl.MINOR_OFFERS_RULE in str(low.json())
    religion = api(t.bob).post(
        endpoint(t, "offer_make"),
        {"suitor": anne.pk, "minor_character": carlo.pk, "dowry": 79, "different_religion": True},
        format="json",
        HTTP_IDEMPOTENCY_KEY="offer-1",
    )
    assert religion.status_code == 400 and "80 ducats" in str(religion.json())  # 10 x2 heir apparent x4 religion
    done = api(t.bob).post(
        endpoint(t, "offer_make"),
        {"suitor": anne.pk, "minor_character": carlo.pk, "dowry": 80, "different_religion": True, "with_title": True},
        format="json",
        HTTP_IDEMPOTENCY_KEY="offer-2",
    )
    assert done.status_code == 200, done.content
    offer = MarriageOffer.objects.get(suitor=anne)
    assert offer.factors == ["different_religion", "minor_heir_apparent"] and offer.with_title


def test_a_player_withdraws_his_own_offer_and_not_another_houses(table):
    t = table
    bianca = savoy_child(t, "Bianca", "F", 1475)
    jean = royal(t, "France", "Jean", "M")
    henry = royal(t, "England", "Henry", "M")
    mine = offer_make(campaign=t.campaign, minor_character=bianca, suitor=jean, dowry=5, by=t.alice)
    his = offer_make(campaign=t.campaign, minor_character=bianca, suitor=henry, dowry=6, by=t.bob)
    client = page(t.alice)
    text = client.get(url(t, "offer_withdraw")).content.decode()
    assert f"{jean.display_name} for {bianca.display_name}" in text and henry.display_name not in text
    refused = client.post(url(t, "offer_withdraw"), {"offer": his.pk, "action_key": new_action_key()})
    assert refused.status_code == 400
    with pytest.raises(Forbidden):
        offer_withdraw(campaign=t.campaign, offer=his, by=t.alice)
    answer = client.post(
        url(t, "offer_withdraw"), {"offer": mine.pk, "reason": "a better match", "action_key": new_action_key()}, follow=True
    )
    assert answer.status_code == 200
    mine.refresh_from_db()
    his.refresh_from_db()
    assert (mine.status, mine.note) == (OfferStatus.REJECTED, "withdrawn: a better match")
    assert his.status == OfferStatus.OPEN
    again = api(t.alice).post(endpoint(t, "offer_withdraw"), {"offer": mine.pk}, format="json")
    assert again.status_code == 400  # no longer among her open offers
    by_api = api(t.bob).post(endpoint(t, "offer_withdraw"), {"offer": his.pk}, format="json", HTTP_IDEMPOTENCY_KEY="w-1")
    assert by_api.status_code == 200, by_api.content
    his.refresh_from_db()
    assert his.status == OfferStatus.REJECTED


# --- the minor houses answer ------------------------------------------------------------------------


def _two_children(t):
    """Bianca (elder) has Jean's offer; Lucia has none."""
    bianca = savoy_child(t, "Bianca", "F", 1470, order=1)
    lucia = savoy_child(t, "Lucia", "F", 1472, order=2)
    jean = royal(t, "France", "Jean", "M")
    offer = offer_make(campaign=t.campaign, minor_character=bianca, suitor=jean, dowry=5, by=t.alice)
    at_step(t.campaign, Step.MARRIAGES)
    return bianca, lucia, jean, offer


def test_the_gm_resolves_the_offers_with_the_tables_dice_and_undo_takes_it_back(table):
    t = table
    bianca, lucia, jean, offer = _two_children(t)
    client = page(t.gm)
    text = client.get(url(t, "offers_resolve")).content.decode()
    assert "1 open offer (Jean Valois)" in text and "no offer: weds into the nobility on 6-10 on 1d10: 5 in 10 (1/2, 50%)" in text
    # dice typed for Bianca, whose offer stands: refused, nothing recorded
    wrong = client.post(
        url(t, "offers_resolve"),
        {"children": [bianca.pk, lucia.pk], f"faces-{bianca.pk}-0": 9, f"faces-{lucia.pk}-0": 7, "action_key": new_action_key()},
    )
    assert wrong.status_code == 400 and "Bianca Savoia accepts an offer and rolls nothing" in wrong.content.decode()
    offer.refresh_from_db()
    assert offer.status == OfferStatus.OPEN and not Marriage.objects.filter(wife=lucia).exists()
    form = {"children": [lucia.pk], f"faces-{lucia.pk}-0": 7, **{f"spouses-{lucia.pk}-{i}": v for i, v in enumerate([4, 5, 6])}}
    answer = client.post(url(t, "offers_resolve"), {**form, "action_key": new_action_key()}, follow=True)
    assert answer.status_code == 200, answer.content.decode()[:2000]
    assert "Bianca Savoia accepts an offer; Lucia Savoia weds into the nobility" in answer.content.decode()
    offer.refresh_from_db()
    assert offer.status == OfferStatus.ACCEPTED
    assert Marriage.objects.filter(husband=jean, wife=bianca, ended_year__isnull=True).exists()
    noble = Marriage.objects.get(wife=lucia).husband
    assert noble.characteristics == {"adm": 4, "dip": 5, "mil": 6} and noble.controlled_by == t.house["Savoy"]
    wed = Roll.objects.get(campaign=t.campaign, purpose="minor_nobility", subjects__character=lucia)
    assert (wed.faces, wed.source) == ([7], RollSource.ENTERED)
    # undo the step: the offers are open again, nobody wed
    undo_step(campaign=t.campaign, key=new_action_key(), by=t.gm)
    offer.refresh_from_db()
    assert offer.status == OfferStatus.OPEN
    assert not Marriage.objects.filter(wife__in=[bianca, lucia]).exists()
    assert not Roll.objects.filter(campaign=t.campaign, purpose="minor_nobility").exists()


def test_a_failed_roll_refuses_the_spouses_dice(table):
    t = table
    _, lucia, _, _ = _two_children(t)
    answer = page(t.gm).post(
        url(t, "offers_resolve"),
        {
            "children": [lucia.pk],
            f"faces-{lucia.pk}-0": 3,
            **{f"spouses-{lucia.pk}-{i}": v for i, v in enumerate([4, 5, 6])},
            "action_key": new_action_key(),
        },
    )
    assert answer.status_code == 400
    assert "Lucia Savoia does not wed this turn (1d10: 3; 6-10 weds into the nobility)" in answer.content.decode()
    assert not Roll.objects.filter(campaign=t.campaign, purpose="minor_nobility").exists()


def test_the_api_resolves_with_typed_dice_and_refuses_a_player(table):
    t = table
    bianca, lucia, _, offer = _two_children(t)
    assert api(t.alice).post(endpoint(t, "offers_resolve"), {}, format="json").status_code == 403
    with pytest.raises(Forbidden):
        offers_resolve(campaign=t.campaign, by=t.alice)
    stray = api(t.gm).post(endpoint(t, "offers_resolve"), {"children": [lucia.pk], "faces": {str(bianca.pk): [2]}}, format="json")
    assert stray.status_code == 400
    done = api(t.gm).post(
        endpoint(t, "offers_resolve"),
        {"children": [lucia.pk], "faces": {str(lucia.pk): [2]}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="resolve-1",
    )
    assert done.status_code == 200, done.content
    assert "Lucia Savoia does not marry" in done.json()["message"]
    offer.refresh_from_db()
    assert offer.status == OfferStatus.ACCEPTED
    again = api(t.gm).post(endpoint(t, "offers_resolve"), {}, format="json", HTTP_IDEMPOTENCY_KEY="resolve-2")
    assert again.status_code == 400 and "already answered" in str(again.json())


def test_the_answers_wait_for_the_marriages_step_and_the_turn_page_lists_them_there(table):
    t = table
    savoy_child(t, "Bianca", "F", 1470)
    at_step(t.campaign, Step.SURVIVAL)
    early = api(t.gm).post(endpoint(t, "offers_resolve"), {}, format="json")
    assert early.status_code == 409 and "Marriages" in str(early.json())
    turn = reverse("pages:turn", args=[t.campaign.slug])
    assert "The minor houses answer the offers" not in page(t.gm).get(turn).content.decode()
    at_step(t.campaign, Step.MARRIAGES)
    assert "The minor houses answer the offers" in page(t.gm).get(turn).content.decode()


def test_server_dice_resolution_through_the_service_keeps_its_order(table):
    t = table
    _two_children(t)
    results = offers_resolve(campaign=t.campaign, source=FixedSource([(6,), (4,), (5,), (6,)]), by=t.gm)
    assert [r.outcome for r in results] == ["betrothed", "nobility"]
    assert results[1].spouse is not None and results[1].spouse.characteristics == {"adm": 4, "dip": 5, "mil": 6}


# --- the Royal Marriage box -----------------------------------------------------------------------


def test_the_gm_sets_the_royal_marriage_box_and_the_minimum_follows(table):
    t = table
    bianca = savoy_child(t, "Bianca", "F", 1470)
    answer = page(t.gm).post(
        url(t, "royal_marriage_box_set"), {"crown": "Savoy", "rating": 7, "action_key": new_action_key()}, follow=True
    )
    assert answer.status_code == 200 and "Savoy: Royal Marriage box rating 7" in answer.content.decode()
    assert Crown.objects.get(campaign=t.campaign, name="Savoy").state[bl.ROYAL_MARRIAGE_BOX_KEY] == 7
    assert "min. 14 ducats (box 7 x2 heir apparent)" in page(t.alice).get(url(t, "offer_make")).content.decode()
    assert (
        api(t.alice).post(endpoint(t, "royal_marriage_box_set"), {"crown": "Savoy", "rating": 2}, format="json").status_code
        == 403
    )
    not_minor = api(t.gm).post(endpoint(t, "royal_marriage_box_set"), {"crown": "France", "rating": 2}, format="json")
    assert not_minor.status_code == 400
    done = api(t.gm).post(
        endpoint(t, "royal_marriage_box_set"), {"crown": "Savoy", "rating": 2}, format="json", HTTP_IDEMPOTENCY_KEY="rmb-1"
    )
    assert done.status_code == 200, done.content
    assert Crown.objects.get(campaign=t.campaign, name="Savoy").state[bl.ROYAL_MARRIAGE_BOX_KEY] == 2
    jean = royal(t, "France", "Jean", "M")
    with pytest.raises(IllegalMarriage, match="minimum dowry for Bianca Savoia: 4 ducats"):  # x2: she is Savoy's heir apparent
        offer_make(campaign=t.campaign, minor_character=bianca, suitor=jean, dowry=1, by=t.alice)


# --- who may not: every event, as the roles that may not record it, in a BloodLine campaign --------

BODIES = {
    "minor_house_create": lambda t, x: {"name": "Gonzaga", "crown": "Mantua", "king_age": [5, 5]},
    "offer_make": lambda t, x: {"suitor": x["pierre"].pk, "minor_character": x["bianca"].pk, "dowry": 5},
    "offer_withdraw": lambda t, x: {"offer": x["offer"].pk},
    "offers_resolve": lambda t, x: {},
    "royal_marriage_box_set": lambda t, x: {"crown": "Savoy", "rating": 3},
}
GM_ONLY = {"minor_house_create", "offers_resolve", "royal_marriage_box_set"}


def _written(t) -> tuple[int, ...]:
    c = t.campaign
    return (
        Dynasty.objects.filter(campaign=c).count(),
        MarriageOffer.objects.filter(campaign=c).exclude(status=OfferStatus.OPEN).count(),
        MarriageOffer.objects.filter(campaign=c).count(),
        Roll.objects.filter(campaign=c).count(),
        ChronicleEntry.objects.filter(campaign=c).count(),
        Crown.objects.get(campaign=c, name="Savoy").state.get(bl.ROYAL_MARRIAGE_BOX_KEY, 0),
    )


@pytest.mark.parametrize("key", sorted(BODIES))
def test_the_roles_that_may_not_are_refused_and_nothing_is_written(table, key):
    t = table
    x = {"bianca": savoy_child(t, "Bianca", "F", 1470), "jean": royal(t, "France", "Jean", "M")}
    x["pierre"] = royal(t, "France", "Pierre", "M", born=1472)
    x["offer"] = offer_make(campaign=t.campaign, minor_character=x["bianca"], suitor=x["jean"], dowry=5, by=t.alice)
    at_step(t.campaign, Step.MARRIAGES)
    outsider = user("outsider")
    refused = {"observer": t.observer, "outsider": outsider, "bob": t.bob} | ({"alice": t.alice} if key in GM_ONLY else {})
    before = _written(t)
    for who, u in refused.items():
        body = BODIES[key](t, x)
        answer = api(u).post(endpoint(t, key), body, format="json")
        assert answer.status_code in ((404,) if who == "outsider" else (400, 403)), (who, answer.status_code, answer.content)
        posted = page(u).post(url(t, key), {**body, "action_key": new_action_key()})
        assert posted.status_code in ((404,) if who == "outsider" else (400, 403)), (who, posted.status_code)
        anonymous = APIClient().post(endpoint(t, key), body, format="json")
        assert anonymous.status_code in (401, 403, 404)
        assert _written(t) == before, f"{who} wrote something through {key}"
    allowed = api(t.gm if key in GM_ONLY else t.alice).post(endpoint(t, key), BODIES[key](t, x), format="json")
    assert allowed.status_code == 200, allowed.content  # the same request from one who may is recorded
    assert _written(t) != before


# --- the forms' queries do not grow with the campaign ------------------------------------------------


@pytest.mark.parametrize(
    "key", ["offer_make", "offer_withdraw", "offers_resolve", "royal_marriage_box_set", "minor_house_create"]
)
def test_a_forms_queries_do_not_grow_with_the_minors_and_the_suitors(table, key):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    t = table
    at_step(t.campaign, Step.MARRIAGES)

    def count(n: int) -> int:
        for i in range(n):
            child = savoy_child(t, f"Child{n}{i}", "F" if i % 2 else "M", 1470 + i, order=i + 1)
            suitor = royal(t, "France", f"Suitor{n}{i}", "M" if i % 2 else "F")
            offer_make(campaign=t.campaign, minor_character=child, suitor=suitor, dowry=50, by=t.gm)
        client = page(t.gm)
        with CaptureQueriesContext(connection) as seen:
            assert client.get(url(t, key)).status_code == 200
        return len(seen)

    assert count(2) == count(6)
