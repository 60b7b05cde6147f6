"""Captures, releases and ransoms as table events (issue 31; RULES.md A5, A8, B): through the pages and
the API, the neutrals' 100, a ransom between players posted to both exchequers and read by them and the
GM only, the refusals naming the rule, the prisoner's law (no births, a pass-over, BloodLine's interim
claim), undo, the desk's list actions and the migration of the rows undo may put back."""

from __future__ import annotations

import importlib
import json
import re
import zlib

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaign.models import ActionKey, Checkpoint, ChronicleEntry, Membership, Role, Roll, Step, UndoChange
from campaign.permissions import SYSTEM_ACTOR, Forbidden
from campaign.undo import new_action_key, step_action, undo_step
from dynasties import treasury
from dynasties.models import Character, Dynasty, Marriage, PassedOver, Posting, PostingKind, Reign
from dynasties.services import births_attempt, survival_finish
from dynasties.services.editing import character_edit
from dynasties.services.events import character_capture, character_release
from dynasties.services.interim import interim_claim_resolve
from rules.errors import RuleError
from rules.interphase import InterphaseEntry
from tests.events_helpers import api, endpoint, logged, page
from tests.factories import at_step, person, seat_member, shows_number
from tests.test_bloodline_succession import bloodline, kill
from tests.test_disputed_succession import roll_survival

RANSOM = 137  # an odd amount no rule produces: who sees it?


