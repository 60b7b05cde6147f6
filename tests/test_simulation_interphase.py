"""Issue 33: the simulated prehistory plays the law as a table would - its Interphase raises the
armies it then maintains, its governors bring their 2 Crowns, and the EU crowns no player rules
(Venice, Poland) are in play from the first turn. Each test is built from the rulebook's words."""

from __future__ import annotations

from io import StringIO
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.management import call_command

from campaign.models import Campaign, ChronicleEntry, Roll
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Dynasty, DynastyKind, Posting, Status, Title
from dynasties.services import campaign_create, event_deaths, events
from operations.exchange import campaign_export
from operations.simulation import LAW, armies_on_the_map, law_summary, simulate, simulated_dynasties
from rules import get_ruleset
from rules import interphase as ip_rules
from rules.dice import RandomSource
from tests.crosscheck.blood_royale import _armies

pytestmark = pytest.mark.long_simulation  # SQLite only (tests/conftest.py)


def _campaign(ruleset: str, seed: int, turns: int, slug: str = "") -> Campaign:
    source = RandomSource(seed)
    campaign = campaign_create(
        name=f"{ruleset} {seed}",
        slug=slug or f"ip-{ruleset}-{seed}",
        ruleset=ruleset,
        players=5,
        dynasties=simulated_dynasties(ruleset, 5),
        optional_rules={name: True for name in get_ruleset(ruleset).OPTIONAL_RULES},
        source=source,
    )
    return simulate(campaign, turns=turns, source=source, law=True, by=SYSTEM_ACTOR)


def _lines(campaign: Campaign, house: Dynasty, year: int, kind: str) -> list[str]:
    return list(
        Posting.objects.filter(campaign=campaign, payer=house, year=year, kind=kind)
        .order_by("pk")
        .values_list("reason", flat=True)
    )


@pytest.mark.django_db
def test_the_automatic_player_raises_the_armies_it_then_maintains() -> None:
    """Rulebook, 5 The First Turn: "only Taxation, Placing Resources and Raising" apply in the first
    turn; 13 Maintaining and Raising: "2 Crowns per army ... maintained", "5 Crowns" for each raised,
    new armies "anywhere in their Home Provinces" in the first turn. The automatic player used to pay
    upkeep on 2 armies every turn from 1305 and never raise one (780 Crowns a campaign for armies that
    did not exist). Now the first Interphase raises 2 armies (10 Crowns) and maintains none; the next
    maintains the 2 on the map (4 Crowns), raising again only an army lost in battle."""
    campaign = _campaign("blood-royale", 4, 3)
    start = campaign.start_year
    houses = list(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("pk"))
    battles = Roll.objects.filter(campaign=campaign, purpose="battle")
    for house in houses:
        assert _lines(campaign, house, start, "maintenance") == []
        [raised] = _lines(campaign, house, start, "raising")
        assert raised.startswith("Raising 2 armies at 5 Crowns, placed in the home provinces")
        assert (
            Posting.objects.get(campaign=campaign, payer=house, year=start, kind="raising").amount == 2 * ip_rules.RAISING_CROWNS
        )
        lost = battles.filter(year=start + 5, characters__controlled_by=house).count()
        kept = _lines(campaign, house, start + 5, "maintenance")
        assert kept == [f"Maintenance of {2 - lost} arm{'y' if lost == 1 else 'ies'} at 2 Crowns"] if lost < 2 else kept == []
        assert len(_lines(campaign, house, start + 5, "raising")) == (1 if lost else 0)
    # the cross-check (written from the rulebook) finds no army maintained that was never raised
    assert _armies(SimpleNamespace(doc=campaign_export(campaign))) == []  # type: ignore[arg-type]
    summary = dict(law_summary(campaign))
    assert summary["armies raised"] >= len(houses) and summary["Interphase maintenance"] >= len(houses)


@pytest.mark.django_db
def test_an_army_lost_in_battle_is_raised_again() -> None:
    """13 Maintaining and Raising: only the armies on the map are maintained; a royal piece "whose army
    is wiped out" (the automatic player's battle) leaves one fewer: the next Interphase keeps the other
    and raises one, and the lost counter is on the Year Track ("Players may not raise troops from the
    Army counters on the Year Track")."""
    campaign = _campaign("blood-royale", 4, 1)  # the 1300 Interphase raised 2 armies a house
    campaign.refresh_from_db()
    fielded = event_deaths.exposed(campaign, "battle")
    assert fielded, "a royal piece on the map"
    who = fielded[0]
    house = Dynasty.objects.get(pk=who.controlled_by_id)
    assert armies_on_the_map(campaign, house) == (2, 0)
    events.survival_event(campaign=campaign, reason="battle", characters=[who.pk], captor=events.NEUTRALS, by=SYSTEM_ACTOR)
    assert armies_on_the_map(campaign, house) == (1, 1)
    other = Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).exclude(pk=house.pk).first()
    assert other is not None and armies_on_the_map(campaign, other) == (2, 0)


