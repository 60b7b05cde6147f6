"""Issue 7: the Dynastic Sequence pages - the turn hub, Births, Survival with the succession
decisions, and Undo."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import Campaign, Checkpoint, ChronicleEntry, Membership, Role, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import new_action_key
from dynasties.models import BirthAttempt, Character, Crown, Dynasty, Marriage, PassedOver, Reign, Status
from dynasties.services import births_finish, births_roll_all, survival_roll
from dynasties.services.sequence_view import births_board, survival_board
from dynasties.services.succession_choices import CHOICE_KEY, pass_over_choices, pass_over_choose, pass_over_clear
from operations.exchange import campaign_export
from operations.simulation import simulate
from pages import sequence as pages_sequence
from rules.dice import TWO_D6, RandomSource
from rules.errors import IneligibleCouple, RuleError
from rules.odds import Odds, at_least
from tests.factories import person


def _url(name: str, campaign: Campaign) -> str:
    return reverse(f"pages:{name}", args=[campaign.slug])


def _state(campaign: Campaign) -> dict:
    data = campaign_export(Campaign.objects.get(pk=campaign.pk))
    data.pop("exported_at", None)
    return data


def _england(campaign: Campaign) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown="England")


def _couple(campaign: Campaign, crown: str = "England") -> Marriage:
    house = Dynasty.objects.get(campaign=campaign, crown=crown)
    return Marriage.objects.select_related("husband", "wife").get(campaign=campaign, husband__controlled_by=house)


def _post(client, url: str, **data):
    data.setdefault("action_key", new_action_key())
    return client.post(url, data)


def _dice(prefix: str, *faces: int | str) -> dict[str, str]:
    """A grid row's typed dice: ``_dice("a5", 3, 4)`` is couple 5's attempt, {"a5-d1": "3", "a5-d2": "4"}."""
    return {f"{prefix}-d{i}": str(face) for i, face in enumerate(faces, start=1)}


def _grid(client, url: str, fields: dict[str, object]):
    """The step's grid sent with these rows (field names as the page has them)."""
    return _post(client, url, op="grid", **fields)


def _section(html: str, element_id: str) -> str:
    """The HTML of the element with this id, up to the next <section (enough to look inside a card)."""
    start = html.index(f'id="{element_id}"')
    end = html.find("<section", start)
    return html[start : end if end != -1 else len(html)]


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


@pytest.fixture
def observer(campaign):
    user = get_user_model().objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


def _to_survival(client, campaign, gm) -> None:
    client.force_login(gm)
    assert _post(client, _url("births", campaign), op="finish").status_code == 302
    campaign.refresh_from_db()
    assert campaign.step == Step.SURVIVAL


# --- viewing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["gm", "alice", "bob", "observer"])
def test_every_member_sees_the_step_pages(client, campaign, who, request):
    client.force_login(request.getfixturevalue(who))
    for name in ("turn", "births", "survival"):
        response = client.get(_url(name, campaign))
        assert response.status_code == 200, name
        assert campaign.name in response.content.decode()
    assert client.get(_url("undo", campaign)).status_code == (200 if who == "gm" else 403)


def test_outsiders_get_404_and_anonymous_the_login(client, campaign, outsider):
    names = ("turn", "births", "survival", "undo")
    before = _state(campaign)
    for name in names:
        assert client.get(_url(name, campaign)).status_code == 302
    client.force_login(outsider)
    for name in names:
        assert client.get(_url(name, campaign)).status_code == 404
        if name != "turn":  # the hub only shows (a POST there is 405)
            assert _post(client, _url(name, campaign), op="roll_all", which="step").status_code == 404
    assert _state(campaign) == before


def test_turn_hub_marks_the_current_step_and_links_every_step(client, campaign, gm, alice):
    client.force_login(alice)
    html = client.get(_url("turn", campaign)).content.decode()
    assert "1300" in html and "turn 1" in html
    current = re.search(r'<li class="current" aria-current="step">(.*?)</li>', html, re.S)
    assert current and "Births" in current.group(1)
    assert "5 couples still to roll" in html and "0 children born so far" in html and "(s)" not in html
    for href in (_url("births", campaign), _url("survival", campaign), f"/c/{campaign.slug}/turn/marriages/"):
        assert href in html
    assert "Undo the step" not in html  # the GM's box only
    client.force_login(gm)
    html = client.get(_url("turn", campaign)).content.decode()
    assert "Undo (game master)" in html and "Nothing to undo for the step" in html
    _to_survival(client, campaign, gm)
    html = client.get(_url("turn", campaign)).content.decode()
    current = re.search(r'<li class="current" aria-current="step">(.*?)</li>', html, re.S)
    assert current and "Survival" in current.group(1)
    assert re.search(r'<li class="done">\s*<a href="[^"]+births/"', html)
    # issue 19, "Undo asks first": the turn page says where an undo goes back to and links to the Undo
    # page, which says what it throws away and asks for the confirmation (the POST); issue 36: the
    # losses are counted there only, not on every read of the turn
    assert "<strong>Undo the step</strong>: back to the start of Births 1300" in html
    assert "It throws away" not in html and "Yes, undo" not in html
    assert f'href="{_url("undo", campaign)}?which=step#undo-step">Undo the step…</a>' in html
    confirm = client.get(_url("undo", campaign), {"which": "step"}).content.decode()
    assert "Yes, undo the step</button>" in confirm and 'It throws away: <span class="losses">' in confirm


