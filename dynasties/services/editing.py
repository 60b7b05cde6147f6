"""Hand edits (issue 20): what the GM may change by hand on a character, a dynasty or a marriage,
and the refusal, in words, of what the rules own.

The admin and the Edit pages call these; each is one transaction that asks the policy
(``require(.., "edit")``: the campaign's GM), validates as the rules do (a characteristic by the
campaign's ruleset, ``rules.characteristics``), writes the rows through the audit trail and adds a
GM-only chronicle line saying what changed. The door's change set (the desk's ``change_set``, a
page's ``step_action``) makes the edit one step of undo. What the rules decide (a death, a
capture, a wedding, a die) goes through its own service: a death recorded at the table is
``dynasties.services.events.survival_event`` (reason ``killed``), a die is
``dynasties.services.corrections.correct_roll``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import models, transaction

from campaign import audit, invariants
from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties.models import Character, Dynasty, Marriage, Reign
from rules.characteristics import InvalidCharacteristics, characteristics_of, validate_characteristics
from rules.errors import NotFound, RuleError

HAND_EDIT = "Hand edit"  # the audit trail's label for an edit made outside a door's action
EDIT_LINE = "hand_edit"  # the chronicle's kind for a hand edit: not public, so the GM's alone


class EditRefused(RuleError):
    """A field the rules own, or a value the rules refuse: ``fields`` says which and why."""

    code = "edit_refused"


@dataclass(frozen=True)
class Edited:
    """What a hand edit changed: the row and one ``what: before -> after`` per field changed."""

    obj: Any
    changes: tuple[str, ...]

    @property
    def message(self) -> str:
        if not self.changes:
            return f"{self.name}: nothing changed."
        return f"{self.name}: " + "; ".join(self.changes) + "."

    @property
    def name(self) -> str:
        return str(getattr(self.obj, "display_name", self.obj))


# What the rules own, and where it is changed instead --------------------------------------------

CHARACTER_FIELDS = ("given_name", "dynastic_name", "characteristics", "legitimate")
_DEATH = (
    "A death is recorded at the table as an event (the 'At the table' page: killed, a battle, plague, a storm; at the desk, "
    "the characters' action 'At the table: Killed at the table (this turn)'), and a survival die is corrected from the roll log: "
    "not edited by hand."
)
_CAPTURE = (
    "A capture and a release are table events: record them on the page 'At the table' (Taken prisoner; "
    "Released or ransomed), or with the characters' actions at the desk: not edited by hand."
)
CHARACTER_OWNED: dict[str, str] = {
    "status": _DEATH,
    "death_year": _DEATH,
    "death_cause": _DEATH,
    "retired_year": "Retirement follows from the rules (a King's widow, a regent's end): not edited by hand.",
    "sex": "The sex was rolled: correct its die from the roll log.",
    "birth_year": "The year of birth follows from the birth roll: correct the die from the roll log.",
    "birth_order": "The order of birth follows from the birth rolls: correct a die from the roll log.",
    "father": "Parents are set by a birth: not edited by hand.",
    "mother": "Parents are set by a birth: not edited by hand.",
    "birth_dynasty": "The house of birth is set by a birth: not edited by hand.",
    "controlled_by": "Who controls a character follows from marriages, captures and successions: not edited by hand.",
    "prisoner_of": _CAPTURE,
    "held_by_neutrals": _CAPTURE,
    "prince_piece": "Prince pieces are handed out at the Announcements: not edited by hand.",
    "effective_age_offset": "The effective age follows from health rolls and birth attempts: correct the die instead.",
    "origin": "Where a character came from is set when he is made: not edited by hand.",
    "pretender_of": "A pretender is made by the event cards: not edited by hand.",
}
DYNASTY_FIELDS = ("name", "color")
DYNASTY_OWNED: dict[str, str] = {
    "crown": "A house's crown is its country's name, which reigns and titles use: not edited by hand.",
    "kind": "Whether a house is a player's or a minor one is set with the campaign: not edited by hand.",
    "seat": "The order around the table is set with the campaign: not edited by hand.",
    "campaign": "A house belongs to its campaign.",
}
MARRIAGE_FIELDS = ("arranged_year",)
_MATCH = "is the rules' (the wedding, a death, an annulment): not edited by hand."
MARRIAGE_OWNED: dict[str, str] = {
    "husband": "The couple is the match itself: cancel it and arrange another.",
    "wife": "The couple is the match itself: cancel it and arrange another.",
    "wedding_year": f"The wedding {_MATCH}",
    "ended_year": f"The end of a marriage {_MATCH}",
    "end_cause": f"The end of a marriage {_MATCH}",
    "husband_joins_wife": "Who joins whose house is a term of the match, set when it is arranged.",
    "children_raised_by": "Who raises the children is a term of the match, set when it is arranged.",
    "dowry": "The dowry is a term of the match (its money terms are private), set with the match or its contract.",
    "alliance_title": "The alliance title is a term of the match, set with the match or its contract.",
    "money_readers": "Who reads the money terms follows from the match.",
}

HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


def refuse_owned(changes: Mapping[str, Any], editable: tuple[str, ...], owned: Mapping[str, str], what: str) -> None:
    """Refuse, field by field, what may not be edited by hand (the rules' own, or no such field)."""
    problems: dict[str, str] = {}
    for name in changes:
        if name in editable:
            continue
        problems[name] = owned.get(name, f"{name!r} is not something of {what} one edits by hand.")
    if problems:
        raise EditRefused(" ".join(dict.fromkeys(problems.values())), fields=problems)


def text_value(value: Any, label: str, limit: int, *, blank: bool = False) -> str:
    text = " ".join(str(value if value is not None else "").split())
    if not text and not blank:
        raise EditRefused(f"The {label} cannot be empty.")
    if len(text) > limit:
        raise EditRefused(f"The {label} is {len(text)} characters long: at most {limit}.")
    return text


def whole_value(value: Any, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip().lstrip("+-").isdigit():
        raise EditRefused(f"The {label} must be a whole number, not {value!r}.")
    return int(value)


def clean_fields(changes: Mapping[str, Any], cleaners: Mapping[str, Callable[[Any], Any]]) -> dict[str, Any]:
    """Each change through its cleaner; every refusal collected under its field's name."""
    out: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for name, value in changes.items():
        try:
            out[name] = cleaners[name](value)
        except InvalidCharacteristics as exc:
            problems.update({f"{name}.{key}": text for key, text in exc.fields.items()})
        except RuleError as exc:
            problems[name] = exc.message
    if problems:
        raise EditRefused(" ".join(problems.values()), fields=problems)
    return out


def write(obj: models.Model, new: Mapping[str, Any], labels: Mapping[str, str], show: Callable[[str, Any], str]) -> list[str]:
    """Set the fields that change, save them (the audit trail records it) and say what changed."""
    changed = [name for name, value in new.items() if getattr(obj, name) != value]
    lines = [f"{labels[name]} {show(name, getattr(obj, name))} -> {show(name, new[name])}" for name in changed]
    for name in changed:
        setattr(obj, name, new[name])
    if changed:
        obj.save(update_fields=changed)
    return lines


@contextmanager
def recorded(campaign: Campaign, by: Actor) -> Iterator[None]:
    """Called by a door, the action it runs already says who acts; called directly with ``by``, the
    audit trail records ``by`` for a hand edit."""
    if by is None or audit.acting_user() is not None:
        yield
        return
    with audit.acting(by, year=campaign.current_year, step=campaign.step, label=HAND_EDIT):
        yield


def chronicle_edit(campaign: Campaign, text: str, **data: Any) -> None:
    chronicle = Chronicle(campaign)
    chronicle.add(EDIT_LINE, text, **data)
    chronicle.flush()


def _row(model: type[models.Model], campaign: Campaign, value: Any, what: str) -> Any:
    pk = value.pk if isinstance(value, model) else value
    row = model._default_manager.filter(campaign=campaign, pk=pk).first()
    if row is None:
        raise NotFound(f"There is no {what} #{pk} in {campaign.name}.")
    return row


# Characters -------------------------------------------------------------------------------------


def characteristics_text(campaign: Campaign, sex: str, values: Mapping[str, Any]) -> str:
    labels = {c.key: c.label for c in characteristics_of(campaign.rules, sex)}
    signed = any(c.low < 0 for c in characteristics_of(campaign.rules, sex))
    return ", ".join(
        f"{labels.get(k, k)} {v:+d}" if signed and isinstance(v, int) else f"{labels.get(k, k)} {v}" for k, v in values.items()
    )


def reigned(person: Character) -> bool:
    """Whether he reigns or reigned (a monarch's Charisma may fall below -2: Blood Royale 9, 20)."""
    return person.pk is not None and Reign.objects.filter(holder_id=person.pk).exists()


def character_changes(campaign: Campaign, person: Character, changes: Mapping[str, Any]) -> dict[str, Any]:
    """The changes checked as the service checks them (the forms ask it too): the values to write,
    or :class:`EditRefused` naming each field (a characteristic as ``characteristics.<key>``)."""
    refuse_owned(changes, CHARACTER_FIELDS, CHARACTER_OWNED, "a character")
    monarch = reigned(person)
    return clean_fields(
        changes,
        {
            "given_name": lambda v: text_value(v, "Christian name", 60),
            "dynastic_name": lambda v: text_value(v, "dynastic name", 80),
            "characteristics": lambda v: validate_characteristics(
                campaign.rules,
                person.sex,
                v if isinstance(v, Mapping) else {"": v},
                monarch=monarch,
                current=person.characteristics or {},
            ),
            "legitimate": lambda v: _boolean(v, "legitimate"),
        },
    )


@transaction.atomic
def character_edit(
    *,
    campaign: Campaign | int,
    character: Character | int,
    changes: Mapping[str, Any],
    by: Actor,
) -> Edited:
    """The GM's hand edit of a character: the Christian name, the dynastic name, the characteristics
    (validated by the campaign's ruleset) and whether he is legitimate."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "edit")
    person: Character = _row(Character, campaign, character, "character")
    new = character_changes(campaign, person, changes)
    name = person.display_name

    def show(field: str, value: Any) -> str:
        if field == "characteristics":
            return f"({characteristics_text(campaign, person.sex, value or {})})"
        if field == "legitimate":
            return "legitimate" if value else "a bastard"
        return str(value)

    labels = {"given_name": "Christian name", "dynastic_name": "dynastic name", "characteristics": "characteristics"}
    labels["legitimate"] = ""
    with recorded(campaign, by):
        lines = [line.strip() for line in write(person, new, labels, show)]
    if lines:
        chronicle_edit(campaign, f"Edited by hand: {name}: " + "; ".join(lines) + ".", character=person.pk)
    return Edited(person, tuple(lines))


def _boolean(value: Any, label: str) -> bool:
    if isinstance(value, bool):
        return value
    raise EditRefused(f"{label.capitalize()} is yes or no (true or false), not {value!r}.")


# Dynasties --------------------------------------------------------------------------------------


def dynasty_changes(campaign: Campaign, house: Dynasty, changes: Mapping[str, Any]) -> dict[str, Any]:
    """As :func:`character_changes`, for a house."""
    refuse_owned(changes, DYNASTY_FIELDS, DYNASTY_OWNED, "a house")
    new = clean_fields(changes, {"name": lambda v: text_value(v, "dynastic name", 80), "color": _colour})
    if "name" in new and new["name"] != house.name:
        taken = Dynasty.objects.filter(campaign=campaign, name=new["name"]).exclude(pk=house.pk).exists()
        if taken:
            text = f"Another house of {campaign.name} is called {new['name']}."
            raise EditRefused(text, fields={"name": text})
    return new


@transaction.atomic
def dynasty_edit(
    *,
    campaign: Campaign | int,
    dynasty: Dynasty | int,
    changes: Mapping[str, Any],
    by: Actor,
) -> Edited:
    """The GM's hand edit of a house: its dynastic name (and with it the name of everyone born to it
    who bore the old one) and its colour."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "edit")
    house: Dynasty = _row(Dynasty, campaign, dynasty, "house")
    new = dynasty_changes(campaign, house, changes)
    old_name = house.name
    with recorded(campaign, by):
        lines = write(house, new, {"name": "dynastic name", "color": "colour"}, lambda f, v: str(v))
        if "name" in new and new["name"] != old_name:
            bearers = Character.objects.filter(campaign=campaign, birth_dynasty=house, dynastic_name=old_name)
            count = audit.update(bearers, dynastic_name=new["name"])
            if count:
                lines.append(f"{count} of its people now bear the name {new['name']}")
    if lines:
        chronicle_edit(campaign, f"Edited by hand: the house of {old_name}: " + "; ".join(lines) + ".", dynasty=house.pk)
    return Edited(house, tuple(lines))


def _colour(value: Any) -> str:
    text = str(value or "").strip()
    if not HEX_COLOUR.match(text):
        raise EditRefused(f"A colour is written #rrggbb (e.g. #7a1f2b), not {text!r}.")
    return text.lower()


# Marriages --------------------------------------------------------------------------------------


def marriage_changes(campaign: Campaign, match: Marriage, changes: Mapping[str, Any]) -> dict[str, Any]:
    """As :func:`character_changes`, for a match."""
    refuse_owned(changes, MARRIAGE_FIELDS, MARRIAGE_OWNED, "a marriage")
    return clean_fields(changes, {"arranged_year": lambda v: _arranged(campaign, match, whole_value(v, "year arranged"))})


@transaction.atomic
def marriage_edit(
    *,
    campaign: Campaign | int,
    marriage: Marriage | int,
    changes: Mapping[str, Any],
    by: Actor,
) -> Edited:
    """The GM's hand edit of a match: the year it was arranged (typed wrong at the table). The
    wedding, its end and its terms are the rules' and the match's own services'."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "edit")
    match: Marriage = _row(Marriage, campaign, marriage, "marriage")
    match = Marriage.objects.select_related("husband", "wife").get(pk=match.pk)
    new = marriage_changes(campaign, match, changes)
    with recorded(campaign, by):
        lines = write(match, new, {"arranged_year": "arranged in"}, lambda f, v: str(v))
    if lines:
        couple = f"{match.husband.display_name} and {match.wife.display_name}"
        chronicle_edit(campaign, f"Edited by hand: the match of {couple}: " + "; ".join(lines) + ".", marriage=match.pk)
    return Edited(match, tuple(lines))


def _arranged(campaign: Campaign, match: Marriage, year: int) -> int:
    if year > campaign.current_year:
        raise EditRefused(f"A match cannot be arranged after this turn's year ({campaign.current_year}).")
    row = {**invariants.values_of(match), "arranged_year": year}
    rule = invariants.broken(Marriage, row)  # the wedding and the end come after the match was arranged
    if rule is not None:
        raise EditRefused(invariants.message(rule, row))
    born = max(match.husband.birth_year, match.wife.birth_year)
    if year < born:
        raise EditRefused(f"The match cannot be arranged ({year}) before both were born ({born}).")
    return year
