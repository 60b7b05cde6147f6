"""Deaths and captures from the board (issue 31): a battle lost, plague (with optional rule G), a storm
at sea, a royal killed at the table - each through its page, the API and the desk, with typed or
server dice, the odds beside each who rolls, the victims the rulebook allows, and the succession
decided in the same form."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from campaign.models import ActionKey, ChronicleEntry, Roll
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import new_action_key
from dynasties.models import Character, Dynasty, Reign, Status, Title
from dynasties.services.events import NEUTRALS, character_capture, survival_event
from rules.errors import RuleError
from tests.events_helpers import api, endpoint, logged, page
from tests.factories import person, wed

YEAR = 1300


def house(campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def king(campaign, crown: str = "England") -> Character:
    return Reign.objects.get(campaign=campaign, crown=crown, end_year__isnull=True).holder


def prince(campaign, crown: str = "England", name: str = "Richard", born: int = 1278, piece: str = "1", **traits) -> Character:
    """A Prince of the house with his piece on the map (the Announcements hand them out)."""
    p = person(campaign, house(campaign, crown), name, "M", born, **traits)
    p.prince_piece = piece
    p.save(update_fields=["prince_piece"])
    return p


def rule(campaign, **options: bool) -> None:
    campaign.optional_rules = {**(campaign.optional_rules or {}), **options}
    campaign.save(update_fields=["optional_rules"])


def dice(field: str, pk: int, *faces: int) -> dict[str, str]:
    return {f"{field}-{pk}-{i}": str(face) for i, face in enumerate(faces)}


def post(client: Client, url: str, data: dict):
    return client.post(url, {**data, "action_key": new_action_key()}, follow=True)


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


# --- a battle -------------------------------------------------------------------------------------


@pytest.fixture
def battle(campaign):
    """England's King Edward (25) and Prince Richard (22) lead an army; Edward's sons John (5) and
    Henry (3) are his heirs; rule C lets the crown's player pass John over."""
    rule(campaign, disputed_succession=True)
    edward = king(campaign)
    queen = Character.objects.get(campaign=campaign, given_name="Mary", dynastic_name="Tudor")
    john = Character.objects.get(campaign=campaign, given_name="John", dynastic_name="Plantagenet")
    henry = person(campaign, house(campaign, "England"), "Henry", "M", 1297, father=edward, mother=queen)
    richard = prince(campaign)
    return SimpleNamespace(edward=edward, queen=queen, john=john, henry=henry, richard=richard)


def test_the_battle_form_offers_the_royal_pieces_with_their_odds_and_the_succession(campaign, gm, battle):
    html = logged(gm).get(page(campaign, "battle")).content.decode()
    assert battle.edward.display_name in html and battle.richard.display_name in html
    assert battle.queen.display_name not in html.split("Captured by")[0]  # a Queen at court is not on the field
    assert "survives on 5+ with -1: 30 in 36 (83.3%)" in html  # age 25 needs 4; Constitution 0, -1
    assert f"If {battle.edward.display_name} (England) dies: pass over {battle.john.display_name}" in html
    assert f'name="faces-{battle.edward.pk}-0"' in html and f'name="faces-{battle.edward.pk}-1"' in html
    assert "The neutrals (they ransom him for 100 Crowns)" in html


