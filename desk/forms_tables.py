"""A rule table as a grid of typed fields (issue 20: no raw JSON anywhere a GM types).

One generic form for every ruleset's tables, built from the table's own structure:

- a list of rows (``[{"age": 15, "need": 3}, ...]``) is a grid, one column per key (the union of
  the rows' keys, a nested dict's keys as columns of their own), one numbered row per row and an
  empty row at the end to add one; a row whose cells are all cleared is removed;
- a dict of ``columns`` and ``rows`` whose rows each hold one value per column is a grid headed
  by the columns (the headings are fields too), as the rulebook prints it;
- a dict of dicts (``{"major": {"ducats": 200, ...}}``) is a grid with a row per key;
- any other dict is a section of single fields, its sub-tables sections of their own.

Numbers are integer fields, yes/no a box (or yes/no/blank where a row may leave it out), a value the
rules know the choices of a choice field, a list of names or numbers one text field ("2, 1"),
anything else text. The values are put back into the table's structure (``table_data``) for the
table's validator and ``campaign.services.table_update``; the form decides nothing about the
rules itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms

from rules import rulesets

# The values the validators accept from a closed list (table key, column): a choice field. Each
# ruleset registers its own (``Ruleset.table_choices``); table keys are unique across rulesets.
CHOICES: dict[tuple[str, str], Mapping[str, str]] = {k: v for r in rulesets() for k, v in r.table_choices.items()}

MISSING = object()  # a cell left blank where the row may leave its key out
FILL = "Fill in this cell, or clear the whole row to remove it."
PREFIX = "t"


def humanize(key: Any) -> str:
    text = str(key).replace("_", " ")
    return text[:1].upper() + text[1:]


def is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def is_scalar_list(value: Any) -> bool:
    return isinstance(value, list) and all(is_scalar(v) and v is not None for v in value)


def is_row_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


class ListField(forms.CharField):
    """A list of names or whole numbers typed as one line: "II, III, IV" or "2, 1"."""

    def __init__(self, *args: Any, numbers: bool = False, **kwargs: Any) -> None:
        self.numbers = numbers
        super().__init__(*args, **kwargs)

    def prepare_value(self, value: Any) -> Any:
        return ", ".join(str(v) for v in value) if isinstance(value, list) else value

    def to_python(self, value: Any) -> list[Any]:  # type: ignore[override]
        items = [part.strip() for part in str(super().to_python(value) or "").split(",") if part.strip()]
        if not self.numbers:
            return items
        try:
            return [int(item) for item in items]
        except ValueError:
            raise forms.ValidationError("Write whole numbers separated by commas, e.g. 2, 1.", code="invalid") from None


YES_NO = [("", "–"), ("yes", "yes"), ("no", "no")]


@dataclass
class Leaf:
    """One cell: its field's name, its kind and what a blank means (``error``, ``none``, ``omit``
    or ``empty``: "" or [])."""

    name: str
    kind: str  # int, bool, flag (yes/no/blank), choice, text, ints, texts
    blank: str


@dataclass
class Node:
    """A dict (``keys``) or a list (``keys`` None) of nodes; ``rows``: a list whose cleared rows go;
    ``optional``: a dict left empty is left out."""

    children: list[Any]
    keys: list[Any] | None = None
    rows: bool = False
    optional: bool = False


@dataclass
class Head:
    text: str = ""
    name: str = ""


@dataclass
class Section:
    title: str
    head: list[Head] = field(default_factory=list)  # a grid's column headings
    rows: list[tuple[str, list[str | None]]] = field(default_factory=list)  # (row label, field names)
    names: list[str] = field(default_factory=list)  # a section of single fields

    @property
    def grid(self) -> bool:
        return bool(self.head)


class TableGrid:
    """The fields, sections and structure of one table (``key``) shaped like ``data``."""

    def __init__(self, key: str, data: Any, title: str = "The table") -> None:
        self.key = key
        self.fields: dict[str, forms.Field] = {}
        self.initial: dict[str, Any] = {}
        self.sections: list[Section] = []
        self.root = self._value(data, (), title)

    # building ---------------------------------------------------------------------------------

    def _name(self, path: tuple[Any, ...]) -> str:
        return "-".join([PREFIX, *(str(p) for p in path)])

    def _leaf(self, path: tuple[Any, ...], sample: Any, label: str, blank: str, column: Any = None) -> Leaf:
        """A field for a value like ``sample`` at ``path``; ``column`` names it in CHOICES."""
        name = self._name(path)
        choices = CHOICES.get((self.key, str(column))) if column is not None else None
        attrs = {"aria-label": label, "class": "desk-cell"}
        formfield: forms.Field
        if choices is not None:
            kind = "choice"
            options = list(choices.items())
            formfield = forms.ChoiceField(choices=options if "" in choices else [("", "–"), *options], required=False)
            if "" in choices:
                blank = "empty"
        elif isinstance(sample, bool) and blank in ("error", "empty"):
            kind, blank = "bool", "empty"
            formfield = forms.BooleanField(required=False)
        elif isinstance(sample, bool):
            kind = "flag"
            formfield = forms.ChoiceField(choices=YES_NO, required=False)
        elif isinstance(sample, int):
            kind = "int"
            formfield = forms.IntegerField(required=False, widget=forms.NumberInput(attrs={"class": "desk-cell desk-num"}))
        elif isinstance(sample, list):
            kind = "ints" if sample and all(isinstance(v, int) and not isinstance(v, bool) for v in sample) else "texts"
            formfield = ListField(required=False, numbers=kind == "ints")
            attrs["placeholder"] = "1, 2" if kind == "ints" else "A, B"
            if blank == "error":
                blank = "empty"
        else:
            kind = "text"
            formfield = forms.CharField(required=False)
        formfield.label = label
        formfield.widget.attrs.update({**attrs, **formfield.widget.attrs})
        self.fields[name] = formfield
        return Leaf(name, kind, blank)

    def _set(self, leaf: Leaf, value: Any) -> None:
        if leaf.kind == "flag":
            self.initial[leaf.name] = "" if value is None else ("yes" if value else "no")
        elif value is not None:
            self.initial[leaf.name] = value

    def _value(self, data: Any, path: tuple[Any, ...], title: str) -> Any:
        if isinstance(data, dict):
            return self._dict(data, path, title)
        if is_row_list(data):
            return self._rows(data, path, title, columns=None)
        section = Section(title)
        node = self._single(data, path, humanize(path[-1]) if path else title, section)
        self.sections.append(section)
        return node

    def _single(self, value: Any, path: tuple[Any, ...], label: str, section: Section) -> Leaf:
        blank = "none" if value is None else ("empty" if value == "" else "error")
        leaf = self._leaf(path, value if value is not None else 0, label, blank, column=path[-1] if path else None)
        self._set(leaf, value)
        section.names.append(leaf.name)
        return leaf

    def _dict(self, data: dict[str, Any], path: tuple[Any, ...], title: str) -> Node:
        columns = data.get("columns")
        rows = data.get("rows")
        if is_scalar_list(columns) and columns and self._spread(rows, len(columns)):
            return self._columns_grid(data, path, title)
        if data and all(isinstance(v, dict) and all(is_scalar(x) for x in v.values()) for v in data.values()):
            return self._keyed_grid(data, path, title)
        singles = Section(title)
        self.sections.append(singles)
        keys, children = [], []
        for key, value in data.items():
            keys.append(key)
            if isinstance(value, dict) or is_row_list(value):
                children.append(self._value(value, (*path, key), humanize(key)))
            else:
                children.append(self._single(value, (*path, key), humanize(key), singles))
        if not singles.names:
            self.sections.remove(singles)
        return Node(children, keys=keys)

    @staticmethod
    def _spread(rows: Any, width: int) -> bool:
        """Rows each holding one list of ``width`` values: a list of dicts or a dict of lists."""
        if isinstance(rows, dict) and rows:
            return all(is_scalar_list(r) and len(r) == width for r in rows.values())
        if is_row_list(rows):
            lists = [[k for k, v in r.items() if is_scalar_list(v) and len(v) == width] for r in rows]
            return all(lists) and len({ks[-1] for ks in lists}) == 1
        return False

    def _columns_grid(self, data: dict[str, Any], path: tuple[Any, ...], title: str) -> Node:
        """``columns`` as the headings of ``rows``' values; the dict's other entries beside it."""
        columns = data["columns"]
        heads = []
        column_leaves = []
        for i, value in enumerate(columns):
            leaf = self._leaf((*path, "columns", i), value, f"Column {i + 1}", "error")
            self._set(leaf, value)
            column_leaves.append(leaf)
            heads.append(Head(name=leaf.name))
        keys: list[Any] = ["columns", "rows"]
        children: list[Any] = [Node(list(column_leaves))]
        rows = data["rows"]
        grid_title = title
        if isinstance(rows, dict):
            section = Section(grid_title, head=[Head(""), *heads])
            self.sections.append(section)
            row_keys, row_nodes = [], []
            for key, cells in rows.items():
                leaves = [
                    self._cell((*path, "rows", key, i), v, f"Row {key}, column {columns[i]}", "error", None)
                    for i, v in enumerate(cells)
                ]
                section.rows.append((str(key), [leaf.name for leaf in leaves]))
                row_keys.append(key)
                row_nodes.append(Node(list(leaves)))
            children.append(Node(row_nodes, keys=row_keys))
        else:
            spread = next(k for k, v in rows[0].items() if is_scalar_list(v) and len(v) == len(columns))
            children.append(self._rows(rows, (*path, "rows"), grid_title, columns=(spread, columns, heads)))
        others = {k: v for k, v in data.items() if k not in ("columns", "rows")}
        if others:
            rest = self._dict(others, path, "Other values")
            keys += rest.keys or []
            children += rest.children
        return Node(children, keys=keys)

    def _keyed_grid(self, data: dict[str, dict[str, Any]], path: tuple[Any, ...], title: str) -> Node:
        columns = list(dict.fromkeys(k for row in data.values() for k in row))
        section = Section(title, head=[Head(""), *(Head(humanize(c)) for c in columns)])
        self.sections.append(section)
        nodes = []
        for key, row in data.items():
            names: list[str | None] = []
            keys, leaves = [], []
            for column in columns:
                if column not in row:
                    names.append(None)
                    continue
                leaf = self._cell((*path, key, column), row[column], f"{humanize(key)}, {column}", "error", column)
                keys.append(column)
                leaves.append(leaf)
                names.append(leaf.name)
            section.rows.append((humanize(key), names))
            nodes.append(Node(leaves, keys=keys))
        return Node(nodes, keys=list(data))

    def _cell(self, path: tuple[Any, ...], value: Any, label: str, blank: str, column: Any) -> Leaf:
        if value is None and blank == "error":
            blank = "none"
        if value == "" and blank == "error":
            blank = "empty"
        leaf = self._leaf(path, value if value is not None else 0, label, blank, column)
        self._set(leaf, value)
        return leaf

    def _rows(self, rows: list[dict[str, Any]], path: tuple[Any, ...], title: str, columns: Any) -> Node:
        """A list of rows: a grid with a numbered row per row and an empty one to add a row."""
        spread, spread_columns, spread_heads = columns if columns else (None, [], [])
        keys = list(dict.fromkeys(k for row in rows for k in row))
        subkeys = {
            k: list(dict.fromkeys(s for row in rows if isinstance(row.get(k), dict) for s in row[k]))
            for k in keys
            if k != spread and any(isinstance(row.get(k), dict) for row in rows)
        }
        head = [Head("")]
        for k in keys:
            if k == spread:
                head += spread_heads
            elif k in subkeys:
                head += [Head(f"{humanize(k)}: {s}") for s in subkeys[k]]
            else:
                head.append(Head(humanize(k)))
        section = Section(title, head=head)
        self.sections.append(section)

        def sample(k: Any, sub: Any = None) -> Any:
            for row in rows:
                value = row.get(k)
                value = value.get(sub) if sub is not None and isinstance(value, dict) else value
                if value is not None and not isinstance(value, dict):
                    return value
            return 0

        def blank_of(k: Any) -> str:
            values = [row.get(k, MISSING) for row in rows]
            if any(v is MISSING for v in values):
                return "omit"
            if any(v is None for v in values):
                return "none"
            if any(v == "" or v == [] for v in values):
                return "empty"
            return "error"

        nodes = []
        for i in range(len(rows) + 1):  # the last one empty: a row to add
            row = rows[i] if i < len(rows) else {}
            label = str(i + 1) if i < len(rows) else "new"
            where = f"Row {label}" if i < len(rows) else "New row"
            names: list[str | None] = []
            row_keys: list[Any] = []
            children: list[Any] = []
            for k in keys:
                value = row.get(k)
                if k == spread:
                    cells = value if isinstance(value, list) else [None] * len(spread_columns)
                    leaves = [
                        self._leaf((*path, i, k, n), sample(k)[n] if sample(k) else 0, f"{where}, column {c}", "error")
                        for n, c in enumerate(spread_columns)
                    ]
                    for leaf, cell in zip(leaves, cells, strict=False):
                        self._set(leaf, cell)
                    names += [leaf.name for leaf in leaves]
                    row_keys.append(k)
                    children.append(Node(list(leaves)))
                elif k in subkeys:
                    inner = value if isinstance(value, dict) else {}
                    leaves = []
                    for s in subkeys[k]:
                        leaf = self._leaf((*path, i, k, s), sample(k, s), f"{where}, {humanize(k)}: {s}", "omit")
                        self._set(leaf, inner.get(s))
                        leaves.append(leaf)
                    names += [leaf.name for leaf in leaves]
                    row_keys.append(k)
                    children.append(Node(leaves, keys=list(subkeys[k]), optional=True))
                else:
                    leaf = self._leaf((*path, i, k), sample(k), f"{where}, {humanize(k)}", blank_of(k), column=k)
                    if k in row:
                        self._set(leaf, value)
                    names.append(leaf.name)
                    row_keys.append(k)
                    children.append(leaf)
            section.rows.append((label, names))
            nodes.append(Node(children, keys=row_keys))
        return Node(nodes, rows=True)

    # assembling -------------------------------------------------------------------------------

    def assemble(self, cleaned: Mapping[str, Any]) -> tuple[Any, dict[str, str]]:
        """The table from the cleaned cells, and the cells left blank that must be filled."""
        errors: dict[str, str] = {}
        return self._build(self.root, cleaned, errors), errors

    def _raw(self, leaf: Leaf, cleaned: Mapping[str, Any]) -> Any:
        value = cleaned.get(leaf.name)
        if leaf.kind == "flag":
            return {"yes": True, "no": False}.get(value or "")
        return value

    def _empty(self, leaf: Leaf, cleaned: Mapping[str, Any]) -> bool:
        value = self._raw(leaf, cleaned)
        return value is None or value == "" or value == []

    def _blank_row(self, node: Any, cleaned: Mapping[str, Any]) -> bool:
        if isinstance(node, Leaf):
            return node.kind == "bool" or self._empty(node, cleaned)
        return all(self._blank_row(child, cleaned) for child in node.children)

    def _build(self, node: Any, cleaned: Mapping[str, Any], errors: dict[str, str]) -> Any:
        if isinstance(node, Leaf):
            if not self._empty(node, cleaned):
                return self._raw(node, cleaned)
            if node.blank == "omit":
                return MISSING
            if node.blank == "none":
                return None
            if node.blank == "error":
                errors[node.name] = FILL
                return None
            return [] if node.kind in ("ints", "texts") else ("" if node.kind != "bool" else False)
        if node.keys is None:
            children = [c for c in node.children if not (node.rows and self._blank_row(c, cleaned))]
            return [self._build(c, cleaned, errors) for c in children]
        out = {}
        for key, child in zip(node.keys, node.children, strict=True):
            value = self._build(child, cleaned, errors)
            if value is not MISSING:
                out[key] = value
        return MISSING if node.optional and not out else out
