"""Notes to try the renderer's bound on (issue 30; ``dynasties.notes``), shared by the tests
(tests/test_notes_render.py) and the benchmark (bench/notes.py): notes as a table writes them, which
the bound must keep with room to spare, and the worst shapes found, those it keeps at the length
limit and those it refuses. Each shape is a function of the length wanted."""

from __future__ import annotations

from collections.abc import Callable

DEPTH = 9  # dynasties.notes.MAX_DEPTH (kept here so the benchmark can build the shapes before Django is set up)
HOUSES = ("England", "France", "Castile", "Aragon", "Portugal", "Burgundy")
PEOPLE = ("Edward", "Isabella", "John of Gaunt", "Philippa", "Blanche", "Henry", "Joan", "Richard")


def _to(text: str, n: int) -> str:
    """``text`` repeated to ``n`` characters at most, cut at a line's end."""
    text = (text * (n // len(text) + 1))[:n]
    return text[: text.rfind("\n") + 1] if "\n" in text else text


def prose(n: int) -> str:
    paragraph = (
        "In the spring of **1320** the King rode north with the levies of the March, and *nobody* at "
        "Westminster expected him back before the harvest. The Queen kept the seal; her brother, the Count "
        "of Flanders, sent word that the wool fleet would sail late, and the Treasury borrowed against it. "
        "When the Scots burned Carlisle the King turned west, wintered at York and married his second son "
        "to the heiress of Lancaster, which cost him 40 crowns and the goodwill of the Earl of Hereford.\n\n"
    )
    return _to(paragraph, n)


def links(n: int) -> str:
    return _to(
        "".join(
            f"- [{person} of {house}](https://regnal.example/c/blood-royale/character/{i}/): *wed* in {1300 + i}, "
            f"see [the contract](https://regnal.example/c/blood-royale/contracts/{i}/)\n"
            for i, (person, house) in enumerate(zip(PEOPLE * 2, HOUSES * 3, strict=False))
        ),
        n,
    )


def table(n: int) -> str:
    head = "| year | event | who | gold |\n|---|---|---|---|\n"
    rows = "".join(f"| {1300 + i} | wedding of *{PEOPLE[i % 8]}* | {HOUSES[i % 6]} | {i * 5} |\n" for i in range(n // 40 + 1))
    return head + _to(rows, n - len(head))


def score_grid(n: int) -> str:
    """The houses' scores turn by turn, written tight: one-digit cells (the densest real table found)."""
    head = "|year|Eng|Fra|Cas|Ara|Por|\n|-|-|-|-|-|-|\n"
    rows = "".join(f"|{1300 + i}|{i % 7}|{i % 5}|{i % 3}|{i % 4}|{i % 6}|\n" for i in range(n // 17 + 1))
    return head + _to(rows, n - len(head))


def dense_inline(n: int) -> str:
    return _to("*a* **b** `c` [d](e) ~~f~~ <b>g</b> ", n)


def headings_code_quotes(n: int) -> str:
    return _to(
        "### Turn 12: the Interphase\n\n```\nEngland 3d6: 4 5 6\nFrance  3d6: 1 1 2\n```\n\n"
        "> The Pope will hear no more of it.\n> -- *the legate, at Avignon*\n\n",
        n,
    )


def nested_lists(n: int) -> str:
    lines = ("  " * (i % 6) + f"- {PEOPLE[i % 8]}, born {1300 + i} ([sheet](https://x.org/{i}))\n" for i in range(48))
    return _to("".join(lines), n)


def short_italic_lines(n: int) -> str:
    """A column of short italic lines (``*12*``): the densest real text found outside tables."""
    return _to("".join(f"*{i}*\n" for i in range(1000)), n)


def chronicle(n: int) -> str:
    """A campaign's chronicle as a GM keeps it: a heading a turn, prose with names in bold, links to
    the sheets, a list of the turn's events, now and then a quote, a table of the treasury, a code block."""
    parts = []
    for turn in range(1, 400):
        year = 1300 + 4 * turn
        king, queen = PEOPLE[turn % 8], PEOPLE[(turn + 3) % 8]
        house = HOUSES[turn % 6]
        parts.append(
            f"### {year}: turn {turn}\n\n"
            f"**{king}** of {house} held the crown; *{queen}* bore him a son at Windsor, christened in the "
            f"chapel by the Bishop of Winchester ([sheet](https://regnal.example/c/blood-royale/character/{turn}/)). "
            f"The harvest was {('poor', 'fair', 'good')[turn % 3]} and the treasury paid {turn * 3} crowns to the "
            f"Lombards.\n\n"
            f"- births: {turn % 4}; deaths: {turn % 3} (one in childbed)\n"
            f"- a marriage with {HOUSES[(turn + 1) % 6]}, the dowry {10 * (turn % 5)} crowns\n"
            f"- the Pope's favour: {('lost', 'kept', 'won')[turn % 3]}\n\n"
        )
        if turn % 5 == 0:
            parts.append(f"> {king} swore on the relics of St Edmund that he would keep the peace.\n\n")
        if turn % 7 == 0:
            parts.append(
                "| house | gold | provinces |\n|---|---|---|\n"
                + "".join(f"| {h} | {turn * (i + 1)} | {i + 3} |\n" for i, h in enumerate(HOUSES))
                + "\n"
            )
        if turn % 11 == 0:
            parts.append(f"```\nsurvival 2d6: {turn % 6 + 1} {turn % 5 + 2} -> lives\n```\n\n")
    return "".join(parts)[:n]


REAL: dict[str, tuple[Callable[[int], str], int]] = {
    "prose": (prose, 4_000),
    "a list of links": (links, 4_000),
    "a table": (table, 4_000),
    "a table of one-digit cells": (score_grid, 3_500),
    "dense inline marks": (dense_inline, 4_000),
    "headings, code and quotes": (headings_code_quotes, 3_000),
    "nested lists": (nested_lists, 5_000),
    "a column of short italic lines": (short_italic_lines, 5_000),
    "a campaign's chronicle": (chronicle, 20_000),
}
"""Notes as a table writes them, each with its length: the bound keeps every one with room to spare."""


def deep_lists(n: int) -> str:
    """Lists nested ``DEPTH`` deep, again and again."""
    lines: list[str] = []
    while sum(map(len, lines)) < n:
        lines += ["  " * depth + f"- item {depth}\n" for depth in range(DEPTH)]
    return "".join(lines)[:n]


def _repeated(unit: str) -> Callable[[int], str]:
    return lambda n: (unit * (n // len(unit) + 1))[:n]


KEPT: dict[str, Callable[[int], str]] = {
    "[abc  x n/5": _repeated("[abc "),
    "[]( x n/3": _repeated("[]("),
    "![a]( x n/5": _repeated("![a]("),
    "[x] x n/3": _repeated("[x]"),
    "< x n": _repeated("<"),
    "<a x n/2": _repeated("<a"),
    "*a x n/2": _repeated("*a"),
    "*...a...*": lambda n: "*" * (n // 2) + "a" + "*" * (n // 2 - 1),
    "` x n": _repeated("`"),
    "`a x n/2": _repeated("`a"),
    "> x 9, lines": lambda n: ((">" * DEPTH + " quoted\n") * n)[:n],
    "lists 9 deep": deep_lists,
    "a table of one-digit cells": score_grid,
    "short italic lines": short_italic_lines,
}
"""The worst shapes found that the bound keeps at the length limit (20,000 characters)."""

REFUSED: dict[str, Callable[[int], str]] = {
    "[ x n": _repeated("["),
    "[* x n/2": _repeated("[*"),
    "*[ x n/2": _repeated("*["),
    "**[ x n/3": _repeated("**["),
    "![ x n/2": _repeated("!["),
    "![x x n/3": _repeated("![x"),
    "[^ x n/2": _repeated("[^"),
    "[a x n/2": _repeated("[a"),
    "[ab x n/3": _repeated("[ab"),
    "_* x n/2": _repeated("_*"),
    "table, 2 cells a row": lambda n: ("|a|b|\n|-|-|\n" + "|c|d|\n" * n)[:n],
    "table, empty cells": lambda n: ("|||||\n|-|-|-|-|\n" + "|||||\n" * n)[:n],
    "a table too wide for its rows": lambda n: ("|a" * 3_000 + "\n" + "|-" * 3_000 + "\n" + "|\n" * n)[:n],
}
"""Shapes the bound refuses at the length limit: the bracket floods (each ``[`` that never closes is a
link looked for), emphasis marks that never pair, tables of next to empty cells."""

IN_TABLE = {"table, 2 cells a row", "table, empty cells", "a table too wide for its rows"}
"""The refused shapes that run over their steps inside a table (refused saying so)."""
