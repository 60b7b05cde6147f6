"""Issue 8: the Dynastic Sequence through the API - the turn, Births with typed dice, Survival and
the succession decisions, the line and "what if", Marriages, the Announcements and undo.

Alice plays England, Bob France; the GM runs the campaign; the observer only reads."""

from __future__ import annotations

import pytest

from campaign.models import ActionKey, Checkpoint, ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import BirthAttempt, Character, Dynasty, Marriage, PassedOver, Posting, Reign, Status
from dynasties.services import births_finish, marriage_arrange, survival_roll
from dynasties.services.sequence_view import survival_board
from dynasties.services.succession_choices import pass_over_choices
from tests.api.conftest import assert_error, url
from tests.factories import at_step, person

pytestmark = pytest.mark.django_db


def house(campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def couple(campaign, crown: str = "England") -> Marriage:
    return Marriage.objects.select_related("husband", "wife").get(
        campaign=campaign, husband__controlled_by=house(campaign, crown)
    )


def written(campaign) -> tuple[int, ...]:
    """Everything an action could have written."""
    return (
        Roll.objects.filter(campaign=campaign).count(),
        BirthAttempt.objects.filter(campaign=campaign).count(),
        Character.objects.filter(campaign=campaign).count(),
        Marriage.objects.filter(campaign=campaign).count(),
        ChronicleEntry.objects.filter(campaign=campaign).count(),
        Posting.objects.filter(campaign=campaign).count(),
        Checkpoint.objects.filter(campaign=campaign).count(),
        ActionKey.objects.filter(campaign=campaign).count(),
    )


def step_of(campaign) -> str:
    campaign.refresh_from_db()
    return campaign.step


@pytest.fixture
def england_heirs(campaign):
    """England: King Edward (25, Constitution 0), his sons John (5, a prisoner of France) and Henry (3)."""
    match = couple(campaign)
    john = Character.objects.get(campaign=campaign, father=match.husband)
    john.prisoner_of = house(campaign, "France")
    john.save(update_fields=["prisoner_of"])
    henry = person(
        campaign,
        house(campaign, "England"),
        "Henry",
        "M",
        1297,
        father=match.husband,
        mother=match.wife,
        dynastic_name="Plantagenet",
    )
    return match.husband, john, henry


# --- the turn ------------------------------------------------------------------------------------


def test_the_turn_says_where_it_stands_and_shows_the_gm_his_undo_plan(campaign, gm, alice, observer, outsider, client_for):
    body = client_for(alice).get(url(campaign, "turn")).json()
    assert (body["year"], body["turn_number"], body["step"]) == (1300, 1, "births")
    assert body["to_roll"] == 5 and "birth rolls" in body["waits"]
    assert [s["state"] for s in body["steps"]] == ["current", "todo", "todo", "todo", "todo"]
    assert body["undo"] is None  # the GM's only
    assert client_for(observer).get(url(campaign, "turn")).json()["undo"] is None
    gm_client = client_for(gm)
    assert gm_client.get(url(campaign, "turn")).json()["undo"] == {"step": None, "turn": None, "redo": None}
    gm_client.post(url(campaign, "births/attempts"), {"marriage": couple(campaign).pk, "faces": [1, 1]})
    offer = gm_client.get(url(campaign, "turn")).json()["undo"]["step"]  # where it goes back to (issue 36: no losses)
    assert offer["description"] == "the start of Births 1300" and offer["step"] == "births" and "lost_rolls" not in offer
    # what it would throw away: the undo preview, counted when asked for (the GM's)
    plans = gm_client.get(url(campaign, "undo")).json()
    plan = plans["step"]
    assert plan["description"] == "the start of Births 1300" and plan["lost_rolls"] == 1
    assert plan["losses"] == {"characters": 0, "deaths": 0, "successions": 0, "weddings": 0}  # a failed attempt
    assert plan["summary"] == "1 roll, 0 chronicle lines, 0 postings"
    assert plans["turn"]["summary"] == plan["summary"] and plans["redo"] is None
    for other in (alice, observer):
        assert_error(client_for(other).get(url(campaign, "undo")), 403, "permission_denied")
    assert_error(client_for(outsider).get(url(campaign, "turn")), 404, "not_found")
    assert_error(client_for(outsider).get(url(campaign, "undo")), 404, "not_found")


# --- Births --------------------------------------------------------------------------------------


def test_the_births_board_shows_each_couples_odds_and_who_may_roll(campaign, alice, observer, client_for):
    body = client_for(alice).get(url(campaign, "births")).json()
    assert body["open"] and body["dice"] == {"birth": "2d6", "sex": "1d6", "characteristic": "3d6"}
    assert body["child_on"] == "7 or more on 2d6" and body["waiting"] == 5
    rows = {row["marriage"]["id"]: row for row in body["couples"]}
    england, france = rows[couple(campaign).pk], rows[couple(campaign, "France").pk]
    assert england["odds"]["text"] == "21 in 36 (7/12, 58.3%)" and england["odds"]["fraction"] == "7/12"
    assert england["may_act"] and england["may_attempt"] and not france["may_act"]
    assert england["attempts"] == [] and england["wife_survival"] is None
    assert not any(row["may_act"] for row in client_for(observer).get(url(campaign, "births")).json()["couples"])


def test_typed_dice_give_a_child_then_its_sex_and_characteristics(campaign, alice, bob, client_for):
    client = client_for(alice)
    match = couple(campaign)
    response = client.post(url(campaign, "births/attempts"), {"marriage": match.pk, "faces": [3, 4]})
    assert response.status_code == 201, response.content
    body = response.json()
    attempt = body["attempt"]
    assert attempt["success"] and attempt["waiting_for_sex"] and attempt["attempt"] == 1 and attempt["child"] is None
    [roll] = body["rolls"]
    assert (roll["faces"], roll["total"], roll["outcome"], roll["source"]) == ([3, 4], 7, "child", "entered")
    assert roll["entered_by"] == "alice" and attempt["roll"]["id"] == roll["id"]
    assert {c["id"] for c in roll["characters"]} == {match.husband_id, match.wife_id}
    # Bob may not roll the sex of England's child.
    sex = url(campaign, f"births/attempts/{attempt['id']}/sex")
    assert_error(client_for(bob).post(sex, {"faces": [2]}), 403, "permission_denied")
    response = client.post(sex, {"faces": [2], "characteristic_faces": [[6, 6, 6], [1, 1, 1], [4, 4, 4]], "given_name": "Arthur"})
    assert response.status_code == 201, response.content
    body = response.json()
    child = body["child"]
    assert (child["given_name"], child["sex"], child["father"]["id"], child["mother"]["id"]) == (
        "Arthur",
        "M",
        match.husband_id,
        match.wife_id,
    )
    assert child["characteristics"] == Character.objects.get(pk=child["id"]).characteristics
    assert [r["purpose"] for r in body["rolls"]] == ["sex", "characteristic", "characteristic", "characteristic"]
    assert body["rolls"][0]["outcome"] == "boy" and body["rolls"][1]["faces"] == [6, 6, 6]
    assert body["attempt"]["child"]["id"] == child["id"] and not body["attempt"]["waiting_for_sex"]
    assert any(line["kind"] == "birth" and "Arthur" in line["text"] for line in body["chronicle"])
    # The board now shows the attempt and the price of trying again.
    row = next(r for r in client.get(url(campaign, "births")).json()["couples"] if r["marriage"]["id"] == match.pk)
    assert row["attempts"][0]["child"]["id"] == child["id"] and "Constitution" in row["next_cost"]


def test_server_dice_when_no_faces_are_typed(campaign, gm, client_for):
    response = client_for(gm).post(url(campaign, "births/attempts"), {"marriage": couple(campaign, "France").pk})
    assert response.status_code == 201
    [roll] = response.json()["rolls"]
    assert roll["source"] == "server" and roll["entered_by"] is None and len(roll["faces"]) == 2


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"faces": [7, 1]}, "faces"),
        ({"faces": [3]}, "faces"),
        ({"faces": [0, 3]}, "faces"),
    ],
)
def test_bad_typed_dice_are_400_naming_the_field_and_write_nothing(campaign, alice, client_for, data, field):
    before = written(campaign)
    body = assert_error(client_for(alice).post(url(campaign, "births/attempts"), {"marriage": couple(campaign).pk, **data}), 400)
    assert body["code"] == "invalid_dice" and set(body["fields"]) == {field}
    assert "2d6" in body["fields"][field]
    assert written(campaign) == before


