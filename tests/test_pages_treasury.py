"""Issue 7, the treasury pages: the exchequers, a ledger with its chart, gifts and loans, the GM's
corrections, and the Interphase helper form - who may see and do what, bad input, double submits,
and a fixed number of queries however long the ledger."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import Campaign, ChronicleEntry, Membership, Role, Step
from campaign.undo import new_action_key
from dynasties.models import Dynasty, Posting, PostingKind
from dynasties.services import campaign_create
from dynasties.treasury import balance
from rules.dice import RandomSource
from rules.interphase import InterphaseEntry
from tests.factories import at_step, shows_number

SECRET = 4321  # what England holds: nobody but Alice and the GM may learn it


# --- fixtures and helpers ---------------------------------------------------------------------------


@pytest.fixture
def observer(campaign):
    user = get_user_model().objects.create_user("olga", password="olga-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


@pytest.fixture
def england(campaign) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown="England")


@pytest.fixture
def france(campaign) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown="France")


def pay(
    campaign: Campaign,
    payer: Dynasty | None,
    payee: Dynasty | None,
    amount: int,
    reason: str,
    *,
    year: int | None = None,
    kind: str = PostingKind.OTHER,
) -> Posting:
    return Posting.objects.create(
        campaign=campaign,
        year=year or campaign.current_year,
        step=campaign.step,
        payer=payer,
        payee=payee,
        amount=amount,
        kind=kind,
        reason=reason,
    )


@pytest.fixture
def hoard(campaign, england) -> Posting:
    return pay(campaign, None, england, SECRET, "Hidden hoard")


def urls(campaign: Campaign, dynasty: Dynasty) -> dict[str, str]:
    return {
        "treasury": reverse("pages:treasury", args=[campaign.slug]),
        "exchequer": reverse("pages:exchequer", args=[campaign.slug, dynasty.pk]),
        "interphase": reverse("pages:interphase", args=[campaign.slug, dynasty.pk]),
    }


def field_block(html: str, field_id: str) -> str:
    """The <div class="field"> that holds the input ``field_id`` (its label, input, help, errors)."""
    at = html.index(f'id="{field_id}"')
    start = html.rindex('<div class="field', 0, at)
    return html[start : html.index("</div>", at)]


def transfer_data(payee: Dynasty | str, amount: object = 30, reason: str = "A wedding gift", kind: str = "transfer") -> dict:
    return {
        "form": "transfer",
        "payee": payee if isinstance(payee, str) else str(payee.pk),
        "kind": kind,
        "amount": str(amount),
        "reason": reason,
        "action_key": new_action_key(),
    }


def interphase_data(**values: object) -> dict:
    data = {"provinces": "8", "tax_rate": "5", "do": "preview", "action_key": new_action_key()}
    data.update({k: str(v) for k, v in values.items()})
    return data


def count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


# --- who sees what ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "treasury", "own", "other"),
    [
        ("gm", 200, 200, 200),
        ("alice", 302, 200, 404),
        ("bob", 302, 404, 200),  # "own" is England's page, "other" France's, as seen by each
        ("observer", 200, 404, 404),
        ("outsider", 404, 404, 404),
    ],
)
def test_the_secrecy_matrix_for_every_page(client, campaign, england, france, hoard, who, treasury, own, other, request):
    client.force_login(request.getfixturevalue(who))
    assert client.get(urls(campaign, england)["treasury"]).status_code == treasury
    for dynasty, status in ((england, own), (france, other)):
        for name in ("exchequer", "interphase"):
            response = client.get(urls(campaign, dynasty)[name])
            assert response.status_code == status, (who, dynasty.crown, name)
            if status != 200 and response.status_code == 404:
                assert not shows_number(response.content.decode(), SECRET)


def test_anonymous_visitors_are_sent_to_log_in(client, campaign, england, france):
    for url in urls(campaign, england).values():
        response = client.get(url)
        assert response.status_code == 302 and "/login/" in response["Location"]
    response = client.post(urls(campaign, england)["exchequer"], transfer_data(france, 10))
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert not Posting.objects.exists()


def test_a_player_is_sent_to_his_own_exchequer(client, campaign, alice, england):
    client.force_login(alice)
    response = client.get(urls(campaign, england)["treasury"])
    assert response["Location"] == reverse("pages:exchequer", args=[campaign.slug, england.pk])


def test_the_gm_sees_every_balance_and_others_none(client, campaign, gm, bob, observer, england, france, hoard):
    pay(campaign, None, france, 77, "French wine")
    client.force_login(gm)
    html = client.get(urls(campaign, england)["treasury"]).content.decode()
    assert f"{SECRET} Crowns" in html and "77 Crowns" in html
    for d in Dynasty.objects.filter(campaign=campaign):
        assert reverse("pages:exchequer", args=[campaign.slug, d.pk]) in html
    assert f"paid out {SECRET + 77} Crowns more" in html  # the bank's side
    client.force_login(observer)
    html = client.get(urls(campaign, england)["treasury"]).content.decode()
    assert "As an observer you see no exchequer" in html
    assert not shows_number(html, SECRET) and not shows_number(html, 77) and england.name not in html
    # Bob's own page shows his 77, never England's balance, name in a list or a count
    client.force_login(bob)
    html = client.get(urls(campaign, france)["exchequer"]).content.decode()
    assert "77 Crowns" in html and not shows_number(html, SECRET) and "Hidden hoard" not in html


def test_a_dynasty_of_another_campaign_or_none_is_not_found(client, campaign, gm, alice):
    other = campaign_create(name="Elsewhere", players=3, source=RandomSource(2), by=gm)
    foreign = Dynasty.objects.filter(campaign=other).first()
    client.force_login(gm)
    assert client.get(reverse("pages:exchequer", args=[campaign.slug, foreign.pk])).status_code == 404
    assert client.get(reverse("pages:exchequer", args=[campaign.slug, 999_999])).status_code == 404
    client.force_login(alice)  # a player cannot even tell whether a dynasty exists
    assert client.get(reverse("pages:exchequer", args=[campaign.slug, 999_999])).status_code == 404


@pytest.mark.parametrize(("who", "status"), [("bob", 404), ("observer", 404), ("outsider", 404)])
def test_nobody_else_may_post_on_an_exchequer(client, campaign, england, france, hoard, who, status, request):
    client.force_login(request.getfixturevalue(who))
    before = Posting.objects.count()
    assert client.post(urls(campaign, england)["exchequer"], transfer_data(france, 10)).status_code == status
    reverse_data = {"form": "reverse", "posting": hoard.pk, "reason": "mine now", "action_key": new_action_key()}
    assert client.post(urls(campaign, england)["exchequer"], reverse_data).status_code == status
    at_step(campaign, Step.INTERPHASE, year=1305)
    assert client.post(urls(campaign, england)["interphase"], interphase_data(do="run")).status_code == status
    assert Posting.objects.count() == before


def test_only_the_gm_corrects_the_ledger(client, campaign, alice, england, hoard):
    client.force_login(alice)
    data = {"form": "reverse", "posting": hoard.pk, "reason": "I'd rather not", "action_key": new_action_key()}
    assert client.post(urls(campaign, england)["exchequer"], data).status_code == 403
    assert not Posting.objects.filter(reverses=hoard).exists()
    html = client.get(urls(campaign, england)["exchequer"]).content.decode()
    assert "Reverse…" not in html and 'name="form" value="reverse"' not in html


def test_an_unknown_form_is_refused(client, campaign, alice, england):
    client.force_login(alice)
    assert client.post(urls(campaign, england)["exchequer"], {"form": "steal"}).status_code == 400


# --- the ledger and the chart ---------------------------------------------------------------------------


def test_the_ledger_shows_every_posting_with_its_running_balance(client, campaign, alice, england, france):
    pay(campaign, None, england, 100, "Taxation of 1300", kind=PostingKind.TAX, year=1300)
    pay(campaign, england, france, 30, "A loan to France", kind=PostingKind.LOAN, year=1305)
    pay(campaign, england, None, 120, "Raising armies", kind=PostingKind.RAISING, year=1310)
    at_step(campaign, Step.SURVIVAL, year=1310)
    client.force_login(alice)
    response = client.get(urls(campaign, england)["exchequer"])
    html = response.content.decode()
    assert "Holds" in html and "-50 Crowns" in html
    rows = response.context["rows"]
    assert [(p.year, p.kind_name, p.reason, p.counterparty, p.signed, p.running) for p in rows] == [
        (1310, "Raising forces", "Raising armies", "the Treasury", -120, -50),
        (1305, "Loan", "A loan to France", str(france), -30, 70),
        (1300, "Taxation", "Taxation of 1300", "the Treasury", 100, 100),
    ]
    assert "+100" in html and "-120" in html and str(france) in html
    # the chart: balance at the end of each year, to the current year
    assert response.context["series"] == [(1300, 100), (1305, 70), (1310, -50)]
    start = html.index('class="balance-chart"')  # (the house's colour before it is a small <svg> too)
    svg = html[start : html.index("</svg>", start) + 6]
    assert 'role="img"' in svg and f"Balance of the house of {england.name}, 1300–1310" in svg
    assert "1305: 70" in svg and "1310: -50" in svg
    assert 'class="point negative"' in svg


def test_an_empty_exchequer_shows_a_flat_chart(client, campaign, alice, england):
    at_step(campaign, Step.BIRTHS, year=1305)
    client.force_login(alice)
    response = client.get(urls(campaign, england)["exchequer"])
    assert response.context["series"] == [(1300, 0), (1305, 0)]
    assert "No postings yet." in response.content.decode()


def test_a_long_ledger_is_paged_with_the_right_running_balance(client, campaign, gm, england):
    Posting.objects.bulk_create(
        Posting(
            campaign=campaign,
            year=1300 + i // 20,
            step="births",
            payer=None,
            payee=england,
            amount=i + 1,
            kind="other",
            reason=f"gift {i + 1}",
        )
        for i in range(120)
    )
    client.force_login(gm)
    first = client.get(urls(campaign, england)["exchequer"])
    total = sum(range(1, 121))
    assert [p.reason for p in first.context["rows"]][:2] == ["gift 120", "gift 119"]
    assert first.context["rows"][0].running == total and len(first.context["rows"]) == 50
    assert "Earlier postings" in first.content.decode()
    second = client.get(urls(campaign, england)["exchequer"] + "?page=2")
    top = second.context["rows"][0]
    assert top.reason == "gift 70" and top.running == sum(range(1, 71))
    last = client.get(urls(campaign, england)["exchequer"] + "?page=3").context["rows"]
    assert last[-1].reason == "gift 1" and last[-1].running == 1


@pytest.mark.parametrize("who", ["gm", "alice"])
def test_query_counts_do_not_grow_with_the_ledger(client, campaign, england, france, who, request):
    at_step(campaign, Step.INTERPHASE, year=1305)
    client.force_login(request.getfixturevalue(who))
    page_urls = [urls(campaign, england)["exchequer"], urls(campaign, england)["interphase"]]
    if who == "gm":
        page_urls.append(urls(campaign, england)["treasury"])

    def postings(n: int, start: int) -> None:
        Posting.objects.bulk_create(
            Posting(
                campaign=campaign,
                year=1300 + (i % 40) * 5,
                step="births",
                payer=england if i % 3 == 0 else None,
                payee=france if i % 3 == 0 else england,
                amount=5,
                kind="other",
                reason=f"#{start + i}",
            )
            for i in range(n)
        )

    postings(10, 0)
    small = [count(client, url) for url in page_urls]
    postings(490, 10)
    large = [count(client, url) for url in page_urls]
    assert small == large
    assert max(small) <= 16


# --- gifts and loans ---------------------------------------------------------------------------------------


def test_a_player_gives_from_his_own_exchequer(client, campaign, alice, england, france):
    pay(campaign, None, england, 100, "Taxation")
    client.force_login(alice)
    response = client.post(urls(campaign, england)["exchequer"], transfer_data(france, 30, "A wedding gift"), follow=True)
    assert response.redirect_chain[-1][0] == urls(campaign, england)["exchequer"] + "#top"  # not the form's #pay-title
    posting = Posting.objects.get(kind=PostingKind.TRANSFER)
    assert (posting.payer, posting.payee, posting.amount, posting.reason, posting.entered_by) == (
        england,
        france,
        30,
        "A wedding gift",
        alice,
    )
    assert balance(campaign, england) == 70 and balance(campaign, france) == 30
    assert f"Paid 30 Crowns to {france}: A wedding gift." in response.content.decode()
    loan = client.post(urls(campaign, england)["exchequer"], transfer_data(france, 20, "Against the harvest", kind="loan"))
    assert loan.status_code == 302 and Posting.objects.filter(kind=PostingKind.LOAN, amount=20).exists()


def test_the_same_form_sent_twice_pays_once(client, campaign, alice, england, france):
    pay(campaign, None, england, 100, "Taxation")
    client.force_login(alice)
    data = transfer_data(france, 30)
    assert client.post(urls(campaign, england)["exchequer"], data).status_code == 302
    again = client.post(urls(campaign, england)["exchequer"], data, follow=True)
    assert again.status_code == 200 and "already done" in again.content.decode()
    assert Posting.objects.filter(kind=PostingKind.TRANSFER).count() == 1


@pytest.mark.parametrize("amount", ["0", "-5", "2.5", "ten", "", "99999999999"])
def test_an_amount_that_is_not_a_positive_whole_number_is_refused_next_to_it(client, campaign, alice, england, france, amount):
    pay(campaign, None, england, 100, "Taxation")
    client.force_login(alice)
    response = client.post(urls(campaign, england)["exchequer"], transfer_data(france, amount))
    assert response.status_code == 400
    block = field_block(response.content.decode(), "pay_amount")
    assert "errorlist" in block and ("whole number" in block or "at most" in block)
    assert not Posting.objects.filter(kind=PostingKind.TRANSFER).exists()


def test_an_overdraft_is_refused_next_to_the_amount(client, campaign, alice, england, france):
    pay(campaign, None, england, 10, "Taxation")
    client.force_login(alice)
    response = client.post(urls(campaign, england)["exchequer"], transfer_data(france, 50))
    assert response.status_code == 400
    block = field_block(response.content.decode(), "pay_amount")
    assert f"The house of {england.name} holds 10 Crowns and cannot pay 50" in block
    assert 'value="50"' in block  # what was typed stays, to be corrected
    assert not Posting.objects.filter(kind=PostingKind.TRANSFER).exists()
    campaign.allow_overdraft = True
    campaign.save()
    assert client.post(urls(campaign, england)["exchequer"], transfer_data(france, 50)).status_code == 302
    assert balance(campaign, england) == -40


def test_an_unknown_recipient_is_refused_next_to_it(client, campaign, gm, alice, england):
    other = campaign_create(name="Elsewhere", players=3, source=RandomSource(2), by=gm)
    foreign = Dynasty.objects.filter(campaign=other).first()
    pay(campaign, None, england, 100, "Taxation")
    client.force_login(alice)
    for payee in (str(foreign.pk), str(england.pk), "treasury", "", "999999"):
        response = client.post(urls(campaign, england)["exchequer"], transfer_data(payee, 10))
        assert response.status_code == 400, payee
        block = field_block(response.content.decode(), "pay_payee")
        assert "Choose" in block and "errorlist" in block, payee
    assert Posting.objects.filter(campaign=campaign).count() == 1


def test_a_payment_needs_a_reason(client, campaign, alice, england, france):
    client.force_login(alice)
    response = client.post(urls(campaign, england)["exchequer"], transfer_data(france, 10, reason="  "))
    assert response.status_code == 400
    assert "Say what the payment is for." in field_block(response.content.decode(), "pay_reason")


def test_the_gm_pays_from_any_exchequer_even_to_the_treasury(client, campaign, gm, england, france):
    pay(campaign, None, france, 100, "Taxation")
    client.force_login(gm)
    assert client.post(urls(campaign, france)["exchequer"], transfer_data(england, 40)).status_code == 302
    assert client.post(urls(campaign, france)["exchequer"], transfer_data("treasury", 10, "A fine")).status_code == 302
    assert balance(campaign, france) == 50 and balance(campaign, england) == 40
    assert Posting.objects.get(reason="A fine").payee is None


# --- corrections ----------------------------------------------------------------------------------------------


def test_the_gm_reverses_a_posting(client, campaign, gm, england, france):
    wrong = pay(campaign, england, france, 30, "Entered twice", kind=PostingKind.TRANSFER)
    client.force_login(gm)
    html = client.get(urls(campaign, england)["exchequer"]).content.decode()
    assert f'name="posting" value="{wrong.pk}"' in html
    data = {"form": "reverse", "posting": wrong.pk, "reason": "entered twice", "action_key": new_action_key()}
    response = client.post(urls(campaign, england)["exchequer"], data, follow=True)
    reversal = Posting.objects.get(reverses=wrong)
    assert reversal.kind == PostingKind.CORRECTION and (reversal.payer, reversal.payee) == (france, england)
    assert balance(campaign, england) == 0 and balance(campaign, france) == 0
    html = response.content.decode()
    assert f"Posting #{wrong.pk} is reversed by posting #{reversal.pk}." in html
    assert f"(reversed by #{reversal.pk})" in html
    assert f'name="posting" value="{wrong.pk}"' not in html  # no second reversal offered
    # sent again with the same key: nothing more; with a new key: refused, with the reason
    client.post(urls(campaign, england)["exchequer"], data)
    again = client.post(urls(campaign, england)["exchequer"], {**data, "action_key": new_action_key()})
    assert again.status_code == 400 and "already reversed" in again.content.decode()
    assert Posting.objects.filter(kind=PostingKind.CORRECTION).count() == 1
    correction = client.post(
        urls(campaign, england)["exchequer"],
        {"form": "reverse", "posting": reversal.pk, "reason": "undo the undo", "action_key": new_action_key()},
    )
    assert correction.status_code == 400 and "A correction is not itself corrected" in correction.content.decode()


def test_a_reversal_needs_a_reason_and_a_posting_of_this_exchequer(client, campaign, gm, england, france):
    mine = pay(campaign, None, england, 30, "Taxation")
    theirs = pay(campaign, None, france, 30, "Taxation")
    client.force_login(gm)
    response = client.post(
        urls(campaign, england)["exchequer"],
        {"form": "reverse", "posting": mine.pk, "reason": "", "action_key": new_action_key()},
    )
    assert response.status_code == 400
    html = response.content.decode()
    block = field_block(html, "reverse_reason")
    assert "Say why the posting is reversed." in block
    assert re.search(
        rf'<details open>\s*<summary>Reverse…</summary>\s*<form method="post" action="[^"]*#posting-{mine.pk}"', html
    )
    response = client.post(
        urls(campaign, england)["exchequer"],
        {"form": "reverse", "posting": theirs.pk, "reason": "oops", "action_key": new_action_key()},
    )
    assert response.status_code == 400
    assert f"Posting #{theirs.pk} is not in the ledger of the house of {england.name}." in response.content.decode()
    assert not Posting.objects.filter(kind=PostingKind.CORRECTION).exists()


# --- the Interphase helper ---------------------------------------------------------------------------------


@pytest.fixture
def interphase(campaign) -> Campaign:
    return at_step(campaign, Step.INTERPHASE, year=1305)


def test_the_form_is_offered_to_the_player_and_the_gm(client, interphase, gm, alice, england):
    for user in (gm, alice):
        client.force_login(user)
        html = client.get(urls(interphase, england)["interphase"]).content.decode()
        assert "Provinces controlled" in html and 'value="preview"' in html and 'value="run"' in html
        assert "Armies raised" in html and "Luxury sets cashed in" in html  # the cashing-in's form


def test_a_preview_shows_the_lines_and_writes_nothing(client, interphase, alice, england):
    pay(interphase, None, england, 10, "Starting purse")
    client.force_login(alice)
    postings, chronicle = Posting.objects.count(), ChronicleEntry.objects.count()
    response = client.post(
        urls(interphase, england)["interphase"],
        interphase_data(
            provinces=10,
            tax_rate=7,
            famine=1,
            rebellion=2,
            rebellions_bought_off=1,
            home_provinces=8,
            armies_kept=6,
            fleets_kept=1,
            armies_raised=2,
        ),
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Taxation: 7 provinces at 7 Crowns" in html and "+49" in html
    assert "Maintenance of 6 armies at 2 Crowns" in html and "−12" in html
    assert "apply -2 to every Rebellion roll" in html
    preview = response.context["preview"]
    assert preview.cash_before == 10 and preview.cash_after == 10 + 49 - 15 - 14 - 10
    assert Posting.objects.count() == postings and ChronicleEntry.objects.count() == chronicle


def _confirm_form(html: str) -> dict:
    """The hidden inputs of the preview's "Post these lines" form, as a browser would send them."""
    start = html.index('<section class="card preview"')
    form = html[html.index("<form", start) : html.index("</form>", start)]
    data = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    data["do"] = "run"
    return data


