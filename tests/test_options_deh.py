"""Blood Royale's optional rules D, E and H as campaign settings (issue 33), from the rulebook's words.

- (E) Event Cards: "Cards 18-22 allow for characters to leave the Dynasty of their birth ... Cards 38
  and 39 allow for the creation of bastard sons of unmarried Kings": Pretenders, buy-backs and
  bastards come with rule E; without it the services, the pages and the API refuse them.
- (D) Movement of Trade Items: the interception roll, recorded by the GM with the owner's die typed
  or rolled, the Crowns paid to the Treasury, the chronicle's money lines private to the two houses.
- (H) Extra Event/Movement Phase: "a third Event/Movement Phase is introduced"; without it a board
  event of a third phase is refused."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import ChronicleEntry, Roll
from campaign.permissions import SYSTEM_ACTOR, Forbidden, seat_of
from campaign.table_events import available
from dynasties import treasury
from dynasties.models import Character, Dynasty, Posting, Reign
from dynasties.services import campaign_create
from dynasties.services.events import survival_event
from dynasties.services.interception import trade_interception
from dynasties.services.pretenders import bastard_create, pretender_buy_back, pretender_declare
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.events_helpers import api, endpoint, logged
from tests.factories import person, seat_member

RULE_E_OFF = "Optional Rule E: Event Cards"


def rule(campaign, **options: bool) -> None:
    campaign.optional_rules = {**(campaign.optional_rules or {}), **options}
    campaign.save(update_fields=["optional_rules"])


def house(campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def king(campaign, crown: str = "England") -> Character:
    return Reign.objects.get(campaign=campaign, crown=crown, end_year__isnull=True).holder


def grown_prince(campaign) -> Character:
    """A second son of England's King, 20: one the rule lets become a Pretender."""
    edward = king(campaign)
    queen = Character.objects.get(campaign=campaign, given_name="Mary", dynastic_name="Tudor")
    return person(campaign, house(campaign, "England"), "Edmund", "M", campaign.current_year - 20, father=edward, mother=queen)


# --- rule E -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_without_rule_e_no_pretender_nor_bastard_and_the_refusal_names_the_rule(campaign, gm):
    """(E) "Cards 18-22 allow for characters to leave the Dynasty of their birth": without the event
    cards there are none. The services refuse with the rule; nothing is written."""
    rule(campaign, event_cards=False)
    edmund = grown_prince(campaign)
    before = (Character.objects.filter(campaign=campaign).count(), ChronicleEntry.objects.filter(campaign=campaign).count())
    with pytest.raises(RuleError, match=RULE_E_OFF) as info:
        pretender_declare(campaign=campaign, character=edmund, by=gm)
    assert info.value.code == "option_off"
    with pytest.raises(RuleError, match=RULE_E_OFF):
        bastard_create(campaign=campaign, father=king(campaign), by=gm)
    with pytest.raises(RuleError, match=RULE_E_OFF):
        pretender_buy_back(campaign=campaign, character=edmund, by=gm)
    edmund.refresh_from_db()
    assert edmund.controlled_by == house(campaign, "England") and edmund.pretender_of is None
    after = (Character.objects.filter(campaign=campaign).count(), ChronicleEntry.objects.filter(campaign=campaign).count())
    assert after == before


@pytest.mark.django_db
def test_without_rule_e_the_pages_do_not_offer_them_and_the_api_refuses(campaign, gm):
    rule(campaign, event_cards=False)
    edmund = grown_prince(campaign)
    keys = {e.key for e in available(campaign, seat_of(gm, campaign))}
    assert not keys & {"pretender", "buy_back", "bastard"}
    client = logged(gm)
    for where in ("pages:events", "pages:turn"):
        html = client.get(reverse(where, args=[campaign.slug])).content.decode()
        assert "A Pretender declared" not in html and "A bastard son" not in html
    assert client.get(reverse("pages:event", args=[campaign.slug, "pretender"])).status_code == 404
    response = api(gm).post(endpoint(campaign, "pretender"), {"character": edmund.pk}, format="json")
    assert response.status_code == 404, response.content  # not in this campaign's rules
    edmund.refresh_from_db()
    assert edmund.pretender_of is None
    rule(campaign, event_cards=True)  # with rule E the same Prince is declared
    assert api(gm).post(endpoint(campaign, "pretender"), {"character": edmund.pk}, format="json").status_code == 200
    edmund.refresh_from_db()
    assert edmund.pretender_of == house(campaign, "England")


@pytest.mark.django_db
def test_a_new_campaign_names_rule_e_with_the_rulebook_and_has_it_off(gm):
    """The checklist: "(E) Event Cards" is a setting of the campaign, chosen before play."""
    fresh = campaign_create(name="No Cards", players=5, source=RandomSource(1), by=gm)
    assert fresh.optional_rules["event_cards"] is False
    html = logged(gm).get(reverse("campaigns:new")).content.decode()
    for name in (
        "Optional Rule D: Movement of Trade Items",
        "Optional Rule E: Event Cards",
        "Optional Rule H: Extra Event/Movement Phase",
    ):
        assert name in html


