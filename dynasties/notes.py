"""Notes as the pages show them: Markdown rendered once, when a note is written, then sanitized; and
only those the viewer may read (``campaign.permissions.visible``: public, its player's, the GM's).

Rendering (issue 30): markdown-it-py, CommonMark with GitHub's tables, whose time is linear in the
text (Python-Markdown's was quadratic: 20,000 ``[`` took 76 s). The writer's service
(``dynasties.services.notes``) stores the HTML with the text (``Note.html``), so a page or the API
only reads it back: nothing is rendered on a read. A note must also render within a bound, a few
milliseconds a kilobyte: the parser's work is counted as it goes (``Work``: each rule it tries, each
token it passes over looking for a link's end, each token it makes) and a note that would take more
than ``STEPS_PER_CHARACTER`` steps a character (and ``STEPS_BASE``), or that nests quotes and lists
deeper than ``MAX_DEPTH``, is refused (``NoteRefused``) saying what to change (docs/rulings.md,
"Notes and portraits").

A note may carry raw HTML, so the rendered HTML goes through nh3 with an allow-list: text
formatting, lists, quotes, code, tables and links (http, https, mailto only); no script, style,
image or iframe, no event attribute (``onerror=``), no ``javascript:`` link."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import nh3
from django.utils.html import linebreaks
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.parser_inline import ParserInline
from markdown_it.ruler import Ruler
from markdown_it.rules_inline import StateInline

from campaign.models import Campaign
from campaign.permissions import may_write_note, seat_of, visible
from dynasties.models import Character, Dynasty, Note, NoteAudience
from rules.errors import RuleError

TAGS = {"p", "br", "hr", "strong", "em", "b", "i", "s", "del", "code", "pre", "blockquote", "ul", "ol", "li"}
TAGS |= {"h3", "h4", "h5", "h6", "a", "table", "thead", "tbody", "tr", "th", "td"}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}
LINK_REL = "noopener noreferrer nofollow"
MAX_LENGTH = 20_000
"""The longest note (characters of Markdown)."""
MAX_DEPTH = 9
"""How deep quotes and lists may nest (markdown-it-py stops laying out deeper ones: their text would
be lost from the page)."""
STEPS_PER_CHARACTER = 12
"""The parser's work a note may take, per character (beyond ``STEPS_BASE``). A step is a rule tried,
or a token passed over while looking for where a link's words end (at each ``[`` markdown-it-py
looks ahead token by token, through up to 20 nested brackets: a flood of brackets is made of those);
a token made costs ``TOKEN_STEPS``. A step costs 0.25-0.6 µs here whatever the shape, so 12 a
character is 3-7 ms of CPU a kilobyte (bench/notes.py); only the scan of a link's target, at most 32
parentheses deep, is not counted (20,000 characters of ``![a](``: 7 steps a character, 8 ms a
kilobyte). Real notes take 0.3-12.4 (prose under 1.5, a column of short italic lines 9.7, a table of
one-digit cells 12.4: tests/notes_corpus.py); bracket floods 20-60, a table of empty cells 24:
refused (docs/rulings.md, "Notes and portraits")."""
STEPS_BASE = 20_000
"""Steps any note may take whatever its length (5-12 ms here): a short note is never refused, and a
table of short cells a few kilobytes long is kept."""
TOKEN_STEPS = 10
"""What a token costs, in steps (an object, then HTML to sanitize: about what eight to ten rules
tried cost, the garbage collector's share included; a table's cells cost less: bench/notes.py)."""

_MARKS = "[]!*_`<>&\\|#~-"


class NoteRefused(RuleError):
    """A note the renderer will not lay out: too intricate (over its steps) or nested too deep."""

    code = "note_too_intricate"


class _OverBudget(Exception):
    """The work ran over the note's steps (``Work.limit``): stops the parser where it is.
    ``in_table``: it ran over inside a table's rule (its empty cells)."""

    def __init__(self, in_table: bool) -> None:
        super().__init__()
        self.in_table = in_table


class Work:
    """The parser's work on one note, counted as it goes: the same text always counts the same."""

    __slots__ = ("in_table", "limit", "state", "steps")

    def __init__(self, limit: int) -> None:
        self.steps = 0
        self.limit = limit
        self.state: Any = None  # the parser's state last seen (its tokens are counted)
        self.in_table = False  # a table's rule is running

    def watch(self, state: Any) -> None:
        """Counts the tokens ``state`` makes (a table's empty cells are made by one rule call)."""
        self.state = state
        if "push" in vars(state):
            return
        push = state.push

        def counted(*args: Any) -> Any:
            self.steps += TOKEN_STEPS
            if self.steps > self.limit:
                raise _OverBudget(self.in_table)
            return push(*args)

        state.push = counted


_WORK = "regnal_work"


def _counting_block(name: str, rule: Callable[..., bool]) -> Callable[..., bool]:
    def counted(state: Any, *args: Any) -> bool:
        work: Work = state.env[_WORK]
        work.steps += 1
        if work.steps > work.limit:
            raise _OverBudget(work.in_table)
        if state is not work.state:
            work.watch(state)
        return rule(state, *args)

    def table(state: Any, *args: Any) -> bool:
        work: Work = state.env[_WORK]
        outer, work.in_table = work.in_table, True
        try:
            return counted(state, *args)
        finally:
            work.in_table = outer

    return table if name == "table" else counted


def _counting_inline(rule: Callable[..., bool]) -> Callable[..., bool]:
    def counted(state: Any, silent: bool) -> bool:
        work: Work = state.env[_WORK]
        work.steps += 1
        if work.steps > work.limit:
            raise _OverBudget(False)
        if state is not work.state:
            work.watch(state)
        return rule(state, silent)

    return counted


def _counting_skip(state: StateInline) -> None:
    """Counts the tokens the parser passes over while it looks for a link's end (``[`` or ``![``):
    each a step, even when it has passed over that one before (a dictionary look-up then, but the
    flood of brackets is made of those: 20 for each ``[`` that never closes, one per nested level).
    Then skips it as the parser's own ``skipToken`` does (this one stands in for it)."""
    work: Work = state.env[_WORK]
    work.steps += 1
    if work.steps > work.limit:
        raise _OverBudget(False)
    ParserInline.skipToken(state.md.inline, state)


def _parser() -> MarkdownIt:
    """CommonMark (raw HTML allowed: nh3 cleans it) with GitHub's tables; no linkify, no typographer.
    Its work is counted (``Work``): every rule it tries, block and inline, and every token it passes
    over looking for a link's end, goes through a counter."""
    md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False}).enable("table")
    block: Ruler[Any] = md.block.ruler
    for rule in list(block.__rules__):
        block.at(rule.name, _counting_block(rule.name, rule.fn), {"alt": list(rule.alt)})
    inline: Ruler[Any] = md.inline.ruler
    for rule in list(inline.__rules__):
        inline.at(rule.name, _counting_inline(rule.fn), {"alt": list(rule.alt)})
    md.inline.skipToken = _counting_skip  # type: ignore[method-assign]
    md.validateLink = _any_link  # type: ignore[method-assign]
    return md