def house(campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def king(campaign, crown: str) -> Character:
    return Reign.objects.get(campaign=campaign, crown=crown, end_year__isnull=True).holder


def text(response) -> str:
    return response.content.decode()


@pytest.fixture
def carol(campaign):
    """Spain's player: a third house, party to nothing between England and France."""
    user = get_user_model().objects.create_user("carol", password="carol-password-1")
    seat_member(campaign=campaign, user=user, role=Role.PLAYER, dynasty=house(campaign, "Spain"))
    return user


@pytest.fixture
def observer(campaign):
    user = get_user_model().objects.create_user("olga", password="olga-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


def fund(campaign, crown: str, amount: int) -> None:
    treasury.post(campaign, payer=None, payee=house(campaign, crown), amount=amount, kind="tax", reason="taxes")


# --- taken prisoner ----------------------------------------------------------------------------------


def test_the_gm_records_a_capture_by_a_house_from_the_page(campaign, gm):
    edward = king(campaign, "England")
    client = logged(gm)
    form = client.get(page(campaign, "capture"))
    assert form.status_code == 200 and edward.display_name in text(form)
    response = client.post(
        page(campaign, "capture"),
        {"characters": [edward.pk], "captor": house(campaign, "France").pk, "reason": "at Crecy", "action_key": new_action_key()},
        follow=True,
    )
    assert response.status_code == 200, text(response)
    edward.refresh_from_db()
    assert edward.prisoner_of == house(campaign, "France") and not edward.held_by_neutrals
    assert "prisoner of the house of" in text(response)
    line = ChronicleEntry.objects.get(campaign=campaign, kind="capture")
    assert "at Crecy" in line.text and line.audience == "public"
    assert ActionKey.objects.filter(campaign=campaign, label="Taken prisoner").exists()  # one step action


def test_a_capture_takes_only_whom_the_rules_put_on_the_map(campaign, gm):
    """Blood Royale A5: a battle or a surrender takes a royal piece on the map; a Queen never leaves the
    capital, a child has no piece. The form offers the Kings only; the service refuses the others by the rule."""
    queen = Marriage.objects.get(campaign=campaign, husband=king(campaign, "England")).wife
    child = Character.objects.filter(campaign=campaign, controlled_by=house(campaign, "England"), birth_year=1295).first()
    prince = person(campaign, house(campaign, "England"), "Piers", "M", 1278, piece="2")
    offered = next(e for e in api(gm).get(f"/api/v1/campaigns/{campaign.slug}/events/").json() if e["key"] == "capture")
    choices = {c["value"]: c["note"] for c in offered["fields"][0]["choices"]}
    assert king(campaign, "England").pk in choices and prince.pk in choices
    assert choices[prince.pk] == "Prince piece 2" and "the King of England" in choices[king(campaign, "England").pk]
    assert queen.pk not in choices and child.pk not in choices
    for who in (queen, child):
        with pytest.raises(RuleError, match="Blood Royale A5, Captured Royal Characters") as refused:
            character_capture(campaign=campaign, characters=[who.pk], captor=house(campaign, "France"), by=gm)
        assert f"{who.display_name} is not one" in refused.value.message and refused.value.fields == {
            "characters": "not_capturable"
        }
    wrong = api(gm).post(endpoint(campaign, "capture"), {"characters": [queen.pk], "neutrals": True}, format="json")
    assert wrong.status_code == 400 and "characters" in wrong.json()["fields"]
    assert not Character.objects.filter(campaign=campaign, prisoner_of__isnull=False).exists()
    assert not Character.objects.filter(campaign=campaign, held_by_neutrals=True).exists()


def test_a_capture_names_one_captor_who_fights_and_not_his_own_house(campaign, gm):
    edward = king(campaign, "England")
    client = logged(gm)
    url = page(campaign, "capture")
    own = client.post(url, {"characters": [edward.pk], "captor": house(campaign, "England").pk, "action_key": new_action_key()})
    assert own.status_code == 400 and "cannot be captured by his own house" in text(own)
    nobody = client.post(url, {"characters": [edward.pk], "action_key": new_action_key()})
    assert nobody.status_code == 400 and "Say who took them" in text(nobody)
    both = client.post(
        url, {"characters": [edward.pk], "captor": house(campaign, "France").pk, "neutrals": "on", "action_key": new_action_key()}
    )
    assert both.status_code == 400 and "not both" in text(both)
    edward.refresh_from_db()
    assert not edward.is_prisoner
    character_capture(campaign=campaign, characters=[edward.pk], captor=house(campaign, "France"), by=gm)
    with pytest.raises(RuleError, match="already a prisoner of the house of"):
        character_capture(campaign=campaign, characters=[edward.pk], neutrals=True, by=gm)


def test_a_player_does_not_record_a_capture(campaign, alice):
    assert logged(alice).get(page(campaign, "capture")).status_code == 403
    refused = api(alice).post(
        endpoint(campaign, "capture"), {"characters": [king(campaign, "France").pk], "neutrals": True}, format="json"
    )
    assert refused.status_code == 403
    with pytest.raises(Forbidden):
        character_capture(campaign=campaign, characters=[king(campaign, "France").pk], neutrals=True, by=alice)


# --- ransoms -------------------------------------------------------------------------------------------


def test_the_neutrals_ransom_a_royal_for_100_paid_by_his_player_from_his_page(campaign, gm, alice):
    """Blood Royale, Fighting Neutrals: 'If they capture a Royal character, Neutrals ransom him for 100
    Crowns'. England's player pays it himself: his money, to the Treasury."""
    edward = king(campaign, "England")
    england = house(campaign, "England")
    character_capture(campaign=campaign, characters=[edward.pk], neutrals=True, reason="the Welsh", by=gm)
    edward.refresh_from_db()
    assert edward.held_by_neutrals and edward.prisoner_of is None
    fund(campaign, "England", 150)
    client = logged(alice)
    form = client.get(page(campaign, "release"))
    assert form.status_code == 200 and "prisoner of the neutrals: 100 Crowns" in text(form)
    wrong = client.post(page(campaign, "release"), {"characters": [edward.pk], "ransom": 50, "action_key": new_action_key()})
    assert wrong.status_code == 400 and "Neutrals ransom him for 100 Crowns" in text(wrong)
    for_nothing = client.post(page(campaign, "release"), {"characters": [edward.pk], "action_key": new_action_key()})
    assert for_nothing.status_code == 403 and "Only the GM records this release" in text(for_nothing)
    done = client.post(
        page(campaign, "release"), {"characters": [edward.pk], "ransom": 100, "action_key": new_action_key()}, follow=True
    )
    assert done.status_code == 200, text(done)
    edward.refresh_from_db()
    assert not edward.is_prisoner
    paid = Posting.objects.get(campaign=campaign, kind=PostingKind.RANSOM)
    assert (paid.payer, paid.payee, paid.amount, paid.character) == (england, None, 100, edward)
    assert treasury.balance(campaign, england) == 50
    lines = ChronicleEntry.objects.filter(campaign=campaign, kind="payment_owed")
    assert [(line.readers, "100 Crowns" in line.text) for line in lines] == [(f",{england.pk},", True)]
    assert "released by the neutrals" in ChronicleEntry.objects.get(campaign=campaign, kind="release").text


def test_a_ransom_between_players_is_posted_to_both_exchequers_and_read_by_them_and_the_gm(
    campaign, gm, alice, bob, carol, observer
):
    """A8: ransom on any terms. England pays France for its King, through the API (the GM records it,
    both having agreed); the amount is on England's and France's books and lines, nowhere else."""
    edward = king(campaign, "England")
    england, france = house(campaign, "England"), house(campaign, "France")
    character_capture(campaign=campaign, characters=[edward.pk], captor=france, by=gm)
    fund(campaign, "England", 500)
    body = {"characters": [edward.pk], "ransom": RANSOM, "paid_by": england.pk, "terms": "and two bales of wool"}
    by_payer = api(alice).post(endpoint(campaign, "release"), body, format="json")
    assert by_payer.status_code == 400  # England's player is not offered France's prisoner
    with pytest.raises(Forbidden, match="a ransom between two houses moves one player's money"):
        character_release(campaign=campaign, characters=[edward.pk], ransom=RANSOM, paid_by=england, by=alice)
    done = api(gm).post(endpoint(campaign, "release"), body, format="json", HTTP_IDEMPOTENCY_KEY="ransom-1")
    assert done.status_code == 200, done.content
    edward.refresh_from_db()
    assert not edward.is_prisoner
    assert (treasury.balance(campaign, england), treasury.balance(campaign, france)) == (500 - RANSOM, RANSOM)
    paid = Posting.objects.get(campaign=campaign, kind=PostingKind.RANSOM)
    assert (paid.payer, paid.payee, paid.amount) == (england, france, RANSOM)
    assert "two bales of wool" in paid.reason
    # who reads it: the payer's and the captor's exchequers and lines, the GM; nobody else, anywhere
    for user, sees in ((gm, True), (alice, True), (bob, True), (carol, False), (observer, False)):
        answers = [
            logged(user).get(reverse("pages:exchequer", args=[campaign.slug, england.pk])),
            logged(user).get(reverse("pages:exchequer", args=[campaign.slug, france.pk])),
            logged(user).get(reverse("pages:dashboard", args=[campaign.slug])),
            logged(user).get(reverse("pages:character", args=[campaign.slug, edward.pk])),
            api(user).get(f"/api/v1/campaigns/{campaign.slug}/ledger/"),
            api(user).get(f"/api/v1/campaigns/{campaign.slug}/chronicle/"),
        ]
        shown = [a for a in answers if a.status_code == 200 and shows_number(text(a), RANSOM)]
        assert bool(shown) is sees, (user.username, [a.status_code for a in answers])
        if not sees:
            assert not any("bales of wool" in text(a) for a in answers)
    both = logged(alice).get(reverse("pages:exchequer", args=[campaign.slug, england.pk]))
    assert shows_number(text(both), RANSOM)
    public = ChronicleEntry.objects.get(campaign=campaign, kind="release")
    assert public.audience == "public" and str(RANSOM) not in public.text and "paid by the house of" in public.text


def test_a_ransom_the_payer_cannot_pay_is_refused_beside_the_amount(campaign, gm):
    edward = king(campaign, "England")
    character_capture(campaign=campaign, characters=[edward.pk], captor=house(campaign, "France"), by=gm)
    response = api(gm).post(endpoint(campaign, "release"), {"characters": [edward.pk], "ransom": 300}, format="json")
    assert response.status_code == 400 and response.json()["fields"] == {"ransom": "insufficient_funds"}
    edward.refresh_from_db()
    assert edward.prisoner_of is not None and not Posting.objects.filter(kind=PostingKind.RANSOM).exists()


def test_the_captor_frees_his_prisoner_for_nothing_and_nobody_else_does(campaign, gm, alice, bob):
    edward = king(campaign, "England")
    character_capture(campaign=campaign, characters=[edward.pk], captor=house(campaign, "France"), by=gm)
    with pytest.raises(Forbidden, match="the captor's player frees his own prisoners"):
        character_release(campaign=campaign, characters=[edward.pk], by=alice)
    assert logged(alice).get(page(campaign, "release")).status_code == 200  # offered, with nothing of hers to free
    assert edward.display_name not in text(logged(alice).get(page(campaign, "release")))
    done = api(bob).post(endpoint(campaign, "release"), {"characters": [edward.pk], "terms": "peace"}, format="json")
    assert done.status_code == 200, done.content
    edward.refresh_from_db()
    assert not edward.is_prisoner and not Posting.objects.filter(kind=PostingKind.RANSOM).exists()
    terms = ChronicleEntry.objects.get(campaign=campaign, kind="payment_owed")
    assert "peace" in terms.text and terms.readers == f",{house(campaign, 'England').pk},{house(campaign, 'France').pk},"


def test_an_observer_records_nothing(campaign, gm, observer):
    edward = king(campaign, "England")
    character_capture(campaign=campaign, characters=[edward.pk], captor=house(campaign, "France"), by=gm)
    assert logged(observer).get(page(campaign, "release")).status_code == 403
    assert api(observer).post(endpoint(campaign, "release"), {"characters": [edward.pk]}, format="json").status_code == 403


def test_undo_takes_back_a_ransom_and_the_prisoner_is_held_again(campaign, gm):
    edward = king(campaign, "England")
    england, france = house(campaign, "England"), house(campaign, "France")
    character_capture(campaign=campaign, characters=[edward.pk], captor=france, by=gm)
    fund(campaign, "England", 200)
    done = logged(gm).post(
        page(campaign, "release"),
        {"characters": [edward.pk], "ransom": RANSOM, "paid_by": england.pk, "action_key": new_action_key()},
    )
    assert done.status_code == 302
    assert treasury.balance(campaign, france) == RANSOM
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    edward.refresh_from_db()
    assert edward.prisoner_of == france
    assert (treasury.balance(campaign, england), treasury.balance(campaign, france)) == (200, 0)
    assert not Posting.objects.filter(campaign=campaign, kind=PostingKind.RANSOM).exists()


# --- the prisoner's law ------------------------------------------------------------------------------------


@pytest.mark.parametrize("neutrals", [False, True])
def test_no_birth_roll_while_a_partner_is_held(campaign, gm, alice, neutrals):
    """A4: 'Birth rolls should not be made if either partner is being held prisoner'; 'No Birth rolls can
    be made for children for that character whilst he or she is prisoner' - of a house or of the neutrals."""
    edward = king(campaign, "England")
    couple = Marriage.objects.get(campaign=campaign, husband=edward)
    captor = {"neutrals": True} if neutrals else {"captor": house(campaign, "France")}
    character_capture(campaign=campaign, characters=[edward.pk], by=gm, **captor)
    at_step(campaign, Step.BIRTHS)
    with pytest.raises(RuleError, match=r"No birth roll while either partner is held prisoner \(Births, A4\)"):
        births_attempt(campaign=campaign, marriage=couple, faces=[6, 6], by=alice)
    character_release(campaign=campaign, characters=[edward.pk], by=gm)
    assert births_attempt(campaign=campaign, marriage=couple, faces=[6, 6], by=alice).success


def test_an_heir_held_by_the_neutrals_may_be_passed_over_without_the_charisma_roll(campaign, gm):
    """A7 Disputed Succession (a): 'the heir is a prisoner in another country'; the Charisma roll is for
    passing over a male heir 'held prisoner by another player' only."""
    at_step(campaign, Step.SURVIVAL)
    edward = king(campaign, "England")
    captive = person(campaign, house(campaign, "England"), "Captive", "M", 1278, father=edward, piece="1")
    second = person(campaign, house(campaign, "England"), "Second", "M", 1280, father=edward, piece="2")
    character_capture(campaign=campaign, characters=[captive.pk], neutrals=True, by=gm)
    roll_survival(campaign, {edward.pk})
    survival_finish(campaign=campaign, pass_over={"England": [captive.pk]}, by=SYSTEM_ACTOR)
    assert king(campaign, "England") == second
    assert PassedOver.objects.get(character=captive).reason == "a prisoner of the neutrals, in another country"
    assert not Roll.objects.filter(campaign=campaign, purpose="charisma_loss").exists()


def test_a_prisoner_of_the_neutrals_is_shown_as_one(campaign, gm):
    edward = king(campaign, "England")
    character_capture(campaign=campaign, characters=[edward.pk], neutrals=True, by=gm)
    shown = logged(gm).get(reverse("pages:character", args=[campaign.slug, edward.pk]))
    assert "prisoner of the neutrals" in text(shown)
    listed = api(gm).get(f"/api/v1/campaigns/{campaign.slug}/characters/{edward.pk}/").json()
    assert listed["held_by_neutrals"] is True and listed["prisoner_of"] is None
    with pytest.raises(RuleError, match="table events"):
        character_edit(campaign=campaign, character=edward, changes={"held_by_neutrals": False}, by=gm)


def test_the_interphase_ransom_frees_a_royal_held_by_the_neutrals(campaign, gm, alice):
    from dynasties.services.interphase import interphase_run

    edward = king(campaign, "England")
    character_capture(campaign=campaign, characters=[edward.pk], neutrals=True, by=gm)
    at_step(campaign, Step.INTERPHASE)
    fund(campaign, "England", 200)
    interphase_run(
        campaign=campaign,
        dynasty=house(campaign, "England"),
        entry=InterphaseEntry(provinces=0, neutral_ransoms=[edward.pk]),
        by=alice,
    )
    edward.refresh_from_db()
    assert not edward.is_prisoner
    assert Posting.objects.get(campaign=campaign, kind=PostingKind.RANSOM).amount == 100


# --- BloodLine: who is taken, the interim monarch and the released heir's claim ----------------------------


@pytest.fixture
def interim(campaign, gm):
    """BloodLine: England's heir taken by Spain, passed over at the King's death: the next heir reigns
    in the interim."""
    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    england = house(campaign, "England")
    edward = king(campaign, "England")
    captive = person(campaign, england, "Captive", "M", 1278, father=edward)
    second = person(campaign, england, "Second", "M", 1279, father=edward)
    character_capture(campaign=campaign, characters=[captive.pk], captor=house(campaign, "Spain"), by=gm)
    kill(campaign, edward.pk, pass_over={"England": [captive.pk]})
    reign = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    assert reign.holder == second and reign.interim_for == captive
    return captive, second


def test_bloodline_takes_only_the_royal_leaders(campaign, gm):
    """BloodLine, Royal Characters in Battle: the variant leaders are the heirs of 15 or more of the
    present dynasty; nobody else is on the map (not the monarch, not a Queen)."""
    bloodline(campaign)
    edward = king(campaign, "England")
    heir = person(campaign, house(campaign, "England"), "Heir", "M", 1280, father=edward)
    offered = next(e for e in api(gm).get(f"/api/v1/campaigns/{campaign.slug}/events/").json() if e["key"] == "capture")
    values = {c["value"] for c in offered["fields"][0]["choices"]}
    assert heir.pk in values and edward.pk not in values
    with pytest.raises(RuleError, match="BloodLine, Royal Characters in Battle"):
        character_capture(campaign=campaign, characters=[edward.pk], captor=house(campaign, "France"), by=gm)
    character_capture(campaign=campaign, characters=[heir.pk], captor=house(campaign, "France"), by=gm)


def test_the_crowns_player_recognises_the_released_heir_from_his_page(campaign, gm, alice, bob, interim):
    """BloodLine, Disputed Succession A: 'The player may use the next-in-line heir to run the Dynasty until
    the legitimate heir either dies or is released. If released, the legitimate heir immediately makes a
    claim to the throne': the crown's player answers it from his page; another player may not."""
    captive, _ = interim
    england = house(campaign, "England")
    listed = {e["key"]: e for e in api(gm).get(f"/api/v1/campaigns/{campaign.slug}/events/").json()}
    assert listed["interim_claim"]["fields"][0]["choices"] == []  # no claim while he is held
    with pytest.raises(RuleError, match=r"still a prisoner .*BloodLine, Disputed Succession A"):
        interim_claim_resolve(campaign=campaign, crown="England", recognize=True, by=gm)
    character_release(campaign=campaign, characters=[captive.pk], by=gm)
    claim = ChronicleEntry.objects.get(campaign=campaign, kind="claim")
    assert "claims the throne of England at once" in claim.text and claim.audience == "public"
    refused = logged(bob).post(
        page(campaign, "interim_claim"), {"crown": "England", "decision": "recognise", "action_key": new_action_key()}
    )
    assert refused.status_code == 400  # France's player decides nothing for England: not offered
    with pytest.raises(Forbidden, match="Only the player of England's house or the GM"):
        interim_claim_resolve(campaign=campaign, crown="England", recognize=True, by=bob)
    client = logged(alice)
    form = client.get(page(campaign, "interim_claim"))
    assert form.status_code == 200 and f"{captive.display_name} claims it from" in text(form)
    done = client.post(
        page(campaign, "interim_claim"),
        {"crown": "England", "decision": "recognise", "action_key": new_action_key()},
        follow=True,
    )
    assert done.status_code == 200, text(done)
    assert king(campaign, "England") == captive
    assert england.pk == Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder.controlled_by_id


def test_the_gm_keeps_the_interim_monarch_through_the_api(campaign, gm, interim):
    """BloodLine A: 'If the legitimate heir is not immediately recognized as the monarch, then the interim
    monarch is retained, and the results handled as in voluntary disputed succession'."""
    captive, second = interim
    character_release(campaign=campaign, characters=[captive.pk], by=gm)
    done = api(gm).post(endpoint(campaign, "interim_claim"), {"crown": "England", "decision": "refuse"}, format="json")
    assert done.status_code == 200, done.content
    reign = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    assert reign.holder == second and reign.interim_for is None
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="pass_over", text__contains="voluntary").exists()


def test_the_interim_claim_is_bloodlines_only(campaign, gm):
    assert logged(gm).get(page(campaign, "interim_claim")).status_code == 404


# --- the desk -------------------------------------------------------------------------------------------


def test_the_desks_actions_open_the_forms_with_the_ticked_characters(campaign, gm):
    edward = king(campaign, "England")
    gm.is_staff = True
    gm.save()
    client = logged(gm)
    changelist = reverse("admin:dynasties_character_changelist") + f"?campaign__id__exact={campaign.pk}"
    for action, key in (("event_capture", "capture"), ("event_release", "release")):
        response = client.post(changelist, {"action": action, "_selected_action": [edward.pk]})
        assert response.status_code == 302, text(response)
        assert response["Location"] == page(campaign, key) + f"?characters={edward.pk}"
    opened = client.get(page(campaign, "capture") + f"?characters={edward.pk}")
    assert re.search(rf'value="{edward.pk}"[^>]*checked', text(opened))


# --- the migration ---------------------------------------------------------------------------------------


def test_the_migration_gives_the_rows_undo_puts_back_the_new_column(campaign, gm):
    """0018: the change log's images of characters, a checkpoint's redo and an older checkpoint's whole copy
    were taken without ``held_by_neutrals``; the migration adds it (false), so an undo across it restores them."""
    edward = king(campaign, "England")
    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Births",
        action=lambda locked: Character.objects.filter(pk=edward.pk).update(given_name="Changed"),
        by=gm,
    )
    change = UndoChange.objects.get(table=Character._meta.db_table, row_id=edward.pk)
    image = json.loads(change.old)
    del image["held_by_neutrals"]  # as the change log held it before the column existed
    UndoChange.objects.filter(pk=change.pk).update(old=json.dumps(image))
    point = Checkpoint.objects.get(campaign=campaign)
    Checkpoint.objects.filter(pk=point.pk).update(
        redo=zlib.compress(
            json.dumps({"campaign": {}, "rows": {Character._meta.db_table: {str(edward.pk): json.dumps(image)}}}).encode()
        )
    )
    old_copy = [edward.pk] + [0] * 21  # 22 columns: a character as an older copy kept it
    older = Checkpoint.objects.create(
        campaign=campaign,
        year=campaign.current_year - 40,
        step="births",
        label="old",
        data=zlib.compress(json.dumps({"campaign": {}, "dynasties.Character": [old_copy]}).encode()),
    )

    importlib.import_module("dynasties.migrations.0018_held_by_neutrals").fill_images(apps, None)

    assert json.loads(UndoChange.objects.get(pk=change.pk).old)["held_by_neutrals"] is False
    redo = json.loads(zlib.decompress(Checkpoint.objects.get(pk=point.pk).redo))["rows"][Character._meta.db_table]
    assert json.loads(redo[str(edward.pk)])["held_by_neutrals"] is False
    copied = json.loads(zlib.decompress(Checkpoint.objects.get(pk=older.pk).data))["dynasties.Character"]
    assert copied == [[*old_copy, False]] and len(copied[0]) == len(Character._meta.concrete_fields)
    Checkpoint.objects.filter(pk=older.pk).delete()
    Checkpoint.objects.filter(pk=point.pk).update(redo=None)
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    back = Character.objects.get(pk=edward.pk)
    assert back.given_name != "Changed" and back.held_by_neutrals is False


# --- queries -------------------------------------------------------------------------------------------


def test_the_forms_queries_do_not_grow_with_the_prisoners(campaign, gm):
    """The capture and release forms read the royals and the prisoners in a fixed number of queries."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    england, france = house(campaign, "England"), house(campaign, "France")
    princes = [person(campaign, england, f"Prince{i}", "M", 1270 + i, piece=str(i + 1)) for i in range(4)]
    client = logged(gm)

    def counted() -> tuple[int, int]:
        out = []
        for key in ("capture", "release"):
            with CaptureQueriesContext(connection) as ctx:
                assert client.get(page(campaign, key)).status_code == 200
            out.append(len(ctx.captured_queries))
        return out[0], out[1]

    character_capture(campaign=campaign, characters=[princes[0].pk], captor=france, by=gm)
    one = counted()
    character_capture(campaign=campaign, characters=[p.pk for p in princes[1:]], neutrals=True, by=gm)
    character_capture(campaign=campaign, characters=[king(campaign, "Spain").pk], captor=france, by=gm)
    assert counted() == one
