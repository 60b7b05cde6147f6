"""The monarchs' phase's doors (RULES.md C; the EU monarch tables): survival rolls, successions,
named monarchs, ransoms, the optional military skill, and per-crown settings.

Each entry is one transaction on the campaign locked for its GM; the ruleset's registered play does
the rest (``step_of(campaign, "monarchs")``, ``dynasties.services.play_monarchs``): the EU monarch
tables roll them (``dynasties.play.eu_monarchs.monarchs``, where the crowns' state is described),
the rulesets whose houses keep families refuse (``wrong_ruleset``).

A death on the survival roll (or a reign whose rolled length is spent) leaves the throne vacant:
the GM then calls ``monarch_succession_roll`` (or places a named monarch), so typed dice for the
succession can be entered once the death is known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Seen, lock_campaign
from dynasties.models import Character, Crown, Reign
from dynasties.services.play_monarchs import (
    SUCCESSION_FACES as SUCCESSION_FACES,
)
from dynasties.services.play_monarchs import (
    MonarchsPlay,
    MonarchStatus,
    MonarchSuccession,
    MonarchSurvival,
    Period,
)
from dynasties.services.play_registry import registered_plays, step_of
from rules.dice import DiceSource, DiceSpec
from rules.errors import NotFound

__all__ = [
    "SUCCESSION_FACES",
    "MonarchStatus",
    "MonarchSuccession",
    "MonarchSurvival",
    "crown_period",
    "load_eu_tables",
    "monarch_crown_configure",
    "monarch_military_skill",
    "monarch_place_named",
    "monarch_ransom",
    "monarch_status",
    "monarch_succession_roll",
    "monarch_survival_roll",
    "succession_dice",
    "tables_play",
]


def _campaign(campaign: Campaign | int) -> Campaign:
    if isinstance(campaign, Campaign):
        return campaign
    try:
        return Campaign.objects.get(pk=campaign)
    except Campaign.DoesNotExist:
        raise NotFound(f"There is no campaign #{campaign}.") from None


def _locked(campaign: Campaign | int, by: Actor) -> Campaign:
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    return campaign


def tables_play() -> MonarchsPlay:
    """The play whose monarchs roll on the tables: what a campaign not yet made (the set-up form, its
    checks) and the table events' fields read. The plays are registered before the table events are
    declared (``DynastiesConfig.ready()``)."""
    return next(m for p in registered_plays().values() if (m := p.monarchs) is not None)


def load_eu_tables(campaign: Campaign) -> dict[str, Any]:
    """The campaign's monarch tables: its own copies where it has them, else the defaults."""
    return step_of(campaign, "monarchs").tables(campaign)


def succession_dice(campaign: Campaign) -> Mapping[str, DiceSpec]:
    """The dice of each succession roll, by the name its typed faces go under (``SUCCESSION_FACES``)."""
    return step_of(campaign, "monarchs").succession_dice()


def monarch_status(*, campaign: Campaign | int, crown: Crown | str) -> MonarchStatus:
    """A crown's monarch now: values as rolled and in play, minority, crisis, survival modifiers."""
    campaign = _campaign(campaign)
    return step_of(campaign, "monarchs").status(campaign, crown)


def crown_period(campaign: Campaign | int) -> Period:
    """The EU period of the campaign's current turn (I turns 1-6, II 7-14, ... VII 53+)."""
    campaign = _campaign(campaign)
    return step_of(campaign, "monarchs").period(campaign)


@transaction.atomic
def monarch_crown_configure(*, campaign: Campaign | int, crown: str, settings: Mapping[str, Any], by: Actor) -> Crown:
    """Set a crown's EU settings (a setting given as None goes back to the country's default). The
    crown's record is created if the campaign has none (a country no player rules, e.g. Venice)."""
    campaign = _locked(campaign, by)
    return step_of(campaign, "monarchs").configure(campaign, crown, settings)