def test_births_page_shows_the_odds_before_rolling(client, campaign, bob):
    client.force_login(bob)
    html = client.get(_url("births", campaign)).content.decode()
    board = births_board(campaign)
    assert len(board.couples) == 5
    assert board.couples[0].odds.chance == Fraction(7, 12)
    assert html.count("21 in 36 (7/12, 58.3%)") == 5
    assert "7 or more on 2d6" in html
    # Bob rolls for France's couple only, shown first with his house; England's shows no dice to him.
    france, england = _couple(campaign, "France"), _couple(campaign)
    assert f'name="a{france.pk}-d1"' in html and f'name="state-{france.pk}" value="attempt-1"' in html
    assert f'name="a{england.pk}-d1"' not in html and f'name="how-{england.pk}"' not in html
    assert "Their player rolls for them." in _section(html, f"couple-{england.pk}")
    cards = re.findall(r'<section class="card couple[^"]*" id="couple-(\d+)"', html)
    assert cards[0] == str(france.pk) and len(cards) == 5
    assert '<section class="card couple mine"' in html and "(France)" in _section(html, f"couple-{france.pk}")


def test_survival_page_shows_the_number_needed_and_exact_odds(client, campaign, gm, alice):
    edward = _couple(campaign).husband
    Character.objects.filter(pk=edward.pk).update(characteristics={"strength": 0, "constitution": -1, "charisma": 0})
    _to_survival(client, campaign, gm)
    client.force_login(alice)
    html = client.get(_url("survival", campaign)).content.decode()
    row = _row(html, edward.pk)
    # 25 needs 4; Constitution -1: the dice must show 5 or more, 30 of 36.
    assert "4 <span" in row and "(-1)" in row and "5 or more on 2d6" in row
    assert "30 in 36 (5/6, 83.3%)" in row
    assert f'name="s{edward.pk}-d1"' in row and f'name="how-{edward.pk}"' in row  # Alice rolls for her own king
    bob_row = _row(html, _couple(campaign, "France").husband.pk)
    assert 'name="how-' not in bob_row and "-d1" not in bob_row
    assert "to roll" in bob_row


def test_a_second_survival_roll_is_refused_in_the_characters_row(client, campaign, gm, alice):
    _to_survival(client, campaign, gm)
    client.force_login(alice)
    url = _url("survival", campaign)
    edward = _couple(campaign).husband
    assert _grid(client, url, {"rows": edward.pk, **_dice(f"s{edward.pk}", 6, 5)}).status_code == 302
    response = _grid(client, url, {"rows": edward.pk, f"how-{edward.pk}": "server"})  # a page shown before his roll
    assert response.status_code == 400
    html = response.content.decode()
    assert "already rolled for survival this turn: Edward Plantagenet" in html[html.index('id="refusal"') :]
    assert "6 + 5 = 11" in _row(html, edward.pk)
    assert Roll.objects.filter(campaign=campaign, purpose="survival").count() == 1
    wife = _couple(campaign).wife_id
    bad = _grid(client, url, {"rows": wife, **_dice(f"s{wife}", 0, 3)})
    assert bad.status_code == 400
    row = _row(bad.content.decode(), wife)
    assert "A d6 shows 1 to 6." in row and 'role="alert"' in row and "Die 1: A d6 shows 1 to 6." in row


def _row(html: str, pk: int) -> str:
    start = html.index(f'id="character-{pk}"')
    return html[start : html.index("</tr>", start)]


# --- Births ----------------------------------------------------------------------------------


def test_typed_dice_make_a_child_then_sex_characteristics_and_try_again_with_the_cost(client, campaign, alice):
    client.force_login(alice)
    couple = _couple(campaign)
    url = _url("births", campaign)
    response = _grid(client, url, _dice(f"a{couple.pk}", 3, 4))
    assert response.status_code == 302 and response["Location"].endswith("#step")
    attempt = BirthAttempt.objects.get(marriage=couple)
    assert attempt.success and attempt.roll.faces == [3, 4] and attempt.roll.source == "entered"
    assert attempt.roll.entered_by == alice
    page = client.get(url)
    assert any("attempt 1: 3 + 4 = 7: a child" in m for m in _messages(page))
    card = _section(page.content.decode(), f"couple-{couple.pk}")
    assert "A child is born." in card and f'name="x{couple.pk}-sex"' in card and f'value="sex-{attempt.pk}"' in card
    assert "given_name" not in card  # named once its sex is known
    assert f'name="r{couple.pk}-d1"' in card and "optional: left empty, no further attempt" in card  # offered in place
    assert '<details class="try-again"><summary>Try again?' in card  # closed until asked (issue 34)

    traits = {f"x{couple.pk}-c{n}_{i}": face for n, face in ((1, "6"), (2, "1"), (3, "4")) for i in (1, 2, 3)}
    response = _grid(client, url, {f"x{couple.pk}-sex": "2", **traits})
    assert response.status_code == 302
    child = Character.objects.get(pk=BirthAttempt.objects.get(pk=attempt.pk).child_id)
    assert (child.sex, child.father_id, child.mother_id) == ("M", couple.husband_id, couple.wife_id)
    assert child.given_name and child.given_name != "Arthur"  # the usual name of the house, for a son
    assert child.characteristics == {"strength": 2, "constitution": -2, "charisma": 0}
    assert child.controlled_by == _england(campaign)
    typed = Roll.objects.filter(campaign=campaign, subjects__character=child).order_by("pk")
    assert [r.purpose for r in typed] == ["sex", "characteristic", "characteristic", "characteristic"]
    assert all(r.source == "entered" for r in typed)
    assert BirthAttempt.objects.filter(marriage=couple).count() == 1  # the next attempt was left empty

    page = client.get(url)
    assert any(f"A son: {child.display_name}" in m for m in _messages(page))
    card = _section(page.content.decode(), f"couple-{couple.pk}")
    assert f'name="n{child.pk}-given_name" value="{child.given_name}"' in card and "Try again?" in card
    # The name is changed with the next submit: the child and its birth line say the new one.
    assert _grid(client, url, {f"n{child.pk}-given_name": " Arthur "}).status_code == 302
    child.refresh_from_db()
    assert child.given_name == "Arthur"
    assert any("The child is named Arthur Plantagenet." in m for m in _messages(client.get(url)))
    line = ChronicleEntry.objects.get(campaign=campaign, kind="birth", data__character=child.pk)
    assert line.text.startswith("A son, Arthur Plantagenet, is born")
    card = _section(client.get(url).content.decode(), f"couple-{couple.pk}")
    assert "costs Mary Tudor 1 Constitution" in card and "+0 → -1" in card
    assert "35 in 36 (35/36, 97.2%)</strong> now (3 or more on 2d6)" in card
    assert "33 in 36 (11/12, 91.7%)</strong> after another attempt (4 or more on 2d6)" in card
    assert f'name="a{couple.pk}-d1"' in card and 'value="attempt-2"' in card
    survival = at_least(TWO_D6, 3, -1)
    assert survival == Odds(Fraction(11, 12), TWO_D6)


