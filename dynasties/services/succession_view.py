"""The line of succession of a crown or a title, read-only (RULES.md A7, A9): data for the pages.

    succession_line(campaign=c, crown="England")                  # now
    succession_line(campaign=c, crown="England", year=1320)       # as it stood in 1320
    succession_what_if(campaign=c, crown="England", dies=[...])   # as if these died now
    heirs_now(campaign=c)                                         # every crown's heir, at once
    title_succession_line(campaign=c, title="Duke of Liguria")    # a title (rule G), same order

Each entry carries the character, age, whether a regent would be needed, the reason for the place
(:mod:`rules.explain`) and - for a crown - whether the heir may be passed over now and at
what cost (``heir_standing`` + ``pass_over_cost``, exactly as the succession service decides), or
the rule that forbids it. Titles are inherited in the same order but are never "passed over": the
King disputes an inheritance instead (A9), so their entries have no ``pass_over``.

Nothing here writes. Every call loads the campaign once, as plain rows (a lean :class:`World`), and
full Characters only for the people it returns; the number of SELECTs is fixed whatever the size:
7 for a crown's line or a what-if, 8 for a past year, 9 for a title (10 for a title in a past year);
7 for every crown's heir (``heirs_now``: the living and the recently born only, when they answer).
A ``year`` view uses the reigns, deaths, retirements and renunciations of that year, but control,
captivity and marriages as they stand now (the books keep no history of those).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import QuerySet

from campaign.models import Campaign
from dynasties.models import (
    Character,
    Crown,
    Dynasty,
    Marriage,
    Reign,
    Status,
    Title,
    TitleHolding,
)
from dynasties.services import regnal
from dynasties.services.bloodline_sequence import royal_leaders
from dynasties.services.common import World, renounced_by_crown
from dynasties.services.play_registry import play_of
from dynasties.services.play_succession import PassOverView as PassOverView
from dynasties.services.play_succession import RelativePlan
from dynasties.services.succession import default_regent
from rules.errors import NotFound, RuleError
from rules.explain import DEFAULT_LIMIT, ExplainedLine, LineEntry, explain_line
from rules.people import Person
from rules.succession import FamilyIndex, line_of

# --- a lean World --------------------------------------------------------------------------------


class Sheet(NamedTuple):
    """What the view needs of every character, read as a plain row (no model instance): enough to
    walk the tree, judge a Pretender's line and pick a regent. The people shown get full Characters."""

    id: int
    given_name: str
    dynastic_name: str
    sex: str
    birth_year: int
    birth_order: int
    father_id: int | None
    mother_id: int | None
    status: str
    death_year: int | None
    retired_year: int | None
    legitimate: bool
    controlled_by_id: int | None
    birth_dynasty_id: int | None
    prisoner_of_id: int | None
    pretender_of_id: int | None
    origin: str
    held_by_neutrals: bool

    @property
    def pk(self) -> int:
        return self.id

    @property
    def display_name(self) -> str:
        return f"{self.given_name} {self.dynastic_name}"

    def age(self, year: int) -> int:
        return year - self.birth_year

    def as_person(self) -> Person:
        return Person(
            id=self.id,
            sex=self.sex,
            birth_year=self.birth_year,
            birth_order=self.birth_order,
            father=self.father_id,
            mother=self.mother_id,
            dynastic_name=self.dynastic_name,
            alive=self.status != Status.DEAD,
            retired=self.status == Status.RETIRED,
            prisoner=self.prisoner_of_id is not None or self.held_by_neutrals,
            legitimate=self.legitimate,
        )


