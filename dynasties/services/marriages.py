"""Step 3 of the Dynastic Sequence: Marriages (RULES.md A6).

A match may be arranged (a betrothal) at any time, even for a child; the wedding happens in the
Marriages step once both are 15. At the wedding the bride passes to the groom's player (or he to
hers, if the contract says he joins her dynasty) and the money the rules fix is recorded as owed.
The ``*_many`` services take any number of matches in a fixed number of queries; the single
ones are the same code with one match.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from django.db import transaction
from django.db.models import Q

from campaign import audit, events, live
from campaign.models import Campaign, Step
from campaign.permissions import Actor, couple_houses, readers_text, require
from campaign.steps import Chronicle, Seen, lock_campaign, require_step, set_step
from dynasties import treasury
from dynasties.models import FREE, Character, ControlChange, Dynasty, DynastyKind, Marriage, Posting, Reign, Status
from dynasties.selectors import FROZEN_LINE
from dynasties.services import control
from dynasties.services.common import World
from dynasties.services.play_marriages import Match as Match
from dynasties.services.play_marriages import Wedding
from dynasties.services.play_marriages import WeddingMoney as WeddingMoney
from dynasties.services.play_registry import play_of
from dynasties.services.succession import crowns_join
from rules.errors import IllegalMarriage, NotFound, RuleError
from rules.families import ADULT_AGE, WIFE, Problem


def kings_widows(campaign: Campaign, ids: Sequence[int] | None = None) -> set[int]:
    """Women (among ``ids``) whose husband died this turn as a reigning King: they retire at the
    Announcements and may not remarry in between (A5, queen mothers never remarry). None in BloodLine,
    where she goes home like any other widow."""
    if not play_of(campaign).announcements.widows_retire():
        return set()
    year = campaign.current_year
    kings = Reign.objects.filter(campaign=campaign, end_year=year, holder__death_year=year).values("holder_id")
    widows = Marriage.objects.filter(campaign=campaign, ended_year=year, end_cause="death of the husband", husband_id__in=kings)
    if ids is not None:
        widows = widows.filter(wife_id__in=list(ids))
    return set(widows.values_list("wife_id", flat=True))


def unmatched_adults(campaign: Campaign) -> list[Character]:
    """Characters free to marry: in play, 15 or older, neither married nor betrothed, not
    prisoners, not a King's widow of this turn, not a created baron."""
    year = campaign.current_year
    matched = Marriage.objects.filter(campaign=campaign, ended_year__isnull=True)
    busy = set(matched.values_list("husband_id", flat=True)) | set(matched.values_list("wife_id", flat=True))
    busy |= kings_widows(campaign)
    return [
        c
        for c in Character.objects.filter(FREE, campaign=campaign, status=Status.ALIVE, birth_year__lte=year - ADULT_AGE)
        .exclude(origin="baron")
        .order_by("birth_year", "birth_order", "pk")
        if c.pk not in busy
    ]


def wedding_step(campaign: Campaign) -> Step:
    """Blood Royale weds in the Marriages step; BloodLine at the start of the Diplomacy phase, after
    the Dynastic Sequence (so a death in between cancels the match without penalty)."""
    return play_of(campaign).marriages.wedding_step()


def alliance_problem(campaign: Campaign, match: Marriage | Match, needs_terms: bool) -> str | None:
    """BloodLine: a match of a monarch or of a monarch's child needs a title for the giving dynasty and a
    standard dynastic alliance (a dowry of 100 ducats or a province)."""
    return play_of(campaign).marriages.alliance_problem(campaign, match, needs_terms)


def _pk(value: object) -> int:
    pk = getattr(value, "pk", value)
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise RuleError(f"{value!r} is not a character id.", code="invalid")
    return pk


def _people(campaign: Campaign, ids: Sequence[int], roles: dict[int, str]) -> dict[int, Character]:
    """The partners, locked and with their houses, in one query."""
    found = {
        c.pk: c
        for c in Character.objects.select_for_update(of=("self",))
        .select_related("controlled_by", "birth_dynasty")
        .filter(pk__in=set(ids), campaign=campaign)
    }
    for pk in ids:
        if pk not in found:
            raise NotFound(f"There is no character #{pk} in {campaign.name} to be the {roles.get(pk, 'spouse')}.")
    return found


