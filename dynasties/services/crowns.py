"""Crowns at the table (issue 31): what the board decides about a country, recorded by the GM (or by
the crown's player where it is his decision).

- A capital lost and retaken (Blood Royale 18): the ruler's Charisma -1 until it is retaken, never
  below -2; a lasting ``Modifier`` (``capital_lost``) on the ruler says so, and ends when the capital
  is retaken. The ruler is the monarch, or his regent while a regency lasts (the regent "will be
  regarded as 'King' as far as the rules are concerned", A7): when the ruler changes while the
  capital is lost (a new monarch, a new regent, a King come of age) the penalty passes to the new
  one and the former ruler's Charisma comes back (``crowns_review``).
- A foreign intervention (Blood Royale 20): the ruler who enlists foreign military aid loses 1
  Charisma, which may take it below -2; a lasting ``Modifier`` (``foreign_intervention``) for his
  life.
- (A Stability change the board decided, with its cause: ``bloodline.crown_stability_change``.)

The Charisma changes are made on the character's characteristics (as a Governor's bonus and the
Charisma a usurper loses are), so that his sheet, the API and every rule that reads his Charisma
see them; the ``Modifier`` rows say why and when each ends."""

from __future__ import annotations

from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties.models import Character, Crown, Modifier, ModifierKind, Province, Reign, Status
from dynasties.services.common import World
from dynasties.services.play_registry import play_of
from rules import crowns as rules
from rules.errors import NotFound, RuleError

CHARISMA = "charisma"


def ruler_id(reign: Reign) -> int:
    """Who rules the crown of this reign: the regent while the regency lasts, else the monarch."""
    if reign.regent_id is not None and reign.regency_end_year is None:
        return reign.regent_id
    return reign.holder_id


def ruler_of(reign: Reign) -> Character:
    """The ruler's row (``reign`` read with its holder and regent)."""
    regent = reign.regent
    return regent if regent is not None and ruler_id(reign) == regent.pk else reign.holder


def _crown(campaign: Campaign, name: str) -> Crown:
    record = Crown.objects.filter(campaign=campaign, name=name).first()
    if record is None:
        raise NotFound(f"There is no crown called {name!r} in {campaign.name}.", fields={"crown": "unknown"})
    return record


def _reign(campaign: Campaign, crown: str) -> Reign:
    reign = Reign.objects.filter(campaign=campaign, crown=crown, end_year__isnull=True).select_related("holder", "regent").first()
    if reign is None:
        raise RuleError(
            f"Nobody reigns over {crown} now: there is no ruler to record it of.", code="no_reign", fields={"crown": "no_reign"}
        )
    return reign


def _charisma(c: Character) -> int:
    return int((c.characteristics or {}).get(CHARISMA, 0))


def _add_charisma(c: Character, delta: int, world: World | None = None) -> int:
    """Change his Charisma by ``delta`` (saved); his Charisma now."""
    if delta:
        c.characteristics = {**(c.characteristics or {}), CHARISMA: _charisma(c) + delta}
        c.save(update_fields=["characteristics"])
        if world is not None:
            world.refresh_person(c)
    return _charisma(c)


def capital_lost(campaign: Campaign, crown: str) -> Modifier | None:
    """The lasting penalty of the crown's lost capital, while it is lost."""
    return (
        Modifier.objects.filter(campaign=campaign, kind=ModifierKind.CAPITAL_LOST, crown=crown, end_year__isnull=True)
        .select_related("character")
        .first()
    )


def _capitals(campaign: Campaign) -> None:
    if not play_of(campaign).succession.capitals():
        raise RuleError(
            f"{campaign.get_ruleset_display()} keeps no record of capitals and foreign aid: the Charisma they cost is Blood "
            "Royale's (18, Capitals; 20, Foreign Intervention).",
            code="ruleset",
        )


def _penalty(campaign: Campaign, ruler: Character, crown: str, record: Crown, note: str, world: World | None = None) -> Modifier:
    """The lost capital's -1 on ``ruler`` (held to -2), as a lasting modifier."""
    lost = rules.capital_loss(_charisma(ruler))
    _add_charisma(ruler, lost, world)
    why = f"the capital of {crown} is lost" + (f" ({note})" if note else "")
    return Modifier.objects.create(
        campaign=campaign,
        kind=ModifierKind.CAPITAL_LOST,
        value=lost,
        crown=crown,
        dynasty_id=record.controlled_by_id,
        character=ruler,
        reason=why[:200],
        start_year=campaign.current_year,
    )


