"""The read resources: family links, filters, ``?year=`` snapshots and pagination."""

from __future__ import annotations

import pytest

from campaign.models import Roll, RollSource
from contracts.models import Breach, Clause, Contract, Dispute, DisputeVote, Parley, ParleyVote
from dynasties.models import Character, Dynasty, Marriage, Reign, RollSubject, Title, TitleHolding
from tests.api.conftest import url
from tests.factories import crown, person, wed


def ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


@pytest.fixture
def family(campaign):
    """Old Henry (1250-1299) and Maud; their son Hugh (1275-1305) wed to Alys, betrothed later to
    nobody; Hugh's children Ralph (1300) and Joan (1310)."""
    house = Dynasty.objects.get(campaign=campaign, crown="England")
    henry = person(campaign, house, "Henry", "M", 1250, dynastic_name="Oldhouse")
    Character.objects.filter(pk=henry.pk).update(status="dead", death_year=1299)
    maud = person(campaign, house, "Maud", "F", 1255, dynastic_name="Oldhouse")
    hugh = person(campaign, house, "Hugh", "M", 1275, father=henry, mother=maud, dynastic_name="Oldhouse")
    Character.objects.filter(pk=hugh.pk).update(status="dead", death_year=1305)
    alys = person(campaign, house, "Alys", "F", 1280, dynastic_name="Oldhouse")
    first = wed(campaign, hugh, alys, 1298)
    Marriage.objects.filter(pk=first.pk).update(ended_year=1305, end_cause="Hugh died")
    ralph = person(campaign, house, "Ralph", "M", 1300, father=hugh, mother=alys, dynastic_name="Oldhouse")
    joan = person(campaign, house, "Joan", "F", 1310, father=hugh, mother=alys, dynastic_name="Oldhouse", order=1)
    bride = person(campaign, None, "Isabel", "F", 1302, dynastic_name="Nobody")
    betrothal = Marriage.objects.create(campaign=campaign, husband=ralph, wife=bride, arranged_year=1315)
    return {
        "henry": henry,
        "maud": maud,
        "hugh": hugh,
        "alys": alys,
        "ralph": ralph,
        "joan": joan,
        "bride": bride,
        "first": first,
        "betrothal": betrothal,
        "house": house,
    }


@pytest.mark.django_db
def test_a_character_has_its_family_as_links(campaign, gm, family, client_for):
    body = client_for(gm).get(url(campaign, "characters", family["hugh"].pk)).json()
    base = f"http://testserver/api/v1/campaigns/{campaign.slug}/characters/"
    assert body["father"] == {"id": family["henry"].pk, "url": f"{base}{family['henry'].pk}/"}
    assert body["mother"]["id"] == family["maud"].pk
    assert [c["id"] for c in body["children"]] == [family["ralph"].pk, family["joan"].pk]
    assert body["children"][0]["url"] == f"{base}{family['ralph'].pk}/"
    (spouse,) = body["spouses"]
    assert spouse["id"] == family["alys"].pk and spouse["state"] == "ended" and spouse["marriage"]["id"] == family["first"].pk
    ralph = client_for(gm).get(url(campaign, "characters", family["ralph"].pk)).json()
    assert ralph["spouses"][0]["state"] == "betrothed" and ralph["children"] == []
    assert client_for(gm).get(body["father"]["url"]).json()["given_name"] == "Henry"  # the link works


@pytest.mark.django_db
def test_the_hand_written_character_matches_its_documented_fields(campaign, gm, family, client_for):
    from api.views.families import CharacterDetailOut, CharacterOut

    documented = set(CharacterOut().fields)
    for row in client_for(gm).get(url(campaign, "characters"), {"page_size": 100}).json()["results"]:
        assert set(row) == documented
    detail = client_for(gm).get(url(campaign, "characters", family["joan"].pk)).json()
    # the detail adds his figure in battle and his lasting modifiers (issue 31)
    assert set(detail) == set(CharacterDetailOut().fields) == documented | {"combat", "modifiers"}
    assert detail["display_name"] == "Joan Oldhouse"