def test_the_previewed_lines_are_posted_once(client, interphase, alice, england):
    client.force_login(alice)
    preview = client.post(urls(interphase, england)["interphase"], interphase_data(provinces=8, capital_rebellion="on"))
    data = _confirm_form(preview.content.decode())
    assert data["provinces"] == "8" and data["capital_rebellion"] == "True" and data["action_key"]
    response = client.post(urls(interphase, england)["interphase"], data, follow=True)
    assert response.redirect_chain[-1][0] == urls(interphase, england)["exchequer"] + "#top"
    # no set in the Interphase: "The Full Game Turn ends with Cashing In Resources" (its own form below)
    assert [(p.kind, p.amount) for p in Posting.objects.order_by("id")] == [("tax", 40), ("rebellion", 20)]
    assert balance(interphase, england) == 20
    assert "The Interphase of 1305 is posted: income 40 Crowns, costs 0 Crowns; the exchequer holds 20 Crowns." in (
        response.content.decode()
    )
    # the same form again (a double click, the back button): nothing more
    again = client.post(urls(interphase, england)["interphase"], data, follow=True)
    assert "already done" in again.content.decode()
    assert Posting.objects.count() == 2
    # a fresh form: a second run in the year is refused, and the page says it is done
    fresh = client.post(urls(interphase, england)["interphase"], interphase_data(do="run"))
    assert fresh.status_code == 400 and "has already run its Interphase of 1305" in fresh.content.decode()
    assert Posting.objects.count() == 2
    html = client.get(urls(interphase, england)["interphase"]).content.decode()
    assert "Already posted for 1305" in html and 'value="run"' not in html


