"""The Redo button next to Undo: the GM's, the last undo written again, gone once anything is written."""

from __future__ import annotations

from campaign.models import Roll
from campaign.undo import new_action_key
from tests.test_pages_sequence import _messages, _post, _state, _url


def test_the_gm_redoes_an_undo_from_the_pages(client, campaign, gm, alice):
    client.force_login(gm)
    html = client.get(_url("turn", campaign)).content.decode()
    assert "Nothing to redo" in html and ">Redo</button>" not in html
    _post(client, _url("births", campaign), op="roll_all")
    done = _state(campaign)
    rolls = list(Roll.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "outcome"))
    _post(client, _url("undo", campaign), which="step")
    assert any("Redo brings it back" in m for m in _messages(client.get(_url("turn", campaign))))
    html = client.get(_url("turn", campaign)).content.decode()
    assert ">Redo</button>" in html and "write again what the last undo took back, to the start of Births 1300" in html
    assert ">Redo</button>" in client.get(_url("undo", campaign)).content.decode()  # the Undo page offers it too
    client.force_login(alice)
    assert _post(client, _url("redo", campaign)).status_code == 403
    client.force_login(gm)
    key = new_action_key()
    response = client.post(_url("redo", campaign), {"action_key": key})
    assert response.status_code == 302 and response["Location"] == _url("turn", campaign) + "#top"
    assert any("Redone" in m for m in _messages(client.get(_url("turn", campaign))))
    assert _state(campaign) == done
    assert list(Roll.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "outcome")) == rolls  # once
    client.post(_url("redo", campaign), {"action_key": key})
    assert any("already done" in m for m in _messages(client.get(_url("turn", campaign))))
    assert client.get(_url("redo", campaign)).status_code == 405


def test_the_page_says_when_the_redo_is_gone(client, campaign, gm):
    client.force_login(gm)
    _post(client, _url("births", campaign), op="roll_all")
    _post(client, _url("undo", campaign), which="step")
    _post(client, _url("births", campaign), op="roll_all")  # a new step action forgets the undo
    html = client.get(_url("turn", campaign)).content.decode()
    assert ">Redo</button>" not in html and "Nothing to redo" in html and "a step played" in html
    _post(client, _url("redo", campaign))
    assert any("nothing to redo" in m.lower() for m in _messages(client.get(_url("turn", campaign))))


def test_a_player_is_refused_undo_and_redo_by_the_services_policy(client, campaign, gm, alice):
    """The pages' Undo and Redo ask no role themselves: the services ask the policy (403), even for
    a form with no key or no choice, and nothing is undone; the Undo page's plans are the GM's."""
    client.force_login(gm)
    _post(client, _url("births", campaign), op="roll_all")
    done = _state(campaign)
    client.force_login(alice)
    assert client.get(_url("undo", campaign)).status_code == 403
    assert _post(client, _url("undo", campaign), which="step").status_code == 403
    assert client.post(_url("undo", campaign), {"which": "step"}).status_code == 403  # no key: the policy first
    assert client.post(_url("undo", campaign), {"which": "everything", "action_key": new_action_key()}).status_code == 403
    assert client.post(_url("redo", campaign), {}).status_code == 403
    assert _state(campaign) == done
    client.force_login(gm)
    response = client.post(_url("undo", campaign), {"which": "everything", "action_key": new_action_key()})
    assert response.status_code == 302 and any("Choose what to undo" in m for m in _messages(client.get(_url("turn", campaign))))
    assert _state(campaign) == done
