"""Succession when a monarch dies (RULES.md A7): the heir, a regent for a minor, a created
relative when nobody of the blood is left, and (Blood Royale) the 100 Crowns owed for a match with a
monarch."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from campaign import events
from campaign.dice import DiceBox
from campaign.steps import Chronicle
from dynasties import treasury
from dynasties.models import (
    Character,
    Crown,
    Dynasty,
    Marriage,
    Origin,
    Posting,
    PostingKind,
    Reign,
    Status,
)
from dynasties.services import control, regnal
from dynasties.services.characteristics import format_characteristics
from dynasties.services.common import World
from dynasties.services.crowns import crowns_review
from dynasties.services.play_registry import play_of
from dynasties.services.play_succession import HeirStanding, PassOverCost
from rules.dice import Entered
from rules.errors import RuleError
from rules.names import given_name
from rules.succession import iter_succession, line_of


def title(character: Character) -> str:
    return "King" if character.sex == "M" else "Queen"


def resolve_successions(
    world: World,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, Any],
    *,
    entered: list[list[int]] | None,
    pass_over: Mapping[str, Sequence[int]] | None = None,
) -> list[Reign]:
    """Every crown whose monarch is dead passes on (skipping the heirs ``pass_over`` names for that
    crown, if the rules allow it); every regency whose regent died gets a new regent."""
    wanted = {crown: list(ids) for crown, ids in (pass_over or {}).items()}
    new_reigns: list[Reign] = []
    play = play_of(world.campaign).succession
    union_barred = play.unions_end(world, chronicle)  # who a union bars is read before the unions end
    _annexations_end(world)
    regents_named = False
    for reign in list(world.open_reigns()):
        holder = world.characters[reign.holder_id]
        if holder.status == Status.DEAD:
            new_reigns.append(
                _succeed(
                    world,
                    reign,
                    box,
                    chronicle,
                    tables,
                    entered,
                    wanted.pop(reign.crown, []),
                    barred_by_union=union_barred.get(reign.crown, set()),
                )
            )
        elif reign.regent_id and reign.regency_end_year is None and world.characters[reign.regent_id].status != Status.ALIVE:
            # 'a baron or cousin of the late King ... 5 years younger than the late King': the monarch
            # whose death made the minor succeed, not the minor, who lives (A7)
            late = _late_monarch(world, reign)
            regent = _choose_regent(world, reign, holder, late, box, chronicle, tables, entered)
            reign.regent = regent
            reign.save(update_fields=["regent"])
            chronicle.add("regency", f"{regent.display_name} becomes regent for {holder.display_name}.", character=regent.pk)
            regents_named = True
    while play.successions_kill():  # Turkey #2: a new Sultan's brothers put to death may reign elsewhere: succeeded this turn too
        more = play.unions_end(world, chronicle)
        killed = [r for r in world.open_reigns() if world.characters[r.holder_id].status == Status.DEAD]
        if not killed:
            break
        for reign in killed:
            new_reigns.append(
                _succeed(
                    world,
                    reign,
                    box,
                    chronicle,
                    tables,
                    entered,
                    wanted.pop(reign.crown, []),
                    barred_by_union=more.get(reign.crown, set()),
                )
            )
    if wanted:
        raise RuleError(
            f"No monarch of {', '.join(sorted(wanted))} has died: there is no succession in which to pass anyone over.",
            code="no_succession",
        )
    if entered:
        raise RuleError(f"{len(entered)} typed rolls were left over after the succession.", code="invalid_dice")
    if new_reigns or regents_named:  # a lost capital's Charisma follows the new rulers (Blood Royale 18)
        crowns_review(world.campaign, chronicle, world)
    return new_reigns


def _annexations_end(world: World) -> None:
    """A crown held by the player of a monarch who wore it with another (``_annex``) goes back to its
    home house when that monarch dies: it was held 'as long as the country is ruled by a "foreign"
    monarch'. Its heir is then brought to the home house (or annexes it again if he too wears
    another crown)."""
    for reign in list(world.open_reigns()):
        record = world.crowns.get(reign.crown)
        if (
            record is None
            or record.union_with_id is not None
            or record.home_dynasty_id is None
            or record.controlled_by_id == record.home_dynasty_id
            or world.characters[reign.holder_id].status != Status.DEAD
        ):
            continue
        control.move(world.campaign, record, record.home_dynasty_id, "house_restored")
        record.save(update_fields=["controlled_by"])


def heir_standing(world: World, character: Character, crown_player: Dynasty | None, *, crown: str) -> HeirStanding:
    """What the rules need to know of ``character`` as an heir of ``crown``, whose player is ``crown_player``."""
    player = crown_player.pk if crown_player else None
    controlled_elsewhere = character.controlled_by_id is not None and character.controlled_by_id != player
    pretender_line = controlled_elsewhere and _pretender_line(world, character, crown)
    return HeirStanding(
        sex=character.sex,
        prisoner_of_another=character.prisoner_of_id is not None and character.prisoner_of_id != player,
        married_away=controlled_elsewhere and world.spouse_of(character.pk) is not None,
        foreign_pretender=pretender_line,
        lives_with_crown_player=character.controlled_by_id == player,
        prisoner_of_neutrals=character.held_by_neutrals,
    )


def _pretender_line(world: World, character: Character, crown: str) -> bool:
    """Whether the character is a Pretender to ``crown``, or a descendant of one: 'A Pretender
    character or any of his or her heirs may inherit the throne ... (the 'claim' should be inherited
    in exactly the same way as any normal title). The player who has been controlling the disputed
    country up to that point may pass over the Pretender's claim' (Pretenders and Bastards). A
    Pretender claims the crown of the house he left (``pretender_of``); a Pretender to another crown
    gives his line no claim here to be passed over for (docs/rulings.md)."""
    seen: set[int] = set()
    stack = [character.pk]
    while stack:
        pk = stack.pop()
        if pk in seen or pk not in world.characters:
            continue
        seen.add(pk)
        c = world.characters[pk]
        house = world.dynasties.get(c.pretender_of_id) if c.pretender_of_id is not None else None
        if house is not None and house.crown and house.crown == crown:
            return True
        stack += [p for p in (c.father_id, c.mother_id) if p is not None]
    return False


@dataclass
class Walk:
    """Where the line of succession leads: the heir (None: nobody of the blood), the heirs passed
    over with their costs (Blood Royale; None in BloodLine) and, for each, the heirs of his line
    skipped with him ahead of the new monarch (BloodLine charges each)."""

    heir_id: int | None
    skipped: list[tuple[Character, PassOverCost | None]]
    with_them: dict[int, list[Character]]


def walk_the_line(
    world: World, late: Character, crown: str, pass_over: Sequence[int], *, barred_by_union: Collection[int] | None = None
) -> Walk:
    """Walk the late monarch's line of succession of ``crown``, passing over the heirs named in
    ``pass_over`` (each with his whole line, which carries his claim). Refuses an heir the rules do
    not let pass over, and heirs named who are not ahead of the one who succeeds. Reads only."""
    wanted = list(pass_over)
    player = world.crown_dynasty(crown)
    rule_c = world.campaign.option("disputed_succession")
    play = play_of(world.campaign).succession
    skipped: list[tuple[Character, PassOverCost | None]] = []
    heir_id: int | None = None
    barred = set(world.renounced.get(crown, set())) | set(barred_by_union or ())  # BloodLine: a union's children
    if play.leaves_no_issue(world, crown, late.pk, world.people):
        # BloodLine: "If the monarch dies without issue, then a randomly rolled monarch 5 years younger
        # than the previous one takes the throne": his brothers and sisters do not inherit
        if wanted:
            raise RuleError(
                f"{late.display_name} of {crown} leaves no issue: a monarch is rolled for the minor house and "
                "nobody is passed over.",
                code="not_in_line",
            )
        return Walk(None, [], {})
    barred |= play.barred(world, crown, world.people)  # BloodLine: born into a spurned line after its skip
    claim_lines: dict[int, int] = {}  # passing over an heir passes over the line that carries her claim: member -> heir
    with_them: dict[int, list[Character]] = {}  # BloodLine charges each heir of those lines ahead of the new monarch
    for pid in iter_succession(world.people, late.pk, royal=world.past_holders(crown), barred=barred):
        if pid in claim_lines:
            with_them.setdefault(claim_lines[pid], []).append(world.characters[pid])
            continue
        if pid in wanted:
            candidate = world.characters[pid]
            try:  # BloodLine allows any heir to be passed over, at its own price (None here)
                cost = play.pass_over_cost(world, candidate, player, crown=crown, rule_c=rule_c)
            except RuleError as exc:
                message = exc.message[:1].lower() + exc.message[1:]
                raise type(exc)(f"{candidate.display_name} may not be passed over: {message}") from None
            skipped.append((candidate, cost))
            wanted.remove(pid)
            if cost is None or cost.with_line:  # Blood Royale: a prisoner's free children keep their place
                for member in line_of(world.people, pid, eligible=lambda p: True):
                    claim_lines.setdefault(member, pid)
            continue
        chosen = play.heir_of(world, crown, world.characters[pid])  # BloodLine: the Turkish heir
        if chosen is None:
            continue
        heir_id = chosen.pk
        break
    if wanted:
        names = ", ".join(world.characters[p].display_name if p in world.characters else f"#{p}" for p in wanted)
        raise RuleError(
            f"{names}: not ahead of the heir in the line of succession of {crown}; only those who would "
            "otherwise succeed can be passed over.",
            code="not_in_line",
        )
    return Walk(heir_id, skipped, with_them)


def line_with_pass_over(world: World, crown: str, pass_over: Sequence[int]) -> Walk:
    """Where the succession of ``crown``, whose monarch lies dead, would lead with these heirs passed
    over, as ``resolve_successions`` will walk it (raises as it would). Reads only."""
    reign = next(r for r in world.open_reigns() if r.crown == crown)
    barred = play_of(world.campaign).succession.union_barred(world, crown)
    return walk_the_line(world, world.characters[reign.holder_id], crown, pass_over, barred_by_union=barred)


def _succeed(
    world: World,
    reign: Reign,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, Any],
    entered: list[list[int]] | None,
    pass_over: list[int],
    *,
    barred_by_union: set[int] | None = None,
) -> Reign:
    year = world.year
    late = world.characters[reign.holder_id]
    crown = reign.crown
    record = world.crown(crown)
    player = world.crown_dynasty(crown)
    play = play_of(world.campaign).succession
    walk = walk_the_line(world, late, crown, pass_over, barred_by_union=barred_by_union)
    heir_id, skipped, with_them = walk.heir_id, walk.skipped, walk.with_them
    reign.end_year = year
    reign.save(update_fields=["end_year"])
    if heir_id is None:  # BloodLine: a minor house's monarch rolled, or a Dynastic Crisis
        heir, how = play.no_heir(world, late, player, crown, box, chronicle, tables, entered)
    else:
        heir = world.characters[heir_id]
        how = "the rightful heir" if not skipped else "passing over " + ", ".join(c.display_name for c, _ in skipped)
    new = regnal.enthrone(world.campaign, crown, heir, year, world=world)
    world.reigns.append(new)
    chronicle.add(
        "succession",
        f"{regnal.crowned_name(heir, new)} succeeds {regnal.crowned_name(late, reign)} as {title(heir)} of {crown}, "
        f"aged {heir.age(year)} ({how}).",
        character=heir.pk,
        crown=crown,
        late=late.pk,
    )
    if skipped:
        play.passed_over(world, new, heir, player, skipped, with_them, box, chronicle, entered)
    play.crowned(world, crown, heir, chronicle)  # BloodLine: the fratricide
    bring_home(world, heir, record, chronicle)
    pay_monarch_match(world, heir, crown, chronicle)
    if play.needs_regent(heir.as_person(), year):  # BloodLine: -1 Stability a turn instead
        regent = _choose_regent(world, new, heir, late, box, chronicle, tables, entered)
        new.regent = regent
        new.save(update_fields=["regent"])
        chronicle.add(
            "regency",
            f"{heir.display_name} is {heir.age(year)}: {regent.display_name} is regent until the {title(heir)} is 15.",
            character=regent.pk,
            crown=crown,
        )
    campaign = world.campaign
    succession = events.Succession(
        campaign=campaign.pk, year=year, step=campaign.step, crown=crown, reign=new.pk, heir=heir.pk, late=late.pk
    )
    events.publish(succession, campaign=campaign, chronicle=chronicle)
    return new


def accessions_lose_titles(world: World, new_reigns: Sequence[Reign], chronicle: Chronicle) -> None:
    """BloodLine: 'When a Monarch assumes the throne he loses all in-country titles he presently
    owns' - those he held and those that passed to him in the same step (his father's county): call
    it after the late holders' titles have passed on (``titles_pass_on``)."""
    play = play_of(world.campaign).succession
    for reign in new_reigns:
        holder = world.characters.get(reign.holder_id)
        if reign.end_year is None and holder is not None and holder.status == Status.ALIVE:
            play.accession(world, reign, chronicle)


