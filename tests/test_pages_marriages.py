"""Issue 7: the Marriages step page and the Announcements page (arrange, check, wed, break off, the
wedding money and who sees it, publishing and the next turn)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import ActionKey, Campaign, Checkpoint, ChronicleEntry, Membership, Role, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import new_action_key
from dynasties.models import Character, Dynasty, Marriage, Posting, Reign
from dynasties.services import marriage_arrange
from operations.services import demo_create
from operations.simulation import simulate
from rules.dice import RandomSource
from tests.factories import at_step, person

pytestmark = pytest.mark.django_db


def marriages_url(campaign: Campaign) -> str:
    return reverse("pages:marriages", args=[campaign.slug])


def announcements_url(campaign: Campaign) -> str:
    return reverse("pages:announcements", args=[campaign.slug])


def house(campaign: Campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def send(client, url: str, **data):
    data.setdefault("action_key", new_action_key())
    return client.post(url, {k: v for k, v in data.items() if v is not None})


def written(campaign: Campaign) -> tuple[int, ...]:
    """Everything a POST could have written."""
    return (
        Marriage.objects.filter(campaign=campaign).count(),
        ChronicleEntry.objects.filter(campaign=campaign).count(),
        Posting.objects.filter(campaign=campaign).count(),
        Checkpoint.objects.filter(campaign=campaign).count(),
        ActionKey.objects.filter(campaign=campaign).count(),
    )


@pytest.fixture
def observer(campaign):
    user = get_user_model().objects.create_user("olga", password="olga-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


@pytest.fixture
def table(campaign):
    """At the Marriages step of 1300: England's Edmund (20), France's Isabelle (17, Charisma +1) and
    Agnes (16, Charisma +2), Germany's Konrad (22), France's little Jeanne (10)."""
    at_step(campaign, Step.MARRIAGES)
    england, france, germany = house(campaign, "England"), house(campaign, "France"), house(campaign, "Germany")
    year = campaign.current_year
    return {
        "england": england,
        "france": france,
        "germany": germany,
        "edmund": person(campaign, england, "Edmund", "M", year - 20),
        "isabelle": person(campaign, france, "Isabelle", "F", year - 17, charisma=1),
        "agnes": person(campaign, france, "Agnes", "F", year - 16, charisma=2),
        "konrad": person(campaign, germany, "Konrad", "M", year - 22),
        "jeanne": person(campaign, france, "Jeanne", "F", year - 10),
    }


def field_block(html: str, name: str) -> str:
    """The form field's block (label, widget, its errors) of the arrange form."""
    match = re.search(rf'<div class="field[^"]*">\s*<label[^>]*for="id_{name}">.*?</div>', html, re.S)
    assert match, name
    return match.group(0)


# --- who may see and do what -------------------------------------------------------------------


def test_members_see_both_pages_outsiders_do_not(client, campaign, gm, alice, bob, observer, outsider):
    urls = [marriages_url(campaign), announcements_url(campaign)]
    for url in urls:
        assert client.get(url).status_code == 302  # to the login page
    for user in (gm, alice, bob, observer):
        client.force_login(user)
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (user, url)
            assert campaign.name in response.content.decode()
    client.force_login(outsider)
    for url in urls:
        assert client.get(url).status_code == 404
        assert send(client, url, op="finish" if "marriages" in url else "publish").status_code == 404
    assert client.get(reverse("pages:marriages", args=["no-such-campaign"])).status_code == 404


def test_page_lists_the_unmarried_by_house_with_the_arrange_form(client, campaign, alice, observer, table):
    client.force_login(alice)
    html = client.get(marriages_url(campaign)).content.decode()
    assert "Arrange a match" in html and 'name="op" value="check"' in html and 'name="op" value="arrange"' in html
    assert "Edmund Plantagenet (20)" in html  # the groom's option
    assert f"Isabelle {table['france'].name} (17, Charisma +1)" in html  # the bride's, with the Charisma that pays
    assert "Jeanne" in html and "too young to wed" in html
    assert "Finish Marriages" not in html  # the GM's button
    client.force_login(observer)
    html = client.get(marriages_url(campaign)).content.decode()
    assert "Edmund Plantagenet" in html  # public data
    assert "Arrange a match" not in html and 'name="action_key"' not in html  # an observer records nothing


