"""Pretenders, buy-backs, bastards and the aristocratic auction as the table's events (issue 31): each
through the page and the API, a player's buy-back from his own page, the refusals citing the rule,
undo, and the money lines read only by the houses that pay."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.test import Client
from django.urls import reverse

from campaign.models import ActionKey, ChronicleEntry, Role, Roll
from campaign.permissions import SYSTEM_ACTOR, Forbidden, seat_of
from campaign.undo import new_action_key, undo_step
from dynasties import treasury
from dynasties.models import Character, Dynasty, Marriage, Posting, Status
from dynasties.services import campaign_create
from dynasties.services.auction import auction_run
from dynasties.services.pretenders import bastard_create, pretender_buy_back, pretender_declare
from dynasties.table_events.pretenders import may_be_auctioned, may_buy_back, may_father, may_pretend
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.events_helpers import api, endpoint, logged, page
from tests.factories import person, seat_member, wed


def listed(client: Client, campaign) -> str:
    return client.get(reverse("pages:events", args=[campaign.slug])).content.decode()


def option(pk: int, name: str = "character") -> str:
    """How the form offers a character: a row to pick him from."""
    return f'type="radio" name="{name}" value="{pk}"'


def texts(user, campaign, what: str = "chronicle") -> str:
    """Everything the API's chronicle (or ledger) lists to this user, as one text."""
    out, url = [], f"/api/v1/campaigns/{campaign.slug}/{what}/?page_size=500"
    while url:
        body = api(user).get(url).json()
        out += [str(row) for row in body["results"]]
        url = body.get("next")
    return "\n".join(out)


@pytest.fixture
def court(campaign):
    """England (Alice's; France, Bob's, sits on its left and Spain on its right): King Edward (born
    1250) and Queen Eleanor, their sons Edmund (20, wed to Blanche, a nobleman's daughter, with a son
    Tom of 1) and Henry (18), and the starting child of 5."""
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    king = Character.objects.get(campaign=campaign, controlled_by=england, birth_year=1275)
    queen = Character.objects.get(campaign=campaign, controlled_by=england, birth_year=1280)
    Character.objects.filter(pk=king.pk).update(birth_year=1250)
    Character.objects.filter(pk=queen.pk).update(birth_year=1255)
    king.refresh_from_db()
    queen.refresh_from_db()
    edmund = person(campaign, england, "Edmund", "M", 1280, father=king, mother=queen, dynastic_name=king.dynastic_name)
    henry = person(campaign, england, "Henry", "M", 1282, father=king, mother=queen, dynastic_name=king.dynastic_name)
    blanche = person(campaign, None, "Blanche", "F", 1281, dynastic_name="Artois")
    blanche.controlled_by = england
    blanche.save()
    wed(campaign, edmund, blanche, 1298)
    tom = person(campaign, england, "Tom", "M", 1299, father=edmund, mother=blanche, dynastic_name=king.dynastic_name)
    child = Character.objects.get(campaign=campaign, controlled_by=england, birth_year=1295)
    houses = {d.crown: d for d in Dynasty.objects.filter(campaign=campaign)}
    return SimpleNamespace(
        campaign=campaign,
        england=england,
        france=houses["France"],
        germany=houses["Germany"],
        spain=houses["Spain"],
        king=king,
        queen=queen,
        edmund=edmund,
        henry=henry,
        blanche=blanche,
        tom=tom,
        child=child,
    )


def fresh(*characters: Character) -> list[Character]:
    return [Character.objects.get(pk=c.pk) for c in characters]


# --- A Pretender declared ------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_gm_declares_a_pretender_from_the_page(court, gm):
    client = logged(gm)
    assert "A Pretender declared" in listed(client, court.campaign)
    form = client.get(page(court.campaign, "pretender")).content.decode()
    assert option(court.edmund.pk) in form and option(court.henry.pk) in form
    assert "to the house of Anjou, the player on the left, with Blanche Artois, Tom Plantagenet" in form
    for refused in (court.king, court.queen, court.child, court.tom, court.blanche):  # the rule's exclusions
        assert option(refused.pk) not in form, refused
    body = {"character": court.edmund.pk, "action_key": new_action_key()}
    done = client.post(page(court.campaign, "pretender"), body, follow=True)
    assert done.status_code == 200
    assert "Edmund Plantagenet is a Pretender: the house of Anjou controls him from now on." in done.content.decode()
    edmund, blanche, tom, henry = fresh(court.edmund, court.blanche, court.tom, court.henry)
    assert edmund.controlled_by == court.france and edmund.pretender_of == court.england
    assert blanche.controlled_by == court.france and tom.controlled_by == court.france
    assert henry.controlled_by == court.england
    assert ActionKey.objects.filter(campaign=court.campaign, label="A Pretender declared").exists()  # one step action


