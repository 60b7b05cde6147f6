"""Run ``dot`` on a tree's DOT text, and cache the result by a version of the data.

    result = render_tree(campaign=c, kind="succession", crown="England", fmt="pdf")
    result.content, result.content_type, result.cached

A render is kept under a key made of the campaign, the digest of the rows the tree is drawn from
(:func:`~dynasties.trees.data.rows_version`) and of the request (kind, focus, caps, format, link
pattern), in the artifact storage, indexed in the database (:mod:`.cache`: every server sees it).
A hit costs one SELECT (:func:`~dynasties.trees.data.data_version`), the index's SELECT and UPDATE
(its last use) and one read from the storage; any change to a character, marriage, reign, title,
dynasty or portrait gives a new version, and the renders of older versions of the campaign are
deleted when a new one is written.

A person with a portrait has it in his box (SVG, PNG, PDF; not in DOT text): dot reads local files
only, so the render hands it small PNG copies in a temporary folder, and the SVG gets them as
``data:`` URIs in place of those paths. A tree of more than ``PORTRAITS_MAX_PEOPLE`` is drawn
without them. Portraits are public to the campaign's members, as the tree is.

A PDF is one sheet of the paper asked (A4, A3 or Letter, landscape or portrait: issue 34), the tree
scaled to fit it, up or down, within a margin (:func:`on_sheet`: dot's own vector drawing placed on
the page by pypdf, so it stays sharp at any scale); ``paper=auto`` takes A4 up to
``A4_MAX_PEOPLE`` people, else A3. A PNG is scaled down to the sheet at ``PNG_DPI``.

The cache is bounded (issue 14). Every parameter has one set of bounds (:meth:`TreeRequest.checked`,
which the page, the API and the command all go through; the API's serializer reads the same
constants), and a parameter the kind does not use is dropped, so it cannot make a new render. The
whole cache stays under ``settings.TREE_CACHE_MAX_BYTES``, the least recently used renders going
first (:mod:`.cache`).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from html import escape
from typing import Any

from django.core.files.storage import default_storage
from django.urls import reverse
from PIL import Image
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ContentStream, RectangleObject

from campaign.models import Campaign
from dynasties.trees import cache
from dynasties.trees.data import KINDS, Rows, Tree, TreeError, build_tree, data_version, load_rows, select_people
from dynasties.trees.dot import A4_MAX_PEOPLE, ADMIN_URL, ORIENTATIONS, PAPERS, paper_for, sheet, to_dot

FORMATS = {"svg": "image/svg+xml", "png": "image/png", "pdf": "application/pdf", "dot": "text/vnd.graphviz"}
LAYOUT_VERSION = "4"  # bump when the DOT builder changes what it draws (2: portraits; 3: a PDF on its sheet;
# 4: backslashes and entities in names drawn as typed)
DOT_TIMEOUT = 120
PORTRAITS_MAX_PEOPLE = 300
"""A tree of more people is drawn without portraits (bench/tree.py: the figures in docs/rulings.md)."""
THUMBNAIL = (96, 96)
"""A portrait on a tree, in pixels at most (drawn 40x48 points: sharp at the PNG's 150 dpi)."""

# The bounds of a tree's parameters: the one definition (the API's TreeQuery reads them too).
ID_MAX = 2**31 - 1  # focus and dynasty are database ids: 1 .. ID_MAX
GENERATIONS_MAX = 100  # generations: 0 .. GENERATIONS_MAX
LIMIT_MIN, LIMIT_MAX, LIMIT_DEFAULT = 1, 100, 10  # heirs on a succession tree
CROWN_MAX_LENGTH = 80
PAPERS_ASKED = ("auto", *PAPERS)
_PAPER_NAMES = {name.lower(): name for name in PAPERS_ASKED}  # a4, a3, letter, auto: any case
SHEET_MARGIN = 36
"""Points (half an inch) left blank around a tree on its PDF sheet: inside any printer's margins."""


class RenderError(RuntimeError):
    pass


_SENTINEL = 987654321


def pages_url(campaign: Campaign) -> str:
    """The link pattern (``{id}``) of the character pages of this campaign: where a person of a
    tree links for a player or an observer (the GM's default is ``ADMIN_URL``, the desk)."""
    return reverse("pages:character", args=[campaign.slug, _SENTINEL]).replace(str(_SENTINEL), "{id}")


def dot_binary() -> str:
    found = shutil.which("dot")
    if found is None:
        raise RenderError("Graphviz `dot` is not installed (apt-get install graphviz).")
    return found


PNG_DPI = 150
"""A tree's PNG is drawn at 150 dots per inch: sharp on A4 paper (Graphviz's own default is 96)."""


def render_dot(text: str, fmt: str) -> bytes:
    """``dot -Gnewrank=true -T<fmt>`` on the text (never ortho splines); PNG at ``PNG_DPI``."""
    if fmt == "dot":
        return text.encode()
    if fmt not in FORMATS:
        raise TreeError(f"Unknown format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    resolution = [f"-Gdpi={PNG_DPI}"] if fmt == "png" else []
    proc = subprocess.run(  # noqa: S603
        [dot_binary(), "-Gnewrank=true", *resolution, f"-T{fmt}"],
        input=text.encode(),
        capture_output=True,
        timeout=DOT_TIMEOUT,
        check=False,
    )
    if proc.returncode != 0:
        raise RenderError(f"dot failed ({proc.returncode}): {proc.stderr.decode(errors='replace')[:500]}")
    return proc.stdout


def _bounded(name: str, value: int | None, low: int, high: int) -> None:
    if value is not None and not low <= value <= high:
        raise TreeError(f"{name} must be between {low} and {high}, not {value}.")


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
    orientation: str = "landscape"  # how the sheet lies (PNG and PDF)

    def checked(self) -> TreeRequest:
        """This request within the bounds (else :class:`TreeError` saying what to fix), with what
        its kind does not use dropped: two requests that draw the same tree are equal."""
        if self.kind not in KINDS:
            raise TreeError(f"Unknown tree kind {self.kind!r}; choose one of {', '.join(KINDS)}.")
        if self.fmt not in FORMATS:
            raise TreeError(f"Unknown format {self.fmt!r}; choose one of {', '.join(FORMATS)}.")
        paper = self.paper if self.paper is None else _PAPER_NAMES.get(self.paper.lower())
        if self.paper is not None and paper is None:
            raise TreeError(
                f"Unknown paper {self.paper!r}; choose A4, A3 or Letter (or auto: A4 up to {A4_MAX_PEOPLE} people, else A3)."
            )
        orientation = (self.orientation or "landscape").lower()
        if orientation not in ORIENTATIONS:
            raise TreeError(f"Unknown orientation {self.orientation!r}; choose landscape or portrait.")
        _bounded("focus", self.focus, 1, ID_MAX)
        _bounded("dynasty", self.dynasty, 1, ID_MAX)
        _bounded("generations", self.generations, 0, GENERATIONS_MAX)
        _bounded("limit", self.limit, LIMIT_MIN, LIMIT_MAX)
        if self.crown is not None and len(self.crown) > CROWN_MAX_LENGTH:
            raise TreeError(f"crown must be at most {CROWN_MAX_LENGTH} characters, not {len(self.crown)}.")
        succession = self.kind == "succession"
        return replace(
            self,
            dynasty=self.dynasty if self.kind == "dynasty" else None,
            generations=None if succession else self.generations,
            crown=self.crown if succession else None,
            limit=(self.limit or LIMIT_DEFAULT) if succession else LIMIT_DEFAULT,
            paper=(paper or "auto") if self.fmt in ("png", "pdf") else "auto",
            orientation=orientation if self.fmt in ("png", "pdf") else "landscape",
        )

    def key(self) -> str:
        return hashlib.blake2b(repr((LAYOUT_VERSION, self)).encode(), digest_size=10).hexdigest()


@dataclass(frozen=True)
class Rendered:
    content: bytes
    content_type: str
    cached: bool
    version: str
    name: str | None
    """Its name in the artifact storage (None: not kept)."""


def tree_dot(campaign: Any, request: TreeRequest, rows: Rows | None = None) -> str:
    """The DOT text of the asked tree (no rendering, so no portraits): the data, then the text."""
    request = request.checked()
    paper = request.paper if request.fmt == "png" else None  # a PDF is fitted to its sheet afterwards
    return to_dot(_tree(campaign, request, rows), url=request.url, paper=paper, orientation=request.orientation)


def _tree(campaign: Any, request: TreeRequest, rows: Rows | None = None) -> Tree:
    """The asked tree's data (``request`` checked)."""
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
        from dynasties.services.succession_view import succession_line
        from rules.errors import RuleError

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
    return build_tree(
        rows,
        kind=request.kind,
        dynasty=request.dynasty,
        focus=request.focus,
        generations=request.generations,
        line=line,
        monarch=monarch,
        title=title,
    )


@contextmanager
def portraits_on_disk(tree: Tree, fmt: str) -> Iterator[dict[int, str]]:
    """The portraits of the tree's people as small PNG files in a temporary folder (dot reads only
    local files): person id -> path, for as long as the block runs. None on a tree of more than
    ``PORTRAITS_MAX_PEOPLE`` people (their decoding would outweigh dot), nor in DOT text (it would
    name a folder that is gone); a portrait whose file is missing or unreadable is left out."""
    drawn = {p.id: p.portrait for p in tree.people.values() if p.portrait}
    if fmt == "dot" or not drawn or len(tree.people) > PORTRAITS_MAX_PEOPLE:
        yield {}
        return
    with tempfile.TemporaryDirectory(prefix="regnal-tree-") as folder:
        found: dict[int, str] = {}
        for pk, name in drawn.items():
            path = os.path.join(folder, f"{pk}.png")
            try:
                with default_storage.open(name, "rb") as f, Image.open(f) as image:
                    image.draft("RGB", THUMBNAIL)  # a JPEG decoded at a fraction of its size: 4x quicker
                    image.thumbnail(THUMBNAIL)
                    image.convert("RGBA").save(path, "PNG", compress_level=1)
            except (OSError, ValueError, SyntaxError):  # gone from the storage, or not an image any more
                continue
            found[pk] = path
        yield found


def embedded(svg: bytes, images: dict[int, str]) -> bytes:
    """The SVG with each portrait's local path (dot writes ``xlink:href="<path>"``) replaced by the
    image itself as a ``data:`` URI: the served SVG names no file of the server and needs no other
    request (the CSP allows ``data:`` images)."""
    uris: dict[bytes, bytes] = {}
    for path in images.values():
        with open(path, "rb") as f:
            uris[f'"{escape(path)}"'.encode()] = b'"data:image/png;base64,' + base64.b64encode(f.read()) + b'"'
    return re.sub(b"|".join(re.escape(p) for p in uris), lambda m: uris[m.group(0)], svg)


def draw(campaign: Any, request: TreeRequest) -> bytes:
    """The asked tree rendered by dot, portraits included where they fit."""
    request = request.checked()
    if request.fmt == "dot":
        return tree_dot(campaign, request).encode()
    tree = _tree(campaign, request)
    paper = request.paper if request.fmt == "png" else None  # a PDF is fitted to its sheet below
    with portraits_on_disk(tree, request.fmt) as images:
        text = to_dot(tree, url=request.url, paper=paper, orientation=request.orientation, images=images)
        content = render_dot(text, request.fmt)
        if request.fmt == "svg" and images:
            return embedded(content, images)  # while the portraits' files are still there
    if request.fmt == "pdf":
        size = paper_for(tree, request.paper) or "A4"
        return on_sheet(content, sheet(size, request.orientation, points=True), title=tree.title)
    return content


def on_sheet(pdf: bytes, points: tuple[float, float], *, title: str = "") -> bytes:
    """dot's PDF (one page, as large as the drawing) on one sheet of ``points`` (width, height):
    scaled to fit within ``SHEET_MARGIN``, up or down, and centred. The drawing stays vector (fonts
    and lines scale, nothing is rasterised): its page becomes the sheet, its content wrapped in one
    transformation (``q <scale> 0 0 <scale> <x> <y> cm ... Q``), never parsed (a 1,000-person tree's
    content is megabytes). Its links are dropped (they would point at this site's relative
    addresses, meaningless on paper)."""
    drawn = PdfReader(io.BytesIO(pdf)).pages[0]
    if "/Annots" in drawn:  # a link a person: dropped before the page is copied (a 1,000-person tree's copy took 0.6 s)
        del drawn["/Annots"]
    writer = PdfWriter()
    page = writer.add_page(drawn)
    box = page.mediabox
    width, height = float(box.width), float(box.height)
    page_w, page_h = points
    scale = min((page_w - 2 * SHEET_MARGIN) / width, (page_h - 2 * SHEET_MARGIN) / height)
    x = (page_w - width * scale) / 2 - float(box.left) * scale
    y = (page_h - height * scale) / 2 - float(box.bottom) * scale
    drawing = page.get_contents()
    wrapped = ContentStream(None, writer)
    body = drawing.get_data() if drawing is not None else b""
    wrapped.set_data(f"q {scale:.6f} 0 0 {scale:.6f} {x:.4f} {y:.4f} cm\n".encode() + body + b"\nQ\n")
    page.replace_contents(wrapped)
    for name in ("/CropBox", "/BleedBox", "/TrimBox", "/ArtBox"):
        if name in page:
            del page[name]
    page.mediabox = RectangleObject([0, 0, page_w, page_h])
    page.compress_content_streams()
    writer.add_metadata({"/Title": title, "/Creator": "Regnal (Graphviz, pypdf)"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def cache_key(campaign: Any, request: TreeRequest) -> tuple[str, str]:
    """(version, key) of the request's render in the cache, as the data stands."""
    request = request.checked()
    version = _version(campaign, request)
    return version, f"{campaign.pk}/{version}-{request.key()}.{request.fmt}"


def cached_tree(campaign: Any, request: TreeRequest) -> Rendered | None:
    """The tree from the cache, or None if it has to be drawn (the data changed, or never drawn)."""
    request = request.checked()
    version, key = cache_key(campaign, request)
    hit = cache.fetch(key)
    return None if hit is None else Rendered(hit[0], FORMATS[request.fmt], True, version, hit[1])


def tree_people(campaign: Any, request: TreeRequest, *, over: int) -> int:
    """How many people the tree draws (what dot's time grows with), exactly when the campaign has
    more than ``over`` characters, else the campaign's count (a bound). A succession tree counts as
    the whole campaign (its line is the render's work)."""
    from dynasties.models import Character

    request = request.checked()
    everyone = Character.objects.filter(campaign=campaign).count()
    if everyone <= over or request.kind == "succession":
        return everyone
    rows = load_rows(campaign)
    kept = select_people(rows, kind=request.kind, dynasty=request.dynasty, focus=request.focus, generations=request.generations)
    return len(kept)


def render_tree(campaign: Any, request: TreeRequest, *, use_cache: bool = True) -> Rendered:
    """The tree rendered in ``request.fmt``: from the cache if the data has not changed since."""
    request = request.checked()
    version, key = cache_key(campaign, request)
    if use_cache:
        hit = cache.fetch(key)
        if hit is not None:
            return Rendered(hit[0], FORMATS[request.fmt], True, version, hit[1])
    content = draw(campaign, request)
    name = cache.keep(campaign.pk, version, key, content) if use_cache else None
    return Rendered(content, FORMATS[request.fmt], False, version, name)


def render_tree_artifact(campaign_id: int, **request: Any) -> str | None:
    """Render a tree into the cache, as a task would (JSON arguments: the campaign's id and the
    :class:`TreeRequest`'s fields): the render's name in the artifact storage, None if it is too
    large to keep. The page or the API then serves it from the cache."""
    return render_tree(Campaign.objects.get(pk=campaign_id), TreeRequest(**request)).name


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
