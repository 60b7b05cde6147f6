"""Template tags of the pages."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from campaign.building import SetupStatus
from campaign.building import setup_status as _setup_status
from campaign.dice import PURPOSE_LABELS
from campaign.models import Campaign, Roll, RollSource
from campaign.steps import STEP_LABELS
from campaign.undo import new_action_key
from dynasties.models import Character
from dynasties.services.editing import characteristics_text
from rules.characteristics import characteristics_of

register = template.Library()


@register.simple_tag
def action_key() -> SafeString:
    """A hidden one-time key for a POST form: the same submit twice is done once."""
    return format_html('<input type="hidden" name="action_key" value="{}">', new_action_key())


@register.simple_tag
def setup_status(campaign: Campaign) -> SetupStatus:
    """Where a campaign's set-up stands (``campaign.building``): asked only of one not ready."""
    return _setup_status(campaign)


@register.filter
def purpose_label(purpose: str, detail: str = "") -> str:
    """A roll's purpose in words: ``characteristic`` + ``charisma`` -> "Characteristic roll (charisma)"."""
    label = PURPOSE_LABELS.get(purpose, f"{purpose.replace('_', ' ')} roll")
    label = label[:1].upper() + label[1:]
    return f"{label} ({detail})" if detail else label


@register.filter
def outcome_text(roll: Roll, campaign: Campaign) -> str:
    """A roll's outcome as the sheets write it: a characteristic named by its label ("strength +1"
    -> "Strength +1", "adm 5" -> "ADM 5"); other outcomes as logged."""
    outcome = roll.outcome or ""
    key, _, rest = outcome.partition(" ")
    labels = {c.key: c.label for sex in ("M", "F") for c in characteristics_of(campaign.rules, sex)}
    return f"{labels[key]} {rest}" if key in labels and rest else outcome


@register.filter
def characteristics(character: Character, campaign: Campaign) -> str:
    """A character's characteristics as the sheets write them: "Strength +1, Constitution +0,
    Charisma -1" (Blood Royale's modifiers signed), "ADM 5, DIP 7, MIL 4"."""
    return characteristics_text(campaign, character.sex, character.characteristics or {})


@register.filter
def step_label(step: str) -> str:
    """A step's name as the pages say it (``survival`` -> "Survival")."""
    return str(STEP_LABELS.get(step, step.replace("_", " ").capitalize()))


@register.filter
def faces_text(faces: list[int] | None) -> str:
    """The faces of a roll as a sum: [3, 4] -> "3 + 4"."""
    return " + ".join(str(f) for f in faces or [])


@register.filter
def roll_text(roll: Roll | None) -> str:
    """A roll as the table reads it: "3 + 4 +1 = 8", "total 7 = 7 (typed as a total)", "not rolled:
    certain". Typed faces say "(typed)"; the server's dice say nothing."""
    if roll is None:
        return ""
    if roll.source == RollSource.CERTAIN:
        return "not rolled: certain"
    modifier = f" {roll.modifier:+d}" if roll.modifier else ""
    if roll.source == RollSource.TOTAL:
        return f"total {roll.faces[0] if roll.faces else 0}{modifier} = {roll.total} (typed as a total)"
    typed = " (typed)" if roll.source == RollSource.ENTERED else ""
    return f"{faces_text(roll.faces)}{modifier} = {roll.total}{typed}"