def test_a_broken_limit_is_shown_next_to_its_field(client, interphase, alice, england):
    client.force_login(alice)
    for do in ("preview", "run"):
        response = client.post(urls(interphase, england)["interphase"], interphase_data(do=do, provinces=5, armies_raised=3))
        assert response.status_code == 400
        assert "Say how many home provinces the country controls" in field_block(response.content.decode(), "id_home_provinces")
    response = client.post(urls(interphase, england)["interphase"], interphase_data(provinces=3, famine=2, rebellion=2))
    assert response.status_code == 400
    assert "4 provinces in famine or rebellion, but the country controls only 3" in field_block(
        response.content.decode(), "id_famine"
    )
    assert not Posting.objects.exists()


def test_several_faults_are_listed_on_top_and_each_field_marked(client, interphase, alice, england):
    client.force_login(alice)
    response = client.post(
        urls(interphase, england)["interphase"], interphase_data(provinces=3, famine=4, fleets_kept=5, armies_raised=2)
    )
    assert response.status_code == 400
    html = response.content.decode()
    top = html[html.index('<div class="card errors"') :]
    assert "At most 4 fleets" in top[: top.index("</div>")]
    assert "Check this entry" in field_block(html, "id_fleets_kept")
    assert "Check this entry" in field_block(html, "id_famine")


