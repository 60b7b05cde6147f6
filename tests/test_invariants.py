"""Invariants once (issue 35): a rule about a row is its model's constraint, carrying its message,
code and field (campaign.invariants); the desk's forms, a service and the import ask that
constraint, and say the same thing."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.forms.models import model_to_dict, modelform_factory

from campaign import invariants
from desk.admin.dynasties import CharacterForm, MarriageForm, ReignAdmin
from dynasties.models import Character, Dynasty, Marriage, Reign, Status, Title, TitleHolding
from dynasties.services.editing import EditRefused, marriage_changes
from operations.exchange import checks
from operations.exchange.values import Item, Reading
from rules.errors import InvalidImport

MODELS = [m for app in ("campaign", "dynasties", "contracts") for m in apps.get_app_config(app).get_models()]


def constraints() -> list[tuple[type[models.Model], models.BaseConstraint]]:
    return [(model, c) for model in MODELS for c in model._meta.constraints]


@pytest.mark.parametrize(("model", "constraint"), constraints(), ids=lambda x: getattr(x, "name", ""))
def test_every_constraint_carries_its_message_code_and_field(model, constraint):
    assert constraint.violation_error_message != constraint.default_violation_error_message
    assert constraint.violation_error_code == constraint.name
    field = invariants.FIELDS[constraint.name]
    assert field in {f.name for f in model._meta.concrete_fields}
    # every value the message names is one of the row's fields
    names = {f.name: f"<{f.name}>" for f in model._meta.concrete_fields}
    text = invariants.message(constraint, names)
    assert "?" not in text
    assert text[0].isupper() or text[0] == "<" or text[0] == "'", text


# The import reads a condition in Python: it agrees with the database's own reading --------------

SAMPLES: dict[str, list[Any]] = {
    "id": [7],
    "sex": ["M", "X"],
    "status": ["alive", "dead", "retired"],
    "death_year": [None, 1300, 1320],
    "birth_year": [1310],
    "birth_order": [0, 1],
    "father": [None, 7, 9],
    "mother": [None, 7, 9],
    "prince_piece": ["", "K", "9"],
    "prisoner_of": [None, 3],
    "held_by_neutrals": [False, True],
    "husband": [4],
    "wife": [4, 5],
    "arranged_year": [1310],
    "wedding_year": [None, 1300, 1310, 1320],
    "ended_year": [None, 1300, 1320],
    "end_cause": ["", "death"],
    "start_year": [1310],
    "end_year": [None, 1300, 1320],
    "holder": [4],
    "regent": [None, 4, 5],
    "interim_for": [None, 4, 5],
}


def check_constraints() -> list[tuple[type[models.Model], models.CheckConstraint]]:
    models_read = (Character, Marriage, Reign, TitleHolding)
    return [(m, c) for m in models_read for c in m._meta.constraints if isinstance(c, models.CheckConstraint)]


@pytest.mark.database  # the database's reading: SQLite's and PostgreSQL's
@pytest.mark.django_db
@pytest.mark.parametrize(("model", "constraint"), check_constraints(), ids=lambda x: getattr(x, "name", ""))
def test_the_imports_reading_of_a_condition_agrees_with_the_database(model, constraint):
    read = sorted(invariants.references(constraint.condition))
    for combination in itertools.product(*(SAMPLES[name] for name in read)):
        values = dict(zip(read, combination, strict=True))
        row = model(**{model._meta.get_field(name).attname: value for name, value in values.items()})
        against = row._get_field_expression_map(meta=model._meta)
        by_database = Q(constraint.condition).check(against)
        assert (invariants.holds(constraint.condition, values) is not False) == by_database, values


# The desk and the import refuse the same row with the same words -----------------------------------


def import_refusal(check: Any, row: dict[str, Any], path: str) -> str:
    with pytest.raises(InvalidImport) as refused:
        check(Item(row, path), row, 0, None)
    return refused.value.message


def character_row(person: Character, **changes: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The desk form's data and the import's row for the character, changed alike."""
    data = model_to_dict(person, fields=CharacterForm._meta.fields)
    data = {k: "" if v is None else v for k, v in data.items()} | {k: "" if v is None else v for k, v in changes.items()}
    row = invariants.values_of(person) | {"characteristics": {}} | changes
    return data, row


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"status": Status.DEAD, "death_year": None}, "death_year", "A dead character needs a year of death."),
        ({"death_year": 1330}, "death_year", "Only a dead character has a year of death (1330; the status is alive)"),
        (
            {"status": Status.DEAD, "death_year": 1200},
            "death_year",
            "The year of death (1200) is before the year of birth (1275).",
        ),
        ({"prisoner_of": "captor", "held_by_neutrals": True}, "held_by_neutrals", "is not held by the neutrals too"),
    ],
    ids=["dead-without-year", "year-without-death", "dies-before-birth", "two-captors"],
)
def test_the_desk_and_the_import_refuse_a_character_alike(campaign, changes, field, words):
    king = Character.objects.get(campaign=campaign, controlled_by__crown="England", sex="M", birth_year=1275)
    if changes.get("prisoner_of") == "captor":
        captor = Dynasty.objects.filter(campaign=campaign).exclude(pk=king.controlled_by_id).first()  # a house, not a person
        changes = {**changes, "prisoner_of": captor.pk}
    data, row = character_row(king, **changes)
    form = CharacterForm(data=data, instance=king)
    assert not form.is_valid()
    assert list(form.errors) == [field]  # beside its field, and nothing else wrong
    (said,) = form.errors[field]
    assert words in said
    assert import_refusal(checks.check_character, row, "characters[0]") == f"characters[0].{field}: {said}"