def test_bad_input_is_400_with_fields(campaign, alice, client_for):
    client = client_for(alice)
    before = written(campaign)
    body = assert_error(client.post(url(campaign, "births/attempts"), {"marriage": "x", "faces": "six"}), 400, "invalid")
    assert set(body["fields"]) == {"marriage", "faces"}
    assert_error(client.post(url(campaign, "births/attempts"), {}), 400, "invalid")
    made = client.post(url(campaign, "births/attempts"), {"marriage": couple(campaign).pk, "faces": [4, 4]}).json()
    sex = url(campaign, f"births/attempts/{made['attempt']['id']}/sex")
    before = written(campaign)
    body = assert_error(client.post(sex, {"faces": [2], "characteristic_faces": [[6, 6, 6], [1, 1, 1]]}), 400, "invalid_dice")
    assert set(body["fields"]) == {"characteristic_faces"}
    body = assert_error(client.post(sex, {"faces": [2], "characteristic_faces": [[6, 6, 6], [1, 9, 1], [4, 4, 4]]}), 400)
    assert body["code"] == "invalid_dice" and set(body["fields"]) == {"characteristic_faces.1"}
    body = assert_error(client.post(sex, {"faces": [7]}), 400, "invalid_dice")
    assert set(body["fields"]) == {"faces"}
    assert written(campaign) == before