def test_a_king_dies_in_battle_a_prince_is_captured_and_the_succession_is_decided_in_the_same_form(campaign, gm, battle):
    france = house(campaign, "France")
    response = post(
        logged(gm),
        page(campaign, "battle"),
        {
            "characters": [battle.edward.pk, battle.richard.pk],
            **dice("faces", battle.edward.pk, 1, 2),  # 3 - 1 = 2 < 4: dies
            **dice("faces", battle.richard.pk, 6, 5),  # survives: captured
            "captor": str(france.pk),
            "pass_over": [battle.john.pk],
            "note": "at Crécy",
        },
    )
    assert response.status_code == 200, response.content.decode()[:2000]
    assert any(
        "dies (rolled 3-1, needed 4)" in m and "survives (rolled 11-1, needed 3), taken prisoner" in m
        for m in messages_of(response)
    )
    battle.edward.refresh_from_db()
    battle.richard.refresh_from_db()
    assert battle.edward.status == Status.DEAD and battle.edward.death_cause == "defeat in battle (at Crécy)"
    assert battle.richard.status == Status.ALIVE and battle.richard.prisoner_of == france
    assert king(campaign) == battle.henry  # John passed over (rule C), decided in the same form
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="pass_over").exists()
    rolls = Roll.objects.filter(campaign=campaign, purpose="battle").order_by("pk")
    assert [(r.faces, r.source, r.modifier, r.target, r.outcome) for r in rolls] == [
        ([1, 2], "entered", -1, 4, "died"),
        ([6, 5], "entered", -1, 3, "survived"),  # Richard is 22: he needs 3
    ]
    assert ActionKey.objects.filter(campaign=campaign, label="A battle lost").exists()


def test_the_pass_over_applies_only_if_the_monarch_dies(campaign, gm, battle):
    post(
        logged(gm),
        page(campaign, "battle"),
        {
            "characters": [battle.edward.pk],
            **dice("faces", battle.edward.pk, 6, 6),
            "captor": NEUTRALS,
            "pass_over": [battle.john.pk],
        },
    )
    battle.edward.refresh_from_db()
    assert battle.edward.status == Status.ALIVE and battle.edward.prisoner_of is None and king(campaign) == battle.edward
    taken = ChronicleEntry.objects.get(campaign=campaign, kind="capture")
    assert "taken prisoner by the neutrals" in taken.text and "100 Crowns" in taken.text


def test_a_battle_through_the_api_with_the_servers_dice(campaign, gm, battle):
    spain = house(campaign, "Spain")
    done = api(gm).post(
        endpoint(campaign, "battle"),
        {"characters": [battle.richard.pk], "captor": str(spain.pk)},
        format="json",
        HTTP_IDEMPOTENCY_KEY="battle-1",
    )
    assert done.status_code == 200, done.content
    [roll] = Roll.objects.filter(campaign=campaign, purpose="battle")
    assert roll.source == "server" and roll.modifier == -1 and roll.target == 3
    battle.richard.refresh_from_db()
    if roll.outcome == "survived":
        assert battle.richard.prisoner_of == spain and "taken prisoner" in done.json()["message"]
    else:
        assert battle.richard.status == Status.DEAD and "dies" in done.json()["message"]
    assert any(line["text"] for line in done.json()["chronicle"])


def test_a_battle_through_the_api_with_typed_dice(campaign, gm, battle):
    done = api(gm).post(
        endpoint(campaign, "battle"),
        {
            "characters": [battle.edward.pk],
            "faces": {str(battle.edward.pk): [1, 1]},
            "captor": NEUTRALS,
            "pass_over": [battle.john.pk],
        },
        format="json",
        HTTP_IDEMPOTENCY_KEY="battle-2",
    )
    assert done.status_code == 200, done.content
    assert king(campaign) == battle.henry
    assert Roll.objects.get(campaign=campaign, purpose="battle").source == "entered"


def test_the_api_lists_the_odds_and_the_heirs(campaign, gm, battle):
    listed = api(gm).get(f"/api/v1/campaigns/{campaign.slug}/events/").json()
    fought = next(e for e in listed if e["key"] == "battle")
    people = next(f for f in fought["fields"] if f["name"] == "characters")
    assert {c["value"] for c in people["choices"]} >= {battle.edward.pk, battle.richard.pk}
    assert battle.queen.pk not in {c["value"] for c in people["choices"]}
    assert all(c["note"].startswith("survives on") for c in people["choices"])
    heirs = next(f for f in fought["fields"] if f["name"] == "pass_over")
    offered = {c["value"]: c for c in heirs["choices"]}
    assert battle.john.pk in offered and "Charisma" in offered[battle.john.pk]["note"]  # rule C: the new monarch's Charisma roll