def test_observer_and_outsider_cannot_post(client, campaign, observer, table):
    match = marriage_arrange(campaign=campaign, husband=table["edmund"], wife=table["jeanne"], by=SYSTEM_ACTOR)
    before = written(campaign)
    client.force_login(observer)
    url = marriages_url(campaign)
    pair = {"husband": table["edmund"].pk, "wife": table["isabelle"].pk}
    for data in (
        {"op": "check", **pair},
        {"op": "arrange", **pair},
        {"op": "wed", "marriage": match.pk},
        {"op": "cancel", "marriage": match.pk, "reason": "No."},
        {"op": "finish"},
    ):
        assert send(client, url, **data).status_code == 403, data
    for op in ("publish", "next"):
        assert send(client, announcements_url(campaign), op=op).status_code == 403
    assert written(campaign) == before


def test_player_cannot_arrange_for_another_houses_pair(client, campaign, alice, table):
    client.force_login(alice)
    before = written(campaign)
    for op in ("arrange", "check"):
        response = send(client, marriages_url(campaign), op=op, husband=table["konrad"].pk, wife=table["agnes"].pk)
        assert response.status_code == 403
        assert "is of your house" in response.content.decode()
    assert written(campaign) == before


def test_player_arranges_his_own_wedding_and_sees_the_money_the_rival_does_not(client, campaign, gm, alice, bob, observer, table):
    client.force_login(alice)
    response = send(
        client, marriages_url(campaign), op="arrange", husband=table["edmund"].pk, wife=table["isabelle"].pk, wed="on"
    )
    assert response.status_code == 302
    match = Marriage.objects.get(husband=table["edmund"], wife=table["isabelle"])
    assert response["Location"].endswith(f"#match-{match.pk}")
    assert match.wedding_year == campaign.current_year
    posting = Posting.objects.get(marriage=match)
    assert (posting.payer_id, posting.payee_id, posting.amount) == (None, table["england"].pk, 30)
    money = f"30 Crowns</span> from the Treasury to the house of {table['england'].name}"
    html = client.get(marriages_url(campaign)).content.decode()
    assert "Wedding money posted:" in html and money in html
    assert f"/c/{campaign.slug}/contracts/new/?marriage={match.pk}" in html
    for user, sees in ((gm, True), (bob, False), (observer, False)):
        client.force_login(user)
        html = client.get(marriages_url(campaign)).content.decode()
        assert f'id="match-{match.pk}"' in html  # the wedding itself is public
        assert (money in html) is sees, user
        assert ("Charisma +1 x 30" in html) is sees, user
        assert ("Wedding money posted:" in html) is sees, user


def test_the_other_side_may_record_the_match_too(client, campaign, bob, table):
    """Either side's player records a match agreed at the table: Bob (France) weds England's Edmund."""
    client.force_login(bob)
    response = send(client, marriages_url(campaign), op="arrange", husband=table["edmund"].pk, wife=table["agnes"].pk, wed="on")
    assert response.status_code == 302
    match = Marriage.objects.get(husband=table["edmund"], wife=table["agnes"])
    assert match.wedding_year == campaign.current_year
    html = client.get(marriages_url(campaign)).content.decode()
    assert "60 Crowns" not in html  # England's money, not France's


def test_check_explains_and_previews_the_money_without_writing(client, campaign, gm, alice, table):
    client.force_login(alice)
    before = written(campaign)
    response = send(client, marriages_url(campaign), op="check", husband=table["edmund"].pk, wife=table["agnes"].pk, wed="on")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Nothing forbids this wedding now" in html
    assert f"60 Crowns</span> from the Treasury to the house of {table['england'].name}" in html
    assert "bride&#x27;s Charisma +2 x 30" in html
    assert written(campaign) == before
    # The GM checks a pair of two other houses and sees Germany's money; a betrothal shows it "were it held now".
    client.force_login(gm)
    html = send(
        client, marriages_url(campaign), op="check", husband=table["konrad"].pk, wife=table["isabelle"].pk
    ).content.decode()
    assert "Nothing forbids this betrothal" in html and "were it held now" in html
    assert f"30 Crowns</span> from the Treasury to the house of {table['germany'].name}" in html
    assert written(campaign) == before