def _posting(pk: int, year: int, kind: str, amount: int, reason: str, payer: int | None, payee: int | None) -> dict[str, Any]:
    return {
        "id": pk,
        "year": year,
        "kind": kind,
        "amount": amount,
        "reason": reason,
        "payer": payer,
        "payee": payee,
        "reverses": None,
    }


def test_the_crosscheck_finds_armies_maintained_that_were_never_raised() -> None:
    """The old automatic player's ledger: taxes, then "Maintenance of 2 armies" with none raised."""
    tax = "Taxation: 6 provinces at 5 Crowns"
    old = [
        _posting(1, 1300, "tax", 30, tax, None, 1),
        _posting(2, 1305, "tax", 30, tax, None, 1),
        _posting(3, 1305, "maintenance", 4, "Maintenance of 2 armies at 2 Crowns", 1, None),
    ]
    [found] = _armies(SimpleNamespace(doc={"postings": old}))  # type: ignore[arg-type]
    assert found.startswith("BR-armies: house 1 1305: expected at most 0 armies")
    lawful = [
        _posting(1, 1300, "tax", 30, tax, None, 1),
        _posting(2, 1300, "raising", 10, "Raising 2 armies at 5 Crowns, placed in the home provinces", 1, None),
        _posting(3, 1305, "tax", 30, tax, None, 1),
        _posting(4, 1305, "maintenance", 4, "Maintenance of 2 armies at 2 Crowns", 1, None),
        _posting(5, 1305, "maintenance", 2, "Maintenance of 1 fleet at 2 Crowns", 1, None),
    ]
    assert _armies(SimpleNamespace(doc={"postings": lawful})) == []  # type: ignore[arg-type]


@pytest.mark.django_db
def test_governors_bring_their_two_crowns_through_the_interphase() -> None:
    """Optional rule G: a province governed "raises 2 Crowns extra" in taxation. Issue 31 linked the
    titles to the Interphase (the entry lists the crown's provinces held by a living Governor): in the
    automatic player's last Interphase every house's tax lines name each province of its crown that a
    living Governor holds, at 2 Crowns each."""
    campaign = _campaign("blood-royale", 4, 12)
    year = campaign.current_year - campaign.turn_length  # the last Interphase played
    held = Title.objects.filter(campaign=campaign, holder__status=Status.ALIVE, provinces=[])
    assert held.exists(), "governors made by the automatic player"
    for house in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER):
        provinces = sorted(held.filter(crown=house.crown).values_list("province", flat=True))
        lines = Posting.objects.filter(campaign=campaign, year=year, kind="tax", reason__startswith="Governed province")
        named = sorted(p for line in lines for p in provinces if p in line.reason)
        assert named == provinces, house.crown
        for line in lines.filter(payee=house):
            assert line.reason.startswith("Governed provinces (rule G):") or "keeps the 2 Crowns extra" in line.reason
    extra = Posting.objects.filter(campaign=campaign, kind="tax", reason__startswith="Governed province")
    assert sum(extra.values_list("amount", flat=True)) % ip_rules.GOVERNED_EXTRA_CROWNS == 0 and extra.exists()


@pytest.mark.django_db
def test_venice_and_poland_are_in_play_from_the_first_turn() -> None:
    """The automatic player's EU campaign has Venice's Doges and Poland's elective era "from the first
    turn": their crowns are set up before the first turn's monarchs' rolls, so each rolls its first
    monarch with the others' (it used to be set up after them, and rolled its first monarch a turn late)."""
    campaign = _campaign("eu-monarchs", 1, 1)
    start = campaign.start_year
    first = ChronicleEntry.objects.filter(campaign=campaign, kind="succession", year=start)
    crowns = set(first.values_list("data__crown", flat=True))
    assert {"Venice", "Poland"} <= crowns
    doge = first.get(data__crown="Venice")
    assert "Doge of Venice" in doge.text
    settings = ChronicleEntry.objects.filter(campaign=campaign, kind="crown_settings").order_by("pk")
    assert [e.data["crown"] for e in settings] == ["Venice", "Poland"]
    assert all(e.pk < first.order_by("pk").first().pk for e in settings)  # type: ignore[union-attr]


@pytest.mark.django_db
def test_the_command_prints_the_armies_raised() -> None:
    assert "armies raised" in [p.name for p in LAW["blood-royale"]]
    out = StringIO()
    call_command("simulate", "--turns", "1", "--seed", "4", "--slug", "armies", stdout=out)
    [line] = [line for line in out.getvalue().splitlines() if line.split()[:2] == ["armies", "raised"]]
    assert int(line.split()[2]) == Dynasty.objects.filter(campaign__slug="armies", kind=DynastyKind.PLAYER).count()
