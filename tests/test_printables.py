"""Printable character sheets, batches and announcements, checked as a person would: the PDF is
turned into text (pdftotext -layout) and pictures (pdftoppm) and the page must show what matters."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from pypdf import PdfReader

from campaign.models import ChronicleEntry
from campaign.permissions import SYSTEM_ACTOR
from dynasties import printing
from dynasties.models import Character, Dynasty, Status
from operations.simulation import play_turn
from rules.dice import RandomSource
from tests.factories import at_step, person

PDFTOTEXT = shutil.which("pdftotext") or "/usr/bin/pdftotext"
PDFTOPPM = shutil.which("pdftoppm") or "/usr/bin/pdftoppm"


def pdf_text(pdf: bytes, tmp_path: Path, name: str = "doc") -> list[str]:
    """The text of each page, laid out as on paper."""
    src = tmp_path / f"{name}.pdf"
    src.write_bytes(pdf)
    out = subprocess.run([PDFTOTEXT, "-layout", str(src), "-"], check=True, capture_output=True, text=True).stdout
    return out.split("\f")[: pages(pdf)]


def pages(pdf: bytes) -> int:
    return len(PdfReader(io.BytesIO(pdf)).pages)


def pdf_png(pdf: bytes, tmp_path: Path, name: str = "doc", dpi: int = 50) -> list[Path]:
    src = tmp_path / f"{name}.pdf"
    src.write_bytes(pdf)
    subprocess.run([PDFTOPPM, "-png", "-r", str(dpi), str(src), str(tmp_path / name)], check=True)
    return sorted(tmp_path.glob(f"{name}*.png"))


def track_rows(text: str) -> dict[int, list[str]]:
    """year -> the words of that year-track row (year, age, need, what happened)."""
    rows: dict[int, list[str]] = {}
    for line in text.splitlines():
        for m in re.finditer(r"\b(1[2-4]\d\d)\s+(\d{1,2})\s+(-|\d{1,2})(?!\d)[ \t]*((?:[A-Za-z·]+ ?)*(?:\(-?\d+\))?)", line):
            rows[int(m.group(1))] = [m.group(2), m.group(3), m.group(4).strip()]
    return rows


@pytest.fixture
def family(campaign):
    """A hand-made English couple and child in a campaign at the Births step of 1310."""
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    father = person(campaign, england, "Edmund", "M", 1270, strength=2, constitution=1, charisma=-1)
    mother = person(campaign, france, "Blanche", "F", 1275, dynastic_name="Capet", guile=1, constitution=-2)
    mother.controlled_by = england
    mother.save()
    child = person(campaign, england, "Aymer", "M", 1291, father=father, mother=mother, constitution=1)
    child.prince_piece = "2"
    child.save()
    at_step(campaign, campaign.step, 1310)
    return father, mother, child


@pytest.mark.django_db
def test_a_sheet_shows_the_rulebook_fields_and_the_year_track(campaign, family, tmp_path):
    _father, _mother, child = family
    pdf = printing.character_sheet_pdf(child)
    assert pdf.startswith(b"%PDF") and pages(pdf) == 1
    box = PdfReader(io.BytesIO(pdf)).pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842)
    text = pdf_text(pdf, tmp_path)[0]
    for words in (
        "Blood Royale character sheet",
        "Aymer Plantagenet",
        "Year of birth",
        "1291",
        "Male",
        "Blanche Capet",
        "Edmund Plantagenet",
        "Prince number",
        "Strength",
        "Constitution",
        "Charisma",
        "Year track",
    ):
        assert words in text, words
    assert re.search(r"Strength\s+Constitution\s+Charisma", text)
    assert re.search(r"0\s+\+1\s+0", text)  # strength 0, constitution +1, charisma 0
    rows = track_rows(text)
    # born 1291: the birth turn is 1290, the track runs every 5 years to age 80 (1370, aged 79)
    assert min(rows) == 1290 and max(rows) == 1370 and len(rows) == 17
    assert rows[1290][:2] == ["0", "-"] and rows[1300][:2] == ["9", "-"]
    assert rows[1305][:2] == ["14", "-"]
    assert rows[1310][:2] == ["19", "3"]  # 19 reads the 15 column
    assert rows[1320][:2] == ["29", "4"] and rows[1340][:2] == ["49", "6"] and rows[1370][:2] == ["79", "12"]
    # the current turn is marked, past turns are filled in, future turns blank
    assert printing.NOW_MARK in rows[1310][2]
    assert rows[1305][2] == "lived" and rows[1315][2] == ""
    # the campaign's own table is used
    from campaign.models import RuleTable

    t = RuleTable.objects.get(campaign=campaign, key="survival")
    t.data = [dict(r, need=r["need"] + 1) if r["age"] == 15 else r for r in t.data]
    t.save()
    rows = track_rows(pdf_text(printing.character_sheet_pdf(child), tmp_path, "edited")[0])
    assert rows[1310][:2] == ["19", "4"]


@pytest.mark.django_db
def test_past_turns_come_from_the_roll_log_and_the_track_ends_at_death(campaign, tmp_path):
    source = RandomSource(11)
    for _ in range(4):
        campaign = play_turn(campaign, source, by=SYSTEM_ACTOR)
    assert campaign.current_year == 1320
    dead = Character.objects.filter(campaign=campaign, status=Status.DEAD, birth_year__lte=1290).first()
    alive = Character.objects.filter(campaign=campaign, status=Status.ALIVE, birth_year=1275).first()
    assert alive is not None
    rows = track_rows(pdf_text(printing.character_sheet_pdf(alive), tmp_path, "alive")[0])
    rolled = {r.year: sum(r.faces) + r.modifier for r in alive.rolls.filter(purpose="survival")}
    assert rolled
    for year in (1300, 1305, 1310, 1315):
        expected = f"survived ({rolled[year]})" if year in rolled else "lived"
        assert rows[year][2] == expected, (year, rows[year])
    assert printing.NOW_MARK in rows[1320][2] and rows[1325][2] == ""
    assert dead is not None
    if dead is not None:
        text = pdf_text(printing.character_sheet_pdf(dead), tmp_path, "dead")[0]
        rows = track_rows(text)
        death_turn = printing.turn_at_or_before(campaign, dead.death_year)
        assert max(rows) == death_turn and rows[death_turn][2].startswith("died")
        assert f"died {dead.death_year}" in text


@pytest.mark.django_db
def test_the_bloodline_card_shows_adm_dip_mil_ages_and_id(tmp_path):
    from dynasties.services import campaign_create

    c = campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4))
    ch = Character.objects.filter(campaign=c, controlled_by__isnull=False).order_by("birth_year").first()
    ch.effective_age_offset = 3
    ch.save()
    text = pdf_text(printing.character_sheet_pdf(ch), tmp_path)[0]
    for words in (
        "BloodLine character card",
        "ADM",
        "DIP",
        "MIL",
        "Real age",
        "Effective age",
        "Character ID",
        f"#{ch.pk}",
        ch.given_name,
    ):
        assert words in text, words
    values = re.search(r"ADM\s+DIP\s+MIL\s*\n\s*(\d)\s+(\d)\s+(\d)", text)
    assert values and [int(v) for v in values.groups()] == [ch.characteristics[k] for k in ("adm", "dip", "mil")]
    real = c.current_year - ch.birth_year
    assert re.search(rf"Real age\s+Effective age\s*\n.*\b{real}\s+{real + 3}\b", text), text


@pytest.mark.django_db
def test_batches_print_one_or_two_sheets_per_page(campaign, tmp_path):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    people = printing.dynasty_characters(england)
    assert len(people) == 3
    one = printing.dynasty_sheets_pdf(england)
    two = printing.dynasty_sheets_pdf(england, two_up=True)
    assert pages(one) == 3 and pages(two) == 2
    texts = pdf_text(one, tmp_path, "one")
    named = {p.pk: f"{printing.sheet_context(p)['name']} {p.dynastic_name}" for p in people}  # the King's numeral
    for sheet, text in zip(people, texts, strict=True):
        assert named[sheet.pk] in text
    box = PdfReader(io.BytesIO(two)).pages[0].mediabox
    assert round(float(box.width)) == 842  # A4 landscape, two A5 sheets side by side
    first = pdf_text(two, tmp_path, "two")[0]
    assert all(named[p.pk] in first for p in people[:2])
    everyone = printing.campaign_characters(campaign)
    assert pages(printing.campaign_sheets_pdf(campaign)) == len(everyone) == 15
    assert pages(printing.campaign_sheets_pdf(campaign, two_up=True)) == 8
    assert len(pdf_png(two, tmp_path, "two")) == 2


@pytest.mark.django_db
def test_announcements_show_public_sections_only(campaign, tmp_path):
    source = RandomSource(5)
    campaign = play_turn(campaign, source, by=SYSTEM_ACTOR)
    year = 1300
    entry = ChronicleEntry.objects.get(campaign=campaign, year=year, kind="announcements")
    ChronicleEntry.objects.create(
        campaign=campaign,
        year=year,
        step="announcements",
        kind="payment",
        text="England pays France 40 Crowns.",
        data={"dynasty": 1},
    )
    sections = entry.data["sections"]
    if "Births" not in sections:  # make sure there is a birth to print
        sections["Births"] = ["A son, Testy Plantagenet, is born in 1300 to A and B: strength +1."]
        entry.save()
    pdf = printing.announcements_pdf(campaign, year)
    assert pages(pdf) == 1
    text = pdf_text(pdf, tmp_path)[0]
    assert "Announcements for 1300" in text and "Births" in text
    for line in sections["Births"]:
        assert line.split(",")[1].strip() in text
    assert "Crowns" not in text and "pays" not in text


@pytest.mark.django_db
def test_print_sheets_command(campaign, tmp_path):
    out = tmp_path / "england.pdf"
    call_command("print_sheets", "--campaign", campaign.slug, "--dynasty", "Plantagenet", "--output", str(out))
    assert pages(out.read_bytes()) == 3
    call_command("print_sheets", "--campaign", campaign.slug, "--two-up", "--output", str(out))
    assert pages(out.read_bytes()) == 8
    call_command("print_sheets", "--campaign", campaign.slug, "--announcements", "1300", "--output", str(out))
    assert "Announcements for 1300" in pdf_text(out.read_bytes(), tmp_path)[0]


@pytest.mark.django_db
def test_the_views_let_the_gm_and_the_owner_print(campaign, client, gm, alice, bob, outsider):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    king = printing.dynasty_characters(england)[0]
    sheet = reverse("print:character_sheet", args=[king.pk])
    batch = reverse("print:dynasty_sheets", args=[england.pk])
    everyone = reverse("print:campaign_sheets", args=[campaign.slug])
    news = reverse("print:announcements", args=[campaign.slug, 1300])
    client.force_login(alice)
    r = client.get(sheet)
    assert r.status_code == 200 and r["Content-Type"] == "application/pdf" and r.content.startswith(b"%PDF")
    assert pages(client.get(batch + "?two_up=1").content) == 2
    assert client.get(everyone).status_code == 404  # not hers to print: 404, never 403 (issue 14)
    assert client.get(news).status_code == 200
    client.force_login(bob)
    assert client.get(sheet).status_code == 404 and client.get(batch).status_code == 404
    client.force_login(outsider)
    assert client.get(sheet).status_code == 404 and client.get(news).status_code == 404
    client.force_login(gm)
    assert pages(client.get(everyone).content) == 15
    client.logout()
    assert client.get(sheet).status_code == 302  # the login page


@pytest.mark.django_db
def test_a_large_batch_renders_in_the_background_with_a_ready_link(campaign, client, gm, settings, tmp_path, monkeypatch):
    from django.urls import reverse

    from campaign.models import Job, JobKind, JobState
    from dynasties import print_jobs

    settings.MEDIA_ROOT = tmp_path  # the default storage: the PDF is a file there, the job a row
    monkeypatch.setattr(print_jobs, "INLINE_LIMIT", 5)  # the test campaign has 15 characters
    client.force_login(gm)
    response = client.get(reverse("print:campaign_sheets", args=[campaign.slug]))  # the immediate backend renders it
    assert response.status_code == 302
    page = client.get(response["Location"])
    assert "Ready: 15 sheets" in page.content.decode()
    pdf = client.get(response["Location"] + "?download=1")
    assert pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    job = Job.objects.get(kind=JobKind.PRINT, campaign=campaign)
    assert (job.state, job.done, job.total, job.by) == (JobState.DONE, 15, 15, gm)
    assert (tmp_path / job.artifact).read_bytes() == pdf.content
    running = Job.objects.create(kind=JobKind.PRINT, campaign=campaign, state=JobState.RUNNING, total=15)
    page = client.get(reverse("print:job", args=[campaign.slug, running.pk])).content.decode()  # the page refreshes itself
    assert 'http-equiv="refresh"' in page and "Printing 15 character sheets in the background" in page
    assert client.get(reverse("print:job", args=[campaign.slug, "nosuchjob"])).status_code == 404
