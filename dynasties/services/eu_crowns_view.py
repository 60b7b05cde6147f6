"""What every member sees of an EU monarchs crown (RULES.md C; read only): the monarch with his
values as they count this turn (after the minority penalty and a Dynastic Crisis's halving, as the
tables' rolls use them), his reign's planned end, the period, Stability, Fragile Health and the
turns after a crisis; the monarchs' history (each reign with its values, how it began and ended)
and its timeline along the years. The crown page, the monarch cards and the API read it here.

A fixed number of queries whatever the campaign's size: the tables, the crowns, the reigns going on
(all crowns at once for a page of crowns), and for a history the crown's reigns and its public
chronicle lines about its monarchs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from campaign.models import Audience, Campaign, ChronicleEntry
from dynasties.models import Character, Crown, Reign, Status
from dynasties.services.play_monarchs import CrownRules, MonarchsPlay, MonarchStatus, Period, Stage
from dynasties.services.play_registry import plays, step_of
from rules import eu_crowns as draw
from rules.errors import NotFound

HISTORY_SHOWN = 60
"""The newest reigns a crown's history shows (the count says how many there are)."""
TIMELINE_WIDTH = 720
TIMELINE_ROW = 30


@dataclass(frozen=True)
class CrisisTurn:
    year: int
    modifier: int
    what: str


@dataclass(frozen=True)
class EuStanding:
    """A crown's monarch now, as the tables count him."""

    crown: Crown
    status: MonarchStatus
    monarch: Character | None
    planned_end_year: int | None
    stability: int
    named: bool
    no_survival_until: int | None
    leader: dict[str, int] | None
    crisis_year: int | None
    crisis_turns: list[CrisisTurn]
    survival_modifier: int
    prisoner: str
    """Who holds him ("the neutrals", "the house of Valois"), or "" when free."""

    @property
    def values(self) -> dict[str, int]:
        return self.status.values

    @property
    def effective(self) -> dict[str, int]:
        return self.status.effective

    @property
    def differs(self) -> bool:
        """Whether the values this turn differ from those rolled (a minority, a crisis's first turn)."""
        return self.status.effective != self.status.values

    @property
    def period(self) -> Period:
        return self.status.period

    @property
    def stage(self) -> Stage:
        return self.status.stage

    @property
    def rules(self) -> CrownRules:
        return self.status.rules

    @property
    def why(self) -> list[str]:
        """Why the values this turn are not those rolled, in words."""
        out = []
        if self.status.halved:
            out.append("halved in the first turn of a Dynastic Crisis")
        if self.status.stage.penalty:
            out.append(f"a {self.status.stage.name}: {self.status.stage.penalty:+d} to each value")
        return out

    def as_data(self) -> dict[str, Any]:
        """The API's and the export's words for it."""
        crown = self.status.rules  # the crown's settings as the tables read them
        return {
            "country": crown.country,
            "period": self.period.name,
            "monarch": self.monarch.pk if self.monarch is not None else None,
            "values": dict(self.values),
            "values_this_turn": dict(self.effective),
            "minority": self.stage.name,
            "can_lead": self.stage.can_lead,
            "halved": self.status.halved,
            "fragile_health": crown.fragile_health,
            "crisis_year": self.crisis_year,
            "crisis_turns": [{"year": t.year, "modifier": t.modifier, "what": t.what} for t in self.crisis_turns],
            "planned_end_year": self.planned_end_year,
            "survival_modifiers": [{"modifier": m, "why": why} for m, why in self.status.survival_modifiers],
            "survival_rolled": self.status.survival_rolled,
            "no_survival_until": self.no_survival_until,
            "named": self.named,
            "doge": crown.doge,
            "turkey": crown.turkey,
            "base_column": crown.base_column,
            "leader": dict(self.leader) if self.leader else None,
            "prisoner": self.prisoner,
        }