def test_the_sets_are_cashed_in_on_their_own_form_after_the_interphase(client, interphase, alice, england):
    """ "D) CASHING IN RESOURCES" ends the turn, after the Interphase and the Movement: the page's
    Interphase form has no sets; its cashing-in form posts them once the Interphase is posted."""
    client.force_login(alice)
    page = urls(interphase, england)["interphase"]
    html = client.get(page).content.decode()
    assert "Cashing in resources: the end of the turn" in html and 'value="cash_in"' not in html
    sets = {"basic_sets": "1", "luxury_sets": "1", "action_key": new_action_key()}
    early = client.post(page, {**sets, "do": "cash_in"})
    assert early.status_code == 400 and "has not posted its Interphase of 1305" in early.content.decode()
    preview = client.post(page, {**sets, "do": "cash_in_preview"})
    assert preview.status_code == 200 and preview.context["cash_preview"].income == 170
    too_many = client.post(page, {"luxury_sets": "6", "do": "cash_in_preview", "action_key": new_action_key()})
    assert too_many.status_code == 400 and "5 luxury items" in field_block(too_many.content.decode(), "id_luxury_sets")
    assert not Posting.objects.exists()
    client.post(page, interphase_data(do="run", provinces=2))
    assert 'value="cash_in"' in client.get(page).content.decode()
    done = client.post(page, {**sets, "do": "cash_in", "action_key": new_action_key()}, follow=True)
    assert "The cashing-in of 1305 is posted: 170 Crowns; the exchequer holds 180 Crowns." in done.content.decode()
    assert [(p.kind, p.amount) for p in Posting.objects.order_by("id")] == [("tax", 10), ("cash_in", 50), ("cash_in", 120)]
    assert "Already cashed in for 1305" in client.get(page).content.decode()