def test_server_dice_roll_and_sex_with_a_name(client, campaign, gm):
    client.force_login(gm)
    couple = _couple(campaign, "Spain")
    url = _url("births", campaign)
    for _ in range(20):  # until the server's dice give a child (58% a throw)
        assert _grid(client, url, {f"how-{couple.pk}": "server"}).status_code == 302
        attempt = BirthAttempt.objects.filter(marriage=couple).order_by("-attempt").first()
        if attempt.success or attempt.attempt == 3:
            break
    made = list(BirthAttempt.objects.filter(marriage=couple))
    assert made and all(a.roll.source == "server" for a in made)
    if any(a.success for a in made):
        pending = next(a for a in made if a.success)
        assert _grid(client, url, {f"how-{couple.pk}": "server"}).status_code == 302  # the sex, on the server's dice
        child = Character.objects.get(pk=BirthAttempt.objects.get(pk=pending.pk).child_id)
        assert Roll.objects.filter(subjects__character=child, purpose="sex", source="server").exists()
        assert _grid(client, url, {f"n{child.pk}-given_name": "Blanca"}).status_code == 302
        child.refresh_from_db()
        assert child.given_name == "Blanca" and set(child.characteristics) in (
            {"strength", "constitution", "charisma"},
            {"guile", "constitution", "charisma"},
        )
    else:
        html = client.get(url).content.decode()
        assert "has made all 3 birth rolls" in _section(html, f"couple-{couple.pk}")


def test_invalid_dice_are_refused_next_to_the_field_and_nothing_is_written(client, campaign, alice):
    setup = _count(campaign)
    client.force_login(alice)
    couple = _couple(campaign)
    url = _url("births", campaign)
    response = _grid(client, url, _dice(f"a{couple.pk}", 7, ""))
    assert response.status_code == 400
    html = response.content.decode()
    assert "Nothing was entered: fix the 1 couple marked below" in html[html.index('id="refusal"') :]
    card = _section(html, f"couple-{couple.pk}")
    d1 = card[card.index(f'id="id_a{couple.pk}-d1"') :]
    assert d1.index("A d6 shows 1 to 6.") < d1.index(f'id="id_a{couple.pk}-d2"')  # next to die 1
    assert "Type what this die shows (1 to 6)." in card[card.index(f'id="id_a{couple.pk}-d2"') :]
    alert = card[card.index('role="alert"') :]
    assert "Die 1: A d6 shows 1 to 6." in alert and "Die 2: Type what this die shows (1 to 6)." in alert
    assert f'name="a{couple.pk}-d1" value="7"' in card  # what was typed stays, to be fixed
    assert not BirthAttempt.objects.filter(campaign=campaign).exists()
    assert _count(campaign) == setup
    assert not Checkpoint.objects.filter(campaign=campaign).exists()

    # A partial set of characteristic dice: said next to the missing ones, nothing written.
    _grid(client, url, _dice(f"a{couple.pk}", 6, 6))
    attempt = BirthAttempt.objects.get(marriage=couple)
    rolls = Roll.objects.filter(campaign=campaign).count()
    response = _grid(client, url, {f"x{couple.pk}-sex": "5", f"x{couple.pk}-c1_1": "3"})
    assert response.status_code == 400
    card = _section(response.content.decode(), f"couple-{couple.pk}")
    row = card[card.index(f'id="id_x{couple.pk}-c1_1"') : card.index(f'id="id_x{couple.pk}-c2_1"')]  # Strength or Guile
    assert "Type every characteristic die, or none (the server then rolls them): 8 of 9 missing." in row
    # once next to the die, once in the row's list of what to fix
    assert card.count("Type every characteristic die") == 2
    assert "Strength or Guile, die 2: Type every characteristic die" in card
    assert Roll.objects.filter(campaign=campaign).count() == rolls
    assert BirthAttempt.objects.get(pk=attempt.pk).child_id is None