class _LeanWorld(World):
    """A :class:`World` whose characters are :class:`Sheet` rows until :meth:`load` swaps in full
    Characters for the few the view shows: building 2,000 model instances costs more than the rest
    of the view together. Same queries as World (one per table), nothing saved ever.

    It fills World's attributes itself instead of calling ``World.__init__`` (which loads every
    character as a model instance); the World methods used here (``crown_dynasty``, ``seat_left``,
    ``past_holders``, ``people``, and ``heir_standing`` reading ``characters`` and ``spouse_of``)
    work on it unchanged."""

    def __init__(self, campaign: Campaign) -> None:  # deliberately not World.__init__
        self.campaign = campaign
        self.year = campaign.current_year
        self.living_only = False
        self._read(Character.objects.filter(campaign=campaign))
        self.dynasties = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign)}
        self.reigns = list(Reign.objects.filter(campaign=campaign).order_by("start_year", "pk"))
        self.crowns = {c.name: c for c in Crown.objects.filter(campaign=campaign)}
        self.renounced = renounced_by_crown(campaign, self.reigns)
        self.open_marriages = list(Marriage.objects.filter(campaign=campaign, ended_year__isnull=True).order_by("pk"))
        self._spouses: dict[int, int] | None = None

    def _read(self, characters: QuerySet[Character]) -> None:
        """These characters as rows (one query), and as the rules' people."""
        rows = self._rows(characters)
        self.characters: dict[int, Any] = {row[0]: Sheet._make(row) for row in rows}
        self._people = {pk: sheet.as_person() for pk, sheet in self.characters.items()}

    def _rows(self, characters: QuerySet[Character]) -> Iterable[tuple[Any, ...]]:
        return characters.order_by("pk").values_list(*Sheet._fields)

    def spouse_of(self, character_id: int, *, wed_only: bool = True) -> Any:
        if not wed_only:
            return super().spouse_of(character_id, wed_only=False)
        if self._spouses is None:
            self._spouses = {}
            for m in self.open_marriages:
                if m.wedding_year is not None:
                    self._spouses.setdefault(m.husband_id, m.wife_id)
                    self._spouses.setdefault(m.wife_id, m.husband_id)
        spouse = self._spouses.get(character_id)
        return None if spouse is None else self.characters[spouse]

    def end_marriages_of(self, gone: Collection[int]) -> None:
        """What-if: the marriages of the dead end (in memory only)."""
        self.open_marriages = [m for m in self.open_marriages if m.husband_id not in gone and m.wife_id not in gone]
        self._spouses = None

    def load(self, pks: Iterable[int]) -> None:
        """Full Characters for these (one query), each with its list label (its regnal number, a
        namesake's birth year), read from the rows already loaded."""
        wanted = set(pks)
        labels = self._labels_of(wanted)
        for character in Character.objects.filter(campaign=self.campaign, pk__in=wanted):
            character.label = labels.get(character.pk)
            self.characters[character.pk] = character

    def _labels_of(self, wanted: Collection[int]) -> dict[int, str]:
        """The list labels of these, as ``regnal.labels_of`` gives them from every character: a
        label reads the character's own numerals and the living who share his name, so those are
        all it is given (not two centuries of the dead; as ``selectors.regnal_labels`` does)."""
        everyone = self.characters
        shown = [everyone[pk] for pk in wanted if pk in everyone]
        names = {(c.given_name, c.dynastic_name) for c in shown}
        known = {c.pk for c in shown}
        namesakes = [
            c
            for c in everyone.values()
            if c.status == Status.ALIVE and c.pk not in known and (c.given_name, c.dynastic_name) in names
        ]
        return regnal.labels_of([*shown, *namesakes], self.reigns)


class _Beyond(Exception):
    """A computation on the recent rows asked for someone they leave out (or for all of them)."""


