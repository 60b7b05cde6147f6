"""The policy (campaign/permissions.py): who may see a line or a money term, who may act, through
every door (issue 14). Alice plays England, Bob France; Germany and Spain have no player here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from campaign import audit
from campaign.models import ActionKey, Audience, ChronicleEntry, Membership, Role, Step
from campaign.permissions import (
    ACTIONS,
    MONEY_LINE_KINDS,
    PUBLIC_LINE_KINDS,
    SEES,
    SYSTEM_ACTOR,
    Forbidden,
    NoActor,
    legacy_line_audience,
    line_audience,
    readers_text,
    require,
)
from campaign.undo import new_action_key, step_action
from contracts.models import ContractPayment, PaymentStatus
from contracts.services import contract_sign
from dynasties import treasury
from dynasties.models import Dynasty
from rules.dice import RandomSource
from tests.factories import at_step, shows_number
from tests.test_contracts import betroth, fund, house, marriage_contract, pay, wed

SECRET_AMOUNT = 4729
SECRET_REASON = "silver-for-the-secret-fleet-QX7"


@pytest.fixture
def observer(campaign, django_user_model):
    user = django_user_model.objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


def _api(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def _page(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# 1. payments between houses -------------------------------------------------------------------------


@pytest.fixture
def transfer(campaign, gm):
    """England gives Spain 4729 Crowns, as the treasury page or the API would do it."""
    england, spain = house(campaign, "England"), house(campaign, "Spain")
    fund(campaign, england, 10_000)
    with audit.acting(gm):
        return treasury.treasury_transfer(
            campaign=campaign, payer=england, payee=spain, amount=SECRET_AMOUNT, reason=SECRET_REASON, by=gm
        )


@pytest.mark.django_db
def test_a_transfer_line_is_for_the_payer_the_payee_and_the_gm(campaign, transfer):
    [line] = ChronicleEntry.objects.filter(campaign=campaign, kind="payment")
    england, spain = house(campaign, "England"), house(campaign, "Spain")
    assert line.audience == Audience.PARTIES and line.readers == readers_text([england.pk, spain.pk])


@pytest.mark.django_db
def test_a_transfer_is_read_by_no_one_else_through_any_chronicle_door(campaign, transfer, gm, alice, bob, observer):
    slug = campaign.slug
    year = campaign.current_year
    line = ChronicleEntry.objects.get(campaign=campaign, kind="payment")
    api_doors = [
        f"/api/v1/campaigns/{slug}/chronicle/",
        f"/api/v1/campaigns/{slug}/chronicle/?kind=payment",
        f"/api/v1/campaigns/{slug}/chronicle/?year={year}",
        f"/api/v1/campaigns/{slug}/chronicle/{line.pk}/",
        f"/api/v1/campaigns/{slug}/announcements/",
        f"/api/v1/campaigns/{slug}/announcements/?year={year}",
    ]
    for who in (bob, observer):
        for path in api_doors:
            response = _api(who).get(path)
            assert response.status_code in (200, 404), (path, response.status_code)
            body = response.content.decode()
            assert SECRET_REASON not in body and not shows_number(body, SECRET_AMOUNT), path
        page = _page(who).get(f"/c/{slug}/turn/announcements/")
        assert page.status_code == 200 and SECRET_REASON not in page.content.decode()
    for who in (gm, alice):  # the payer's player and the GM read it
        body = _api(who).get(f"/api/v1/campaigns/{slug}/chronicle/?kind=payment").content.decode()
        assert SECRET_REASON in body


@pytest.mark.django_db
def test_the_announcement_gathers_public_lines_only(campaign, transfer, gm):
    from dynasties.services.announcements import announcements_make

    at_step(campaign, Step.ANNOUNCEMENTS)
    announcement = announcements_make(campaign=campaign, by=gm)
    assert announcement.audience == Audience.PUBLIC and SECRET_REASON not in announcement.text


# 2. an unpaid contract payment ----------------------------------------------------------------------


@pytest.mark.django_db
def test_an_unpaid_payment_does_not_tell_the_payers_balance(campaign, gm, alice):
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    fund(campaign, germany, 37)  # Germany holds 37 and owes 80: the 37 is Germany's and the GM's
    match = betroth(campaign)
    contract = marriage_contract(campaign, match, [pay(germany, england, 80)])
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    wed(campaign, match)
    due = ContractPayment.objects.get(contract=contract)
    assert due.status == PaymentStatus.UNPAID
    [line] = ChronicleEntry.objects.filter(kind="contract_unpaid")
    assert "37" not in line.text and "holds" not in line.text and "UNPAID" in line.text
    assert "37" not in due.note
    page = _page(alice).get(f"/c/{campaign.slug}/contracts/{contract.pk}/").content.decode()
    assert "80" in page and "holds 37" not in page and "held 37" not in page


# 3. a dowry -----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_dowry_is_read_only_by_the_houses_of_the_match_and_the_gm(campaign, gm, alice, bob, observer):
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    match = betroth(campaign)
    contract = marriage_contract(
        campaign, match, [{"kind": "dowry", "params": {"payer": germany.pk, "payee": england.pk, "amount": SECRET_AMOUNT}}]
    )
    fund(campaign, germany, 10_000)
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    wed(campaign, match)
    match.refresh_from_db()
    assert str(SECRET_AMOUNT) in match.dowry and match.money_readers == readers_text([england.pk, germany.pk])
    path = f"/api/v1/campaigns/{campaign.slug}/marriages/{match.pk}/"
    assert _api(bob).get(path).json()["dowry"] is None
    assert _api(observer).get(path).json()["dowry"] is None
    assert str(SECRET_AMOUNT) in _api(alice).get(path).json()["dowry"]
    assert str(SECRET_AMOUNT) in _api(gm).get(path).json()["dowry"]
    for spouse in (match.husband, match.wife):  # the audit trail on the spouses' pages
        page = f"/c/{campaign.slug}/character/{spouse.pk}/"
        assert not shows_number(_page(bob).get(page).content.decode(), SECRET_AMOUNT)
        assert not shows_number(_page(observer).get(page).content.decode(), SECRET_AMOUNT)
        assert str(SECRET_AMOUNT) in _page(alice).get(page).content.decode()


# 4. one-time keys -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_page_key_cannot_cancel_another_users_api_write(campaign, gm, alice, bob):
    fund(campaign, house(campaign, "France"), 100)
    fund(campaign, house(campaign, "England"), 100)
    key = "alices-transfer-1"
    # Bob posts a page form whose key is shaped like Alice's API key
    forged = f"api:{alice.pk}:{key}"
    done = _page(bob).post(
        f"/c/{campaign.slug}/treasury/{house(campaign, 'France').pk}/",
        {
            "form": "transfer",
            "action_key": forged,
            "payee": house(campaign, "Spain").pk,
            "kind": "transfer",
            "amount": 1,
            "reason": "gift",
        },
    )
    assert done.status_code == 302 and treasury.balance(campaign, house(campaign, "France")) == 99
    response = _api(alice).post(
        f"/api/v1/campaigns/{campaign.slug}/treasury/transfers/",
        {"payer": house(campaign, "England").pk, "payee": house(campaign, "Spain").pk, "amount": 3, "reason": "a gift"},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )
    assert response.status_code == 201, response.content
    # and each user's keys are his own: Bob's same API key is not Alice's
    response = _api(bob).post(
        f"/api/v1/campaigns/{campaign.slug}/treasury/transfers/",
        {"payer": house(campaign, "France").pk, "payee": house(campaign, "Spain").pk, "amount": 2, "reason": "a gift"},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )
    assert response.status_code == 201, response.content
    stored = set(ActionKey.objects.filter(campaign=campaign).values_list("key", flat=True))
    assert f"api:{alice.pk}:{key}" in stored and f"api:{bob.pk}:{key}" in stored
    assert f"page:{bob.pk}:{forged}" in stored  # Bob's page key stays a page key of Bob's


# the acting checks, one per door --------------------------------------------------------------------


@pytest.mark.django_db
def test_the_services_refuse_a_player_acting_for_another_house(campaign, alice, bob):
    fund(campaign, house(campaign, "France"), 100)
    with audit.acting(alice), pytest.raises(Forbidden, match="your own dynasty"):
        treasury.treasury_transfer(
            campaign=campaign,
            payer=house(campaign, "France"),
            payee=house(campaign, "England"),
            amount=5,
            reason="mine now",
            by=alice,
        )
    with pytest.raises(Forbidden, match="Only the game master"):
        require(bob, campaign, "gm")
    assert require(SYSTEM_ACTOR, campaign, "gm").system  # the system, named: a command, a job, the rules
    with pytest.raises(NoActor):  # no one named is no one: refused, not the GM
        require(None, campaign, "gm")


@pytest.mark.django_db
def test_the_api_door_refuses_through_the_same_check(campaign, alice):
    fund(campaign, house(campaign, "France"), 100)
    before = treasury.balance(campaign, house(campaign, "France"))
    response = _api(alice).post(
        f"/api/v1/campaigns/{campaign.slug}/treasury/transfers/",
        {"payer": house(campaign, "France").pk, "payee": house(campaign, "England").pk, "amount": 5, "reason": "mine"},
        format="json",
    )
    assert response.status_code == 403 and response.json()["code"] == "permission_denied"
    assert treasury.balance(campaign, house(campaign, "France")) == before


@pytest.mark.django_db
def test_the_admin_door_refuses_through_the_same_check(campaign, alice):
    """Alice is staff with the contracts' model permissions and plays England: the service refuses
    her signing a France-Spain contract, and the desk (every GM's, not the staff's) is not hers."""
    alice.is_staff = True
    alice.save()
    france, spain = house(campaign, "France"), house(campaign, "Spain")
    from contracts.services import contract_draft

    contract = contract_draft(
        campaign=campaign, kind="agreement", title="Franco-Spanish pact", parties=[france, spain], by=SYSTEM_ACTOR
    )
    with audit.acting(alice), pytest.raises(Forbidden):
        contract_sign(campaign=campaign.pk, contract=contract.pk, by=alice)
    from django.contrib.auth.models import Permission

    alice.user_permissions.set(Permission.objects.filter(content_type__app_label="contracts"))
    client = _page(alice)
    listing = client.get("/admin/contracts/contract/", follow=True)
    assert listing.status_code == 403 and "Franco-Spanish pact" not in listing.content.decode()
    response = client.post("/admin/contracts/contract/", {"action": "sign", "_selected_action": [contract.pk]}, follow=True)
    contract.refresh_from_db()
    assert contract.state == "draft" and not contract.signatures.exists(), response.status_code


@pytest.mark.django_db
def test_the_admin_shows_a_staff_gm_his_own_campaigns_only(campaign, gm, django_user_model):
    from dynasties.services import campaign_create

    other_gm = django_user_model.objects.create_user("other", password="other-password-1", is_staff=True)
    other = campaign_create(name="Other Campaign", players=3, source=RandomSource(3), by=other_gm)
    from django.contrib.auth.models import Permission

    other_gm.user_permissions.set(Permission.objects.filter(content_type__app_label__in=["campaign", "dynasties"]))
    client = _page(other_gm)
    body = client.get("/admin/dynasties/dynasty/").content.decode()
    assert "Other Campaign" in body and "Test Campaign" not in body
    theirs = Dynasty.objects.filter(campaign=campaign).first()
    assert client.get(f"/admin/dynasties/dynasty/{theirs.pk}/change/").status_code in (302, 403, 404)
    assert other.pk != campaign.pk


@pytest.mark.django_db
def test_the_command_door_goes_through_the_same_check(campaign, gm, alice):
    """``manage.py undo --as USER``: the policy decides as for the pages and the API."""
    from django.core.management.base import CommandError

    fund(campaign, house(campaign, "England"), 100)
    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Transfer",
        by=gm,
        action=lambda c: treasury.treasury_transfer(
            campaign=c, payer=house(campaign, "England"), payee=house(campaign, "Spain"), amount=9, reason="gift", by=gm
        ),
    )
    with pytest.raises(CommandError, match="Only the game master"):
        call_command("undo", campaign.slug, as_user="alice")
    assert treasury.balance(campaign, house(campaign, "Spain")) == 9  # nothing undone
    call_command("undo", campaign.slug, as_user="gm")
    assert treasury.balance(campaign, house(campaign, "Spain")) == 0


@pytest.mark.django_db
def test_the_command_door_acts_as_the_system_and_a_page_user_cannot(campaign, gm, alice, tmp_path):
    """A management command runs on the server, as the system (the operator keeps every book):
    the export command writes everything, the private lines included, while no door a user can
    reach gives a player another house's line."""
    fund(campaign, house(campaign, "France"), 100)
    with audit.acting(gm):
        treasury.treasury_transfer(
            campaign=campaign,
            payer=house(campaign, "France"),
            payee=house(campaign, "Spain"),
            amount=7,
            reason=SECRET_REASON,
            by=gm,
        )
    out = tmp_path / "export.json"
    call_command("export_campaign", campaign.slug, output=str(out))
    assert SECRET_REASON in out.read_text()
    key = new_action_key()
    with pytest.raises(Forbidden):  # the same transfer, by England's player, through the one gate
        step_action(
            campaign=campaign,
            key=key,
            label="Transfer",
            by=alice,
            action=lambda c: treasury.treasury_transfer(
                campaign=c, payer=house(campaign, "France"), payee=house(campaign, "England"), amount=1, reason="x", by=alice
            ),
        )
    assert not ActionKey.objects.filter(key__endswith=key).exists()  # refused: nothing written, the key neither


