"""The rules core: pure Python, no Django. One module per ruleset, each registering its ``Ruleset``."""

from __future__ import annotations

from rules import blood_royale, bloodline, eu_monarchs  # noqa: F401  (each registers its ruleset)
from rules.errors import RuleError
from rules.registry import Ruleset, default_ruleset, get_ruleset, labels, rulesets

RULESET_LABELS: dict[str, str] = labels()

__all__ = ["RULESET_LABELS", "RuleError", "Ruleset", "default_ruleset", "get_ruleset", "rulesets"]
