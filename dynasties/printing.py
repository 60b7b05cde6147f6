"""Printable character sheets (Blood Royale and the BloodLine variant) and a turn's announcements.

Everything goes through the one print module, ``campaign.printing.render_pdf``: a sheet is an
ordinary template rendered to HTML, then to PDF. The templates use one font family (DejaVu Serif,
regular and bold, no italics): font subsetting is most of WeasyPrint's time, so every extra face
costs.

API
    sheet_context(character, ...)           -> dict for one sheet (the year track, his figure in battle)
    sheets_html(characters, two_up=False)   -> the HTML of a batch (what the PDF is made of)
    character_sheet_pdf(character)          -> bytes
    sheets_pdf(characters, two_up=False)    -> bytes (one sheet per A4 page, or two per A4 landscape)
    dynasty_sheets_pdf(dynasty, two_up)     -> bytes (the characters the dynasty controls)
    campaign_sheets_pdf(campaign, two_up)   -> bytes (every character controlled by a dynasty)
    announcements_pdf(campaign, year)       -> bytes (public sections of the turn, one page)
    monarch_cards_pdf(campaign, crowns)     -> bytes (EU monarch tables: a card per monarch, his values this turn)
"""

from __future__ import annotations

import base64
import mimetypes
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from django.core.files.storage import default_storage
from django.template.loader import render_to_string

from campaign.models import Audience, Campaign, ChronicleEntry
from campaign.permissions import prints_sheets_of, role_of
from campaign.printing import render_pdf
from campaign.steps import load_tables
from dynasties.figures import Figures, figures
from dynasties.models import Character, Crown, Dynasty, Portrait, Reign, RollSubject, Status, Title
from dynasties.services.play_registry import play_of
from dynasties.treasury import currency
from rules.regnal import regnal_name
from rules.tables import survival_need

LAST_AGE = 80  # the year track runs to age 80 (A2), or to death
ADULT_AGE = 15  # no survival roll before 15 (A4, A5)
ROWS_PER_COLUMN = {False: 21, True: 21}  # the track folds into columns beyond this many rows
NOW_MARK = "THIS TURN"
SHEET_MODIFIERS = 3  # lasting modifiers printed on a sheet; the character page lists them all

SHEET_TEMPLATE = "print/sheet.html"
ANNOUNCEMENTS_TEMPLATE = "print/announcements.html"


def may_print_dynasty(user: Any, dynasty: Dynasty | None, campaign: Campaign) -> bool:
    """Whether ``user`` prints these sheets (a dynasty's, or a character's whose controller is
    ``dynasty``): the policy's ``prints_sheets_of``, for the print door and the API's."""
    role, mine = role_of(user, campaign)
    return prints_sheets_of(role, mine, dynasty.pk if dynasty is not None else None)


