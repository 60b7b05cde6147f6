"""Read-only questions about a campaign (no writes here)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db.models import Count, Q

from campaign.models import Campaign
from campaign.permissions import can_view_exchequer, seat_of, sees_every_exchequer
from dynasties.models import (
    Character,
    Dynasty,
    Marriage,
    MarriageOffer,
    Modifier,
    ModifierKind,
    OfferStatus,
    PassOverKind,
    Reign,
    Status,
)
from dynasties.treasury import balance, balances
from rules.regnal import Named, labels, regnal_name

FROZEN_LINE = (
    "A passed-over heir married away, and her line, make no new marriages and have no more children while her "
    "claim lasts (BloodLine, Disputed Succession B)."
)


def living_children_counts(campaign: Campaign) -> dict[int, int]:
    """Marriage id -> living children of the couple."""
    rows = (
        Character.objects.filter(campaign=campaign, status=Status.ALIVE, father__isnull=False, mother__isnull=False)
        .values("father_id", "mother_id")
        .annotate(n=Count("id"))
    )
    by_pair = {(r["father_id"], r["mother_id"]): r["n"] for r in rows}
    return {
        m.pk: by_pair.get((m.husband_id, m.wife_id), 0)
        for m in Marriage.objects.filter(campaign=campaign, ended_year__isnull=True, wedding_year__isnull=False)
    }


def frozen_lines(campaign: Campaign) -> set[int]:
    """BloodLine B: a married-away woman passed over stays with the other dynasty; she and her direct
    descendants make no new marriages and have no more children while the claim lasts."""
    claimants = set(
        Modifier.objects.filter(
            campaign=campaign,
            kind=ModifierKind.COMBAT_MALUS,
            end_year__isnull=True,
            pass_over=PassOverKind.MARRIED_AWAY,
        ).values_list("claimant_id", flat=True)
    )
    if not claimants:
        return set()
    from rules.succession import FamilyIndex, line_of

    people = {c.pk: c.as_person() for c in Character.objects.filter(campaign=campaign)}
    index = FamilyIndex(people)
    frozen = set(claimants)
    for pk in claimants:
        frozen |= set(line_of(people, pk, eligible=lambda p: True, index=index))
    return frozen


def settled_by_offer(campaign: Campaign, match: object) -> bool:
    """A betrothal (a ``Marriage`` or a ``Match``) that a minor house accepted from a player's offer:
    its dowry and title are the offer's (the minor's minimum dowry), not the standard 100-ducat
    dynastic alliance, so the wedding needs no more terms."""
    husband = getattr(match, "husband_id", None) or getattr(match, "husband", None)
    wife = getattr(match, "wife_id", None) or getattr(match, "wife", None)
    pair = {getattr(husband, "pk", husband), getattr(wife, "pk", wife)}
    return any(
        {minor, suitor} == pair
        for minor, suitor in MarriageOffer.objects.filter(
            campaign=campaign, status=OfferStatus.ACCEPTED, minor_character_id__in=pair
        ).values_list("minor_character_id", "suitor_id")
    )


def exchequers_seen(campaign: Campaign, user: Any) -> list[tuple[Dynasty | None, int]]:
    """The exchequers ``user`` may see in the campaign, with their balances, as the policy says (his
    seat read by it): the GM every house's in seat order and the Treasury's (None) last; a player his
    own house's; anyone else none."""
    seat = seat_of(user, campaign)
    role, mine = seat.role, seat.dynasty
    dynasties = list(Dynasty.objects.filter(campaign=campaign).order_by("seat", "name", "pk"))
    for d in dynasties:
        d.campaign = campaign  # loaded already: the policy reads it
    if sees_every_exchequer(role):
        money = balances(campaign)
        return [(d, money.get(d.pk, 0)) for d in dynasties] + [(None, money.get(None, 0))]
    own = next((d for d in dynasties if d.pk == mine), None)
    if own is None or not can_view_exchequer(user, own):
        return []
    return [(own, balance(campaign, own))]


