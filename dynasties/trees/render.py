"""Run ``dot`` on a tree's DOT text, and cache the result by a version of the data.

    result = render_tree(campaign=c, kind="succession", crown="England", fmt="pdf")
    result.content, result.content_type, result.cached

The cache is a directory of files (``settings.TREE_CACHE_DIR``, default ``<project>/var/trees``),
one sub-directory per campaign, named by the digest of the rows the tree is drawn from
(:func:`~dynasties.trees.data.rows_version`) and of the request (kind, focus, caps, format, link
pattern). A hit costs one SELECT (:func:`~dynasties.trees.data.data_version`) and one file read; any change to a
character, marriage, reign, title or dynasty gives a new version, and the renders of older
versions of the campaign are deleted when a new one is written.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynasties.trees.data import KINDS, Rows, TreeError, build_tree, data_version, load_rows
from dynasties.trees.dot import ADMIN_URL, to_dot

FORMATS = {"svg": "image/svg+xml", "png": "image/png", "pdf": "application/pdf", "dot": "text/vnd.graphviz"}
LAYOUT_VERSION = "1"  # bump when the DOT builder changes what it draws
DOT_TIMEOUT = 120


class RenderError(RuntimeError):
    pass


def dot_binary() -> str:
    found = shutil.which("dot")
    if found is None:
        raise RenderError("Graphviz `dot` is not installed (apt-get install graphviz).")
    return found


def render_dot(text: str, fmt: str) -> bytes:
    """``dot -Gnewrank=true -T<fmt>`` on the text (never ortho splines)."""
    if fmt == "dot":
        return text.encode()
    if fmt not in FORMATS:
        raise TreeError(f"Unknown format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    proc = subprocess.run(  # noqa: S603
        [dot_binary(), "-Gnewrank=true", f"-T{fmt}"],
        input=text.encode(),
        capture_output=True,
        timeout=DOT_TIMEOUT,
        check=False,
    )
    if proc.returncode != 0:
        raise RenderError(f"dot failed ({proc.returncode}): {proc.stderr.decode(errors='replace')[:500]}")
    return proc.stdout


def cache_dir() -> Path:
    from django.conf import settings

    configured = getattr(settings, "TREE_CACHE_DIR", None)
    return Path(configured) if configured else Path(settings.BASE_DIR) / "var" / "trees"


@dataclass(frozen=True)
class TreeRequest:
    kind: str
    dynasty: int | None = None
    focus: int | None = None
    generations: int | None = None
    crown: str | None = None
    limit: int | None = 10
    fmt: str = "svg"
    url: str | None = ADMIN_URL
    paper: str | None = "auto"  # PNG and PDF only; SVG is never scaled

    def key(self) -> str:
        return hashlib.blake2b(repr((LAYOUT_VERSION, self)).encode(), digest_size=10).hexdigest()


@dataclass(frozen=True)
class Rendered:
    content: bytes
    content_type: str
    cached: bool
    version: str
    path: Path | None


def tree_dot(campaign: Any, request: TreeRequest, rows: Rows | None = None) -> str:
    """The DOT text of the asked tree (no rendering): the data, then the text."""
    if request.kind not in KINDS:
        raise TreeError(f"Unknown tree kind {request.kind!r}; choose one of {', '.join(KINDS)}.")
    rows = rows if rows is not None else load_rows(campaign)
    line: list[tuple[int, int]] = []
    monarch = None
    title = {
        "campaign": f"{campaign.name}",
        "ancestors": "Ancestors",
        "descendants": "Descendants",
    }.get(request.kind, request.kind.capitalize())
    if request.kind == "succession":
        if not request.crown:
            raise TreeError("A succession tree needs a crown.")
        from dynasties.rules.errors import RuleError
        from dynasties.services.succession_view import succession_line

        try:
            succession = succession_line(campaign=campaign, crown=request.crown, limit=request.limit)
        except RuleError as exc:
            raise TreeError(str(exc)) from exc
        line = [(e.position, e.character.pk) for e in succession.entries]
        monarch = succession.monarch.pk if succession.monarch else None
        title = f"The line of succession of {request.crown}, {succession.year}"
    names = {c.id: f"{c.given_name} {c.dynastic_name}" for c in rows.characters}
    if request.kind == "dynasty":
        house = next((d for d in rows.dynasties if d.id == request.dynasty), None)
        title = f"House {house.name}" if house else "Dynasty"
    if request.kind in ("ancestors", "descendants") and request.focus in names:
        title = f"{title} of {names[request.focus]}"
    if request.generations is not None and request.kind != "succession":
        title += f" ({request.generations} generations)"
    tree = build_tree(
        rows,
        kind=request.kind,
        dynasty=request.dynasty,
        focus=request.focus,
        generations=request.generations,
        line=line,
        monarch=monarch,
        title=title,
    )
    paper = request.paper if request.fmt in ("png", "pdf") else None
    return to_dot(tree, url=request.url, paper=paper)


def render_tree(campaign: Any, request: TreeRequest, *, use_cache: bool = True) -> Rendered:
    """The tree rendered in ``request.fmt``: from the cache if the data has not changed since."""
    if request.fmt not in FORMATS:
        raise TreeError(f"Unknown format {request.fmt!r}; choose one of {', '.join(FORMATS)}.")
    version = _version(campaign, request)
    folder = cache_dir() / str(campaign.pk)
    path = folder / f"{version}-{request.key()}.{request.fmt}"
    if use_cache:
        try:
            return Rendered(path.read_bytes(), FORMATS[request.fmt], True, version, path)
        except FileNotFoundError:
            pass
    content = render_dot(tree_dot(campaign, request), request.fmt)
    if use_cache:
        _store(folder, path, content, version)
    return Rendered(content, FORMATS[request.fmt], False, version, path if use_cache else None)


def _version(campaign: Any, request: TreeRequest) -> str:
    """The rows' digest, plus what else a succession line depends on (the year, the rules, the
    renunciations): a succession tree is redrawn when any of them changes."""
    extra: tuple[Any, ...] = ()
    if request.kind == "succession":
        from dynasties.models import Renunciation

        renounced = tuple(
            Renunciation.objects.filter(campaign=campaign).order_by("id").values_list("id", "character_id", "crown", "year")
        )
        extra = (campaign.current_year, campaign.ruleset, repr(campaign.optional_rules), renounced)
    digest = data_version(campaign)
    if extra:
        digest = hashlib.blake2b(repr((digest, extra)).encode(), digest_size=16).hexdigest()
    return digest


def _store(folder: Path, path: Path, content: bytes, version: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():  # renders of an older version of the campaign are dead weight
        if not old.name.startswith(version) and not old.name.startswith("."):
            old.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(content)
    os.replace(tmp, path)  # atomic: a reader sees the whole file or none
