"""The line of succession with a reason for every place in it (RULES.md A7), for the pages.

``explain_line`` walks the family tree exactly as :func:`rules.succession.iter_succession`
does (the same pre-order walk of each line, the same climb through the blood parent, the same
``visited``/``barred``/bastard rules), but remembers the path that reached every person, so each
entry can say why it stands where it does:

    eldest son
    grandson: eldest son of Edward (deceased), the late King's eldest son
    granddaughter: eldest daughter of Maud, the King's second daughter
    younger brother: second son of Henry (deceased), the late King's father (the late King's own line is extinct)
    uncle: second son of Richard (deceased), the late King's grandfather (after the late King's own line and his father's)

Ranks ("eldest", "second" ...) count the parent's legitimate children of the same sex, the dead
included (a second son stays the second son when the eldest dies). Pure Python: no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass

from rules.people import MALE, Person
from rules.succession import FamilyIndex

Eligible = Callable[[Person], bool]

DEFAULT_LIMIT = 10

_ORDINALS = (
    "eldest",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
)
_COUSIN_DEGREES = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_REMOVED = {1: "once", 2: "twice", 3: "thrice"}


def _in_play(person: Person) -> bool:
    return person.in_play


@dataclass(frozen=True)
class LineEntry:
    """One place in the line.

    ``level`` is how far the walk climbed above the monarch to reach this person (0: the monarch's
    own descendants, 1: his parent's line - brothers, sisters, nephews -, 2: his grandparent's ...);
    ``path`` runs from that ancestor (the monarch at level 0) down to the person, both included."""

    person_id: int
    position: int  # 1 = the heir
    kin: str  # "son", "grandson", "younger brother", "first cousin once removed" ...
    reason: str
    level: int
    path: tuple[int, ...]


@dataclass(frozen=True)
class ExplainedLine:
    monarch: int
    entries: tuple[LineEntry, ...]
    total: int | None  # everyone in the line (None when not counted)

    @property
    def heir(self) -> int | None:
        return self.entries[0].person_id if self.entries else None


# --- words -----------------------------------------------------------------------------------


def ordinal(n: int) -> str:
    """1 -> 'eldest', 2 -> 'second' ... (13 -> '13th')."""
    if 1 <= n <= len(_ORDINALS):
        return _ORDINALS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _child(sex: str) -> str:
    return "son" if sex == MALE else "daughter"


def _great(times: int) -> str:
    return "great-" * times if times <= 3 else f"{times}x great-"


def descendant_kin(depth: int, sex: str) -> str:
    """A descendant ``depth`` generations below: son, grandson, great-grandson ..."""
    if depth == 1:
        return _child(sex)
    return f"{_great(depth - 2)}grand{_child(sex)}"


def ancestor_kin(height: int, sex: str) -> str:
    """An ancestor ``height`` generations above: father, grandfather, great-grandfather ..."""
    word = "father" if sex == MALE else "mother"
    if height == 1:
        return word
    return f"{_great(height - 2)}grand{word}"


def collateral_kin(height: int, depth: int, sex: str) -> str:
    """Someone ``depth`` generations below the monarch's ancestor ``height`` generations above him
    (never through the monarch himself): brother (1, 1), nephew (1, 2), uncle (2, 1), cousin ..."""
    male = sex == MALE
    if height == 1 and depth == 1:
        return "brother" if male else "sister"
    if height == 1:
        base = "nephew" if male else "niece"
        return base if depth == 2 else f"{_great(depth - 3)}grand-{base}"
    if depth == 1:
        return f"{_great(height - 2)}{'uncle' if male else 'aunt'}"
    degree, removed = min(height, depth) - 1, abs(height - depth)
    word = _COUSIN_DEGREES[degree - 1] if degree <= len(_COUSIN_DEGREES) else ordinal(degree)
    text = f"{word} cousin"
    if removed:
        text += f" {_REMOVED.get(removed, f'{removed} times')} removed"
    return text


def _status(person: Person) -> str:
    if not person.alive:
        return " (deceased)"
    if person.retired:
        return " (retired)"
    return ""


# --- the walk --------------------------------------------------------------------------------


class _Walk:
    """iter_succession's walk, remembering how each person was reached.

    ``via[child] = (parent, rank)``: the parent whose family the walk was going down, and the
    child's rank among that parent's legitimate children of the same sex. ``anchors`` maps the
    monarch (0) and every ancestor climbed to (1, 2 ...) to its level; ``before`` holds, for each
    level, how many heirs had been found before the walk reached it."""

    def __init__(
        self,
        people: Mapping[int, Person],
        monarch: int,
        family: FamilyIndex,
        royal: Collection[int],
        barred: Collection[int],
        eligible: Eligible,
    ) -> None:
        self.people = people
        self.monarch = monarch
        self.family = family
        self.royal = royal
        self.barred = barred
        self.eligible = eligible
        self.via: dict[int, tuple[int, int]] = {}
        self.anchors: dict[int, int] = {monarch: 0}
        self.order: list[int] = [monarch]  # the anchors, by level
        self.before: list[int] = [0]
        self.found = 0

    def _push(self, stack: list[tuple[int, int, int]], parent: int) -> None:
        kids = self.family.children(parent)
        if not kids:
            return
        sons = daughters = 0
        ranked: list[tuple[int, int, int]] = []
        for kid in kids:
            person = self.people[kid]
            if not person.legitimate:
                rank = 0
            elif person.sex == MALE:
                sons += 1
                rank = sons
            else:
                daughters += 1
                rank = daughters
            ranked.append((kid, parent, rank))
        ranked.reverse()
        stack.extend(ranked)

    def _line(self, root: int, visited: set[int]) -> Iterator[int]:
        stack: list[tuple[int, int, int]] = []
        self._push(stack, root)
        while stack:
            pid, parent, rank = stack.pop()
            if pid in visited:
                continue
            visited.add(pid)
            person = self.people[pid]
            if not person.legitimate or pid in self.barred:
                continue
            self.via[pid] = (parent, rank)
            if self.eligible(person):
                self.found += 1
                yield pid
            self._push(stack, pid)

    def __iter__(self) -> Iterator[int]:
        visited: set[int] = {self.monarch}
        yield from self._line(self.monarch, visited)
        current = self.monarch
        while True:
            parent = self.family.blood_parent(current, self.royal)
            if parent is None or parent in visited:
                return
            visited.add(parent)
            if parent in self.barred:
                return
            self.anchors[parent] = len(self.order)
            self.order.append(parent)
            self.before.append(self.found)
            if self.eligible(self.people[parent]):
                self.found += 1
                yield parent
            yield from self._line(parent, visited)
            current = parent


class _Explainer:
    def __init__(self, walk: _Walk, names: Mapping[int, str], title: str | None) -> None:
        self.walk = walk
        self.names = names
        people = walk.people
        monarch = people.get(walk.monarch)
        self.sex = monarch.sex if monarch is not None else MALE
        style = title or ("King" if self.sex == MALE else "Queen")
        late = monarch is not None and not monarch.in_play
        self.label = f"the late {style}" if late else f"the {style}"
        self.pronoun = "his" if self.sex == MALE else "her"
        self._heights: dict[int, int] | None = None

    def name(self, pid: int) -> str:
        return self.names.get(pid) or f"#{pid}"

    def _rank(self, pid: int) -> str:
        rank = self.walk.via[pid][1]
        return f"{ordinal(rank)} {_child(self.walk.people[pid].sex)}"

    def _note(self, level: int) -> str:
        lines = [f"{self.label}'s own line"]
        for j in range(1, level):
            ancestor = self.walk.people[self.walk.order[j]]
            lines.append(f"{self.pronoun} {ancestor_kin(j, ancestor.sex)}'s")
        joined = lines[0] if len(lines) == 1 else ", ".join(lines[:-1]) + " and " + lines[-1]
        if self.walk.before[level] == 0:
            return f"{joined} {'is' if level == 1 else 'are'} extinct"
        return f"after {joined}"

    def entry(self, pid: int, position: int) -> LineEntry:
        walk = self.walk
        people = walk.people
        chain = [pid]
        while chain[-1] not in walk.anchors:
            chain.append(walk.via[chain[-1]][0])
        chain.reverse()  # anchor ... person
        anchor, level, depth = chain[0], walk.anchors[chain[0]], len(chain) - 1
        person = people[pid]
        if depth == 0:  # an ancestor of the monarch
            kin = ancestor_kin(level, person.sex)
            return LineEntry(pid, position, kin, f"{kin} ({self._note(level)})", level, tuple(chain))
        if level == 0:
            kin = descendant_kin(depth, person.sex)
            if depth == 1:
                return LineEntry(pid, position, kin, self._rank(pid), level, tuple(chain))
            head = f"{self.label}'s {self._rank(chain[1])}"
        else:
            kin = self._nearest_kin(pid, level, depth)
            head = f"{self.label}'s {ancestor_kin(level, people[anchor].sex)}"
        links = [
            f"{self._rank(chain[i])} of {self.name(chain[i - 1])}{_status(people[chain[i - 1]])}" for i in range(depth, 0, -1)
        ]
        if level == 0:
            links.pop()  # the monarch's own child is described by ``head``
        reason = f"{kin}: {', '.join([*links, head])}"
        if level:
            reason += f" ({self._note(level)})"
        return LineEntry(pid, position, kin, reason, level, tuple(chain))

    def _generations_up(self, pid: int) -> dict[int, int]:
        """pid (at 0) and each of its ancestors, with the fewest generations up to it."""
        out: dict[int, int] = {}
        level, gen = [pid], 0
        while level:
            nxt: list[int] = []
            for q in level:
                if q in out:
                    continue
                out[q] = gen
                person = self.walk.people.get(q)
                if person is not None:
                    nxt.extend(p for p in (person.father, person.mother) if p is not None)
            level, gen = nxt, gen + 1
        return out

    def _nearest_kin(self, pid: int, level: int, depth: int) -> str:
        """The kinship word by the nearest common forebear, which need not be the ancestor the walk
        climbed to: the climb goes up the way the crown came (A7), so a cousin on the other side is
        reached from far above but is still, say, a first cousin."""
        if self._heights is None:
            self._heights = self._generations_up(self.walk.monarch)
        heights = self._heights
        height, below = level, depth
        for ancestor, d in self._generations_up(pid).items():
            h = heights.get(ancestor)
            if h is not None and (h + d, h) < (height + below, height):
                height, below = h, d
        person = self.walk.people[pid]
        if height == 0:
            return descendant_kin(below, person.sex)
        if below == 0:
            return ancestor_kin(height, person.sex)
        kin = collateral_kin(height, below, person.sex)
        return self._sibling(person) + kin if height == 1 and below == 1 else kin

    def _sibling(self, person: Person) -> str:
        monarch = self.walk.people.get(self.walk.monarch)
        if monarch is None:
            return ""
        half = (person.father, person.mother) != (monarch.father, monarch.mother)
        younger = person.seniority() > monarch.seniority()
        return ("younger " if younger else "elder ") + ("half-" if half else "")


def iter_explained(
    people: Mapping[int, Person],
    monarch: int,
    *,
    names: Mapping[int, str],
    royal: Collection[int] = (),
    barred: Collection[int] = (),
    eligible: Eligible = _in_play,
    index: FamilyIndex | None = None,
    title: str | None = None,
) -> Iterator[LineEntry]:
    """The line of ``monarch`` (living or dead), lazily, each entry with its reason. Same order as
    ``iter_succession(people, monarch, royal=royal, barred=barred, eligible=eligible)``.

    ``title`` is the holder's style ("King", "Duke of Liguria"); by default King or Queen."""
    walk = _Walk(people, monarch, index or FamilyIndex(people), royal, barred, eligible)
    explainer = _Explainer(walk, names, title)
    for position, pid in enumerate(walk, start=1):
        yield explainer.entry(pid, position)


