"""Writing a note (issue 20): the public note, its player's or the GM's on a character, a dynasty
or the campaign. The policy says who may (``require(.., "note")``: the GM every note, a player
the player note on his own house and its people); one transaction, in the audit trail.

A note is not a move of the game: it is written outside the steps' undo checkpoints, so undoing a
step or a turn leaves the notes as they are. docs/rulings.md, "Notes and portraits"."""

from __future__ import annotations

from django.db import transaction

from campaign import audit
from campaign.models import Campaign
from campaign.permissions import Actor, note_seen, require
from campaign.steps import lock_campaign
from dynasties.models import Character, Dynasty, Note, NoteAudience
from dynasties.notes import MAX_LENGTH, render, subject_house
from rules.errors import RuleError


def note_write(
    campaign: Campaign,
    *,
    audience: str,
    text: str,
    character: Character | None = None,
    dynasty: Dynasty | None = None,
    by: Actor,
) -> Note:
    """Writes the subject's note for ``audience`` (``text`` in Markdown; empty clears it), with its
    HTML rendered now (``dynasties.notes.render``: refused, ``NoteRefused``, if it cannot be laid out
    within its bound), so that showing it renders nothing."""
    if audience not in NoteAudience.values:
        raise RuleError("Choose whose note it is: public, for its player or GM only.", fields={"audience": "unknown"})
    if character is not None and dynasty is not None:
        raise RuleError("A note is about one character, one dynasty or the campaign.")
    for subject in (character, dynasty):
        if subject is not None and subject.campaign_id != campaign.pk:
            raise RuleError("That is not part of this campaign.", code="not_found")
    text = (text or "").replace("\r\n", "\n").strip()
    if len(text) > MAX_LENGTH:
        raise RuleError(f"The note is {len(text)} characters long: keep it under {MAX_LENGTH}.", fields={"text": "too long"})
    on_campaign = character is None and dynasty is None
    require(by, campaign, "note", audience=audience, house=subject_house(character, dynasty), on_campaign=on_campaign)
    html = render(text).html  # before the lock: the campaign waits for no rendering
    with transaction.atomic(), audit.acting(by, year=campaign.current_year, step=campaign.step, label="note"):
        lock_campaign(campaign, seen=note_seen(audience, subject_house(character, dynasty), on_campaign))  # its readers see it
        note = Note.objects.select_for_update().filter(character=character, dynasty=dynasty, audience=audience)
        found = note.filter(campaign=campaign).first()
        if found is None:
            return Note.objects.create(
                campaign=campaign, character=character, dynasty=dynasty, audience=audience, text=text, html=html
            )
        if (found.text, found.html) != (text, html):
            found.text, found.html = text, html
            found.save(update_fields=["text", "html"])
        return found
