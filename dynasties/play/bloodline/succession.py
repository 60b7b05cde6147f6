"""BloodLine's succession (RULES.md B): any heir may be passed over, at a price in Stability and
revolts; a dead Queen's children of a Dynastic Union do not inherit her crown; a minor house's
monarch without issue is replaced by a rolled one, and a house with no heir of the blood left falls
into a Dynastic Crisis; the Turkish heir and his fratricide; no regents (a minor costs Stability);
a new monarch loses his in-country titles; titles pass to the holder's descendants."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from campaign.dice import DiceBox
from campaign.steps import Chronicle
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Marriage, Reign, Status
from dynasties.play.blood_royale.succession import PRETENDER_TERMS, TITLE_TERMS
from dynasties.play.blood_royale.succession import baron_birth_year as baron_birth_year
from dynasties.play.blood_royale.succession import baron_characteristics as baron_characteristics
from dynasties.play.blood_royale.succession import charisma_loss_dice as charisma_loss_dice  # never asked: priced otherwise
from dynasties.play.blood_royale.succession import create_relative as create_relative
from dynasties.play.blood_royale.succession import regent_min_age as regent_min_age
from dynasties.play.blood_royale.succession import relative_plan as relative_plan
from dynasties.play.bloodline import law
from dynasties.services import control, minor_crowns
from dynasties.services.bloodline_titles import accession_loses_titles, crisis_opens
from dynasties.services.claims import spurned_barred
from dynasties.services.common import World
from dynasties.services.play_succession import CrownTerms, PassOverCost, PassOverView, PretenderTerms, TitleTerms
from dynasties.services.succession import heir_standing, move_family
from rules import bloodline as bl
from rules.people import Person
from rules.succession import line_of

# --- the deaths and the line ------------------------------------------------------------------------


def unions_end(world: World, chronicle: Chronicle) -> dict[str, set[int]]:
    barred = _union_children_barred(world)  # read before the unions end with the deaths
    _bloodline_unions_end(world, chronicle)
    return barred


def successions_kill() -> bool:
    """Turkey #2: a new Sultan's brothers are put to death, and may reign elsewhere."""
    return True


def union_barred(world: World, crown: str) -> set[int] | None:
    return _union_children_barred(world).get(crown)


def barred(world: World, crown: str, people: Mapping[int, Person]) -> set[int]:
    return spurned_barred(world.campaign, crown, people)  # born into a spurned line after its skip


def leaves_no_issue(world: World, crown: str, monarch: int, people: Mapping[int, Person]) -> bool:
    """'If the monarch dies without issue, then a randomly rolled monarch 5 years younger than the
    previous one takes the throne' (a minor house): his brothers and sisters do not inherit."""
    return minor_crowns.is_minor_crown(world, crown) and next(iter(line_of(people, monarch)), None) is None


def pass_over_cost(
    world: World, candidate: Character, player: Dynasty | None, *, crown: str, rule_c: bool
) -> PassOverCost | None:
    return None  # any heir may be passed over, at the price ``passed_over`` charges


def heir_of(world: World, crown: str, candidate: Character) -> Character | None:
    return law.turkish_heir(world, crown, candidate)


# --- the new reign -----------------------------------------------------------------------------------


def no_heir(
    world: World,
    late: Character,
    player: Dynasty | None,
    crown: str,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, Any],
    entered: list[list[int]] | None,
) -> tuple[Character, str]:
    if minor_crowns.is_minor_crown(world, crown):
        return minor_crowns.minor_monarch_replaced(world, crown, late, box, chronicle), minor_crowns.REPLACED_HOW
    heir = law.crisis(world, late, player, box, chronicle, tables, entered)
    crisis_opens(world, crown, heir, chronicle)  # the bankruptcy; the dead line's titles may be claimed
    return heir, "a distant relation, after a Dynastic Crisis"


def passed_over(
    world: World,
    reign: Reign,
    heir: Character,
    player: Dynasty | None,
    skipped: Sequence[tuple[Character, PassOverCost | None]],
    lines: Mapping[int, list[Character]],
    box: DiceBox,
    chronicle: Chronicle,
    entered: list[list[int]] | None,
) -> None:
    law.pass_over(world, reign, heir, player, [c for c, _ in skipped], box, chronicle, lines=lines)


def crowned(world: World, crown: str, heir: Character, chronicle: Chronicle) -> None:
    law.fratricide(world, crown, heir, chronicle)


def minor(heir: Person, year: int) -> bool:
    return heir.age(year) < bl.ADULT_AGE


