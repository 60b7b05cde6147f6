"""Issue 19: one grid per step. Births and Survival take every row the viewer may roll for in one
form - typed dice or the server's, row by row - check every typed die first and write all the rows
in one action (one transaction, one undo checkpoint); the child is named once its sex is known."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from campaign.models import ActionKey, Campaign, Checkpoint, ChronicleEntry, Roll, Step
from campaign.permissions import Forbidden
from campaign.undo import new_action_key
from dynasties.models import BirthAttempt, Character, Dynasty, Marriage
from dynasties.services import births_finish, births_roll_all, survival_roll
from dynasties.services.naming import character_rename
from dynasties.services.sequence_view import births_board, survival_board
from rules.dice import RandomSource
from rules.errors import RuleError


def _url(name: str, campaign: Campaign) -> str:
    return reverse(f"pages:{name}", args=[campaign.slug])


def _couple(campaign: Campaign, crown: str = "England") -> Marriage:
    house = Dynasty.objects.get(campaign=campaign, crown=crown)
    return Marriage.objects.select_related("husband", "wife").get(campaign=campaign, husband__controlled_by=house)


def _dice(prefix: str, *faces: int | str) -> dict[str, str]:
    return {f"{prefix}-d{i}": str(face) for i, face in enumerate(faces, start=1)}


def _grid(client, url: str, fields: dict[str, object], **headers: str):
    return client.post(url, {"op": "grid", "action_key": new_action_key(), **fields}, headers=headers)


def _section(html: str, element_id: str) -> str:
    start = html.index(f'id="{element_id}"')
    end = html.find("<section", start)
    return html[start : end if end != -1 else len(html)]


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def _marriages(campaign: Campaign) -> list[int]:
    return [row.marriage.pk for row in births_board(campaign).couples]


# --- Births -------------------------------------------------------------------------------------


def test_every_couple_in_one_submit_is_one_action_with_one_checkpoint(client, campaign, gm):
    client.force_login(gm)
    url = _url("births", campaign)
    couples = _marriages(campaign)
    assert len(couples) == 5
    fields: dict[str, object] = {}
    for pk in couples[:4]:
        fields.update(_dice(f"a{pk}", 1, 2))  # 3: no child
    fields[f"how-{couples[4]}"] = "server"  # the last on the server's dice
    response = _grid(client, url, fields)
    assert response.status_code == 302 and response["Location"] == url + "#step"
    made = BirthAttempt.objects.filter(campaign=campaign).select_related("roll")
    assert sorted(a.marriage_id for a in made) == sorted(couples)
    typed = [a for a in made if a.marriage_id != couples[4]]
    assert all(a.roll.faces == [1, 2] and a.roll.source == "entered" and not a.success for a in typed)
    assert made.get(marriage_id=couples[4]).roll.source == "server"
    assert Checkpoint.objects.filter(campaign=campaign).count() == 1
    assert ActionKey.objects.filter(campaign=campaign).count() == 1
    page = client.get(url)
    server = made.get(marriage_id=couples[4]).roll.faces  # the server's dice may show 1 + 2 too (1 in 36)
    assert sum("1 + 2 = 3: no child." in m for m in _messages(page)) == 4 + (server == [1, 2])
    html = page.content.decode()
    step = html[html.index('id="step"') :]
    assert '<ul class="messages">' in step  # shown inside the part the grid swaps
    assert '<ul class="messages">' not in html[: html.index('id="step"')]


def test_one_wrong_die_writes_nothing_and_keeps_what_was_typed(client, campaign, gm):
    client.force_login(gm)
    url = _url("births", campaign)
    first, second = _marriages(campaign)[:2]
    response = _grid(client, url, {**_dice(f"a{first}", 6, 6), **_dice(f"a{second}", 4, 9)})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Nothing was entered: fix the 1 couple marked below, then enter the dice again." in html
    wrong = _section(html, f"couple-{second}")
    assert f'class="card couple failed" id="couple-{second}"' in html and 'role="alert"' in wrong
    assert "Die 2: A d6 shows 1 to 6." in wrong and 'aria-invalid="true"' in wrong
    right = _section(html, f"couple-{first}")
    assert 'role="alert"' not in right and f'name="a{first}-d1" value="6"' in right  # kept for the next try
    assert not BirthAttempt.objects.filter(campaign=campaign).exists()
    assert not Roll.objects.filter(campaign=campaign, purpose="birth").exists()
    assert not Checkpoint.objects.filter(campaign=campaign).exists()


def test_an_empty_grid_says_what_to_do(client, campaign, gm):
    client.force_login(gm)
    response = _grid(client, _url("births", campaign), {})
    assert response.status_code == 400
    html = unescape(response.content.decode())
    refusal = html[html.index('id="refusal"') :]
    assert refusal.startswith('id="refusal" role="alert"')
    assert "Nothing to enter: type a couple's dice, or choose the server's dice for it." in refusal


def test_the_sex_the_characteristics_and_another_attempt_in_one_submit(client, campaign, alice):
    client.force_login(alice)
    url = _url("births", campaign)
    couple = _couple(campaign)
    pk = couple.pk
    assert _grid(client, url, _dice(f"a{pk}", 5, 6)).status_code == 302
    born = BirthAttempt.objects.get(marriage=couple)
    # The next attempt without the sex die: refused on the row.
    response = _grid(client, url, {f"state-{pk}": f"sex-{born.pk}", **_dice(f"r{pk}", 3, 3)})
    assert response.status_code == 400
    card = _section(unescape(response.content.decode()), f"couple-{pk}")
    assert "Type the child's sex die first: another attempt comes after it." in card
    # The sex (a daughter), the characteristics on the server's dice, then a second attempt: 6 + 6.
    response = _grid(client, url, {f"state-{pk}": f"sex-{born.pk}", f"x{pk}-sex": "5", **_dice(f"r{pk}", 6, 6)})
    assert response.status_code == 302
    born.refresh_from_db()
    assert born.child is not None and born.child.sex == "F"
    assert set(born.child.characteristics) - {"strength", "guile"} == {"constitution", "charisma"}  # the server's dice
    second = BirthAttempt.objects.get(marriage=couple, attempt=2)
    assert second.success and second.roll.faces == [6, 6]
    assert Checkpoint.objects.filter(campaign=campaign).count() == 1  # the step's one checkpoint
    messages = _messages(client.get(url))
    assert any(m.startswith(f"A daughter: {born.child.display_name}") for m in messages)
    assert any("attempt 2: 6 + 6 = 12: a child!" in m for m in messages)


def test_dice_typed_for_a_row_someone_rolled_since_are_not_lost_silently(client, campaign, alice, gm):
    couple = _couple(campaign)
    client.force_login(alice)
    url = _url("births", campaign)
    html = client.get(url).content.decode()
    assert f'name="state-{couple.pk}" value="attempt-1"' in html
    births_roll_all(campaign=campaign, source=RandomSource(5), by=gm)  # the GM rolls meanwhile
    rolls = Roll.objects.filter(campaign=campaign).count()
    response = _grid(client, url, {f"state-{couple.pk}": "attempt-1", **_dice(f"a{couple.pk}", 2, 2)})
    assert response.status_code == 400
    card = _section(response.content.decode(), f"couple-{couple.pk}")
    assert "someone rolled for this couple since the page was shown" in card
    assert Roll.objects.filter(campaign=campaign).count() == rolls


def test_a_player_sends_dice_for_his_own_couples_only(client, campaign, bob):
    client.force_login(bob)
    url = _url("births", campaign)
    england, france = _couple(campaign), _couple(campaign, "France")
    assert _grid(client, url, _dice(f"a{england.pk}", 6, 6)).status_code == 403
    assert _grid(client, url, {f"how-{england.pk}": "server", **_dice(f"a{france.pk}", 1, 1)}).status_code == 403
    assert not BirthAttempt.objects.filter(campaign=campaign).exists()
    assert _grid(client, url, _dice(f"a{france.pk}", 1, 1)).status_code == 302
    assert list(BirthAttempt.objects.values_list("marriage_id", flat=True)) == [france.pk]


def test_a_grid_sent_after_the_step_closed_says_so(client, campaign, gm):
    client.force_login(gm)
    births_finish(campaign=campaign, by=gm)
    response = _grid(client, _url("births", campaign), _dice(f"a{_couple(campaign).pk}", 6, 6))
    assert response.status_code == 400
    assert "Births is closed (the campaign is at Survival): nothing was entered." in response.content.decode()
    assert not BirthAttempt.objects.filter(campaign=campaign).exists()


def test_a_refusal_comes_back_as_the_step_for_htmx_to_swap(client, campaign, gm):
    """htmx posts the grid and swaps ``#step`` (also on a 400: regnal-grid.js lets it); the answer
    is the page, whose #step carries the refusal."""
    client.force_login(gm)
    url = _url("births", campaign)
    pk = _marriages(campaign)[0]
    html = client.get(url).content.decode()
    form = html[html.index('id="births-grid"') - 60 :]
    assert f'hx-post="{url}"' in form and "novalidate" in form[:200]
    assert re.search(r'id="step"[^>]*hx-target="this" hx-select="#step" hx-swap="outerHTML"', html)
    assert 'src="/static/regnal-grid.js" defer' in html
    response = _grid(client, url, _dice(f"a{pk}", 0, 1), HX_REQUEST="true")
    assert response.status_code == 400
    answer = response.content.decode()
    step = answer[answer.index('id="step"') :]
    assert 'role="alert"' in step and "Die 1: A d6 shows 1 to 6." in step


