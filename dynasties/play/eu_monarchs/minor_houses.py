"""The EU monarch tables' minor houses roll no people of their own (their monarchs roll on the
tables): every question refuses, as Blood Royale's does."""

from __future__ import annotations

from dynasties.play.blood_royale.minor_houses import kept as kept
from dynasties.play.blood_royale.minor_houses import replacement_birth_year as replacement_birth_year
from dynasties.play.blood_royale.minor_houses import roll_unmodified as roll_unmodified
from dynasties.play.blood_royale.minor_houses import stats_text as stats_text
from dynasties.play.blood_royale.minor_houses import terms as terms