def test_a_refusal_by_the_services_shows_on_its_row_and_nothing_of_the_grid_is_written(client, campaign, gm, monkeypatch):
    setup = _count(campaign)
    client.force_login(gm)
    england, france = _couple(campaign), _couple(campaign, "France")
    real = pages_sequence.births_attempt

    def refuse_france(**kwargs):
        if kwargs["marriage"] == france.pk:
            raise IneligibleCouple("Jean Capet and Jeanne de Navarre: a test refusal.")
        return real(**kwargs)

    monkeypatch.setattr(pages_sequence, "births_attempt", refuse_france)
    response = _grid(client, _url("births", campaign), {**_dice(f"a{england.pk}", 3, 3), **_dice(f"a{france.pk}", 4, 4)})
    assert response.status_code == 400
    html = response.content.decode()
    assert "a test refusal." in _section(html, f"couple-{france.pk}")
    assert "a test refusal." not in _section(html, f"couple-{england.pk}")
    assert "Nothing was entered" in html[html.index('id="refusal"') :]
    assert _count(campaign) == setup and not BirthAttempt.objects.exists()  # England's roll too: one transaction
    assert not Checkpoint.objects.filter(campaign=campaign).exists()


def test_a_couple_no_longer_eligible_makes_no_roll(client, campaign, alice):
    setup = _count(campaign)
    client.force_login(alice)
    couple = _couple(campaign)
    Character.objects.filter(pk=couple.wife_id).update(birth_year=1240)  # she is 60
    response = _grid(client, _url("births", campaign), _dice(f"a{couple.pk}", 3, 3))
    assert response.status_code == 400
    html = response.content.decode()
    assert "Nothing to enter" in html[html.index('id="refusal"') :]
    assert "Mary Tudor" in html  # in the list of couples who make no roll
    assert _count(campaign) == setup


def test_the_same_form_sent_twice_rolls_once(client, campaign, alice):
    setup = _count(campaign)
    client.force_login(alice)
    couple = _couple(campaign)
    key = new_action_key()
    url = _url("births", campaign)
    first = client.post(url, {"op": "grid", **_dice(f"a{couple.pk}", 1, 2), "action_key": key})
    second = client.post(url, {"op": "grid", **_dice(f"a{couple.pk}", 6, 6), "action_key": key})
    assert first.status_code == second.status_code == 302
    assert BirthAttempt.objects.filter(marriage=couple).count() == 1
    assert _count(campaign) == setup + 1
    assert any("already done" in m for m in _messages(client.get(url)))
    # A form without its key is refused with a message, nothing done.
    response = client.post(url, {"op": "grid", f"how-{couple.pk}": "server"})
    assert response.status_code == 400 and "action key" in response.content.decode()
    assert _count(campaign) == setup + 1


def test_gm_rolls_all_remaining_and_finishes_births(client, campaign, gm):
    client.force_login(gm)
    url = _url("births", campaign)
    _grid(client, url, _dice(f"a{_couple(campaign).pk}", 1, 1))
    assert _post(client, url, op="roll_all").status_code == 302
    made = BirthAttempt.objects.filter(campaign=campaign)
    assert made.count() == 5 and made.filter(marriage=_couple(campaign)).count() == 1  # England's rolled already
    assert all(a.child_id for a in made.filter(success=True).exclude(marriage=_couple(campaign)))
    response = _post(client, url, op="finish")
    assert response.status_code == 302 and response["Location"] == _url("survival", campaign) + "#top"
    campaign.refresh_from_db()
    assert campaign.step == Step.SURVIVAL
    html = client.get(url).content.decode()
    assert "The Births step of 1300 is closed" in html and 'name="op"' not in html
    # Finishing again: refused at the top of the GM's box (status 400), nothing changes.
    response = _post(client, url, op="finish")
    assert response.status_code == 400 and "already done" in response.content.decode()


def test_finish_births_waits_for_the_sex_roll(client, campaign, gm):
    client.force_login(gm)
    url = _url("births", campaign)
    _grid(client, url, _dice(f"a{_couple(campaign).pk}", 6, 6))
    response = _post(client, url, op="finish")
    assert response.status_code == 400
    html = response.content.decode()
    refusal = html[html.index('id="refusal"') : html.index('id="gm-births"')]  # above the GM's buttons
    assert "Roll the sex of the child born to Edward Plantagenet and Mary Tudor" in refusal
    campaign.refresh_from_db()
    assert campaign.step == Step.BIRTHS


# --- permissions ----------------------------------------------------------------------------


def _count(campaign):
    return Roll.objects.filter(campaign=campaign).count()