def test_a_queen_at_court_is_refused_in_a_battle_with_the_rule_cited(campaign, gm, battle):
    with pytest.raises(RuleError, match=r"Blood Royale A5 \(Combat\).*Queen at court.*Mary Tudor has no piece on the map"):
        survival_event(
            campaign=campaign, reason="battle", characters=[battle.queen.pk], captor=house(campaign, "France").pk, by=gm
        )
    refused = api(gm).post(endpoint(campaign, "battle"), {"characters": [battle.queen.pk], "captor": NEUTRALS}, format="json")
    assert refused.status_code == 400 and "characters" in refused.json()["fields"]  # not even offered
    assert Character.objects.get(pk=battle.queen.pk).status == Status.ALIVE


def test_a_royal_is_not_captured_by_his_own_house(campaign, gm, battle):
    response = logged(gm).post(
        page(campaign, "battle"),
        {"characters": [battle.richard.pk], "captor": str(house(campaign, "England").pk), "action_key": new_action_key()},
    )
    assert response.status_code == 400 and "cannot be captured by his own house" in response.content.decode()
    assert not Roll.objects.filter(campaign=campaign, purpose="battle").exists()  # refused before a die is rolled


def test_a_pass_over_the_rules_forbid_is_refused_before_the_dice(campaign, gm, battle):
    rule(campaign, disputed_succession=False)  # without rule C only a prisoner of another player may be passed over
    with pytest.raises(RuleError, match=f"If {battle.edward.display_name} dies: .*may not be passed over"):
        survival_event(
            campaign=campaign,
            reason="battle",
            characters=[battle.edward.pk],
            captor=NEUTRALS,
            pass_over={"England": [battle.john.pk]},
            by=gm,
        )
    with pytest.raises(RuleError, match="is not among those this event may kill"):
        survival_event(
            campaign=campaign,
            reason="battle",
            characters=[battle.richard.pk],
            captor=NEUTRALS,
            pass_over={"England": [battle.john.pk]},
            by=gm,
        )
    assert not Roll.objects.filter(campaign=campaign, purpose="battle").exists()


def test_the_battle_is_undone_as_one_step_action(campaign, gm, battle):
    client = logged(gm)
    post(
        client,
        page(campaign, "battle"),
        {
            "characters": [battle.edward.pk, battle.richard.pk],
            **dice("faces", battle.edward.pk, 1, 1),
            **dice("faces", battle.richard.pk, 6, 6),
            "captor": NEUTRALS,
        },
    )
    assert Character.objects.get(pk=battle.edward.pk).status == Status.DEAD
    post(client, reverse("pages:undo", args=[campaign.slug]), {"which": "step"})
    battle.edward.refresh_from_db()
    assert battle.edward.status == Status.ALIVE and king(campaign) == battle.edward
    assert not Roll.objects.filter(campaign=campaign, purpose="battle").exists()
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind__in=["death", "capture", "succession"]).exists()


def test_the_desk_opens_the_battle_form_with_the_ticked_royals(campaign, gm, battle):
    response = logged(gm).post(
        reverse("admin:dynasties_character_changelist"),
        {"action": "event_battle", admin.helpers.ACTION_CHECKBOX_NAME: [battle.edward.pk, battle.richard.pk]},
    )
    assert response.status_code == 302 and response["Location"].startswith(page(campaign, "battle"))
    form = logged(gm).get(response["Location"]).content.decode()
    assert f'value="{battle.edward.pk}"' in form and "checked" in form.split(f'value="{battle.edward.pk}"')[1][:40]


# --- plague -----------------------------------------------------------------------------------------