def test_who_may_roll_births(campaign, gm, alice, bob, observer, outsider, client_for):
    england = couple(campaign)
    before = written(campaign)
    assert_error(client_for(bob).post(url(campaign, "births/attempts"), {"marriage": england.pk}), 403, "permission_denied")
    assert_error(client_for(observer).post(url(campaign, "births/attempts"), {"marriage": england.pk}), 403)
    assert_error(client_for(outsider).post(url(campaign, "births/attempts"), {"marriage": england.pk}), 404, "not_found")
    assert_error(client_for(alice).post(url(campaign, "births/attempts"), {"marriage": 999999}), 404, "not_found")
    assert_error(client_for(alice).post(url(campaign, "births/attempts/999999/sex"), {}), 404, "not_found")
    for action in ("births/roll-all", "births/finish"):
        assert_error(client_for(alice).post(url(campaign, action)), 403, "permission_denied")
    assert written(campaign) == before
    assert step_of(campaign) == Step.BIRTHS


def test_a_failed_attempt_has_no_sex_to_roll(campaign, alice, client_for):
    client = client_for(alice)
    made = client.post(url(campaign, "births/attempts"), {"marriage": couple(campaign).pk, "faces": [1, 2]}).json()
    assert not made["attempt"]["success"] and made["rolls"][0]["outcome"] == "no child"
    body = assert_error(client.post(url(campaign, f"births/attempts/{made['attempt']['id']}/sex"), {}), 400)
    assert body["code"] == "no_child"


def test_the_gm_rolls_the_rest_and_finishes_births(campaign, gm, client_for):
    client = client_for(gm)
    body = client.post(url(campaign, "births/roll-all")).json()
    assert len(body["attempts"]) == 5 and all(a["roll"] for a in body["attempts"])
    born = [a for a in body["attempts"] if a["success"]]
    assert {c["id"] for c in body["children"]} == {a["child"]["id"] for a in born}
    assert len(body["rolls"]) == 5 + 4 * len(born)  # a birth roll each; sex and three characteristics a child
    body = client.post(url(campaign, "births/finish")).json()
    assert body["turn"]["step"] == "survival" and step_of(campaign) == Step.SURVIVAL


def test_a_step_out_of_order_is_409(campaign, gm, alice, client_for):
    before = written(campaign)
    body = assert_error(client_for(alice).post(url(campaign, "survival/rolls"), {}), 409, "step_order")
    assert "not open yet" in body["message"]
    assert written(campaign) == before
    client_for(gm).post(url(campaign, "births/finish"))
    assert_error(client_for(alice).post(url(campaign, "births/attempts"), {"marriage": couple(campaign).pk}), 409, "step_order")
    assert_error(client_for(gm).post(url(campaign, "births/finish")), 409, "step_order")