@pytest.mark.parametrize(("who", "status"), [("gm", 302), ("alice", 302), ("bob", 403), ("observer", 403), ("outsider", 404)])
def test_births_permissions(client, campaign, who, status, request):
    setup = _count(campaign)
    client.force_login(request.getfixturevalue(who))
    url = _url("births", campaign)
    couple = _couple(campaign)
    assert _grid(client, url, _dice(f"a{couple.pk}", 6, 6)).status_code == status
    assert _count(campaign) == setup + (1 if status == 302 else 0)
    if status == 302:
        attempt = BirthAttempt.objects.get(marriage=couple)
        assert _grid(client, url, {f"x{couple.pk}-sex": "1"}).status_code == 302
    else:  # the sex of another house's child: refused too
        made = births_roll_all(campaign=campaign, source=RandomSource(11), by=SYSTEM_ACTOR)
        attempt = next((a for a in made if a.marriage_id == couple.pk), None)
        assert attempt is not None
        assert _grid(client, url, {f"how-{couple.pk}": "server"}).status_code == status
    gm_only = 302 if who == "gm" else status if status == 404 else 403
    before = _count(campaign)
    assert _post(client, url, op="roll_all").status_code == gm_only
    if who != "gm":
        assert _count(campaign) == before
    finish = _post(client, url, op="finish").status_code
    assert finish == (302 if who == "gm" else gm_only)
    campaign.refresh_from_db()
    assert campaign.step == (Step.SURVIVAL if who == "gm" else Step.BIRTHS)


@pytest.mark.parametrize(
    ("who", "own", "other", "gm_only"),
    [
        ("gm", 302, 302, 302),
        ("alice", 302, 403, 403),
        ("bob", 403, 302, 403),
        ("observer", 403, 403, 403),
        ("outsider", 404, 404, 404),
    ],
)
def test_survival_permissions(client, campaign, gm, who, own, other, gm_only, request):
    _to_survival(client, campaign, gm)
    client.force_login(request.getfixturevalue(who))
    url = _url("survival", campaign)
    edward, jean = _couple(campaign).husband, _couple(campaign, "France").husband
    assert _grid(client, url, {"rows": edward.pk, **_dice(f"s{edward.pk}", 6, 6)}).status_code == own
    assert _grid(client, url, {"rows": jean.pk, f"how-{jean.pk}": "server"}).status_code == other
    rolled = set(Roll.objects.filter(campaign=campaign, purpose="survival").values_list("subjects__character", flat=True))
    assert rolled == {pk for pk, s in ((edward.pk, own), (jean.pk, other)) if s == 302}
    before = _count(campaign)
    assert _post(client, url, op="roll_all").status_code == gm_only
    assert (_count(campaign) > before) is (who == "gm")
    mine = _post(client, url, op="roll_mine").status_code
    assert mine == {"alice": 302, "bob": 302, "gm": 403, "observer": 403, "outsider": 404}[who]
    assert _post(client, url, op="finish").status_code == (302 if who == "gm" else gm_only)
    campaign.refresh_from_db()
    assert campaign.step == (Step.MARRIAGES if who == "gm" else Step.SURVIVAL)


@pytest.mark.parametrize(("who", "status"), [("gm", 302), ("alice", 403), ("observer", 403), ("outsider", 404)])
def test_undo_is_the_gms(client, campaign, gm, who, status, request):
    client.force_login(gm)
    _grid(client, _url("births", campaign), _dice(f"a{_couple(campaign).pk}", 2, 2))
    client.force_login(request.getfixturevalue(who))
    assert client.get(_url("undo", campaign)).status_code == (200 if who == "gm" else status)
    assert _post(client, _url("undo", campaign), which="step").status_code == status
    assert BirthAttempt.objects.filter(campaign=campaign).count() == (0 if who == "gm" else 1)


# --- Survival and succession ------------------------------------------------------------------


@pytest.fixture
def england_heirs(campaign):
    """England: King Edward (25, Constitution 0), his sons John (5, a prisoner of France) and Henry (3)."""
    england = _england(campaign)
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    couple = _couple(campaign)
    john = Character.objects.get(campaign=campaign, father=couple.husband)
    john.prisoner_of = france
    john.save(update_fields=["prisoner_of"])
    henry = person(campaign, england, "Henry", "M", 1297, father=couple.husband, mother=couple.wife, dynastic_name="Plantagenet")
    return couple.husband, john, henry