def _busy(campaign: Campaign, ids: Sequence[int], exclude: Sequence[int] = ()) -> set[int]:
    """Who among ``ids`` is already married or betrothed."""
    matches = Marriage.objects.filter(
        Q(husband_id__in=ids) | Q(wife_id__in=ids), campaign=campaign, ended_year__isnull=True
    ).exclude(pk__in=list(exclude))
    return {pk for pair in matches.values_list("husband_id", "wife_id") for pk in pair}


def _problems(
    campaign: Campaign,
    groom: Character,
    bride: Character,
    busy: set[int],
    *,
    wedding: bool,
    widows: Collection[int] = (),
    frozen: Collection[int] | None = None,
) -> list[str]:
    """``frozen``: the BloodLine frozen lines, when the caller has read them already."""
    play = play_of(campaign).marriages
    problems = play.rule_problems(campaign, groom, bride, busy, wedding=wedding)
    if frozen is None:
        frozen = play.frozen(campaign)
    if {groom.pk, bride.pk} & set(frozen or ()):
        problems.append(FROZEN_LINE)
    if bride.pk in widows:
        problems.append(
            Problem(
                f"{bride.display_name} is the widow of a King who died this turn; she retires at the Announcements "
                "and never remarries (Survival, A5).",
                WIFE,
            )
        )
    return problems


def marriage_check(
    campaign: Campaign, husband: Character, wife: Character, *, wedding: bool, exclude: Marriage | None = None
) -> list[str]:
    """Everything that forbids the match now; empty when legal (for pages that explain a match).
    ``exclude``: the couple's own betrothal, when checking its wedding."""
    busy = _busy(campaign, [husband.pk, wife.pk], exclude=[exclude.pk] if exclude is not None else [])
    return _problems(campaign, husband, wife, busy, wedding=wedding, widows=kings_widows(campaign, [wife.pk]))


def marriage_checker(
    campaign: Campaign, ids: Sequence[int], *, wedding: bool
) -> Callable[[Character, Character, Marriage | None], list[str]]:
    """``marriage_check`` for many couples among ``ids``: what it reads (the open matches, the King's
    widows, the frozen lines) is read once, in a fixed number of queries, and each check asks no more."""
    ids = list(ids)
    matches = list(
        Marriage.objects.filter(
            Q(husband_id__in=ids) | Q(wife_id__in=ids), campaign=campaign, ended_year__isnull=True
        ).values_list("pk", "husband_id", "wife_id")
    )
    widows = kings_widows(campaign, ids)
    frozen = play_of(campaign).marriages.frozen(campaign)

    def check(husband: Character, wife: Character, exclude: Marriage | None = None) -> list[str]:
        busy = {pk for match, *pair in matches if exclude is None or match != exclude.pk for pk in pair}
        return _problems(campaign, husband, wife, busy, wedding=wedding, widows=widows, frozen=frozen)

    return check


def monarchs_family(campaign: Campaign, ids: Sequence[int]) -> set[int]:
    """Who among ``ids`` is a reigning monarch or a monarch's child."""
    monarchs = set(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("holder_id", flat=True))
    children = Character.objects.filter(pk__in=list(ids)).values_list("pk", "father_id", "mother_id")
    return {pk for pk, father, mother in children if pk in monarchs or father in monarchs or mother in monarchs}