# --- naming the child --------------------------------------------------------------------------


def _newborn(campaign: Campaign, gm) -> Character:
    couple = _couple(campaign)
    from dynasties.services.births import births_attempt, births_sex

    made = births_attempt(campaign=campaign, marriage=couple.pk, faces=[6, 6], by=gm)
    return births_sex(campaign=campaign, attempt=made.pk, faces=[1], by=gm)


def test_the_child_gets_the_usual_name_then_may_be_renamed_by_its_house(campaign, gm, alice, bob):
    child = _newborn(campaign, gm)
    assert child.given_name  # the usual name of the house, for a son
    with pytest.raises(Forbidden):
        character_rename(campaign=campaign, character=child.pk, given_name="Louis", by=bob)
    with pytest.raises(RuleError, match="cannot be blank"):
        character_rename(campaign=campaign, character=child.pk, given_name="   ", by=alice)
    with pytest.raises(RuleError, match="at most 60"):
        character_rename(campaign=campaign, character=child.pk, given_name="x" * 61, by=alice)
    renamed = character_rename(campaign=campaign, character=child.pk, given_name="  Edmund   Crouchback ", by=alice)
    assert renamed.given_name == "Edmund Crouchback"
    line = ChronicleEntry.objects.get(campaign=campaign, kind="birth", data__character=child.pk)
    assert "Edmund Crouchback Plantagenet" in line.text
    king = _couple(campaign).husband
    with pytest.raises(RuleError, match="Only a child born this turn"):
        character_rename(campaign=campaign, character=king.pk, given_name="Edgar", by=gm)