@pytest.mark.parametrize(
    ("values", "field", "message"),
    [
        ({"provinces": ""}, "id_provinces", "Give the provinces the country controls."),
        ({"provinces": "-2"}, "id_provinces", "Give 0 or more provinces."),
        ({"provinces": "Kent, 3"}, "id_provinces", "not numbers among names"),
        ({"armies_kept": "two"}, "id_armies_kept", "whole number"),
        ({"armies_kept": "-1"}, "id_armies_kept", "0 or more"),
        ({"countries": "0"}, "id_countries", "1 or more"),
        ({"tax_rate": "6"}, "id_tax_rate", "The tax rate is 5 or 7"),
    ],
)
def test_bad_entries_are_refused_next_to_the_field(client, interphase, alice, england, values, field, message):
    client.force_login(alice)
    response = client.post(urls(interphase, england)["interphase"], interphase_data(do="run", **values))
    assert response.status_code == 400
    html = response.content.decode()
    if field == "id_tax_rate":
        block = html[
            html.index('<fieldset class="radios">') : html.index("</fieldset>", html.index('<fieldset class="radios">')) + 200
        ]
    else:
        block = field_block(html, field)
    assert message in block
    assert not Posting.objects.exists()


def test_names_of_provinces_are_taken(client, interphase, alice, england):
    client.force_login(alice)
    response = client.post(
        urls(interphase, england)["interphase"],
        interphase_data(provinces="Kent, Essex, Wessex, Mercia", rebellion="Kent", home_provinces="Kent, Essex", armies_raised=2),
    )
    assert response.status_code == 200
    preview = response.context["preview"]
    assert preview.taxed_provinces == 3 and preview.raising_cap == 2
    response = client.post(urls(interphase, england)["interphase"], interphase_data(provinces="Kent, Essex", famine="Sussex"))
    assert response.status_code == 400
    assert "Sussex is not among the provinces controlled" in field_block(response.content.decode(), "id_famine")


