"""Deaths and captures the board decides (RULES.md A5, A7): a battle lost, a plague, a storm at sea,
a royal killed at the table.

Each form offers only whom the rule lets the event strike (``services.event_deaths.exposed``: in Blood
Royale the royal pieces on the map), the odds of each one's roll beside him (the check the service
makes), his dice to type (blank: the server rolls), and - when one who may die reigns - the heirs his
crown's player may pass over if he dies, decided at once as at the Survival step
(``services.event_deaths.pass_overs_if_dies``). The service refuses anything else with the rule."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from campaign.models import Campaign
from campaign.permissions import Seat
from campaign.table_events import Choice, Field, Kind, TableEvent, register
from dynasties import treasury
from dynasties.models import Character, Dynasty
from dynasties.services import event_deaths
from dynasties.services.events import NEUTRALS, EventResult, survival_event
from dynasties.services.play_registry import Play, play_of, registered_plays
from dynasties.table_events.common import PHASE, gm_only, person

GROUP = "Deaths and captures"


def _rolling_play() -> Play:
    """The play whose plague and battle are survival rolls (Blood Royale A5): the forms quote its
    figures. The plays are registered before the table events are declared (``DynastiesConfig.ready()``)."""
    return next(p for p in registered_plays().values() if p.events.rolls_events())


ROLLING = _rolling_play()
SURVIVAL_DICE = ROLLING.survival.survival_dice()


# --- what the fields offer -----------------------------------------------------------------------


def struck(reason: str, *, odds: bool) -> Callable[[Campaign, Seat], list[Choice]]:
    """Whom the event may strike, each with the odds of his roll (``odds``) beside him."""

    def offered(campaign: Campaign, seat: Seat) -> list[Choice]:
        people = _sorted(event_deaths.exposed(campaign, reason))
        notes = event_deaths.odds_notes(campaign, people, ROLLING.events.terms(reason).modifier) if odds else {}
        return [person(c, campaign.current_year, notes.get(c.pk, "")) for c in people]

    return offered


def _sorted(people: Sequence[Character]) -> list[Character]:
    return sorted(people, key=lambda c: (c.controlled_by_id or 0, c.birth_year, c.pk))


def households(campaign: Campaign, seat: Seat) -> list[Choice]:
    """Optional rule G: every Governor's household, each member with the odds of his roll if one of
    the Governor's provinces is struck (+1 for each other he governs; -1 more for each other struck)."""
    found = event_deaths.families(campaign)
    first: dict[int, tuple[event_deaths.Family, Character]] = {}
    for f in found:
        for c in f.members:
            first.setdefault(c.pk, (f, c))
    modifiers = {pk: ROLLING.events.plague_modifier(len(f.titles), 1) for pk, (f, _) in first.items()}
    notes = event_deaths.odds_notes(campaign, [c for _, c in first.values()], modifiers)
    out = []
    for pk, (f, c) in first.items():
        where = " or ".join(t.province for t in f.titles)
        more = "; 1 less for each other of his provinces struck" if len(f.titles) > 1 else ""
        role = "Governor" if pk == f.governor.pk else f"household of {f.governor.display_name}"
        out.append(person(c, campaign.current_year, f"{role}: if {where} is struck, {notes[pk]}{more}"))
    return out


def governed_provinces(campaign: Campaign, seat: Seat) -> list[Choice]:
    """Optional rule G: the provinces a living Governor holds."""
    return [
        Choice(t.pk, f"{t.province} ({t.name}, {f.governor.display_name})")
        for f in event_deaths.families(campaign)
        for t in f.titles
    ]


def plague_struck(campaign: Campaign, seat: Seat) -> list[Choice]:
    """Whom a plague may strike or spare in his capital: the pieces on the map and the Governors' households."""
    seen = {c.value for c in struck("plague", odds=False)(campaign, seat)}
    return struck("plague", odds=False)(campaign, seat) + [c for c in households(campaign, seat) if c.value not in seen]


