"""Blood Royale's Interphase (RULES.md A8): the pure rules of ``rules.interphase``, registered as
this ruleset's ``InterphasePlay``."""

from __future__ import annotations

from rules.interphase import cash_in_lines as cash_in_lines
from rules.interphase import interphase_lines as interphase_lines