@transaction.atomic
def monarch_survival_roll(
    *,
    campaign: Campaign | int,
    crown: Crown | str,
    faces: Sequence[int] | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> MonarchSurvival:
    """The monarch's survival roll of the turn: 1d10 + Fragile Health, the turns after a Dynastic
    Crisis, Stability below 0 and (Turkey) MIL below 7. "+1 turn" lengthens the reign by a turn;
    "dead" ends it; Turkey also reads its column (Pasha, revolt, revolt and Dynastic Crisis). A
    monarch whose rolled reign length is spent after the roll dies too. The succession is left to
    ``monarch_succession_roll``."""
    campaign = _locked(campaign, by)
    return step_of(campaign, "monarchs").survival_roll(campaign, crown, faces=faces, source=source, by=by)


@transaction.atomic
def monarch_succession_roll(
    *,
    campaign: Campaign | int,
    crown: Crown | str,
    faces: Mapping[str, Sequence[int]] | None = None,
    given_name: str | None = None,
    dynastic_name: str | None = None,
    sex: str = "M",
    numbered: bool = True,
    source: DiceSource | None = None,
    by: Actor,
) -> MonarchSuccession:
    """A new monarch for a vacant throne (RULES.md C). The succession roll (1d10, Poland's era -2)
    gives a Dynastic Crisis (values halved for the first turn, -2 Stability, roll again for age),
    Fragile Health (roll again for age) or neither, and the minority on the same line; then 1d10
    for each of ADM, DIP and MIL on the successor table (the crown's base column, moved by the former
    monarch's value), and 1d10 for the reign length. A Doge: no crisis, never a minor, +1 to each
    value die with a minimum of 4, reign -2. Typed ``faces`` name each roll: ``succession``, ``age``
    (only after a crisis or Fragile Health), ``adm``, ``dip``, ``mil``, ``reign``."""
    campaign = _locked(campaign, by)
    return step_of(campaign, "monarchs").succession_roll(
        campaign,
        crown,
        faces=faces,
        given_name=given_name,
        dynastic_name=dynastic_name,
        sex=sex,
        numbered=numbered,
        source=source,
        by=by,
    )


@transaction.atomic
def monarch_place_named(
    *,
    campaign: Campaign | int,
    crown: Crown | str,
    given_name: str,
    adm: int,
    dip: int,
    mil: int,
    no_survival_turns: int = 0,
    reign_turns: int | None = None,
    dynastic_name: str | None = None,
    replace: bool = False,
    sex: str = "M",
    numbered: bool = True,
    by: Actor,
) -> Reign:
    """A named monarch with fixed values instead of a roll (Poland's Báthory 8/7/9, Prussia's
    Friedrich II 9/9/9 with no survival roll for 6 turns ...). The throne must be vacant, unless
    ``replace`` has the living monarch step down. ``no_survival_turns`` exempts this turn and the
    next ones; ``reign_turns`` gives a planned end (none by default: the survival rolls decide).
    ``sex`` "F" seats a queen; ``numbered=False`` gives no numeral (a name such as "Báthory")."""
    campaign = _locked(campaign, by)
    return step_of(campaign, "monarchs").place_named(
        campaign,
        crown,
        given_name=given_name,
        adm=adm,
        dip=dip,
        mil=mil,
        no_survival_turns=no_survival_turns,
        reign_turns=reign_turns,
        dynastic_name=dynastic_name,
        replace=replace,
        sex=sex,
        numbered=numbered,
    )


@transaction.atomic
def monarch_ransom(*, campaign: Campaign | int, crown: Crown | str, major: bool | None = None, by: Actor) -> Character:
    """Ransom a crown's captured monarch: a major power pays 200 ducats and loses 2 Stability, a
    minor 50 ducats (the tables). ``major`` defaults to whether a player's house holds the crown.
    The ducats are posted to the ledger (kind ``ransom``) from the crown's house (the Treasury for a
    crown with none) to its captor's (the Treasury when the neutrals hold him), with a line each side
    reads."""
    campaign = _locked(campaign, by)
    return step_of(campaign, "monarchs").ransom(campaign, crown, major=major)


@transaction.atomic
def monarch_military_skill(
    *,
    campaign: Campaign | int,
    crown: Crown | str,
    faces: Mapping[str, Sequence[int]] | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> dict[str, int]:
    """The monarch as a leader (the optional table): 1d10 on his MIL row for the average value, then
    1d10 (+ the country's die bonus) for each of manoeuvre, fire and shock, and for siege when the
    average is starred. Typed ``faces`` name each roll: ``average``, ``manoeuvre``, ``fire``,
    ``shock``, ``siege``. Kept in the crown's state as ``leader``."""
    campaign = _locked(campaign, by)
    return step_of(campaign, "monarchs").military_skill(campaign, crown, faces=faces, source=source, by=by)
