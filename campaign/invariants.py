"""Invariants once: a model's rule about its own row is stated once, as its database constraint,
and the constraint carries what a person reads when a row breaks it.

``check()`` and ``unique()`` make the constraint with its message (in the site's words, naming the
values with ``{field}`` placeholders), its code (the constraint's name) and the field the message
stands beside. Three doors ask the same constraint:

- the database refuses the row (the last word, whoever writes);
- a model with ``Invariants`` validates its constraints (Django's ``ModelForm`` does so for the
  desk's forms) and puts each message beside its field, the values filled in;
- the import asks ``broken()`` of a document's row before anything is written: the constraint's
  condition evaluated in Python against the row (no query per row), SQL's rule kept (a condition
  that is unknown, a NULL compared, holds).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models, router
from django.db.models import F, Q

if TYPE_CHECKING:
    # the mixin is typed as the model it is mixed into (at run time a plain class, so that it adds
    # no model of its own)
    _ModelBase = models.Model
else:
    _ModelBase = object

FIELDS: dict[str, str] = {}
"""The field a constraint's message stands beside, by the constraint's name."""


def check(condition: Q, *, name: str, field: str, message: str) -> models.CheckConstraint:
    """A check constraint with its message (``{field}`` placeholders: the row's values)."""
    FIELDS[name] = field
    return models.CheckConstraint(condition=condition, name=name, violation_error_code=name, violation_error_message=message)


def unique(fields: list[str], *, name: str, field: str, message: str, condition: Q | None = None) -> models.UniqueConstraint:
    """A uniqueness constraint with its message (as ``check``)."""
    FIELDS[name] = field
    return models.UniqueConstraint(
        fields=fields, condition=condition, name=name, violation_error_code=name, violation_error_message=message
    )


class _Values(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


def message(constraint: models.BaseConstraint, values: Mapping[str, Any]) -> str:
    """The constraint's message with the row's values filled in."""
    shown = {key: "none" if value is None else value for key, value in values.items()}
    return str(constraint.violation_error_message).format_map(_Values(shown))


def values_of(row: models.Model) -> dict[str, Any]:
    """A row's values by field name (a key's id under the key's name), as a constraint reads them."""
    return {f.name: getattr(row, f.attname) for f in row._meta.concrete_fields}


class Invariants(_ModelBase):
    """For a model: its constraints' messages stand beside their fields, the values filled in
    (Django puts a check constraint's message among the form's general errors, and skips a
    constraint naming the row's own id, which a form never has as a field)."""

    def validate_constraints(self, exclude: Iterable[str] | None = None) -> None:
        skip = set(exclude or ()) - {self._meta.pk.name}
        using = router.db_for_write(type(self), instance=self)
        values = values_of(self)
        errors: dict[str, list[ValidationError]] = {}
        for model_class, constraints in self.get_constraints():
            for constraint in constraints:
                try:
                    constraint.validate(model_class, self, exclude=skip, using=using)
                except ValidationError:
                    field = FIELDS.get(constraint.name, NON_FIELD_ERRORS)
                    if field in skip:
                        field = NON_FIELD_ERRORS
                    code = constraint.violation_error_code
                    errors.setdefault(field, []).append(ValidationError(message(constraint, values), code=code))
        if errors:
            raise ValidationError(errors)


# The import's question: the condition in Python ------------------------------------------------------


def _named(field: F) -> str:
    """The field an ``F()`` names."""
    return str(field.name)  # type: ignore[attr-defined]  # django-stubs omit F.name, set by F.__init__


def _leaf(child: object) -> tuple[str, Any]:
    """A condition's leaf: the field with its lookup (``"age__gte"``) and the value it is compared to."""
    if isinstance(child, (tuple, list)) and len(child) == 2 and isinstance(child[0], str):
        return child[0], child[1]
    raise ValueError(f"invariants: the condition {child!r} is not evaluated in Python; add it to campaign.invariants")


def _condition(constraint: models.CheckConstraint) -> Q:
    """A check constraint's condition, as a ``Q`` (an expression is not evaluated in Python)."""
    if isinstance(constraint.condition, Q):
        return constraint.condition
    raise ValueError(f"invariants: the condition of {constraint.name} is not a Q; it is not evaluated in Python")


def references(condition: Q) -> set[str]:
    """The fields a condition reads."""
    names: set[str] = set()
    for child in condition.children:
        if isinstance(child, Q):
            names |= references(child)
        else:
            key, want = _leaf(child)
            names.add(key.split("__")[0])
            if isinstance(want, F):
                names.add(_named(want))
    return names


def _compare(key: str, want: Any, values: Mapping[str, Any]) -> bool | None:
    name, _, lookup = key.partition("__")
    value = values[name]
    if isinstance(want, F):
        want = values[_named(want)]
    if lookup == "isnull":
        return (value is None) == bool(want)
    if value is None or want is None:
        return None  # SQL: a comparison with NULL is unknown
    if lookup in ("", "exact"):
        return bool(value == want)
    if lookup == "in":
        return value in want
    if lookup == "gte":
        return bool(value >= want)
    if lookup == "gt":
        return bool(value > want)
    if lookup == "lte":
        return bool(value <= want)
    if lookup == "lt":
        return bool(value < want)
    raise ValueError(f"invariants: the lookup {key!r} is not evaluated in Python; add it to campaign.invariants")


def holds(condition: Q, values: Mapping[str, Any]) -> bool | None:
    """The condition's truth for the row's values, in SQL's three values (None: unknown)."""
    results = [holds(c, values) if isinstance(c, Q) else _compare(*_leaf(c), values) for c in condition.children]
    result: bool | None
    if condition.connector == Q.AND:
        result = False if False in results else (None if None in results else True)
    elif condition.connector == Q.OR:
        result = True if True in results else (None if None in results else False)
    else:
        raise ValueError(f"invariants: the connector {condition.connector} is not evaluated in Python")
    if condition.negated and result is not None:
        result = not result
    return result


def broken(model: type[models.Model], values: Mapping[str, Any], *, unknown: Iterable[str] = ()) -> models.CheckConstraint | None:
    """The first of the model's check constraints the row breaks (a constraint reading a field
    of ``unknown``, or one the row lacks, is not asked)."""
    skip = set(unknown)
    for constraint in model._meta.constraints:
        if isinstance(constraint, models.CheckConstraint):
            condition = _condition(constraint)
            read = references(condition)
            if read & skip or not read <= values.keys():
                continue
            if holds(condition, values) is False:
                return constraint
    return None