@pytest.mark.django_db
def test_the_api_declares_a_pretender_for_the_gm_only(court, gm, alice):
    url = endpoint(court.campaign, "pretender")
    assert api(alice).post(url, {"character": court.henry.pk}, format="json").status_code == 403
    king = api(gm).post(url, {"character": court.king.pk}, format="json")
    assert king.status_code == 400 and "character" in king.json()["fields"]
    done = api(gm).post(url, {"character": court.henry.pk}, format="json", HTTP_IDEMPOTENCY_KEY="pretender-1")
    assert done.status_code == 200, done.content
    assert done.json()["message"] == "Henry Plantagenet is a Pretender: the house of Anjou controls him from now on."
    lines = [line["text"] for line in done.json()["chronicle"]]
    assert any("Henry Plantagenet leaves the house of Plantagenet as a Pretender" in line for line in lines)
    assert fresh(court.henry)[0].controlled_by == court.france


@pytest.mark.django_db
def test_a_player_is_not_offered_the_card(court, alice):
    client = logged(alice)
    assert "A Pretender declared" not in listed(client, court.campaign)
    assert client.get(page(court.campaign, "pretender")).status_code == 403
    before = Character.objects.filter(campaign=court.campaign, pretender_of__isnull=False).count()
    body = {"character": court.edmund.pk, "action_key": new_action_key()}
    assert client.post(page(court.campaign, "pretender"), body).status_code == 403
    assert Character.objects.filter(campaign=court.campaign, pretender_of__isnull=False).count() == before == 0


@pytest.mark.django_db
def test_the_service_refuses_who_the_rule_forbids_citing_it(court, gm):
    c = court.campaign
    cases = {
        court.blanche: "Blanche Artois was not born to the house of Plantagenet that controls him: the cards make a Pretender "
        "of a character who leaves the Dynasty of his birth (Pretenders and Bastards).",
        court.child: "characters can only become Pretenders if they are at least 15 years old (Pretenders and Bastards).",
        court.king: "monarchs may not abdicate nor be deposed (Succession, A7).",
    }
    for who, rule in cases.items():
        with pytest.raises(RuleError) as refused:
            pretender_declare(campaign=c, character=who, by=gm)
        assert rule in refused.value.message and refused.value.fields == {"character": "not_a_pretender"}
    offered = {choice.value for choice in may_pretend(c, seat_of(gm, c))}
    assert court.edmund.pk in offered and not offered & {w.pk for w in cases}  # the form offers what the rule allows
    Character.objects.filter(pk=court.henry.pk).update(status=Status.DEAD, death_year=1299)
    Character.objects.filter(pk=court.child.pk).update(sex="F")
    with pytest.raises(RuleError, match="the monarch's only son cannot become a Pretender \\(Pretenders and Bastards\\)"):
        pretender_declare(campaign=c, character=court.edmund, by=gm)
    assert not Character.objects.filter(campaign=c, pretender_of__isnull=False).exists()


# --- bought back ---------------------------------------------------------------------------------


@pytest.fixture
def abroad(court):
    """Edmund declared a Pretender (with Blanche and Tom, to France); England holds 80 Crowns."""
    pretender_declare(campaign=court.campaign, character=court.edmund, by=SYSTEM_ACTOR)
    treasury.post(court.campaign, payer=None, payee=court.england, amount=80, kind="tax", reason="taxes")
    return court


