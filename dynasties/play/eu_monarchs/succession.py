"""The EU monarch tables' succession: the campaign's monarchs live and die by the 1d10 monarch
table, so a family kept in such a campaign follows Blood Royale's succession (A7), without its
regents and without the price of a passed-over heir on the line's page."""

from __future__ import annotations

from dataclasses import replace

from dynasties.models import Character
from dynasties.play.blood_royale.succession import PRETENDER_TERMS, TITLE_TERMS
from dynasties.play.blood_royale.succession import accession as accession
from dynasties.play.blood_royale.succession import baron_birth_year as baron_birth_year
from dynasties.play.blood_royale.succession import baron_characteristics as baron_characteristics
from dynasties.play.blood_royale.succession import barred as barred
from dynasties.play.blood_royale.succession import charisma_loss_dice as charisma_loss_dice  # never asked: priced otherwise
from dynasties.play.blood_royale.succession import create_relative as create_relative
from dynasties.play.blood_royale.succession import crowned as crowned
from dynasties.play.blood_royale.succession import heir_of as heir_of
from dynasties.play.blood_royale.succession import join as join
from dynasties.play.blood_royale.succession import leaves_no_issue as leaves_no_issue
from dynasties.play.blood_royale.succession import match_crowns as monarch_match_crowns
from dynasties.play.blood_royale.succession import minor as minor
from dynasties.play.blood_royale.succession import minor_note as monarch_minor_note
from dynasties.play.blood_royale.succession import no_heir as no_heir
from dynasties.play.blood_royale.succession import pass_over_cost as pass_over_cost
from dynasties.play.blood_royale.succession import pass_over_view as pass_over_view
from dynasties.play.blood_royale.succession import passed_over as passed_over
from dynasties.play.blood_royale.succession import regent_min_age as regent_min_age
from dynasties.play.blood_royale.succession import relative_plan as relative_plan
from dynasties.play.blood_royale.succession import successions_kill as successions_kill
from dynasties.play.blood_royale.succession import titles_descend as titles_descend
from dynasties.play.blood_royale.succession import union_barred as union_barred
from dynasties.play.blood_royale.succession import unions_end as unions_end
from dynasties.play.blood_royale.succession import whole_family_moves as whole_family_moves
from dynasties.services.play_succession import CrownTerms, PretenderTerms, TitleTerms
from rules import eu_monarchs as eu
from rules.people import Person

CROWN_TERMS = CrownTerms.of(eu.RULESET)


def crown_terms() -> CrownTerms:
    return CROWN_TERMS


def pretender_terms() -> PretenderTerms:
    return PRETENDER_TERMS.registered_by(eu.RULESET)  # no Pretenders nor bastards


def title_terms() -> TitleTerms:
    return replace(TITLE_TERMS, governors=False, governed_tax_extra=0)  # no Governors


def regents() -> bool:
    return False


def gives_back_crowns() -> bool:
    return False


def capitals() -> bool:
    return False


def minor_note(monarch: Character, regent: Character | None, year: int) -> tuple[str | None, int | None]:
    return monarch_minor_note(monarch, None, year)  # no regents: a minor is only said to be one


def needs_regent(heir: Person, year: int) -> bool:
    return False  # no regents on the EU tables


def widows_retire() -> bool:
    return eu.KINGS_WIDOWS_RETIRE


def match_crowns() -> int:
    return monarch_match_crowns() if eu.TREASURY_PAYS_MATCHES else 0  # families kept here: Blood Royale's payment


def priced_pass_overs() -> bool:
    return False  # the line's page says the price is not shown