def test_an_illegal_match_is_refused_with_the_reason_next_to_the_field(client, campaign, alice, table):
    client.force_login(alice)
    before = written(campaign)
    url = marriages_url(campaign)
    response = send(client, url, op="arrange", husband=table["edmund"].pk, wife=table["jeanne"].pk, wed="on")
    assert response.status_code == 400
    html = response.content.decode()
    wife = field_block(html, "wife")
    assert "has-error" in wife and "The wife is 10; a wedding needs both to be 15 or older" in wife
    assert "The wife is 10" not in field_block(html, "husband")
    assert f'<option value="{table["jeanne"].pk}" selected>' in html  # the choice is kept
    # The same dynastic name is the pair's problem: at the top of the form.
    sister = person(campaign, table["england"], "Maud", "F", campaign.current_year - 18)
    before = written(campaign)
    html = send(client, url, op="arrange", husband=table["edmund"].pk, wife=sister.pk).content.decode()
    assert re.search(r'<ul class="errorlist pair-errors" role="alert"><li>Both carry the dynastic name', html)
    # Nothing chosen: each field says what to fix.
    response = send(client, url, op="arrange")
    assert response.status_code == 400
    html = response.content.decode()
    assert "Choose the groom." in field_block(html, "husband") and "Choose the bride." in field_block(html, "wife")
    # Someone not free to marry is not a choice.
    response = send(client, url, op="arrange", husband=table["konrad"].pk, wife=Character.objects.get(pk=sister.pk).pk + 999)
    assert "Choose an unmarried woman from the list." in field_block(response.content.decode(), "wife")
    assert written(campaign) == before


def test_wed_now_is_refused_outside_the_wedding_step(client, campaign, alice, table):
    at_step(campaign, Step.SURVIVAL)
    client.force_login(alice)
    before = written(campaign)
    response = send(
        client, marriages_url(campaign), op="arrange", husband=table["edmund"].pk, wife=table["isabelle"].pk, wed="on"
    )
    assert response.status_code == 400
    assert "Weddings are held in the Marriages step" in field_block(response.content.decode(), "wed")
    assert written(campaign) == before
    # A betrothal may be arranged at any step.
    assert (
        send(client, marriages_url(campaign), op="arrange", husband=table["edmund"].pk, wife=table["isabelle"].pk).status_code
        == 302
    )
    assert Marriage.objects.get(husband=table["edmund"]).is_betrothal


def test_double_submit_arranges_once(client, campaign, alice, table):
    client.force_login(alice)
    key = new_action_key()
    data = {"op": "arrange", "husband": table["edmund"].pk, "wife": table["isabelle"].pk, "action_key": key}
    first = client.post(marriages_url(campaign), data)
    second = client.post(marriages_url(campaign), data, follow=True)
    assert first.status_code == 302 and second.status_code == 200
    assert Marriage.objects.filter(husband=table["edmund"]).count() == 1
    assert "already" in second.content.decode()


def test_betrothal_shows_the_wedding_problems_and_the_money_to_come(client, campaign, alice, bob, table):
    child = marriage_arrange(campaign=campaign, husband=table["edmund"], wife=table["jeanne"], by=SYSTEM_ACTOR)
    grown = marriage_arrange(campaign=campaign, husband=table["konrad"], wife=table["isabelle"], by=SYSTEM_ACTOR)
    client.force_login(bob)  # France: both brides are his
    html = client.get(marriages_url(campaign)).content.decode()
    block = html[html.index(f'id="match-{child.pk}"') :]
    block = block[: block.index("</article>")]
    assert "Not to be wed yet" in block and "The wife is 10" in block and "Wed now" not in block
    block = html[html.index(f'id="match-{grown.pk}"') :]
    block = block[: block.index("</article>")]
    assert "They may be wed now." in block and "Wed now" in block
    assert "30 Crowns" not in block  # Germany's money: not Bob's
    client.force_login(alice)  # neither of the second pair is hers
    html = client.get(marriages_url(campaign)).content.decode()
    block = html[html.index(f'id="match-{grown.pk}"') :]
    block = block[: block.index("</article>")]
    assert 'value="wed"' not in block and "Break off" not in block


