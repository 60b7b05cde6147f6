"""Issue 34: a draft's clauses are added and removed in place (htmx swaps the clauses only; the form
and its scroll stay), a clause between two houses is filled in from the two parties ticked, and the
cursor goes to the first term still to fill."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from dynasties.models import Dynasty

HX = {"HTTP_HX_REQUEST": "true"}


def _post(client, campaign, data, **headers):
    return client.post(reverse("pages:contract_new", kwargs={"slug": campaign.slug}), data, **headers)


@pytest.mark.django_db
def test_a_clause_is_added_in_place_from_the_drafter_to_the_other_party(client, campaign, alice):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    client.force_login(alice)
    data = {
        "kind": "agreement",
        "title": "Peace",
        "parties": [france.pk, england.pk],
        "rows": 0,
        "op": "add",
        "add_kind": "payment",
    }
    response = _post(client, campaign, data, **HX)
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<section id="clauses"')
    assert "<html" not in html and 'name="title"' not in html  # the clauses only: what was typed above stays
    assert re.search(rf'name="c0-payer"[^>]*>.*?<option value="{england.pk}" selected>', html, re.S)
    assert re.search(rf'name="c0-payee"[^>]*>.*?<option value="{france.pk}" selected>', html, re.S)
    assert re.search(r'<input[^>]*name="c0-amount"[^>]*autofocus', html)
    assert 'name="rows" value="1"' in html
    # a second clause, then the first removed: the kept one keeps what was typed, renumbered
    data.update({"rows": 1, "c0-kind": "payment", "c0-payer": england.pk, "c0-payee": france.pk, "c0-amount": "10"})
    data["add_kind"] = "escape"
    html = _post(client, campaign, data, **HX).content.decode()
    assert "Clause 2: Escape clause" in html and re.search(r'<input[^>]*name="c1-condition"[^>]*autofocus', html)
    removed = {**data, "rows": 2, "c1-kind": "escape", "c1-condition": "War", "op": "remove-0"}
    html = _post(client, campaign, removed, **HX).content.decode()
    assert "Clause 1: Escape clause" in html and 'value="War"' in html and "c1-" not in html


@pytest.mark.django_db
def test_without_javascript_the_whole_page_comes_back(client, campaign, alice):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    client.force_login(alice)
    data = {"kind": "agreement", "title": "Peace", "parties": [england.pk], "rows": 0, "op": "add", "add_kind": "payment"}
    html = _post(client, campaign, data).content.decode()
    assert "<html" in html and 'value="Peace"' in html and "Clause 1: One-off payment" in html
    assert "autofocus" in html  # one party ticked: nothing filled in, the cursor on the payer
    payer = html.split('name="c0-payer"')[1].split("</select>")[0]
    assert "Choose a house" in payer and not re.search(r'<option value="\d+" selected>', payer)
