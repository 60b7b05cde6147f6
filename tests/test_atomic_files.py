"""Issue 30 (lower): a full media disk leaves no partial file. Every file the site writes goes to a
temporary name and gets its own only once whole (campaign/files.py); a failed write leaves
nothing, neither the file nor its temporary, the caller is told so in words, and the database
names nothing that is not there.

The full disk is simulated where the bytes reach the file: any file opened for writing under this
test's folder (MEDIA_ROOT, the backup directory) takes its first bytes, then ENOSPC."""

from __future__ import annotations

import builtins
import errno
import html
import io
import os
import stat
from io import BytesIO, StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from PIL import Image

from campaign.files import AtomicFileSystemStorage, DiskFull
from campaign.models import Job, JobKind, JobState
from dynasties import print_jobs, printing
from dynasties.models import Character, Dynasty, Portrait, Status, TreeRender
from dynasties.services.portraits import portrait_set
from operations.backup import backup_start
from rules.errors import RuleError

ROOM = 100
"""Bytes a file takes before the disk is full."""
MESSAGE = "The server's disk is full: the file was not written. Tell the site's operator, then try again."


class FillingDisk:
    """A file on a disk that fills up: its first ``ROOM`` bytes are written, then ENOSPC."""

    def __init__(self, raw: Any) -> None:
        self.raw, self.room = raw, ROOM

    def write(self, data: Any) -> int:
        part = data[: self.room]
        self.raw.write(part)
        self.raw.flush()
        self.room -= len(part)
        if len(part) < len(data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)

    def __enter__(self) -> FillingDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        self.raw.close()