def test_a_typed_death_a_pass_over_and_the_new_reign(client, campaign, gm, alice, bob, england_heirs):
    edward, john, henry = england_heirs
    _to_survival(client, campaign, gm)
    url = _url("survival", campaign)

    # Alice types her King's dice: 1 + 1 + 0 < 4, he dies; the result shows at once.
    client.force_login(alice)
    response = _grid(client, url, {"rows": edward.pk, **_dice(f"s{edward.pk}", 1, 1)})
    assert response.status_code == 302
    edward.refresh_from_db()
    assert edward.status == Status.DEAD and edward.death_year == 1300
    page = client.get(url)
    assert any("Died: Edward Plantagenet (1 + 1 +0, needed 4)" in m for m in _messages(page))
    html = page.content.decode()
    assert "result-died" in _row(html, edward.pk) and "died" in _row(html, edward.pk)

    # The succession decision: John may be passed over (a prisoner of another player), at a cost.
    section = html[html.index('id="succession"') :]
    assert "England: Edward I Plantagenet has died" in section  # with his numeral
    assert "May be passed over (a prisoner of another player)" in section
    assert "rolls 1d6 for Charisma" in section
    assert f'name="heirs" value="{john.pk}"' in section
    client.force_login(bob)  # not his crown: no form, and refused by URL
    assert 'name="heirs"' not in client.get(url).content.decode()
    assert _post(client, url, op="pass_over", crown="England", heirs=[john.pk]).status_code == 403
    client.force_login(alice)
    # Henry cannot be passed over (no reason and rule C is off): refused, nothing kept.
    response = _post(client, url, op="pass_over", crown="England", heirs=[henry.pk])
    assert response.status_code == 400 and "Henry Plantagenet may not be passed over" in response.content.decode()
    assert pass_over_choices(campaign) == {}
    assert _post(client, url, op="pass_over", crown="England", heirs=[john.pk]).status_code == 302
    assert pass_over_choices(campaign) == {"England": [john.pk]}
    assert "Decision recorded: pass over John Plantagenet" in client.get(url).content.decode()

    # The GM: everyone else survives on typed sixes; the finish form has Alice's choice ticked.
    client.force_login(gm)
    rows = [row.character.pk for row in survival_board(campaign).to_roll]
    typed = {k: v for pk in rows for k, v in _dice(f"s{pk}", 6, 6).items()}
    assert _grid(client, url, {"rows": rows, **typed}).status_code == 302  # one submit for them all
    assert not survival_board(campaign).to_roll
    html = client.get(url).content.decode()
    finish = html[html.index('id="finish"') :]
    assert f'value="England::{john.pk}" id="fin-1-{john.pk}" checked' in finish
    assert 'data-step-open="survival"' in html and "data-follow" not in html  # the live poll's marks
    # Typed: the Charisma roll (3: -1), then a baron regent's three characteristics (the widow may not rule).
    response = _post(client, url, op="finish", pass_over=f"England::{john.pk}", entered="3")
    assert response.status_code == 400
    assert "Not enough typed" in _section(response.content.decode(), "finish")
    assert Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder_id == edward.pk
    entered = "3; 6 6 6; 1 2 3; 4, 4, 4"
    response = _post(client, url, op="finish", pass_over=f"England::{john.pk}", entered=entered)
    # on to the next step's page, the successions in its messages (issue 34: it stayed on Survival)
    assert response.status_code == 302 and response["Location"] == _url("marriages", campaign) + "#top"
    landed = client.get(response["Location"]).content.decode()
    assert "now Marriages" in landed and "New monarchs: Henry I Plantagenet succeeds Edward I Plantagenet" in landed

    reign = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    assert reign.holder_id == henry.pk and reign.start_year == 1300
    assert PassedOver.objects.filter(reign=reign, character=john).exists()
    charisma = Roll.objects.get(campaign=campaign, purpose="charisma_loss")
    assert charisma.faces == [3] and charisma.source == "entered"
    assert reign.regent.origin == "baron" and reign.regent.characteristics == {"strength": 2, "constitution": -1, "charisma": 0}
    assert CHOICE_KEY not in Crown.objects.get(campaign=campaign, name="England").state
    campaign.refresh_from_db()
    assert campaign.step == Step.MARRIAGES
    html = client.get(url).content.decode()
    assert "New monarchs" in html and "Henry I Plantagenet succeeds Edward I Plantagenet as King of England" in html
    assert 'data-follow href="/c/' in html and "data-step-open" not in html  # an open page follows to Marriages
    assert f'id="character-{reign.regent_id}"' not in html  # made after the rolls: not someone "to roll"
    assert "to roll" not in html and f'id="character-{edward.pk}"' in html
    assert f"/c/{campaign.slug}/turn/announcements/" in html or "announcements" in html


def test_rule_c_says_once_why_an_heir_may_be_passed_over_and_names_each_choice(client, campaign, gm, alice, england_heirs):
    rules = campaign.optional_rules
    Campaign.objects.filter(pk=campaign.pk).update(optional_rules={**rules, "disputed_succession": True})
    edward, _john, henry = england_heirs
    _to_survival(client, campaign, gm)
    url = _url("survival", campaign)
    survival_roll(campaign=campaign, faces={edward.pk: [1, 1]}, characters=[edward.pk], by=SYSTEM_ACTOR)
    for user, form in ((alice, "po"), (gm, "fin")):
        client.force_login(user)
        html = client.get(url).content.decode()
        section = _section(html, "succession")
        assert "<summary>May be passed over (a prisoner of another player), at this cost:</summary>" in section  # John
        assert "<summary>May be passed over (under optional rule C), at this cost:</summary>" in section  # Henry
        assert "passed over under" not in section
        assert re.search(r'<details class="costs" open><summary>[^<]*</summary>', section)  # the first heir's price shows
        assert section.count("<details") == 2 and section.count(" open>") == 1  # the others fold away
        # each choice says who: a namesake in the line is told apart by his kin and age
        label = rf'<label for="{form}-1-{henry.pk}">Pass over Henry Plantagenet <span class="muted">\(son, 3\)</span></label>'
        assert re.search(label, html), form


def test_a_redirect_to_another_page_or_to_the_message_goes_to_the_top(client, campaign, gm):
    """Without a fragment of its own a redirect keeps the form page's (the browser carries it over):
    Finish Births from /births/#couple-5 would land on /survival/#couple-5."""
    client.force_login(gm)
    births, survival = _url("births", campaign), _url("survival", campaign)
    assert _post(client, births, op="roll_all")["Location"] == births + "#top"  # the message is at the top
    assert _post(client, births, op="finish")["Location"] == survival + "#top"
    assert _post(client, survival, op="roll_all")["Location"] == survival + "#top"
    response = client.post(_url("undo", campaign), {"which": "nonsense", "action_key": new_action_key()})
    assert response["Location"] == _url("undo", campaign) + "#top"


