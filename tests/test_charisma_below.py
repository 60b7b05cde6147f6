"""A monarch's Charisma below -2 and the hand edits (issue 33, item 9).

Blood Royale (9) Succession: passing over an heir costs the new monarch 1d6, "A result of 1-3 means
the new monarch's Charisma is reduced by -1, and a result of 4-6 reduces it by -2 (this may reduce the
character's Charisma score to -3 or -4!). This penalty cannot be inherited by any of the new
monarch's heirs, but can reduce the monarch's Charisma below -2." (20) Foreign Intervention: "the
monarch's Charisma score is reduced by 1. This can have the effect of reducing a monarch's Charisma
below -2." Births and rolls give -2..+2 (the characteristic table); only a monarch's Charisma goes
lower. A hand edit validates what the rules allow and refuses only the impossible."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dynasties.models import Character, Reign
from dynasties.services.crowns import foreign_intervention
from dynasties.services.editing import EditRefused, character_edit
from rules import get_ruleset
from rules.characteristics import InvalidCharacteristics, validate_characteristics


@pytest.fixture
def king(campaign) -> Character:
    reign = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    return reign.holder


@pytest.fixture
def prince(campaign, king) -> Character:
    """A son of the house who never reigned."""
    return Character.objects.filter(campaign=campaign, controlled_by=king.controlled_by, sex="M").exclude(pk=king.pk).first()


def at(character: Character, charisma: int) -> None:
    """His Charisma as the rules' own changes left it (the services write it so)."""
    character.characteristics = {**character.characteristics, "charisma": charisma}
    character.save(update_fields=["characteristics"])


def test_a_king_brought_below_minus_2_by_foreign_aid_may_have_his_strength_edited(campaign, gm, king):
    """The issue's example: once a King is at -3, an edit of his Strength is no longer refused for it."""
    at(king, -2)
    foreign_intervention(campaign=campaign, crown="England", note="Flemish aid against the rebels", by=gm)
    king.refresh_from_db()
    assert king.characteristics["charisma"] == -3  # the rule took him there
    character_edit(campaign=campaign, character=king, changes={"characteristics": {**king.characteristics, "strength": 1}}, by=gm)
    king.refresh_from_db()
    assert king.characteristics == {**king.characteristics, "strength": 1, "charisma": -3}


def test_a_monarchs_charisma_may_be_typed_at_minus_4(campaign, gm, king):
    """'this may reduce the character's Charisma score to -3 or -4!': the GM types the penalty in."""
    character_edit(
        campaign=campaign, character=king, changes={"characteristics": {**king.characteristics, "charisma": -4}}, by=gm
    )
    king.refresh_from_db()
    assert king.characteristics["charisma"] == -4


def test_a_prince_who_never_reigned_stays_within_minus_2_with_the_rule_cited(campaign, gm, prince):
    """Only 'the monarch's Charisma' falls below -2: a Prince's is a roll's, -2..+2."""
    before = dict(prince.characteristics)
    with pytest.raises(EditRefused, match=r"Charisma must be a whole number from -2 to \+2, not -3.*Only a monarch's"):
        character_edit(campaign=campaign, character=prince, changes={"characteristics": {**before, "charisma": -3}}, by=gm)
    prince.refresh_from_db()
    assert prince.characteristics == before


def test_the_impossible_is_still_refused_for_a_king(campaign, gm, king):
    """No rule takes Charisma above +2 or Constitution outside -2..+2, even a King's."""
    for key, value in (("charisma", 3), ("constitution", -3)):
        with pytest.raises(EditRefused, match=rf"{key.title()} must be a whole number from -2 to \+2"):
            character_edit(
                campaign=campaign, character=king, changes={"characteristics": {**king.characteristics, key: value}}, by=gm
            )


def test_the_validator_keeps_what_the_record_holds_and_lets_a_monarch_fall():
    rules = get_ruleset("blood-royale")
    values = {"strength": 1, "constitution": 0, "charisma": -3}
    with pytest.raises(InvalidCharacteristics):
        validate_characteristics(rules, "M", values)  # a roll's range: -3 is not one
    assert validate_characteristics(rules, "M", values, monarch=True) == values
    assert validate_characteristics(rules, "M", values, current={"charisma": -3}) == values  # his already


def test_the_edit_page_shows_and_saves_a_king_at_minus_3(client, campaign, gm, king):
    """The page's field takes the King's -3 (no floor for a monarch's Charisma) and saves his Strength."""
    at(king, -3)
    client.force_login(gm)
    edit = reverse("pages:character_edit", args=[campaign.slug, king.pk])
    html = client.get(edit).content.decode()
    assert 'name="char_charisma"' in html and 'value="-3"' in html and "up to +2" in html
    data = {
        "action_key": "edit-charisma-below",
        "given_name": king.given_name,
        "dynastic_name": king.dynastic_name,
        "legitimate": "on",
        **{f"char_{k}": str(v) for k, v in king.characteristics.items()},
        "char_strength": "2",
    }
    response = client.post(edit, data, follow=True)
    assert response.status_code == 200, response.content.decode()[:2000]
    king.refresh_from_db()
    assert (king.characteristics["strength"], king.characteristics["charisma"]) == (2, -3)