@pytest.fixture
def full_disk(monkeypatch, tmp_path):
    """Every file opened for writing under ``tmp_path`` (MEDIA_ROOT is ``tmp_path/media``) fills
    the disk after ``ROOM`` bytes: through ``os.fdopen`` (Django's storage, the temporary files)
    or ``open`` (pathlib's writes)."""
    root = str(tmp_path.resolve())
    real_fdopen, real_open = os.fdopen, io.open

    def under_root(path: str) -> bool:
        return os.path.realpath(path).startswith(root)

    def writing(mode: str) -> bool:
        return any(flag in mode for flag in "wax+")

    def fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        file = real_fdopen(fd, mode, *args, **kwargs)
        return FillingDisk(file) if writing(mode) and under_root(os.readlink(f"/proc/self/fd/{fd}")) else file

    def open_(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        file = real_open(path, mode, *args, **kwargs)
        named = isinstance(path, str | bytes | os.PathLike)
        return FillingDisk(file) if named and writing(mode) and under_root(os.fsdecode(path)) else file

    monkeypatch.setattr(os, "fdopen", fdopen)
    monkeypatch.setattr(builtins, "open", open_)
    monkeypatch.setattr(io, "open", open_)
    return tmp_path


def files_under(folder: Path) -> list[str]:
    """Every file left under ``folder``, hidden ones included."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def media(settings) -> Path:
    return Path(settings.MEDIA_ROOT)


def someone_of(campaign) -> Character:
    house = Dynasty.objects.get(campaign=campaign, crown="England")
    return Character.objects.filter(campaign=campaign, controlled_by=house, status=Status.ALIVE).first()


def png(width: int = 800, height: int = 600) -> bytes:
    out = BytesIO()
    Image.new("RGB", (width, height), "navy").save(out, "PNG")
    return out.getvalue()


# --- the storage ---------------------------------------------------------------------------------


def test_the_sites_storages_write_whole_files(settings):
    assert isinstance(storages["default"], AtomicFileSystemStorage)
    storage = AtomicFileSystemStorage()
    name = storage.save("prints/sheet.pdf", ContentFile(b"%PDF-1.7 whole"))
    again = storage.save("prints/sheet.pdf", ContentFile(b"%PDF-1.7 another"))  # never over another file
    assert name == "prints/sheet.pdf" and again != name and again.startswith("prints/sheet_")
    assert storage.open(name).read() == b"%PDF-1.7 whole" and storage.open(again).read() == b"%PDF-1.7 another"
    assert stat.S_IMODE(os.stat(storage.path(name)).st_mode) == settings.FILE_UPLOAD_PERMISSIONS == 0o644
    assert files_under(media(settings)) == sorted([name, again])  # no temporary file left
    overwriting = AtomicFileSystemStorage(allow_overwrite=True)
    assert overwriting.save(name, ContentFile("text, as str")) == name and storage.open(name).read() == b"text, as str"


def test_a_full_disk_leaves_nothing_and_says_so(settings, full_disk):
    storage = AtomicFileSystemStorage()
    with pytest.raises(DiskFull) as refused:
        storage.save("trees/1/render.svg", ContentFile(b"<svg>" + b" " * 10_000 + b"</svg>"))
    assert refused.value.message == MESSAGE and refused.value.errno == errno.ENOSPC
    assert isinstance(refused.value, OSError) and isinstance(refused.value, RuleError) and refused.value.status == 507
    assert files_under(media(settings)) == []


# --- what the site writes ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_portrait_on_a_full_disk_is_not_saved_and_the_old_one_stays(campaign, gm, settings, full_disk, monkeypatch):
    edward = someone_of(campaign)
    with pytest.raises(RuleError, match="The server's disk is full: the file was not written"):
        portrait_set(campaign, BytesIO(png()), character=edward, by=gm)
    assert not Portrait.objects.exists() and files_under(media(settings)) == []

    monkeypatch.undo()  # room again: a portrait is saved; then the disk fills up before its replacement
    first = portrait_set(campaign, BytesIO(png()), character=edward, by=gm)
    kept = files_under(media(settings))
    with monkeypatch.context() as filling:
        filling.setattr(os, "fdopen", lambda fd, mode="r", *a, **k: FillingDisk(io.FileIO(fd, "w")))
        with pytest.raises(RuleError, match="disk is full"):
            portrait_set(campaign, BytesIO(png(300, 300)), character=edward, by=gm)
    assert Portrait.objects.get() == first and Portrait.objects.get().name == first.name
    assert files_under(media(settings)) == kept == [first.name]


@pytest.mark.django_db
def test_a_portrait_upload_page_says_the_disk_is_full(client, campaign, gm, settings, full_disk):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    client.force_login(gm)
    url = reverse("pages:portrait_upload", args=[campaign.slug, "dynasty", england.pk])
    answer = client.post(url, {"image": SimpleUploadedFile("arms.png", png())}, follow=True)
    assert answer.status_code == 200
    assert f"The coat of arms was not saved: {MESSAGE}" in html.unescape(answer.content.decode())
    assert not Portrait.objects.exists() and files_under(media(settings)) == []


@pytest.mark.django_db
def test_a_tree_on_a_full_disk_is_served_but_not_kept(campaign, alice, client, settings, full_disk):
    settings.TREE_INLINE_PEOPLE = 1000  # drawn in the request
    client.force_login(alice)
    response = client.get(reverse("trees:tree", args=[campaign.slug, "campaign"]), {"format": "svg"})
    assert response.status_code == 200 and response.content.startswith(b"<?xml") and response["X-Tree-Cache"] == "miss"
    assert not TreeRender.objects.exists() and files_under(media(settings)) == []


@pytest.mark.django_db
def test_a_tree_job_on_a_full_disk_fails_saying_why(campaign, alice, client, settings, full_disk):
    settings.TREE_INLINE_PEOPLE = 5  # the test campaign has 15 characters: a job draws it
    client.force_login(alice)
    response = client.get(reverse("trees:tree", args=[campaign.slug, "campaign"]), {"format": "svg"})
    job = Job.objects.get(kind=JobKind.TREE)
    assert (job.state, job.error, job.artifact) == (JobState.FAILED, MESSAGE, "") and "render" not in job.params
    assert f"The tree could not be drawn: {MESSAGE}" in html.unescape(client.get(response["Location"]).content.decode())
    assert not TreeRender.objects.exists() and files_under(media(settings)) == []


@pytest.mark.django_db
def test_a_print_batch_on_a_full_disk_fails_saying_why(campaign, client, gm, settings, full_disk, monkeypatch):
    monkeypatch.setattr(printing, "campaign_sheets_pdf", lambda campaign, two_up: b"%PDF-1.7\n" + b"0" * 50_000)
    monkeypatch.setattr(print_jobs, "INLINE_LIMIT", 5)  # the test campaign has 15 characters: a job prints them
    client.force_login(gm)
    response = client.get(reverse("print:campaign_sheets", args=[campaign.slug]))
    job = Job.objects.get(kind=JobKind.PRINT)
    assert (job.state, job.error, job.artifact) == (JobState.FAILED, MESSAGE, "")
    assert f"The printing failed: {MESSAGE}" in html.unescape(client.get(response["Location"]).content.decode())
    assert files_under(media(settings)) == []


@pytest.mark.django_db
def test_a_backup_on_a_full_disk_fails_saying_why(campaign, gm, settings, full_disk):
    job = backup_start(campaign, by=gm, compress=True)
    job.refresh_from_db()
    assert (job.state, job.error, job.artifact) == (JobState.FAILED, MESSAGE, "")
    assert files_under(media(settings)) == []


@pytest.mark.django_db
@pytest.mark.parametrize("compress", [False, True])
def test_the_backup_command_on_a_full_disk_leaves_no_file(campaign, full_disk, compress):
    folder = full_disk / "backups"
    with pytest.raises(CommandError, match="No space left on device"):
        call_command("backup", "--dir", str(folder), *(["--gzip"] if compress else []), stdout=StringIO())
    assert files_under(folder) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "command",
    [
        ["export_campaign", "{slug}"],
        ["export_gedcom", "--campaign", "{slug}"],
        ["render_tree", "--campaign", "{slug}", "--kind", "campaign", "--format", "svg", "--no-cache"],
    ],
    ids=lambda command: command[0],
)
def test_a_command_writing_a_file_on_a_full_disk_leaves_none(campaign, full_disk, command):
    out = full_disk / "out" / "file"
    out.parent.mkdir()
    arguments = [part.format(slug=campaign.slug) for part in command]
    with pytest.raises(CommandError, match=f"Cannot write {out}: No space left on device"):
        call_command(*arguments, "--output", str(out), stdout=StringIO(), stderr=StringIO())
    assert files_under(out.parent) == []