def _any_link(url: str) -> bool:
    """Every link is made a link: nh3 then keeps only http, https and mailto targets (``URL_SCHEMES``),
    so ``[x](javascript:..)`` shows its words without its target, as before issue 30."""
    return True


_MD = _parser()


@dataclass(frozen=True)
class Rendered:
    """A note rendered: its sanitized HTML, and the parser's work (steps) it took."""

    html: str
    steps: int


def steps_allowed(text: str, per_character: int | None = None, base: int | None = None) -> int:
    """The most steps the parser may take on ``text``: ``STEPS_PER_CHARACTER`` a character and
    ``STEPS_BASE``, unless given (the migration 0017 keeps its own)."""
    per_character = STEPS_PER_CHARACTER if per_character is None else per_character
    return per_character * len(text) + (STEPS_BASE if base is None else base)


def _depth(tokens: list[Any]) -> int:
    """How deep quotes and lists nest in the parsed note."""
    depth = deepest = 0
    for token in tokens:
        if token.type in ("blockquote_open", "bullet_list_open", "ordered_list_open"):
            depth += 1
            deepest = max(deepest, depth)
        elif token.type in ("blockquote_close", "bullet_list_close", "ordered_list_close"):
            depth -= 1
    return deepest


def _too_intricate(text: str, in_table: bool, per_character: int) -> NoteRefused:
    if in_table:
        return NoteRefused(
            "A table in the note has too many cells for its length (a row with fewer cells than the "
            "table's first row is filled with empty ones, and a cell costs the parser as much as a dozen "
            "characters of text). Give each row its cells, or make the table smaller.",
            fields={"text": "a table with too many cells"},
        )
    marks = Counter(c for c in text if c in _MARKS)
    worst = ""
    if marks:
        mark, count = marks.most_common(1)[0]
        worst = f" It has {count:,} “{mark}”."
    return NoteRefused(
        f"The note is too intricate to show (more than {per_character} steps of the "
        f"Markdown parser a character).{worst} Close the brackets, emphasis and code marks you open, or put a "
        f"backslash before a mark meant as plain text (\\[ \\* \\` \\<).",
        fields={"text": "too intricate"},
    )