def test_finish_survival_refusals_show_on_the_form(client, campaign, gm, england_heirs):
    edward, john, henry = england_heirs
    _to_survival(client, campaign, gm)
    url = _url("survival", campaign)
    response = _post(client, url, op="finish")
    assert response.status_code == 400
    assert "still to roll for survival" in _section(response.content.decode(), "finish")
    survival_roll(campaign=campaign, faces={edward.pk: [1, 1]}, characters=[edward.pk], by=SYSTEM_ACTOR)
    others = [r.character.pk for r in survival_board(campaign).to_roll]
    survival_roll(campaign=campaign, characters=others, faces={pk: [6, 6] for pk in others}, by=SYSTEM_ACTOR)
    response = _post(client, url, op="finish", entered="3; x")
    assert response.status_code == 400
    assert "is not a roll" in _section(response.content.decode(), "finish")
    response = _post(client, url, op="finish", pass_over=f"England::{henry.pk}")
    assert response.status_code == 400
    assert "Henry Plantagenet: not ahead of the heir" in _section(response.content.decode(), "finish")
    response = client.post(
        url, {"op": "finish", "pass_over": [f"England::{john.pk}", f"England::{henry.pk}"], "action_key": new_action_key()}
    )
    assert response.status_code == 400
    assert "Henry Plantagenet may not be passed over" in _section(response.content.decode(), "finish")
    assert Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder_id == edward.pk
    campaign.refresh_from_db()
    assert campaign.step == Step.SURVIVAL


