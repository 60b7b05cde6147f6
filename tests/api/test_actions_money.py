"""Issue 8: the treasury's actions through the API - gifts and loans, the GM's corrections, the
Interphase helper. A player pays from his own exchequer only; the GM corrects; an observer never
touches money; another house's money never shows."""

from __future__ import annotations

import pytest

from campaign.models import ActionKey, Checkpoint, ChronicleEntry, Step
from dynasties import treasury
from dynasties.models import Dynasty, Posting, PostingKind, Province
from tests.api.conftest import assert_error, url
from tests.factories import at_step

pytestmark = pytest.mark.django_db

TRANSFERS = "treasury/transfers"


def house(campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def written(campaign) -> tuple[int, ...]:
    return (
        Posting.objects.filter(campaign=campaign).count(),
        ChronicleEntry.objects.filter(campaign=campaign).count(),
        Checkpoint.objects.filter(campaign=campaign).count(),
        ActionKey.objects.filter(campaign=campaign).count(),
    )


@pytest.fixture
def purses(campaign):
    """England holds 100 Crowns, France 20; the second turn (1305) of the campaign."""
    at_step(campaign, Step.BIRTHS, year=1305)
    england, france = house(campaign, "England"), house(campaign, "France")
    treasury.post(campaign, payer=None, payee=england, amount=100, kind=PostingKind.TAX, reason="Taxes")
    treasury.post(campaign, payer=None, payee=france, amount=20, kind=PostingKind.TAX, reason="Taxes")
    return england, france


def test_a_player_gives_from_his_own_exchequer(campaign, alice, bob, client_for, purses):
    england, france = purses
    data = {"payer": england.pk, "payee": france.pk, "amount": 30, "kind": "loan", "reason": "Against the harvest"}
    response = client_for(alice).post(url(campaign, TRANSFERS), data)
    assert response.status_code == 201, response.content
    body = response.json()
    posting = body["posting"]
    assert (posting["payer"], posting["payee"], posting["amount"], posting["kind"]) == (england.pk, france.pk, 30, "loan")
    assert (body["balance"], body["currency"]) == (70, "Crowns")
    assert treasury.balance(campaign, france) == 50
    # Bob sees the loan he received; the GM can reverse it.
    ledger = client_for(bob).get(url(campaign, "ledger"), {"kind": "loan"}).json()["results"]
    assert [p["id"] for p in ledger] == [posting["id"]]


def test_transfer_refusals(campaign, gm, alice, bob, observer, outsider, client_for, purses):
    england, france = purses
    gift = {"payer": england.pk, "payee": france.pk, "amount": 10, "reason": "A gift"}
    before = written(campaign)
    assert_error(client_for(bob).post(url(campaign, TRANSFERS), gift), 403, "permission_denied")  # not his exchequer
    assert_error(client_for(observer).post(url(campaign, TRANSFERS), gift), 403, "permission_denied")
    assert_error(client_for(outsider).post(url(campaign, TRANSFERS), gift), 404, "not_found")
    client = client_for(alice)
    assert_error(client.post(url(campaign, TRANSFERS), {**gift, "payee": None}), 403, "permission_denied")  # the GM's
    body = assert_error(client.post(url(campaign, TRANSFERS), {**gift, "amount": 500}), 400, "insufficient_funds")
    assert set(body["fields"]) == {"amount"} and "holds 100 Crowns" in body["message"]
    body = assert_error(client.post(url(campaign, TRANSFERS), {**gift, "amount": 0, "kind": "bribe"}), 400, "invalid")
    assert set(body["fields"]) == {"amount", "kind"}
    body = assert_error(client.post(url(campaign, TRANSFERS), {**gift, "payee": england.pk}), 400, "invalid")
    assert set(body["fields"]) == {"payee"}
    assert_error(client.post(url(campaign, TRANSFERS), {**gift, "payee": 999999}), 404, "not_found")
    assert written(campaign) == before
    # The GM pays from any exchequer, to the Treasury too; the same key twice pays once.
    data = {**gift, "payer": france.pk, "payee": None}
    assert client_for(gm).post(url(campaign, TRANSFERS), data, HTTP_IDEMPOTENCY_KEY="pay-1").status_code == 201
    assert_error(client_for(gm).post(url(campaign, TRANSFERS), data, HTTP_IDEMPOTENCY_KEY="pay-1"), 409, "already_done")
    assert treasury.balance(campaign, france) == 10


def test_the_gm_reverses_a_posting(campaign, gm, alice, client_for, purses):
    england, _ = purses
    posting = Posting.objects.get(payee=england)
    path = url(campaign, f"ledger/{posting.pk}/reverse")
    before = written(campaign)
    assert_error(client_for(alice).post(path, {"reason": "Mine"}), 403, "permission_denied")
    assert_error(client_for(gm).post(path, {}), 400, "invalid")
    assert_error(client_for(gm).post(url(campaign, "ledger/999999/reverse"), {"reason": "x"}), 404, "not_found")
    assert written(campaign) == before
    response = client_for(gm).post(path, {"reason": "Entered twice"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["reversed"]["id"] == posting.pk and body["reversal"]["reverses"] == posting.pk
    assert (body["reversal"]["payer"], body["reversal"]["payee"], body["reversal"]["kind"]) == (england.pk, None, "correction")
    assert treasury.balance(campaign, england) == 0
    assert_error(client_for(gm).post(path, {"reason": "Again"}), 400, "already_reversed")


INTERPHASE = {"provinces": 5, "armies_kept": 2}
CASH_IN = {"basic_sets": 1, "semi_luxury_sets": 1}


def test_the_interphase_preview_then_run(campaign, gm, alice, bob, client_for, purses):
    england, france = purses
    client = client_for(alice)
    preview = url(campaign, f"interphase/{england.pk}/preview")
    before = written(campaign)
    response = client.post(preview, INTERPHASE)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["cash_before"] == 100 and body["income"] > 0 and body["currency"] == "Crowns"
    assert body["cash_after"] == 100 + sum(line["signed"] for line in body["lines"])
    names = client.post(preview, {**INTERPHASE, "provinces": ["Kent", "Wessex", "Mercia", "York", "Anjou"]}).json()
    assert names["lines"] == body["lines"]
    assert written(campaign) == before  # a preview writes nothing
    # The run is the Interphase step's; once a year.
    run = url(campaign, f"interphase/{england.pk}/run")
    assert_error(client.post(run, INTERPHASE), 409, "step_order")
    at_step(campaign, Step.INTERPHASE)
    response = client.post(run, INTERPHASE)
    assert response.status_code == 201, response.content
    made = response.json()
    assert made["balance"] == body["cash_after"] == treasury.balance(campaign, england)
    assert [p["amount"] for p in made["postings"]] == [line["amount"] for line in body["lines"]]
    assert_error(client.post(run, INTERPHASE), 409, "interphase_done")
    # Bob's answer for England: refused, England's money never shown.
    for path in (preview, run):
        body = assert_error(client_for(bob).post(path, INTERPHASE), 403, "permission_denied")
        assert "100" not in body["message"]
    assert client_for(gm).post(url(campaign, f"interphase/{france.pk}/preview"), INTERPHASE).status_code == 200


def test_interphase_refusals(campaign, alice, observer, client_for, purses):
    england, _ = purses
    preview = url(campaign, f"interphase/{england.pk}/preview")
    client = client_for(alice)
    # nothing typed: the entry comes from the province register (issue 33), not a refusal
    empty = client.post(preview, {})
    assert empty.status_code == 200, empty.content[:300]
    assert empty.json()["taxed_provinces"] == Province.objects.filter(campaign=campaign, controlled_by=england).count()
    body = assert_error(client.post(preview, {**INTERPHASE, "provinces": "many", "tax_rate": 6, "armies_kept": -1}), 400)
    assert set(body["fields"]) == {"provinces", "tax_rate", "armies_kept"}
    body = assert_error(client.post(preview, {**INTERPHASE, "rebellions_bought_off": 3}), 400)
    assert body["fields"], body  # the helper names what is wrong
    assert_error(client.post(url(campaign, "interphase/999999/preview"), INTERPHASE), 404, "not_found")
    assert_error(client_for(observer).post(preview, INTERPHASE), 403, "permission_denied")


def test_the_interphase_refuses_sets_and_the_cashing_in_takes_them_after_it(campaign, alice, bob, client_for, purses):
    """ "D) CASHING IN RESOURCES" ends the turn, after "B) INTERPHASE" and "C) MOVEMENT": an
    Interphase entry carrying sets is refused (not silently dropped), and the sets go to their own
    door once the house's Interphase is posted."""
    england, _ = purses
    client = client_for(alice)
    at_step(campaign, Step.INTERPHASE)
    run = url(campaign, f"interphase/{england.pk}/run")
    body = assert_error(client.post(run, {**INTERPHASE, "basic_sets": 1}), 400, "invalid")
    assert set(body["fields"]) == {"basic_sets"}
    cash_in = url(campaign, f"cash-in/{england.pk}/run")
    assert_error(client.post(cash_in, CASH_IN), 409, "interphase_first")
    preview = client.post(url(campaign, f"cash-in/{england.pk}/preview"), CASH_IN)
    assert preview.status_code == 200 and preview.json()["income"] == 130 and preview.json()["cash_before"] == 100
    assert client.post(run, INTERPHASE).status_code == 201
    held = treasury.balance(campaign, england)
    assert_error(client_for(bob).post(cash_in, CASH_IN), 403, "permission_denied")
    response = client.post(cash_in, CASH_IN)
    assert response.status_code == 201, response.content
    made = response.json()
    assert made["balance"] == held + 130 == treasury.balance(campaign, england)
    assert [(p["amount"], p["kind"]) for p in made["postings"]] == [(50, "cash_in"), (80, "cash_in")]
    assert_error(client.post(cash_in, CASH_IN), 409, "cash_in_done")


def test_the_observer_touches_no_money(campaign, observer, client_for, purses):
    england, france = purses
    posting = Posting.objects.get(payee=england)
    client = client_for(observer)
    before = written(campaign)
    for path, data in (
        (TRANSFERS, {"payer": england.pk, "payee": france.pk, "amount": 1, "reason": "x"}),
        (f"ledger/{posting.pk}/reverse", {"reason": "x"}),
        (f"interphase/{england.pk}/preview", INTERPHASE),
        (f"interphase/{england.pk}/run", INTERPHASE),
        (f"cash-in/{england.pk}/preview", CASH_IN),
        (f"cash-in/{england.pk}/run", CASH_IN),
    ):
        assert_error(client.post(url(campaign, path), data), 403, "permission_denied")
    assert written(campaign) == before


def test_the_interphase_takes_governed_provinces(campaign, alice, client_for, purses):
    """Rule G through the API: "any Province governed by a character raises 2 Crowns extra"; a
    Governor of another dynasty "would keep those 2 Crowns for his or her own Dynasty"."""
    from dynasties.models import Character, Title

    england, france = purses
    campaign.optional_rules = {**campaign.optional_rules, "governing_provinces": True}
    campaign.save()
    holder = Character.objects.filter(campaign=campaign, controlled_by=france, sex="M", status="alive").first()
    Title.objects.create(
        campaign=campaign,
        name="Duke of Kent",
        province="Kent",
        crown="England",
        holder=holder,
        granted_year=1300,
        granted_to=holder,
    )
    preview = url(campaign, f"interphase/{england.pk}/preview")
    body = client_for(alice).post(
        preview, {"provinces": ["Kent", "Wessex"], "governed": [{"province": "Kent", "withheld": 1}]}, format="json"
    )
    assert body.status_code == 200, body.content
    assert [(x["amount"], x["house"], x["reason"][:14]) for x in body.json()["lines"]] == [
        (9, None, "Taxation: 2 pr"),
        (2, france.pk, "Governed provi"),
        (1, france.pk, "Governed provi"),
    ]
    assert body.json()["income"] == 9
    too_much = client_for(alice).post(
        preview, {"provinces": ["Kent"], "governed": [{"province": "Kent", "withheld": 8}]}, format="json"
    )
    assert too_much.status_code == 400


def test_the_interphase_takes_the_year_track(campaign, alice, client_for, purses):
    """Section 13: "Players may not raise troops from the Army counters on the Year Track"."""
    england, _ = purses
    preview = url(campaign, f"interphase/{england.pk}/preview")
    entry = {"provinces": 10, "home_provinces": 10, "armies_kept": 8, "armies_on_track": 8}
    body = assert_error(client_for(alice).post(preview, {**entry, "armies_raised": 5}), 400)
    assert body["fields"] == {"armies_raised": "over_pool"}
    assert client_for(alice).post(preview, {**entry, "armies_raised": 4}).status_code == 200


def test_the_interphase_takes_where_new_forces_are_placed(campaign, alice, client_for, purses):
    """Section 13: "New armies are placed in the Capital and Fleets in any coastal Home Province"."""
    england, _ = purses
    preview = url(campaign, f"interphase/{england.pk}/preview")
    entry = {"provinces": ["Middlesex", "Cornwall"], "home_provinces": ["Middlesex", "Cornwall"], "fleets_raised": 1}
    body = client_for(alice).post(preview, {**entry, "fleet_ports": ["Cornwall"]}, format="json").json()
    assert body["lines"][-1]["reason"] == "Raising 1 fleet at 5 Crowns, placed in Cornwall"
    refused = assert_error(client_for(alice).post(preview, {**entry, "fleet_ports": ["Calais"]}, format="json"), 400)
    assert refused["fields"] == {"fleet_ports": "not_home"}


def test_the_interphase_takes_the_movements_payments(campaign, alice, client_for, purses):
    """ "Neutrals ransom him for 100 Crowns"; rule D: "-1 for each 15 Crowns the owning player pays"."""
    from dynasties.models import Character

    england, _ = purses
    royal = Character.objects.filter(campaign=campaign, controlled_by=england, status="alive").first()
    preview = url(campaign, f"interphase/{england.pk}/preview")
    off = assert_error(client_for(alice).post(preview, {"provinces": 0, "trade_defence_crowns": 15}, format="json"), 400)
    assert off["fields"] == {"trade_defence_crowns": "option_off"}  # rule D is not in force
    campaign.optional_rules = {**campaign.optional_rules, "trade_item_movement": True}
    campaign.save(update_fields=["optional_rules"])
    entry = {
        "provinces": 0,
        "neutral_ransoms": [royal.pk],
        "trade_defence_crowns": 15,
        "event_payments": [{"card": "31 Denmark", "amount": 10}],
    }
    body = client_for(alice).post(preview, entry, format="json").json()
    assert [(x["kind"], x["amount"]) for x in body["lines"]] == [("ransom", 100), ("other", 15), ("other", 10)]
    refused = assert_error(client_for(alice).post(preview, {**entry, "trade_defence_crowns": 20}, format="json"), 400)
    assert refused["fields"] == {"trade_defence_crowns": "step"}