def _leader(play: MonarchsPlay, values: Mapping[str, Any]) -> dict[str, int]:
    """A monarch's values as a leader in the aid's order (a JSON column may keep its keys in another)."""
    return {k: int(values[k]) for k in play.leader_order() if isinstance(values.get(k), int)}


def _crisis_turns(campaign: Campaign, after_crisis: Sequence[int], crisis_year: int | None) -> list[CrisisTurn]:
    """The Dynastic Crisis's turns still to come or going on: its first (values halved), then the
    survival roll's modifiers of the turns after it."""
    if crisis_year is None:
        return []
    year, step = campaign.current_year, max(1, campaign.turn_length)
    out = []
    if crisis_year == year:
        out.append(CrisisTurn(crisis_year, 0, "values halved, this turn"))
    for n, mod in enumerate(after_crisis, start=1):
        when = crisis_year + n * step
        if mod and when >= year:
            out.append(CrisisTurn(when, int(mod), f"{mod:+d} to the survival roll, turn {n} after the crisis"))
    return out


def _standing(
    play: MonarchsPlay, campaign: Campaign, tables: Mapping[str, Any], record: Crown, reign: Reign | None
) -> EuStanding:
    status = play.status_of(campaign, tables, record, reign)
    state = record.state or {}
    monarch = status.monarch
    crisis = state.get("crisis_year")
    leader = state.get("leader")
    prisoner = ""
    if monarch is not None and monarch.status == Status.ALIVE and monarch.is_prisoner:
        prisoner = f"the house of {monarch.prisoner_of.name}" if monarch.prisoner_of is not None else "the neutrals"
    exempt = state.get("no_survival_until_year")
    return EuStanding(
        crown=record,
        status=status,
        monarch=monarch,
        planned_end_year=status.planned_end_year,
        stability=record.stability,
        named=bool(state.get("named")),
        no_survival_until=int(exempt) if exempt is not None and int(exempt) > campaign.current_year else None,
        leader=_leader(play, leader) if isinstance(leader, dict) else None,
        crisis_year=int(crisis) if crisis is not None else None,
        crisis_turns=_crisis_turns(campaign, play.after_crisis(tables), int(crisis) if crisis is not None else None),
        survival_modifier=sum(m for m, _ in status.survival_modifiers),
        prisoner=prisoner,
    )


def _open_reigns(campaign: Campaign) -> dict[str, Reign]:
    reigns = Reign.objects.filter(campaign=campaign, end_year__isnull=True).select_related("holder", "holder__prisoner_of")
    return {r.crown: r for r in reigns}


def eu_standings(campaign: Campaign, crowns: Sequence[Crown] | None = None) -> dict[str, EuStanding]:
    """Every crown's standing (or ``crowns``'), by name; empty for a campaign of another ruleset."""
    if not plays(campaign, "monarchs"):
        return {}
    play = step_of(campaign, "monarchs")
    tables = play.tables(campaign)
    records = list(crowns) if crowns is not None else list(Crown.objects.filter(campaign=campaign).order_by("name"))
    reigns = _open_reigns(campaign)
    return {c.name: _standing(play, campaign, tables, c, reigns.get(c.name)) for c in records}


def eu_standing(campaign: Campaign, record: Crown) -> EuStanding:
    """One crown's standing (the crown page)."""
    if not plays(campaign, "monarchs"):
        raise NotFound(f"{campaign.name} does not play the EU monarch tables.")
    play = step_of(campaign, "monarchs")
    tables = play.tables(campaign)
    reign = (
        Reign.objects.filter(campaign=campaign, crown=record.name, end_year__isnull=True)
        .select_related("holder", "holder__prisoner_of")
        .first()
    )
    return _standing(play, campaign, tables, record, reign)