@transaction.atomic
def marriage_terms_set(
    *, campaign: Campaign | int, marriage: Marriage | int, dowry: str, alliance_title: str, by: Actor
) -> Marriage:
    """Record a betrothal's dowry and the title given to the giving dynasty (BloodLine)."""
    campaign = lock_campaign(campaign)
    pk = _pk(marriage)
    try:
        match = Marriage.objects.get(pk=pk, campaign=campaign)
    except Marriage.DoesNotExist:
        raise NotFound(f"There is no betrothal #{pk} in {campaign.name}.") from None
    if match.wedding_year is not None or match.ended_year is not None:
        raise IllegalMarriage("The terms are recorded on a betrothal, before the wedding.")
    houses = couple_houses(match)
    require(by, campaign, "couple", houses=houses)  # the GM, or the player of either house
    match.dowry = dowry.strip()[:120]
    match.money_readers = readers_text(houses) if match.dowry else ""
    shown = match.alliance_title  # the title is the match's public record; the dowry its houses'
    match.alliance_title = alliance_title.strip()[:120]
    problem = alliance_problem(campaign, match, True)
    if problem:
        raise IllegalMarriage(problem)
    match.save(update_fields=["dowry", "money_readers", "alliance_title"])
    live.reveal(campaign, Seen.by(*houses) | (Seen.ALL if match.alliance_title != shown else Seen.GM))
    chronicle = Chronicle(campaign)
    chronicle.add(  # the dowry is a money term: the two houses and the GM read it
        "betrothal",
        f"Terms for {match}: dowry {match.dowry or 'none'}; {match.alliance_title or 'no title'}.",
        readers=houses,
        marriage=match.pk,
    )
    chronicle.flush()
    return match


def _reigning(campaign: Campaign, ids: Sequence[int]) -> set[int]:
    return set(
        Reign.objects.filter(campaign=campaign, end_year__isnull=True, holder_id__in=list(ids)).values_list(
            "holder_id", flat=True
        )
    )


