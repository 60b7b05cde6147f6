"""BloodLine has no monarchs' phase: its houses keep families (its crowns pass to their heirs); every
question refuses (``wrong_ruleset``), as Blood Royale's does."""

from __future__ import annotations

from dynasties.play.blood_royale.monarchs import after_crisis as after_crisis
from dynasties.play.blood_royale.monarchs import board_line as board_line
from dynasties.play.blood_royale.monarchs import characteristics as characteristics
from dynasties.play.blood_royale.monarchs import check_first_monarch as check_first_monarch
from dynasties.play.blood_royale.monarchs import configure as configure
from dynasties.play.blood_royale.monarchs import default_tables as default_tables
from dynasties.play.blood_royale.monarchs import dice as dice
from dynasties.play.blood_royale.monarchs import doge as doge
from dynasties.play.blood_royale.monarchs import is_major as is_major
from dynasties.play.blood_royale.monarchs import known_country as known_country
from dynasties.play.blood_royale.monarchs import leader_order as leader_order
from dynasties.play.blood_royale.monarchs import military_dice as military_dice
from dynasties.play.blood_royale.monarchs import military_note as military_note
from dynasties.play.blood_royale.monarchs import military_skill as military_skill
from dynasties.play.blood_royale.monarchs import minority_at as minority_at
from dynasties.play.blood_royale.monarchs import named_monarchs as named_monarchs
from dynasties.play.blood_royale.monarchs import named_row as named_row
from dynasties.play.blood_royale.monarchs import period as period
from dynasties.play.blood_royale.monarchs import period_at as period_at
from dynasties.play.blood_royale.monarchs import period_rows as period_rows
from dynasties.play.blood_royale.monarchs import place_named as place_named
from dynasties.play.blood_royale.monarchs import ransom as ransom
from dynasties.play.blood_royale.monarchs import ransom_words as ransom_words
from dynasties.play.blood_royale.monarchs import rolls_monarchs as rolls_monarchs
from dynasties.play.blood_royale.monarchs import setup_countries as setup_countries
from dynasties.play.blood_royale.monarchs import split_numeral as split_numeral
from dynasties.play.blood_royale.monarchs import start_at as start_at
from dynasties.play.blood_royale.monarchs import start_year_of_turn as start_year_of_turn
from dynasties.play.blood_royale.monarchs import status as status
from dynasties.play.blood_royale.monarchs import status_of as status_of
from dynasties.play.blood_royale.monarchs import succession_dice as succession_dice
from dynasties.play.blood_royale.monarchs import succession_roll as succession_roll
from dynasties.play.blood_royale.monarchs import succession_terms as succession_terms
from dynasties.play.blood_royale.monarchs import survival_roll as survival_roll
from dynasties.play.blood_royale.monarchs import survival_terms as survival_terms
from dynasties.play.blood_royale.monarchs import tables as tables
from dynasties.play.blood_royale.monarchs import turkish_line as turkish_line
from dynasties.play.blood_royale.monarchs import turn_of as turn_of
from dynasties.play.blood_royale.monarchs import value_range as value_range
from dynasties.play.blood_royale.monarchs import values as values