# --- the history ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EuReign:
    """One monarch of the crown: his values as rolled (or named), how he came and how he went."""

    reign: Reign
    monarch: Character
    values: dict[str, int]
    age: int
    """His age at accession."""
    minority: str
    """The minority stage at accession ("" an adult)."""
    crisis: bool
    fragile_health: bool
    named: bool
    doge: bool
    leader: dict[str, int] | None
    ended: str
    """How the reign ended, in words ("" while it goes on)."""

    @property
    def start(self) -> int:
        return self.reign.start_year

    @property
    def end(self) -> int | None:
        return self.reign.end_year

    @property
    def planned_end(self) -> int | None:
        return self.reign.planned_end_year

    @property
    def marks(self) -> list[str]:
        """Short words for the table and the timeline."""
        out = []
        if self.named:
            out.append("named")
        if self.doge:
            out.append("Doge")
        if self.minority:
            out.append(self.minority)
        if self.crisis:
            out.append("Dynastic Crisis")
        if self.fragile_health:
            out.append("Fragile Health")
        return out

    def as_data(self) -> dict[str, Any]:
        return {
            "reign": self.reign.pk,
            "monarch": self.monarch.pk,
            "name": self.monarch.display_name,
            "start_year": self.start,
            "end_year": self.end,
            "planned_end_year": self.planned_end,
            "values": dict(self.values),
            "age_at_accession": self.age,
            "minority": self.minority,
            "dynastic_crisis": self.crisis,
            "fragile_health": self.fragile_health,
            "named": self.named,
            "doge": self.doge,
            "leader": dict(self.leader) if self.leader else None,
            "ended": self.ended,
        }


def _ended(reign: Reign, holder: Character) -> str:
    if reign.end_year is None:
        return ""
    if holder.status == Status.DEAD and holder.death_year is not None and holder.death_year <= reign.end_year:
        return f"died ({holder.death_cause})" if holder.death_cause else "died"
    return "stepped down"


@dataclass(frozen=True)
class TimelineRow:
    """A reign's bar on the timeline, placed: its row's top, its bar, and the reign's planned rest."""

    reign: EuReign
    bar: draw.Bar
    y: int

    @property
    def rest_x(self) -> float:
        return round(self.bar.x + self.bar.width, 1)

    @property
    def text_y(self) -> int:
        return self.y + 14

    @property
    def label(self) -> str:
        r = self.reign
        return f"{r.monarch.display_name} {r.start}-{r.end if r.end is not None else ''}"


@dataclass
class EuHistory:
    crown: str
    reigns: list[EuReign]
    total: int
    first: int = 0
    last: int = 0
    bars: list[TimelineRow] = field(default_factory=list)
    ticks: list[tuple[int, float]] = field(default_factory=list)

    @property
    def height(self) -> int:
        return 34 + TIMELINE_ROW * max(1, len(self.bars))

    @property
    def width(self) -> int:
        return TIMELINE_WIDTH

    @property
    def summary(self) -> str:
        """The picture in words (its accessible description)."""
        if not self.reigns:
            return f"No monarch has reigned over {self.crown} yet."
        parts = [
            f"{r.monarch.display_name} {r.start}-{r.end if r.end is not None else 'now'}"
            + (f" (planned to {r.planned_end})" if r.end is None and r.planned_end else "")
            for r in sorted(self.reigns, key=lambda r: (r.start, r.reign.pk))
        ]
        return f"The reigns over {self.crown} from {self.first} to {self.last}: " + "; ".join(parts) + "."


@dataclass(frozen=True)
class _Flags:
    crisis: set[tuple[str, int]] = field(default_factory=set)
    fragile: set[tuple[str, int]] = field(default_factory=set)
    named: set[tuple[str, int]] = field(default_factory=set)
    leaders: dict[tuple[str, int], dict[str, int]] = field(default_factory=dict)