def regnal_labels(
    campaign: Campaign,
    characters: Iterable[Character],
    *,
    known: tuple[Iterable[Character], Sequence[Reign]] | None = None,
) -> dict[int, str]:
    """What lists call each character (rules.regnal.labels): a monarch "Edward III Plantagenet", a
    living namesake of another in his house "Jean Valois (b. 1301)". Two queries whatever the number;
    none given ``known``: the campaign's characters (every living one at least) and all its reigns
    (by start year, then id), as this request read them since its last write (a ``World``'s)."""
    shown = {c.pk: c for c in characters}
    if not shown:
        return {}
    names = {(c.given_name, c.dynastic_name) for c in shown.values()}
    if known is not None:
        living: Iterable[Character] = (c for c in known[0] if c.status == Status.ALIVE)
    else:
        living = Character.objects.filter(
            campaign=campaign,
            status=Status.ALIVE,
            given_name__in={g for g, _ in names},
            dynastic_name__in={d for _, d in names},
        ).only("given_name", "dynastic_name", "birth_year", "birth_order", "status")
    namesakes = {c.pk: c for c in living if (c.given_name, c.dynastic_name) in names}
    everyone = {**namesakes, **shown}
    if known is not None:
        reigns: Iterable[tuple[int, int | None]] = [
            (r.holder_id, r.numeral) for r in known[1] if r.holder_id in everyone and r.numeral is not None
        ]
    else:
        reigns = (
            Reign.objects.filter(holder_id__in=list(everyone), numeral__isnull=False)
            .order_by("start_year", "pk")
            .values_list("holder_id", "numeral")
        )
    numerals: dict[int, list[int]] = {}
    for holder, number in reigns:
        if number is not None:  # (never: filtered out)
            numerals.setdefault(holder, []).append(number)
    out = labels(named(everyone.values(), numerals))
    return {pk: out[pk] for pk in shown}


def named(characters: Iterable[Any], numerals: dict[int, list[int]]) -> list[Named]:
    """The characters as the naming rules see them (rules.regnal.Named), with each one's numerals
    (character id -> the numerals of his reigns, in order)."""
    return [
        Named(
            c.pk,
            c.given_name,
            c.dynastic_name,
            c.birth_year,
            c.birth_order,
            tuple(numerals.get(c.pk, ())),
            living=c.status == Status.ALIVE,
        )
        for c in characters
    ]


def label(
    campaign: Campaign, characters: Iterable[Character], *, known: tuple[Iterable[Character], Sequence[Reign]] | None = None
) -> None:
    """Gives each character its list label (``regnal_labels``, ``known`` as it says): ``display_name`` shows it."""
    characters = list(characters)
    shown = regnal_labels(campaign, characters, known=known)
    for c in characters:
        c.label = shown.get(c.pk)


def status_lines(campaign: Campaign, characters: Iterable[Character], heirs: Mapping[str, int | None]) -> dict[int, list[str]]:
    """What each character is, in plain words, for the top of his page: "Reigning King of England since
    1327, as Edward III Plantagenet", "Heir to the crown of France", "Regent of England for Edward IV Plantagenet",
    "Consort of Philip VI Valois, King of France", "Prisoner of Valois", "Retired from the game in 1340", "Died in
    1352: failed survival roll". ``heirs``: each crown's heir now (his id; ``succession_view.heirs_now``
    finds them). Three queries however many characters (the open reigns, the open marriages, the
    houses)."""
    people = {c.pk: c for c in characters}
    if not people:
        return {}
    year = campaign.current_year
    reigns = list(
        Reign.objects.filter(campaign=campaign, end_year__isnull=True)
        .select_related("holder", "regent")
        .order_by("start_year", "pk")
    )
    spouses: dict[int, int] = {}
    for husband, wife in Marriage.objects.filter(
        Q(husband_id__in=list(people)) | Q(wife_id__in=list(people)),
        campaign=campaign,
        ended_year__isnull=True,
        wedding_year__isnull=False,
    ).values_list("husband_id", "wife_id"):
        spouses[husband], spouses[wife] = wife, husband
    houses = dict(Dynasty.objects.filter(campaign=campaign).values_list("pk", "name"))

    def name(reign: Reign) -> str:
        holder = reign.holder
        return regnal_name(holder.given_name, [reign.numeral] if reign.numeral else [], holder.dynastic_name)

    def title(reign: Reign) -> str:
        return f"{'Queen' if reign.holder.sex == 'F' else 'King'} of {reign.crown}"

    out: dict[int, list[str]] = {}
    for pk, c in people.items():
        said: list[str] = []
        if c.status == Status.DEAD:
            said.append(f"Died in {c.death_year}" + (f": {c.death_cause}" if c.death_cause else ""))
        elif c.status == Status.RETIRED:
            said.append(f"Retired from the game{f' in {c.retired_year}' if c.retired_year else ''}")
        for r in reigns:
            if r.holder_id == pk:
                said.append(f"Reigning {title(r)} since {r.start_year}, as {name(r)}")
            if r.regent_id == pk and r.regency_end_year is None:
                said.append(f"Regent of {r.crown} for {name(r)} (aged {r.holder.age(year)})")
            if spouses.get(pk) == r.holder_id and r.holder_id != pk:
                said.append(f"Consort of {name(r)}, {title(r)}")
        for crown, heir in heirs.items():
            if heir == pk:
                said.append(f"Heir to the crown of {crown}")
        if c.prisoner_of_id is not None and c.status != Status.DEAD:
            said.append(f"Prisoner of {houses.get(c.prisoner_of_id, 'another house')}")
        elif c.held_by_neutrals and c.status != Status.DEAD:
            said.append("Prisoner of the neutrals")
        out[pk] = said
    return out