@transaction.atomic
def marriage_arrange_many(*, campaign: Campaign | int, matches: Sequence[Match], wed: bool = False, by: Actor) -> list[Marriage]:
    """Arrange matches (betrothals); with ``wed=True`` the weddings follow at once (Marriages step).
    All or none: one illegal match refuses the lot, naming every problem."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    if wed:
        require_step(campaign, wedding_step(campaign))
    if not matches:
        return []
    roles = {m.husband: "husband" for m in matches} | {m.wife: "wife" for m in matches}
    ids = [pk for m in matches for pk in (m.husband, m.wife)]
    people = _people(campaign, ids, roles)
    for m in matches:  # the GM, or the player of either house (campaign.permissions)
        if m.husband in people and m.wife in people:
            require(by, campaign, "couple", houses=[people[m.husband].controlled_by_id, people[m.wife].controlled_by_id])
    busy = _busy(campaign, ids)
    widows = kings_widows(campaign, ids)
    royal_family = monarchs_family(campaign, ids)
    seen: set[int] = set()
    errors: list[str] = []
    raisers = {
        d.pk: d
        for d in Dynasty.objects.filter(campaign=campaign, pk__in=[m.children_raised_by for m in matches if m.children_raised_by])
    }
    for m in matches:
        groom, bride = people[m.husband], people[m.wife]
        problems = _problems(campaign, groom, bride, busy | (seen & {m.husband, m.wife}), wedding=wed, widows=widows)
        if m.children_raised_by is not None and m.children_raised_by not in raisers:
            problems.append(f"There is no dynasty #{m.children_raised_by} to raise the children.")
        alliance = alliance_problem(campaign, m, wed and bool({m.husband, m.wife} & royal_family))
        if alliance:
            problems.append(alliance)
        if problems:
            errors.append(f"{groom.display_name} and {bride.display_name}: {' '.join(problems)}")
        seen |= {m.husband, m.wife}
    if errors:
        raise IllegalMarriage(errors[0] if len(errors) == 1 else "Refused: " + " | ".join(errors))
    created = audit.bulk_create(
        Marriage,
        [
            Marriage(
                campaign=campaign,
                husband=people[m.husband],
                wife=people[m.wife],
                arranged_year=campaign.current_year,
                husband_joins_wife=m.husband_joins_wife,
                children_raised_by=raisers.get(m.children_raised_by) if m.children_raised_by else None,
                dowry=m.dowry.strip()[:120],
                # money terms are private: the two houses of the match (and the GM) read the dowry
                money_readers=readers_text([people[m.husband].controlled_by_id, people[m.wife].controlled_by_id])
                if m.dowry.strip()
                else "",
                alliance_title=m.alliance_title.strip()[:120],
            )
            for m in matches
        ],
        by=by,
    )
    chronicle = Chronicle(campaign)
    if wed:
        _wed_all(campaign, created, people, chronicle)
    else:
        for match in created:
            house = people[match.wife_id].controlled_by
            chronicle.add(
                "betrothal",
                f"{match.husband.display_name} and {match.wife.display_name} are betrothed"
                + (f"; he is to join the house of {house.name}" if match.husband_joins_wife and house else "")
                + ".",
                marriage=match.pk,
            )
    chronicle.flush()
    return created


def marriage_arrange(
    *,
    campaign: Campaign | int,
    husband: Character | int,
    wife: Character | int,
    husband_joins_wife: bool = False,
    children_raised_by: Dynasty | int | None = None,
    wed: bool = False,
    dowry: str = "",
    alliance_title: str = "",
    by: Actor,
) -> Marriage:
    """Arrange one match; see ``marriage_arrange_many``."""
    spec = Match(
        _pk(husband),
        _pk(wife),
        husband_joins_wife,
        _pk(children_raised_by) if children_raised_by is not None else None,
        dowry,
        alliance_title,
    )
    [match] = marriage_arrange_many(campaign=campaign, matches=[spec], wed=wed, by=by)
    return match


@transaction.atomic
def marriage_wed_many(*, campaign: Campaign | int, marriages: Sequence[Marriage | int], by: Actor) -> list[Marriage]:
    """The weddings of betrothed couples, in the Marriages step, both 15 or older. All or none."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    wanted = [_pk(m) for m in marriages]
    found = {m.pk: m for m in Marriage.objects.filter(campaign=campaign, pk__in=wanted)}
    for pk in wanted:
        if pk not in found:
            raise NotFound(f"There is no betrothal #{pk} in {campaign.name}.")
    for match in found.values():  # who may act first: a stranger learns nothing of the step
        require(by, campaign, "couple", houses=couple_houses(match))
    require_step(campaign, wedding_step(campaign))
    if len(set(wanted)) != len(wanted):
        raise IllegalMarriage("The same betrothal is listed twice; each couple is wed once.")
    errors: list[str] = []
    ids = [p for m in found.values() for p in (m.husband_id, m.wife_id)]
    people = _people(campaign, ids, {})
    busy = _busy(campaign, ids, exclude=wanted)
    widows = kings_widows(campaign, ids)
    royal_family = monarchs_family(campaign, ids)
    for pk in wanted:
        match = found[pk]
        groom, bride = people[match.husband_id], people[match.wife_id]
        couple = f"{groom.display_name} and {bride.display_name}"
        if match.ended_year is not None:
            errors.append(f"{couple}: this match ended in {match.ended_year} ({match.end_cause}).")
        elif match.wedding_year is not None:
            errors.append(f"{couple} were already wed in {match.wedding_year}.")
        else:
            problems = _problems(campaign, groom, bride, busy, wedding=True, widows=widows)
            alliance = alliance_problem(campaign, match, bool({groom.pk, bride.pk} & royal_family))
            if alliance:
                problems.append(alliance)
            if problems:
                errors.append(f"{couple}: {' '.join(problems)}")
    if errors:
        raise IllegalMarriage(errors[0] if len(errors) == 1 else "Refused: " + " | ".join(errors))
    chronicle = Chronicle(campaign)
    matches = [found[pk] for pk in wanted]
    _wed_all(campaign, matches, people, chronicle)
    chronicle.flush()
    return matches


def marriage_wed(*, campaign: Campaign | int, marriage: Marriage | int, by: Actor) -> Marriage:
    [match] = marriage_wed_many(campaign=campaign, marriages=[marriage], by=by)
    return match


