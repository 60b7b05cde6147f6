"""What the table decides about a crown (issue 31): the regent of a minor monarch (his player's choice),
a crown given back at the end of a union, a Stability change the board decided, a capital lost and
retaken, a foreign intervention."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from campaign.models import Campaign
from campaign.permissions import Seat, runs_the_turn
from campaign.table_events import Choice, Field, Kind, TableEvent, register
from dynasties.models import Character, Crown, CrownEvent, Marriage, Modifier, Reign, Status
from dynasties.services.bloodline import crown_stability_change
from dynasties.services.common import World
from dynasties.services.crowns import capital_lose, capital_retake, foreign_intervention, ruler_of
from dynasties.services.events import crown_give_back, regent_appoint, regents_allowed
from dynasties.services.play_registry import Play, play_of, registered_plays
from dynasties.services.succession import default_regent
from dynasties.table_events.common import acts_for, gm_only, person
from rules import crowns as rules

GROUP = "Crowns"


# --- who is offered what -----------------------------------------------------------------------------


def _regencies(campaign: Campaign) -> list[tuple[Reign, Crown]]:
    """The regencies going on, with their crowns (two queries)."""
    crowns = {c.name: c for c in Crown.objects.filter(campaign=campaign)}
    reigns = Reign.objects.filter(campaign=campaign, end_year__isnull=True, regent__isnull=False, regency_end_year__isnull=True)
    return [(r, crowns[r.crown]) for r in reigns.select_related("holder", "regent").order_by("crown") if r.crown in crowns]


def _mine(seat: Seat, record: Crown) -> bool:
    """Whether the seat decides for this crown (the GM, or the player of the house that controls it)."""
    return acts_for(seat, record.controlled_by_id)


def _gm(seat: Seat) -> bool:
    return seat.system or runs_the_turn(seat.role)


def _crown_player(crowns: Callable[[Campaign], list[Crown]]) -> Callable[[Campaign, Seat], bool]:
    """The GM, and the player of a house that controls one of ``crowns`` (his decision to record)."""

    def offered(campaign: Campaign, seat: Seat) -> bool:
        if _gm(seat):
            return True
        return seat.dynasty is not None and any(_mine(seat, c) for c in crowns(campaign))

    return offered


def _crown_choices(crowns: Callable[[Campaign], list[Crown]], note: Callable[[Crown], str] | None = None) -> Any:
    def offered(campaign: Campaign, seat: Seat) -> list[Choice]:
        return [Choice(c.name, c.name, note(c) if note else "") for c in crowns(campaign) if _mine(seat, c)]

    return offered


def _reigning_crowns(campaign: Campaign) -> list[Crown]:
    reigning = set(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("crown", flat=True))
    return [c for c in Crown.objects.filter(campaign=campaign).order_by("name") if c.name in reigning]


# --- the regent ----------------------------------------------------------------------------------------


def _regency_crowns(campaign: Campaign) -> list[Crown]:
    return [record for _, record in _regencies(campaign)]


def _widows_of_late(campaign: Campaign, crown: str) -> set[int]:
    """The late monarch's surviving spouses (the rule's last resort before a baron)."""
    late = Reign.objects.filter(campaign=campaign, crown=crown, end_year__isnull=False).order_by("-end_year", "-pk").first()
    if late is None:
        return set()
    pairs = Marriage.objects.filter(campaign=campaign, ended_year__isnull=False).filter(husband_id=late.holder_id)
    wives = set(pairs.values_list("wife_id", flat=True))
    husbands = set(
        Marriage.objects.filter(campaign=campaign, ended_year__isnull=False, wife_id=late.holder_id).values_list(
            "husband_id", flat=True
        )
    )
    return wives | husbands


def _defaults(campaign: Campaign, seat: Seat) -> dict[str, int | None]:
    """The regent the rules would name today for each regency the seat decides (succession's own
    ``default_regent``: the first adult in the monarch's line, else the oldest of the house, else the
    late monarch's surviving spouse; None: a baron would be created)."""
    mine = [(reign, record) for reign, record in _regencies(campaign) if _mine(seat, record)]
    if not mine:
        return {}
    world = World(campaign)
    return {
        reign.crown: default_regent(world, reign.crown, reign.holder_id, _widows_of_late(campaign, reign.crown))[0]
        for reign, _ in mine
    }


def _regent_choices(campaign: Campaign, seat: Seat) -> list[Choice]:
    """For each regency the seat decides: the characters the rule allows, the rules' own choice noted."""
    defaults = _defaults(campaign, seat)
    year = campaign.current_year
    mine = [(reign, record) for reign, record in _regencies(campaign) if _mine(seat, record)]
    out: list[Choice] = []
    for reign, record in mine:
        for c in regents_allowed(campaign, reign, record.controlled_by_id):
            notes = [f"for {reign.crown}"] if len(mine) > 1 else []  # the crown, when the seat decides several
            if defaults.get(reign.crown) == c.pk:
                notes.append("the rules' choice")
            out.append(Choice(c.pk, f"{c.display_name} ({c.age(year)})", ", ".join(notes)))  # all of the one house
    return out


def _initial_regent(campaign: Campaign, seat: Seat) -> int | None:
    """The regent the rules would name today, for the first regency the seat decides (the form's proposal)."""
    defaults = _defaults(campaign, seat)
    return next((pk for pk in defaults.values() if pk is not None), None)


def _initial_crown(campaign: Campaign, seat: Seat) -> str | None:
    return next((record.name for _, record in _regencies(campaign) if _mine(seat, record)), None)


def _regents_play() -> Play:
    """The play whose minor monarchs rule through a regent (Blood Royale A7): the baron's fields quote
    its figures. The plays are registered before the table events are declared (``DynastiesConfig.ready()``)."""
    return next(p for p in registered_plays().values() if p.succession.regents())


BARON = _regents_play().succession.baron_characteristics()
BARON_DICE = _regents_play().births.terms().characteristic_dice


def _regent_run(
    *,
    campaign: Campaign,
    by: Any,
    crown: str,
    regent: int | None = None,
    baron: bool = False,
    **dice: Any,
) -> Reign:
    typed = [dice.get(f"baron_{c.key}") for c in BARON]
    return regent_appoint(
        campaign=campaign,
        crown=crown,
        character=regent,
        baron=baron,
        characteristics=typed if any(typed) else None,
        by=by,
    )


def _regent_done(reign: Reign) -> str:
    regent = reign.regent
    return f"Recorded: {regent.display_name if regent else 'nobody'} is regent of {reign.crown} for {reign.holder.display_name}."


REGENT = register(
    TableEvent(
        key="regent_appoint",
        label="A regent chosen",
        help="A minor monarch's player chooses his regent: 'The player can bring in any other character to act as "
        "Regent (if he or she is of age). If none are available, a baron or cousin of the late King is created' "
        "(Blood Royale A7). The form proposes the regent the rules would name today; a created baron who is "
        "replaced retires from the game.",
        group=GROUP,
        when="any",
        fields=(
            Field(
                "crown",
                Kind.CROWN,
                "Crown",
                "The crown under a regency.",
                choices=_crown_choices(_regency_crowns),
                initial=_initial_crown,
            ),
            Field(
                "regent",
                Kind.CHARACTER,
                "Regent",
                "Any other character of the house who is of age (15) and free.",
                required=False,
                choices=_regent_choices,
                initial=_initial_regent,
            ),
            Field(
                "baron",
                Kind.FLAG,
                "Create a baron instead",
                "Only when nobody of the house can act: a cousin of the late King, 5 years younger (or 30), his "
                "characteristics rolled (type the dice below, or leave them blank for the server's).",
            ),
            *(
                Field(
                    f"baron_{c.key}",
                    Kind.DICE,
                    f"The baron's {c.label} ({BARON_DICE})",
                    f"The three dice of his {c.label} roll (A2).",
                    required=False,
                    dice=str(BARON_DICE),
                )
                for c in BARON
            ),
        ),
        run=_regent_run,
        services=(regent_appoint,),
        offered=_crown_player(_regency_crowns),
        applies=lambda campaign: play_of(campaign).succession.regents(),
        done=_regent_done,
    )
)


# --- a crown given back --------------------------------------------------------------------------------


def _annexed(campaign: Campaign) -> list[Crown]:
    return [c for c in Crown.objects.filter(campaign=campaign).order_by("name") if c.annexed]


def _new_monarchs(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The living of each landless house whose crown the seat may give back, not reigning."""
    mine = [c for c in _annexed(campaign) if _mine(seat, c)]
    homes = {c.home_dynasty_id: c.name for c in mine if c.home_dynasty_id is not None}
    if not homes:
        return []
    reigning = set(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("holder_id", flat=True))
    people = Character.objects.filter(campaign=campaign, status=Status.ALIVE, controlled_by_id__in=list(homes))
    year = campaign.current_year
    of_age = play_of(campaign).succession.regent_min_age()
    return [
        person(
            c,
            year,
            f"for {homes[c.controlled_by_id]}" + (", a minor: a regent rules for him" if c.age(year) < of_age else ""),
        )
        for c in people.select_related("controlled_by").order_by("controlled_by_id", "birth_year", "pk")
        if c.pk not in reigning and c.controlled_by_id is not None
    ]


def _give_back_done(reign: Reign) -> str:
    return f"Recorded: {reign.crown} is given back; {reign.holder.display_name} is its new monarch."


GIVE_BACK = register(
    TableEvent(
        key="crown_give_back",
        label="A crown given back",
        help="The player who holds a second country after a Dynastic Union gives it back: 'a player in this position "
        "might prefer to abandon any rights to it, and allow a new Monarch to be established by the 'landless' "
        "player' (Blood Royale A7, Controlling Two Countries). The landless house names its new monarch; if it names "
        "none, a relative's family is created as when no heir can be found (the server rolls the children).",
        group=GROUP,
        when="any",
        fields=(
            Field(
                "crown", Kind.CROWN, "Crown", "A country held by another house than its own.", choices=_crown_choices(_annexed)
            ),
            Field(
                "monarch",
                Kind.CHARACTER,
                "Its new monarch",
                "Named by the landless house; blank: a relative's family is created.",
                required=False,
                choices=_new_monarchs,
            ),
        ),
        run=lambda *, campaign, by, crown, monarch=None: crown_give_back(campaign=campaign, crown=crown, monarch=monarch, by=by),
        services=(crown_give_back,),
        offered=_crown_player(_annexed),
        applies=lambda campaign: play_of(campaign).succession.gives_back_crowns(),
        done=_give_back_done,
    )
)


# --- Stability changed by the board --------------------------------------------------------------------


def _crowns(campaign: Campaign) -> list[Crown]:
    return list(Crown.objects.filter(campaign=campaign).order_by("name"))


def _stability_note(c: Crown) -> str:
    return f"Stability {c.stability:+d}"


def _causes(campaign: Campaign, seat: Seat) -> list[Choice]:
    return [Choice(c.key, c.label, f"{c.span()}: {c.rule}") for c in rules.BOARD_CAUSES]


def _stability_done(event: CrownEvent) -> str:
    return f"Recorded: {event.crown.name}'s Stability {event.delta:+d} ({event.reason}), now {event.stability_after:+d}."


STABILITY = register(
    TableEvent(
        key="crown_stability_change",
        label="Stability changed by the board",
        help="A country's Stability moves on the board's -3..+3 track for a cause the rulebook names: a war lost, a "
        "bankruptcy (the Bankruptcy Roll), a full peace (+1), Enhance Stability (its roll), exceptional levies (-1), "
        "or another the GM names. Where the rule fixes the change the form needs no number.",
        group=GROUP,
        when="between",
        fields=(
            Field("crown", Kind.CROWN, "Crown", choices=_crown_choices(_crowns, _stability_note)),
            Field(
                "cause", Kind.CHOICE, "Cause", "As the rulebook names it; beside each, its change and its rule.", choices=_causes
            ),
            Field(
                "delta",
                Kind.NUMBER,
                "Change",
                "The levels gained (+) or lost (-), as the board's roll or terms gave them; blank where the rule fixes it.",
                required=False,
                low=-6,
                high=6,
            ),
            Field("reason", Kind.TEXT, "What happened", "For the chronicle (required for another cause).", required=False),
        ),
        run=lambda *, campaign, by, crown, cause, delta=None, reason="": crown_stability_change(
            campaign=campaign, crown=crown, cause=cause, delta=delta, reason=reason, by=by
        ),
        services=(crown_stability_change,),
        offered=gm_only,
        applies=lambda campaign: play_of(campaign).succession.crown_terms().stability,
        done=_stability_done,
    )
)


# --- Charisma changed by the board ---------------------------------------------------------------------


def _held(campaign: Campaign) -> list[Crown]:
    """The crowns reigned over whose capital stands."""
    lost = set(
        Modifier.objects.filter(campaign=campaign, kind="capital_lost", end_year__isnull=True).values_list("crown", flat=True)
    )
    return [c for c in _reigning_crowns(campaign) if c.name not in lost]


def _lost(campaign: Campaign) -> list[Crown]:
    """The crowns whose capital is lost."""
    lost = set(
        Modifier.objects.filter(campaign=campaign, kind="capital_lost", end_year__isnull=True).values_list("crown", flat=True)
    )
    return [c for c in _crowns(campaign) if c.name in lost]


def _ruler_note(campaign: Campaign) -> Callable[[Crown], str]:
    reigns = {
        r.crown: r for r in Reign.objects.filter(campaign=campaign, end_year__isnull=True).select_related("holder", "regent")
    }

    def note(c: Crown) -> str:
        reign = reigns.get(c.name)
        if reign is None:
            return ""
        ruler = ruler_of(reign)
        return f"ruled by {ruler.display_name}, Charisma {int((ruler.characteristics or {}).get('charisma', 0)):+d}"

    return note


def _ruled(crowns: Callable[[Campaign], list[Crown]]) -> Callable[[Campaign, Seat], list[Choice]]:
    def offered(campaign: Campaign, seat: Seat) -> list[Choice]:
        note = _ruler_note(campaign)
        return [Choice(c.name, c.name, note(c)) for c in crowns(campaign) if _mine(seat, c)]

    return offered


def _charisma_done(modifier: Modifier) -> str:
    who = modifier.character.display_name if modifier.character else "the ruler"
    if modifier.end_year is not None:
        return f"Recorded: the capital of {modifier.crown} is retaken ({who})."
    return f"Recorded: {who}, ruler of {modifier.crown}, Charisma {modifier.value:+d}."


NOTE = Field("note", Kind.TEXT, "What happened", "For the chronicle (e.g. who took it).", required=False)

CAPITAL_LOST = register(
    TableEvent(
        key="capital_lost",
        label="A capital lost",
        help="A country's capital is taken on the board: 'The ruler of a country which loses or has lost its capital "
        "should have his or her Charisma score reduced by 1 until the capital is retaken', never below -2 (Blood "
        "Royale 18). The ruler is the monarch, or his regent during a regency; the -1 follows whoever rules until "
        "the capital is retaken.",
        group=GROUP,
        when="between",
        fields=(Field("crown", Kind.CROWN, "Crown", "A country whose capital stands.", choices=_ruled(_held)), NOTE),
        run=lambda *, campaign, by, crown, note="": capital_lose(campaign=campaign, crown=crown, note=note, by=by),
        services=(capital_lose,),
        offered=gm_only,
        applies=lambda campaign: play_of(campaign).succession.capitals(),
        done=_charisma_done,
    )
)

CAPITAL_RETAKEN = register(
    TableEvent(
        key="capital_retaken",
        label="A capital retaken",
        help="A country recaptures its original capital (Blood Royale 18: 'The Capital Marker is removed as soon as a "
        "player recaptures his or her original Capital'): the Charisma its ruler lost comes back.",
        group=GROUP,
        when="between",
        fields=(Field("crown", Kind.CROWN, "Crown", "A country whose capital is lost.", choices=_ruled(_lost)), NOTE),
        run=lambda *, campaign, by, crown, note="": capital_retake(campaign=campaign, crown=crown, note=note, by=by),
        services=(capital_retake,),
        offered=gm_only,
        applies=lambda campaign: play_of(campaign).succession.capitals(),
        done=_charisma_done,
    )
)

INTERVENTION = register(
    TableEvent(
        key="foreign_intervention",
        label="Foreign military aid",
        help="A monarch enlists foreign military aid (to put down rebellions, for example): 'the monarch's Charisma "
        "score is reduced by 1. This can have the effect of reducing a monarch's Charisma below -2' (Blood Royale "
        "20). It lasts his life. The monarch's player records it, or the GM.",
        group=GROUP,
        when="between",
        fields=(
            Field("crown", Kind.CROWN, "Crown", "The country whose ruler enlists the aid.", choices=_ruled(_reigning_crowns)),
            NOTE,
        ),
        run=lambda *, campaign, by, crown, note="": foreign_intervention(campaign=campaign, crown=crown, note=note, by=by),
        services=(foreign_intervention,),
        offered=_crown_player(_reigning_crowns),
        applies=lambda campaign: play_of(campaign).succession.capitals(),
        done=_charisma_done,
    )
)