@pytest.mark.django_db
def test_the_migration_turns_rule_e_on_where_the_cards_were_played(gm):
    """Campaigns made before rule E was a setting: one with a Pretender or a bastard played the cards
    (rule E on); one without keeps its settings (docs/rulings.md)."""
    played = campaign_create(name="Played", players=5, source=RandomSource(2), by=gm)
    unplayed = campaign_create(name="Unplayed", players=5, source=RandomSource(3), by=gm)
    Character.objects.filter(campaign=played).order_by("pk").filter(
        pk=Character.objects.filter(campaign=played).order_by("pk").values("pk")[:1]
    ).update(legitimate=False)
    migration = importlib.import_module("dynasties.migrations.0021_rule_e_where_cards_were_played")
    migration.rule_e_where_cards_were_played(apps, None)
    played.refresh_from_db()
    unplayed.refresh_from_db()
    assert played.optional_rules["event_cards"] is True
    assert unplayed.optional_rules["event_cards"] is False


# --- rule D ---------------------------------------------------------------------------------------


@pytest.fixture
def trade(campaign):
    rule(campaign, trade_item_movement=True)
    england, france = house(campaign, "England"), house(campaign, "France")
    treasury.post(campaign, payer=None, payee=england, amount=100, kind="other", reason="purse")
    treasury.post(campaign, payer=None, payee=france, amount=100, kind="other", reason="purse")
    return england, france


@pytest.mark.django_db
def test_an_interception_with_a_typed_die_passes_the_item_and_posts_the_crowns(campaign, gm, alice, bob, trade):
    """(D): "the owning player must throw one die ... +1 for each intercepting Army counter ... -1 for
    each 15 Crowns the owning player pays to the Treasury before the die roll; +1 for each 20 Crowns the
    intercepting player pays ... If the modified result is 6 or more, possession of the Trade Item
    passes to the intercepting player." England pays 15, France 40; 2 French armies; England throws 4:
    4 + 2 - 1 + 2 = 7: taken."""
    england, france = trade
    record = trade_interception(
        campaign=campaign,
        owner=england,
        interceptor=france,
        item="Cloth from Flanders to London",
        armies=2,
        owner_crowns=15,
        interceptor_crowns=40,
        die=[4],
        by=gm,
    )
    assert (record.result.total, record.result.taken) == (7, True)
    assert treasury.balance(campaign, england.pk) == 85 and treasury.balance(campaign, france.pk) == 60
    paid = Posting.objects.filter(campaign=campaign, payee__isnull=True).order_by("id")
    assert [(p.payer_id, p.amount) for p in paid] == [(england.pk, 15), (france.pk, 40)]
    die = Roll.objects.get(campaign=campaign, purpose="interception")
    assert (die.faces, die.modifier, die.target, die.outcome, die.source) == ([4], 3, 6, "taken", "entered")
    lines = ChronicleEntry.objects.filter(campaign=campaign, kind="interception").order_by("id")
    public, private = lines
    assert public.audience == "public" and "passes to the house of" in public.text and "Crowns" not in public.text
    assert private.audience == "parties" and private.readers == f",{england.pk},{france.pk},"
    assert "15 Crowns" in private.text and "40 Crowns" in private.text
    # the third house reads the outcome, not the money
    spain_seat_lines = ChronicleEntry.objects.filter(
        campaign=campaign, kind="interception", readers__contains=f",{house(campaign, 'Spain').pk},"
    )
    assert not spain_seat_lines.exists()


@pytest.mark.django_db
def test_the_server_rolls_when_no_die_is_typed_and_under_six_the_item_gets_through(campaign, gm, trade):
    england, france = trade
    record = trade_interception(
        campaign=campaign, owner=england, interceptor=france, item="Wine", intercepting_fleets=1, owner_crowns=90, by=gm
    )
    assert record.result.modifier == 2 - 6 and not record.result.taken  # at most 6 - 4 = 2
    assert Roll.objects.get(campaign=campaign, purpose="interception").source == "server"


@pytest.mark.django_db
def test_an_interception_is_refused_without_rule_d_and_outside_the_rule(campaign, gm, alice, trade):
    england, france = trade
    args = {"campaign": campaign, "owner": england, "interceptor": france, "item": "Cloth", "armies": 1, "die": [3]}
    with pytest.raises(Forbidden):
        trade_interception(**args, by=alice)  # the GM records what the board decided
    with pytest.raises(RuleError) as info:
        trade_interception(**{**args, "owner_crowns": 10}, by=gm)
    assert info.value.fields == {"owner_crowns": "invalid"}
    with pytest.raises(RuleError, match="Optional Rule H"):
        trade_interception(**args, phase=3, by=gm)
    with pytest.raises(RuleError) as info:
        trade_interception(**{**args, "interceptor": england}, by=gm)
    assert info.value.fields == {"interceptor": "own"}
    rule(campaign, trade_item_movement=False)
    with pytest.raises(RuleError, match="Optional Rule D: Movement of Trade Items"):
        trade_interception(**args, by=gm)
    assert not Posting.objects.filter(campaign=campaign, payee__isnull=True).exists()
    assert not Roll.objects.filter(campaign=campaign, purpose="interception").exists()