# the audience of every line ------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", ["blood-royale", "eu-bloodline", "eu-monarchs"])
def test_every_line_a_campaign_writes_has_a_deliberate_audience(ruleset, gm):
    """A simulated campaign writes most kinds of line: each public kind is listed as public, and
    every other line names its readers (no line falls to the GM's alone by forgetting)."""
    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.services import campaign_create
    from operations.simulation import simulate

    campaign = campaign_create(name=f"Audience {ruleset}", ruleset=ruleset, players=5, source=RandomSource(11), by=gm)
    simulate(campaign, turns=12, source=RandomSource(11), by=SYSTEM_ACTOR)
    lines = list(ChronicleEntry.objects.filter(campaign=campaign).values_list("kind", "audience", "readers"))
    assert lines
    for kind, audience, readers in lines:
        if audience == Audience.PUBLIC:
            assert kind in PUBLIC_LINE_KINDS and kind not in MONEY_LINE_KINDS, kind
        else:
            assert audience == Audience.PARTIES and readers, (kind, audience)
    assert any(kind in MONEY_LINE_KINDS for kind, _, _ in lines) or ruleset == "eu-monarchs"


def test_a_line_without_a_known_audience_is_the_gms_alone():
    assert line_audience("payment") == (Audience.GM, "")
    assert line_audience("some_new_kind") == (Audience.GM, "")
    assert line_audience("payment", [None]) == (Audience.GM, "")
    assert line_audience("birth") == (Audience.PUBLIC, "")
    assert line_audience("payment", [3, 17, 3]) == (Audience.PARTIES, ",3,17,")
    assert legacy_line_audience("payment", {"posting": 4}) == (Audience.GM, "")
    assert legacy_line_audience("contract_signed", {"parties": [2, 5]}) == (Audience.PARTIES, ",2,5,")