def test_the_same_idempotency_key_twice_is_409_and_rolls_once(campaign, alice, client_for):
    client = client_for(alice)
    data = {"marriage": couple(campaign).pk, "faces": [1, 1]}
    assert client.post(url(campaign, "births/attempts"), data, HTTP_IDEMPOTENCY_KEY="roll-1").status_code == 201
    before = written(campaign)
    assert_error(client.post(url(campaign, "births/attempts"), data, HTTP_IDEMPOTENCY_KEY="roll-1"), 409, "already_done")
    assert written(campaign) == before
    assert BirthAttempt.objects.filter(campaign=campaign).count() == 1


# --- Survival and the succession -------------------------------------------------------------------


def test_the_survival_board_shows_the_number_needed_and_the_odds(campaign, alice, client_for):
    edward = couple(campaign).husband
    Character.objects.filter(pk=edward.pk).update(characteristics={"strength": 0, "constitution": -1, "charisma": 0})
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    body = client_for(alice).get(url(campaign, "survival")).json()
    assert body["open"] and body["dice"] == "2d6" and body["to_roll"] == len(body["rows"])
    row = next(r for r in body["rows"] if r["character"]["id"] == edward.pk)
    assert (row["age"], row["need"], row["modifier"]) == (25, 4, -1)
    assert row["odds"]["text"] == "30 in 36 (5/6, 83.3%)" and row["must_show"] == "5 or more on 2d6"
    assert row["may_act"] and not row["rolled"] and row["roll"] is None
    france = couple(campaign, "France").husband
    assert not next(r for r in body["rows"] if r["character"]["id"] == france.pk)["may_act"]


def test_a_typed_death_a_pass_over_and_the_finish_make_a_new_reign(campaign, gm, alice, bob, observer, client_for, england_heirs):
    edward, john, henry = england_heirs
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    # Alice types her King's dice: 1 + 1 + 0 < 4, he dies.
    response = client_for(alice).post(url(campaign, "survival/rolls"), {"characters": [edward.pk], "faces": {edward.pk: [1, 1]}})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["results"] == [
        {
            "character": {"id": edward.pk, "url": body["results"][0]["character"]["url"], "name": "Edward Plantagenet"},
            "faces": [1, 1],
            "modifier": 0,
            "need": 4,
            "survived": False,
        }
    ]
    assert body["rolls"][0]["outcome"] == "died" and body["successions_due"] == ["England"]
    assert any(line["kind"] == "death" for line in body["chronicle"])
    # The line at his death: John may be passed over (a prisoner of another player), at a cost.
    board = client_for(observer).get(url(campaign, "survival")).json()
    [due] = board["successions"]
    assert due["crown"] == "England" and not due["may_choose"] and due["chosen"] is None
    entries = {e["character"]["id"]: e for e in due["line"]["entries"]}
    assert entries[john.pk]["pass_over"]["allowed"] and "prisoner" in entries[john.pk]["pass_over"]["text"]
    assert any("Charisma" in cost for cost in entries[john.pk]["pass_over"]["costs"])
    assert not entries[henry.pk]["pass_over"]["allowed"]
    # The crown's player chooses; Bob may not, and Henry may not be passed over.
    pass_over = url(campaign, "succession/England/pass-over")
    assert_error(client_for(bob).post(pass_over, {"heirs": [john.pk]}), 403, "permission_denied")
    assert_error(client_for(observer).post(pass_over, {"heirs": [john.pk]}), 403, "permission_denied")
    body = assert_error(client_for(alice).post(pass_over, {"heirs": [henry.pk]}), 400, "illegal_pass_over")
    assert "heirs" in body["fields"] and pass_over_choices(campaign) == {}
    assert_error(client_for(alice).post(url(campaign, "succession/Narnia/pass-over"), {"heirs": []}), 404, "not_found")
    chosen = client_for(alice).post(pass_over, {"heirs": [john.pk]}).json()
    assert [c["id"] for c in chosen["passed_over"]] == [john.pk]
    assert pass_over_choices(campaign) == {"England": [john.pk]}
    # The GM rolls everyone else on typed sixes, then finishes: Alice's choice applies.
    others = [r.character.pk for r in survival_board(campaign).to_roll]
    body = client_for(gm).post(url(campaign, "survival/rolls"), {"faces": {pk: [6, 6] for pk in others}}).json()
    assert len(body["results"]) == len(others) and all(r["survived"] for r in body["results"])
    assert_error(client_for(alice).post(url(campaign, "survival/finish"), {}), 403, "permission_denied")
    # The Charisma roll (3: -1), then a baron regent's three characteristics (the widow may not rule).
    response = client_for(gm).post(url(campaign, "survival/finish"), {"entered": [[3], [6, 6, 6], [1, 2, 3], [4, 4, 4]]})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["turn"]["step"] == "marriages" and body["pass_over"] == {"England": [john.pk]}
    [reign] = [r for r in body["reigns"] if r["crown"] == "England"]
    assert reign["holder"]["id"] == henry.pk and reign["start_year"] == 1300
    assert [p["character"]["id"] for p in reign["passed_over"]] == [john.pk]
    regent = Character.objects.get(pk=reign["regent"]["id"])
    assert regent.origin == "baron" and regent.characteristics == {"strength": 2, "constitution": -1, "charisma": 0}
    charisma = next(r for r in body["rolls"] if r["purpose"] == "charisma_loss")
    assert charisma["faces"] == [3] and charisma["source"] == "entered"
    assert any("Henry I Plantagenet succeeds Edward I Plantagenet" in line["text"] for line in body["chronicle"])
    assert Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder_id == henry.pk
    assert PassedOver.objects.filter(character=john).exists() and pass_over_choices(campaign) == {}