def needs_regent(heir: Person, year: int) -> bool:
    return False  # a minor monarch costs -1 Stability a turn instead


def widows_retire() -> bool:
    return bl.KINGS_WIDOWS_RETIRE


def accession(world: World, reign: Reign, chronicle: Chronicle) -> None:
    accession_loses_titles(world, reign, chronicle)


def match_crowns() -> int:
    return 0  # no Treasury Crowns


def whole_family_moves() -> bool:
    return True  # "along with her husband and any children they have produced", married or not


def join(
    world: World,
    *,
    queen_crown: Crown,
    king_crown: Crown,
    queen: Character,
    king: Character,
    king_player: Dynasty | None,
    chronicle: Chronicle,
) -> None:
    _bloodline_union(world, queen_crown, king_crown, queen, king, king_player, chronicle)


CROWN_TERMS = CrownTerms.of(bl.RULESET)


def crown_terms() -> CrownTerms:
    return CROWN_TERMS


def pretender_terms() -> PretenderTerms:
    return PRETENDER_TERMS.registered_by(bl.RULESET)  # no Pretenders nor bastards


def title_terms() -> TitleTerms:
    """No Governors; a title's minor heir has the monarch as 'Regent' as in Blood Royale (rule G)."""
    return replace(
        TITLE_TERMS,
        governors=False,
        governed_tax_extra=0,
        income=bl.title_income,
        controller_share=bl.controller_share,
        income_split=bl.title_income_split,
    )


def regents() -> bool:
    return False


def gives_back_crowns() -> bool:
    return False


def capitals() -> bool:
    return False


def minor_note(monarch: Character, regent: Character | None, year: int) -> tuple[str | None, int | None]:
    age = monarch.age(year)
    return (f"A minor, aged {age}: -1 Stability a turn until 15." if age < bl.ADULT_AGE else None), None


# --- the line of succession's page -------------------------------------------------------------------


def priced_pass_overs() -> bool:
    return True


def titles_descend() -> bool:
    return True  # "Titles are passed down to descendants"


def pass_over_view(world: World, character: Character, crown: str, player: Dynasty | None, rule_c: bool) -> PassOverView:
    """BloodLine: any heir may be passed over; the price of passing over this one (RULES.md B)."""
    standing = heir_standing(world, character, player, crown=crown)
    cost = bl.dispute_cost(
        sex=character.sex,
        prisoner_of_another=standing.prisoner_of_another or standing.prisoner_of_neutrals,
        married_away=standing.married_away,
        skipped=1,
    )
    costs = []
    if cost.stability:
        costs.append(f"{cost.stability:+d} Stability at once")
    if cost.revolts:
        costs.append(f"{cost.revolts} revolt{'s' if cost.revolts > 1 else ''} in the country")
    if cost.combat_malus:
        costs.append(f"{cost.combat_malus:+d} on combat rolls while the line lives")
    if cost.kind == "voluntary":
        pronoun = "her" if character.sex == "F" else "him"
        costs.append(f"-1 Stability and one revolt more for each heir of {pronoun} line passed over with {pronoun}")
    if cost.ongoing_roll:
        costs.append(
            "each turn, 1d10: 6-10 costs 1 more Stability or a revolt (a second 1d10: 1-5 Stability, 6-10 a revolt), "
            "while the line lives; the heir passes to another player"
        )
    if cost.interim:
        costs.append("the next heir reigns only until the prisoner dies or is released")
    return PassOverView(allowed=True, text=cost.kind.replace("_", " "), costs=tuple(costs), usurper=player)


# --- the unions -------------------------------------------------------------------------------------


def _union_children_barred(world: World) -> dict[str, set[int]]:
    """BloodLine: 'When the Queen or King dies the dynastic union is over and none of her children may
    inherit ... and the line passes to the next logical successor from the Queen's family.' For each
    crown of a dead Queen who was in a Dynastic Union during her reign (standing now, or ended when
    her King died first: docs/rulings.md), the children of that union: hers by a husband who reigned
    another crown while they were married and she reigned (``_reigned_together``)."""
    out: dict[str, set[int]] = {}
    for reign in world.open_reigns():
        late = world.characters[reign.holder_id]
        if late.status != Status.DEAD or late.sex != "F":
            continue
        barred: set[int] = set()
        for m in Marriage.objects.filter(wife_id=late.pk, wedding_year__isnull=False).order_by("pk"):
            if any(
                r.holder_id == m.husband_id
                and r.crown != reign.crown
                and (_standing_union(world, reign, r) or _reigned_together(m, reign, r, late.death_year))
                for r in world.reigns
            ):
                barred |= law.union_children(world, late.pk, m.husband_id)
        if barred:
            out[reign.crown] = barred
    return out