class _Watched(dict):  # type: ignore[type-arg]
    """The rows of a :class:`_RecentWorld`: a lookup of someone not among them, or a walk over all of
    them, raises :class:`_Beyond` (the answer could depend on those left out)."""

    def __getitem__(self, key: Any) -> Any:
        if not dict.__contains__(self, key):
            raise _Beyond(key)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        if key is not None and not dict.__contains__(self, key):
            raise _Beyond(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        if key is not None and not dict.__contains__(self, key):
            raise _Beyond(key)
        return key is not None

    def _everyone(self, *args: Any) -> Any:
        raise _Beyond("every character")

    __iter__ = keys = values = items = __len__ = _everyone


_SINCE = "(SELECT MIN(birth_year) FROM dynasties_character WHERE campaign_id = %(campaign)s AND status = %(alive)s)"
_RECENT_SQL = f"""
SELECT {", ".join(f"c.{name}" for name in Sheet._fields)}, w.whole
FROM dynasties_character c CROSS JOIN (SELECT (
    EXISTS (
        SELECT 1 FROM dynasties_character o
        LEFT JOIN dynasties_character f ON f.id = o.father_id
        LEFT JOIN dynasties_character m ON m.id = o.mother_id
        WHERE o.campaign_id = %(campaign)s AND o.birth_year < {_SINCE}
        AND (f.birth_year >= {_SINCE} OR m.birth_year >= {_SINCE})
    ) OR EXISTS (
        SELECT 1 FROM dynasties_reign r JOIN dynasties_character h ON h.id = r.holder_id
        WHERE r.campaign_id = %(campaign)s AND r.end_year IS NULL AND (
            h.status <> %(alive)s OR NOT EXISTS (
                SELECT 1 FROM dynasties_character k
                WHERE (k.father_id = r.holder_id OR k.mother_id = r.holder_id) AND k.status = %(alive)s AND k.legitimate
            )
        )
    )
) AS whole) w
WHERE c.campaign_id = %(campaign)s AND (c.birth_year >= {_SINCE} OR w.whole)
ORDER BY c.id
"""  # noqa: S608 (column names and this module's constants; the values are parameters)
"""The rows of :class:`_RecentWorld` (the columns of :class:`Sheet`, then ``whole``): those born
since the eldest of the living, or everyone when a child of theirs was born before that (the
family of each would not all be there) or a reigning monarch is not alive or has no living
legitimate child (his heir may be found only by a climb up the tree). One statement, written
out: the ORM's own took longer to build than the rows it saves reading."""


class _RecentWorld(_LeanWorld):
    """A lean World of those born since the eldest of the living was born - however long the
    campaign's history, the same few - when they answer: when no one of them has a child born
    before that (the family of each of them is all there) and every reigning monarch is alive with a
    living legitimate child (his heir is then found among his descendants, never by a climb up the
    tree to the dead of long ago). The one query that reads the rows decides it, and reads every
    character when they would not answer (``recent`` is then False).

    The rows are watched: a lookup of someone left out, or a walk over all of them, raises
    :class:`_Beyond` (a renounced claim, a ruleset reading everyone ...); the caller then reads
    every character with :meth:`everyone` (one query more) and asks again. ``index`` is the
    family of the rows, built before they are watched."""

    def __init__(self, campaign: Campaign) -> None:
        self.recent = True
        super().__init__(campaign)

    def _rows(self, characters: QuerySet[Character]) -> Iterable[tuple[Any, ...]]:
        if not self.recent:
            return super()._rows(characters)
        with connection.cursor() as cursor:
            cursor.execute(_RECENT_SQL, {"campaign": self.campaign.pk, "alive": Status.ALIVE.value})
            rows = cursor.fetchall()
        self.recent = not (rows and rows[0][-1])
        flags = [Sheet._fields.index("legitimate"), Sheet._fields.index("held_by_neutrals")]
        out = []
        for row in rows:
            values = list(row[:-1])
            for i in flags:  # (SQLite gives 0 and 1)
                values[i] = bool(values[i])
            out.append(tuple(values))
        return out

    def _read(self, characters: QuerySet[Character]) -> None:
        super()._read(characters)
        people = self.people
        self.index = FamilyIndex(people)
        if self.recent:
            self._plain = (self.characters, people)
            self.characters = _Watched(self.characters)
            self._people = self.index.people = _Watched(people)

    def everyone(self) -> None:
        """Every character read (the rows of the recent alone did not answer)."""
        self.recent = False
        self._read(Character.objects.filter(campaign=self.campaign))

    def unwatched(self) -> None:
        """The rows as plain dicts again (the answer is found; the shown are loaded next)."""
        self.characters, self._people = self._plain
        self.index.people = self._people


class _Names(Mapping[int, str]):
    """Each character's display name, read when the explanation names him (not built for all)."""

    def __init__(self, characters: Mapping[int, Any]) -> None:
        self.characters = characters

    def __getitem__(self, pk: int) -> str:
        return str(self.characters[pk].display_name)

    def get(self, pk: int, default: Any = None) -> Any:
        character = self.characters.get(pk)
        return default if character is None else character.display_name

    def __iter__(self) -> Iterator[int]:
        return iter(self.characters)

    def __len__(self) -> int:
        return len(self.characters)


@dataclass(frozen=True)
class SuccessionEntry:
    position: int
    character: Character
    age: int
    minor: bool  # under 15: a regent would rule for him
    kin: str
    reason: str
    pass_over: PassOverView | None  # None for a title
    level: int = 0  # 0: the monarch's own descendants; 1: his parent's line; ...


@dataclass(frozen=True)
class SuccessionLine:
    crown: str
    year: int
    monarch: Character | None  # whose line this is (in a what-if, possibly the one who dies)
    entries: tuple[SuccessionEntry, ...]
    total: int | None  # how many are in the line altogether (``entries`` holds the first ``limit``)
    rule_c: bool = False
    title: str | None = None  # a title's name when the line is a title's
    player: Dynasty | None = None  # controls the crown now
    dead: tuple[int, ...] = ()  # what-if: those taken as dead
    monarch_dies: bool = False  # what-if: the monarch is among them
    successor: SuccessionEntry | None = None  # what-if: who would succeed (the first entry)
    relative: RelativePlan | None = None  # what-if: nobody of the blood left
    regent: Character | None = None  # the reign's regent; in a what-if with a minor successor, the default choice
    notes: tuple[str, ...] = field(default=())

    @property
    def heir(self) -> SuccessionEntry | None:
        return self.entries[0] if self.entries else None


# --- public API ------------------------------------------------------------------------------


def succession_line(
    *, campaign: Campaign, crown: str, limit: int | None = DEFAULT_LIMIT, year: int | None = None
) -> SuccessionLine:
    """The line of the crown's monarch: now (the open reign), or in ``year`` (the monarch reigning
    then, among the people alive then: born by that year and not dead before it ended)."""
    world = _LeanWorld(campaign)
    reign = _reign(world, crown, year)
    when = campaign.current_year if year is None else year
    people, barred = (world.people, _barred_now(world, crown)) if year is None else _as_of(world, crown, when)
    royal = {r.holder_id for r in world.reigns if r.crown == crown and r.start_year <= when}
    notes = _history_note(campaign, year)
    if _leaves_no_issue(world, crown, reign.holder_id, people):
        explained = ExplainedLine(reign.holder_id, (), 0)
        notes = (*notes, _no_issue_note(world, reign.holder_id))
    else:
        explained = _explain(world, people, reign.holder_id, royal, barred, limit)
    return _crown_line(world, reign, crown, explained, people, when, notes=notes)


def succession_what_if(
    *, campaign: Campaign, crown: str, dies: Sequence[int], limit: int | None = DEFAULT_LIMIT
) -> SuccessionLine:
    """The line as if the characters ``dies`` died now. Writes nothing.

    If the monarch is among them the entries are his line at his death - the first would succeed
    (``successor``; a minor gets a default ``regent``), those before the heir the GM could still
    pass over; with nobody of the blood left, ``relative`` gives the relative who would be created
    (A7). Their marriages are taken as ended, as they would be at the succession."""
    world = _LeanWorld(campaign)
    reign = _reign(world, crown, None)
    year = campaign.current_year
    dead = list(dict.fromkeys(dies))
    for pk in dead:
        sheet = world.characters.get(pk)
        if sheet is None:
            raise NotFound(f"There is no character #{pk} in this campaign.")
        if sheet.status == Status.DEAD:
            raise RuleError(f"{sheet.display_name} is already dead.", code="already_dead")
    gone = set(dead)
    late = world.characters[reign.holder_id]
    widows = {pk for m in world.open_marriages if late.pk in (m.husband_id, m.wife_id) for pk in (m.husband_id, m.wife_id)}
    people = dict(world.people)
    for pk in dead:
        people[pk] = replace(people[pk], alive=False)
    world.end_marriages_of(gone)
    if _leaves_no_issue(world, crown, late.pk, people):
        explained = ExplainedLine(late.pk, (), 0)
        if late.pk not in gone:
            return _crown_line(
                world, reign, crown, explained, people, year, dead=tuple(dead), notes=(_no_issue_note(world, late.pk),)
            )
        note = (
            f"{late.display_name} leaves no issue: a monarch 5 years younger would be rolled for the minor house "
            "(BloodLine, Minor Dynasties); his brothers, sisters and cousins do not inherit."
        )
        line = _crown_line(world, reign, crown, explained, people, year, dead=tuple(dead), notes=(note,))
        return replace(line, monarch_dies=True)
    explained = _explain(world, people, late.pk, world.past_holders(crown), _barred_now(world, crown), limit)
    if late.pk not in gone:
        return _crown_line(world, reign, crown, explained, people, year, dead=tuple(dead))
    notes: list[str] = []
    relative: RelativePlan | None = None
    regent_id: int | None = None
    style = "King" if late.sex == "M" else "Queen"
    heir = world.characters[explained.heir] if explained.heir is not None else None
    if heir is None:
        relative = play_of(campaign).succession.relative_plan(people[late.pk], year)
        age = year - relative.relative_birth_year
        children = ", ".join(str(y) for y in relative.children_birth_years) or "none"
        notes.append(
            f"Nobody of the blood is left: a relative of the late {style} would be created, aged {age} "
            f"(born {relative.relative_birth_year}), married in {relative.marriage_year} to a wife born "
            f"{relative.wife_birth_year}, with {len(relative.children_birth_years)} children (born {children})."
        )
    else:
        notes.append(
            f"{heir.display_name} would succeed {late.display_name} as {'King' if heir.sex == 'M' else 'Queen'} "
            f"of {crown}, aged {heir.age(year)}."
        )
        if play_of(campaign).succession.minor(people[heir.pk], year):
            regent_id, note = _default_regent(world, people, heir, late, crown, year, widows - {late.pk}, gone)
            notes.append(note)
    line = _crown_line(
        world,
        reign,
        crown,
        explained,
        people,
        year,
        dead=tuple(dead),
        notes=tuple(notes),
        regent_id=regent_id,
        regent_known=True,
    )
    return replace(line, monarch_dies=True, successor=line.heir, relative=relative)


def heirs_now(*, campaign: Campaign) -> dict[str, SuccessionEntry | None]:
    """The heir (first in the line) of every crown that has a reigning monarch now, keyed by crown,
    from one lean World: the same heirs as ``succession_line(limit=1)`` crown by crown, in 7 SELECTs
    however many crowns and characters (the dashboard). The entries carry no ``pass_over`` (not
    asked here).

    The World holds those born since the eldest of the living (:class:`_RecentWorld`) when every
    monarch's heir is among his descendants: the same cost at turn 200 as at turn 20 (issue 36).
    A line that needs more (a climb up the tree past a renounced line, a ruleset reading everyone)
    reads every character (an 8th SELECT) and is found again from them: the answer is always the
    full World's."""
    world = _RecentWorld(campaign)
    try:
        found = _first_heirs(world)
    except _Beyond:
        world.everyone()
        found = _first_heirs(world)
    if world.recent:
        world.unwatched()
    world.load(e.person_id for e in found.values() if e is not None)
    year = campaign.current_year
    return {crown: None if e is None else _entry(world, e, world.people, year, None) for crown, e in found.items()}


def _first_heirs(world: _RecentWorld) -> dict[str, LineEntry | None]:
    """Each reigning crown's heir, explained; a monarch's line is walked once for every crown he
    wears that has the same past holders and renunciations (a Dynastic Union's crowns)."""
    year = world.campaign.current_year
    names = _Names(world.characters)
    found: dict[str, LineEntry | None] = {}
    walked: dict[tuple[int, frozenset[int], frozenset[int]], LineEntry | None] = {}
    for reign in world.reigns:
        if reign.end_year is not None or reign.crown in found:
            continue
        if _leaves_no_issue(world, reign.crown, reign.holder_id, world.people):
            found[reign.crown] = None
            continue
        royal = frozenset(r.holder_id for r in world.reigns if r.crown == reign.crown and r.start_year <= year)
        barred = frozenset(world.renounced.get(reign.crown, set()))
        key = (reign.holder_id, royal, barred)
        if key not in walked:
            explained = explain_line(
                world.people,
                reign.holder_id,
                names=names,
                royal=royal,
                barred=barred,
                limit=1,
                count_total=False,
                index=world.index,
            )
            walked[key] = explained.entries[0] if explained.entries else None
        found[reign.crown] = walked[key]
    return found


def royal_leaders_now(*, campaign: Campaign) -> dict[str, list[int]]:
    """BloodLine: each reigning crown's royal leaders now (``bloodline_sequence.royal_leaders``: the
    heirs of 15 or more of its ruling house, in order of succession), as character ids, from one
    lean World: the same SELECTs however many crowns and characters."""
    world = _LeanWorld(campaign)
    crowns = {r.crown for r in world.open_reigns() if r.crown}
    return {crown: [c.pk for c in royal_leaders(world, crown)] for crown in sorted(crowns)}


def title_succession_line(
    *, campaign: Campaign, title: str | int | Title, limit: int | None = DEFAULT_LIMIT, year: int | None = None
) -> SuccessionLine:
    """The heirs of a title (optional rule G: "inherited like the crown"), named by ``Title.name`` or
    given as the title (or its id).

    Found as ``services.titles.titles_pass_on`` finds them: the blood runs from the title's holders
    (its holdings and the holder), and renunciations recorded under the title's name bar a line.
    Entries have no ``pass_over``: the King disputes a title's inheritance (a rebellion marker), he
    does not pass its heir over. A minor heir holds the title with the monarch as 'Regent'. A BloodLine
    title passes to the holder's descendants only: its line is theirs."""
    if isinstance(title, Title) and title.campaign_id == campaign.pk:
        record: Title | None = title
    elif isinstance(title, str):
        record = Title.objects.filter(campaign=campaign, name=title).first()
    else:
        record = Title.objects.filter(campaign=campaign, pk=getattr(title, "pk", title)).first()
    if record is None:
        raise NotFound(f"There is no title {title!r} in this campaign.")
    holdings = list(
        TitleHolding.objects.filter(title=record).order_by("start_year", "pk").values_list("holder_id", "start_year", "end_year")
    )
    world = _LeanWorld(campaign)
    when = campaign.current_year if year is None else year
    people: Mapping[int, Person]
    if year is None:
        holder_id = record.holder_id
        people, barred = world.people, world.renounced.get(record.name, set())
    else:
        held = [h for h, start, end in holdings if start <= year and (end is None or end > year)]
        holder_id = held[-1] if held else (record.holder_id if not holdings and record.granted_year <= year else None)
        people, barred = _as_of(world, record.name, year)
    if holder_id is None or holder_id not in people:
        when_text = "now" if year is None else f"in {year}"
        raise NotFound(f"{record.name} has no holder {when_text}.")
    royal = {h for h, start, _ in holdings if start <= when} | {holder_id}
    if play_of(campaign).succession.titles_descend():  # BloodLine: "Titles are passed down to descendants"
        heirs = set(line_of(people, holder_id, index=FamilyIndex(people)))
        explained = _explain(world, people, holder_id, royal, (), limit, title=record.name, only=heirs)
        rule = (
            "A BloodLine title passes to the holder's descendants, at the whim of the player controlling him; the "
            "house that gave it takes it back if it controlled him at his death."
        )
    else:
        explained = _explain(world, people, holder_id, royal, barred, limit, title=record.name)
        rule = (
            "A title passes like the crown (A9); the King may dispute an inheritance (a rebellion marker) "
            "instead of an heir being passed over."
        )
    world.load([holder_id, *(e.person_id for e in explained.entries)])
    entries = tuple(_entry(world, e, people, when, None) for e in explained.entries)
    notes = (*_history_note(campaign, year), rule)
    return SuccessionLine(
        crown=record.crown,
        year=when,
        monarch=world.characters[holder_id],
        entries=entries,
        total=explained.total,
        title=record.name,
        notes=notes,
    )


# --- internals -------------------------------------------------------------------------------


def _reign(world: World, crown: str, year: int | None) -> Reign:
    reigns = [r for r in world.reigns if r.crown == crown]
    if not reigns:
        raise NotFound(f"The crown of {crown!r} has never had a monarch in this campaign.")
    if year is None:
        current = [r for r in reigns if r.end_year is None]
        if not current:
            raise NotFound(f"{crown} has no reigning monarch.")
        return current[0]
    then = [r for r in reigns if r.start_year <= year and (r.end_year is None or r.end_year > year)]
    if not then:
        raise NotFound(f"Nobody reigned over {crown} in {year}.")
    return max(then, key=lambda r: (r.start_year, r.pk))


def _as_of(world: World, crown: str, year: int) -> tuple[dict[int, Person], set[int]]:
    """The people of ``year`` (born by then; dead or retired only if it happened by then, a death
    in the year itself counting) and the renunciations made by then."""
    people: dict[int, Person] = {}
    for pk, c in world.characters.items():
        if c.birth_year > year:
            continue
        dead = c.death_year is not None and c.death_year <= year
        retired = c.retired_year is not None and c.retired_year <= year and not dead
        person = world.people[pk]
        if person.alive != (not dead) or person.retired != retired:
            person = replace(person, alive=not dead, retired=retired)
        people[pk] = person
    barred = renounced_by_crown(world.campaign, world.reigns, by_year=year).get(crown, set())
    return people, barred


def _barred_now(world: World, crown: str) -> set[int]:
    """Who may not inherit ``crown`` now: a renounced claim; BloodLine, a child born into a spurned
    line after its skip."""
    return set(world.renounced.get(crown, set())) | play_of(world.campaign).succession.barred(world, crown, world.people)


def _leaves_no_issue(world: World, crown: str, monarch: int, people: Mapping[int, Person]) -> bool:
    """BloodLine: a minor house's monarch with no issue in play. 'If the monarch dies without issue,
    then a randomly rolled monarch 5 years younger than the previous one takes the throne': his
    brothers, sisters and cousins are not his heirs (as ``succession.walk_the_line``)."""
    return play_of(world.campaign).succession.leaves_no_issue(world, crown, monarch, people)


def _no_issue_note(world: World, monarch: int) -> str:
    late = world.characters[monarch]
    return (
        f"{late.display_name} leaves no issue: if he dies, a monarch 5 years younger is rolled for the minor "
        "house (BloodLine, Minor Dynasties); his brothers, sisters and cousins do not inherit."
    )


def _history_note(campaign: Campaign, year: int | None) -> tuple[str, ...]:
    if year is None or year == campaign.current_year:
        return ()
    return (f"The line as it stood in {year}; control, captivity and marriages are shown as they stand now.",)


def _explain(
    world: World,
    people: Mapping[int, Person],
    monarch: int,
    royal: Collection[int],
    barred: Collection[int],
    limit: int | None,
    *,
    title: str | None = None,
    only: Collection[int] | None = None,
) -> ExplainedLine:
    """``only``: the line keeps these people alone (a BloodLine title's: the holder's descendants)."""
    names = {pk: c.display_name for pk, c in world.characters.items()}
    if only is None:
        return explain_line(
            people, monarch, names=names, royal=royal, barred=barred, limit=limit, index=FamilyIndex(people), title=title
        )
    return explain_line(
        people,
        monarch,
        names=names,
        royal=royal,
        barred=barred,
        limit=limit,
        index=FamilyIndex(people),
        title=title,
        eligible=lambda p: p.in_play and p.id in only,
    )


def _crown_line(
    world: _LeanWorld,
    reign: Reign,
    crown: str,
    explained: ExplainedLine,
    people: Mapping[int, Person],
    year: int,
    *,
    dead: tuple[int, ...] = (),
    notes: tuple[str, ...] = (),
    regent_id: int | None = None,
    regent_known: bool = False,
) -> SuccessionLine:
    """Full Characters for the monarch, the entries and the regent (one query), and the pass-over
    answers. ``regent_known``: ``regent_id`` is the what-if's default regent, not the reign's."""
    if not regent_known and reign.regent_id and reign.regency_end_year is None:
        regent_id = reign.regent_id
    world.load([reign.holder_id, *(e.person_id for e in explained.entries), *([regent_id] if regent_id else [])])
    player = world.crown_dynasty(crown)
    rule_c = world.campaign.option("disputed_succession")
    priced = play_of(world.campaign).succession.priced_pass_overs()
    rules = (crown, player, rule_c) if priced else None
    entries = tuple(_entry(world, e, people, year, rules) for e in explained.entries)
    if not priced:
        notes = (*notes, f"Passing over an heir is priced by the {world.campaign.ruleset} rules: not shown here.")
    return SuccessionLine(
        crown=crown,
        year=year,
        monarch=world.characters[reign.holder_id],
        entries=entries,
        total=explained.total,
        rule_c=rule_c,
        player=player,
        dead=dead,
        regent=world.characters[regent_id] if regent_id else None,
        notes=notes,
    )


def _entry(
    world: World,
    explained: LineEntry,
    people: Mapping[int, Person],
    year: int,
    crown_rules: tuple[str, Dynasty | None, bool] | None,
) -> SuccessionEntry:
    character = world.characters[explained.person_id]
    view = None if crown_rules is None else pass_over_view(world, character, *crown_rules)
    return SuccessionEntry(
        position=explained.position,
        character=character,
        age=character.age(year),
        minor=play_of(world.campaign).succession.minor(people[character.pk], year),
        kin=explained.kin,
        reason=explained.reason,
        pass_over=view,
        level=explained.level,
    )


def _default_regent(
    world: World,
    people: Mapping[int, Person],
    heir: Any,
    late: Any,
    crown: str,
    year: int,
    widows: set[int],
    dead: set[int],
) -> tuple[int | None, str]:
    """The regent the succession service would name by default (its ``default_regent``), explained."""
    style = "King" if heir.sex == "M" else "Queen"
    chosen, why = default_regent(world, crown, heir.pk, widows, dead)
    if chosen is not None:
        c = world.characters[chosen]
        place = {
            "line": "the first adult in the line",
            "oldest": "the oldest adult of the house",
            "spouse": f"the late {'King' if late.sex == 'M' else 'Queen'}'s surviving spouse",
        }[why]
        return c.pk, (
            f"{heir.display_name} is {heir.age(year)}: {c.display_name}, {place}, "
            "would be regent by default (the GM may name any adult)."
        )
    age = year - play_of(world.campaign).succession.baron_birth_year(people[late.pk], year)
    return None, (
        f"{heir.display_name} is {heir.age(year)} and no adult can act as regent: a baron and cousin of the late "
        f"{'King' if late.sex == 'M' else 'Queen'}, aged {age}, would be created to rule until the {style} is 15."
    )


def pass_over_view(world: World, character: Character, crown: str, player: Dynasty | None, rule_c: bool) -> PassOverView:
    """The answer the succession service would give if the GM passed this heir over now, and the
    penalties it would record (the ruleset's ``SuccessionPlay.pass_over_view``)."""
    return play_of(world.campaign).succession.pass_over_view(world, character, crown, player, rule_c)
