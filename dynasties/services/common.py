"""What the step services share: ``World``, a campaign's characters, open marriages, reigns, crowns
and dynasties loaded in a fixed number of queries, and two small queries (who renounced each crown,
an open match). The step guard and the chronicle writer are the kernel's (``campaign.steps``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from django.db.models import Q, Subquery

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


class _Characters(dict[int, Character]):
    """A whole World's characters: the dead (every one of them, as the campaign was at the World's
    load) are read only when something could see one of them - a key not yet read, any iteration,
    the size -, then all at once (one query), and the dict is as it would have been loaded whole:
    in primary-key order, every write made to it since kept (a key written wins over the row read).
    Until then it holds the living and the retired; the steps that read only those never pay for
    a campaign's centuries of the dead."""

    def __init__(self, rows: Iterable[Character], rest: Callable[[], list[Character]] | None, *, bound: int = 0) -> None:
        """``rows``: the characters read now; ``rest``: reads the others; ``bound``: the largest pk
        of the campaign at the load (a character made since is not read, as an eager load would not)."""
        super().__init__((c.pk, c) for c in rows)
        self._rest = rest
        self._bound = bound

    @property
    def complete(self) -> bool:
        return self._rest is None

    def _complete(self) -> None:
        rest, self._rest = self._rest, None
        if rest is None:
            return
        read = {c.pk: c for c in rest()}
        if not read:
            return
        mine = dict(dict.items(self))
        bound = self._bound
        ordered = sorted({*read, *(pk for pk in mine if pk <= bound)})  # as loaded whole, by pk
        later = [pk for pk in mine if pk > bound]  # made since the load and written in: as written
        dict.clear(self)
        dict.update(self, ((pk, mine[pk] if pk in mine else read[pk]) for pk in ordered))
        dict.update(self, ((pk, mine[pk]) for pk in later))

    def __missing__(self, key: int) -> Character:
        if self._rest is None:
            raise KeyError(key)
        self._complete()
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        self._complete()
        return dict.__contains__(self, key)

    def get(self, key: int, default: Any = None) -> Any:
        if key not in self:
            return default
        return dict.__getitem__(self, key)

    def __iter__(self) -> Iterator[int]:
        self._complete()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._complete()
        return dict.__len__(self)

    def __reversed__(self) -> Iterator[int]:
        self._complete()
        return dict.__reversed__(self)

    def __eq__(self, other: object) -> bool:
        self._complete()
        return dict.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        self._complete()
        return dict.__repr__(self)

    def keys(self) -> Any:
        self._complete()
        return dict.keys(self)

    def values(self) -> Any:
        self._complete()
        return dict.values(self)

    def items(self) -> Any:
        self._complete()
        return dict.items(self)

    def copy(self) -> dict[int, Character]:
        self._complete()
        return dict(dict.items(self))

    def pop(self, key: int, *default: Any) -> Any:
        key in self  # noqa: B015 (read the rest first when the key is not read yet)
        return dict.pop(self, key, *default)

    def setdefault(self, key: int, default: Any = None) -> Any:
        key in self  # noqa: B015
        return dict.setdefault(self, key, default)

    def __delitem__(self, key: int) -> None:
        key in self  # noqa: B015
        dict.__delitem__(self, key)

    def popitem(self) -> tuple[int, Character]:
        self._complete()
        return dict.popitem(self)

    def __or__(self, other: Any) -> Any:
        self._complete()
        return dict.__or__(self, other)

    def __ror__(self, other: Any) -> Any:
        self._complete()
        return dict.__ror__(self, other)


class World:
    """Every character, open marriage and reign of a campaign, loaded in a fixed number of queries
    (the dead of a whole World only when first asked for: ``_Characters``)."""

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
            return {c.pk: c for c in characters.filter(status=Status.ALIVE)}
        # the living and the retired, and the latest made: its pk bounds the rest, read later
        latest = Character.objects.filter(campaign=self.campaign).order_by("-pk").values("pk")[:1]
        first = list(characters.filter(~Q(status=Status.DEAD) | Q(pk=Subquery(latest))))
        if not first:
            return _Characters((), None)
        read = {c.pk for c in first}
        bound = max(read)

        def rest() -> list[Character]:
            # the dead at the load (one dead since was read alive, and is kept as read)
            return [c for c in characters.filter(status=Status.DEAD, pk__lte=bound) if c.pk not in read]

        return _Characters(first, rest, bound=bound)

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
        characters = self.characters
        if not isinstance(characters, _Characters) or characters.complete:
            return (c for c in characters.values() if c.status == Status.ALIVE)
        return self._in_play_read(characters)

    @staticmethod
    def _in_play_read(characters: _Characters) -> Iterator[Character]:
        """``in_play`` before the dead are read (none of them is in play): the characters read so
        far in their order, each as it is when reached, without reading the dead."""
        for pk in list(dict.keys(characters)):
            character = dict.__getitem__(characters, pk)
            if character.status == Status.ALIVE:
                yield character

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