def test_survival_refusals(campaign, gm, alice, bob, client_for, england_heirs):
    edward, john, _henry = england_heirs
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    rolls = url(campaign, "survival/rolls")
    before = written(campaign)
    france = couple(campaign, "France").husband
    assert_error(client_for(alice).post(rolls, {"characters": [france.pk]}), 403, "permission_denied")
    assert_error(client_for(alice).post(rolls, {"characters": [999999]}), 404, "not_found")
    body = assert_error(client_for(alice).post(rolls, {"characters": [edward.pk], "faces": {edward.pk: [1, 9]}}), 400)
    assert body["code"] == "invalid_dice" and set(body["fields"]) == {f"faces.{edward.pk}"}
    body = assert_error(client_for(alice).post(rolls, {"characters": [edward.pk], "faces": {"king": [1, 1]}}), 400, "invalid")
    assert set(body["fields"]) == {"faces.king"}
    body = assert_error(client_for(alice).post(rolls, {"characters": [edward.pk], "faces": {john.pk: [1, 1]}}), 400, "not_due")
    assert set(body["fields"]) == {f"faces.{john.pk}"}
    body = assert_error(client_for(alice).post(rolls, {"characters": [john.pk]}), 400, "not_due")  # 5 years old
    assert "no survival rolls before 15" in body["message"]
    assert written(campaign) == before
    body = assert_error(client_for(gm).post(url(campaign, "survival/finish"), {}), 400, "survival_pending")
    # Without 'characters' a player rolls his own dynasty's characters only.
    body = client_for(alice).post(rolls, {}).json()
    england = house(campaign, "England").pk
    assert body["results"] and all(
        Character.objects.get(pk=r["character"]["id"]).controlled_by_id == england for r in body["results"]
    )
    assert_error(client_for(alice).post(rolls, {"characters": [edward.pk]}), 400, "not_due")  # rolled already
    due = [r.character.pk for r in survival_board(campaign).to_roll]
    survival_roll(campaign=campaign, characters=due, faces={pk: [6, 6] for pk in due}, by=SYSTEM_ACTOR)
    body = assert_error(client_for(gm).post(url(campaign, "survival/finish"), {"entered": [[9]]}), 400)
    assert set(body["fields"]) == {"entered"}
    body = assert_error(client_for(gm).post(url(campaign, "survival/finish"), {"pass_over": {"Narnia": [john.pk]}}), 400)
    assert body["code"] == "no_succession"
    assert step_of(campaign) == Step.SURVIVAL