@pytest.mark.django_db
def test_the_interception_from_the_api_and_its_secrecy(campaign, gm, alice, bob, trade):
    england, france = trade
    body = {"owner": england.pk, "interceptor": france.pk, "item": "Cloth", "armies": 1, "die": [5], "interceptor_crowns": 20}
    assert api(alice).post(endpoint(campaign, "trade_interception"), body, format="json").status_code == 403
    response = api(gm).post(endpoint(campaign, "trade_interception"), body, format="json")
    assert response.status_code == 200, response.content
    spain = Dynasty.objects.get(campaign=campaign, crown="Spain")
    from django.contrib.auth import get_user_model

    from campaign.models import Role

    carol = get_user_model().objects.create_user("carol", password="carol-password-1")
    seat_member(campaign=campaign, user=carol, role=Role.PLAYER, dynasty=spain)

    def chronicle(user) -> str:
        rows = api(user).get(f"/api/v1/campaigns/{campaign.slug}/chronicle/?page_size=500").json()["results"]
        return "\n".join(str(r) for r in rows)

    assert "20 Crowns" in chronicle(alice) and "20 Crowns" in chronicle(bob)
    assert "tries to intercept Cloth" in chronicle(carol) and "20 Crowns" not in chronicle(carol)


# --- rule H ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_battle_of_the_third_phase_only_under_rule_h(campaign, gm):
    """(H): "With this Option, a third Event/Movement Phase is introduced. ... The third Phase is
    conducted in the same way as the normal two." Without it a turn has two."""
    edward = king(campaign)
    france = house(campaign, "France")
    with pytest.raises(RuleError, match="Optional Rule H") as info:
        survival_event(
            campaign=campaign,
            reason="battle",
            characters=[edward.pk],
            faces={edward.pk: [6, 6]},
            captor=france.pk,
            phase=3,
            by=gm,
        )
    assert info.value.fields == {"phase": "option_off"}
    refused = api(gm).post(
        endpoint(campaign, "battle"),
        {"characters": [edward.pk], "captor": str(france.pk), "phase": 3},
        format="json",
    )
    assert refused.status_code == 400 and "Optional Rule H" in refused.content.decode()
    assert not Roll.objects.filter(campaign=campaign, purpose="battle").exists()
    survival_event(
        campaign=campaign, reason="battle", characters=[edward.pk], faces={edward.pk: [6, 6]}, captor=france.pk, phase=2, by=gm
    )
    rule(campaign, extra_movement_phase=True)
    richard = person(campaign, house(campaign, "Germany"), "Otto", "M", 1270)
    richard.prince_piece = "1"
    richard.save(update_fields=["prince_piece"])
    survival_event(
        campaign=campaign, reason="battle", characters=[richard.pk], faces={richard.pk: [6, 6]}, captor=france.pk, phase=3, by=gm
    )
    phases = list(ChronicleEntry.objects.filter(campaign=campaign, data__has_key="phase").values_list("data__phase", "text"))
    assert {p for p, _ in phases} == {2, 3}
    assert all(text.startswith(f"Movement phase {p}: ") for p, text in phases)
    html = logged(gm).get(reverse("pages:turn", args=[campaign.slug])).content.decode()
    assert "Event/Movement phase 2</h3>" in html and "Event/Movement phase 3</h3>" in html
    assert html.index("Event/Movement phase 2</h3>") < html.index(edward.display_name, html.index("Event/Movement phase 2</h3>"))


@pytest.mark.django_db
def test_the_turn_pages_movement_costs_the_same_queries_however_many_events(campaign, gm):
    rule(campaign, extra_movement_phase=True)
    client = logged(gm)
    url = reverse("pages:turn", args=[campaign.slug])

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    france = house(campaign, "France")
    first = person(campaign, house(campaign, "Germany"), "Otto", "M", 1270)
    first.prince_piece = "1"
    first.save(update_fields=["prince_piece"])
    survival_event(
        campaign=campaign,
        reason="battle",
        characters=[first.pk],
        faces={first.pk: [6, 6]},
        captor=france.pk,
        phase=1,
        by=SYSTEM_ACTOR,
    )
    few = queries()
    for n, phase in enumerate((2, 3, 3)):
        p = person(campaign, house(campaign, "Spain"), f"Pedro{n}", "M", 1270)
        p.prince_piece = str(n + 1)
        p.save(update_fields=["prince_piece"])
        survival_event(
            campaign=campaign,
            reason="battle",
            characters=[p.pk],
            faces={p.pk: [6, 6]},
            captor=france.pk,
            phase=phase,
            by=SYSTEM_ACTOR,
        )
    assert queries() == few
