"""Backups (docs/backups.md): dated exports of every campaign, written atomically and rotated, that
import back to the same campaign in every ruleset."""

from __future__ import annotations

import copy
import datetime
import gzip
import json
import os
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign.models import Campaign
from dynasties.services import campaign_create
from operations import backup
from operations.backup import backup_campaigns, backup_name, backups_of, read_backup
from operations.exchange import campaign_export, campaign_import
from rules.dice import RandomSource

UTC = datetime.UTC


def at(day: int, hour: int = 2) -> datetime.datetime:
    return datetime.datetime(2026, 3, day, hour, 0, 0, tzinfo=UTC)


def without_slug(data: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    del out["campaign"]["slug"]
    return out


def money_and_contracts(campaign: Campaign) -> None:
    """Through the services: taxes, a gift and its reversal, an alliance with a payment and a
    recurring payment, and a truce with a term."""
    from campaign.permissions import SYSTEM_ACTOR
    from contracts.services import contract_draft, contract_sign
    from dynasties.models import Dynasty, PostingKind
    from dynasties.treasury import post, posting_reverse, treasury_transfer

    first, second = Dynasty.objects.filter(campaign=campaign).order_by("pk")[:2]
    post(campaign, payer=None, payee=first, amount=1000, kind=PostingKind.TAX, reason="taxes")
    gift = treasury_transfer(campaign=campaign.pk, payer=first, payee=second, amount=10, reason="a gift", by=SYSTEM_ACTOR)
    posting_reverse(campaign=campaign.pk, posting=gift, reason="sent twice", by=SYSTEM_ACTOR)
    pay = {"payer": first.pk, "payee": second.pk, "amount": 5}
    alliance = contract_draft(
        campaign=campaign.pk,
        kind="agreement",
        title="Alliance",
        parties=[first, second],
        clauses=[
            {"kind": "payment", "params": pay},
            {"kind": "recurring_payment", "params": {**pay, "from_year": campaign.current_year, "turns": 2}},
        ],
        by=SYSTEM_ACTOR,
    )
    contract_sign(campaign=campaign.pk, contract=alliance, by=SYSTEM_ACTOR)
    truce = contract_draft(
        campaign=campaign.pk, kind="treaty", title="Truce", parties=[first, second], term_years=1, by=SYSTEM_ACTOR
    )
    contract_sign(campaign=campaign.pk, contract=truce, by=SYSTEM_ACTOR)


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", ["blood-royale", "eu-bloodline", "eu-monarchs"])
def test_a_backup_imports_back_to_the_same_campaign_in_every_ruleset(ruleset, tmp_path):
    from campaign.permissions import SYSTEM_ACTOR
    from operations.services import demo_create
    from operations.simulation import play_turn

    demo = demo_create(ruleset=ruleset).campaign
    demo = play_turn(demo, RandomSource(11), by=SYSTEM_ACTOR)
    money_and_contracts(demo)
    demo = play_turn(demo, RandomSource(12), by=SYSTEM_ACTOR)  # the instalment is paid, the truce runs out
    original = campaign_export(demo)
    assert original["rolls"] and original["chronicle"] and len(original["postings"]) >= 5
    assert {c["state"] for c in original["contracts"]} == {"in_force", "ended"} and original["clauses"]

    result = backup_campaigns(directory=tmp_path, now=at(1), compress=ruleset == "eu-bloodline")
    [written] = result.written
    suffix = ".json.gz" if ruleset == "eu-bloodline" else ".json"
    assert written.path == tmp_path / f"{demo.slug}-20260301-020000{suffix}" and written.size == written.path.stat().st_size
    restored = campaign_import(read_backup(written.path))
    assert restored.slug != demo.slug
    assert without_slug(campaign_export(restored)) == without_slug(original)


@pytest.mark.django_db
def test_the_file_is_the_export_commands_text(tmp_path):
    campaign = campaign_create(name="Plain", players=3, source=RandomSource(1))
    [written] = backup_campaigns(directory=tmp_path, now=at(1)).written
    out = StringIO()
    call_command("export_campaign", campaign.slug, stdout=out)
    assert written.path.read_text(encoding="utf-8") == out.getvalue()
    [packed] = backup_campaigns(directory=tmp_path, now=at(2), compress=True).written
    assert gzip.decompress(packed.path.read_bytes()).decode("utf-8") == out.getvalue()
    assert read_backup(packed.path) == read_backup(written.path) == json.loads(out.getvalue())


@pytest.mark.django_db
def test_rotation_keeps_the_newest_per_campaign_and_touches_nothing_else(tmp_path):
    one = campaign_create(name="One", players=3, source=RandomSource(1))
    two = campaign_create(name="One Two", players=3, source=RandomSource(2))  # slug one-two: "one-" is not its prefix
    assert (one.slug, two.slug) == ("one", "one-two")
    (tmp_path / "notes.txt").write_text("keep me")
    (tmp_path / "one-latest.json").write_text("{}")  # not named like a backup
    for day in (1, 2, 3):
        backup_campaigns(directory=tmp_path, keep=2, now=at(day))
    assert [p.name for p in backups_of(tmp_path, "one")] == ["one-20260303-020000.json", "one-20260302-020000.json"]
    assert len(backups_of(tmp_path, "one-two")) == 2
    result = backup_campaigns(directory=tmp_path, keep=2, slug="one", now=at(4), compress=True)
    assert [w.path.name for w in result.written] == ["one-20260304-020000.json.gz"]
    assert [p.name for p in result.removed] == ["one-20260302-020000.json"]
    assert [p.name for p in backups_of(tmp_path, "one")] == ["one-20260304-020000.json.gz", "one-20260303-020000.json"]
    assert len(backups_of(tmp_path, "one-two")) == 2  # only the campaign backed up is rotated
    assert (tmp_path / "notes.txt").exists() and (tmp_path / "one-latest.json").exists()
    gone = [tmp_path / backup_name("gone", at(day)) for day in (1, 2)]
    for path in gone:
        path.write_text("{}")
    backup_campaigns(directory=tmp_path, keep=1, now=at(5))
    assert all(path.exists() for path in gone)  # a deleted campaign's backups are never rotated away
    assert len(backups_of(tmp_path, "one")) == len(backups_of(tmp_path, "one-two")) == 1


@pytest.mark.django_db
def test_a_failed_write_leaves_no_partial_file_and_the_old_backups(tmp_path, monkeypatch):
    campaign_create(name="Safe", players=3, source=RandomSource(1))
    [first] = backup_campaigns(directory=tmp_path, now=at(1)).written
    good = first.path.read_bytes()

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    result = backup_campaigns(directory=tmp_path, keep=1, now=at(2))
    [(slug, why)] = result.failed
    assert slug == "safe" and not result.written and not result.removed
    assert why == f"Cannot write the backup {tmp_path / 'safe-20260302-020000.json'}: No space left on device."
    assert sorted(p.name for p in tmp_path.iterdir()) == ["safe-20260301-020000.json"]  # no temporary file, nothing rotated
    assert first.path.read_bytes() == good
    with pytest.raises(CommandError, match="No space left on device"):
        call_command("backup", "--dir", str(tmp_path), stdout=StringIO())
    monkeypatch.undo()
    # a backup made again in the same second replaces the file whole
    again = backup_campaigns(directory=tmp_path, now=at(1)).written[0]
    assert again.path == first.path and again.path.read_bytes() == good


@pytest.mark.django_db
def test_the_command_prints_what_it_wrote_and_removed(tmp_path):
    campaign_create(name="Night", players=3, source=RandomSource(1))
    old = tmp_path / backup_name("night", at(1))
    old.write_text("{}")
    out = StringIO()
    call_command("backup", "--dir", str(tmp_path), "--keep", "1", stdout=out)
    lines = out.getvalue().splitlines()
    [new] = backups_of(tmp_path, "night")
    assert lines == [f"Wrote {new} ({new.stat().st_size} bytes).", f"Removed {old}."]
    assert not old.exists()
    out = StringIO()
    call_command("backup", "--dir", str(tmp_path / "deeper" / "still"), "--campaign", "night", "--gzip", stdout=out)
    assert out.getvalue().startswith(f"Wrote {tmp_path / 'deeper' / 'still' / 'night-'}") and ".json.gz (" in out.getvalue()
    with pytest.raises(CommandError, match="no campaign with the slug 'nowhere'"):
        call_command("backup", "--dir", str(tmp_path), "--campaign", "nowhere")
    with pytest.raises(CommandError, match="Keep at least one backup"):
        call_command("backup", "--dir", str(tmp_path), "--keep", "0")
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    with pytest.raises(CommandError, match="Cannot make the backup directory"):
        call_command("backup", "--dir", str(blocked / "sub"))


@pytest.mark.django_db
def test_the_backup_is_restored_with_import_campaign(tmp_path, gm):
    campaign = campaign_create(name="Restore Me", players=3, source=RandomSource(1))
    [written] = backup_campaigns(directory=tmp_path, compress=True).written
    out = StringIO()
    call_command("import_campaign", str(written.path), "--gm", "gm", "--slug", "restored", stdout=out)
    assert out.getvalue().strip() == "Imported Restore Me as restored."
    restored = Campaign.objects.get(slug="restored")
    assert without_slug(campaign_export(restored)) == without_slug(campaign_export(campaign))
    assert restored.memberships.get().user == gm


def test_names_are_in_utc_and_only_backups_match(tmp_path: Path):
    paris = datetime.timezone(datetime.timedelta(hours=1))
    assert backup_name("demo", datetime.datetime(2026, 3, 1, 3, 4, 5, tzinfo=paris)) == "demo-20260301-020405.json"
    assert backup_name("demo", at(1), compress=True) == "demo-20260301-020000.json.gz"
    for name in (
        "demo-20260301-020000.json",
        "demo-20260302-020000.json.gz",
        "demo-2026-03-01.json",
        "demo.json",
        "demo-x-20260301-020000.json",
        ".demo-20260303-020000.json.abc.tmp",
    ):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in backups_of(tmp_path, "demo")] == ["demo-20260302-020000.json.gz", "demo-20260301-020000.json"]
    assert backups_of(tmp_path / "missing", "demo") == []
    assert backup.DEFAULT_KEEP == 14
