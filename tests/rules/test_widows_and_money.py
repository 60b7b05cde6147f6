"""What each ruleset declares about widows and the Treasury's money at a match (issue 15)."""

from __future__ import annotations

from rules import get_ruleset


def test_bloodline_has_no_retirement_and_no_treasury_money():
    """BloodLine: 'If her husband dies first, the wife is returned to her original family', and a royal
    match is 'done by standard-EU dynastic alliance (that is either a $100 dowry or at least one
    province transferred)': no retirement, no Crowns from a Treasury."""
    bloodline = get_ruleset("eu-bloodline")
    assert bloodline.KINGS_WIDOWS_RETIRE is False
    assert bloodline.TREASURY_PAYS_MATCHES is False


def test_blood_royale_keeps_its_kings_widows_retiring_and_its_crowns():
    """Blood Royale: 'The widow of a King is simply retired from the game (Queen mothers cannot
    re-marry)'; 'the player from whose Dynasty she came receives 100 Crowns from the Treasury'."""
    blood_royale = get_ruleset("blood-royale")
    assert blood_royale.KINGS_WIDOWS_RETIRE is True
    assert blood_royale.TREASURY_PAYS_MATCHES is True