def pay_monarch_match(world: World, heir: Character, crown: str, chronicle: Chronicle) -> None:
    """A new monarch's spouse's house gets 100 Crowns from the Treasury ("either at the time of the
    marriage or when the male character succeeds to the throne", A6), once per match (Blood Royale)."""
    spouse = world.spouse_of(heir.pk)
    amount = play_of(world.campaign).succession.match_crowns()  # BloodLine: no Treasury Crowns
    match = _match_of(world, heir, spouse) if amount and spouse is not None else None
    if (
        match is not None
        and spouse is not None
        and spouse.birth_dynasty_id is not None
        and not _match_paid(match, spouse, heir, crown)
    ):
        treasury.post(
            world.campaign,
            payer=None,
            payee=spouse.birth_dynasty_id,
            amount=amount,
            kind=PostingKind.MONARCH_MATCH,
            reason=f"{spouse.display_name} is married to the new {title(heir)} of {crown}",
            character=spouse,
            marriage=match,
        )
        chronicle.add(
            "payment_owed",
            f"100 Crowns from the Treasury to the house of {world.dynasties[spouse.birth_dynasty_id].name}: "
            f"{spouse.display_name} is married to the new {title(heir)} of {crown}.",
            readers=[spouse.birth_dynasty_id],
            dynasty=spouse.birth_dynasty_id,
            amount=amount,
            character=spouse.pk,
        )


