"""Independent cross-checks of exported campaigns against the rulebooks (issue 15); see tests/test_crosscheck.py."""
