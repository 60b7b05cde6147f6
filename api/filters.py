"""Filter helpers: integers bounded to what the database stores (a huge number is a 400, not a
database overflow), and the ``?year=`` snapshot filters."""

from __future__ import annotations

from django import forms
from django_filters import rest_framework as filters
from drf_spectacular.drainage import set_override

INT_MAX = 2**31 - 1


class BoundedIntegerField(forms.IntegerField):
    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        kwargs.setdefault("min_value", -INT_MAX)
        kwargs.setdefault("max_value", INT_MAX)
        super().__init__(*args, **kwargs)


class IntegerFilter(filters.NumberFilter):  # type: ignore[misc]  # django-filter ships no types
    """An integer (an id or a year) for the OpenAPI schema too, with its help text."""

    field_class = BoundedIntegerField

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        schema = {"type": "integer", "minimum": -INT_MAX, "maximum": INT_MAX}
        if kwargs.get("help_text"):
            schema["description"] = kwargs["help_text"]
        set_override(self, "field", schema)


class FilterSet(filters.FilterSet):  # type: ignore[misc]  # django-filter ships no types
    """Every filter set of the API (kept for shared behaviour)."""