def test_the_line_and_what_if_for_any_member(campaign, observer, outsider, client_for, england_heirs):
    edward, john, henry = england_heirs
    client = client_for(observer)
    line = client.get(url(campaign, "succession/England")).json()
    assert line["monarch"]["id"] == edward.pk and line["player"] == house(campaign, "England").pk
    assert [e["character"]["id"] for e in line["entries"][:2]] == [john.pk, henry.pk]
    assert line["entries"][0]["kin"] and line["entries"][0]["reason"] and line["entries"][0]["minor"]
    assert line["entries"][0]["pass_over"]["allowed"]
    assert len(client.get(url(campaign, "succession/England"), {"limit": 1}).json()["entries"]) == 1
    what_if = client.get(url(campaign, "succession/England/what-if"), {"dies": [edward.pk, john.pk]}).json()
    assert what_if["monarch_dies"] and what_if["dead"] == [edward.pk, john.pk]
    assert what_if["successor"]["character"]["id"] == henry.pk
    assert any("Henry Plantagenet would succeed" in note for note in what_if["notes"])
    assert Character.objects.get(pk=edward.pk).status == Status.ALIVE  # nothing written
    body = assert_error(client.get(url(campaign, "succession/England/what-if"), {"dies": "abc"}), 400, "invalid")
    assert set(body["fields"]) == {"dies.0"}
    assert_error(client.get(url(campaign, "succession/England/what-if"), {"dies": 999999}), 404, "not_found")
    assert_error(client.get(url(campaign, "succession/England"), {"limit": 0}), 400, "invalid")
    assert_error(client.get(url(campaign, "succession/Narnia")), 404, "not_found")
    assert_error(client_for(outsider).get(url(campaign, "succession/England")), 404, "not_found")


# --- Marriages and the Announcements -----------------------------------------------------------------


@pytest.fixture
def table(campaign):
    """At the Marriages step of 1300: England's Edmund (20), France's Isabelle (17, Charisma +1),
    Germany's Konrad (22), France's little Jeanne (10)."""
    at_step(campaign, Step.MARRIAGES)
    england, france, germany = house(campaign, "England"), house(campaign, "France"), house(campaign, "Germany")
    return {
        "england": england,
        "france": france,
        "germany": germany,
        "edmund": person(campaign, england, "Edmund", "M", 1280),
        "isabelle": person(campaign, france, "Isabelle", "F", 1283, charisma=1),
        "konrad": person(campaign, germany, "Konrad", "M", 1278),
        "jeanne": person(campaign, france, "Jeanne", "F", 1290),
    }


def test_check_explains_and_shows_the_money_only_to_whom_it_may_concern(campaign, gm, alice, bob, client_for, table):
    pair = {"husband": table["edmund"].pk, "wife": table["isabelle"].pk, "wed": True}
    before = written(campaign)
    body = client_for(alice).post(url(campaign, "marriages/check"), pair).json()
    assert body["ok"] and body["problems"] == [] and body["wedding_open"]
    [money] = body["wedding_money"]
    assert (money["payer"], money["payee"], money["amount"], money["currency"]) == (None, table["england"].pk, 30, "Crowns")
    assert client_for(bob).post(url(campaign, "marriages/check"), pair).json()["wedding_money"] == []  # England's money
    assert client_for(gm).post(url(campaign, "marriages/check"), pair).json()["wedding_money"] == [money]
    body = client_for(alice).post(url(campaign, "marriages/check"), {**pair, "wife": table["jeanne"].pk}).json()
    assert not body["ok"] and "wife" in body["fields"] and "The wife is 10" in body["fields"]["wife"]
    assert written(campaign) == before


def test_arrange_then_wed_shows_the_money_to_the_right_caller(campaign, gm, alice, bob, client_for, table):
    response = client_for(alice).post(
        url(campaign, "marriages/arrange"), {"husband": table["edmund"].pk, "wife": table["isabelle"].pk}
    )
    assert response.status_code == 201, response.content
    body = response.json()
    match = Marriage.objects.get(pk=body["marriage"]["id"])
    assert body["marriage"]["state"] == "betrothed" and body["postings"] == [] and body["problems_to_wed"] == []
    assert [m["amount"] for m in body["wedding_money"]] == [30]  # Alice's house would be paid: she sees it
    assert any(line["kind"] == "betrothal" for line in body["chronicle"])
    # Bob (the bride's side) weds them: the wedding is public, England's money is not his to see.
    body = client_for(bob).post(url(campaign, f"marriages/{match.pk}/wed")).json()
    assert body["marriage"]["state"] == "wed" and body["marriage"]["wedding_year"] == 1300
    assert body["postings"] == [] and body["wedding_money"] == []
    posting = Posting.objects.get(marriage=match)
    assert (posting.payer_id, posting.payee_id, posting.amount) == (None, table["england"].pk, 30)
    # Alice, whose house was paid, sees it in her ledger; the GM weds another couple and sees its money at once.
    ledger = client_for(alice).get(url(campaign, "ledger"), {"kind": "wedding"}).json()["results"]
    assert [p["id"] for p in ledger] == [posting.pk]
    other = person(campaign, table["france"], "Agnes", "F", 1284, charisma=2)
    body = (
        client_for(gm)
        .post(url(campaign, "marriages/arrange"), {"husband": table["konrad"].pk, "wife": other.pk, "wed": True})
        .json()
    )
    assert [(p["payee"], p["amount"]) for p in body["postings"]] == [(table["germany"].pk, 60)]