def test_wed_and_break_off_by_either_side_only(client, campaign, alice, bob, table):
    theirs = marriage_arrange(
        campaign=campaign, husband=table["konrad"], wife=table["isabelle"], by=SYSTEM_ACTOR
    )  # Germany x France
    client.force_login(alice)
    before = written(campaign)
    assert send(client, marriages_url(campaign), op="wed", marriage=theirs.pk).status_code == 403
    assert send(client, marriages_url(campaign), op="cancel", marriage=theirs.pk, reason="Spite").status_code == 403
    assert written(campaign) == before
    client.force_login(bob)
    response = send(client, marriages_url(campaign), op="wed", marriage=theirs.pk)
    assert response.status_code == 302
    theirs.refresh_from_db()
    assert theirs.wedding_year == campaign.current_year
    assert Posting.objects.get(marriage=theirs).payee_id == table["germany"].pk
    # Bob (the bride's side) sees the wedding but not Germany's money.
    html = client.get(marriages_url(campaign)).content.decode()
    assert "Wedding money posted:" not in html
    # Breaking off needs a reason, said next to the field.
    ours = marriage_arrange(campaign=campaign, husband=table["edmund"], wife=table["jeanne"], by=SYSTEM_ACTOR)
    client.force_login(alice)
    before = written(campaign)
    response = send(client, marriages_url(campaign), op="cancel", marriage=ours.pk, reason="  ")
    assert response.status_code == 400
    html = response.content.decode()
    assert re.search(rf'id="reason-{ours.pk}"[^>]*>\s*<ul class="errorlist" role="alert"><li>Say why', html)
    assert written(campaign) == before
    client.force_login(bob)  # the other side may break it off
    assert send(client, marriages_url(campaign), op="cancel", marriage=ours.pk, reason="A better match").status_code == 302
    ours.refresh_from_db()
    assert ours.ended_year == campaign.current_year and "A better match" in ours.end_cause
    # Wed, Isabelle is Germany's now: France is no longer a side of that match.
    assert send(client, marriages_url(campaign), op="cancel", marriage=theirs.pk, reason="Regret").status_code == 403


def test_a_refusal_by_the_services_is_shown_in_the_row(client, campaign, gm, table):
    match = marriage_arrange(campaign=campaign, husband=table["konrad"], wife=table["isabelle"], wed=True, by=SYSTEM_ACTOR)
    client.force_login(gm)
    before = written(campaign)
    response = send(client, marriages_url(campaign), op="cancel", marriage=match.pk, reason="Regret")
    assert response.status_code == 400
    html = response.content.decode()
    block = html[html.index(f'id="match-{match.pk}"') :]
    assert "A wedded marriage cannot be broken off" in block[: block.index("</article>")]
    assert written(campaign) == before


def test_finish_marriages_is_the_gms(client, campaign, gm, alice, table):
    client.force_login(alice)
    assert send(client, marriages_url(campaign), op="finish").status_code == 403
    client.force_login(gm)
    assert "Finish Marriages" in client.get(marriages_url(campaign)).content.decode()
    response = send(client, marriages_url(campaign), op="finish")
    assert response.status_code == 302 and response["Location"] == announcements_url(campaign) + "#top"
    campaign.refresh_from_db()
    assert campaign.step == Step.ANNOUNCEMENTS
    assert "Finish Marriages" not in client.get(marriages_url(campaign)).content.decode()
    again = send(client, marriages_url(campaign), op="finish")  # a second tab, out of step: said, not a 500
    assert again.status_code == 302 and again["Location"] == marriages_url(campaign) + "#top"
    assert "The Marriages step" in client.get(again["Location"]).content.decode()


# --- the Announcements page ----------------------------------------------------------------------


def test_announcements_per_viewer(client, campaign, gm, alice, bob, observer, table):
    marriage_arrange(
        campaign=campaign, husband=table["edmund"], wife=table["isabelle"], wed=True, by=SYSTEM_ACTOR
    )  # England is paid
    spain = house(campaign, "Spain")
    ChronicleEntry.objects.create(
        campaign=campaign,
        year=campaign.current_year,
        step=Step.MARRIAGES,
        kind="contract_signed",
        text="The Secret Treaty of Windsor is signed.",
        data={"parties": [table["england"].pk, spain.pk]},
        audience="parties",
        readers=f",{table['england'].pk},{spain.pk},",
    )
    wedding = f"Edmund Plantagenet (20) weds Isabelle {table['france'].name} (17)"
    for user, private in ((gm, True), (alice, True), (bob, False), (observer, False)):
        client.force_login(user)
        html = client.get(announcements_url(campaign)).content.decode()
        assert wedding in html, user  # public
        assert ("30 Crowns from the Treasury to the house of" in html) is private, user
        assert ("Secret Treaty of Windsor" in html) is private, user
        assert reverse("print:announcements", args=[campaign.slug, campaign.current_year]) in html
    client.force_login(alice)
    html = client.get(announcements_url(campaign)).content.decode()
    assert '<span class="tag">private</span> 30 Crowns' in html
    assert "Publish the announcements" not in html and "Start the next turn" not in html


