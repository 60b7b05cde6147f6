"""What the step services share: ``World``, a campaign's characters, open marriages, reigns, crowns
and dynasties loaded in a fixed number of queries, and two small queries (who renounced each crown,
an open match). The step guard and the chronicle writer are the kernel's (``campaign.steps``)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q

from campaign.models import Campaign
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Marriage, Reign, Renunciation, Status
from rules.people import Person


def renounced_by_crown(campaign: Campaign, reigns: Iterable[Reign], *, by_year: int | None = None) -> dict[str, set[int]]:
    """Who has renounced each crown (by ``by_year`` if given): a renouncer who wore that crown
    afterwards (given back to her house) reigned, and her line inherits from her like any monarch's
    (docs/rulings.md A6), so she no longer bars it."""
    wore = {(r.crown, r.holder_id): r.start_year for r in reigns if by_year is None or r.start_year <= by_year}
    rows = Renunciation.objects.filter(campaign=campaign)
    if by_year is not None:
        rows = rows.filter(year__lte=by_year)
    out: dict[str, set[int]] = {}
    for crown, character, year in rows.values_list("crown", "character_id", "year"):
        if wore.get((crown, character), year - 1) < year:
            out.setdefault(crown, set()).add(character)
    return out


class World:
    """Every character, open marriage and reign of a campaign, loaded in a fixed number of queries."""

    def __init__(self, campaign: Campaign, *, living_only: bool = False, eager: bool = True) -> None:
        """``living_only`` skips the dead and the retired: enough for every step but succession,
        which walks the whole family tree. ``eager=False`` (a page's board) reads the crowns, who
        renounced them and the open marriages only when first asked for."""
        self.campaign = campaign
        self.year = campaign.current_year
        self.living_only = living_only
        self.characters: dict[int, Character] = self._characters()
        self.dynasties: dict[int, Dynasty] = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign)}
        self.reigns: list[Reign] = list(Reign.objects.filter(campaign=campaign).order_by("start_year", "pk"))
        self._crowns: dict[str, Crown] | None = None
        self._renounced: dict[str, set[int]] | None = None
        self._open_marriages: list[Marriage] | None = None
        if eager:  # read now, in this order, as every service expects
            _ = self.crowns, self.renounced, self.open_marriages
        self._people: dict[int, Person] | None = None

    def _characters(self) -> dict[int, Character]:
        characters = Character.objects.filter(campaign=self.campaign).order_by("pk")
        if self.living_only:
            characters = characters.filter(status=Status.ALIVE)
        return {c.pk: c for c in characters}

    def again(self) -> World:
        """This world after a write that changed characters and births only (a Births action): its
        characters read again, its houses, reigns, crowns and open marriages kept (one query)."""
        other = object.__new__(World)
        other.__dict__.update(self.__dict__)
        other.characters = other._characters()
        other._people = None
        return other

    @property
    def crowns(self) -> dict[str, Crown]:
        if self._crowns is None:
            self._crowns = {c.name: c for c in Crown.objects.filter(campaign=self.campaign)}
        return self._crowns

    @crowns.setter
    def crowns(self, value: dict[str, Crown]) -> None:
        self._crowns = value

    @property
    def renounced(self) -> dict[str, set[int]]:
        if self._renounced is None:
            self._renounced = renounced_by_crown(self.campaign, self.reigns)
        return self._renounced

    @renounced.setter
    def renounced(self, value: dict[str, set[int]]) -> None:
        self._renounced = value

    @property
    def open_marriages(self) -> list[Marriage]:
        if self._open_marriages is None:
            self._open_marriages = list(Marriage.objects.filter(campaign=self.campaign, ended_year__isnull=True).order_by("pk"))
        return self._open_marriages

    @open_marriages.setter
    def open_marriages(self, value: list[Marriage]) -> None:
        self._open_marriages = value

    # people -----------------------------------------------------------------------------
    @property
    def people(self) -> dict[int, Person]:
        if self._people is None:
            self._people = {pk: c.as_person() for pk, c in self.characters.items()}
        return self._people

    def refresh_person(self, character: Character) -> None:
        self.characters[character.pk] = character
        if self._people is not None:
            self._people[character.pk] = character.as_person()

    def in_play(self) -> Iterable[Character]:
        return (c for c in self.characters.values() if c.status == Status.ALIVE)

    # reigns -------------------------------------------------------------------------------
    def open_reigns(self) -> list[Reign]:
        return [r for r in self.reigns if r.end_year is None]

    def crowns_of(self, holder_id: int) -> list[Reign]:
        """Every open reign of one monarch (one person may wear several crowns), oldest first."""
        return [r for r in self.open_reigns() if r.holder_id == holder_id]

    def reigning(self) -> dict[int, Reign]:
        return {r.holder_id: r for r in self.open_reigns()}

    def past_holders(self, crown: str) -> set[int]:
        return {r.holder_id for r in self.reigns if r.crown == crown}

    def crown(self, name: str) -> Crown:
        """The crown's record, created on first use for a house that has a crown but no record."""
        if name not in self.crowns:
            home = next((d for d in self.dynasties.values() if d.crown == name), None)
            self.crowns[name] = Crown.objects.create(campaign=self.campaign, name=name, home_dynasty=home, controlled_by=home)
        return self.crowns[name]

    def crown_dynasty(self, crown: str) -> Dynasty | None:
        """The dynasty whose player controls the country now (another in a Dynastic Union)."""
        record = self.crowns.get(crown)
        if record is not None and record.controlled_by_id:
            return self.dynasties.get(record.controlled_by_id)
        for dynasty in self.dynasties.values():
            if dynasty.crown == crown:
                return dynasty
        return None

    def seat_left(self, dynasty: Dynasty) -> Dynasty | None:
        """The player on the left: the next seat round the table among the player dynasties."""
        players = sorted((d for d in self.dynasties.values() if d.kind == DynastyKind.PLAYER), key=lambda d: (d.seat, d.pk))
        if dynasty not in players or len(players) < 2:
            return None
        return players[(players.index(dynasty) + 1) % len(players)]

    def seat_right(self, dynasty: Dynasty) -> Dynasty | None:
        players = sorted((d for d in self.dynasties.values() if d.kind == DynastyKind.PLAYER), key=lambda d: (d.seat, d.pk))
        if dynasty not in players or len(players) < 2:
            return None
        return players[(players.index(dynasty) - 1) % len(players)]

    # marriages ----------------------------------------------------------------------------
    def spouse_of(self, character_id: int, *, wed_only: bool = True) -> Character | None:
        for m in self.open_marriages:
            if wed_only and m.wedding_year is None:
                continue
            if m.husband_id == character_id:
                return self.characters[m.wife_id]
            if m.wife_id == character_id:
                return self.characters[m.husband_id]
        return None

    def last_spouse(self, character_id: int) -> int | None:
        """The spouse of the character's latest wedded marriage, ended or not (one query)."""
        match = (
            Marriage.objects.filter(campaign=self.campaign, wedding_year__isnull=False)
            .filter(Q(husband_id=character_id) | Q(wife_id=character_id))
            .order_by("-wedding_year", "-pk")
            .first()
        )
        if match is None:
            return None
        return match.wife_id if match.husband_id == character_id else match.husband_id

    def marriage_of(self, character_id: int) -> Marriage | None:
        for m in self.open_marriages:
            if m.wedding_year is not None and character_id in (m.husband_id, m.wife_id):
                return m
        return None


def open_match_q(character: Character) -> Q:
    return (Q(husband=character) | Q(wife=character)) & Q(ended_year__isnull=True)