def test_marriage_refusals(campaign, gm, alice, bob, observer, client_for, table):
    before = written(campaign)
    arrange = url(campaign, "marriages/arrange")
    body = assert_error(
        client_for(alice).post(arrange, {"husband": table["edmund"].pk, "wife": table["jeanne"].pk, "wed": True}), 400
    )
    assert body["code"] == "illegal_marriage" and "The wife is 10" in body["fields"]["wife"]
    sister = person(campaign, table["england"], "Maud", "F", 1282)
    body = assert_error(client_for(alice).post(arrange, {"husband": table["edmund"].pk, "wife": sister.pk}), 400)
    assert "non_field" in body["fields"] and "dynastic name" in body["message"]
    before = written(campaign)
    konrad_isabelle = {"husband": table["konrad"].pk, "wife": table["isabelle"].pk}
    assert_error(client_for(alice).post(arrange, konrad_isabelle), 403, "permission_denied")  # neither is hers
    assert_error(client_for(alice).post(url(campaign, "marriages/check"), konrad_isabelle), 403, "permission_denied")
    assert_error(client_for(observer).post(arrange, konrad_isabelle), 403, "permission_denied")
    assert_error(client_for(alice).post(arrange, {"husband": 999999, "wife": table["isabelle"].pk}), 404, "not_found")
    assert_error(client_for(alice).post(arrange, {"husband": table["edmund"].pk}), 400, "invalid")
    assert_error(client_for(alice).post(url(campaign, "marriages/finish")), 403, "permission_denied")
    assert_error(client_for(alice).post(url(campaign, "marriages/999999/wed")), 404, "not_found")
    assert written(campaign) == before
    theirs = marriage_arrange(campaign=campaign, husband=table["konrad"], wife=table["isabelle"], by=SYSTEM_ACTOR)
    assert_error(client_for(alice).post(url(campaign, f"marriages/{theirs.pk}/wed")), 403, "permission_denied")
    body = assert_error(client_for(bob).post(url(campaign, f"marriages/{theirs.pk}/cancel"), {"reason": "  "}), 400, "invalid")
    assert set(body["fields"]) == {"reason"}
    body = client_for(bob).post(url(campaign, f"marriages/{theirs.pk}/cancel"), {"reason": "A better match"}).json()
    assert body["marriage"]["state"] == "ended" and "A better match" in body["marriage"]["end_cause"]
    # Weddings are held in the Marriages step: at Survival, wed now is a step out of order.
    at_step(campaign, Step.SURVIVAL)
    data = {"husband": table["edmund"].pk, "wife": table["isabelle"].pk, "wed": True}
    assert_error(client_for(alice).post(arrange, data), 409, "step_order")