def test_publish_then_start_the_next_turn(client, campaign, gm, alice, table):
    marriage_arrange(campaign=campaign, husband=table["edmund"], wife=table["isabelle"], wed=True, by=SYSTEM_ACTOR)
    at_step(campaign, Step.ANNOUNCEMENTS)
    client.force_login(alice)
    assert send(client, announcements_url(campaign), op="publish").status_code == 403
    client.force_login(gm)
    html = client.get(announcements_url(campaign)).content.decode()
    assert "Publish the announcements" in html and "not published yet" in html
    response = send(client, announcements_url(campaign), op="publish")
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.step == Step.INTERPHASE
    announced = ChronicleEntry.objects.get(campaign=campaign, kind="announcements")
    assert "Marriages" in announced.data["sections"]
    html = client.get(announcements_url(campaign)).content.decode()
    assert "are published" in html and "Start the next turn (1305)" in html and "Publish the announcements" not in html
    assert 'name="to_year"' not in html  # Blood Royale's turns are five years
    client.force_login(alice)
    assert send(client, announcements_url(campaign), op="next").status_code == 403
    client.force_login(gm)
    key = new_action_key()
    response = client.post(announcements_url(campaign), {"op": "next", "action_key": key})
    # on to the new turn's first step, its Births (issue 34; it was the dashboard)
    assert response.status_code == 302 and response["Location"] == reverse("pages:births", args=[campaign.slug]) + "#top"
    client.post(announcements_url(campaign), {"op": "next", "action_key": key})  # a double click: once
    campaign.refresh_from_db()
    assert (campaign.current_year, campaign.step) == (1305, Step.BIRTHS)
    # The past year stays browsable; a year outside the campaign is not.
    html = client.get(announcements_url(campaign) + "?year=1300").content.decode()
    assert "Announcements of 1300" in html and "Edmund Plantagenet (20) weds" in html and "are published" in html
    assert '<a href="?year=1305" aria-current="page">' not in html and '<a href="?year=1300" aria-current="page">' in html
    assert client.get(announcements_url(campaign) + "?year=1200").status_code == 404
    assert client.get(announcements_url(campaign) + "?year=soon").status_code == 404
    assert client.get(announcements_url(campaign) + "?year=1310").status_code == 404


def test_publish_outside_its_step_is_refused_with_the_reason(client, campaign, gm, table):
    client.force_login(gm)
    before = written(campaign)
    response = send(client, announcements_url(campaign), op="publish")
    assert response.status_code == 400
    assert "The Announcements step is not open yet" in response.content.decode()
    assert written(campaign) == before


# --- the other rulesets --------------------------------------------------------------------------


def _demo_gm(ruleset: str):
    result = demo_create(ruleset=ruleset)
    gm = Membership.objects.get(campaign=result.campaign, role=Role.GM).user
    return result.campaign, gm


