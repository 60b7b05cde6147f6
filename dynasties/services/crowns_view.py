"""A crown as every member sees it (read only; the crown page and the API's crowns): whose country it
is and who holds it, the union it is in and since when, the monarch and his standing (a minor under
a regent, a prisoner, an interim monarch, a lost capital), its Stability on the track and its
history of Stability changes and revolts, the lasting modifiers it carries, its royal leaders, and
its reigns. A fixed number of queries whatever the campaign's size (the royal leaders of BloodLine
read the family once, as the dashboard's heirs do)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q, Sum

from campaign.models import Campaign
from dynasties.models import Character, Crown, CrownEvent, CrownEventKind, Dynasty, Modifier, Reign, Status
from dynasties.selectors import label, status_lines
from dynasties.services.bloodline_sequence import royal_leaders
from dynasties.services.common import World
from dynasties.services.crowns import ruler_of
from dynasties.services.eu_crowns_view import EuHistory, EuStanding, eu_history, eu_standing
from dynasties.services.play_registry import play_of
from rules import stability as track
from rules.errors import NotFound

EVENTS_SHOWN = 40
"""The newest Stability changes and revolts a crown page shows (the count says how many there are)."""
REIGNS_SHOWN = 40


@dataclass(frozen=True)
class Leader:
    """A royal leader: the piece he holds (Blood Royale's K and 1-5), or his place in the line (BloodLine)."""

    mark: str
    character: Character
    note: str = ""


@dataclass
class CrownView:
    crown: Crown
    home: Dynasty | None
    controller: Dynasty | None
    partner: Crown | None
    reign: Reign | None
    monarch: Character | None
    regent: Character | None
    ruler: Character | None
    standing: list[str]
    """The monarch's standing in words: reigning since, a minor with his regent (until when), a prisoner, ..."""
    stability: int | None
    """None where the ruleset keeps no Stability."""
    events: list[CrownEvent]
    events_total: int
    revolts: int
    modifiers: list[Modifier]
    capital: Modifier | None
    leaders: list[Leader]
    leaders_rule: str
    reigns: list[Reign]
    reigns_total: int
    monarch_age: int | None = None
    regency_until: int | None = None
    eu: EuStanding | None = None
    """EU monarchs: the monarch as the tables count him this turn (``eu_crowns_view``)."""
    eu_history: EuHistory | None = None
    """EU monarchs: the crown's monarchs and their timeline."""

    @property
    def annexed(self) -> bool:
        return self.crown.annexed

    @property
    def track(self) -> list[int]:
        return list(range(track.STABILITY_MIN, track.STABILITY_MAX + 1))


def crown_view(*, campaign: Campaign, name: str) -> CrownView:
    record = (
        Crown.objects.filter(campaign=campaign, name=name).select_related("home_dynasty", "controlled_by", "union_with").first()
    )
    if record is None:
        raise NotFound(f"There is no crown called {name!r} in {campaign.name}.")
    year = campaign.current_year
    reign = (
        Reign.objects.filter(campaign=campaign, crown=name, end_year__isnull=True)
        .select_related("holder", "regent", "interim_for", "holder__prisoner_of")
        .first()
    )
    monarch = reign.holder if reign is not None else None
    regent = reign.regent if reign is not None and reign.regency_end_year is None else None
    ruler = ruler_of(reign) if reign is not None else None
    terms = play_of(campaign).succession.crown_terms()
    events_qs = CrownEvent.objects.filter(campaign=campaign, crown=record)
    totals = events_qs.aggregate(n=Count("pk"), revolts=Sum("delta", filter=Q(kind=CrownEventKind.REVOLT)))
    events = list(events_qs.select_related("reign__holder").order_by("-year", "-pk")[:EVENTS_SHOWN])
    ruler_ids = [c.pk for c in (monarch, regent) if c is not None]
    modifiers = list(
        Modifier.objects.filter(campaign=campaign, end_year__isnull=True)
        .filter(Q(crown=name) | Q(character_id__in=ruler_ids))
        .select_related("character", "claimant", "dynasty", "against")
        .order_by("start_year", "pk")
    )
    capital = next((m for m in modifiers if m.kind == "capital_lost" and m.crown == name), None)
    reigns_qs = Reign.objects.filter(campaign=campaign, crown=name)
    reigns_total = reigns_qs.count()
    reigns = list(reigns_qs.select_related("holder", "regent").order_by("-start_year", "-pk")[:REIGNS_SHOWN])
    leaders, leaders_rule = _leaders(campaign, record, reign)
    shown = [c for c in (monarch, regent) if c is not None] + [r.holder for r in reigns] + [x.character for x in leaders]
    shown += [e.reign.holder for e in events if e.reign is not None]
    label(campaign, shown)
    standing: list[str] = []
    view = CrownView(
        crown=record,
        home=record.home_dynasty,
        controller=record.controlled_by,
        partner=record.union_with,
        reign=reign,
        monarch=monarch,
        regent=regent,
        ruler=ruler,
        standing=standing,
        stability=record.stability if terms.stability else None,
        events=events,
        events_total=totals["n"] or 0,
        revolts=totals["revolts"] or 0,
        modifiers=modifiers,
        capital=capital,
        leaders=leaders,
        leaders_rule=leaders_rule,
        reigns=reigns,
        reigns_total=reigns_total,
    )
    if monarch is not None and reign is not None:
        view.monarch_age = monarch.age(year)
        standing += _standing(campaign, reign, monarch, regent, view)
    if terms.monarch_table:
        view.eu = eu_standing(campaign, record)
        view.eu_history = eu_history(campaign, record.name)
    return view


def _standing(campaign: Campaign, reign: Reign, monarch: Character, regent: Character | None, view: CrownView) -> list[str]:
    year = campaign.current_year
    out = []
    minor, until = play_of(campaign).succession.minor_note(monarch, regent, year)
    if until is not None:
        view.regency_until = until
    if minor is not None:
        out.append(minor)
    if monarch.is_prisoner and monarch.status == Status.ALIVE:
        captor = f"the house of {monarch.prisoner_of.name}" if monarch.prisoner_of is not None else "the neutrals"
        out.append(f"A prisoner of {captor}.")
    if reign.interim_for is not None:
        out.append(f"Reigns in the interim, until {reign.interim_for.display_name} dies or is released.")
    if view.capital is not None:
        lost = view.capital
        out.append(f"The capital is lost (since {lost.start_year}): the ruler's Charisma is {lost.value:+d} until it is retaken.")
    if monarch.status != Status.ALIVE:
        out.append(f"{monarch.get_status_display()}: the succession is pending.")
    lines = status_lines(campaign, [monarch], {}).get(monarch.pk, [])
    return [*lines[:1], *out]


def _leaders(campaign: Campaign, record: Crown, reign: Reign | None) -> tuple[list[Leader], str]:
    terms = play_of(campaign).succession.crown_terms()
    if reign is None:
        return [], ""
    if terms.prince_pieces:
        house = record.controlled_by_id or record.home_dynasty_id
        people = Character.objects.filter(campaign=campaign, controlled_by_id=house, status=Status.ALIVE).exclude(prince_piece="")
        ordered = sorted(people, key=lambda c: (c.prince_piece != "K", c.prince_piece, c.pk))
        return (
            [
                Leader(c.prince_piece, c, "the King piece" if c.prince_piece == "K" else f"Prince piece {c.prince_piece}")
                for c in ordered
            ],
            "Blood Royale A2: the King and the Princes of 20 with a piece lead on the board; handed out at the Announcements.",
        )
    if terms.royal_leaders:
        found = royal_leaders(World(campaign), record.name)[:10]
        return (
            [Leader(str(n), c) for n, c in enumerate(found, 1)],
            "BloodLine: the heirs of 15 or more in order of succession who are of the present dynasty.",
        )
    return [], ""
