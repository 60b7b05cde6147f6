"""What the dice grids share (Births, Survival, the EU monarchs): each die field's name for a
screen reader (issue 34: "every die field has a label a screen reader reads ('Anna Welf, survival,
die 1')").

A die field is named by two elements (``aria-labelledby``), as a cell of a grid is named by its row
and its column: the form's hidden "whose roll" text ("Anna Welf, survival,": the template includes
``pages/sequence/_whose.html`` once per form) and the die's own visible label ("Die 1", its
``<label>`` carrying the id ``<field id>-label``). A screen reader reads "Anna Welf, survival, Die 1";
the visible label stays the die's ("Die 1"), so what is seen is part of what is heard (WCAG 2.5.3)."""

from __future__ import annotations

from typing import Any

from django import forms


def whose_id(form: forms.Form) -> str:
    """The id of the form's hidden "whose roll" text."""
    return f"{form.prefix or 'dice'}-whose"


def spoken(form: forms.Form, whose: str) -> None:
    """Name each die field of the form for a screen reader: ``whose`` ("<who>, <which roll>"), then
    the field's label. Without ``whose`` the fields keep their labels alone."""
    if not whose:
        return
    holder: Any = form
    holder.whose = whose  # read by pages/sequence/_whose.html
    for name, field in form.fields.items():
        label = f"id_{form.add_prefix(name)}-label"
        field.widget.attrs["aria-labelledby"] = f"{whose_id(form)} {label}"