def test_plague_through_the_page_the_king_in_his_capital_is_immune(campaign, gm):
    edward, richard = king(campaign), prince(campaign, constitution=1)
    html = logged(gm).get(page(campaign, "plague")).content.decode()
    assert "survives on 3+ with +0: 35 in 36 (97.2%)" in html  # Richard: 22 needs 3; Constitution +1, -1
    assert "Governed provinces struck" not in html  # rule G is not played: its fields are not shown
    response = post(
        logged(gm),
        page(campaign, "plague"),
        {"characters": [richard.pk], **dice("faces", richard.pk, 1, 1), "immune": [edward.pk]},
    )
    assert response.status_code == 200
    richard.refresh_from_db()
    assert richard.status == Status.DEAD and richard.death_cause == "plague"  # 2 + 1 - 1 = 2 < 3
    assert "immune" in ChronicleEntry.objects.get(campaign=campaign, kind="event", data__character=edward.pk).text
    [roll] = Roll.objects.filter(campaign=campaign, purpose="plague")
    assert (roll.modifier, roll.target, roll.source) == (0, 3, "entered")


@pytest.fixture
def governor(campaign):
    """Rule G: Prince Richard (22) governs Kent and Wessex, wed to Alys (20) with a son Tom (3) and a
    daughter Meg (16, too old to roll)."""
    rule(campaign, governing_provinces=True)
    england = house(campaign, "England")
    richard = prince(campaign, constitution=0)
    alys = person(campaign, england, "Alys", "F", 1280)
    wed(campaign, richard, alys, 1296)
    tom = person(campaign, england, "Tom", "M", 1297, father=richard, mother=alys)
    meg = person(campaign, england, "Meg", "F", 1284, father=richard)
    kent, wessex = (
        Title.objects.create(
            campaign=campaign,
            name=f"Duke of {p}",
            province=p,
            crown="England",
            holder=richard,
            granted_year=1300,
            granted_to=richard,
        )
        for p in ("Kent", "Wessex")
    )
    return SimpleNamespace(richard=richard, alys=alys, tom=tom, meg=meg, kent=kent, wessex=wessex)


def test_rule_g_the_governors_household_rolls_plus_one_for_each_province_spared(campaign, gm, governor):
    html = logged(gm).get(page(campaign, "plague")).content.decode()
    assert "Kent (Duke of Kent" in html and "household of" in html and governor.meg.display_name not in html
    assert "if Kent or Wessex is struck, survives on 3+ with +0: 35 in 36 (97.2%)" in html  # 22: needs 3, -1 + 1
    response = post(
        logged(gm),
        page(campaign, "plague"),
        {
            "titles": [governor.kent.pk],
            "governed": [governor.richard.pk, governor.alys.pk, governor.tom.pk],
            **dice("governed_faces", governor.richard.pk, 1, 1),
            **dice("governed_faces", governor.tom.pk, 1, 2),
        },
    )
    assert response.status_code == 200, response.content.decode()[:3000]
    rolls = {r.subjects.get().character_id: r for r in Roll.objects.filter(campaign=campaign, purpose="plague")}
    assert set(rolls) == {governor.richard.pk, governor.alys.pk, governor.tom.pk}
    assert {pk: r.modifier for pk, r in rolls.items()} == {
        governor.richard.pk: 0,
        governor.alys.pk: 0,
        governor.tom.pk: 0,
    }  # -1, +1 (Wessex spared)
    assert rolls[governor.alys.pk].source == "server" and rolls[governor.richard.pk].source == "entered"
    assert "optional rule G" in rolls[governor.tom.pk].detail