def _wed_all(campaign: Campaign, matches: Sequence[Marriage], people: dict[int, Character], chronicle: Chronicle) -> None:
    """The weddings themselves: control passes, and the money the rules fix is recorded as owed (A6)."""
    year = campaign.current_year
    play = play_of(campaign).marriages
    reigning = _reigning(campaign, list(people))
    changed: dict[int, Character] = {}
    postings: list[Posting] = []
    moves: list[ControlChange] = []
    for match in matches:
        groom, bride = people[match.husband_id], people[match.wife_id]
        groom_house, bride_house = groom.controlled_by, bride.controlled_by
        match.wedding_year = year
        if groom_house is not None and groom_house.kind == DynastyKind.ARISTOCRATIC:
            match.husband_joins_wife = True  # A9: the aristocratic family's sons join their wife's house
        if bride.pk in reigning and groom.pk not in reigning:
            # A7: a Queen regnant is always controlled by her own country's player; her husband is
            # her Consort and comes to her. (Married to a reigning King: Dynastic Union, his player.)
            match.husband_joins_wife = True
        if match.husband_joins_wife:
            control.move(campaign, groom, bride_house, "wedding", into=moves)
            groom.prince_piece = ""
            changed[groom.pk] = groom
        elif bride.controlled_by_id != groom.controlled_by_id:
            control.move(campaign, bride, groom_house, "wedding", into=moves)
            changed[bride.pk] = bride
        chronicle.add(
            "wedding",
            f"{groom.display_name} ({groom.age(year)}) weds {bride.display_name} ({bride.age(year)})"
            + (f"; he joins the house of {bride_house.name}" if match.husband_joins_wife and bride_house else "")
            + ".",
            marriage=match.pk,
        )
        postings += play.dowry(campaign, Wedding(match, groom, bride, groom_house, bride_house), chronicle)
        for house, amount, kind, reason in play.treasury_payments(campaign, groom, bride, groom_house, reigning):
            direction = "from the Treasury to" if amount > 0 else "to the Treasury from"
            posting = treasury.unsaved(campaign, payer=None, payee=house, amount=amount, kind=kind, reason=reason, marriage=match)
            if posting is not None:
                postings.append(posting)
            chronicle.add(
                "payment_owed",
                f"{abs(amount)} Crowns {direction} the house of {house.name}: {reason}.",
                readers=[house.pk],
                dynasty=house.pk,
                amount=amount,
                marriage=match.pk,
            )
    Posting.objects.bulk_create(postings)
    ControlChange.objects.bulk_create(moves)  # one statement for the weddings' changes of house
    audit.bulk_update(Marriage, list(matches), ["wedding_year", "husband_joins_wife"])
    weddings = events.Weddings(
        campaign=campaign.pk, year=campaign.current_year, step=campaign.step, marriages=tuple(m.pk for m in matches)
    )
    events.publish(weddings, campaign=campaign, chronicle=chronicle)  # contracts come into force
    if changed:
        audit.bulk_update(Character, list(changed.values()), ["controlled_by", "prince_piece"])
    unions = [m for m in matches if m.husband_id in reigning and m.wife_id in reigning]
    if unions:  # a Queen regnant weds a reigning King: Dynastic Union (A7)
        world = World(campaign, living_only=True)
        for match in unions:
            king_crown = world.crown(world.crowns_of(match.husband_id)[0].crown)
            for queen_reign in world.crowns_of(match.wife_id):  # a Queen of two crowns: both join
                crowns_join(world, queen_crown=world.crown(queen_reign.crown), king_crown=king_crown, chronicle=chronicle)


# --- what a page shows before the match is made ------------------------------------------------


def _loaded(campaign: Campaign, matches: Sequence[Marriage]) -> list[tuple[Character, Character]]:
    """The couples of ``matches``. Pass them with ``husband`` and ``wife`` loaded (and their
    ``controlled_by`` and ``birth_dynasty``, e.g. by ``select_related``); those not loaded are read
    here in one query."""
    missing = {
        pk
        for m in matches
        for pk, descriptor in ((m.husband_id, Marriage.husband), (m.wife_id, Marriage.wife))
        if not descriptor.is_cached(m)
    }
    people = {}
    if missing:
        people = {
            c.pk: c
            for c in Character.objects.select_related("controlled_by", "birth_dynasty").filter(pk__in=missing, campaign=campaign)
        }
    return [
        (
            m.husband if Marriage.husband.is_cached(m) else people[m.husband_id],
            m.wife if Marriage.wife.is_cached(m) else people[m.wife_id],
        )
        for m in matches
    ]


