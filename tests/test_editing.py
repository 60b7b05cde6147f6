"""Hand edits (issue 20): the GM edits a character, a house, a match and a contract through the
services (``dynasties.services.editing``, ``contracts.services.editing``) and the Edit pages; a
player is refused, a bad value is refused with a message naming the field, nothing is written on a
refusal, and every edit leaves its line in the audit trail and a GM-only line in the chronicle."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.models import Audience, ChronicleEntry
from campaign.permissions import Forbidden
from contracts.models import Contract, ContractState
from contracts.services import contract_draft
from contracts.services.editing import contract_edit
from dynasties.models import Character, Dynasty, Marriage
from dynasties.services.editing import EditRefused, character_edit, dynasty_edit, marriage_edit
from rules.errors import RuleError
from tests.factories import seat_member


@pytest.fixture
def king(campaign) -> Character:
    return Character.objects.get(campaign=campaign, controlled_by__crown="England", sex="M", birth_year=1275)


@pytest.fixture
def england(campaign) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown="England")


@pytest.fixture
def draft(campaign, gm) -> Contract:
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    return contract_draft(
        campaign=campaign, kind="agreement", title="Peace of Calais", parties=[england, france], text="Peace.", by=gm
    )


def edits(campaign) -> list[ChronicleEntry]:
    return list(ChronicleEntry.objects.filter(campaign=campaign, kind="hand_edit").order_by("pk"))


# The services ------------------------------------------------------------------------------------


def test_the_gm_renames_a_character_and_sets_his_characteristics(campaign, gm, king):
    done = character_edit(
        campaign=campaign,
        character=king,
        changes={"given_name": "Edmund", "characteristics": {"strength": 2, "constitution": "-1", "charisma": 0}},
        by=gm,
    )
    king.refresh_from_db()
    assert king.given_name == "Edmund"
    assert king.characteristics == {"strength": 2, "constitution": -1, "charisma": 0}
    assert "Christian name" in done.message and "-> Edmund" in done.message and "Strength +2" in done.message
    # the audit trail: the historical row says who, and the chronicle a line for the GM alone
    row = king.history.latest("history_date")
    assert (row.given_name, row.history_user) == ("Edmund", gm)
    [line] = edits(campaign)
    assert line.audience == Audience.GM and "Edmund" in line.text and line.data["character"] == king.pk


def test_a_misspelt_characteristic_is_refused_and_nothing_is_written(campaign, gm, king):
    before = dict(king.characteristics)
    with pytest.raises(EditRefused) as caught:
        character_edit(
            campaign=campaign,
            character=king,
            changes={"given_name": "Edmund", "characteristics": {"strenght": 1, "constitution": 0, "charisma": 0}},
            by=gm,
        )
    assert "no characteristic 'strenght'" in caught.value.message and "Give Strength (-2 to +3)" in caught.value.message
    assert set(caught.value.fields) == {"characteristics.strenght", "characteristics.strength"}
    king.refresh_from_db()
    assert (king.given_name, king.characteristics) != ("Edmund", before) and king.characteristics == before
    assert not edits(campaign)


def test_a_characteristic_out_of_its_range_is_refused_with_the_range(campaign, gm, king):
    with pytest.raises(EditRefused, match=r"Charisma must be a whole number from -2 to \+2, not 5"):
        character_edit(
            campaign=campaign,
            character=king,
            changes={"characteristics": {"strength": 0, "constitution": 0, "charisma": 5}},
            by=gm,
        )


def test_a_player_may_not_edit_even_his_own_house(campaign, alice, king, england):
    with pytest.raises(Forbidden):
        character_edit(campaign=campaign, character=king, changes={"given_name": "Edmund"}, by=alice)
    with pytest.raises(Forbidden):
        dynasty_edit(campaign=campaign, dynasty=england, changes={"name": "Lancaster"}, by=alice)
    king.refresh_from_db()
    assert king.given_name != "Edmund"


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("status", "dead", "A death is recorded at the table"),
        ("prisoner_of", None, "capture"),
        ("father", None, "Parents are set by a birth"),
        ("nickname", "the Bold", "'nickname' is not something of a character"),
    ],
)
def test_what_the_rules_own_is_refused_in_words(campaign, gm, king, field, value, says):
    with pytest.raises(EditRefused, match=says) as caught:
        character_edit(campaign=campaign, character=king, changes={field: value}, by=gm)
    assert list(caught.value.fields) == [field]


def test_a_character_edit_that_changes_nothing_writes_nothing(campaign, gm, king):
    done = character_edit(campaign=campaign, character=king, changes={"given_name": king.given_name}, by=gm)
    assert done.changes == () and "nothing changed" in done.message
    assert not edits(campaign)


def test_a_renamed_house_renames_those_born_to_it_under_the_old_name(campaign, gm, england):
    old = england.name
    born = Character.objects.filter(campaign=campaign, birth_dynasty=england, dynastic_name=old).count()
    assert born > 0
    done = dynasty_edit(campaign=campaign, dynasty=england, changes={"name": "Lancaster", "color": "#AA2233"}, by=gm)
    england.refresh_from_db()
    assert (england.name, england.color) == ("Lancaster", "#aa2233")
    assert Character.objects.filter(campaign=campaign, birth_dynasty=england, dynastic_name="Lancaster").count() == born
    assert f"{born} of its people now bear the name Lancaster" in done.message
    assert "Lancaster" in edits(campaign)[0].text


def test_a_house_name_already_taken_or_a_bad_colour_is_refused(campaign, gm, england):
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    with pytest.raises(EditRefused, match=f"Another house of Test Campaign is called {france.name}"):
        dynasty_edit(campaign=campaign, dynasty=england, changes={"name": france.name}, by=gm)
    with pytest.raises(EditRefused, match="A colour is written #rrggbb"):
        dynasty_edit(campaign=campaign, dynasty=england, changes={"color": "red"}, by=gm)
    with pytest.raises(EditRefused, match="crown is its country's name"):
        dynasty_edit(campaign=campaign, dynasty=england, changes={"crown": "Wessex"}, by=gm)


def test_the_gm_corrects_the_year_a_match_was_arranged(campaign, gm, england):
    match = Marriage.objects.get(campaign=campaign, husband__controlled_by=england)
    born = max(match.husband.birth_year, match.wife.birth_year)
    with pytest.raises(EditRefused, match="before both were born"):
        marriage_edit(campaign=campaign, marriage=match, changes={"arranged_year": born - 1}, by=gm)
    with pytest.raises(EditRefused, match="The wedding is the rules'"):
        marriage_edit(campaign=campaign, marriage=match, changes={"wedding_year": 1299}, by=gm)
    year = match.arranged_year - 1  # typed one year late at the table
    assert year >= born
    marriage_edit(campaign=campaign, marriage=match, changes={"arranged_year": year}, by=gm)
    match.refresh_from_db()
    assert match.arranged_year == year
    assert match.history.latest("history_date").history_user == gm


def test_a_drafts_terms_are_edited_and_a_signed_contracts_text_stands(campaign, gm, draft):
    done = contract_edit(
        campaign=campaign, contract=draft, changes={"title": "Treaty of Calais", "text": "Peace for ever."}, by=gm
    )
    draft.refresh_from_db()
    assert (draft.title, draft.text) == ("Treaty of Calais", "Peace for ever.")
    assert "the text rewritten" in done.message
    Contract.objects.filter(pk=draft.pk).update(state=ContractState.SIGNED, signed_year=campaign.current_year)
    with pytest.raises(EditRefused, match="its text and term stand as signed"):
        contract_edit(campaign=campaign, contract=draft, changes={"text": "War."}, by=gm)
    contract_edit(campaign=campaign, contract=draft, changes={"title": "Calais"}, by=gm)
    draft.refresh_from_db()
    assert (draft.title, draft.text) == ("Calais", "Peace for ever.")
    with pytest.raises(EditRefused, match="The state follows from the contract's life"):
        contract_edit(campaign=campaign, contract=draft, changes={"state": "ended"}, by=gm)


def test_a_player_party_to_a_draft_may_not_edit_it(campaign, alice, draft):
    with pytest.raises(Forbidden):
        contract_edit(campaign=campaign, contract=draft, changes={"title": "Mine"}, by=alice)


def test_another_campaigns_row_is_not_found(campaign, gm, king):
    from dynasties.services import campaign_create
    from rules.dice import RandomSource

    other = campaign_create(name="Other", players=5, source=RandomSource(3), by=gm)
    with pytest.raises(RuleError, match=f"There is no character #{king.pk} in Other"):
        character_edit(campaign=other, character=king, changes={"given_name": "X"}, by=gm)


# The Edit pages ----------------------------------------------------------------------------------


def character_form(king: Character, **changes: str) -> dict[str, str]:
    data = {
        "action_key": f"edit-{sum(map(len, changes.values()))}-{len(changes)}",
        "given_name": king.given_name,
        "dynastic_name": king.dynastic_name,
        "legitimate": "on",
        **{f"char_{key}": str(value) for key, value in king.characteristics.items()},
    }
    data.update(changes)
    return data


def test_the_character_page_shows_the_edit_button_to_the_gm_only(client, campaign, gm, alice, king):
    edit = reverse("pages:character_edit", args=[campaign.slug, king.pk])
    page = reverse("pages:character", args=[campaign.slug, king.pk])
    client.force_login(gm)
    assert edit in client.get(page).content.decode()
    client.force_login(alice)
    assert edit not in client.get(page).content.decode()


def test_the_gm_edits_a_character_from_his_page(client, campaign, gm, king):
    client.force_login(gm)
    edit = reverse("pages:character_edit", args=[campaign.slug, king.pk])
    form = client.get(edit)
    assert form.status_code == 200
    html = form.content.decode()
    assert 'name="char_strength"' in html and "Strength" in html and "-2 to +3" in html
    response = client.post(edit, character_form(king, given_name="Edmund", char_charisma="2"), follow=True)
    assert response.redirect_chain[-1][0] == reverse("pages:character", args=[campaign.slug, king.pk])
    assert "Christian name" in response.content.decode() and "Edmund" in response.content.decode()
    king.refresh_from_db()
    assert (king.given_name, king.characteristics["charisma"]) == ("Edmund", 2)
    assert king.history.latest("history_date").history_user == gm
    assert len(edits(campaign)) == 1


def test_a_bad_characteristic_on_the_page_is_refused_with_the_message(client, campaign, gm, king):
    client.force_login(gm)
    before = dict(king.characteristics)
    edit = reverse("pages:character_edit", args=[campaign.slug, king.pk])
    response = client.post(edit, character_form(king, given_name="Edmund", char_constitution="7"))
    assert response.status_code == 400
    assert "Constitution is a whole number from -2 to +2." in response.content.decode()
    king.refresh_from_db()
    assert king.characteristics == before and king.given_name != "Edmund"
    assert not edits(campaign)


def test_a_player_is_refused_and_nothing_is_written(client, campaign, alice, king):
    client.force_login(alice)
    edit = reverse("pages:character_edit", args=[campaign.slug, king.pk])
    page = client.get(edit)
    assert "Only the GM edits by hand." in page.content.decode() and 'name="given_name"' not in page.content.decode()
    assert client.post(edit, character_form(king, given_name="Edmund")).status_code == 403
    king.refresh_from_db()
    assert king.given_name != "Edmund"
    assert not edits(campaign)


def test_an_outsider_gets_404(client, campaign, outsider, king):
    client.force_login(outsider)
    assert client.get(reverse("pages:character_edit", args=[campaign.slug, king.pk])).status_code == 404


def test_the_gm_renames_a_house_from_its_page(client, campaign, gm, england):
    client.force_login(gm)
    edit = reverse("pages:dynasty_edit", args=[campaign.slug, england.pk])
    assert edit in client.get(reverse("pages:dynasty", args=[campaign.slug, england.pk])).content.decode()
    response = client.post(edit, {"action_key": "k1", "name": "Lancaster", "color": england.color})
    assert response.status_code == 302
    assert Dynasty.objects.get(pk=england.pk).name == "Lancaster"


def test_the_gm_edits_a_match_and_a_draft_from_their_pages(client, campaign, gm, england, draft):
    client.force_login(gm)
    match = Marriage.objects.get(campaign=campaign, husband__controlled_by=england)
    edit = reverse("pages:marriage_edit", args=[campaign.slug, match.pk])
    assert edit in client.get(reverse("pages:character", args=[campaign.slug, match.husband_id])).content.decode()
    assert client.post(edit, {"action_key": "k2", "arranged_year": str(match.arranged_year - 1)}).status_code == 302
    assert Marriage.objects.get(pk=match.pk).arranged_year == match.arranged_year - 1
    edit = reverse("pages:contract_edit", args=[campaign.slug, draft.pk])
    assert edit in client.get(reverse("pages:contract", args=[campaign.slug, draft.pk])).content.decode()
    response = client.post(edit, {"action_key": "k3", "title": "Treaty of Calais", "text": "Peace.", "term_years": "10"})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert (draft.title, draft.term_years) == ("Treaty of Calais", 10)


def test_a_contract_edit_page_is_not_found_by_a_house_not_party_to_it(client, campaign, draft, django_user_model):
    from campaign.models import Role

    carol = django_user_model.objects.create_user("carol", password="carol-password-1")
    spain = Dynasty.objects.get(campaign=campaign, crown="Spain")
    seat_member(campaign=campaign, user=carol, role=Role.PLAYER, dynasty=spain)
    client.force_login(carol)
    assert client.get(reverse("pages:contract_edit", args=[campaign.slug, draft.pk])).status_code == 404
