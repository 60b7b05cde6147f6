"""Issue 34: the Interphase form starts from last turn's figures (tax rate, countries, the armies and
fleets kept and raised, kept again) and from the province register, so a house whose
provinces and forces did not change posts its Interphase in one click.

The rulebook (Blood Royale, A8 Interphase): every army and fleet a country keeps is maintained each
Interphase; those raised in one Interphase are on the map, to be maintained, at the next."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from campaign.models import ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Dynasty
from dynasties.services.interphase import interphase_run, last_figures
from dynasties.services.provinces import province_record
from dynasties.treasury import post
from rules import interphase as ip
from rules.interphase import InterphaseEntry
from tests.factories import at_step


def _england(campaign) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown="England")


def _first_interphase(campaign, england):
    """1300: England (its register's provinces and Essex, Kent added) taxes high, raises 2 armies and 1 fleet."""
    province_record(campaign=campaign, name="Middlesex", country="England", capital=True, by=SYSTEM_ACTOR)
    for name in ("Kent", "Essex"):
        province_record(campaign=campaign, name=name, country="England", by=SYSTEM_ACTOR)
    post(campaign, payer=None, payee=england, amount=200, kind="other", reason="a purse")
    at_step(campaign, Step.INTERPHASE, year=1300)
    interphase_run(
        campaign=campaign,
        dynasty=england,
        entry=InterphaseEntry(tax_rate=ip.HIGH_TAX, armies_raised=2, fleets_raised=1, fleet_ports=["Kent"]),
        by=SYSTEM_ACTOR,
    )


def _value(html: str, name: str) -> str | None:
    found = re.search(rf'<input[^>]*name="{name}"[^>]*value="([^"]*)"', html)
    return found.group(1) if found else None


@pytest.mark.django_db
def test_last_turns_figures_are_next_turns_start(campaign):
    england = _england(campaign)
    assert last_figures(campaign, england) == {}  # before its first Interphase: nothing to start from
    _first_interphase(campaign, england)
    assert last_figures(campaign, england) == {}  # the same year's run is not "last turn"
    at_step(campaign, Step.INTERPHASE, year=1305)
    assert last_figures(campaign, england) == {
        "year": 1300,
        "tax_rate": ip.HIGH_TAX,
        "armies_kept": 2,  # none kept in 1300, 2 raised: 2 to maintain in 1305
        "fleets_kept": 1,
        "armies_on_track": 0,
        "countries": 1,
    }


@pytest.mark.django_db
def test_a_house_whose_provinces_did_not_change_posts_in_one_click(client, campaign, alice):
    england = _england(campaign)
    _first_interphase(campaign, england)
    at_step(campaign, Step.INTERPHASE, year=1305)
    url = reverse("pages:interphase", kwargs={"slug": campaign.slug, "dynasty_pk": england.pk})
    client.force_login(alice)
    html = client.get(url).content.decode()
    assert "start from your Interphase of 1300" in html
    assert (_value(html, "armies_kept"), _value(html, "fleets_kept"), _value(html, "armies_raised")) == ("2", "1", "0")
    assert re.search(rf'<input[^>]*name="tax_rate"[^>]*value="{ip.HIGH_TAX}"[^>]*checked', html)
    assert _value(html, "provinces") == "East Anglia, Essex, Kent, Middlesex, Yorkshire"  # from the province register
    # the form as it stands, posted ("Post to the ledger"): last year's figures, this year's Interphase
    form = re.search(r'<form method="post"[^>]*class="interphase".*?</form>', html, re.S).group(0)
    data: dict[str, object] = {}
    for tag in re.findall(r"<(?:input|textarea)[^>]*>(?:[^<]*</textarea>)?", form):
        name = re.search(r'name="([^"]+)"', tag)
        if not name or ('type="radio"' in tag and "checked" not in tag) or ('type="checkbox"' in tag and "checked" not in tag):
            continue
        text = re.search(r">([^<]*)</textarea>", tag)
        value = re.search(r'value="([^"]*)"', tag)
        data[name.group(1)] = text.group(1).strip() if text else (value.group(1) if value else "")
    data["do"] = "run"
    response = client.post(url, data)
    assert response.status_code == 302, re.findall(r"errorlist[^>]*>(.*?)</ul>", response.content.decode(), re.S)
    run = ChronicleEntry.objects.filter(year=1305, data__interphase=True, data__dynasty=england.pk).get()
    assert (run.data["armies_kept"], run.data["fleets_kept"], run.data["tax_rate"]) == (2, 1, ip.HIGH_TAX)
    assert run.data["provinces"] == ["East Anglia", "Essex", "Kent", "Middlesex", "Yorkshire"]  # the register's