def _match_of(world: World, heir: Character, spouse: Character) -> Marriage | None:
    """The wedded marriage of the new monarch and the spouse (``World.spouse_of``'s)."""
    return next(
        (m for m in world.open_marriages if m.wedding_year is not None and {m.husband_id, m.wife_id} == {heir.pk, spouse.pk}),
        None,
    )


def _match_paid(match: Marriage, spouse: Character, heir: Character, crown: str) -> bool:
    """'receives 100 Crowns from the Treasury, either at the time of the marriage or when the male
    character succeeds to the throne': once per match - not again when the monarch comes to a second
    throne (nor at a succession after a wedding to a reigning monarch). A payment undone by a reversal
    does not count; postings older than the marriage link are found by the spouse and the years. The
    wedding's payment (it names no character) was this spouse's only if ``heir`` reigned at the wedding:
    when both spouses were born to one house, the bride's 100 at her wedding to a King are not the
    groom's when she comes to a throne of her own later."""
    paid = Posting.objects.filter(
        campaign_id=match.campaign_id,
        kind=PostingKind.MONARCH_MATCH,
        reversed_by__isnull=True,
        reverses__isnull=True,
        payee_id=spouse.birth_dynasty_id,
    )
    wed = match.wedding_year or 0
    if paid.filter(character=spouse).filter(Q(marriage=match) | Q(marriage__isnull=True, year__gte=wed)).exists():
        return True
    reigned_at_wedding = (
        Reign.objects.filter(campaign_id=match.campaign_id, holder=heir, start_year__lte=wed)
        .filter(Q(end_year__isnull=True) | Q(end_year__gte=wed))
        .exclude(crown=crown, end_year__isnull=True)  # the reign he comes to now
    )
    return paid.filter(marriage=match, character__isnull=True).exists() and reigned_at_wedding.exists()