def test_bloodline_betrothal_terms_and_wedding_in_the_diplomacy_phase(client):
    campaign, gm = _demo_gm("eu-bloodline")
    france, england = house(campaign, "France"), house(campaign, "England")
    year = campaign.current_year
    king = Reign.objects.get(campaign=campaign, crown="France", end_year__isnull=True).holder
    bride = person(campaign, france, "Margot", "F", year - 18, father=king)  # the King's daughter
    groom = person(campaign, england, "Henry", "M", year - 20, dynastic_name="Plantagenet")
    client.force_login(gm)
    at_step(campaign, Step.MARRIAGES)
    html = client.get(marriages_url(campaign)).content.decode()
    assert "weddings are held in the Interphase" in html and 'name="dowry"' in html
    assert send(client, marriages_url(campaign), op="arrange", husband=groom.pk, wife=bride.pk).status_code == 302
    match = Marriage.objects.get(husband=groom, wife=bride)
    at_step(campaign, Step.INTERPHASE)
    html = client.get(marriages_url(campaign)).content.decode()
    block = html[html.index(f'id="match-{match.pk}"') :]
    assert "needs a title for the giving dynasty" in block[: block.index("</article>")]
    before = written(campaign)
    response = send(client, marriages_url(campaign), op="terms", marriage=match.pk, dowry="lots", alliance_title="")
    assert response.status_code == 400 and "needs a title" in response.content.decode()
    assert written(campaign) == before
    response = send(
        client, marriages_url(campaign), op="terms", marriage=match.pk, dowry="100 ducats", alliance_title="Duke of Guyenne"
    )
    assert response.status_code == 302
    html = client.get(marriages_url(campaign)).content.decode()
    assert "They may be wed now." in html
    assert f"100 ducats</span> from the house of {france.name} to the house of {england.name}" in html
    assert send(client, marriages_url(campaign), op="wed", marriage=match.pk).status_code == 302
    posting = Posting.objects.get(marriage=match, kind="dowry")
    assert (posting.payer_id, posting.payee_id, posting.amount) == (france.pk, england.pk, 100)
    html = client.get(marriages_url(campaign)).content.decode()
    assert "Wedding money posted:" in html
    # The next turn's year is the GM's to say, checked next to the field.
    html = client.get(announcements_url(campaign)).content.decode()
    assert 'name="to_year"' in html and "weds betrothed couples now" in html
    response = send(client, announcements_url(campaign), op="next", to_year=str(year))
    assert response.status_code == 400
    assert f"must come after {year}" in field_block(response.content.decode(), "to_year")
    response = send(client, announcements_url(campaign), op="next", to_year="soon")
    assert "Give the year as a number" in field_block(response.content.decode(), "to_year")
    assert send(client, announcements_url(campaign), op="next", to_year=str(year + 3)).status_code == 302
    campaign.refresh_from_db()
    assert (campaign.current_year, campaign.step) == (year + 3, Step.BIRTHS)


def test_eu_monarchs_pages_do_not_crash(client):
    campaign, gm = _demo_gm("eu-monarchs")
    client.force_login(gm)
    for step in (Step.MARRIAGES, Step.ANNOUNCEMENTS, Step.INTERPHASE):
        at_step(campaign, step)
        assert client.get(marriages_url(campaign)).status_code == 200
        assert client.get(announcements_url(campaign)).status_code == 200
    at_step(campaign, Step.MARRIAGES)
    assert send(client, marriages_url(campaign), op="finish").status_code == 302
    assert send(client, announcements_url(campaign), op="publish").status_code == 302
    assert send(client, announcements_url(campaign), op="next").status_code == 302
    campaign.refresh_from_db()
    assert campaign.step == Step.BIRTHS


# --- a fixed number of queries ---------------------------------------------------------------------


def _busy_turn(campaign: Campaign, couples: int = 2) -> None:
    """Betrothals, a wedding with its money and a contract line in the campaign's current year."""
    at_step(campaign, Step.MARRIAGES)
    england, france, spain = house(campaign, "England"), house(campaign, "France"), house(campaign, "Spain")
    year = campaign.current_year
    for n in range(couples):
        groom = person(campaign, england, f"Groom{n}", "M", year - 20 - n, dynastic_name=f"Groomhouse{year}{n}")
        bride = person(campaign, france, f"Bride{n}", "F", year - 17 - n, dynastic_name=f"Bridehouse{year}{n}", charisma=1)
        marriage_arrange(campaign=campaign, husband=groom, wife=bride, wed=n == 0, by=SYSTEM_ACTOR)
    ChronicleEntry.objects.create(
        campaign=campaign,
        year=year,
        step=Step.MARRIAGES,
        kind="contract_signed",
        text="A treaty is signed.",
        data={"parties": [england.pk, spain.pk]},
        audience="parties",
        readers=f",{england.pk},{spain.pk},",
    )


def _counts(client, campaign: Campaign) -> list[int]:
    out = []
    for url in (marriages_url(campaign), announcements_url(campaign)):
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        out.append(len(ctx.captured_queries))
    return out


