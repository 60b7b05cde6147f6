"""The EU monarch tables' Births: the houses keep no families (the tables roll each crown's
monarchs), so the server rolls no births. A match entered by hand is still rolled, and corrected,
by the family dice Blood Royale's A4 uses (``rules.families``), as before the play packages."""

from __future__ import annotations

from campaign.models import Campaign
from campaign.permissions import Actor
from dynasties.models import BirthAttempt
from dynasties.play.blood_royale.births import announce as announce
from dynasties.play.blood_royale.births import attempt as attempt
from dynasties.play.blood_royale.births import birth_penalty as birth_penalty
from dynasties.play.blood_royale.births import board as board  # of nobody: no families
from dynasties.play.blood_royale.births import child as child
from dynasties.play.blood_royale.births import child_birth_year as child_birth_year
from dynasties.play.blood_royale.births import name_kin as name_kin
from dynasties.play.blood_royale.births import renamed_characteristic as renamed_characteristic
from dynasties.play.blood_royale.births import roll_characteristics as roll_characteristics  # a baron, as before
from dynasties.play.blood_royale.births import sex_of as sex_of
from dynasties.play.blood_royale.births import succeeds as succeeds
from dynasties.play.blood_royale.births import terms as terms  # the family dice (``rules.families``)
from dynasties.play.blood_royale.births import trait_value as trait_value
from dynasties.services.play_registry import ExtraAttempt
from rules.dice import DiceSource


def roll_all(campaign: Campaign, *, extra: ExtraAttempt, source: DiceSource | None, by: Actor) -> list[BirthAttempt]:
    return []  # rolled monarchs have no families: no births to roll


def keeps_families() -> bool:
    return False  # the tables roll each crown's monarchs