def bring_home(world: World, heir: Character, record: Crown, chronicle: Chronicle) -> None:
    """A new monarch is controlled by the player of the crown (A7, Female Succession); the spouse and
    "any children of the marriage" come too: every living child of the couple who lives in the
    heir's house, married or not, with a spouse who lives there too, and an unmarried child wherever
    he lives (a child married into another house stays there; BloodLine: every child; ``_move_family``,
    docs/rulings.md "Queens, consorts and unions"). A monarch married to the monarch of another crown
    makes a Dynastic Union: the male character's player controls both crowns (BloodLine: see
    ``crowns_join``)."""
    player = world.dynasties.get(record.controlled_by_id or 0) or world.crown_dynasty(record.name)
    spouse = world.spouse_of(heir.pk)
    spouse_crowns = [r for r in world.crowns_of(spouse.pk) if r.crown != record.name] if spouse is not None else []
    worn = [r for r in world.crowns_of(heir.pk) if r.crown != record.name]
    if spouse_crowns and heir.sex == "F":
        crowns_join(world, queen_crown=record, king_crown=world.crown(spouse_crowns[0].crown), chronicle=chronicle)
        return
    if spouse_crowns:  # a new King married to a Queen regnant: every crown she wears joins his
        for queen_reign in spouse_crowns:
            crowns_join(world, queen_crown=world.crown(queen_reign.crown), king_crown=record, chronicle=chronicle)
        return
    if worn:  # already a monarch: he stays with his player, who controls this crown too (docs/rulings.md)
        _annex(world, heir, record, world.crown(worn[0].crown), chronicle)
        return
    if player is None or heir.controlled_by_id == player.pk:
        return
    # BloodLine: "along with her husband and any children they have produced", married or not
    move_family(world, heir, spouse, player, all_children=play_of(world.campaign).succession.whole_family_moves())
    chronicle.add(
        "return",
        f"{heir.display_name} returns to {record.name} with {'her' if heir.sex == 'F' else 'his'} family "
        f"as its new {title(heir)}" + (f"; {spouse.display_name} is now Consort" if spouse and heir.sex == "F" else "") + ".",
        dynasty=player.pk,
        character=heir.pk,
    )