def wedding_money(campaign: Campaign, matches: Sequence[Marriage]) -> list[list[WeddingMoney]]:
    """What the wedding of each match (a betrothal, or an unsaved ``Marriage`` for a pair being
    considered) would post if held now, as ``_wed_all`` posts it; a fixed number of queries. Money
    is secret: the caller shows a line only to whom may see the payer's or the payee's exchequer."""
    couples = _loaded(campaign, matches)
    reigning = _reigning(campaign, [pk for pair in couples for pk in (pair[0].pk, pair[1].pk)])
    play = play_of(campaign).marriages
    dowries = play.dowry_money(campaign, matches, couples)
    out: list[list[WeddingMoney]] = []
    for (groom, bride), dowry in zip(couples, dowries, strict=True):
        lines: list[WeddingMoney] = [dowry] if dowry is not None else []
        for house, amount, kind, reason in play.treasury_payments(campaign, groom, bride, groom.controlled_by, reigning):
            payer, payee = (None, house) if amount > 0 else (house, None)
            lines.append(WeddingMoney(payer, payee, abs(amount), kind, reason))
        out.append(lines)
    return out


def match_problems(campaign: Campaign, matches: Sequence[Marriage], *, wedding: bool) -> list[list[str]]:
    """Why each match could not be arranged (``wedding=False``) or wed (``wedding=True``) now, as
    ``marriage_arrange_many`` and ``marriage_wed_many`` would refuse it (empty: it may); for pages
    that explain a match before it is submitted. ``matches`` are betrothals (their own match is not
    counted against them) or unsaved ``Marriage`` objects for pairs being considered; a fixed
    number of queries whatever their number. The step is not checked."""
    if not matches:
        return []
    couples = _loaded(campaign, matches)
    ids = [pk for pair in couples for pk in (pair[0].pk, pair[1].pk)]
    busy = _busy(campaign, ids, exclude=[m.pk for m in matches if m.pk is not None])
    widows = kings_widows(campaign, ids)
    play = play_of(campaign).marriages
    frozen = play.frozen(campaign)
    terms = play.terms_problems(campaign, matches, couples, wedding=wedding)
    out: list[list[str]] = []
    for (groom, bride), alliance in zip(couples, terms, strict=True):
        problems = _problems(campaign, groom, bride, busy, wedding=wedding, widows=widows, frozen=frozen)
        if alliance:
            problems.append(alliance)
        out.append(problems)
    return out


@transaction.atomic
def marriage_cancel(*, campaign: Campaign | int, marriage: Marriage | int, reason: str, by: Actor) -> Marriage:
    """Break off a betrothal (a wedded marriage ends only by death)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    pk = _pk(marriage)
    try:
        match = Marriage.objects.select_related("husband", "wife").get(pk=pk, campaign=campaign)
    except Marriage.DoesNotExist:
        raise NotFound(f"There is no betrothal #{pk} in {campaign.name}.") from None
    require(by, campaign, "couple", houses=couple_houses(match))
    if match.wedding_year is not None:
        raise IllegalMarriage("A wedded marriage cannot be broken off; it lasts while both spouses live.")
    if match.ended_year is not None:
        raise IllegalMarriage(f"This betrothal already ended in {match.ended_year}.")
    if not reason.strip():
        raise RuleError("Say why the betrothal is broken off.", code="invalid", fields={"reason": "required"})
    match.ended_year = campaign.current_year
    match.end_cause = f"betrothal broken off: {reason.strip()}"[:120]
    match.save(update_fields=["ended_year", "end_cause"])
    chronicle = Chronicle(campaign)
    chronicle.add("betrothal_end", f"The betrothal of {match} is broken off: {reason.strip()}.", marriage=match.pk)
    ended = events.MarriageEnded(
        campaign=campaign.pk, year=campaign.current_year, step=campaign.step, marriage=match.pk, cause=match.end_cause
    )
    events.publish(ended, campaign=campaign, chronicle=chronicle)  # its contracts end with it
    chronicle.flush()
    return match


@transaction.atomic
def marriages_finish(*, campaign: Campaign | int, by: Actor) -> Campaign:
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    require_step(campaign, Step.MARRIAGES)
    set_step(campaign, Step.ANNOUNCEMENTS)
    return campaign
