"""The succession's play (issue 35): what each ruleset answers the succession services, read where
the pages show it (a minor monarch on the crown's page, the capitals' refusal)."""

from __future__ import annotations

import pytest

from campaign.models import Campaign
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Reign
from dynasties.services import campaign_create
from dynasties.services.crowns import capital_lose
from dynasties.services.crowns_view import crown_view
from dynasties.services.play_registry import play_of
from dynasties.services.pretenders import event_cards_in_force, pretender_declare
from rules import rulesets
from rules.errors import RuleError
from tests.factories import person


def _minor_king(campaign: Campaign, *, regent: bool) -> Reign:
    year = campaign.current_year
    reign = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    boy = person(campaign, reign.holder.controlled_by, "Edward", "M", year - 9)
    reign.end_year = year
    reign.save()
    new = Reign.objects.create(campaign=campaign, crown="England", holder=boy, start_year=year)
    if regent:
        new.regent = person(campaign, boy.controlled_by, "Roger", "M", year - 40)
        new.save()
    return new


@pytest.mark.django_db
def test_a_blood_royale_minor_with_a_regent_is_shown_with_the_regency_s_end(campaign: Campaign) -> None:
    reign = _minor_king(campaign, regent=True)
    view = crown_view(campaign=campaign, name="England")
    until = reign.holder.birth_year + 15
    assert view.regency_until == until
    regent = reign.regent
    assert regent is not None
    assert (
        f"A minor, aged 9: {regent.display_name} rules as regent until the King is 15 "
        f"(the turn of {until} or the first after it)." in view.standing
    )


@pytest.mark.django_db
def test_a_blood_royale_minor_without_a_regent_is_only_said_to_be_one(campaign: Campaign) -> None:
    _minor_king(campaign, regent=False)
    view = crown_view(campaign=campaign, name="England")
    assert view.regency_until is None
    assert "A minor, aged 9." in view.standing


def test_each_ruleset_words_a_minor_monarch_its_own_way() -> None:
    boy = Character(given_name="Edward", dynastic_name="Plantagenet", sex="M", birth_year=1321)
    regent = Character(given_name="Roger", dynastic_name="Mortimer", sex="M", birth_year=1290)
    notes = {r: play_of(Campaign(ruleset=r)).succession.minor_note(boy, regent, 1330) for r in ("eu-bloodline", "eu-monarchs")}
    assert notes["eu-bloodline"] == ("A minor, aged 9: -1 Stability a turn until 15.", None)
    assert notes["eu-monarchs"] == ("A minor, aged 9.", None)  # no regents on the EU tables
    for r in ("blood-royale", "eu-bloodline", "eu-monarchs"):  # of age: nothing to say
        assert play_of(Campaign(ruleset=r)).succession.minor_note(boy, None, 1336) == (None, None)


def test_only_blood_royale_charges_capitals_and_pays_for_a_monarch_s_match() -> None:
    plays = {r: play_of(Campaign(ruleset=r)).succession for r in ("blood-royale", "eu-bloodline", "eu-monarchs")}
    assert {r: p.capitals() for r, p in plays.items()} == {"blood-royale": True, "eu-bloodline": False, "eu-monarchs": False}
    assert {r: p.match_crowns() for r, p in plays.items()} == {"blood-royale": 100, "eu-bloodline": 0, "eu-monarchs": 100}
    assert {r: p.successions_kill() for r, p in plays.items()} == {
        "blood-royale": False,
        "eu-bloodline": True,
        "eu-monarchs": False,
    }
    assert {r: p.widows_retire() for r, p in plays.items()} == {"blood-royale": True, "eu-bloodline": False, "eu-monarchs": True}


@pytest.mark.django_db
def test_a_ruleset_without_capitals_refuses_a_lost_capital_naming_itself(gm) -> None:
    europa = campaign_create(name="Europa", ruleset="eu-bloodline", players=3, by=gm)
    with pytest.raises(RuleError) as refused:
        capital_lose(campaign=europa, crown="England", by=SYSTEM_ACTOR)
    assert refused.value.code == "ruleset"
    assert str(refused.value).startswith("Europa Universalis: BloodLine keeps no record of capitals and foreign aid")


def test_each_play_s_crown_terms_are_what_its_ruleset_registers() -> None:
    """The crown's page and the API show a Stability, the EU monarchs and the board's leaders as the
    ruleset plays them: the play reads them from its ruleset, they do not drift apart."""
    seen = set()
    for r in rulesets():
        terms = play_of(Campaign(ruleset=r.name)).succession.crown_terms()
        shown = (terms.stability, terms.monarch_table, terms.prince_pieces, terms.royal_leaders)
        assert shown == (r.europa_crowns, r.monarch_table, r.prince_pieces, r.royal_leaders)
        seen.add(shown)
    assert len(seen) == 3  # each ruleset's crowns carry something else


@pytest.mark.django_db
def test_pretenders_are_refused_by_ruleset_and_by_option_with_the_rule_named(gm) -> None:
    plain = campaign_create(name="No cards", players=5, optional_rules={"event_cards": False}, by=gm)
    someone = Character.objects.filter(campaign=plain).first()
    assert someone is not None
    assert not event_cards_in_force(plain)
    with pytest.raises(RuleError) as refused:
        pretender_declare(campaign=plain, character=someone.pk, by=SYSTEM_ACTOR)
    assert refused.value.code == "option_off"
    assert "Optional Rule E: Event Cards (Pretenders and bastards) is not in force in No cards" in str(refused.value)
    europa = campaign_create(name="Europa", ruleset="eu-bloodline", players=3, by=gm)
    heir = Character.objects.filter(campaign=europa).first()
    assert heir is not None
    with pytest.raises(RuleError) as refused:
        pretender_declare(campaign=europa, character=heir.pk, by=SYSTEM_ACTOR)
    assert refused.value.code == "not_in_ruleset"
    assert "ruleset has none" in str(refused.value)
