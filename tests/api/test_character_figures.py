"""Issue 31: a character's detail gives his figure in battle, term by term with the rules (``combat``),
and every lasting modifier on him (``modifiers``); the list stays as lean as it was. The schema says so."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Dynasty, Modifier, ModifierKind, PassOverKind
from dynasties.services import campaign_create
from dynasties.services.bloodline_titles import bloodline_title_grant
from rules.dice import RandomSource
from tests.api.conftest import url
from tests.factories import person, wed
from tests.test_figures import governor, king_of, queen_of, usurped  # noqa: F401  (fixtures)


def detail(client, campaign, character) -> dict:
    response = client.get(url(campaign, "characters", character.pk))
    assert response.status_code == 200, response.content[:500]
    return response.json()


def terms(combat: dict) -> list[tuple[str, int, int]]:
    return [(t["key"], t["value"], t["given"]) for t in combat["terms"]]


@pytest.mark.django_db
def test_a_kings_detail_gives_his_strength_with_his_wifes_guile_held(campaign, alice, client_for):
    king = king_of(campaign, "England")
    queen = queen_of(king)
    queen.characteristics = {**queen.characteristics, "guile": 4}
    queen.save()
    body = detail(client_for(alice), campaign, king)
    combat = body["combat"]
    assert combat["leads"] is True and combat["measure"] == "strength" and combat["total"] == 2
    assert combat["role"] == "King of England (the King piece)" and combat["note"] == ""
    assert terms(combat) == [("strength", 0, 0), ("wife", 2, 4)]
    wife = combat["terms"][1]
    assert wife["held"] is True and wife["label"] == "his wife Mary Tudor's Guile"
    assert "the excess is ignored" in wife["rule"]
    assert body["modifiers"] == []
    queen_body = detail(client_for(alice), campaign, queen)
    assert queen_body["combat"]["leads"] is False and queen_body["combat"]["total"] is None
    assert queen_body["combat"]["note"].startswith("Women lead no army in Blood Royale")


@pytest.mark.django_db
def test_the_usurpers_and_the_rivals_details(campaign, usurped, bob, client_for):  # noqa: F811
    captive, second = usurped
    client = client_for(bob)  # France's player reads England's King: the family record is public
    body = detail(client, campaign, second)
    assert body["combat"]["total"] == 0 and terms(body["combat"]) == [("strength", 1, 1), ("usurper", -1, -1)]
    kinds = {m["kind"]: m for m in body["modifiers"]}
    assert set(kinds) == {ModifierKind.USURPER_STRENGTH, ModifierKind.CHARISMA_LOSS}
    usurper = kinds[ModifierKind.USURPER_STRENGTH]
    assert usurper["what"] == "-1 Strength" and usurper["applies"] == "the men of the house of Plantagenet"
    assert usurper["claimant"]["id"] == captive.pk and usurper["claimant"]["url"].endswith(f"/characters/{captive.pk}/")
    assert usurper["active"] is True and usurper["end_year"] is None and usurper["since"] == 1300
    assert usurper["until"].startswith("while Captive Plantagenet's claim lives")
    assert kinds[ModifierKind.CHARISMA_LOSS]["value"] == -2
    france = detail(client, campaign, king_of(campaign, "France"))
    (case,) = france["combat"]["cases"]
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    assert case["when"] == "against the house of Plantagenet" and case["total"] == 1
    assert [(t["key"], t["value"]) for t in case["terms"]] == [("rival", 1)]
    rival = next(m for m in france["modifiers"] if m["kind"] == ModifierKind.RIVAL_STRENGTH)
    assert rival["against"] == england.pk
    held = detail(client, campaign, captive)["combat"]
    assert held["leads"] is False and held["note"] == "A prisoner of the house of Anjou: leads no army while held."


@pytest.mark.django_db
def test_a_governors_detail(campaign, governor, gm, client_for):  # noqa: F811
    body = detail(client_for(gm), campaign, governor)
    assert body["combat"]["total"] == 3
    assert terms(body["combat"]) == [("strength", 2, 2), ("governor", 1, 1), ("wife", 0, 1)]
    assert body["combat"]["terms"][1]["why"] == "Lionel Plantagenet, Duke of Clarence"
    assert [m["what"] for m in body["modifiers"]] == ["+1 Strength"]


@pytest.mark.django_db
def test_a_bloodline_leader_with_a_title(db, gm, client_for):
    europa = campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4), by=gm)
    england = Dynasty.objects.get(campaign=europa, crown="England")
    heir = Character.objects.get(campaign=europa, given_name="John", controlled_by=england)
    bloodline_title_grant(
        campaign=europa,
        giver=england,
        character=heir,
        name="Duke of York",
        provinces=[{"name": "York", "value": 3}],
        by=SYSTEM_ACTOR,
    )
    Modifier.objects.create(
        campaign=europa,
        kind=ModifierKind.COMBAT_MALUS,
        value=-1,
        crown="England",
        dynasty=england,
        claimant=Character.objects.get(campaign=europa, given_name="Elizabeth", controlled_by=england),
        pass_over=PassOverKind.MARRIED_AWAY,
        reason="Elizabeth passed over (married away)",
        start_year=europa.current_year,
    )
    combat = detail(client_for(gm), europa, heir)["combat"]
    assert combat["measure"] == "battle_rolls" and combat["total"] == -1
    assert combat["role"].startswith("royal leader no. 1 of England")
    (case,) = combat["cases"]
    assert case["when"] == "within his title lands of Duke of York (York)" and case["total"] == 0
    assert case["terms"][0]["key"] == "title" and "within his title lands" in case["terms"][0]["rule"]


@pytest.mark.django_db
def test_the_detail_costs_the_same_whatever_the_family(campaign, usurped, gm, client_for):  # noqa: F811
    _captive, second = usurped
    client = client_for(gm)
    path = url(campaign, "characters", second.pk)
    client.get(path)

    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(path).status_code == 200
        return len(ctx.captured_queries)

    small = count()
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    wife = person(campaign, england, "Wife", "F", 1282, dynastic_name="Other", guile=2)
    wed(campaign, second, wife, 1299)
    for n in range(6):
        person(campaign, england, f"Kid{n}", "MF"[n % 2], 1292 + n, father=second, mother=wife)
        Modifier.objects.create(
            campaign=campaign,
            kind=ModifierKind.USURPER_STRENGTH,
            value=-1,
            crown="England",
            dynasty=england,
            reason="x",
            start_year=1300,
        )
    assert count() == small


def test_the_schema_documents_combat_and_modifiers(tmp_path):
    import yaml

    path = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(path))
    schema = yaml.safe_load(path.read_text())
    components = schema["components"]["schemas"]
    detail_ref = schema["paths"]["/api/v1/campaigns/{slug}/characters/{id}/"]["get"]["responses"]["200"]["content"][
        "application/json"
    ]["schema"]["$ref"]
    assert detail_ref == "#/components/schemas/CharacterDetail"
    props = components["CharacterDetail"]["properties"]
    assert {"combat", "modifiers"} <= set(props)
    assert "combat" not in components["Character"]["properties"]  # the list stays lean
    combat = components["Combat"]["properties"]
    assert {"leads", "role", "note", "measure", "total", "terms", "cases"} <= set(combat)
    assert {"key", "label", "value", "given", "held", "why", "rule"} <= set(components["CombatTerm"]["properties"])
    assert {"what", "applies", "why", "since", "until", "active", "claimant", "against", "rule"} <= set(
        components["Modifier"]["properties"]
    )
