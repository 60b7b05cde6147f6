"""Campaign export and import (docs/export-format.md): the round trip, the commands, refusals."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from campaign.exchange import FORMAT, campaign_export, campaign_import
from campaign.models import Campaign, ChronicleEntry, Membership, Role, Roll
from dynasties.models import Character, Dynasty, Marriage, Reign, Status
from dynasties.rules.dice import RandomSource
from dynasties.rules.errors import InvalidImport, RuleError
from dynasties.services import campaign_create
from dynasties.simulation import simulate

DOC = Path(__file__).resolve().parent.parent / "docs" / "export-format.md"


def played(name: str = "Exchange", turns: int = 6) -> Campaign:
    campaign = campaign_create(name=name, players=5, source=RandomSource(3))
    return simulate(campaign, turns=turns, source=RandomSource(3))


def without_slug(data: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    del out["campaign"]["slug"]
    return out


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@pytest.fixture(scope="module")
def exported(django_db_setup, django_db_blocker) -> dict[str, Any]:
    """The export of a campaign played for six turns (built once, then rolled back)."""
    with django_db_blocker.unblock(), transaction.atomic():
        data = campaign_export(played())
        transaction.set_rollback(True)
    return data


@pytest.fixture
def doc(exported) -> dict[str, Any]:
    """A fresh copy of the export for a test to spoil."""
    return copy.deepcopy(exported)


# --- round trip -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_round_trip_is_identical_apart_from_the_slug():
    campaign = played()
    first = campaign_export(campaign)
    # The simulated campaign has everything worth carrying over.
    assert any(c["status"] == Status.DEAD for c in first["characters"])
    assert any(c["father"] is not None for c in first["characters"])
    assert any(m["ended_year"] is not None for m in first["marriages"])
    assert any(r["end_year"] is not None for r in first["reigns"])
    assert any(a["child"] is not None for a in first["birth_attempts"])
    assert {r["purpose"] for r in first["rolls"]} >= {"birth", "sex", "characteristic", "survival"}
    kinds = {e["kind"] for year in first["chronicle"] for e in year["entries"]}
    assert {"setup", "birth", "death", "succession", "wedding", "announcements"} <= kinds

    imported = campaign_import(json.loads(dumps(first)))
    second = campaign_export(imported)

    assert imported.pk != campaign.pk
    assert imported.name == campaign.name
    assert second["campaign"]["slug"] == imported.slug != campaign.slug
    assert without_slug(second) == without_slug(first)
    # Byte-identical text apart from the slug line.
    assert dumps(second).replace(f'"slug": "{imported.slug}"', f'"slug": "{campaign.slug}"') == dumps(first)


@pytest.mark.django_db
def test_ids_are_renumbered_one_to_n_in_creation_order(doc):
    for section in ("dynasties", "characters", "marriages", "rolls"):
        assert [item["id"] for item in doc[section]] == list(range(1, len(doc[section]) + 1))
    assert doc["format"] == FORMAT
    years = [group["year"] for group in doc["chronicle"]]
    assert years == sorted(set(years))


@pytest.mark.django_db
def test_chronicle_references_follow_the_characters_both_ways(doc):
    """A birth entry names its child; the export id and, after import, the new database id
    both point at that child."""
    births = [e for g in doc["chronicle"] for e in g["entries"] if e["kind"] == "birth"]
    assert births
    for entry in births:
        child = doc["characters"][entry["data"]["character"] - 1]
        assert f"{child['given_name']} {child['dynastic_name']}, is born" in entry["text"]

    campaign = campaign_import(doc)
    stored = ChronicleEntry.objects.filter(campaign=campaign, kind="birth")
    people = Character.objects.in_bulk([e.data["character"] for e in stored])
    for entry in stored:
        child = people[entry.data["character"]]
        assert child.campaign_id == campaign.pk
        assert f"{child.display_name}, is born" in entry.text
    for entry in ChronicleEntry.objects.filter(campaign=campaign, kind="succession"):
        assert Character.objects.get(pk=entry.data["late"]).campaign_id == campaign.pk
        assert isinstance(entry.data["crown"], str)


@pytest.mark.django_db
def test_an_imported_campaign_plays_on_exactly_like_the_original():
    """Same books, same dice: the next turn comes out the same in both."""
    original = played(turns=2)
    copy_ = campaign_import(campaign_export(original))
    simulate(original, turns=1, source=RandomSource(11))
    simulate(copy_, turns=1, source=RandomSource(11))
    assert without_slug(campaign_export(copy_)) == without_slug(campaign_export(original))


@pytest.mark.django_db
def test_the_documented_example_imports_and_round_trips():
    text = DOC.read_text(encoding="utf-8")
    example = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    campaign = campaign_import(example)
    assert campaign.slug == "example"
    john = Character.objects.get(campaign=campaign, given_name="John")
    assert john.father.given_name == "Edward"
    assert john.mother.given_name == "Mary"
    assert list(Roll.objects.get(campaign=campaign).characters.all()) == [john]
    again = campaign_export(campaign)
    assert again["characters"][2]["father"] == 1
    assert again["chronicle"] == example["chronicle"]


# --- slugs and the GM -------------------------------------------------------------------------


@pytest.mark.django_db
def test_import_under_a_taken_slug_gets_the_next_free_one(doc):
    campaign_create(name="Exchange", players=3, source=RandomSource(1))  # takes "exchange"
    first = campaign_import(doc)
    second = campaign_import(doc)
    assert (first.slug, second.slug) == ("exchange-2", "exchange-3")
    assert first.name == second.name == "Exchange"


@pytest.mark.django_db
def test_an_explicit_slug_is_used_or_refused_when_taken(doc):
    assert campaign_import(doc, slug="my-copy").slug == "my-copy"
    with pytest.raises(RuleError, match="'my-copy' is taken"):
        campaign_import(doc, slug="my-copy")


@pytest.mark.django_db
def test_import_by_a_user_makes_them_the_gm(doc, gm):
    campaign = campaign_import(doc, by=gm)
    assert Membership.objects.get(campaign=campaign).role == Role.GM
    assert Membership.objects.get(campaign=campaign).user == gm


# --- commands ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_export_command_prints_json_or_writes_a_file(tmp_path):
    campaign = played(turns=1)
    out = StringIO()
    call_command("export_campaign", campaign.slug, stdout=out)
    assert json.loads(out.getvalue()) == campaign_export(campaign)
    target = tmp_path / "campaign.json"
    call_command("export_campaign", campaign.slug, "--output", str(target), stdout=StringIO(), stderr=StringIO())
    assert target.read_text(encoding="utf-8") == out.getvalue()


@pytest.mark.django_db
def test_import_command_loads_a_file_and_sets_the_gm(tmp_path, gm):
    campaign = played(turns=1)
    target = tmp_path / "campaign.json"
    call_command("export_campaign", campaign.slug, "-o", str(target), stderr=StringIO())
    out = StringIO()
    call_command("import_campaign", str(target), "--gm", "gm", stdout=out)
    copy_ = Campaign.objects.exclude(pk=campaign.pk).get()
    assert f"as {copy_.slug}" in out.getvalue()
    assert copy_.memberships.get().user == gm
    again = StringIO()
    call_command("export_campaign", copy_.slug, stdout=again)
    assert again.getvalue().replace(copy_.slug, campaign.slug) == target.read_text(encoding="utf-8")


@pytest.mark.django_db
def test_commands_fail_with_a_message(tmp_path, doc):
    with pytest.raises(CommandError, match="no campaign with the slug 'nowhere'"):
        call_command("export_campaign", "nowhere")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("import_campaign", str(bad))
    doc["characters"][12]["father"] = 99
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(CommandError, match=r"characters\[12\]\.father: no character with id 99"):
        call_command("import_campaign", str(bad))
    with pytest.raises(CommandError, match="no user called 'nobody'"):
        call_command("import_campaign", str(bad), "--gm", "nobody")
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("import_campaign", str(tmp_path / "missing.json"))
    assert Campaign.objects.count() == 0


# --- refusals ---------------------------------------------------------------------------------


def first_child(d: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in d["characters"] if c["father"] is not None)


def parent_cycle(d: dict[str, Any]) -> None:
    """A grandfather made the son of his own grandchild."""
    people = {c["id"]: c for c in d["characters"]}
    grandchild = next(c for c in d["characters"] if c["father"] and people[c["father"]]["father"])
    grandfather = people[people[grandchild["father"]]["father"]]
    grandfather["father"] = grandchild["id"]


def second_open_marriage(d: dict[str, Any]) -> None:
    """A husband with two matches that have not ended."""
    match = next(m for m in d["marriages"] if m["ended_year"] is None)
    other_woman = next(c["id"] for c in d["characters"] if c["sex"] == "F" and c["id"] != match["wife"])
    d["marriages"].append({**match, "id": len(d["marriages"]) + 1, "wife": other_woman})


def second_open_reign(d: dict[str, Any]) -> None:
    """Passes every check of the document; the database refuses two open reigns of one crown."""
    reign = next(r for r in d["reigns"] if r["end_year"] is None)
    d["reigns"].append({**reign, "passed_over": []})


def set_(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set a value by a dotted path with list indexes: ``characters.12.father``."""

    def apply(d: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = d
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return apply


def drop(path: str) -> Callable[[dict[str, Any]], None]:
    def apply(d: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = d
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        del target[last]

    return apply


BAD_INPUT = [
    # format
    pytest.param(drop("format"), "format: missing; expected 'regnal/1'", id="format-missing"),
    pytest.param(set_("format", "regnal/2"), "format: 'regnal/2' is not supported; expected 'regnal/1'", id="format-wrong"),
    # sections and fields
    pytest.param(drop("marriages"), "marriages: the section is missing", id="section-missing"),
    pytest.param(drop("chronicle"), "chronicle: the section is missing", id="chronicle-missing"),
    pytest.param(drop("characters.3.birth_year"), "characters[3].birth_year: missing", id="field-missing"),
    pytest.param(drop("campaign.name"), "campaign.name: missing", id="campaign-field-missing"),
    pytest.param(drop("rolls.4.faces"), "rolls[4].faces: missing", id="roll-field-missing"),
    # types
    pytest.param(set_("dynasties", {"1": "Plantagenet"}), "dynasties: must be a list, got an object", id="section-type"),
    pytest.param(
        set_("characters.0.birth_year", "1275"), "characters[0].birth_year: must be a whole number, got a string", id="int-type"
    ),
    pytest.param(set_("characters.0.birth_year", True), "characters[0].birth_year: must be a whole number", id="bool-not-int"),
    pytest.param(
        set_("marriages.0.husband_joins_wife", "no"), "marriages[0].husband_joins_wife: must be true or false", id="bool-type"
    ),
    pytest.param(
        set_("characters.1.characteristics", [0, 0, 0]), "characters[1].characteristics: must be an object", id="object-type"
    ),
    pytest.param(
        set_("characters.1.characteristics.constitution", "high"),
        "characters[1].characteristics.constitution: must be a whole number",
        id="characteristic-type",
    ),
    pytest.param(set_("characters.5", "John"), "characters[5]: must be an object, got a string", id="item-type"),
    pytest.param(set_("characters.0.given_name", "x" * 61), "characters[0].given_name: is 61 characters long", id="too-long"),
    # references
    pytest.param(set_("characters.12.father", 99), "characters[12].father: no character with id 99", id="dangling-father"),
    pytest.param(
        set_("characters.2.controlled_by", 42), "characters[2].controlled_by: no dynasty with id 42", id="dangling-dynasty"
    ),
    pytest.param(set_("marriages.1.wife", 500), "marriages[1].wife: no character with id 500", id="dangling-wife"),
    pytest.param(set_("reigns.0.holder", None), "reigns[0].holder: must be a whole number, got null", id="holder-null"),
    pytest.param(set_("birth_attempts.0.roll", 9999), "birth_attempts[0].roll: no roll with id 9999", id="dangling-roll"),
    pytest.param(
        set_("birth_attempts.0.marriage", 77), "birth_attempts[0].marriage: no marriage with id 77", id="dangling-marriage"
    ),
    pytest.param(set_("rolls.0.characters", [1, 999]), "rolls[0].characters[1]: no character with id 999", id="dangling-subject"),
    pytest.param(
        set_("chronicle.1.entries.0.data.character", 999),
        "chronicle[1].entries[0].data.character: no character with id 999",
        id="dangling-chronicle",
    ),
    pytest.param(
        set_("characters.1.id", 1), "characters[1].id: the character id 1 is already used by characters[0]", id="duplicate-id"
    ),
    # parentage
    pytest.param(
        lambda d: d["characters"][0].update(father=1),
        "characters[0].father: character 1 would be their own ancestor (parentage cycle 1 -> 1",
        id="own-father",
    ),
    pytest.param(
        parent_cycle, ("would be their own ancestor (parentage cycle ", ", each the child of the next)"), id="ancestor-cycle"
    ),
    # rules
    pytest.param(set_("campaign.ruleset", "chess"), "campaign.ruleset: Unknown ruleset 'chess'", id="unknown-ruleset"),
    pytest.param(set_("campaign.ruleset", "eu-monarchs"), "campaign.ruleset: The Europa Universalis", id="unavailable-ruleset"),
    pytest.param(
        set_("campaign.optional_rules.dragons", True),
        "campaign.optional_rules: Blood Royale has no optional rule 'dragons'",
        id="bad-option",
    ),
    pytest.param(
        set_("campaign.tables.survival", []),
        "campaign.tables.survival: The survival table must be a non-empty list",
        id="empty-table",
    ),
    pytest.param(
        set_("campaign.tables.characteristic_bands.0.low", 4),
        "campaign.tables.characteristic_bands: Characteristic bands, row 1: starts at 4",
        id="bad-bands",
    ),
    pytest.param(
        set_("campaign.tables.weather", [{"a": 1}]),
        "campaign.tables.weather: There is no rule table called 'weather'",
        id="unknown-table",
    ),
    pytest.param(drop("campaign.tables.survival"), "campaign.tables: the 'survival' table is missing", id="missing-table"),
    pytest.param(set_("characters.0.sex", "X"), "characters[0].sex: 'X' is not one of 'M', 'F'", id="bad-sex"),
    pytest.param(
        set_("characters.0.status", "undead"),
        "characters[0].status: 'undead' is not one of 'alive', 'dead', 'retired'",
        id="bad-status",
    ),
    pytest.param(set_("dynasties.0.kind", "empire"), "dynasties[0].kind: 'empire' is not one of", id="bad-kind"),
    pytest.param(set_("rolls.0.source", "cheat"), "rolls[0].source: 'cheat' is not one of 'server', 'entered'", id="bad-source"),
    pytest.param(
        lambda d: d["rolls"][0].update(faces=[99] * len(d["rolls"][0]["faces"])),
        ("rolls[0].faces: The ", " roll needs ", "99 cannot be rolled on a d"),
        id="bad-faces",
    ),
    pytest.param(
        lambda d: next(c for c in d["characters"] if c["status"] == "alive").update(death_year=1330),
        ("].death_year: only a dead character has a death year; the status is 'alive'",),
        id="death-not-dead",
    ),
    pytest.param(
        lambda d: d["dynasties"][1].update(name=d["dynasties"][0]["name"]),
        ("dynasties[1].name: the dynastic name ", " is already used by dynasties[0]"),
        id="dup-dynasty",
    ),
    pytest.param(
        set_("campaign.current_year", 1200), "campaign.current_year: 1200 is before the start year 1300", id="year-order"
    ),
    pytest.param(
        second_open_marriage, "already has a marriage or betrothal that has not ended (marriages[", id="two-open-marriages"
    ),
    # what only the database catches (an IntegrityError) comes back as InvalidImport too
    pytest.param(
        second_open_reign,
        "The import breaks a rule of the books: a crown has two reigns that have not ended (reign_one_open_per_crown).",
        id="integrity-error",
    ),
    # not a document at all
    pytest.param(lambda d: d.clear(), "format: missing", id="empty-object"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("spoil", "message"), BAD_INPUT)
def test_bad_input_is_refused_naming_the_problem_and_leaves_nothing(doc, spoil, message):
    campaign_create(name="Already here", players=3, source=RandomSource(1))
    counts = (
        Campaign.objects.count(),
        Character.objects.count(),
        Dynasty.objects.count(),
        Marriage.objects.count(),
        Reign.objects.count(),
        Roll.objects.count(),
        ChronicleEntry.objects.count(),
    )
    spoil(doc)
    with pytest.raises(InvalidImport) as caught:
        campaign_import(doc)
    for part in (message,) if isinstance(message, str) else message:
        assert part in caught.value.message
    assert counts == (
        Campaign.objects.count(),
        Character.objects.count(),
        Dynasty.objects.count(),
        Marriage.objects.count(),
        Reign.objects.count(),
        Roll.objects.count(),
        ChronicleEntry.objects.count(),
    )


@pytest.mark.django_db
def test_a_document_that_is_not_an_object_is_refused():
    with pytest.raises(InvalidImport, match="must be a JSON object, got a list"):
        campaign_import([])


# --- queries ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_export_makes_the_same_number_of_queries_whatever_the_size(django_assert_num_queries):
    small = played("Small", turns=1)
    large = played("Large", turns=6)
    assert Character.objects.filter(campaign=large).count() > Character.objects.filter(campaign=small).count()
    with CaptureQueriesContext(connection) as queries:
        campaign_export(small)
    assert len(queries) <= 10
    with django_assert_num_queries(len(queries)):
        campaign_export(large)
