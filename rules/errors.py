"""Domain errors: a code a program can match and a message a player can act on."""

from __future__ import annotations


class RuleError(Exception):
    """Base of every domain error. ``code`` is stable; ``message`` says what to fix."""

    code = "rule"
    status = 400

    def __init__(self, message: str, *, code: str | None = None, fields: dict[str, str] | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.fields: dict[str, str] = dict(fields or {})

    def __str__(self) -> str:
        return self.message


class InvalidDice(RuleError):
    code = "invalid_dice"


class IllegalMarriage(RuleError):
    code = "illegal_marriage"


class IneligibleCouple(RuleError):
    code = "ineligible_couple"


class StepOrderError(RuleError):
    """A step run twice or out of order."""

    code = "step_order"
    status = 409


class InvalidTable(RuleError):
    code = "invalid_table"


class NotFound(RuleError):
    code = "not_found"
    status = 404


class InvalidImport(RuleError):
    code = "invalid_import"


class IllegalOption(RuleError):
    code = "invalid_option"


class IllegalPassOver(RuleError):
    code = "illegal_pass_over"
