"""Dice at the speed of the table (issue 19): a roll typed as its total where only the sum counts,
and survival rolls that cannot fail passed without rolling, each logged as such; the campaign's
settings for both, kept by undo and by the export."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from campaign import dice as server_dice
from campaign.models import Campaign, DiceEntry, Membership, Role, Roll, RollSource, Step
from campaign.services import dice_entry_for
from campaign.steps import load_tables
from campaign.undo import new_action_key, step_action, undo_step
from dynasties.models import BirthAttempt, Character, Marriage
from dynasties.services import births_attempt, births_finish, births_sex, campaign_create, survival_roll
from dynasties.services.common import World
from dynasties.services.sequence_view import survival_board
from dynasties.services.survival import survival_due, survival_finish
from operations.exchange.export import campaign_export
from operations.exchange.write import campaign_import
from pages.templatetags.regnal import roll_text
from rules import blood_royale as br
from rules import bloodline as bl
from rules.dice import TWO_D6, FixedSource, TypedTotal, validate_total
from rules.errors import InvalidDice, RuleError

pytestmark = pytest.mark.django_db


# --- the rules ------------------------------------------------------------------------------------


def test_a_typed_total_is_checked_against_what_the_dice_can_show():
    assert validate_total(TWO_D6, 7) == 7
    assert validate_total(TWO_D6, 2) == 2 and validate_total(TWO_D6, 12) == 12
    with pytest.raises(InvalidDice, match="from 2 to 12; 13 cannot be rolled"):
        validate_total(TWO_D6, 13)
    with pytest.raises(InvalidDice, match="from 2 to 12; 1 cannot be rolled"):
        validate_total(TWO_D6, 1)
    with pytest.raises(InvalidDice, match="'7' is not one"):
        validate_total(TWO_D6, "7")


def test_a_survival_is_certain_only_when_the_lowest_roll_reaches_the_number():
    assert br.SurvivalCheck(age=30, need=5, modifier=3).certain()  # 2 + 3 = 5
    assert not br.SurvivalCheck(age=30, need=6, modifier=3).certain()
    assert br.SurvivalCheck(age=30, need=6, modifier=3).chance() < 1


def test_a_bloodline_survival_is_certain_only_when_every_total_reads_nothing():
    columns = [10, 20]
    quiet = {"columns": columns, "rows": {str(t): ["-", "U" if t == 2 else "-"] for t in range(2, 21)}}
    assert bl.survival_certain(quiet, 5)  # the first column reads "-" on every total
    assert not bl.survival_certain(quiet, 25)  # the second dies on a 2
    assert bl.survival_certain(quiet, 25, modifier=1)  # ... which +1 makes impossible


# --- typed totals ---------------------------------------------------------------------------------


def couple(campaign: Campaign, crown: str) -> Marriage:
    return Marriage.objects.get(
        campaign=campaign, husband__controlled_by__crown=crown, ended_year__isnull=True, wedding_year__isnull=False
    )


def test_a_birth_roll_typed_as_its_total_is_logged_as_a_typed_total(campaign, gm):
    made = births_attempt(campaign=campaign, marriage=couple(campaign, "England"), faces=TypedTotal(8), by=gm)
    roll = made.roll
    assert made.success  # 8: a child
    assert (roll.source, roll.faces, roll.total, roll.entered_by) == (RollSource.TOTAL, [8], 8, gm)
    assert roll.get_source_display() == "Typed in as its total"
    failed = births_attempt(campaign=campaign, marriage=couple(campaign, "France"), faces=TypedTotal(6), by=gm)
    assert not failed.success and failed.roll.source == RollSource.TOTAL


def test_a_total_the_dice_cannot_show_is_refused_and_nothing_is_written(campaign, gm):
    before = Roll.objects.filter(campaign=campaign).count()
    with pytest.raises(RuleError, match=r"birth roll.* on 2d6 is a whole number from 2 to 12; 13 cannot be rolled"):
        births_attempt(campaign=campaign, marriage=couple(campaign, "England"), faces=TypedTotal(13), by=gm)
    assert Roll.objects.filter(campaign=campaign).count() == before


def test_one_die_typed_as_a_total_is_its_face_and_characteristics_take_totals(campaign, gm):
    made = births_attempt(campaign=campaign, marriage=couple(campaign, "England"), faces=[4, 4], by=gm)
    child = births_sex(
        campaign=campaign,
        attempt=made,
        faces=TypedTotal(2),  # the sex die: one die, so its face
        characteristic_faces=[TypedTotal(18), TypedTotal(3), TypedTotal(10)],
        by=gm,
    )
    assert child.sex == "M"
    rolls = list(Roll.objects.filter(campaign=campaign, characters=child).order_by("pk"))
    assert [(r.purpose, r.source, r.faces) for r in rolls] == [
        ("sex", RollSource.ENTERED, [2]),
        ("characteristic", RollSource.TOTAL, [18]),
        ("characteristic", RollSource.TOTAL, [3]),
        ("characteristic", RollSource.TOTAL, [10]),
    ]
    bands = load_tables(campaign)["characteristic_bands"]
    assert child.characteristics == br.characteristics_from_totals(bands, "M", [18, 3, 10])


def test_a_survival_roll_typed_as_its_total(campaign, gm):
    births_finish(campaign=campaign, by=gm)
    row = survival_board(campaign).to_roll[0]
    (result,) = survival_roll(campaign=campaign, characters=[row.character.pk], faces={row.character.pk: TypedTotal(12)}, by=gm)
    assert result.survived and result.faces == (12,)
    roll = survival_board(campaign).rows[0].roll
    assert roll is not None and roll.source == RollSource.TOTAL


# --- certain outcomes -----------------------------------------------------------------------------


def hardy(campaign: Campaign) -> Character:
    """A character due to roll made so hardy (Constitution 12) that he cannot fail."""
    due = survival_due(campaign, World(campaign, living_only=True), load_tables(campaign))
    character = due[0].character
    character.characteristics = {**character.characteristics, "constitution": 12}
    character.save(update_fields=["characteristics"])
    return character


def test_with_the_setting_a_survival_that_cannot_fail_is_passed_when_survival_opens(campaign, gm, monkeypatch):
    campaign.auto_pass_certain = True
    campaign.save(update_fields=["auto_pass_certain"])
    strong = hardy(campaign)
    due = survival_due(campaign, World(campaign, living_only=True), load_tables(campaign))
    certain = {d.character.pk for d in due if br.SurvivalCheck(d.age, d.need, d.modifier).certain()}
    assert strong.pk in certain and len(certain) < len(due)  # some are certain, not all
    monkeypatch.setattr(server_dice, "RandomSource", lambda: FixedSource([]))  # a die drawn would fail
    births_finish(campaign=campaign, by=gm)
    monkeypatch.undo()
    passed = Roll.objects.filter(campaign=campaign, step=Step.SURVIVAL, purpose="survival")
    assert {r.characters.get().pk for r in passed} == certain
    assert {(r.source, tuple(r.faces), r.outcome) for r in passed} == {(RollSource.CERTAIN, (), "certain: survives")}
    board = survival_board(campaign)
    assert {r.character.pk for r in board.to_roll} == {d.character.pk for d in due} - certain
    rolled = survival_roll(campaign=campaign, by=gm)  # the GM's roll-all rolls only the others
    assert {r.character.pk for r in rolled} == {d.character.pk for d in due} - certain
    survival_finish(campaign=campaign, by=gm)


def finish_births(campaign: Campaign, gm) -> None:
    step_action(
        campaign=campaign, key=new_action_key(), label="Finish Births", action=lambda c: births_finish(campaign=c, by=gm), by=gm
    )


def test_without_the_setting_everyone_rolls_and_undo_takes_the_passes_back(campaign, gm):
    hardy(campaign)
    finish_births(campaign, gm)
    assert not Roll.objects.filter(campaign=campaign, source=RollSource.CERTAIN).exists()
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    campaign.refresh_from_db()
    campaign.auto_pass_certain = True
    campaign.save(update_fields=["auto_pass_certain"])
    finish_births(campaign, gm)
    assert Roll.objects.filter(campaign=campaign, source=RollSource.CERTAIN).count() >= 1
    undo_step(campaign=campaign, key=new_action_key(), by=gm)  # back to Births: the passes go with the step
    campaign.refresh_from_db()
    assert campaign.step == Step.BIRTHS and campaign.auto_pass_certain
    assert not Roll.objects.filter(campaign=campaign, source=RollSource.CERTAIN).exists()


# --- the settings: creation, export -----------------------------------------------------------------


def test_campaign_create_keeps_the_tables_choices_and_refuses_an_unknown_one(gm):
    made = campaign_create(name="Totals", dice_entry=DiceEntry.TOTALS, auto_pass_certain=True, by=gm)
    assert (made.dice_entry, made.auto_pass_certain) == ("totals", True)
    with pytest.raises(RuleError, match=r"How the table types its dice is one of 'faces'.*; 'sums' is not"):
        campaign_create(name="Sums", dice_entry="sums", by=gm)
    assert not Campaign.objects.filter(name="Sums").exists()


def test_the_creation_page_offers_the_choices_with_certain_passes_ticked(client, gm):
    client.force_login(gm)
    page = client.get(reverse("campaigns:new")).content.decode()
    (box,) = re.findall(r'<input type="checkbox" name="auto_pass_certain"[^>]*>', page)
    assert "checked" in box
    assert "The total of each roll" in page and "Each player chooses for his own rolls" in page


def test_the_export_carries_the_settings_and_the_typed_totals_and_certain_passes(campaign, gm):
    campaign.auto_pass_certain = True
    campaign.dice_entry = DiceEntry.PLAYER
    campaign.save(update_fields=["auto_pass_certain", "dice_entry"])
    births_attempt(campaign=campaign, marriage=couple(campaign, "England"), faces=TypedTotal(5), by=gm)
    hardy(campaign)
    births_finish(campaign=campaign, by=gm)
    data = campaign_export(campaign)
    assert (data["campaign"]["dice_entry"], data["campaign"]["auto_pass_certain"]) == ("player", True)
    sources = {r["source"] for r in data["rolls"]}
    assert {"total", "certain"} <= sources
    copy = campaign_import(data, by=gm, slug="copy")
    assert (copy.dice_entry, copy.auto_pass_certain) == ("player", True)
    assert Roll.objects.filter(campaign=copy, source=RollSource.TOTAL, faces=[5]).exists()
    assert (
        Roll.objects.filter(campaign=copy, source=RollSource.CERTAIN).count()
        == Roll.objects.filter(campaign=campaign, source=RollSource.CERTAIN).count()
    )
    bad = campaign_export(campaign)
    total = next(r for r in bad["rolls"] if r["source"] == "total")
    total["faces"] = [13]
    with pytest.raises(RuleError, match="13 cannot be rolled"):
        campaign_import(bad, by=gm, slug="bad")
    certain = next(r for r in bad["rolls"] if r["source"] == "certain")
    total["faces"], certain["faces"] = [5], [3, 4]
    with pytest.raises(RuleError, match="a roll passed as certain has no faces"):
        campaign_import(bad, by=gm, slug="bad")


def test_the_pages_say_how_each_roll_was_made(campaign, gm, client):
    assert roll_text(Roll(faces=[3, 4], modifier=1, source=RollSource.ENTERED)) == "3 + 4 +1 = 8 (typed)"
    assert roll_text(Roll(faces=[3, 4], modifier=0, source=RollSource.SERVER)) == "3 + 4 = 7"
    assert roll_text(Roll(faces=[9], modifier=-1, source=RollSource.TOTAL)) == "total 9 -1 = 8 (typed as a total)"
    assert roll_text(Roll(faces=[], modifier=5, source=RollSource.CERTAIN)) == "not rolled: certain"
    births_attempt(campaign=campaign, marriage=couple(campaign, "England"), faces=TypedTotal(9), by=gm)
    client.force_login(gm)
    log = client.get(reverse("pages:rolls", args=[campaign.slug])).content.decode()
    assert "total 9 = 9 (typed as a total)" in log


def test_a_player_chooses_how_he_types_his_dice_when_the_campaign_lets_him(campaign, alice, bob, client, django_user_model):
    url = reverse("pages:dice_entry", args=[campaign.slug])
    client.force_login(alice)
    response = client.post(url, {"dice_entry": "totals"}, follow=True)  # the GM has chosen: faces
    assert "the GM has chosen how dice are typed (each die" in response.content.decode()
    assert dice_entry_for(campaign, alice) == "faces"
    campaign.dice_entry = DiceEntry.PLAYER
    campaign.save(update_fields=["dice_entry"])
    page = client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
    assert "I type my dice as" in page
    response = client.post(url, {"dice_entry": "totals", "next": "https://evil.example/"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("pages:dashboard", args=[campaign.slug])  # never off the site
    assert "You type your dice as: the total of each roll." in response.content.decode()
    assert (dice_entry_for(campaign, alice), dice_entry_for(campaign, bob)) == ("totals", "faces")  # his own choice only
    response = client.post(url, {"dice_entry": "sums"}, follow=True)
    said = html.unescape(response.content.decode())
    assert "Type your dice as 'faces' (each die) or 'totals' (each roll's sum); 'sums' is neither." in said
    watcher = django_user_model.objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=watcher, role=Role.OBSERVER)
    client.force_login(watcher)
    assert client.post(url, {"dice_entry": "totals"}).status_code == 403
    assert "I type my dice as" not in client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()


# --- the grids take totals when the table types totals ------------------------------------------------


def _grid(client, url: str, fields: dict[str, object]):
    return client.post(url, {"op": "grid", "action_key": new_action_key(), **fields})


def test_the_births_grid_takes_totals_for_the_attempt_and_the_characteristics(client, campaign, alice):
    campaign.dice_entry = DiceEntry.TOTALS
    campaign.save(update_fields=["dice_entry"])
    client.force_login(alice)
    url = reverse("pages:births", args=[campaign.slug])
    pk = couple(campaign, "England").pk
    page = client.get(url).content.decode()
    assert f'name="a{pk}-total"' in page and f'name="a{pk}-d1"' not in page  # one field for 2d6
    wrong = _grid(client, url, {f"a{pk}-total": "13"})
    assert wrong.status_code == 400 and "A 2d6 roll totals 2 to 12." in html.unescape(wrong.content.decode())
    assert not Roll.objects.filter(campaign=campaign, purpose="birth").exists()
    assert _grid(client, url, {f"a{pk}-total": "9"}).status_code == 302
    made = Roll.objects.get(campaign=campaign, purpose="birth")
    assert (made.source, made.faces) == (RollSource.TOTAL, [9])
    attempt = BirthAttempt.objects.get(roll=made)
    page = client.get(url).content.decode()
    assert f'name="x{pk}-sex"' in page and f'name="x{pk}-c1_t"' in page  # the sex die is one die: its face
    assert "total 9 = 9 (typed as a total)" in page
    fields = {f"state-{pk}": f"sex-{attempt.pk}", f"x{pk}-sex": "2", f"x{pk}-c1_t": "18", f"x{pk}-c2_t": "3"}
    missing = _grid(client, url, fields)
    assert missing.status_code == 400
    assert "Type every characteristic total, or none (the server then rolls them): 1 of 3 missing." in html.unescape(
        missing.content.decode()
    )
    assert _grid(client, url, {**fields, f"x{pk}-c3_t": "10"}).status_code == 302
    attempt.refresh_from_db()
    traits = Roll.objects.filter(campaign=campaign, purpose="characteristic", step=Step.BIRTHS).order_by("pk")
    assert [(r.source, r.faces) for r in traits] == [(RollSource.TOTAL, [18]), (RollSource.TOTAL, [3]), (RollSource.TOTAL, [10])]
    assert attempt.child is not None and attempt.child.sex == "M"


def test_the_survival_grid_takes_a_players_totals_and_shows_certain_passes(client, campaign, gm, alice):
    campaign.dice_entry = DiceEntry.PLAYER
    campaign.auto_pass_certain = True
    campaign.save(update_fields=["dice_entry", "auto_pass_certain"])
    strong = hardy(campaign)
    births_finish(campaign=campaign, by=gm)
    Membership.objects.filter(campaign=campaign, user=alice).update(dice_entry=DiceEntry.TOTALS)
    url = reverse("pages:survival", args=[campaign.slug])
    mine = [r.character.pk for r in survival_board(campaign).to_roll if r.character.controlled_by.crown == "England"]
    client.force_login(alice)
    page = client.get(url).content.decode()
    assert f'name="s{mine[0]}-total"' in page
    assert _grid(client, url, {"rows": mine[0], f"s{mine[0]}-total": "12"}).status_code == 302
    roll = Roll.objects.get(campaign=campaign, purpose="survival", characters=mine[0])
    assert (roll.source, roll.faces) == (RollSource.TOTAL, [12])
    client.force_login(gm)  # the GM has not chosen: he types each die
    page = client.get(url).content.decode()
    other = survival_board(campaign).to_roll[0].character.pk
    assert f'name="s{other}-d1"' in page and f'name="s{other}-total"' not in page
    row = page[page.index(f'id="character-{strong.pk}"') :]
    assert "not rolled: certain" in row[: row.index("</tr>")]


def test_the_grids_name_monarchs_with_their_numerals_and_tell_namesakes_apart(client, campaign, gm):
    king = couple(campaign, "England").husband
    son = Character.objects.filter(campaign=campaign, father=king).order_by("birth_year").first()
    assert son is not None
    son.given_name = king.given_name  # a living namesake in the same house
    son.save(update_fields=["given_name"])
    client.force_login(gm)
    births = client.get(reverse("pages:births", args=[campaign.slug])).content.decode()
    assert f"{king.given_name} I {king.dynastic_name}" in births
    births_finish(campaign=campaign, by=gm)
    survival = client.get(reverse("pages:survival", args=[campaign.slug])).content.decode()
    assert f"{king.given_name} I {king.dynastic_name}" in survival


@pytest.mark.django_db
def test_how_dice_are_typed_is_a_members_own_choice_the_system_has_none(campaign, alice):
    """mypy (django-stubs) found it: the system passes the policy (it acts as the GM) but holds no
    seat, so its choice was a crash looking up its membership; it is refused in words."""
    from campaign.permissions import SYSTEM_ACTOR, Forbidden
    from campaign.services import dice_entry_choose

    Campaign.objects.filter(pk=campaign.pk).update(dice_entry=DiceEntry.PLAYER)
    assert dice_entry_choose(campaign=campaign.pk, choice=DiceEntry.TOTALS, by=alice).dice_entry == DiceEntry.TOTALS
    with pytest.raises(Forbidden, match="Only a member of the campaign chooses how he types his own dice"):
        dice_entry_choose(campaign=campaign.pk, choice=DiceEntry.TOTALS, by=SYSTEM_ACTOR)
    assert Membership.objects.get(campaign=campaign, user=alice).dice_entry == DiceEntry.TOTALS