def _standing_union(world: World, hers: Reign, his: Reign) -> bool:
    """Her crown is in union with his now (the union the deaths are about to end)."""
    record, partner = world.crowns.get(hers.crown), world.crowns.get(his.crown)
    return record is not None and partner is not None and his.end_year is None and record.union_with_id == partner.pk


def _reigned_together(match: Marriage, hers: Reign, his: Reign, her_death: int | None) -> bool:
    """Whether both spouses reigned, married, at one moment. Within a turn deaths come first
    (Survival), then reigns begin (Succession), then weddings (Interphase): a King who succeeds in
    the turn his Queen died never reigned with her; a reign or marriage ends with the death."""

    def span(start: int, end: int | None, begins: float) -> tuple[float, float]:
        return start + begins, end + 0.2 if end is not None else float("inf")

    spans = [
        span(match.wedding_year or 0, match.ended_year, 0.8),
        span(hers.start_year, hers.end_year if hers.end_year is not None else her_death, 0.5),
        span(his.start_year, his.end_year, 0.5),
    ]
    return max(a for a, _ in spans) < min(b for _, b in spans)


def _bloodline_unions_end(world: World, chronicle: Chronicle) -> None:
    """BloodLine: a Dynastic Union is over when the Queen or the King dies (read from the Queen's
    crown, which regains the Stability)."""
    reigning = {r.crown: r for r in world.open_reigns()}
    for record in sorted(world.crowns.values(), key=lambda c: c.name):
        if not law.is_union_queen_crown(world, record):
            continue
        partner = next((c for c in world.crowns.values() if c.pk == record.union_with_id), None)
        mine, theirs = reigning.get(record.name), reigning.get(partner.name) if partner else None
        dead = [r for r in (mine, theirs) if r is not None and world.characters[r.holder_id].status == Status.DEAD]
        if dead:
            law.union_ends(world, record, chronicle)


def _bloodline_union(
    world: World,
    queen_crown: Crown,
    king_crown: Crown,
    queen: Character,
    king: Character,
    king_player: Dynasty | None,
    chronicle: Chronicle,
) -> None:
    """BloodLine's Dynastic Union (see ``crowns_join``)."""
    partner = world.crowns.get(next((c.name for c in world.crowns.values() if c.pk == queen_crown.union_with_id), ""))
    if partner is not None and any(r.crown == partner.name and r.holder_id == king.pk for r in world.open_reigns()):
        return  # the same King and Queen: the union goes on from the turn it began
    if king_player is not None:
        move_family(world, king, queen, king_player, cause="union")  # children of the union belong to the male's dynasty
    queen_house = world.dynasties.get(queen_crown.controlled_by_id or 0) or world.crown_dynasty(queen_crown.name)
    players = [d is not None and d.kind == DynastyKind.PLAYER for d in (queen_house, king_player)]
    if players == [False, True]:
        # the minor moves to the Vassal box of the player's country
        control.move(world.campaign, queen_crown, king_player, "union")
        how = f"{queen_crown.name} goes to the Vassal box of the house of {king_player.name if king_player else '?'}"
    elif players == [True, False]:
        control.move(world.campaign, king_crown, queen_house, "union")
        how = f"{king_crown.name} goes to the Vassal box of the house of {queen_house.name if queen_house else '?'}"
    else:
        how = (
            f"the house of {queen_house.name if queen_house else '?'} keeps {queen_crown.name} and the house of "
            f"{king_player.name if king_player else '?'} decides with it, both agreeing, in all but the Diplomatic "
            "and Peace phases"
        )
    queen_crown.union_with = king_crown
    queen_crown.union_since = world.year
    king_crown.union_with = queen_crown
    king_crown.union_since = world.year
    queen_crown.save(update_fields=["controlled_by", "union_with", "union_since"])
    king_crown.save(update_fields=["controlled_by", "union_with", "union_since"])
    chronicle.add(
        "union",
        f"Dynastic Union: {queen.display_name}, Queen of {queen_crown.name}, is married to {king.display_name}, "
        f"King of {king_crown.name}; {how}.",
        crown=queen_crown.name,
        dynasty=queen_crown.controlled_by_id,
    )
    law.union_turn_stability(world, queen_crown, chronicle)