def _annex(world: World, heir: Character, record: Crown, worn: Crown, chronicle: Chronicle) -> None:
    """A monarch who comes to a second throne (two in one turn, or one more) stays with the player
    who controls him, as his first crown's monarch; that player controls this crown too, as the
    King's player controls both countries of a Dynastic Union (A7, Controlling Two Countries)."""
    holder_player = world.dynasties.get(heir.controlled_by_id or 0)
    if holder_player is None or record.controlled_by_id == holder_player.pk:
        return
    home = world.dynasties.get(record.home_dynasty_id or 0)
    control.move(world.campaign, record, holder_player, "succession")
    record.save(update_fields=["controlled_by"])
    chronicle.add(
        "return",
        f"{heir.display_name}, {title(heir)} of {worn.name}, is also {title(heir)} of {record.name}: the house of "
        f"{holder_player.name} controls both crowns"
        + (f" and the house of {home.name} is landless" if home is not None and home != holder_player else "")
        + ".",
        dynasty=holder_player.pk,
        character=heir.pk,
        crown=record.name,
    )


def move_family(
    world: World,
    head: Character,
    spouse: Character | None,
    dynasty: Dynasty,
    *,
    all_children: bool = False,
    cause: str = "succession",
) -> None:
    """The head, the spouse and 'any children of the marriage' come to ``dynasty`` (A7): every living
    child of the couple who lives in the head's house, married or not, with a spouse who lives there
    too; a child married into another house stays there (docs/rulings.md). ``all_children``
    (BloodLine: 'along with her husband and any children they have produced'): every child."""
    moved = [head]
    if spouse is not None:
        moved.append(spouse)
        house = head.controlled_by_id
        children = [
            c
            for c in world.characters.values()
            if c.status == Status.ALIVE
            and {c.father_id, c.mother_id} == {head.pk, spouse.pk}
            and (all_children or c.controlled_by_id == house or world.spouse_of(c.pk) is None)
        ]
        moved += children
        if not all_children:
            for child in children:
                partner = world.spouse_of(child.pk)
                if partner is not None and partner.controlled_by_id == house and partner not in moved:
                    moved.append(partner)
    for character in moved:
        if character.controlled_by_id != dynasty.pk or character.pretender_of_id is not None:
            control.move(world.campaign, character, dynasty, cause)
            character.prince_piece = ""
            character.pretender_of = None  # a Pretender who comes home as monarch is no longer one
            character.save(update_fields=["controlled_by", "prince_piece", "pretender_of"])
            world.refresh_person(character)