@pytest.mark.django_db
def test_year_snapshot_of_characters_is_who_was_alive(campaign, gm, family, client_for):
    client = client_for(gm)
    alive_1305 = set(
        ids(client.get(url(campaign, "characters"), {"year": 1305, "dynasty": family["house"].pk, "page_size": 100}))
    )
    assert family["hugh"].pk in alive_1305  # died in 1305: alive that year
    assert family["ralph"].pk in alive_1305 and family["maud"].pk in alive_1305
    assert family["henry"].pk not in alive_1305  # dead in 1299
    assert family["joan"].pk not in alive_1305  # born 1310
    alive_1299 = set(ids(client.get(url(campaign, "characters"), {"year": 1299, "page_size": 100})))
    assert family["henry"].pk in alive_1299 and family["ralph"].pk not in alive_1299


@pytest.mark.django_db
def test_character_filters(campaign, gm, family, client_for):
    client = client_for(gm)
    get = lambda **q: set(ids(client.get(url(campaign, "characters"), {"page_size": 100, **q})))  # noqa: E731
    assert get(father=family["hugh"].pk) == {family["ralph"].pk, family["joan"].pk}
    assert get(mother=family["alys"].pk, sex="F") == {family["joan"].pk}
    assert get(name="oldhou", status="dead") == {family["henry"].pk, family["hugh"].pk}
    assert family["bride"].pk not in get(dynasty=family["house"].pk)
    assert get(birth_dynasty=family["house"].pk) >= {family["henry"].pk, family["joan"].pk}


@pytest.mark.django_db
def test_marriages_by_state_year_character_and_dynasty(campaign, gm, family, client_for):
    client = client_for(gm)
    get = lambda **q: set(ids(client.get(url(campaign, "marriages"), {"page_size": 100, **q})))  # noqa: E731
    assert get(state="betrothed") == {family["betrothal"].pk}
    assert family["first"].pk in get(state="ended")
    wed_now = get(state="wed")
    assert wed_now and family["first"].pk not in wed_now and family["betrothal"].pk not in wed_now
    assert get(character=family["ralph"].pk) == {family["betrothal"].pk}
    assert family["first"].pk in get(year=1300) and family["first"].pk not in get(year=1306)
    assert family["betrothal"].pk in get(dynasty=family["house"].pk)
    row = client.get(url(campaign, "marriages", family["betrothal"].pk)).json()
    assert row["state"] == "betrothed" and row["husband"]["id"] == family["ralph"].pk


@pytest.mark.django_db
def test_reigns_year_snapshot_and_filters(campaign, gm, family, client_for):
    old = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    Reign.objects.filter(pk=old.pk).update(start_year=1290)
    new = crown(campaign, family["ralph"], "England", 1320)
    client = client_for(gm)
    get = lambda **q: set(ids(client.get(url(campaign, "reigns"), q)))  # noqa: E731
    assert get(crown="England", year=1300) == {old.pk}
    assert get(crown="England", year=1320) == {old.pk, new.pk}  # the old reign ended that year
    assert get(crown="England", year=1330) == {new.pk}
    assert get(crown="England", year=1280) == set()
    assert get(crown="England", current=True) == {new.pk}
    assert get(holder=family["ralph"].pk) == {new.pk}
    # the regnal number written at the crowning (issue 19); a reign made by hand has none
    Reign.objects.filter(pk=old.pk).update(numeral=3)
    numerals = {r["id"]: r["numeral"] for r in client.get(url(campaign, "reigns"), {"crown": "England"}).json()["results"]}
    assert numerals == {old.pk: 3, new.pk: None}