@pytest.mark.django_db
def test_alice_buys_back_her_pretender_from_her_own_page(abroad, alice):
    c, client = abroad.campaign, logged(alice)
    assert "A Pretender bought back" in listed(client, c)
    form = client.get(page(c, "buy_back"))
    assert form.status_code == 200 and option(abroad.edmund.pk) in form.content.decode()
    assert "50 Crowns from the house of Plantagenet" in form.content.decode()
    done = client.post(page(c, "buy_back"), {"character": abroad.edmund.pk, "action_key": new_action_key()}, follow=True)
    assert "Edmund Plantagenet is bought back by the house of Plantagenet. All sins are forgiven." in done.content.decode()
    edmund, blanche, tom = fresh(abroad.edmund, abroad.blanche, abroad.tom)
    assert {edmund.controlled_by, blanche.controlled_by, tom.controlled_by} == {abroad.england}
    assert edmund.pretender_of is None
    assert treasury.balance(c, abroad.england) == 30
    paid = Posting.objects.get(campaign=c, kind="buy_back")
    assert (paid.payer, paid.payee, paid.amount, paid.entered_by) == (abroad.england, None, 50, alice)


@pytest.mark.django_db
def test_the_api_buys_back_for_the_house_that_lost_him(abroad, alice, bob):
    url = endpoint(abroad.campaign, "buy_back")
    assert api(bob).post(url, {"character": abroad.edmund.pk}, format="json").status_code == 403  # not his house's
    listed_to_alice = api(alice).get(f"/api/v1/campaigns/{abroad.campaign.slug}/events/").json()
    field = next(e for e in listed_to_alice if e["key"] == "buy_back")["fields"][0]
    assert [c["value"] for c in field["choices"]] == [abroad.edmund.pk]
    done = api(alice).post(url, {"character": abroad.edmund.pk}, format="json", HTTP_IDEMPOTENCY_KEY="buy-back-1")
    assert done.status_code == 200, done.content
    assert fresh(abroad.edmund)[0].controlled_by == abroad.england


@pytest.mark.django_db
def test_the_buy_back_is_offered_to_a_player_only_while_his_house_has_a_pretender_abroad(court, alice):
    client = logged(alice)
    assert "A Pretender bought back" not in listed(client, court.campaign)
    assert client.get(page(court.campaign, "buy_back")).status_code == 403
    assert api(alice).post(endpoint(court.campaign, "buy_back"), {"character": court.edmund.pk}, format="json").status_code == 403


@pytest.mark.django_db
def test_another_house_may_not_buy_back_alices_pretender(abroad, bob):
    c = abroad.campaign
    with pytest.raises(Forbidden, match="your own dynasty: only the house that lost a Pretender buys him back"):
        pretender_buy_back(campaign=c, character=abroad.edmund, by=bob)
    # France loses a Pretender of its own (to Germany): Bob is offered the form, with his own only
    louis = person(c, abroad.france, "Louis", "M", 1278)
    pretender_declare(campaign=c, character=louis, by=SYSTEM_ACTOR)
    treasury.post(c, payer=None, payee=abroad.france, amount=80, kind="tax", reason="taxes")
    assert [choice.value for choice in may_buy_back(c, seat_of(bob, c))] == [louis.pk]
    client = logged(bob)
    form = client.get(page(c, "buy_back")).content.decode()
    assert option(louis.pk) in form and option(abroad.edmund.pk) not in form
    refused = client.post(page(c, "buy_back"), {"character": abroad.edmund.pk, "action_key": new_action_key()})
    assert refused.status_code == 400 and "not one of the available choices" in refused.content.decode()
    by_api = api(bob).post(endpoint(c, "buy_back"), {"character": abroad.edmund.pk}, format="json")
    assert by_api.status_code == 400 and "character" in by_api.json()["fields"]
    edmund = fresh(abroad.edmund)[0]
    assert edmund.controlled_by == abroad.france and edmund.pretender_of == abroad.england
    assert treasury.balance(c, abroad.france) == 80 and not Posting.objects.filter(campaign=c, kind="buy_back").exists()