def crowns_join(world: World, *, queen_crown: Crown, king_crown: Crown, chronicle: Chronicle) -> None:
    """Dynastic Union (A7): the Queen regnant's crown passes under the control of the King's player,
    with the Queen and the couple's unmarried children; both crowns record the union.

    BloodLine (RULES.md B) differs: between two player houses the Queen's crown stays with her
    house's player and the King's player decides with it (joint: "participates fully in the
    decision-making process ... both ... must agree"); a minor house's crown goes to the player's
    (the Vassal box). The Queen's country loses 1 Stability in the union's first two turns, this
    one the first. A King already in union with this Queen who inherits another crown does not
    make a new union."""
    king_player = world.dynasties.get(king_crown.controlled_by_id or 0) or world.crown_dynasty(king_crown.name)
    queen_reign = next(r for r in world.open_reigns() if r.crown == queen_crown.name)
    king_reign = next(r for r in world.open_reigns() if r.crown == king_crown.name)
    queen = world.characters[queen_reign.holder_id]
    king = world.characters[king_reign.holder_id]
    play_of(world.campaign).succession.join(
        world,
        queen_crown=queen_crown,
        king_crown=king_crown,
        queen=queen,
        king=king,
        king_player=king_player,
        chronicle=chronicle,
    )


def default_regent(
    world: World, crown: str, heir_id: int, widows: Collection[int], dead: Collection[int] = ()
) -> tuple[int | None, str]:
    """Who would be regent by default, and why ("line": the first adult in the new monarch's line;
    "oldest": the oldest adult of the house; "spouse": the late monarch's surviving spouse, when no
    one else can), never a prisoner or a created baron; (None, "baron") when a baron must be created
    ('The player can bring in any other character ... If none are available, a baron ... is
    created', A7). Reads only: the succession view shows it too. ``world.characters`` may hold
    Characters or lighter rows with the same attributes."""
    year = world.year
    dynasty = world.crown_dynasty(crown)
    play = play_of(world.campaign).succession
    min_age = play.regent_min_age()

    def fit(c: Any, *, spouse: bool = False) -> bool:
        return (
            c.status == Status.ALIVE
            and c.pk not in dead
            and c.pk != heir_id
            and (spouse or c.pk not in widows)
            and c.age(year) >= min_age
            and c.prisoner_of_id is None
            and not c.held_by_neutrals
            and (dynasty is None or c.controlled_by_id == dynasty.pk)
            and c.origin != Origin.BARON
        )

    for pid in iter_succession(world.people, heir_id, royal=world.past_holders(crown)):
        if fit(world.characters[pid]):
            return pid, "line"
    others = sorted((c for c in world.characters.values() if fit(c)), key=lambda c: (c.birth_year, c.birth_order, c.pk))
    if others:
        return others[0].pk, "oldest"
    # a King's widow retires from the game at the Announcements (Blood Royale): only a widower (the late
    # Queen's consort), or a widow where widows do not retire, can stay on as regent
    retires = play.widows_retire()
    spouses = sorted((world.characters[pk] for pk in widows if pk in world.characters), key=lambda c: c.pk)
    for c in spouses:
        if fit(c, spouse=True) and not (retires and c.sex == "F"):
            return c.pk, "spouse"
    return None, "baron"