def test_outside_the_interphase_step_a_preview_only(client, campaign, alice, england):
    at_step(campaign, Step.MARRIAGES, year=1305)
    client.force_login(alice)
    html = client.get(urls(campaign, england)["interphase"]).content.decode()
    assert "The campaign is at <strong>Marriages 1305</strong>" in html and 'value="run"' not in html
    assert client.post(urls(campaign, england)["interphase"], interphase_data()).status_code == 200
    response = client.post(urls(campaign, england)["interphase"], interphase_data(do="run"))
    assert response.status_code == 400 and "step is not open yet: 1305 is at Marriages" in response.content.decode()
    assert not Posting.objects.exists()


def test_an_overdrawn_run_is_warned_in_the_preview_and_refused(client, interphase, alice, england):
    client.force_login(alice)
    data = interphase_data(provinces=2, armies_kept=10, fleets_kept=2)  # 10 of tax against 24 of upkeep
    html = client.post(urls(interphase, england)["interphase"], data).content.decode()
    assert "exceed the cash in hand plus this Interphase's income by 14 Crowns" in html and "would be refused" in html
    response = client.post(urls(interphase, england)["interphase"], {**data, "do": "run"})
    assert response.status_code == 400 and "14 Crowns short" in response.content.decode()
    assert not Posting.objects.exists()