@pytest.mark.django_db
def test_a_bribe_the_house_cannot_pay_is_refused_beside_the_form(court, alice):
    """A buy-back is a payment the house chooses: refused when it would overdraw it (docs/rulings.md)."""
    pretender_declare(campaign=court.campaign, character=court.edmund, by=SYSTEM_ACTOR)
    refused = logged(alice).post(page(court.campaign, "buy_back"), {"character": court.edmund.pk, "action_key": new_action_key()})
    assert refused.status_code == 400
    assert "The house of Plantagenet holds 0 Crowns and cannot pay 50" in refused.content.decode()
    assert fresh(court.edmund)[0].controlled_by == court.france
    assert not Posting.objects.filter(campaign=court.campaign, kind="buy_back").exists()


@pytest.mark.django_db
def test_the_bribe_is_read_by_the_house_paying_and_the_gm_only(abroad, gm, alice, bob):
    api(alice).post(endpoint(abroad.campaign, "buy_back"), {"character": abroad.edmund.pk}, format="json")
    bribe = "the bribe that buys back the Pretender Edmund Plantagenet"
    back = "The house of Plantagenet buys back Edmund Plantagenet"
    assert bribe in texts(alice, abroad.campaign) and bribe in texts(gm, abroad.campaign)
    assert bribe not in texts(bob, abroad.campaign) and back in texts(bob, abroad.campaign)  # the return is public
    ledger = "buying back the Pretender Edmund Plantagenet"
    assert ledger in texts(alice, abroad.campaign, "ledger") and ledger not in texts(bob, abroad.campaign, "ledger")


@pytest.mark.django_db
def test_undo_takes_back_a_buy_back(abroad, alice, gm):
    c = abroad.campaign
    logged(alice).post(page(c, "buy_back"), {"character": abroad.edmund.pk, "action_key": new_action_key()})
    assert fresh(abroad.edmund)[0].controlled_by == abroad.england
    undo_step(campaign=c, key=new_action_key(), by=gm)
    edmund, tom = fresh(abroad.edmund, abroad.tom)
    assert edmund.controlled_by == abroad.france and edmund.pretender_of == abroad.england
    assert tom.controlled_by == abroad.france
    assert treasury.balance(c, abroad.england) == 80
    assert not ChronicleEntry.objects.filter(campaign=c, kind="pretender_return").exists()


# --- a bastard -----------------------------------------------------------------------------------


@pytest.fixture
def widower(court):
    """King Edward's Queen died in 1299: he reigns unmarried."""
    Character.objects.filter(pk=court.queen.pk).update(status=Status.DEAD, death_year=1299)
    Marriage.objects.filter(campaign=court.campaign, husband=court.king, ended_year__isnull=True).update(
        ended_year=1299, end_cause="death of the wife"
    )
    return court


def bastard_rolls(son: Character) -> list[Roll]:
    return list(Roll.objects.filter(purpose="characteristic", subjects__character=son).order_by("pk"))


@pytest.mark.django_db
def test_the_gm_types_one_characteristics_dice_and_the_server_rolls_the_others(widower, gm):
    c, client = widower.campaign, logged(gm)
    form = client.get(page(c, "bastard")).content.decode()
    assert option(widower.king.pk, "father") in form and "the son goes to the house of de Silva, the player on the right" in form
    assert all(f'name="{trait}-{i}"' in form for trait in ("strength", "constitution", "charisma") for i in range(3))
    body = {"father": widower.king.pk, "given_name": "Fitzroy", "strength-0": 6, "strength-1": 6, "strength-2": 6}
    done = client.post(page(c, "bastard"), {**body, "action_key": new_action_key()}, follow=True)
    son = Character.objects.get(campaign=c, legitimate=False)
    assert (son.given_name, son.father, son.controlled_by, son.birth_year) == ("Fitzroy", widower.king, widower.spain, 1300)
    assert son.characteristics["strength"] == 2
    assert re.search(r"A bastard son, Fitzroy Plantagenet, is born \(Strength \+2, Constitution [+-]\d", done.content.decode())
    rolls = bastard_rolls(son)
    assert [(r.detail, r.source) for r in rolls] == [("strength", "entered"), ("constitution", "server"), ("charisma", "server")]
    assert rolls[0].faces == [6, 6, 6]