@pytest.mark.django_db
def test_titles_with_their_holdings(campaign, gm, family, client_for):
    title = Title.objects.create(
        campaign=campaign,
        name="Duke of Kent",
        province="Kent",
        crown="England",
        holder=family["ralph"],
        granted_year=1300,
        granted_to=family["hugh"],
    )
    TitleHolding.objects.create(title=title, holder=family["hugh"], start_year=1300, end_year=1305, how="granted")
    TitleHolding.objects.create(title=title, holder=family["ralph"], start_year=1305, how="inherited")
    client = client_for(gm)
    body = client.get(url(campaign, "titles", title.pk)).json()
    assert body["holder"]["id"] == family["ralph"].pk and body["granted_to"]["id"] == family["hugh"].pk
    assert [h["how"] for h in body["holdings"]] == ["granted", "inherited"]
    assert ids(client.get(url(campaign, "titles"), {"holder": family["ralph"].pk})) == [title.pk]
    assert ids(client.get(url(campaign, "titles"), {"crown": "France"})) == []


@pytest.mark.django_db
def test_rolls_filters(campaign, gm, family, client_for):
    before = Roll.objects.filter(campaign=campaign).count()
    roll = Roll.objects.create(
        campaign=campaign,
        year=1305,
        step="survival",
        purpose="survival",
        dice="2d6",
        faces=[6, 5],
        modifier=-1,
        target=7,
        outcome="survives",
        source=RollSource.ENTERED,
        entered_by=gm,
    )
    RollSubject.objects.create(roll=roll, character=family["ralph"], position=0)
    client = client_for(gm)
    get = lambda **q: ids(client.get(url(campaign, "rolls"), {"page_size": 100, **q}))  # noqa: E731
    assert get(year=1305) == [roll.pk]
    assert get(step="survival", purpose="survival", source="entered") == [roll.pk]
    assert get(character=family["ralph"].pk) == [roll.pk]
    assert roll.pk in get(dynasty=family["house"].pk)
    assert len(get(source="server")) == before
    body = client.get(url(campaign, "rolls", roll.pk)).json()
    assert body["total"] == 10 and body["entered_by"] == "gm" and body["characters"][0]["id"] == family["ralph"].pk


@pytest.mark.django_db
def test_contracts_with_clauses_breaches_parleys_and_votes(campaign, gm, alice, client_for):
    england, france, spain = (Dynasty.objects.get(campaign=campaign, crown=c) for c in ("England", "France", "Spain"))
    contract = Contract.objects.create(campaign=campaign, kind="treaty", title="Peace", start_year=1300, state="draft")
    contract.parties.set([england, france])
    clause = Clause.objects.create(contract=contract, position=1, kind="non_aggression", text="No war")
    breach = Breach.objects.create(
        campaign=campaign, contract=contract, clause=clause, by_dynasty=france, raised_by=england, year=1300, text="French raid"
    )
    parley = Parley.objects.create(
        campaign=campaign,
        year=1300,
        step="interphase",
        kind="breach",
        subject="The raid",
        caller=england,
        breach=breach,
        votes_for=9,
        votes_against=4,
        carried=True,
        outcome="Upheld",
    )
    ParleyVote.objects.create(parley=parley, dynasty=spain, stature=9, christian=True, votes=9, choice="for", position=1)
    dispute = Dispute.objects.create(campaign=campaign, breach=breach, year=1300, voters=[spain.pk])
    DisputeVote.objects.create(dispute=dispute, dynasty=spain, clause=clause, upholds=True)
    other = Contract.objects.create(
        campaign=campaign,
        kind="agreement",
        title="Other",
        start_year=1305,
        state="in_force",
        signed_year=1305,
        in_force_year=1305,
    )
    other.parties.set([france, spain])
    client = client_for(gm)
    body = client.get(url(campaign, "contracts", contract.pk)).json()
    assert body["parties"] == sorted([england.pk, france.pk])
    assert body["clauses"][0]["kind"] == "non_aggression"
    (b,) = body["breaches"]
    assert b["by_dynasty"] == france.pk and b["parley"]["votes"][0]["dynasty"] == spain.pk
    assert b["dispute"]["votes"] == [{"dynasty": spain.pk, "clause": clause.pk, "upholds": True}]
    assert ids(client.get(url(campaign, "contracts"), {"party": england.pk})) == [contract.pk]
    assert ids(client.get(url(campaign, "contracts"), {"state": "in_force"})) == [other.pk]
    assert ids(client.get(url(campaign, "contracts"), {"kind": "treaty", "year": 1300})) == [contract.pk]
    assert ids(client_for(alice).get(url(campaign, "contracts"))) == [contract.pk]  # only England's
    assert ids(client_for(alice).get(url(campaign, "contracts"), {"party": spain.pk})) == []