def test_other_rulesets_get_a_clear_message(client, gm):
    other = campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4), by=gm)
    house = Dynasty.objects.filter(campaign=other).first()
    client.force_login(gm)
    response = client.get(reverse("pages:interphase", args=[other.slug, house.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "The Interphase helper is for Blood Royale only." in html and 'name="provinces"' not in html
    response = client.post(reverse("pages:interphase", args=[other.slug, house.pk]), interphase_data(do="run"))
    assert response.status_code == 400 and not Posting.objects.filter(campaign=other).exists()
    ledger_html = client.get(reverse("pages:exchequer", args=[other.slug, house.pk])).content.decode()
    assert "ducats" in ledger_html and "Interphase helper" not in ledger_html


def test_the_open_runs_service(interphase, england, france):
    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.services.interphase import interphase_open_runs, interphase_run
    from dynasties.treasury import posting_reverse

    assert interphase_open_runs(interphase, england) == []
    run = interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=4), by=SYSTEM_ACTOR)
    (entry,) = interphase_open_runs(interphase, england.pk)
    assert entry.data["postings"] == [p.pk for p in run.postings]
    assert interphase_open_runs(interphase, france) == []
    for posting in run.postings:
        posting_reverse(campaign=interphase, posting=posting, reason="wrong count", by=SYSTEM_ACTOR)
    assert interphase_open_runs(interphase, england) == []


def test_governed_provinces_are_entered_one_a_line(client, interphase, alice, england, france):
    """Rule G on the page: "any Province governed by a character raises 2 Crowns extra"; a foreign
    Governor keeps them and "may also refuse to pay all or some of the 5 or 7 Crowns Royal Taxes"."""
    from dynasties.models import Character, Title

    client.force_login(alice)
    page = urls(interphase, england)["interphase"]
    assert "id_governed" not in client.get(page).content.decode()  # rule G off: no governed provinces to enter
    interphase.optional_rules = {**interphase.optional_rules, "governing_provinces": True}
    interphase.save()
    assert "id_governed" in client.get(page).content.decode()
    holder = Character.objects.filter(campaign=interphase, controlled_by=france, sex="M", status="alive").first()
    Title.objects.create(
        campaign=interphase,
        name="Duke of Kent",
        province="Kent",
        crown="England",
        holder=holder,
        granted_year=1300,
        granted_to=holder,
    )
    client.force_login(alice)
    page = urls(interphase, england)["interphase"]
    bad = client.post(page, interphase_data(provinces="Kent\nWessex", governed="Kent, withholds lots"))
    assert bad.status_code == 400 and "neither" in field_block(bad.content.decode(), "id_governed")
    response = client.post(page, interphase_data(do="run", provinces="Kent\nWessex", governed="Kent, withholds 2"))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert [(p.payee_id, p.kind, p.amount) for p in Posting.objects.order_by("id")] == [
        (england.pk, "tax", 8),
        (france.pk, "tax", 2),
        (france.pk, "tax", 2),
    ]


def test_the_year_track_is_entered_on_the_page(client, interphase, alice, england):
    """Section 13: "Players may not raise troops from the Army counters on the Year Track"."""
    client.force_login(alice)
    page = urls(interphase, england)["interphase"]
    assert "Armies on the Year Track" in client.get(page).content.decode()
    response = client.post(
        page, interphase_data(provinces=10, home_provinces=10, armies_kept=8, armies_on_track=8, armies_raised=5)
    )
    assert response.status_code == 400
    assert "the pool beside the board holds 4" in field_block(response.content.decode(), "id_armies_raised")


def test_where_new_forces_are_placed_is_entered_on_the_page(client, interphase, alice, england):
    """Section 13: "New armies are placed in the Capital and Fleets in any coastal Home Province"."""
    client.force_login(alice)
    page = urls(interphase, england)["interphase"]
    data = interphase_data(
        provinces="Middlesex\nKent\nCornwall",
        home_provinces="Middlesex\nKent\nCornwall",
        armies_raised=1,
        fleets_raised=2,
        capital="Middlesex",
        fleet_ports="Cornwall, Kent",
    )
    response = client.post(page, data)
    assert response.status_code == 200, response.content.decode()[:3000]
    html = response.content.decode()
    assert "placed in Middlesex (the capital)" in html and "placed in Cornwall and Kent" in html
    wrong = client.post(page, {**data, "fleet_ports": "Calais, Kent"})
    assert wrong.status_code == 400
    assert "Calais is not among the home provinces" in field_block(wrong.content.decode(), "id_fleet_ports")


def test_the_movements_payments_are_entered_on_the_page(client, interphase, alice, england):
    """ "If they capture a Royal character, Neutrals ransom him for 100 Crowns"; rule D's "+1 for
    each 20 Crowns the intercepting player pays to the Treasury"; an event card's bid paid "to the
    Treasury"."""
    from dynasties.models import Character

    pay(interphase, None, england, 200, "Starting purse")
    royal = Character.objects.filter(campaign=interphase, controlled_by=england, status="alive").first()
    client.force_login(alice)
    page = urls(interphase, england)["interphase"]
    assert 'name="trade_interception_crowns"' not in client.get(page).content.decode()  # rule D is not in force
    interphase.optional_rules = {**interphase.optional_rules, "trade_item_movement": True}
    interphase.save(update_fields=["optional_rules"])
    assert royal.display_name in client.get(page).content.decode()
    assert 'name="trade_interception_crowns"' in client.get(page).content.decode()
    data = interphase_data(do="run", provinces=0, trade_interception_crowns=20, event_payments="31 Denmark: 25")
    data["neutral_ransoms"] = [str(royal.pk)]
    response = client.post(page, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert [(p.kind, p.amount) for p in Posting.objects.filter(payer=england).order_by("id")] == [
        ("ransom", 100),
        ("other", 20),
        ("other", 25),
    ]