@pytest.mark.django_db
def test_a_throw_typed_in_part_is_refused_and_nothing_is_born(widower, gm):
    body = {"father": widower.king.pk, "charisma-0": 6, "action_key": new_action_key()}
    refused = logged(gm).post(page(widower.campaign, "bastard"), body)
    assert refused.status_code == 400 and "Charisma: type all 3 dice, or none (the server rolls)." in refused.content.decode()
    wrong = logged(gm).post(page(widower.campaign, "bastard"), {**body, "charisma-1": 7, "charisma-2": 1})
    assert wrong.status_code == 400 and "A d6 shows 1 to 6." in wrong.content.decode()
    assert not Character.objects.filter(campaign=widower.campaign, legitimate=False).exists()


@pytest.mark.django_db
def test_the_api_records_a_bastard_with_the_dice_typed(widower, gm):
    url = endpoint(widower.campaign, "bastard")
    body = {"father": widower.king.pk, "strength": [6, 6, 6], "constitution": [3, 3, 3], "charisma": [1, 1, 1]}
    wrong = api(gm).post(url, {**body, "charisma": [7, 1, 1]}, format="json")
    assert wrong.status_code == 400 and "charisma" in wrong.json()["fields"]
    done = api(gm).post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="bastard-1")
    assert done.status_code == 200, done.content
    son = Character.objects.get(campaign=widower.campaign, legitimate=False)
    assert son.characteristics == {"strength": 2, "constitution": 0, "charisma": -2}
    assert {r.source for r in bastard_rolls(son)} == {"entered"}
    assert done.json()["message"].startswith(f"A bastard son, {son.display_name}, is born (Strength +2, Constitution +0")


@pytest.mark.django_db
def test_a_married_king_is_not_offered_and_the_service_cites_the_cards(court, gm, alice):
    c = court.campaign
    assert court.king.pk not in {choice.value for choice in may_father(c, seat_of(gm, c))}
    assert option(court.king.pk, "father") not in logged(gm).get(page(c, "bastard")).content.decode()
    with pytest.raises(RuleError, match=r"is married: the cards give bastard sons to unmarried Kings only \(cards 38 and 39"):
        bastard_create(campaign=c, father=court.king, by=gm)
    with pytest.raises(RuleError, match=r"not a reigning King: .* \(cards 38 and 39, Pretenders and Bastards\)"):
        bastard_create(campaign=c, father=court.edmund, by=gm)
    assert logged(alice).get(page(c, "bastard")).status_code == 403
    assert not Character.objects.filter(campaign=c, legitimate=False).exists()


@pytest.mark.django_db
def test_undo_takes_back_a_pretender_and_a_bastard(widower, gm):
    c, client = widower.campaign, logged(gm)
    client.post(page(c, "pretender"), {"character": widower.edmund.pk, "action_key": new_action_key()})
    client.post(page(c, "bastard"), {"father": widower.king.pk, "action_key": new_action_key()})
    assert Character.objects.filter(campaign=c, legitimate=False).exists()
    undo_step(campaign=c, key=new_action_key(), by=gm)
    assert not Character.objects.filter(campaign=c, legitimate=False).exists()
    edmund = fresh(widower.edmund)[0]
    assert edmund.controlled_by == widower.england and edmund.pretender_of is None


# --- the aristocratic auction --------------------------------------------------------------------


@pytest.fixture
def three(db, gm, alice, bob):
    """A three-player campaign in 1320 (Alice England, Bob France; Germany unplayed): each house holds
    100 Crowns; the aristocratic family's child of 1295 is 25."""
    c = campaign_create(name="Three", players=3, source=RandomSource(2), by=gm)
    c.current_year = 1320
    c.save()
    houses = {d.crown or "aristocratic": d for d in Dynasty.objects.filter(campaign=c)}
    seat_member(campaign=c, user=alice, role=Role.PLAYER, dynasty=houses["England"])
    seat_member(campaign=c, user=bob, role=Role.PLAYER, dynasty=houses["France"])
    for name in ("England", "France", "Germany"):
        treasury.post(c, payer=None, payee=houses[name], amount=100, kind="tax", reason="taxes")
    child = Character.objects.get(campaign=c, controlled_by=houses["aristocratic"], birth_year=1295)
    return SimpleNamespace(
        campaign=c,
        england=houses["England"],
        france=houses["France"],
        germany=houses["Germany"],
        family=houses["aristocratic"],
        child=child,
    )