def _flags(play: MonarchsPlay, campaign: Campaign, crown: str | None = None) -> _Flags:
    """What the public chronicle says of each monarch (by crown and character): a Dynastic Crisis at
    his accession, Fragile Health, a named monarch, his values as a leader. One query."""
    lines = ChronicleEntry.objects.filter(
        campaign=campaign, audience=Audience.PUBLIC, kind__in=("succession", "dynastic_crisis", "fragile_health", "leader")
    )
    if crown is not None:
        lines = lines.filter(data__crown=crown)
    flags = _Flags()
    for kind, data in lines.order_by("pk").values_list("kind", "data"):
        who = data.get("character") if isinstance(data, dict) else None
        where = data.get("crown") if isinstance(data, dict) else None
        if not isinstance(who, int) or not isinstance(where, str):
            continue
        key = (where, who)
        if kind == "dynastic_crisis":
            flags.crisis.add(key)
        elif kind == "fragile_health":
            flags.fragile.add(key)
        elif kind == "succession" and data.get("named"):
            flags.named.add(key)
        elif kind == "leader" and isinstance(data.get("values"), dict):
            flags.leaders[key] = _leader(play, data["values"])
    return flags


def _eu_reign(play: MonarchsPlay, tables: Mapping[str, Any], r: Reign, flags: _Flags, doge: bool) -> EuReign:
    holder = r.holder
    age = r.start_year - holder.birth_year
    key = (r.crown, holder.pk)
    return EuReign(
        reign=r,
        monarch=holder,
        values=play.values(holder),
        age=age,
        minority=play.minority_at(tables, age),
        crisis=key in flags.crisis,
        fragile_health=key in flags.fragile,
        named=key in flags.named,
        doge=doge,
        leader=flags.leaders.get(key),
        ended=_ended(r, holder),
    )


def eu_reign_reader(campaign: Campaign) -> Callable[[Reign], EuReign]:
    """A reader of reigns (their holders read) as the history shows them: three queries first (the
    tables, the crowns' settings, the public chronicle's lines), none for each reign (the API's page
    of monarchs)."""
    play = step_of(campaign, "monarchs")
    tables = play.tables(campaign)
    states = dict(Crown.objects.filter(campaign=campaign).values_list("name", "state"))
    flags = _flags(play, campaign)

    def read(r: Reign) -> EuReign:
        return _eu_reign(play, tables, r, flags, play.doge(tables, r.crown, states.get(r.crown) or {}))

    return read


def eu_history(campaign: Campaign, crown: str, *, shown: int = HISTORY_SHOWN) -> EuHistory:
    """The crown's monarchs, newest first, with the timeline of the ``shown`` newest (oldest at the
    top). Four queries: the tables, the reigns, the crown's settings, its public lines about its monarchs."""
    play = step_of(campaign, "monarchs")
    tables = play.tables(campaign)
    qs = Reign.objects.filter(campaign=campaign, crown=crown)
    reigns = list(qs.select_related("holder").order_by("-start_year", "-pk")[: shown + 1])
    total = len(reigns) if len(reigns) <= shown else qs.count()
    reigns = reigns[:shown]
    state = Crown.objects.filter(campaign=campaign, name=crown).values_list("state", flat=True).first() or {}
    flags = _flags(play, campaign, crown)
    doge = play.doge(tables, crown, state)
    rows = [_eu_reign(play, tables, r, flags, doge) for r in reigns]
    history = EuHistory(crown=crown, reigns=rows, total=total)
    oldest_first = sorted(rows, key=lambda r: (r.start, r.reign.pk))
    first = min([campaign.start_year, *(r.start for r in rows)])
    history.first, history.last, bars = draw.timeline(
        [(r.start, r.end, r.planned_end) for r in oldest_first], first=first, now=campaign.current_year, width=TIMELINE_WIDTH
    )
    history.bars = [TimelineRow(r, b, 22 + TIMELINE_ROW * i) for i, (r, b) in enumerate(zip(oldest_first, bars, strict=True))]
    span = history.last - history.first
    step = next(s for s in (5, 10, 25, 50, 100, 200, 500) if span / s <= 12 or s == 500)
    start = history.first + (-history.first) % step
    history.ticks = [(y, round((y - history.first) * TIMELINE_WIDTH / span, 1)) for y in range(start, history.last + 1, step)]
    return history