def _charisma_words(ruler: Character, lost: int) -> str:
    if lost:
        return f"Charisma {lost:+d} until it is retaken (now {_charisma(ruler):+d})"
    return f"Charisma already {_charisma(ruler):+d}: it goes no lower than -2 (Blood Royale 18)"


def _kept_in_the_register(campaign: Campaign, crown: str) -> None:
    """One source: where the province register knows the crown's original capital, the capital is lost
    and retaken by the province changing hands there (``dynasties.services.provinces``), which records
    the Charisma too."""
    held = Province.objects.filter(campaign=campaign, country=crown, original_capital=True).first()
    if held is not None:
        raise RuleError(
            f"The province register keeps the capital of {crown} ({held.name}): record {held.name} changing hands on "
            "the Provinces page ('A province changes hands'), which takes or restores the ruler's Charisma with it.",
            code="capital_in_register",
            fields={"crown": "in_register"},
        )


def lose_capital(campaign: Campaign, crown: str, note: str, chronicle: Chronicle) -> Modifier:
    """The lost capital's -1 on the ruler (not a transaction: ``capital_lose`` and the province
    register call it inside theirs). Refused when the capital is already lost."""
    record = _crown(campaign, crown)
    if capital_lost(campaign, crown) is not None:
        raise RuleError(
            f"The capital of {crown} is already lost: its ruler's Charisma stays -1 until it is retaken, however many "
            f"capitals fall ({rules.CAPITAL_RULE}).",
            code="capital_lost",
            fields={"crown": "already_lost"},
        )
    reign = _reign(campaign, crown)
    ruler = ruler_of(reign)
    note = note.strip()
    modifier = _penalty(campaign, ruler, crown, record, note)
    chronicle.add(
        "capital",
        f"{crown} loses its capital{f' ({note})' if note else ''}: {ruler.display_name}, who rules it, "
        f"{_charisma_words(ruler, modifier.value)}.",
        crown=crown,
        character=ruler.pk,
    )
    return modifier


def retake_capital(campaign: Campaign, crown: str, note: str, chronicle: Chronicle) -> Modifier:
    """The lost capital's Charisma given back (not a transaction; see ``lose_capital``)."""
    _crown(campaign, crown)
    modifier = capital_lost(campaign, crown)
    if modifier is None:
        raise RuleError(
            f"The capital of {crown} is not lost: there is nothing to retake.", code="capital_held", fields={"crown": "held"}
        )
    ruler = modifier.character
    back = 0
    if ruler is not None and ruler.status == Status.ALIVE:
        back = rules.capital_restored(_charisma(ruler), modifier.value)
        _add_charisma(ruler, back)
    note = note.strip()
    modifier.end_year = campaign.current_year
    modifier.end_reason = (f"the capital of {crown} is retaken" + (f" ({note})" if note else ""))[:200]
    modifier.save(update_fields=["end_year", "end_reason"])
    said = (
        f"{ruler.display_name}'s Charisma {back:+d}, now {_charisma(ruler):+d}"
        if ruler is not None and back
        else "no Charisma to restore"
    )
    chronicle.add("capital", f"{crown} retakes its capital{f' ({note})' if note else ''}: {said}.", crown=crown)
    return modifier