@pytest.mark.django_db
def test_the_gm_types_the_sealed_bids_from_the_page(three, gm):
    c, client = three.campaign, logged(gm)
    assert "The aristocratic auction" in listed(client, c)
    form = client.get(page(c, "auction")).content.decode()
    assert option(three.child.pk) in form
    assert all(f'name="bids-{house.pk}"' in form for house in (three.england, three.france, three.germany))
    assert f'name="bids-{three.family.pk}"' not in form  # the family does not bid for its own
    body = {"character": three.child.pk, f"bids-{three.england.pk}": 40, f"bids-{three.france.pk}": 25}
    done = client.post(page(c, "auction"), {**body, "action_key": new_action_key()}, follow=True)
    assert "The house of Plantagenet wins the auction" in done.content.decode()
    assert fresh(three.child)[0].controlled_by == three.england
    balances = [treasury.balance(c, h) for h in (three.england, three.france, three.germany)]
    assert balances == [100 - 10 - 40, 100 - 10, 100]  # Germany did not bid: no deposit


@pytest.mark.django_db
def test_a_tie_is_bid_again(three, gm):
    body = {"character": three.child.pk, f"bids-{three.england.pk}": 30, f"bids-{three.france.pk}": 30}
    refused = logged(gm).post(page(three.campaign, "auction"), {**body, "action_key": new_action_key()})
    assert refused.status_code == 400
    assert "Plantagenet and Anjou bid 30 each: the tied players bid again" in refused.content.decode()
    assert fresh(three.child)[0].controlled_by == three.family
    assert not Posting.objects.filter(campaign=three.campaign, kind="auction").exists()


@pytest.mark.django_db
def test_the_api_takes_the_bids_by_house(three, gm, alice):
    url = endpoint(three.campaign, "auction")
    body = {"character": three.child.pk, "bids": {str(three.france.pk): 35, str(three.germany.pk): 5}}
    assert api(alice).post(url, body, format="json").status_code == 403
    for wrong in ({str(three.family.pk): 5}, {"999999": 5}, {"England": 5}, {str(three.france.pk): -1}):
        answer = api(gm).post(url, {**body, "bids": wrong}, format="json")
        assert answer.status_code == 400 and all(k.startswith("bids") for k in answer.json()["fields"]), wrong
    none = api(gm).post(url, {"character": three.child.pk}, format="json")
    assert none.status_code == 400 and "No bids: a player who wants" in none.json()["message"]
    done = api(gm).post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="auction-1")
    assert done.status_code == 200, done.content
    assert fresh(three.child)[0].controlled_by == three.france
    assert treasury.balance(three.campaign, three.germany) == 90


@pytest.mark.django_db
def test_only_the_three_player_game_has_the_auction(campaign, gm):
    client = logged(gm)
    assert "The aristocratic auction" not in listed(client, campaign)
    assert client.get(page(campaign, "auction")).status_code == 404
    assert api(gm).post(endpoint(campaign, "auction"), {"character": 1}, format="json").status_code == 404


@pytest.mark.django_db
def test_the_auctions_money_lines_are_read_by_each_house_paying(three, gm, alice, bob):
    bids = {three.england.pk: 40, three.france.pk: 25}
    api(gm).post(endpoint(three.campaign, "auction"), {"character": three.child.pk, "bids": bids}, format="json")
    won = "50 Crowns from the house of Plantagenet to the Treasury: the deposit and the winning bid (40)"
    lost = "10 Crowns from the house of Anjou to the Treasury: the deposit to bid for"
    public = "The house of Plantagenet wins"
    alice_reads, bob_reads, gm_reads = (texts(u, three.campaign) for u in (alice, bob, gm))
    assert won in alice_reads and lost not in alice_reads
    assert lost in bob_reads and won not in bob_reads
    assert won in gm_reads and lost in gm_reads
    assert public in alice_reads and public in bob_reads
    assert "winning bid for" not in texts(bob, three.campaign, "ledger")