def test_rule_g_both_provinces_struck_no_bonus_and_the_whole_household_must_roll(campaign, gm, governor):
    with pytest.raises(RuleError, match=r"Optional rule G.*Tom Plantagenet must roll too"):
        survival_event(
            campaign=campaign,
            reason="plague",
            characters=[],
            titles=[governor.kent.pk],
            governed=[governor.richard.pk, governor.alys.pk],
            by=gm,
        )
    with pytest.raises(RuleError, match=r"Optional rule G.*Meg Plantagenet is of no household"):
        survival_event(
            campaign=campaign,
            reason="plague",
            characters=[],
            titles=[governor.kent.pk],
            governed=[governor.richard.pk, governor.alys.pk, governor.tom.pk, governor.meg.pk],
            by=gm,
        )
    results = survival_event(
        campaign=campaign,
        reason="plague",
        characters=[governor.richard.pk],  # his piece is in a plague province too: he rolls once, at -1
        titles=[governor.kent.pk, governor.wessex.pk],
        faces={governor.richard.pk: [6, 6], governor.alys.pk: [6, 6], governor.tom.pk: [6, 6]},
        by=gm,
    )
    assert {r.character.pk: r.modifier for r in results} == {governor.richard.pk: -1, governor.alys.pk: -1, governor.tom.pk: -1}


def test_rule_g_through_the_api_refuses_a_household_left_out(campaign, gm, governor):
    refused = api(gm).post(
        endpoint(campaign, "plague"), {"titles": [governor.kent.pk], "governed": [governor.richard.pk]}, format="json"
    )
    assert refused.status_code == 400 and "Optional rule G" in str(refused.json())
    done = api(gm).post(
        endpoint(campaign, "plague"),
        {
            "titles": [governor.wessex.pk],
            "governed": [governor.richard.pk, governor.alys.pk, governor.tom.pk],
            "governed_faces": {str(governor.tom.pk): [3, 3]},
        },
        format="json",
        HTTP_IDEMPOTENCY_KEY="plague-g",
    )
    assert done.status_code == 200, done.content
    assert Roll.objects.filter(campaign=campaign, purpose="plague").count() == 3


# --- storm ------------------------------------------------------------------------------------------


def test_a_storm_takes_the_royals_aboard_without_a_roll(campaign, gm):
    richard = prince(campaign)
    response = post(logged(gm), page(campaign, "storm"), {"characters": [richard.pk], "note": "off Cornwall"})
    assert response.status_code == 200 and any("lost at sea" in m for m in messages_of(response))
    richard.refresh_from_db()
    assert richard.status == Status.DEAD and richard.death_cause == "lost at sea in a storm (off Cornwall)"
    assert not Roll.objects.filter(campaign=campaign, purpose="storm").exists()


def test_a_child_in_a_storm_is_refused_with_the_rule_cited(campaign, gm):
    child = Character.objects.get(campaign=campaign, given_name="John", dynastic_name="Plantagenet")
    with pytest.raises(RuleError, match=r"Blood Royale A5 \(Storms\).*John Plantagenet has no piece on the map"):
        survival_event(campaign=campaign, reason="storm", characters=[child.pk], by=gm)
    desk = logged(gm).post(
        reverse("admin:dynasties_character_changelist"),
        {"action": "event_storm", admin.helpers.ACTION_CHECKBOX_NAME: [child.pk]},
        follow=True,
    )
    assert "Nothing recorded: Blood Royale A5 (Storms)" in desk.content.decode()
    assert Character.objects.get(pk=child.pk).status == Status.ALIVE


def test_a_storm_through_the_api(campaign, gm):
    edward = king(campaign)
    done = api(gm).post(endpoint(campaign, "storm"), {"characters": [edward.pk]}, format="json", HTTP_IDEMPOTENCY_KEY="s")
    assert done.status_code == 200 and "lost at sea" in done.json()["message"]
    assert king(campaign) != edward  # the crown passed at once


# --- killed -----------------------------------------------------------------------------------------