def test_the_pass_over_choice_is_kept_for_the_year_until_the_finish(campaign, england_heirs):
    edward, john, henry = england_heirs
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="has not died this turn"):
        pass_over_choose(campaign=campaign, crown="England", heirs=[john.pk], limit=8, by=SYSTEM_ACTOR)
    survival_roll(campaign=campaign, characters=[edward.pk], faces={edward.pk: [1, 1]}, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="not among the first 8"):
        pass_over_choose(campaign=campaign, crown="England", heirs=[edward.pk], limit=8, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Henry Plantagenet may not be passed over"):
        pass_over_choose(campaign=campaign, crown="England", heirs=[henry.pk], limit=8, by=SYSTEM_ACTOR)
    # under rule C anyone may be passed over, but only ahead of the one who succeeds: refused at once,
    # as the GM's finish would refuse it (before: recorded, then the finish failed on it)
    rules = campaign.optional_rules
    Campaign.objects.filter(pk=campaign.pk).update(optional_rules={**rules, "disputed_succession": True})
    with pytest.raises(RuleError, match="Henry Plantagenet: not ahead of the heir"):
        pass_over_choose(campaign=campaign, crown="England", heirs=[henry.pk], limit=8, by=SYSTEM_ACTOR)
    assert pass_over_choices(campaign) == {}
    Campaign.objects.filter(pk=campaign.pk).update(optional_rules=rules)
    assert pass_over_choose(campaign=campaign, crown="England", heirs=[john.pk, john.pk], limit=8, by=SYSTEM_ACTOR) == [john.pk]
    assert pass_over_choices(campaign) == {"England": [john.pk]}
    record = Crown.objects.get(campaign=campaign, name="England")
    record.state = {**record.state, CHOICE_KEY: {"year": 1295, "heirs": [john.pk]}}
    record.save()
    assert pass_over_choices(campaign) == {}  # an earlier year's choice counts for nothing
    assert pass_over_choose(campaign=campaign, crown="England", heirs=[], limit=8, by=SYSTEM_ACTOR) == []
    assert pass_over_choices(campaign) == {"England": []}
    pass_over_clear(campaign)
    assert pass_over_choices(campaign) == {} and CHOICE_KEY not in Crown.objects.get(pk=record.pk).state


# --- Undo ------------------------------------------------------------------------------------


def test_undo_step_restores_exactly(client, campaign, gm, alice):
    before = _state(campaign)
    client.force_login(alice)
    couple = _couple(campaign)
    url = _url("births", campaign)
    _grid(client, url, _dice(f"a{couple.pk}", 5, 5))
    assert BirthAttempt.objects.get(marriage=couple).success
    _grid(client, url, {f"how-{couple.pk}": "server"})
    assert _state(campaign) != before
    client.force_login(gm)
    html = client.get(_url("undo", campaign)).content.decode()
    assert "back to the start of Births 1300" in html
    assert 'It throws away: <span class="losses">5 rolls, 1 new character, 1 chronicle line, 0 postings</span>' in html
    key = new_action_key()
    response = client.post(_url("undo", campaign), {"which": "step", "action_key": key})
    assert response.status_code == 302 and response["Location"] == _url("turn", campaign) + "#top"
    assert _state(campaign) == before
    assert any("back at the start of Births 1300" in m for m in _messages(client.get(_url("turn", campaign))))
    # The same undo form again: nothing more is undone; another undo: nothing left.
    client.post(_url("undo", campaign), {"which": "step", "action_key": key})
    assert any("already done" in m for m in _messages(client.get(_url("turn", campaign))))
    _post(client, _url("undo", campaign), which="step")
    assert any("nothing to undo" in m.lower() for m in _messages(client.get(_url("turn", campaign))))
    assert _state(campaign) == before


def test_undo_turn_from_survival(client, campaign, gm):
    start = _state(campaign)
    client.force_login(gm)
    _post(client, _url("births", campaign), op="roll_all")
    _post(client, _url("births", campaign), op="finish")
    _post(client, _url("survival", campaign), op="roll_all")
    html = client.get(_url("turn", campaign)).content.decode()
    assert "Undo the turn…</a>" in html
    assert "Yes, undo the turn</button>" in client.get(_url("undo", campaign), {"which": "turn"}).content.decode()
    _post(client, _url("undo", campaign), which="turn")
    assert _state(campaign) == start


# --- query counts ------------------------------------------------------------------------------


def _counts(client, campaign, gm: bool) -> list[int]:
    out = []
    for name in ("turn", "births", "survival", "undo") if gm else ("turn", "births", "survival"):
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(_url(name, campaign)).status_code == 200
        out.append(len(ctx.captured_queries))
    return out


@pytest.mark.parametrize("who", ["gm", "alice"])
def test_query_counts_do_not_grow_with_the_campaign(client, campaign, gm, who, request):
    client.force_login(request.getfixturevalue(who))
    small_births = _counts(client, campaign, who == "gm")
    births_roll_all(campaign=campaign, source=RandomSource(4), by=SYSTEM_ACTOR)
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    small_survival = _counts(client, campaign, who == "gm")

    simulate(campaign, turns=5, source=RandomSource(2), by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    assert Character.objects.filter(campaign=campaign).count() > 30
    assert campaign.step == Step.BIRTHS
    grown_births = _counts(client, campaign, who == "gm")
    births_roll_all(campaign=campaign, source=RandomSource(4), by=SYSTEM_ACTOR)
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    grown_survival = _counts(client, campaign, who == "gm")
    assert len(births_board(campaign).couples) > 5
    assert len(survival_board(campaign).rows) > 15
    print(who, small_births, grown_births, small_survival, grown_survival)
    assert grown_births == small_births
    assert grown_survival == small_survival
    assert max(grown_births + grown_survival) <= 40


# --- the other rulesets ------------------------------------------------------------------------


def test_bloodline_pages_and_a_typed_birth(client, db):
    from operations.services import demo_create

    demo = demo_create(ruleset="eu-bloodline").campaign
    gm = Membership.objects.get(campaign=demo, role=Role.GM).user
    client.force_login(gm)
    for name in ("turn", "births", "survival", "undo"):
        assert client.get(_url(name, demo)).status_code == 200
    html = client.get(_url("births", demo)).content.decode()
    assert "55 in 100 (11/20, 55%)" in html and "11 or more on 2d10" in html
    board = births_board(demo)
    couple = next(c for c in board.couples if c.may_attempt)
    url = _url("births", demo)
    pk = couple.marriage.pk
    bad = _grid(client, url, _dice(f"a{pk}", 11, 5))
    assert bad.status_code == 400 and "A d10 shows 1 to 10." in bad.content.decode()
    assert _grid(client, url, _dice(f"a{pk}", 10, 5)).status_code == 302
    attempt = BirthAttempt.objects.get(marriage=couple.marriage)
    assert attempt.success and attempt.roll.dice == "2d10"
    response = _grid(client, url, {f"x{pk}-sex": "7", f"x{pk}-c1_1": "9", f"x{pk}-c2_1": "5", f"x{pk}-c3_1": "1"})
    assert response.status_code == 302
    child = Character.objects.get(pk=BirthAttempt.objects.get(pk=attempt.pk).child_id)
    assert child.sex == "F" and set(child.characteristics) == {"adm", "dip", "mil"}
    card = _section(client.get(url).content.decode(), f"couple-{couple.marriage.pk}")
    assert "effective years for good" in card and "Try again?" in card
    _post(client, url, op="finish")
    html = client.get(_url("survival", demo)).content.decode()
    assert "in 100" in html and "death" in html
    assert _post(client, _url("survival", demo), op="roll_all").status_code == 302
    assert _post(client, _url("survival", demo), op="finish").status_code == 302
    demo.refresh_from_db()
    assert demo.step == Step.MARRIAGES


def test_eu_monarchs_pages_send_the_gm_to_the_monarchs_grid(client, db):
    from dynasties.services.monarchs_view import SURVIVAL, monarchs_board
    from operations.services import demo_create

    demo = demo_create(ruleset="eu-monarchs").campaign
    gm = Membership.objects.get(campaign=demo, role=Role.GM).user
    client.force_login(gm)
    for name in ("turn", "births", "survival", "undo"):
        assert client.get(_url(name, demo)).status_code == 200
    births = client.get(_url("births", demo)).content.decode()
    assert "no births to roll" in births and "admin panel" not in births
    assert _post(client, _url("births", demo), op="finish").status_code == 302
    html = client.get(_url("survival", demo)).content.decode()
    assert 'id="monarchs-grid"' in html and "admin panel" not in html
    assert _post(client, _url("survival", demo), op="finish").status_code == 400  # every crown rolls first
    for _ in range(2):  # the server's dice: the survival rolls, then the successions of the thrones left vacant
        due = monarchs_board(demo).to_roll
        sent = {f"how-{'m' if r.due == SURVIVAL else 'n'}{r.key}": "server" for r in due}
        if sent:
            assert _grid(client, _url("survival", demo), sent).status_code == 302
    assert not monarchs_board(demo).to_roll
    assert _post(client, _url("survival", demo), op="finish").status_code == 302
    demo.refresh_from_db()
    assert demo.step == Step.MARRIAGES