@pytest.mark.django_db
def test_a_child_not_of_age_or_matched_is_not_offered_and_the_service_cites_the_rule(three, gm):
    c = three.campaign
    young = person(c, three.family, "Young", "F", 1310, dynastic_name="de Montfort")
    offered = {choice.value for choice in may_be_auctioned(c, seat_of(gm, c))}
    assert three.child.pk in offered and young.pk not in offered
    with pytest.raises(RuleError, match=r"Young de Montfort is 10: the children are auctioned when old enough to be marriage"):
        auction_run(campaign=c, character=young, bids={three.england.pk: 5}, by=gm)
    parents = Marriage.objects.get(campaign=c, husband__controlled_by=three.family)
    assert parents.husband_id not in offered and parents.wife_id not in offered
    with pytest.raises(RuleError, match=r"is married or betrothed already: .* \(Three Players, Dynastic Sequence; RULES.md A8\)"):
        auction_run(campaign=c, character=parents.husband_id, bids={three.england.pk: 5}, by=gm)
    assert not Posting.objects.filter(campaign=c, kind="auction").exists()


@pytest.mark.django_db
def test_undo_takes_back_an_auction(three, gm):
    c = three.campaign
    body = {"character": three.child.pk, f"bids-{three.germany.pk}": 15, "action_key": new_action_key()}
    logged(gm).post(page(c, "auction"), body)
    assert fresh(three.child)[0].controlled_by == three.germany
    undo_step(campaign=c, key=new_action_key(), by=gm)
    assert fresh(three.child)[0].controlled_by == three.family
    assert treasury.balance(c, three.germany) == 100


# --- the automatic player ------------------------------------------------------------------------


@pytest.mark.long_simulation
@pytest.mark.django_db
def test_the_automatic_player_auctions_the_aristocratic_children_of_age():
    """The three-player game's simulation auctions each child of the family once he is 15 (before the
    marriages), through the same service; a five-player campaign has no such part of the law."""
    from operations.simulation import law_summary, simulate
    from rules import get_ruleset

    source = RandomSource(7)
    options = {name: True for name in get_ruleset("blood-royale").OPTIONAL_RULES}
    c = campaign_create(name="Three sim", players=3, optional_rules=options, source=source)
    played = dict(law_summary(simulate(c, turns=8, source=source, law=True, by=SYSTEM_ACTOR)))
    assert played["aristocratic auctions"] > 0
    for line in ChronicleEntry.objects.filter(campaign=c, kind="auction"):
        assert Dynasty.objects.get(pk=line.data["dynasty"]).kind == "player"
        assert Posting.objects.filter(campaign=c, kind="auction", character_id=line.data["character"]).exists()
    five = campaign_create(name="Five", players=5, source=RandomSource(7))
    assert "aristocratic auctions" not in dict(law_summary(five)) and "buy-backs" in dict(law_summary(five))


# --- bounded queries -------------------------------------------------------------------------------


def queries(client: Client, url: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.django_db
def test_the_forms_ask_as_many_queries_for_a_large_family_as_for_a_small_one(widower, gm):
    """What each form offers is read in a fixed number of queries (the whole family at once), not one
    query per character offered."""
    c, client = widower.campaign, logged(gm)
    pretender_declare(campaign=c, character=widower.henry, by=SYSTEM_ACTOR)  # a Pretender abroad for the buy-back
    urls = [page(c, key) for key in ("pretender", "buy_back", "bastard")] + [reverse("pages:events", args=[c.slug])]
    before = [queries(client, url) for url in urls]
    for n in range(12):  # twelve more grown sons, one more Pretender abroad
        son = person(c, widower.england, f"Son{n}", "M", 1270 + n, father=widower.king, dynastic_name=widower.king.dynastic_name)
        if n == 0:
            pretender_declare(campaign=c, character=son, by=SYSTEM_ACTOR)
    assert [queries(client, url) for url in urls] == before


@pytest.mark.django_db
def test_the_auction_form_asks_as_many_queries_for_many_children(three, gm):
    client, url = logged(gm), page(three.campaign, "auction")
    before = queries(client, url)
    for n in range(10):
        person(three.campaign, three.family, f"Child{n}", "F" if n % 2 else "M", 1300, dynastic_name="de Montfort")
    assert queries(client, url) == before
    assert client.get(url).content.decode().count('type="radio" name="character"') == 11
