"""Optional rules: a ruleset's named switches, checked the same way for every ruleset."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.errors import IllegalOption


def clean_options(known: Mapping[str, str], label: str, options: Mapping[str, Any] | None) -> dict[str, bool]:
    """Every known option, False unless set; an unknown name or a non-boolean is refused."""
    out = {key: False for key in known}
    for key, value in (options or {}).items():
        if key not in known:
            names = ", ".join(known) or "none"
            raise IllegalOption(f"{label} has no optional rule {key!r}; known: {names}.")
        if not isinstance(value, bool):
            raise IllegalOption(f"Optional rule {key!r} must be true or false, got {value!r}.")
        out[key] = value
    return out
