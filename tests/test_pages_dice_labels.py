"""Issue 34: "every die field has a label a screen reader reads ('Anna Welf, survival, die 1')".

Each die field of the grids (Births: an attempt, a further attempt, a child's sex and
characteristics; Survival; the EU monarchs' grid) is named by ``aria-labelledby``: the form's hidden
"whose roll" text, then the die's visible label ("Die 1"). The test computes the name as a screen
reader does from the page's HTML (the referenced elements' text, in order, joined by a space);
Chromium's own computation is checked in tests/browser/test_accessibility.py."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from campaign.models import Campaign
from campaign.undo import new_action_key
from dynasties.models import Character, Status
from dynasties.services import births_finish, births_roll_all
from dynasties.services.sequence_view import births_board, survival_board
from rules.dice import RandomSource
from tests.eu_grid_helpers import eu_campaign, monarch, to_survival

pytestmark = pytest.mark.django_db

_INPUT = re.compile(r"<input\b[^>]*>")
_ATTR = re.compile(r'([\w-]+)="([^"]*)"')
_TAG = re.compile(r"<[^>]+>")


def _text_of(html: str, element_id: str) -> str:
    """The text of the (only) element with this id: up to its closing tag (a label or a span)."""
    found = re.findall(rf'<(label|span)\b[^>]*\bid="{re.escape(element_id)}"[^>]*>(.*?)</\1>', html, re.S)
    assert len(found) == 1, f"{len(found)} elements with id {element_id!r}"
    return " ".join(unescape(_TAG.sub("", found[0][1])).split())


def dice_fields(html: str) -> dict[str, str]:
    """Every die field of the page: its name -> its accessible name from ``aria-labelledby`` ("" if
    none)."""
    found = {}
    for tag in _INPUT.findall(html):
        attrs = {k: unescape(v) for k, v in _ATTR.findall(tag)}
        if "die" in attrs.get("class", "").split():
            ids = attrs.get("aria-labelledby", "").split()
            found[attrs["name"]] = " ".join(_text_of(html, i) for i in ids)
    return found


def _url(name: str, campaign: Campaign) -> str:
    return reverse(f"pages:{name}", args=[campaign.slug])


def test_each_couples_dice_are_named_by_the_couple_and_the_die(client, campaign, gm):
    client.force_login(gm)
    fields = dice_fields(client.get(_url("births", campaign)).content.decode())
    couples = births_board(campaign).couples
    assert len(couples) == 5 and len(fields) == 10
    for row in couples:
        couple = f"{row.husband.display_name} and {row.wife.display_name}"
        for i in (1, 2):
            assert fields[f"a{row.marriage.pk}-d{i}"] == f"{couple}, birth attempt 1, Die {i}"
    assert len(set(fields.values())) == len(fields), "no two dice read the same"


def test_a_childs_sex_and_characteristics_dice_are_named(client, campaign, gm):
    client.force_login(gm)
    row = births_board(campaign).couples[0]
    pk = row.marriage.pk
    sent = {"op": "grid", "action_key": new_action_key(), f"a{pk}-d1": "6", f"a{pk}-d2": "6"}  # 12: a child
    response = client.post(_url("births", campaign), sent)
    assert response.status_code == 302
    fields = dice_fields(client.get(_url("births", campaign)).content.decode())
    child = f"the child of {row.husband.display_name} and {row.wife.display_name}"
    sex = fields[f"x{pk}-sex"]
    assert sex.startswith(f"{child}, Sex die (") and sex.endswith(")")
    assert fields[f"x{pk}-c1_1"] == f"{child}, Strength or Guile, die 1"
    assert fields[f"x{pk}-c3_2"] == f"{child}, Charisma, die 2"
    assert fields[f"r{pk}-d1"] == f"{row.husband.display_name} and {row.wife.display_name}, birth attempt 2, Die 1"
    assert all(fields.values()), [name for name, said in fields.items() if not said]


def test_each_survivors_die_is_named_by_the_character(client, campaign, gm, alice):
    births_roll_all(campaign=campaign, source=RandomSource(3), by=gm)
    births_finish(campaign=Campaign.objects.get(pk=campaign.pk), by=gm)
    campaign.refresh_from_db()
    rows = survival_board(campaign).rows
    client.force_login(gm)
    fields = dice_fields(client.get(_url("survival", campaign)).content.decode())
    assert len(fields) == 2 * len(rows) > 10  # a survival roll is 2d6
    for row in rows:
        for i in (1, 2):
            assert fields[f"s{row.character.pk}-d{i}"] == f"{row.character.display_name}, survival, Die {i}"
    # a player sees his own house's dice, named the same way
    client.force_login(alice)
    own = dice_fields(client.get(_url("survival", campaign)).content.decode())
    england = Character.objects.filter(campaign=campaign, controlled_by__crown="England", status=Status.ALIVE)
    assert own and set(own) <= {f"s{c.pk}-d{i}" for c in england for i in (1, 2)}
    assert all(re.fullmatch(r".+, survival, Die [12]", said) for said in own.values())


def test_the_monarchs_dice_are_named_by_the_monarch_and_the_crown(client, gm, alice, bob):
    game = to_survival(eu_campaign(gm, {"France": alice, "Poland": bob}))
    client.force_login(gm)
    fields = dice_fields(client.get(_url("survival", game)).content.decode())
    king = monarch(game, "France")
    survival = [said for name, said in fields.items() if name.endswith("-d1") and name.startswith("m")]
    assert f"{king.display_name}, France, Survival die" in survival
    assert "France, if the reign ends, Succession die" in fields.values()
    assert all(fields.values()), [name for name, said in fields.items() if not said]