def test_a_name_too_long_is_refused_on_the_row(client, campaign, gm, alice):
    child = _newborn(campaign, gm)
    client.force_login(alice)
    response = _grid(client, _url("births", campaign), {f"n{child.pk}-given_name": "x" * 61})
    assert response.status_code == 400
    card = _section(response.content.decode(), f"couple-{_couple(campaign).pk}")
    assert "A name has at most 60 letters." in card
    child.refresh_from_db()
    assert child.given_name != "x" * 61


# --- Survival -----------------------------------------------------------------------------------


def _to_survival(campaign: Campaign, gm) -> None:
    births_finish(campaign=campaign, by=gm)
    campaign.refresh_from_db()
    assert campaign.step == Step.SURVIVAL


def test_survival_typed_and_server_rows_are_one_roll_in_one_action(client, campaign, gm):
    _to_survival(campaign, gm)
    client.force_login(gm)
    url = _url("survival", campaign)
    rows = [r.character.pk for r in survival_board(campaign).to_roll]
    assert len(rows) >= 10
    typed, server, skipped = rows[:-3], rows[-3:-1], rows[-1]
    fields: dict[str, object] = {"rows": rows}
    for pk in typed:
        fields.update(_dice(f"s{pk}", 6, 6))
    for pk in server:
        fields[f"how-{pk}"] = "server"
    response = _grid(client, url, fields)
    assert response.status_code == 302 and response["Location"] == url + "#step"
    rolls = Roll.objects.filter(campaign=campaign, purpose="survival")
    by_character = {r.subjects.get().character_id: r for r in rolls}
    assert set(by_character) == set(typed) | set(server)
    assert all(by_character[pk].source == "entered" and by_character[pk].faces == [6, 6] for pk in typed)
    assert all(by_character[pk].source == "server" for pk in server)
    assert Checkpoint.objects.filter(campaign=campaign).count() == 1
    html = client.get(url).content.decode()
    row = html[html.index(f'id="character-{typed[0]}"') :]
    assert "6 + 6" in row[: row.index("</tr>")] and "(typed)" in row[: row.index("</tr>")]
    last = html[html.index(f'id="character-{skipped}"') :]
    assert f'name="s{skipped}-d1"' in last[: last.index("</tr>")]  # the row left empty is still to roll


def test_survival_grid_wrong_die_is_marked_and_nothing_rolls(client, campaign, gm):
    _to_survival(campaign, gm)
    client.force_login(gm)
    url = _url("survival", campaign)
    first, second = [r.character.pk for r in survival_board(campaign).to_roll][:2]
    response = _grid(client, url, {"rows": [first, second], **_dice(f"s{first}", 3, 3), **_dice(f"s{second}", 7, 1)})
    assert response.status_code == 400
    html = response.content.decode()
    row = html[html.index(f'id="character-{second}"') :]
    row = row[: row.index("</tr>")]
    assert row.startswith(f'id="character-{second}" class=" failed"')
    assert "Die 1: A d6 shows 1 to 6." in row and 'role="alert"' in row
    assert "Nothing was entered: fix the 1 character marked below" in html
    assert not Roll.objects.filter(campaign=campaign, purpose="survival").exists()


def test_a_player_sees_his_own_characters_first(client, campaign, gm, alice):
    _to_survival(campaign, gm)
    client.force_login(alice)
    html = client.get(_url("survival", campaign)).content.decode()
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    order = [int(pk) for pk in re.findall(r'<tr id="character-(\d+)"', html)]
    mine = set(Character.objects.filter(campaign=campaign, controlled_by=england).values_list("pk", flat=True))
    flags = [pk in mine for pk in order]
    assert flags[0] and flags == sorted(flags, reverse=True)  # his own, then the others
    survival_roll(campaign=campaign, by=gm)
    html = client.get(_url("survival", campaign)).content.decode()
    assert 'name="op" value="grid"' not in html  # everyone rolled: no grid, the results