def test_finish_publish_and_advance_are_the_gms_and_the_announcements_are_per_viewer(
    campaign, gm, alice, bob, observer, client_for, table
):
    marriage_arrange(
        campaign=campaign, husband=table["edmund"], wife=table["isabelle"], wed=True, by=SYSTEM_ACTOR
    )  # England is paid
    for action in ("marriages/finish", "announcements/publish", "turn/advance"):
        assert_error(client_for(alice).post(url(campaign, action)), 403, "permission_denied")
    assert_error(client_for(gm).post(url(campaign, "announcements/publish")), 409, "step_order")
    body = client_for(gm).post(url(campaign, "marriages/finish")).json()
    assert body["turn"]["step"] == "announcements"
    body = client_for(gm).post(url(campaign, "announcements/publish")).json()
    assert body["turn"]["step"] == "interphase" and body["announcements"]["published"]
    titles = [s["title"] for s in body["announcements"]["sections"]]
    assert "Marriages" in titles
    wedding = "Edmund Plantagenet (20) weds Isabelle"
    for user, private in ((gm, True), (alice, True), (bob, False), (observer, False)):
        body = client_for(user).get(url(campaign, "announcements")).json()
        assert body["year"] == 1300 and body["published"]
        assert any(wedding in line for s in body["sections"] for line in s["lines"]), user
        assert any("30 Crowns" in line["text"] for line in body["lines"]) is private, user
    assert_error(client_for(alice).get(url(campaign, "announcements"), {"year": 1200}), 404, "not_found")
    assert_error(client_for(alice).get(url(campaign, "announcements"), {"year": "soon"}), 400, "invalid")
    assert_error(client_for(gm).post(url(campaign, "turn/advance"), {"to_year": 1302}), 400, "invalid_year")
    body = client_for(gm).post(url(campaign, "turn/advance"), {}).json()
    assert (body["turn"]["year"], body["turn"]["step"]) == (1305, "births")
    assert client_for(bob).get(url(campaign, "announcements"), {"year": 1300}).json()["published"]


# --- undo and the observer -----------------------------------------------------------------------


def test_the_gm_undoes_the_step_once_per_key(campaign, gm, alice, client_for):
    client_for(alice).post(url(campaign, "births/attempts"), {"marriage": couple(campaign).pk, "faces": [5, 5]})
    assert BirthAttempt.objects.filter(campaign=campaign).exists()
    assert_error(client_for(alice).post(url(campaign, "undo"), {"which": "step"}), 403, "permission_denied")
    assert_error(client_for(gm).post(url(campaign, "undo"), {"which": "sideways"}), 400, "invalid")
    response = client_for(gm).post(url(campaign, "undo"), {"which": "step"}, HTTP_IDEMPOTENCY_KEY="undo-1")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["restored"]["step"] == "births" and body["restored"]["year"] == 1300
    assert body["turn"]["undo"]["step"] is None and body["turn"]["undo"]["turn"] is None
    assert body["turn"]["undo"]["redo"]["description"] == "the start of Births 1300"  # the undo is kept for redo
    assert not BirthAttempt.objects.filter(campaign=campaign).exists()
    assert_error(
        client_for(gm).post(url(campaign, "undo"), {"which": "step"}, HTTP_IDEMPOTENCY_KEY="undo-1"), 409, "already_done"
    )
    assert_error(client_for(gm).post(url(campaign, "undo"), {"which": "turn"}), 409, "nothing_to_undo")


def test_undo_the_turn_from_survival(campaign, gm, client_for):
    client = client_for(gm)
    before = written(campaign)
    client.post(url(campaign, "births/roll-all"))
    client.post(url(campaign, "births/finish"))
    client.post(url(campaign, "survival/rolls"), {})
    assert client.post(url(campaign, "undo"), {"which": "turn"}).json()["turn"]["step"] == "births"
    assert written(campaign)[:6] == before[:6] and step_of(campaign) == Step.BIRTHS  # the checkpoints and keys stay


def test_the_observer_can_do_nothing(campaign, observer, client_for, england_heirs):
    edward = england_heirs[0]
    match = couple(campaign)
    client = client_for(observer)
    attempt = BirthAttempt.objects.create(campaign=campaign, marriage=match, year=1300, attempt=1, success=True)
    before = written(campaign)
    actions = {
        "births/attempts": {"marriage": match.pk},
        f"births/attempts/{attempt.pk}/sex": {},
        "births/roll-all": {},
        "births/finish": {},
        "survival/rolls": {"characters": [edward.pk]},
        "survival/finish": {},
        "succession/England/pass-over": {"heirs": []},
        "marriages/check": {"husband": edward.pk, "wife": match.wife_id},
        "marriages/arrange": {"husband": edward.pk, "wife": match.wife_id},
        f"marriages/{match.pk}/wed": {},
        f"marriages/{match.pk}/cancel": {"reason": "Spite"},
        "marriages/finish": {},
        "announcements/publish": {},
        "turn/advance": {},
        "undo": {"which": "step"},
        "redo": {},
    }
    for action, data in actions.items():
        assert_error(client.post(url(campaign, action), data), 403, "permission_denied")
    assert written(campaign) == before
    for read in ("turn", "births", "survival", "succession/England", "announcements"):
        assert client.get(url(campaign, read)).status_code == 200, read
