"""The rules core: pure Python, no Django. One module per ruleset."""

from __future__ import annotations

from rules import blood_royale, bloodline, eu_monarchs
from rules.base import Ruleset
from rules.errors import RuleError

RULESET_LABELS: dict[str, str] = {
    "blood-royale": "Blood Royale",
    "eu-bloodline": "Europa Universalis: BloodLine",
    "eu-monarchs": "Europa Universalis: monarch tables",
}

_BLOOD_ROYALE: Ruleset = blood_royale  # mypy checks the modules against the interface here
_BLOODLINE: Ruleset = bloodline
_EU_MONARCHS: Ruleset = eu_monarchs
_IMPLEMENTED: dict[str, Ruleset] = {"blood-royale": _BLOOD_ROYALE, "eu-bloodline": _BLOODLINE, "eu-monarchs": _EU_MONARCHS}


def get_ruleset(name: str) -> Ruleset:
    try:
        return _IMPLEMENTED[name]
    except KeyError:
        if name in RULESET_LABELS:
            raise RuleError(
                f"The {RULESET_LABELS[name]} ruleset is not available yet; use 'blood-royale'.",
                code="ruleset_unavailable",
            ) from None
        raise RuleError(
            f"Unknown ruleset {name!r}; choose one of {', '.join(RULESET_LABELS)}.", code="unknown_ruleset"
        ) from None
