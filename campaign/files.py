"""Files written whole or not at all (issue 30): a full disk leaves no partial file behind.

- :class:`AtomicFileSystemStorage` is the site's ``default`` storage (``settings.STORAGES``): the
  files it keeps under ``MEDIA_ROOT`` (portraits, rendered trees, print batches, the GM's backups:
  everything :func:`campaign.artifacts.artifact_storage` stores when no other storage is named) are
  written to a hidden temporary file in the same directory, flushed to disk, then given their name
  (a hard link, which never replaces another file, or a rename where the storage may overwrite).
  A write that fails (``ENOSPC``: the disk is full) deletes the temporary file and raises
  :class:`DiskFull`, a refusal with a message to act on: no file of that name exists, and the
  caller writes nothing in the database that would name it.
- :func:`write_atomically` does the same for a path of the operator's choice (``manage.py backup``,
  ``export_campaign -o``, ``export_gedcom -o``, ``render_tree -o``, ``print_sheets -o``).

Only a process killed in the middle of a write leaves its temporary file: a hidden ``.*.part``
beside where the file was going, safe to delete (docs/deployment.md). An S3-compatible store
(``ARTIFACTS_STORAGE``) needs none of this: an object appears whole once its upload completes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.core.files.base import File
from django.core.files.storage import FileSystemStorage
from django.utils._os import safe_makedirs
from django.utils.deconstruct import deconstructible

from rules.errors import RuleError

TEMPORARY_SUFFIX = ".part"
_FULL = {errno.ENOSPC, errno.EDQUOT}
_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK, errno.EXDEV}


class DiskFull(RuleError, OSError):
    """The disk (or the service's quota) is full: the file was not written, nothing is left of it.
    An ``OSError`` still (``errno`` ENOSPC or EDQUOT), for code that handles those; a refusal for the
    doors, which show its message (the API answers 507 Insufficient Storage)."""

    code = "disk_full"
    status = 507

    def __init__(self, code: int = errno.ENOSPC) -> None:
        message = "The server's disk is full: the file was not written. Tell the site's operator, then try again."
        OSError.__init__(self, code, message)
        self.message, self.fields = message, {}

    def __str__(self) -> str:
        return self.message


def _sync_directory(directory: str | Path) -> None:
    """Make a rename in ``directory`` durable, where the system allows opening a directory."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # Windows: the rename is what it is
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_all(out: Any, chunks: Iterable[bytes | str]) -> None:
    for chunk in chunks:
        out.write(chunk.encode() if isinstance(chunk, str) else chunk)
    out.flush()
    os.fsync(out.fileno())


def write_atomically(path: Path | str, payload: bytes) -> None:
    """Write ``payload`` to ``path`` whole or not at all: a temporary file in the same directory
    (readable by its owner only, as the file then is), synced, then renamed over ``path`` (and the
    directory synced). A path that exists and is no regular file (``/dev/stdout``, a pipe) is
    written as it is. The ``OSError`` of a failed write goes to the caller, nothing left behind."""
    path = Path(path)
    if path.exists() and not path.is_file():
        with open(path, "wb") as out:
            out.write(payload)
        return
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as out:
            _write_all(out, [payload])
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)


@deconstructible(path="campaign.files.AtomicFileSystemStorage")
class AtomicFileSystemStorage(FileSystemStorage):
    """Django's ``FileSystemStorage`` (same options, same names and permissions), each file written
    whole or not at all (see the module)."""

    def _save(self, name: str, content: File[bytes] | File[str]) -> str:
        full_path = self.path(name)
        directory = os.path.dirname(full_path)
        try:
            if self.directory_permissions_mode is not None:
                safe_makedirs(directory, self.directory_permissions_mode, exist_ok=True)
            else:
                os.makedirs(directory, exist_ok=True)
        except FileExistsError:
            raise FileExistsError(f"{directory} exists and is not a directory.") from None
        except OSError as exc:
            _raise_if_full(exc)
            raise
        temp = os.path.join(directory, f".{secrets.token_hex(8)}{TEMPORARY_SUFFIX}")
        try:
            # mode 0o666 less the umask, as Django creates a file; FILE_UPLOAD_PERMISSIONS below
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            with os.fdopen(fd, "wb") as out:
                _write_all(out, content.chunks())
            if self.file_permissions_mode is not None:
                os.chmod(temp, self.file_permissions_mode)
            while True:
                try:
                    self._claim(temp, full_path)
                    break
                except FileExistsError:  # taken meanwhile: another name, as Django does
                    name = self.get_available_name(name)
                    full_path = self.path(name)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.remove(temp)
            if isinstance(exc, OSError):
                _raise_if_full(exc)
            raise
        _sync_directory(directory)
        name = os.path.relpath(full_path, self.location)
        self._ensure_location_group_id(full_path)  # type: ignore[attr-defined]  # Django 5.2's, not in django-stubs
        return str(name).replace("\\", "/")

    def _claim(self, temp: str, full_path: str) -> None:
        """Give the written file its name: never over another file unless the storage may
        overwrite (``FileExistsError`` then). A hard link is atomic and refuses an existing name;
        on a file system without them, a rename after a look (Django's own file_move_safe does so)."""
        if self._allow_overwrite:  # type: ignore[attr-defined]  # Django 5.1's, not in django-stubs
            os.replace(temp, full_path)
            return
        try:
            os.link(temp, full_path)
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise
            if os.path.lexists(full_path):
                raise FileExistsError(full_path) from None
            os.rename(temp, full_path)
            return
        with contextlib.suppress(OSError):  # the file has its name: a temporary name left is only untidy
            os.remove(temp)


def _raise_if_full(exc: OSError) -> None:
    """A full disk is told as :class:`DiskFull`; any other error goes on as it is."""
    if exc.errno in _FULL and not isinstance(exc, DiskFull):
        raise DiskFull(exc.errno) from exc