def explain_line(
    people: Mapping[int, Person],
    monarch: int,
    *,
    names: Mapping[int, str],
    royal: Collection[int] = (),
    barred: Collection[int] = (),
    eligible: Eligible = _in_play,
    limit: int | None = DEFAULT_LIMIT,
    count_total: bool = True,
    index: FamilyIndex | None = None,
    title: str | None = None,
) -> ExplainedLine:
    """The first ``limit`` heirs (all with ``None``) with their reasons, and - with ``count_total`` -
    how many are in the line altogether (the rest of the walk is counted, not explained).

    Pass ``index`` to reuse a :class:`FamilyIndex` built once for several calls."""
    walk = _Walk(people, monarch, index or FamilyIndex(people), royal, barred, eligible)
    explainer = _Explainer(walk, names, title)
    entries: list[LineEntry] = []
    it = iter(walk)
    total: int | None = None
    if limit is not None and limit <= 0:
        return ExplainedLine(monarch=monarch, entries=(), total=sum(1 for _ in it) if count_total else None)
    for position, pid in enumerate(it, start=1):
        entries.append(explainer.entry(pid, position))
        if limit is not None and position >= limit:
            if count_total:
                total = position + sum(1 for _ in it)
            break
    else:
        total = len(entries)
    return ExplainedLine(monarch=monarch, entries=tuple(entries), total=total if count_total else None)
