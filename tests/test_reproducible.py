"""Same seed, same campaign, in any process (issue 15): ``simulate --seed`` in two processes with
different hash seeds exports byte for byte the same campaign; and ``simulate --option NAME``.

The simulations run in subprocesses (``manage.py``), each on its own SQLite database: a copy of the
worker's empty test database (the same tables; copying it is faster than migrating a new one).
The export holds no wall-clock time (no created_at, no export date), so nothing is masked.

The same runs are also compared with the exports recorded before issue 35's refactor
(``tests/data/golden/<ruleset>.json.gz``): a refactor changes no behaviour, so the same seed must
still export the same campaign byte for byte. A change that means to change the law (or the export
format) records them again - ``REGNAL_WRITE_GOLDEN=1 pytest tests/test_reproducible.py``
- and its commit says why.
"""

from __future__ import annotations

import gzip
import os
import shutil
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from campaign.models import Campaign, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Reign, Status
from dynasties.services import announcements_make, campaign_create
from rules import RULESET_LABELS, get_ruleset
from rules.dice import DiceSpec, RandomSource
from tests.factories import at_step

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "golden"
SEED = 1  # Blood Royale: three houses die out and are founded anew within the 12 turns
TURNS = {"blood-royale": 12, "eu-bloodline": 8, "eu-monarchs": 12}  # each pair well under 40 s


def _env(database: Path, hash_seed: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": hash_seed,
        "DEBUG": "1",
        "DATABASE_URL": f"sqlite:///{database}",
        "MEDIA_ROOT": str(database.parent / "media"),
    }


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


# One template per worker that runs this module: keep it on one (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("reproducible")


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None, django_db_blocker: Any) -> Path:
    """An empty database file, copied for every run: this worker's test database as the module
    starts (every test before it rolled back or emptied its writes), by SQLite's backup."""
    database = tmp_path_factory.mktemp("migrated") / "template.sqlite3"
    with django_db_blocker.unblock():
        if connection.vendor != "sqlite":
            pytest.fail("the subprocesses run on SQLite: run this module on SQLite's test database")
        connection.ensure_connection()
        assert not connection.in_atomic_block
        assert not Campaign.objects.exists()
        target = sqlite3.connect(database)
        try:
            connection.connection.backup(target)
        finally:
            target.close()
    return database


def _simulate_and_export(migrated: Path, where: Path, hash_seed: str, ruleset: str, options: list[str]) -> bytes:
    where.mkdir()
    database = where / "a.sqlite3"
    shutil.copyfile(migrated, database)
    env = _env(database, hash_seed)
    flags = [arg for name in options for arg in ("--option", name)]
    _manage(env, "simulate", "--ruleset", ruleset, "--turns", str(TURNS[ruleset]), "--seed", str(SEED), "--slug", "x", *flags)
    _manage(env, "export_campaign", "x", "--output", str(where / "x.json"))
    return (where / "x.json").read_bytes()