@pytest.mark.django_db
def test_ledger_and_chronicle_filters(campaign, gm, client_for):
    from campaign.models import ChronicleEntry
    from dynasties import treasury

    england, france = (Dynasty.objects.get(campaign=campaign, crown=c) for c in ("England", "France"))
    tax = treasury.post(campaign, payer=None, payee=england, amount=10, kind="tax", reason="Taxes")
    gift = treasury.post(campaign, payer=england, payee=france, amount=3, kind="transfer", reason="A gift")
    client = client_for(gm)
    assert ids(client.get(url(campaign, "ledger"), {"dynasty": france.pk})) == [gift.pk]
    assert ids(client.get(url(campaign, "ledger"), {"dynasty": england.pk})) == [tax.pk, gift.pk]
    assert ids(client.get(url(campaign, "ledger"), {"kind": "tax", "year": 1300})) == [tax.pk]
    line = ChronicleEntry.objects.create(
        campaign=campaign, year=1305, step="survival", kind="death", text="He died", data={"character": 1}, audience="public"
    )
    assert ids(client.get(url(campaign, "chronicle"), {"year": 1305})) == [line.pk]
    assert ids(client.get(url(campaign, "chronicle"), {"kind": "death", "character": 1})) == [line.pk]


@pytest.mark.django_db
def test_campaigns_memberships_and_dynasties(campaign, gm, alice, client_for):
    mine = client_for(alice).get("/api/v1/campaigns/").json()["results"]
    assert [(c["slug"], c["role"]) for c in mine] == [(campaign.slug, "player")]
    detail = client_for(alice).get(url(campaign)).json()
    assert (detail["current_year"], detail["step"], detail["turn_number"]) == (1300, "births", 1)
    assert detail["links"]["characters"].endswith(f"/api/v1/campaigns/{campaign.slug}/characters/")
    members = client_for(alice).get(url(campaign, "memberships"), {"role": "player"}).json()["results"]
    assert sorted(m["username"] for m in members) == ["alice", "bob"]
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    assert client_for(alice).get(url(campaign, "dynasties", england.pk)).json()["crown"] == "England"
    assert len(ids(client_for(alice).get(url(campaign, "dynasties"), {"kind": "player"}))) == 5


@pytest.mark.django_db
def test_a_superuser_is_gm_everywhere(campaign, django_user_model, client_for):
    root = django_user_model.objects.create_superuser("root", password="root-password-1")
    rows = client_for(root).get("/api/v1/campaigns/").json()["results"]
    assert [(r["slug"], r["role"], r["dynasty"]) for r in rows] == [(campaign.slug, "gm", None)]


@pytest.mark.django_db
def test_pagination_page_size_is_capped_at_100(campaign, gm, client_for):
    Character.objects.bulk_create(
        Character(campaign=campaign, given_name=f"C{i}", sex="M", birth_year=1290, dynastic_name="Bulk") for i in range(130)
    )
    client = client_for(gm)
    body = client.get(url(campaign, "characters"), {"page_size": 500}).json()
    assert len(body["results"]) == 100 and body["count"] == Character.objects.filter(campaign=campaign).count()
    assert len(client.get(url(campaign, "characters")).json()["results"]) == 20
    assert client.get(body["next"]).json()["previous"] is not None