def turn_at_or_before(campaign: Campaign, year: int) -> int:
    """The turn year at or before ``year`` (turns run from the start year every turn_length years)."""
    step = campaign.turn_length or 1
    return campaign.start_year + ((year - campaign.start_year) // step) * step


def signed(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        return "" if value is None else str(value)
    return f"{value:+d}" if value else "0"


def character_code(character: Character) -> str:
    """The character ID printed on BloodLine cards (the database id, as on the family tree)."""
    return f"#{character.pk}"


def _survival_rolls(characters: Sequence[Character]) -> dict[int, dict[int, dict[str, Any]]]:
    """character id -> roll year -> the survival roll of that turn (one query for the whole batch)."""
    out: dict[int, dict[int, dict[str, Any]]] = defaultdict(dict)
    rows = RollSubject.objects.filter(character_id__in=[c.pk for c in characters], roll__purpose="survival").values_list(
        "character_id", "roll__year", "roll__faces", "roll__modifier", "roll__outcome"
    )
    for pk, year, faces, modifier, outcome in rows:
        total = sum(faces) + (modifier or 0) if isinstance(faces, list) else None
        out[pk][year] = {"outcome": outcome, "total": total}
    return out


def year_track(
    character: Character,
    campaign: Campaign,
    table: Sequence[dict[str, int]] | None,
    rolls: dict[int, dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """One row per turn from the birth turn to age 80 or death: year, age, the number needed,
    whether it is the current turn and, for past turns, what happened."""
    rolls = rolls or {}
    step = campaign.turn_length or 1
    current = campaign.current_year
    death_turn = turn_at_or_before(campaign, character.death_year) if character.death_year is not None else None
    retired_turn = turn_at_or_before(campaign, character.retired_year) if character.retired_year is not None else None
    rows: list[dict[str, Any]] = []
    year = turn_at_or_before(campaign, character.birth_year)
    while year - character.birth_year <= LAST_AGE:
        age = year - character.birth_year
        need: str = "-"
        if table is not None and age >= ADULT_AGE:
            need = str(survival_need(table, age))
        roll = rolls.get(year)
        result = ""
        if death_turn is not None and year == death_turn:
            result = "died"
        elif roll is not None:
            result = roll["outcome"] or ""
        elif retired_turn is not None and retired_turn <= year <= current:
            result = "retired"
        elif year < current:
            result = "lived" if age >= 0 else "unborn"
        if roll is not None and roll.get("total") is not None and result in ("survived", "died"):
            result = f"{result} ({roll['total']})"
        rows.append(
            {
                "year": year,
                "age": max(age, 0),
                "need": need,
                "now": year == current,
                "past": year < current,
                "result": result,
            }
        )
        if death_turn is not None and year >= death_turn:
            break
        year += step
    return rows


def _columns(rows: list[dict[str, Any]], per_column: int) -> list[list[dict[str, Any]]]:
    if len(rows) <= per_column:
        return [rows]
    n = -(-len(rows) // per_column)
    size = -(-len(rows) // n)
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def _titles(characters: Sequence[Character]) -> dict[int, list[str]]:
    ids = [c.pk for c in characters]
    out: dict[int, list[str]] = defaultdict(list)
    sex = {c.pk: c.sex for c in characters}
    for holder, crown in Reign.objects.filter(holder_id__in=ids, end_year__isnull=True).values_list("holder_id", "crown"):
        out[holder].append(f"{'King' if sex[holder] == 'M' else 'Queen'} of {crown}")
    for holder, regent_crown in Reign.objects.filter(
        regent_id__in=ids, end_year__isnull=True, regency_end_year__isnull=True
    ).values_list("regent_id", "crown"):
        out[holder].append(f"Regent of {regent_crown}")
    for holder, name in Title.objects.filter(holder_id__in=ids).values_list("holder_id", "name"):
        out[holder].append(name)
    return out


def _numerals(characters: Sequence[Character]) -> dict[int, list[int]]:
    """Each monarch's regnal numbers, one per crown in the order he was crowned (one query)."""
    out: dict[int, list[int]] = defaultdict(list)
    reigns = Reign.objects.filter(holder_id__in=[c.pk for c in characters], numeral__isnull=False)
    for holder, number in reigns.order_by("start_year", "pk").values_list("holder_id", "numeral"):
        if number is not None:  # (never: filtered out)
            out[holder].append(number)
    return out


def _portraits(characters: Sequence[Character]) -> dict[int, str]:
    """Each portrait as a data: URI the PDF embeds (one query; a file gone missing is left out)."""
    out: dict[int, str] = {}
    for pk, name in Portrait.objects.filter(character_id__in=[c.pk for c in characters]).values_list("character_id", "name"):
        try:
            with default_storage.open(name, "rb") as image:
                data = base64.b64encode(image.read()).decode("ascii")
        except OSError:
            continue
        out[pk] = f"data:{mimetypes.guess_type(name)[0] or 'image/jpeg'};base64,{data}"
    return out


def _grouped(terms: Sequence[Any]) -> list[dict[str, Any]]:
    """The figure's terms for paper: the same kind of term once, with its count ("his house usurps a
    crown -2 (2 claims)"); the page and the API list each one with its why."""
    out: list[dict[str, Any]] = []
    for t in terms:
        same = next((g for g in out if g["key"] == t.key and g["label"] == t.label), None)
        if same is None:
            out.append({"key": t.key, "label": t.label, "value": t.value, "given": t.given, "source": t.source, "count": 1})
        else:
            same["value"] += t.value
            same["given"] += t.given
            same["count"] += 1
    for g in out:
        g["shown"], g["given_shown"], g["held"] = signed(g["value"]), signed(g["given"]), g["value"] != g["given"]
    return out


def sheet_context(
    character: Character,
    campaign: Campaign | None = None,
    tables: dict[str, Any] | None = None,
    rolls: dict[int, dict[str, Any]] | None = None,
    titles: list[str] | None = None,
    two_up: bool = False,
    numerals: Sequence[int] | None = None,
    found: Figures | None = None,
) -> dict[str, Any]:
    """Everything one sheet shows. Batch callers pass the shared look-ups; alone, they are read here."""
    campaign = campaign or character.campaign
    if found is None:
        found = figures(campaign, [character])[character.pk]
    if tables is None:
        tables = load_tables(campaign)
    if rolls is None:
        rolls = _survival_rolls([character]).get(character.pk, {})
    if titles is None:
        titles = _titles([character]).get(character.pk, [])
    if numerals is None:
        numerals = _numerals([character]).get(character.pk, [])
    bloodline = play_of(campaign).survival.effective_ages()
    traits = character.characteristics or {}
    father, mother = character.father, character.mother
    table = None if bloodline else tables.get("survival")
    rows = year_track(character, campaign, table, rolls)
    ctx: dict[str, Any] = {
        "character": character,
        "bloodline": bloodline,
        "birth_year": character.birth_year,
        "sex": character.get_sex_display(),
        "name": regnal_name(character.given_name, numerals),  # "Edward III"
        "dynastic_name": father.dynastic_name if father is not None else character.dynastic_name,
        "mother": mother.display_name if mother is not None else "",
        "father": father.display_name if father is not None else "",
        "title": ", ".join(titles),
        "piece": character.prince_piece or "",
        "status": character.get_status_display(),
        "dead": character.status == Status.DEAD,
        "death": f"died {character.death_year}" + (f", {character.death_cause}" if character.death_cause else "")
        if character.death_year is not None
        else "",
        "house": str(character.controlled_by) if character.controlled_by_id else "",
        "columns": _columns(rows, ROWS_PER_COLUMN[two_up]),
        "rows": rows,
        "current_year": campaign.current_year,
        "now_mark": NOW_MARK,
        # his figure in battle and the modifiers in force (dynasties.figures): what the table needs now
        "combat": found.combat,
        "battle_terms": _grouped(found.combat.figure.terms) if found.combat.figure is not None else [],
        "modifiers": found.active_modifiers[:SHEET_MODIFIERS],
        "more_modifiers": max(0, len(found.active_modifiers) - SHEET_MODIFIERS),
        # one sheet a page with a one-column track: the modifiers go beside the track, where the page is empty
        "modifiers_beside": not two_up and len(rows) <= ROWS_PER_COLUMN[two_up],
    }
    if bloodline:
        end = character.death_year if character.death_year is not None else campaign.current_year
        ctx["traits"] = [(label, traits.get(key, "")) for key, label in (("adm", "ADM"), ("dip", "DIP"), ("mil", "MIL"))]
        ctx["real_age"] = max(0, end - character.birth_year)
        ctx["effective_age"] = max(0, ctx["real_age"] + character.effective_age_offset)
        ctx["code"] = character_code(character)
    else:
        first = ("Strength", "strength") if character.sex == "M" else ("Guile", "guile")
        keys = (first, ("Constitution", "constitution"), ("Charisma", "charisma"))
        ctx["traits"] = [(label, signed(traits.get(key, 0))) for label, key in keys]
    return ctx


def sheets_html(characters: Iterable[Character], two_up: bool = False, campaign: Campaign | None = None) -> str:
    """The HTML of a batch of sheets (what the PDF is made of): look-ups are read once per batch."""
    characters = list(characters)
    if not characters:
        raise ValueError("No character to print.")
    campaign = campaign or characters[0].campaign
    return render_to_string(SHEET_TEMPLATE, _sheet_document_context(characters, campaign, two_up))


def _batch_queryset(campaign: Campaign) -> Any:
    return (
        Character.objects.filter(campaign=campaign)
        .select_related("father", "mother", "controlled_by", "campaign")
        .order_by("controlled_by__seat", "controlled_by_id", "birth_year", "birth_order", "pk")
    )


def character_sheet_pdf(character: Character) -> bytes:
    campaign = character.campaign
    return render_pdf(SHEET_TEMPLATE, _sheet_document_context([character], campaign, False))


def _sheet_document_context(characters: list[Character], campaign: Campaign, two_up: bool) -> dict[str, Any]:
    tables = load_tables(campaign)
    rolls = _survival_rolls(characters)
    titles = _titles(characters)
    numerals = _numerals(characters)
    portraits = _portraits(characters)
    found = figures(campaign, characters)
    sheets = [
        sheet_context(c, campaign, tables, rolls.get(c.pk, {}), titles.get(c.pk, []), two_up, numerals.get(c.pk, []), found[c.pk])
        for c in characters
    ]
    for c, sheet in zip(characters, sheets, strict=True):
        sheet["portrait"] = portraits.get(c.pk, "")
    pages = [sheets[i : i + 2] for i in range(0, len(sheets), 2)] if two_up else [[s] for s in sheets]
    return {"campaign": campaign, "pages": pages, "two_up": two_up}


def sheets_pdf(characters: Iterable[Character], two_up: bool = False, campaign: Campaign | None = None) -> bytes:
    characters = list(characters)
    if not characters:
        raise ValueError("No character to print.")
    campaign = campaign or characters[0].campaign
    return render_pdf(SHEET_TEMPLATE, _sheet_document_context(characters, campaign, two_up))


def dynasty_characters(dynasty: Dynasty) -> list[Character]:
    return list(_batch_queryset(dynasty.campaign).filter(controlled_by=dynasty))


def campaign_characters(campaign: Campaign) -> list[Character]:
    return list(_batch_queryset(campaign).filter(controlled_by__isnull=False))


def dynasty_sheets_pdf(dynasty: Dynasty, two_up: bool = False) -> bytes:
    return sheets_pdf(dynasty_characters(dynasty), two_up, dynasty.campaign)


def campaign_sheets_pdf(campaign: Campaign, two_up: bool = False) -> bytes:
    return sheets_pdf(campaign_characters(campaign), two_up, campaign)


# --- announcements -------------------------------------------------------------------------------


def announcement_sections(campaign: Campaign, year: int) -> list[tuple[str, list[str]]]:
    """The public sections of a turn: the "announcements" chronicle entry's sections (money and
    contract lines are never in them); before that entry exists, the same sections gathered
    from the year's public chronicle lines."""
    from dynasties.services.announcements import SECTIONS

    entry = ChronicleEntry.objects.filter(campaign=campaign, year=year, kind="announcements").order_by("-id").first()
    if entry is not None:
        sections = (entry.data or {}).get("sections") or {}
        order = [title for title, _ in SECTIONS]
        titles = [t for t in order if t in sections] + [t for t in sections if t not in order]
        return [(t, list(sections[t])) for t in titles if sections[t]]
    kinds = {k for _, ks in SECTIONS for k in ks}
    entries = list(
        ChronicleEntry.objects.filter(campaign=campaign, year=year, kind__in=kinds, audience=Audience.PUBLIC).order_by("id")
    )
    out = []
    for title, ks in SECTIONS:
        texts = [e.text for e in entries if e.kind in ks]
        if texts:
            out.append((title, texts))
    return out


def announcements_pdf(campaign: Campaign, year: int) -> bytes:
    return render_pdf(
        ANNOUNCEMENTS_TEMPLATE,
        {"campaign": campaign, "year": year, "sections": announcement_sections(campaign, year)},
    )


# --- the EU monarch tables' cards ---------------------------------------------------------------------

MONARCH_CARDS_TEMPLATE = "print/monarch_cards.html"
CARD_TRACK_TURNS = 14  # a card's reign track: the turns of the reign to its planned end, at most this many boxes


def monarch_cards_context(campaign: Campaign, crowns: Sequence[Crown] | None = None) -> dict[str, Any]:
    """A card for each crown with a monarch (or ``crowns``'): his values as they count this turn and as
    rolled, his standing, his reign's turns to its planned end (``eu_crowns_view``)."""
    from dynasties.services.eu_crowns_view import eu_standings

    standings = eu_standings(campaign, crowns)
    starts = dict(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("crown", "start_year"))
    cards = []
    step = max(1, campaign.turn_length)
    for s in standings.values():
        if s.monarch is None:
            continue
        start = starts.get(s.crown.name, campaign.current_year)
        end = s.planned_end_year
        track = (
            [(y, y < campaign.current_year, y == campaign.current_year) for y in range(start, end + 1, step)][:CARD_TRACK_TURNS]
            if end is not None
            else []
        )
        cards.append({"s": s, "start": start, "track": track, "age": s.monarch.age(campaign.current_year)})
    return {"campaign": campaign, "cards": cards, "year": campaign.current_year}


def monarch_cards_pdf(campaign: Campaign, crowns: Sequence[Crown] | None = None) -> bytes:
    return render_pdf(MONARCH_CARDS_TEMPLATE, monarch_cards_context(campaign, crowns))


# --- the final table (the end of the game) ------------------------------------------------------------

FINAL_TABLE_TEMPLATE = "print/final_table.html"


def final_table_pdf(campaign: Campaign, table: dict[str, Any]) -> bytes:
    """The final table (``dynasties.services.ending.final_table``, as the viewer may see it), A4."""
    return render_pdf(FINAL_TABLE_TEMPLATE, {"campaign": campaign, "table": table, "currency": currency(campaign)})
