"""Notes as the pages show them: Markdown rendered, then sanitized, and only those the viewer may
read (``campaign.permissions.visible``: public, its player's, the GM's).

Markdown lets a note carry raw HTML, so the rendered HTML goes through nh3 with an allow-list:
text formatting, lists, quotes, code, tables and links (http, https, mailto only); no script,
style, image or iframe, no event attribute (``onerror=``), no ``javascript:`` link."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import markdown
import nh3
from django.utils.safestring import SafeString, mark_safe

from campaign.models import Campaign
from campaign.permissions import may_write_note, seat_of, visible
from dynasties.models import Character, Dynasty, Note, NoteAudience

TAGS = {"p", "br", "hr", "strong", "em", "b", "i", "s", "del", "code", "pre", "blockquote", "ul", "ol", "li"}
TAGS |= {"h3", "h4", "h5", "h6", "a", "table", "thead", "tbody", "tr", "th", "td"}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}
MAX_LENGTH = 20_000
"""The longest note (characters of Markdown)."""


def render(text: str) -> SafeString:
    """The note's Markdown as HTML safe to put in a page."""
    html = markdown.markdown(text or "", extensions=["sane_lists", "tables"], output_format="html")
    clean = nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES, link_rel="noopener noreferrer nofollow")
    return mark_safe(clean)  # noqa: S308 (sanitized by nh3 just above)


@dataclass
class Shown:
    """One of the three notes of a subject, as the viewer gets it: its text rendered if he may read
    it, and whether he may write it."""

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
    A note he may write is listed even empty (to be written); an empty one he may only read is not."""
    seat = seat_of(user, campaign)
    house = subject_house(character, dynasty)
    on_campaign = character is None and dynasty is None
    found = Note.objects.filter(character=character, dynasty=dynasty)
    readable = {n.audience: n for n in visible(user, campaign, found)}
    shown = []
    for audience in NoteAudience:
        note = readable.get(audience.value)
        writable = may_write_note(seat.role, seat.dynasty, audience.value, house, on_campaign)
        text = note.text if note is not None else ""
        if not writable and not text:
            continue
        shown.append(Shown(audience.value, audience.label, _readers(audience.value, on_campaign), text, render(text), writable))
    return shown