@pytest.mark.parametrize("ruleset", list(RULESET_LABELS))
def test_the_same_seed_exports_the_same_campaign_in_two_processes(ruleset: str, migrated: Path, tmp_path: Path) -> None:
    """Every random choice comes from the seeded dice source and nothing is decided by the order of
    a hashed set: two processes with different PYTHONHASHSEED play the same campaign. Every optional
    rule of the ruleset is on, so their rolls and choices are played too. (It failed before: the
    refounding of a house that died out - "If a Dynasty dies out, a player may start a new Dynasty,
    following the rules under Setting Up (2)" - rolled its new family's sex and characteristics on
    an unseeded source, and Blood Royale's exports parted at the first death year after it.)"""
    options = list(get_ruleset(ruleset).OPTIONAL_RULES)
    with ThreadPoolExecutor(2) as pool:  # the two processes side by side
        one = pool.submit(_simulate_and_export, migrated, tmp_path / "one", "1", ruleset, options)
        two = pool.submit(_simulate_and_export, migrated, tmp_path / "two", "2", ruleset, options)
        first, second = one.result(), two.result()
    assert len(first) > 10_000
    assert b'"slug": "x"' in first
    for name in options:  # the options are in force in the exported campaign
        assert f'"{name}": true'.encode() in first
    _same(first, second, "the exports of the two processes")
    golden = GOLDEN / f"{ruleset}.json.gz"
    if os.environ.get("REGNAL_WRITE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(gzip.compress(first, mtime=0))
    _same(gzip.decompress(golden.read_bytes()), first, f"the export recorded before the refactor ({golden.name}) and today's")


def _same(first: bytes, second: bytes, what: str) -> None:
    """Fail saying where two exports part, not with two megabytes of JSON."""
    if first == second:
        return
    one, two = first.decode().splitlines(), second.decode().splitlines()
    lines = zip(one, two, strict=False)
    number, (a, b) = next(
        ((n, pair) for n, pair in enumerate(lines, 1) if pair[0] != pair[1]), (min(len(one), len(two)) + 1, ("(end)", "(end)"))
    )
    pytest.fail(f"{what} differ first at line {number}:\n  {a}\n  {b}")


class Recorder:
    """A seeded source that remembers the faces it gave."""

    def __init__(self, seed: int) -> None:
        self.given: list[list[int]] = []
        self._source = RandomSource(seed)

    def faces(self, spec: DiceSpec) -> tuple[int, ...]:
        faces = self._source.faces(spec)
        self.given.append(list(faces))
        return faces


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", ["blood-royale", "eu-bloodline"])
def test_a_house_that_died_out_is_founded_anew_with_the_given_seeded_dice(ruleset: str) -> None:
    """Blood Royale: "If a Dynasty dies out, a player may start a new Dynasty, following the rules
    under Setting Up (2)" - the set-up's rolls (the child's sex, the characteristics) come from the
    source the Announcements are given, the simulator's seeded one, not from a new unseeded one."""
    campaign = campaign_create(name="Refounded", ruleset=ruleset, players=3, source=RandomSource(5))
    at_step(campaign, Step.ANNOUNCEMENTS)
    house = Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat").last()
    assert house is not None
    Character.objects.filter(campaign=campaign, controlled_by=house).update(status=Status.DEAD, death_year=campaign.current_year)
    other = Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat").first()
    Crown.objects.filter(campaign=campaign, name=house.crown).update(controlled_by=other)
    Reign.objects.filter(campaign=campaign, crown=house.crown).update(end_year=campaign.current_year)
    before = set(Roll.objects.filter(campaign=campaign).values_list("pk", flat=True))
    source = Recorder(9)
    announcements_make(campaign=campaign, source=source, by=SYSTEM_ACTOR)
    rolls = [r.faces for r in Roll.objects.filter(campaign=campaign).exclude(pk__in=before).order_by("pk")]
    assert Character.objects.filter(campaign=campaign, controlled_by=house, status=Status.ALIVE).count() >= 3
    assert Dynasty.objects.get(pk=house.pk).name != house.name  # founded anew, under a new name
    assert len(rolls) >= 4  # a sex and the characteristics at least
    assert rolls == source.given


def _run(*args: str, slug: str = "opt") -> Campaign:
    call_command("simulate", "--turns", "0", "--seed", "3", "--slug", slug, *args, stdout=StringIO())
    return Campaign.objects.get(slug=slug)


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", [r for r in RULESET_LABELS if get_ruleset(r).OPTIONAL_RULES])
def test_each_option_turns_its_rule_on_in_the_campaign_settings(ruleset: str) -> None:
    known = get_ruleset(ruleset).OPTIONAL_RULES
    for n, name in enumerate(known):
        campaign = _run("--ruleset", ruleset, "--option", name, slug=f"one-{n}")
        assert campaign.optional_rules == {key: key == name for key in known}
    campaign = _run("--ruleset", ruleset, *[a for name in known for a in ("--option", name)])
    assert campaign.optional_rules == {key: True for key in known}
    assert all(campaign.option(key) for key in known)


@pytest.mark.django_db
def test_without_options_every_rule_is_off() -> None:
    campaign = _run()
    assert campaign.optional_rules == {key: False for key in get_ruleset("blood-royale").OPTIONAL_RULES}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--option", "rule_z"],
            "blood-royale has no optional rule 'rule_z'; valid names: four_character_start, rolled_king_queen, "
            "disputed_succession, trade_item_movement, event_cards, neutral_provinces, governing_provinces, "
            "extra_movement_phase, changing_capitals, no_first_turn_royal_survival, beginner_king_survival.",
        ),
        (  # a rule of another ruleset is not one of this ruleset's
            ["--ruleset", "eu-bloodline", "--option", "four_character_start"],
            "eu-bloodline has no optional rule 'four_character_start'; valid names: turkish_princess_rights, turkish_fratricide.",
        ),
        (["--ruleset", "eu-monarchs", "--option", "turkish_fratricide"], "eu-monarchs has no optional rule"),
    ],
)
def test_an_unknown_option_is_refused_with_the_valid_names_and_no_campaign(args: list[str], message: str) -> None:
    with pytest.raises(CommandError) as err:
        _run(*args)
    assert message in str(err.value)
    assert not Campaign.objects.exists()


def test_help_lists_every_option_with_its_description_and_every_argument_has_a_help_line() -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "simulate", "--help"],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    text = done.stdout
    for ruleset in RULESET_LABELS:
        assert f"  {ruleset}:" in text
        for name, description in get_ruleset(ruleset).OPTIONAL_RULES.items():
            [line] = [line for line in text.splitlines() if line.strip().startswith(name + " ")]
            assert line.split(None, 1) == [name, description]  # one line each, the registry's words
    assert "  eu-monarchs: none" in text
    for argument in ("--ruleset", "--players", "--turns", "--seed", "--name", "--slug", "--option NAME"):
        [line] = [line for line in text.splitlines() if line.strip().startswith(argument + " ")]
        assert len(line.split()) > 2, f"{argument} has no help line: {line!r}"