def render(text: str, *, per_character: int | None = None, base: int | None = None) -> Rendered:
    """The note's Markdown as HTML safe to put in a page (sanitized by nh3), counted. Refuses
    (``NoteRefused``) a note over its steps (``steps_allowed``: ``per_character`` and ``base``, the
    bound's own if not given) or nesting deeper than ``MAX_DEPTH``. Called when a note is written
    (and by the import and the migration), never to show one."""
    text = text or ""
    per_character = STEPS_PER_CHARACTER if per_character is None else per_character
    work = Work(steps_allowed(text, per_character, base))
    try:
        tokens = _MD.parse(text, {_WORK: work})
    except _OverBudget as over:
        raise _too_intricate(text, over.in_table, per_character) from None
    depth = _depth(tokens)
    if depth > MAX_DEPTH:
        raise NoteRefused(
            f"The note's quotes and lists nest {depth} deep; at most {MAX_DEPTH}. Take some “>” or some indentation away.",
            fields={"text": "nested too deep"},
        )
    html = _MD.renderer.render(tokens, _MD.options, {})
    clean = nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES, link_rel=LINK_REL)
    return Rendered(clean.strip(), work.steps)


def plain(text: str) -> str:
    """A note's text as HTML without Markdown: its paragraphs and lines, escaped. What a note stored
    before issue 30 shows if the renderer refuses it now (the migration's fallback)."""
    return str(linebreaks(text or "", autoescape=True))


@dataclass
class Shown:
    """One of the three notes of a subject, as the viewer gets it: its text and its stored HTML if he
    may read it, and whether he may write it."""

    audience: str
    label: str
    readers: str
    text: str
    html: SafeString
    writable: bool


def _readers(audience: str, on_campaign: bool) -> str:
    """Who reads a note, in the words the page shows under its heading."""
    if audience == NoteAudience.PUBLIC:
        return "every member of the campaign reads it"
    if audience == NoteAudience.PLAYER:
        return "every player and the GM read it" if on_campaign else "the house's players and the GM read it"
    return "only the GM reads it"


def subject_house(character: Character | None = None, dynasty: Dynasty | None = None) -> int | None:
    """The house whose player reads and writes a subject's player note: a character's controlling
    house, a dynasty itself; None for the campaign."""
    if character is not None:
        return character.controlled_by_id
    return dynasty.pk if dynasty is not None else None


def notes_shown(
    user: Any, campaign: Campaign, *, character: Character | None = None, dynasty: Dynasty | None = None
) -> list[Shown]:
    """The subject's notes the viewer may read or write, in the order public, player, GM (one query).
    A note he may write is listed even empty (to be written); an empty one he may only read is not.
    Each shows the HTML stored when it was written (``Note.html``): nothing is rendered here."""
    seat = seat_of(user, campaign)
    house = subject_house(character, dynasty)
    on_campaign = character is None and dynasty is None
    found = Note.objects.filter(character=character, dynasty=dynasty)
    readable = {n.audience: n for n in visible(user, campaign, found)}
    shown = []
    for audience in NoteAudience:
        note = readable.get(audience.value)
        writable = may_write_note(seat.role, seat.dynasty, audience.value, house, on_campaign)
        text, html = (note.text, note.html) if note is not None else ("", "")
        if not writable and not text:
            continue
        html_safe = mark_safe(html)  # noqa: S308 (sanitized by nh3 when the note was written: render)
        shown.append(Shown(audience.value, audience.label, _readers(audience.value, on_campaign), text, html_safe, writable))
    return shown