@pytest.mark.parametrize("who", ["gm", "alice", "observer"])
def test_query_counts_do_not_grow(client, campaign, who, request):
    client.force_login(request.getfixturevalue(who))
    _busy_turn(campaign)
    small = _counts(client, campaign)
    simulate(campaign, turns=4, source=RandomSource(5), by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    _busy_turn(campaign, couples=6)
    grown = _counts(client, campaign)
    assert Marriage.objects.filter(campaign=campaign).count() > 10
    assert ChronicleEntry.objects.filter(campaign=campaign, year=campaign.current_year).count() > 5
    assert grown == small, (small, grown)
    assert max(grown) <= 30, grown


# --- the services the page explains a match with -------------------------------------------------


def _by_kind(line: tuple) -> tuple[str, str]:
    return line[3], line[4]


def _postings_of(match: Marriage) -> list[tuple[int | None, int | None, int, str, str]]:
    postings = Posting.objects.filter(marriage=match)
    return sorted(((p.payer_id, p.payee_id, p.amount, p.kind, p.reason) for p in postings), key=_by_kind)


def test_wedding_money_foretells_what_the_wedding_posts(campaign, table):
    from dynasties.services.marriages import wedding_money
    from tests.factories import crown, empty_house

    testhouse = empty_house(campaign)
    king = person(campaign, testhouse, "Arthur", "M", campaign.current_year - 30)
    crown(campaign, king, "Testland", campaign.current_year - 5)
    bride = person(campaign, table["france"], "Blanche", "F", campaign.current_year - 18, charisma=-1)
    pairs = [(king, bride), (table["edmund"], table["isabelle"]), (table["konrad"], table["agnes"])]
    matches = [Marriage(campaign=campaign, husband=h, wife=w, arranged_year=campaign.current_year) for h, w in pairs]
    foretold = [
        sorted(((_pk(x.payer), _pk(x.payee), x.amount, x.kind, x.reason) for x in lines), key=_by_kind)
        for lines in wedding_money(campaign, matches)
    ]
    france, germany, england = table["france"].pk, table["germany"].pk, table["england"].pk
    assert foretold[0] == [
        (None, france, 100, "monarch_match", "a bride for a reigning King"),
        (testhouse.pk, None, 30, "wedding", "bride's Charisma -1 x 30"),
    ]
    assert foretold[1] == [(None, england, 30, "wedding", "bride's Charisma +1 x 30")]
    assert foretold[2] == [(None, germany, 60, "wedding", "bride's Charisma +2 x 30")]
    for (h, w), expected in zip(pairs, foretold, strict=True):
        assert _postings_of(marriage_arrange(campaign=campaign, husband=h, wife=w, wed=True, by=SYSTEM_ACTOR)) == expected


def _pk(house):
    return house.pk if house is not None else None


def test_match_problems_agree_with_the_services_refusals(campaign, table):
    from dynasties.services import marriage_wed
    from dynasties.services.marriages import match_problems
    from rules.errors import IllegalMarriage

    betrothed = marriage_arrange(campaign=campaign, husband=table["edmund"], wife=table["jeanne"], by=SYSTEM_ACTOR)
    cases = [
        (table["konrad"], table["agnes"], True, []),
        (table["konrad"], table["jeanne"], False, ["The wife is already married or betrothed (Marriage, A6)."]),
    ]
    for husband, wife, wedding, expected in cases:
        match = Marriage(campaign=campaign, husband=husband, wife=wife, arranged_year=campaign.current_year)
        assert match_problems(campaign, [match], wedding=wedding) == [expected]
    # A betrothal's own match does not count against its wedding; her age does.
    [problems] = match_problems(campaign, [Marriage.objects.get(pk=betrothed.pk)], wedding=True)  # the couple read here
    assert problems == [
        "The wife is 10; a wedding needs both to be 15 or older (a betrothal may be arranged earlier; Marriage, A6)."
    ]
    with pytest.raises(IllegalMarriage, match="The wife is 10"):
        marriage_wed(campaign=campaign, marriage=betrothed, by=SYSTEM_ACTOR)


def test_match_problems_and_wedding_money_run_a_fixed_number_of_queries(campaign, table):
    from dynasties.services.marriages import match_problems, wedding_money

    def count(n: int) -> int:
        women = [person(campaign, table["france"], f"W{i}", "F", campaign.current_year - 16, charisma=1) for i in range(n)]
        men = [person(campaign, table["germany"], f"M{i}", "M", campaign.current_year - 16) for i in range(n)]
        matches = [
            Marriage(campaign=campaign, husband=h, wife=w, arranged_year=campaign.current_year)
            for h, w in zip(men, women, strict=True)
        ]
        with CaptureQueriesContext(connection) as ctx:
            assert len(match_problems(campaign, matches, wedding=True)) == n
            assert len(wedding_money(campaign, matches)) == n
        return len(ctx.captured_queries)

    assert count(1) == count(8)
