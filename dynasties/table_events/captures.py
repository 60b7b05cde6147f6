"""Captures, releases and ransoms the table decides (RULES.md A5 "Captured Royal Characters", A8;
B "Royal Characters in Battle" and Disputed Succession A; the EU tables' ransom of a monarch).

- Taken prisoner: royals on the map taken by a house or by the neutrals (the GM: the board decided).
- Released or ransomed: for the neutrals' price, on any terms between houses, or for nothing. The
  GM records any; a player the neutrals' ransom his house pays, and the release of his own house's
  prisoner for nothing (docs/rulings.md, "Captures and ransoms").
- A released heir's claim (BloodLine): the crown's player, or the GM, recognises him or keeps the
  interim monarch.

The EU monarch tables keep one character a crown, its monarch: he is the one a battle takes, and
his ransom is the tables' (``eu_monarchs.RANSOM``: a major power 200 ducats and -2 Stability, a minor
50); the release here frees him for nothing (a peace's terms) and refuses a ransom of another price
(docs/rulings.md, "An EU monarch captured and ransomed")."""

from __future__ import annotations

from campaign.models import Campaign
from campaign.permissions import Seat
from campaign.table_events import Choice, Field, Kind, TableEvent, register
from dynasties.models import FREE, Character, Dynasty, DynastyKind, Reign, Status
from dynasties.services.events import character_capture, character_release, may_be_captured, on_the_map
from dynasties.services.interim import interim_claim_resolve
from dynasties.services.play_registry import play_of
from dynasties.table_events.common import PHASE, acts_for, gm_only, gm_or_players, houses, own_houses, person
from dynasties.treasury import currency
from rules import captures as caps

GROUP = "Deaths and captures"


# --- taken prisoner ----------------------------------------------------------------------------------


def _on_the_map_note(campaign: Campaign, c: Character, reigns: dict[int, str]) -> str:
    where = on_the_map(campaign)
    if where == caps.OnTheMap.PIECES:
        if c.prince_piece == "K" or c.pk in reigns:
            return f"the King of {reigns[c.pk]}" if c.pk in reigns else "the King's piece"
        return f"Prince piece {c.prince_piece}"
    if where == caps.OnTheMap.LEADERS:
        return "a royal leader"
    if where == caps.OnTheMap.MONARCHS and c.pk in reigns:
        return f"reigns over {reigns[c.pk]}"
    return ""