def _late_monarch(world: World, reign: Reign) -> Character | None:
    """The crown's monarch before ``reign`` (the late King of a regency; None when the reign is the
    crown's first on record)."""
    before = [r for r in world.reigns if r.crown == reign.crown and r.pk != reign.pk and r.end_year is not None]
    if not before:
        return None
    last = max(before, key=lambda r: (r.end_year or 0, r.start_year, r.pk))
    return world.characters.get(last.holder_id)


def _choose_regent(
    world: World,
    reign: Reign,
    heir: Character,
    late: Character | None,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, Any],
    entered: list[list[int]] | None,
) -> Character:
    """Any adult of the house may be regent (the GM may change the choice); by default the first
    adult in the line of succession, else the oldest adult of the house who is neither a prisoner
    nor the late monarch's widow, else that surviving spouse; if there is none, a baron or cousin is
    created (A7)."""
    year = world.year
    dynasty = world.crown_dynasty(reign.crown)
    widow_ids: set[int] = set()
    if late is not None:
        partners = (
            Marriage.objects.filter(campaign=world.campaign, ended_year=year)
            .filter(Q(husband=late) | Q(wife=late))
            .values_list("husband_id", "wife_id")
        )
        widow_ids = {pk for pair in partners for pk in pair} - {late.pk}
    chosen, _ = default_regent(world, reign.crown, heir.pk, widow_ids)
    if chosen is not None:
        return world.characters[chosen]
    return create_baron(world, reign.crown, late, dynasty, box, chronicle, tables, queue=entered)


def create_baron(
    world: World,
    crown: str,
    late: Character | None,
    dynasty: Dynasty | None,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, Any],
    *,
    queue: list[list[int]] | None = None,
    typed: Sequence[Entered | None] | None = None,
) -> Character:
    """A baron or cousin of the late monarch, created to act as regent when no adult can (A7): 'He is 5
    years younger than the late King (or 30 years old, whichever is older), and characteristic die rolls
    are made for him' (``queue``: the succession's typed rolls, in order; ``typed``: the faces typed for
    each characteristic, None where the server rolls). With no late monarch on record he is 30."""
    year = world.year
    born = play_of(world.campaign).succession.baron_birth_year(late.as_person() if late is not None else None, year)
    baron = Character.objects.create(
        campaign=world.campaign,
        given_name=given_name(crown, "M", 3),
        sex="M",
        birth_year=born,
        dynastic_name=late.dynastic_name if late is not None else (dynasty.name if dynasty else crown),
        birth_dynasty=dynasty,
        controlled_by=dynasty,
        characteristics={},
        origin=Origin.BARON,
    )
    baron.characteristics = play_of(world.campaign).births.roll_characteristics(
        box, baron, tables["characteristic_bands"], queue, entered=typed
    )
    baron.save(update_fields=["characteristics"])
    world.characters[baron.pk] = baron
    world.refresh_person(baron)
    kin = f"the late {title(late)}" if late is not None else f"the house of {dynasty.name if dynasty else crown}"
    chronicle.add(
        "created",
        f"No adult can act as regent: {baron.display_name}, a baron and cousin of {kin}, "
        f"aged {baron.age(year)}, is created ({format_characteristics(baron.characteristics)}).",
        character=baron.pk,
    )
    return baron


def create_relative(
    world: World,
    late: Character,
    dynasty: Dynasty | None,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, Any],
    entered: list[list[int]] | None,
) -> Character:
    """No heir of the blood: a relative of the late monarch, with wife and children, is created (A7;
    the ruleset's ``SuccessionPlay.create_relative``)."""
    return play_of(world.campaign).succession.create_relative(world, late, dynasty, box, chronicle, tables, entered)
