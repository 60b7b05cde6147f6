"""The dynasties app's services: the only writers of dynastic data (each public writer is one
transaction) and the read-only views the pages and the API share (``*_view``, ``monarchs_view``,
``event_deaths``). The package re-exports the Dynastic Sequence's step services and ``campaign_create``;
the modules inside it import each other directly, never through this package."""

from dynasties.services.announcements import announcements_make, turn_advance
from dynasties.services.births import births_attempt, births_finish, births_roll_all, births_sex
from dynasties.services.marriages import (
    Match,
    marriage_arrange,
    marriage_arrange_many,
    marriage_cancel,
    marriage_check,
    marriage_terms_set,
    marriage_wed,
    marriage_wed_many,
    marriages_finish,
)
from dynasties.services.setup import DynastySpec, campaign_create
from dynasties.services.survival import character_die, survival_finish, survival_roll

__all__ = [
    "DynastySpec",
    "Match",
    "announcements_make",
    "births_attempt",
    "births_finish",
    "births_roll_all",
    "births_sex",
    "campaign_create",
    "character_die",
    "marriage_arrange",
    "marriage_arrange_many",
    "marriage_cancel",
    "marriage_check",
    "marriage_terms_set",
    "marriage_wed",
    "marriage_wed_many",
    "marriages_finish",
    "survival_finish",
    "survival_roll",
    "turn_advance",
]