@transaction.atomic
def capital_lose(*, campaign: Campaign | int, crown: str, note: str = "", by: Actor) -> Modifier:
    """The crown's capital is taken on the board (Blood Royale 18): its ruler's Charisma is reduced by 1
    until it is retaken, within -2..+2. The GM records it. Where the province register keeps the
    crown's capital, it is recorded there instead (one source)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the board decided it: the GM enters it (campaign.permissions)
    _capitals(campaign)
    _kept_in_the_register(campaign, crown)
    chronicle = Chronicle(campaign)
    modifier = lose_capital(campaign, crown, note, chronicle)
    chronicle.flush()
    return modifier


@transaction.atomic
def capital_retake(*, campaign: Campaign | int, crown: str, note: str = "", by: Actor) -> Modifier:
    """The crown retakes its original capital (Blood Royale 18: 'The Capital Marker is removed as soon
    as a player recaptures his or her original Capital'): the Charisma its ruler lost comes back, held
    to +2. The GM records it (in the province register where it keeps the capital)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    _capitals(campaign)
    _kept_in_the_register(campaign, crown)
    chronicle = Chronicle(campaign)
    modifier = retake_capital(campaign, crown, note, chronicle)
    chronicle.flush()
    return modifier


@transaction.atomic
def foreign_intervention(*, campaign: Campaign | int, crown: str, note: str = "", by: Actor) -> Modifier:
    """The crown's ruler enlists foreign military aid (Blood Royale 20): his Charisma is reduced by 1, and
    may go below -2; it lasts his life. The player of the crown (or the GM) records it: enlisting aid is
    his decision."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    record = _crown(campaign, crown)
    require(by, campaign, "crown", player=record.controlled_by_id, crown=crown)
    _capitals(campaign)
    reign = _reign(campaign, crown)
    ruler = ruler_of(reign)
    _add_charisma(ruler, rules.INTERVENTION_CHARISMA)
    note = note.strip()
    modifier = Modifier.objects.create(
        campaign=campaign,
        kind=ModifierKind.FOREIGN_INTERVENTION,
        value=rules.INTERVENTION_CHARISMA,
        crown=crown,
        dynasty_id=record.controlled_by_id,
        character=ruler,
        reason=(f"{ruler.display_name} enlisted foreign military aid for {crown}" + (f" ({note})" if note else ""))[:200],
        start_year=campaign.current_year,
    )
    chronicle = Chronicle(campaign)
    chronicle.add(
        "intervention",
        f"{ruler.display_name} enlists foreign military aid for {crown}{f' ({note})' if note else ''}: Charisma "
        f"{rules.INTERVENTION_CHARISMA:+d}, now {_charisma(ruler):+d} (Blood Royale 20: it may fall below -2).",
        crown=crown,
        character=ruler.pk,
    )
    chronicle.flush()
    return modifier


def crowns_review(campaign: Campaign, chronicle: Chronicle, world: World | None = None) -> list[Modifier]:
    """The lasting Charisma penalties follow the rulers (called when the rulers may have changed: a
    succession, a regent named, a regency ended, a crown given back): a lost capital's -1 passes from a
    former ruler (his Charisma back, if he lives) to the crown's ruler now; a dead ruler's foreign
    intervention ends with him. One query when no penalty runs; ``world``: the
    caller's loaded characters, kept in step."""
    if not play_of(campaign).succession.capitals():
        return []
    active = list(
        Modifier.objects.filter(
            campaign=campaign,
            end_year__isnull=True,
            kind__in=[ModifierKind.CAPITAL_LOST, ModifierKind.FOREIGN_INTERVENTION],
        )
        .select_related("character")
        .order_by("pk")
    )
    if not active:
        return []
    year = campaign.current_year

    def person(c: Character | None) -> Character | None:
        if c is None:
            return None
        return world.characters.get(c.pk, c) if world is not None else c

    lost = [m for m in active if m.kind == ModifierKind.CAPITAL_LOST]
    reigns: dict[str, Reign] = {}
    if lost:
        rows = Reign.objects.filter(campaign=campaign, end_year__isnull=True, crown__in=[m.crown for m in lost])
        reigns = {r.crown: r for r in rows.select_related("holder", "regent")}
    ended: list[Modifier] = []
    for m in active:
        former = person(m.character)
        if m.kind == ModifierKind.FOREIGN_INTERVENTION:
            if former is not None and former.status == Status.DEAD:
                m.end_year, m.end_reason = year, f"death of {former.display_name}"[:200]
                ended.append(m)
            continue
        reign = reigns.get(m.crown)
        if reign is None or (former is not None and ruler_id(reign) == former.pk):
            continue
        ruler = ruler_of(reign)
        ruler = world.characters.get(ruler.pk, ruler) if world is not None else ruler
        words = []
        if former is not None and former.status == Status.ALIVE:
            back = rules.capital_restored(_charisma(former), m.value)
            _add_charisma(former, back, world)
            if back:
                words.append(f"{former.display_name}'s Charisma comes back ({back:+d}, now {_charisma(former):+d})")
        m.end_year = year
        m.end_reason = (f"{former.display_name if former else 'the ruler'} no longer rules {m.crown}")[:200]
        ended.append(m)
        record = Crown.objects.get(campaign=campaign, name=m.crown)
        fresh = _penalty(campaign, ruler, m.crown, record, "", world)
        words.insert(0, f"{ruler.display_name}, who rules it now, has {_charisma_words(ruler, fresh.value)}")
        chronicle.add(
            "capital", f"The capital of {m.crown} is still lost: " + "; ".join(words) + ".", crown=m.crown, character=ruler.pk
        )
    if ended:
        Modifier.objects.bulk_update(ended, ["end_year", "end_reason"])
    return ended