def takeable(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The living, free royals the rules put on the map (a battle or a surrender can take them)."""
    people = list(
        Character.objects.filter(FREE, campaign=campaign, status=Status.ALIVE)
        .select_related("controlled_by", "prisoner_of")
        .order_by("controlled_by_id", "birth_year", "pk")
    )
    reigns = dict(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("holder_id", "crown"))
    year = campaign.current_year
    return [person(c, year, _on_the_map_note(campaign, c, reigns)) for c in may_be_captured(campaign, people)]


def captors(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The houses that fight (a player's, a minor house; not the three-player game's aristocratic family)."""
    kinds = {d.pk: d.kind for d in Dynasty.objects.filter(campaign=campaign)}
    return [c for c in houses(campaign, seat) if kinds.get(int(c.value)) != DynastyKind.ARISTOCRATIC]


def _taken(people: list[Character]) -> str:
    held = "the neutrals" if people and people[0].held_by_neutrals else f"the house of {people[0].prisoner_of}"
    names = " and ".join(c.display_name for c in people)
    return f"Recorded: {names} {'is' if len(people) == 1 else 'are'} prisoner of {held}."


CAPTURE = register(
    TableEvent(
        key="capture",
        label="Taken prisoner",
        help="Royals taken on the board: a King or Prince whose army is wiped out and who survives his roll "
        "(record the battle for that), one who surrenders, one the neutrals take. Only those on the map are "
        "taken: in Blood Royale the King and the Princes with a piece (a Queen never leaves the capital), in "
        "BloodLine the royal leaders (the heirs of 15 or more of the present dynasty), with the EU monarch tables the "
        "monarch. A prisoner has no children, may not be killed, and may be passed over if he inherits (A5, A7).",
        group=GROUP,
        when="between",
        fields=(
            Field(
                "characters",
                Kind.CHARACTERS,
                "Who is taken",
                "Those the rules put on the map, free today.",
                choices=takeable,
            ),
            Field(
                "captor", Kind.DYNASTY, "Taken by the house of", "Or tick the neutrals below.", required=False, choices=captors
            ),
            Field(
                "neutrals",
                Kind.FLAG,
                "Taken by the neutrals",
                "A country no player controls (Blood Royale: 'Neutrals ransom him for 100 Crowns').",
            ),
            Field("reason", Kind.TEXT, "How", "For the chronicle, e.g. 'his army wiped out at Crécy'.", required=False),
            PHASE,
        ),
        run=lambda *, campaign, by, characters, captor=None, neutrals=False, reason="", phase=None: character_capture(
            campaign=campaign, characters=characters, captor=captor, neutrals=neutrals, reason=reason, phase=phase, by=by
        ),
        services=(character_capture,),
        offered=gm_only,
        applies=lambda campaign: play_of(campaign).events.takes_prisoners(),
        done=_taken,
        desk="Taken prisoner (the form asks by whom)",
    )
)


# --- released or ransomed ------------------------------------------------------------------------------


def releasable(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The prisoners this seat may release: every prisoner for the GM; for a player, his own house's
    prisoners (freed for nothing) and his house's people held by the neutrals (their ransom)."""
    held = (
        Character.objects.filter(campaign=campaign, status=Status.ALIVE)
        .exclude(FREE)
        .select_related("controlled_by", "prisoner_of")
        .order_by("prisoner_of_id", "birth_year", "pk")
    )
    price = play_of(campaign).events.neutral_ransom()
    money = currency(campaign)
    out = []
    for c in held:
        if c.held_by_neutrals:
            if not acts_for(seat, c.controlled_by_id):
                continue
            note = f"prisoner of the neutrals{f': {price} {money}' if price else ''}"
        else:
            if not (seat.is_gm or acts_for(seat, c.prisoner_of_id)):
                continue
            note = f"prisoner of the house of {c.prisoner_of}"
        out.append(person(c, campaign.current_year, note))
    return out


def _released(people: list[Character]) -> str:
    names = " and ".join(c.display_name for c in people)
    return f"Recorded: {names} {'is' if len(people) == 1 else 'are'} free; the chronicle has it (the money: its houses' books)."


RELEASE = register(
    TableEvent(
        key="release",
        label="Released or ransomed",
        help="A prisoner goes home: ransomed by the neutrals for their price (Blood Royale: 'Neutrals ransom him "
        "for 100 Crowns', paid to the Treasury), ransomed between houses on any terms (money, trade items, a "
        "marriage contract: A8), or freed for nothing. The ransom is posted to the payer's and the captor's "
        "exchequers, read by them and the GM only. A player records the neutrals' ransom his house pays, and "
        "frees his own house's prisoner; a ransom between two houses is the GM's once both have agreed. With the EU "
        "monarch tables a monarch is freed here for nothing (a peace's terms); his ransom is 'A monarch ransomed'.",
        group=GROUP,
        when="any",
        fields=(
            Field("characters", Kind.CHARACTERS, "Who is released", "Prisoners of one captor at a time.", choices=releasable),
            Field(
                "ransom",
                Kind.MONEY,
                "Ransom",
                "The whole price (the neutrals in Blood Royale: 100 a head); blank: released without ransom.",
                required=False,
            ),
            Field(
                "paid_by",
                Kind.DYNASTY,
                "Paid by the house of",
                "Blank: the prisoner's own house.",
                required=False,
                choices=own_houses,
            ),
            Field(
                "terms",
                Kind.TEXT,
                "Other terms",
                "What else was agreed (read by the houses concerned and the GM, as the money is).",
                required=False,
            ),
        ),
        run=lambda *, campaign, by, characters, ransom=0, paid_by=None, terms="": character_release(
            campaign=campaign, characters=characters, ransom=ransom or 0, paid_by=paid_by, terms=terms, by=by
        ),
        services=(character_release,),
        offered=gm_or_players,
        applies=lambda campaign: play_of(campaign).events.takes_prisoners(),
        done=_released,
        desk="Released or ransomed (the form asks the ransom)",
        extra={"desk_form": True},  # a release is for nothing only if the GM leaves the ransom blank
    )
)


# --- a released heir's claim (BloodLine) ------------------------------------------------------------


def waiting_claims(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The crowns whose interim monarch faces a released heir's claim, that this seat decides (the
    crown's player, or the GM)."""
    from dynasties.services.common import World

    reigns = list(
        Reign.objects.filter(
            campaign=campaign,
            interim_for__prisoner_of__isnull=True,
            interim_for__held_by_neutrals=False,
            end_year__isnull=True,
            interim_for__status=Status.ALIVE,
        )
        .select_related("holder", "interim_for")
        .order_by("crown")
    )
    if not reigns:
        return []
    world = World(campaign, living_only=True)
    out = []
    for r in reigns:
        player = world.crown_dynasty(r.crown)
        if seat.is_gm or (player is not None and acts_for(seat, player.pk)):
            claimant = r.interim_for
            assert claimant is not None
            label = f"{r.crown}: {claimant.display_name} claims it from {r.holder.display_name}"
            out.append(Choice(r.crown, label, "released: his claim is made at once"))
    return out


DECISIONS = [
    Choice("recognise", "Recognise him", "he reigns; the interim monarch steps down"),
    Choice(
        "refuse",
        "Keep the interim monarch",
        "a voluntary disputed succession over one heir: -2 Stability, a revolt, -1 on battle rolls and the "
        "turn's 50% roll while his line lives; he passes to another player",
    ),
]


INTERIM_CLAIM = register(
    TableEvent(
        key="interim_claim",
        label="A released heir's claim",
        help="BloodLine, Disputed Succession A: an heir passed over as a prisoner leaves the next heir to run the "
        "dynasty 'until the legitimate heir either dies or is released. If released, the legitimate heir "
        "immediately makes a claim to the throne. If the legitimate heir is not immediately recognized as the "
        "monarch, then the interim monarch is retained' at the price of a voluntary disputed succession. The "
        "crown's player decides (or the GM).",
        group=GROUP,
        when="any",
        fields=(
            Field("crown", Kind.CROWN, "The crown claimed", choices=waiting_claims),
            Field("decision", Kind.CHOICE, "The player's answer", choices=lambda campaign, seat: DECISIONS),
        ),
        run=lambda *, campaign, by, crown, decision: interim_claim_resolve(
            campaign=campaign, crown=crown, recognize=decision == "recognise", by=by
        ),
        services=(interim_claim_resolve,),
        offered=gm_or_players,
        applies=lambda campaign: play_of(campaign).events.interim_claims(),
        done=lambda reign: f"Recorded: {reign.holder.display_name} reigns over {reign.crown}.",
    )
)


__all__ = ["CAPTURE", "INTERIM_CLAIM", "RELEASE"]