def test_the_docs_show_the_policys_table_of_who_may_do_what():
    text = Path(__file__).resolve().parent.parent.joinpath("docs", "pages.md").read_text()
    rows = dict(re.findall(r"^\| ([^|]+?) \| ([^|]+?) \|$", text, flags=re.MULTILINE))
    for action, who in ACTIONS.items():
        assert rows.get(action) == who, f"docs/pages.md must show the row '| {action} | {who} |' (campaign.permissions.ACTIONS)"
    for what, who in SEES.items():
        assert rows.get(what) == who, f"docs/pages.md must show the row '| {what} | {who} |' (campaign.permissions.SEES)"


@pytest.mark.django_db
def test_an_unscoped_contract_line_made_by_hand_is_denied_to_players(campaign, alice):
    """A line written without its audience (a future writer's slip) reaches no player."""
    from campaign.permissions import visible

    ChronicleEntry.objects.create(campaign=campaign, year=1300, step="births", kind="contract_note", text="secret")
    assert not visible(alice, campaign, ChronicleEntry.objects.filter(text="secret")).exists()


@pytest.mark.django_db
def test_a_players_signature_brings_the_contracts_renunciation_into_force(campaign, gm, alice):
    """The renunciation is the rules' consequence of a contract its parties signed, not a GM's entry:
    Alice's last signature makes it, though a renunciation entered by hand is the GM's."""
    from contracts.services import contract_sign_party
    from dynasties.models import Renunciation
    from dynasties.services.claims import claim_renounce

    england, germany = house(campaign, "England"), house(campaign, "Germany")
    match = betroth(campaign)
    wed(campaign, match)
    renounce = {"kind": "renunciation", "params": {"character": match.wife_id, "crown": "Germany"}}
    contract = marriage_contract(campaign, match, [renounce])
    contract_sign_party(campaign=campaign, contract=contract, dynasty=germany, by=gm)
    with audit.acting(alice):
        contract_sign_party(campaign=campaign, contract=contract, dynasty=england, by=alice)
    contract.refresh_from_db()
    assert contract.state == "in_force" and Renunciation.objects.filter(character=match.wife, crown="Germany").exists()
    with audit.acting(alice), pytest.raises(Forbidden, match="Only the game master"):
        claim_renounce(campaign=campaign, character=match.husband, crown="England", by=alice)
