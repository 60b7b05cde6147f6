"""An eu-monarchs campaign with monarchs on its thrones, made with the existing services (issue 32's
grid tests; the set-up from the New campaign page is another part of the issue): France, Poland,
Spain and Turkey are player houses, Venice a Doge's republic nobody plays. Poland has a named
monarch (Báthory, 8/7/9), the others a monarch rolled on typed dice."""

from __future__ import annotations

from typing import Any

from campaign.models import Campaign, Role, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Crown, Reign
from dynasties.services import campaign_create
from dynasties.services.eu_monarchs import monarch_crown_configure, monarch_place_named, monarch_succession_roll
from dynasties.services.setup import DynastySpec
from tests.factories import seat_member

HOUSES = [("Valois", "France"), ("Jagiellon", "Poland"), ("Trastamara", "Spain"), ("Osman", "Turkey")]
CROWNS = ("France", "Poland", "Spain", "Turkey", "Venice")


def faces(succession: int = 5, adm: int = 5, dip: int = 5, mil: int = 5, reign: int = 5, age: int | None = None) -> dict:
    out: dict[str, list[int]] = {"succession": [succession], "adm": [adm], "dip": [dip], "mil": [mil], "reign": [reign]}
    if age is not None:
        out["age"] = [age]
    return out


def eu_campaign(
    gm: Any, players: dict[str, Any] | None = None, name: str = "Europa Grid", reigns: dict | None = None
) -> Campaign:
    """Five crowns with a monarch each, at Births of 1492; ``players`` maps a crown to its player;
    ``reigns`` the typed reign die of a crown's first monarch (5: seven turns)."""
    game = campaign_create(name=name, ruleset="eu-monarchs", dynasties=[DynastySpec(n, c) for n, c in HOUSES], by=gm)
    for crown, user in (players or {}).items():
        house = game.dynasties.get(crown=crown)
        seat_member(campaign=game, user=user, role=Role.PLAYER, dynasty=house)
    monarch_crown_configure(campaign=game, crown="Venice", settings={"doge": True}, by=SYSTEM_ACTOR)
    monarch_place_named(campaign=game, crown="Poland", given_name="Stefan Báthory", adm=8, dip=7, mil=9, by=SYSTEM_ACTOR)
    for crown in ("France", "Spain", "Turkey", "Venice"):
        typed = faces(reign=(reigns or {}).get(crown, 5))
        monarch_succession_roll(campaign=game, crown=crown, faces=typed, by=SYSTEM_ACTOR)
    game.refresh_from_db()
    return game


def to_survival(game: Campaign) -> Campaign:
    game.step = Step.SURVIVAL
    game.save(update_fields=["step"])
    return game


def crown(game: Campaign, name: str) -> Crown:
    return Crown.objects.get(campaign=game, name=name)


def monarch(game: Campaign, name: str):
    reign = Reign.objects.filter(campaign=game, crown=name, end_year__isnull=True).select_related("holder").first()
    return reign.holder if reign else None