def test_the_desk_and_the_import_refuse_a_marriage_alike(campaign):
    husband = Character.objects.get(campaign=campaign, controlled_by__crown="England", sex="M", birth_year=1275)
    wife = Character.objects.filter(campaign=campaign, sex="F").first()
    fields = MarriageForm._meta.fields
    base = {"campaign": campaign.pk, "husband": husband.pk, "wife": wife.pk, "arranged_year": 1300, "end_cause": ""}
    cases = [
        ({"wife": husband.pk}, "wife", "A marriage needs two different people."),
        ({"wedding_year": 1299, "ended_year": 1310, "end_cause": "death"}, "wedding_year", "The wedding (1299) cannot come"),
        ({"wedding_year": 1301, "ended_year": 1310}, "end_cause", "Say why the marriage ended"),
    ]
    for changes, field, words in cases:
        data = {name: "" for name in fields} | base | changes
        form = MarriageForm(data=data)
        assert not form.is_valid()
        assert field in form.errors, form.errors
        (said,) = form.errors[field]
        assert words in said
        row = {name: (None if data[name] == "" and name != "end_cause" else data[name]) for name in fields}
        assert import_refusal(checks.check_marriage, row | {"id": 1}, "marriages[0]") == f"marriages[0].{field}: {said}"


def test_the_desk_and_the_import_refuse_a_second_open_match_alike(campaign):
    """One open match per person (marriage_one_open_per_husband): the database's uniqueness, the
    desk's form and the import's check across the document's rows say it in the same words."""
    match = Marriage.objects.filter(campaign=campaign, ended_year__isnull=True).first()
    assert match is not None
    free = (
        Character.objects.filter(campaign=campaign, sex="F")
        .exclude(marriages_as_wife__ended_year__isnull=True, marriages_as_wife__isnull=False)
        .first()
    )
    assert free is not None
    data = {name: "" for name in MarriageForm._meta.fields} | {
        "campaign": campaign.pk,
        "husband": match.husband_id,
        "wife": free.pk,
        "arranged_year": campaign.current_year,
        "end_cause": "",
    }
    form = MarriageForm(data=data)
    assert not form.is_valid()
    assert list(form.errors) == ["husband"], form.errors
    (said,) = form.errors["husband"]
    assert said == "The husband already has a marriage or betrothal that has not ended; end it first."
    ctx = Reading(data={}, old=False, current=True)
    first = invariants.values_of(match) | {"id": 1}
    second = first | {"id": 2, "wife": free.pk, "wedding_year": None}
    checks.check_marriage(Item(first, "marriages[0]"), first, 0, ctx)
    with pytest.raises(InvalidImport) as refused:
        checks.check_marriage(Item(second, "marriages[1]"), second, 1, ctx)
    assert refused.value.message == f"marriages[1].husband: {said} (the other: marriages[0])"


def test_the_desk_and_the_import_refuse_an_interim_reign_for_its_own_holder_alike(campaign):
    reign = Reign.objects.filter(campaign=campaign).first()
    assert reign is not None
    form_class = modelform_factory(Reign, form=ReignAdmin.form, fields="__all__")  # the desk's: every field, a ModelForm
    data = {k: "" if v is None else v for k, v in model_to_dict(reign).items()} | {"interim_for": reign.holder_id}
    form = form_class(data=data, instance=reign)
    assert not form.is_valid()
    assert list(form.errors) == ["interim_for"], form.errors
    (said,) = form.errors["interim_for"]
    assert said == "A monarch cannot reign in the interim for themselves."
    row = invariants.values_of(reign) | {"interim_for": reign.holder_id}
    assert import_refusal(checks.check_reign, row, "reigns[0]") == f"reigns[0].interim_for: {said}"
    with pytest.raises(IntegrityError), transaction.atomic():  # and the database, whoever writes
        Reign.objects.filter(pk=reign.pk).update(interim_for=reign.holder_id)


def test_a_title_holding_that_ends_before_it_began_is_refused_alike(campaign):
    """The desk shows holdings read-only: a service's ``full_clean`` and the import say it."""
    prince = Character.objects.filter(campaign=campaign, sex="M").first()
    assert prince is not None
    title = Title.objects.create(
        campaign=campaign, name="Duke of Somewhere", province="Somewhere", crown="England", granted_year=1300, granted_to=prince
    )
    holding = TitleHolding(title=title, holder=prince, start_year=1300, end_year=1299, how="granted")
    with pytest.raises(ValidationError) as refused:
        holding.full_clean()
    assert list(refused.value.message_dict) == ["end_year"]
    (said,) = refused.value.message_dict["end_year"]
    assert said == "The title's holding cannot end (1299) before it began (1300)."
    row = invariants.values_of(holding)
    assert import_refusal(checks.check_holding, row, "title_holdings[0]") == f"title_holdings[0].end_year: {said}"
    with pytest.raises(IntegrityError), transaction.atomic():
        holding.save()


def test_the_hand_edit_of_a_match_asks_the_same_constraint(campaign):
    match = Marriage.objects.filter(campaign=campaign, wedding_year__isnull=False).first()
    assert match is not None
    with pytest.raises(EditRefused) as refused:
        marriage_changes(campaign, match, {"arranged_year": match.wedding_year + 1})
    assert refused.value.message == (
        f"The wedding ({match.wedding_year}) cannot come before the match was arranged ({match.wedding_year + 1})."
    )


def test_a_condition_the_import_cannot_read_is_refused_loudly():
    with pytest.raises(ValueError, match="is not evaluated in Python"):
        invariants.holds(Q(name__startswith="A"), {"name": "Anne"})


def test_a_message_names_an_empty_value_none():
    (rule,) = [c for c in Character._meta.constraints if c.name == "character_dies_after_birth"]
    assert invariants.message(rule, {"death_year": None, "birth_year": 1300}) == (
        "The year of death (none) is before the year of birth (1300)."
    )
