"""Hypothesis profiles: ``thorough`` (what CI runs: ``.ci/run`` sets HYPOTHESIS_PROFILE=thorough) and
``quick`` (the default, of ``make test`` and of a bare ``pytest``). Choose with HYPOTHESIS_PROFILE=thorough|quick.

Each property test states its example count as the thorough profile runs it, through
:func:`examples`; the quick profile runs a fifth of it. Long simulated campaigns state their seeds
(:func:`seeds`: the quick profile plays the first) and, where a shorter campaign still reaches what
the test looks at, their length (:func:`turns`: the quick profile plays half)."""

from __future__ import annotations

import os

from hypothesis import settings

THOROUGH = 100
settings.register_profile("thorough", max_examples=THOROUGH, print_blob=True)
settings.register_profile("quick", max_examples=THOROUGH // 5)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "quick")
settings.load_profile(PROFILE)


def examples(thorough: int) -> int:
    """``thorough`` examples in the thorough profile; the same share of the loaded profile's budget otherwise."""
    return max(3, thorough * settings.default.max_examples // THOROUGH)


def turns(thorough: int) -> int:
    """The length of a long simulated campaign: all of it in the thorough profile, half otherwise."""
    return thorough if PROFILE == "thorough" else thorough // 2


def seeds(thorough: tuple[int, ...]) -> tuple[int, ...]:
    """The seeds of a long simulated campaign: all of them in the thorough profile, the first otherwise."""
    return thorough if PROFILE == "thorough" else thorough[:1]