def captors(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The house whose army won, or the neutrals (who ransom a royal for 100)."""
    money = treasury.currency(campaign)
    neutrals = Choice(NEUTRALS, f"The neutrals (they ransom him for {ROLLING.events.neutral_ransom()} {money})")
    houses = [Choice(str(d.pk), f"The house of {d.name}") for d in Dynasty.objects.filter(campaign=campaign).order_by("pk")]
    return [*houses, neutrals]


def _at_risk(reason: str) -> Callable[[Campaign], list[int] | None]:
    """The ids of those the event may kill (None: anybody)."""

    def ids(campaign: Campaign) -> list[int] | None:
        if reason == "killed":
            return None
        found = [c.pk for c in event_deaths.exposed(campaign, reason)]
        if reason == "plague":
            found += [c.pk for f in event_deaths.families(campaign) for c in f.members]
        return found

    return ids


def heirs(reason: str) -> Callable[[Campaign, Seat], list[Choice]]:
    """For each monarch the event may kill, the heirs his crown's player may pass over if he dies."""

    def offered(campaign: Campaign, seat: Seat) -> list[Choice]:
        out = []
        for e in event_deaths.pass_overs_if_dies(campaign, _at_risk(reason)(campaign)):
            crowns: dict[int, tuple[Character, list[str]]] = {}
            for m, crown in zip(e.monarchs, e.crowns, strict=True):
                crowns.setdefault(m.pk, (m, []))[1].append(crown)
            who = " or ".join(f"{m.display_name} ({', '.join(names)})" for m, names in crowns.values())
            out.append(Choice(e.heir.pk, f"If {who} dies: pass over {e.heir.display_name} ({e.kin}, {e.age})", e.cost))
        return out

    return offered


def pass_over_field(reason: str) -> Field:
    return Field(
        "pass_over",
        Kind.CHARACTERS,
        "If a monarch dies: heirs passed over",
        "The crown's player decides now, as at the Survival step (A7 Disputed Succession; rule C): tick the heirs "
        "to pass over should the monarch die; nothing ticked, the rightful heir succeeds. Applied only if he dies. "
        "The first three of each line are offered, with the price in short; the house's page shows the whole line "
        "and every penalty ('what if he dies').",
        required=False,
        choices=heirs(reason),
    )


# --- the runs ------------------------------------------------------------------------------------


def _decided(campaign: Any, reason: str, chosen: Sequence[int] | None) -> dict[str, list[int]] | None:
    if not chosen:
        return None
    return event_deaths.crowns_of_heirs(campaign, list(chosen), _at_risk(reason)(campaign))


def _outcome(results: list[EventResult], fate: str = "dies") -> str:
    parts = []
    for r in results:
        name = r.character.display_name
        if r.need is None:
            parts.append(f"{name} {fate}")
        elif not r.survived:
            parts.append(f"{name} dies (rolled {sum(r.faces)}{r.modifier:+d}, needed {r.need})")
        else:
            parts.append(
                f"{name} survives (rolled {sum(r.faces)}{r.modifier:+d}, needed {r.need})"
                + (", taken prisoner" if r.captured else "")
            )
    if not parts:
        return "Recorded: nobody had to roll. The chronicle has it."
    return "Recorded at the table: " + "; ".join(parts) + ". The chronicle has the rest (successions, captures)."


def _run_battle(
    *,
    campaign: Any,
    by: Any,
    characters: Sequence[int],
    captor: str,
    faces: dict[int, list[int]] | None = None,
    pass_over: Sequence[int] | None = None,
    note: str = "",
    phase: int | None = None,
) -> list[EventResult]:
    return survival_event(
        campaign=campaign,
        reason="battle",
        characters=characters,
        faces=faces,
        captor=captor,
        note=note,
        pass_over=_decided(campaign, "battle", pass_over),
        phase=phase,
        by=by,
    )


def _run_plague(
    *,
    campaign: Any,
    by: Any,
    characters: Sequence[int] = (),
    faces: dict[int, list[int]] | None = None,
    immune: Sequence[int] = (),
    titles: Sequence[int] = (),
    governed: Sequence[int] | None = None,
    governed_faces: dict[int, list[int]] | None = None,
    pass_over: Sequence[int] | None = None,
    note: str = "",
    phase: int | None = None,
) -> list[EventResult]:
    return survival_event(
        campaign=campaign,
        reason="plague",
        characters=characters,
        faces={**(faces or {}), **(governed_faces or {})},
        immune=immune,
        titles=titles,
        governed=governed if titles or governed else None,
        note=note,
        pass_over=_decided(campaign, "plague", pass_over),
        phase=phase,
        by=by,
    )


def _no_roll(
    reason: str,
    *,
    campaign: Any,
    by: Any,
    characters: Sequence[int],
    pass_over: Sequence[int] | None = None,
    note: str = "",
    phase: int | None = None,
) -> list[EventResult]:
    """A storm's and a death at the table's run: those named die, no die rolled."""
    return survival_event(
        campaign=campaign,
        reason=reason,
        characters=characters,
        note=note,
        pass_over=_decided(campaign, reason, pass_over),
        phase=phase,
        by=by,
    )


_run_storm = partial(_no_roll, "storm")
_run_killed = partial(_no_roll, "killed")


def _rolls(campaign: Campaign) -> bool:
    return play_of(campaign).events.rolls_events()


def _at_sea(campaign: Campaign) -> bool:
    return play_of(campaign).events.at_sea()


NOTE = Field("note", Kind.TEXT, "Where, how", "For the chronicle (e.g. 'at Crécy').", required=False)

BATTLE = register(
    TableEvent(
        key="battle",
        label="A battle lost",
        help="Blood Royale A5 (Combat): a royal piece whose army is wiped out 'will be captured or killed': he "
        "rolls for survival at -1, and if he lives he is captured by the victor (the neutrals ransom him for 100). "
        "Only the King and the Princes with pieces are on the field; 'Captured characters may not be killed'.",
        group=GROUP,
        when="between",
        fields=(
            Field(
                "characters",
                Kind.CHARACTERS,
                "The royals whose army was wiped out",
                "The King or a Prince with his piece on the field; each rolls 2d6 + Constitution - 1.",
                choices=struck("battle", odds=True),
            ),
            Field("faces", Kind.FACES, "Their dice", of="characters", dice=str(SURVIVAL_DICE)),
            Field("captor", Kind.CHOICE, "Captured by", "The house whose army won, or the neutrals.", choices=captors),
            pass_over_field("battle"),
            NOTE,
            PHASE,
        ),
        run=_run_battle,
        services=(survival_event,),
        offered=gm_only,
        applies=_rolls,
        done=_outcome,
        desk="A battle lost (survival roll -1, captured if he lives)",
    )
)

PLAGUE = register(
    TableEvent(
        key="plague",
        label="Plague",
        help="Blood Royale A5 (Plague): 'A King or Prince in a Province affected by Plague must make a Survival roll, "
        "subtracting one'; 'Characters resident in their capital are never affected'. Optional rule G: a plague in a "
        "governed province strikes the Governor, his or her spouse and their children up to 15, +1 for each other "
        "province he governs not struck.",
        group=GROUP,
        when="between",
        fields=(
            Field(
                "characters",
                Kind.CHARACTERS,
                "The King and Princes in a plague province",
                "Their piece is in a province the plague struck; each rolls 2d6 + Constitution - 1.",
                required=False,
                choices=struck("plague", odds=True),
            ),
            Field("faces", Kind.FACES, "Their dice", of="characters", dice=str(SURVIVAL_DICE)),
            Field(
                "immune",
                Kind.CHARACTERS,
                "In their capital (immune)",
                "Named for the chronicle; they do not roll.",
                required=False,
                choices=plague_struck,
            ),
            Field(
                "titles",
                Kind.TITLES,
                "Governed provinces struck (optional rule G)",
                "Their Governors' households roll below.",
                required=False,
                choices=governed_provinces,
            ),
            Field(
                "governed",
                Kind.CHARACTERS,
                "The Governors' households who roll (optional rule G)",
                "The Governor of each province struck, his or her spouse and their children up to 15: tick them all "
                "(one who rolls for his piece above rolls once).",
                required=False,
                choices=households,
            ),
            Field("governed_faces", Kind.FACES, "Their dice", of="governed", dice=str(SURVIVAL_DICE)),
            pass_over_field("plague"),
            NOTE,
            PHASE,
        ),
        run=_run_plague,
        services=(survival_event,),
        offered=gm_only,
        applies=_rolls,
        done=_outcome,
        desk="Plague (survival roll -1)",
    )
)

STORM = register(
    TableEvent(
        key="storm",
        label="Lost at sea in a storm",
        help="Blood Royale A5 (Storms): 'Any Royal characters aboard the Fleet when it was lost die' - no roll. A "
        "Fleet carries Army counters and King or Prince pieces only (BloodLine: a royal leader).",
        group=GROUP,
        when="between",
        fields=(
            Field(
                "characters",
                Kind.CHARACTERS,
                "The royals aboard the fleet lost",
                "The King or a Prince with his piece (BloodLine: a royal leader); they die without a roll.",
                choices=struck("storm", odds=False),
            ),
            pass_over_field("storm"),
            NOTE,
            PHASE,
        ),
        run=_run_storm,
        services=(survival_event,),
        offered=gm_only,
        applies=_at_sea,
        done=lambda results: _outcome(results, "lost at sea"),
        desk="Lost at sea in a storm (no roll)",
    )
)

KILLED = register(
    TableEvent(
        key="killed",
        label="Killed at the table",
        help="A death the board or a card decided (an assassination, a duel, a death in a battle fought out on "
        "the board): no roll. His marriages end, his pieces are freed, and a crown left vacant passes at once. "
        "'Captured characters may not be killed.'",
        group=GROUP,
        when="any",
        fields=(
            Field(
                "characters",
                Kind.CHARACTERS,
                "Who dies",
                "Captured characters may not be killed.",
                choices=struck("killed", odds=False),
            ),
            pass_over_field("killed"),
            Field("note", Kind.TEXT, "How", "What happened, for the chronicle (e.g. 'in a duel').", required=False),
        ),
        run=_run_killed,
        services=(survival_event,),
        offered=gm_only,
        done=lambda results: _outcome(results, "killed"),
        desk="Killed at the table (this turn)",
    )
)