def test_a_prisoner_may_not_be_killed(campaign, gm):
    richard = prince(campaign)
    character_capture(campaign=campaign, character=richard, captor=house(campaign, "France"), by=SYSTEM_ACTOR)
    html = logged(gm).get(page(campaign, "killed")).content.decode()
    assert f'value="{richard.pk}"' not in html  # not offered
    with pytest.raises(RuleError, match=r"Captured characters may not be killed.*prisoner of the house of Anjou"):
        survival_event(campaign=campaign, reason="killed", characters=[richard.pk], by=gm)
    desk = logged(gm).post(
        reverse("admin:dynasties_character_changelist"),
        {"action": "event_killed", admin.helpers.ACTION_CHECKBOX_NAME: [richard.pk]},
        follow=True,
    )
    assert "Captured characters may not be killed" in desk.content.decode()
    for reason in ("battle", "plague", "storm"):  # no event takes him
        with pytest.raises(RuleError, match="Captured characters may not be killed"):
            survival_event(campaign=campaign, reason=reason, characters=[richard.pk], captor=NEUTRALS, by=gm)
    assert Character.objects.get(pk=richard.pk).status == Status.ALIVE


def test_a_king_killed_at_the_table_with_his_heir_passed_over(campaign, gm, battle):
    response = post(
        logged(gm),
        page(campaign, "killed"),
        {"characters": [battle.edward.pk], "pass_over": [battle.john.pk], "note": "in a duel"},
    )
    assert response.status_code == 200 and any("killed" in m for m in messages_of(response))
    assert king(campaign) == battle.henry


# --- who is offered what ----------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["battle", "plague", "storm", "killed"])
def test_the_player_is_not_offered_the_gms_forms(campaign, alice, key):
    assert logged(alice).get(page(campaign, key)).status_code == 403
    assert key not in {e["key"] for e in api(alice).get(f"/api/v1/campaigns/{campaign.slug}/events/").json()}
    assert api(alice).post(endpoint(campaign, key), {"characters": [king(campaign).pk]}, format="json").status_code == 403
    listing = logged(alice).get(reverse("pages:events", args=[campaign.slug])).content.decode()
    assert page(campaign, key) not in listing


def test_the_rolled_events_are_blood_royales(gm):
    from dynasties.services import campaign_create
    from rules.dice import RandomSource

    eu = campaign_create(name="EU", players=3, ruleset="eu-bloodline", source=RandomSource(3), by=gm)
    assert logged(gm).get(page(eu, "battle")).status_code == 404
    assert logged(gm).get(page(eu, "plague")).status_code == 404
    assert logged(gm).get(page(eu, "storm")).status_code == 200  # a royal leader lost at sea
    monarchs = campaign_create(name="EU monarchs", players=3, ruleset="eu-monarchs", source=RandomSource(3), by=gm)
    assert logged(gm).get(page(monarchs, "storm")).status_code == 404


def test_the_forms_read_as_many_queries_however_many_royals(campaign, gm, battle):
    """The odds, the households and the heirs are read in a fixed number of queries (one what-if per
    crown whose monarch may die, whatever the number of people)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    rule(campaign, governing_provinces=True)
    client = logged(gm)

    def reads() -> dict[str, int]:
        out = {}
        for key in ("battle", "plague", "storm", "killed"):
            with CaptureQueriesContext(connection) as queries:
                assert client.get(page(campaign, key)).status_code == 200
            out[key] = len(queries)
        return out

    def governor(n: int, crown: str) -> None:
        p = prince(campaign, crown, name=f"Prince{n}", piece="2")
        Title.objects.create(
            campaign=campaign, name=f"Duke of P{n}", province=f"P{n}", crown=crown, holder=p, granted_year=YEAR, granted_to=p
        )
        person(campaign, house(campaign, crown), f"Child{n}", "F", 1296, father=p)

    governor(1, "Spain")
    before = reads()
    for n, crown in enumerate(("France", "Spain", "England", "France"), start=2):
        p = prince(campaign, crown, name=f"Prince{n}", piece="2")
        Title.objects.create(
            campaign=campaign, name=f"Duke of P{n}", province=f"P{n}", crown=crown, holder=p, granted_year=YEAR, granted_to=p
        )
        person(campaign, house(campaign, crown), f"Child{n}", "F", 1296, father=p)
    assert reads() == before
