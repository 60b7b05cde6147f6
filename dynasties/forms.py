"""The forms of a hand edit (issue 20), shared by the admin and the Edit pages: one whole-number
field per characteristic, named by the campaign's ruleset with its range, and the service's own
check (``dynasties.services.editing``) placing its refusals on the fields."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django import forms

from campaign.models import Campaign
from dynasties.models import Character
from dynasties.services.editing import character_changes, dynasty_changes, marriage_changes, reigned
from rules.characteristics import characteristics_of
from rules.errors import RuleError

PREFIX = "char_"  # a characteristic's field: char_strength, char_adm ...


def characteristic_fields(campaign: Campaign, sex: str, character: Character | None = None) -> dict[str, forms.IntegerField]:
    """One field per characteristic of this ruleset and sex, its label and range from the rules: for
    ``character``, the range the rules allow him (a monarch's Charisma has no floor; the value he
    holds already is always accepted: ``rules.characteristics.allows``)."""
    monarch = character is not None and reigned(character)
    current = (character.characteristics or {}) if character is not None else {}
    fields: dict[str, forms.IntegerField] = {}
    for spec in characteristics_of(campaign.rules, sex):
        held = current.get(spec.key)
        held = held if isinstance(held, int) and not isinstance(held, bool) else None
        low: int | None = None if monarch and spec.monarch_below else min(spec.low, held if held is not None else spec.low)
        high = max(spec.high, held if held is not None else spec.high)
        shown = spec.range_text if low is not None else f"up to {high:+d}"
        message = f"{spec.label} is a whole number from {shown}."
        if low is None:
            message = f"{spec.label} is a whole number up to {high:+d} (a monarch's: {spec.monarch_below})."
        attrs: dict[str, Any] = {"max": high, "inputmode": "numeric", "class": "characteristic"}
        if low is not None:
            attrs["min"] = low
        fields[PREFIX + spec.key] = forms.IntegerField(
            label=spec.label,
            min_value=low,
            max_value=high,
            help_text=shown + (f" ({spec.note})" if spec.note else ""),
            error_messages={"min_value": message, "max_value": message, "invalid": message, "required": message},
            widget=forms.NumberInput(attrs=attrs),
        )
    return fields


def characteristic_initial(values: Mapping[str, Any]) -> dict[str, Any]:
    return {PREFIX + key: value for key, value in (values or {}).items()}


def characteristics_changed(form: forms.BaseForm, before: Mapping[str, Any]) -> dict[str, int] | None:
    """The characteristics typed, if any differs from ``before`` (else None: nothing to change)."""
    typed = {name[len(PREFIX) :]: form.cleaned_data.get(name) for name in form.fields if name.startswith(PREFIX)}
    if not typed or typed == dict(before or {}):
        return None
    return typed  # type: ignore[return-value]


def place_refusal(form: forms.BaseForm, exc: RuleError) -> None:
    """The service's refusal on the fields it names (``characteristics.<key>``: that field), the
    rest above the form."""
    placed = False
    for name, text in exc.fields.items():
        field = PREFIX + name.split(".", 1)[1] if name.startswith("characteristics.") else name
        if field in form.fields and not form.has_error(field):
            form.add_error(field, text)
            placed = True
    if not placed or any(
        (PREFIX + n.split(".", 1)[1] if n.startswith("characteristics.") else n) not in form.fields for n in exc.fields
    ):
        form.add_error(None, exc.message)


def check(form: forms.BaseForm, changes: Mapping[str, Any], checker: Callable[[Mapping[str, Any]], Any]) -> None:
    """Run the service's check on the changes; its refusal goes on the form."""
    if not changes or form.errors:
        return
    try:
        checker(changes)
    except RuleError as exc:
        place_refusal(form, exc)


class HandEditForm(forms.Form):
    """A page's hand edit: ``fields`` of the record, compared with the record to find the changes."""

    editable: tuple[str, ...] = ()

    def __init__(self, *args: Any, record: Any, campaign: Campaign, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {name: getattr(record, name) for name in self.editable})
        super().__init__(*args, **kwargs)
        self.record, self.campaign = record, campaign

    def changes(self) -> dict[str, Any]:
        return {
            name: self.cleaned_data[name]
            for name in self.editable
            if name in self.cleaned_data and self.cleaned_data[name] != getattr(self.record, name)
        }

    # The service's own check of the changes (the edit service runs it again): (campaign, record,
    # changes) -> anything; a refusal is a RuleError, put on the form. Each form names its service's.
    check_changes: Callable[[Campaign, Any, Mapping[str, Any]], Any]

    def clean(self) -> dict[str, Any]:
        super().clean()
        check(self, self.changes(), lambda changes: type(self).check_changes(self.campaign, self.record, changes))
        return self.cleaned_data


class CharacterEditForm(HandEditForm):
    editable = ("given_name", "dynastic_name", "legitimate")
    given_name = forms.CharField(label="Christian name", max_length=60)
    dynastic_name = forms.CharField(label="Dynastic name", max_length=80)
    legitimate = forms.BooleanField(label="Legitimate", required=False, help_text="Unticked: a bastard.")

    def __init__(self, *args: Any, record: Any, campaign: Campaign, **kwargs: Any) -> None:
        kwargs.setdefault(
            "initial",
            {**{n: getattr(record, n) for n in self.editable}, **characteristic_initial(record.characteristics)},
        )
        super().__init__(*args, record=record, campaign=campaign, **kwargs)
        self.fields.update(characteristic_fields(campaign, record.sex, record))

    def changes(self) -> dict[str, Any]:
        out = super().changes()
        values = characteristics_changed(self, self.record.characteristics)
        if values is not None:
            out["characteristics"] = values
        return out

    check_changes = staticmethod(character_changes)


class DynastyEditForm(HandEditForm):
    editable = ("name", "color")
    name = forms.CharField(label="Dynastic name", max_length=80)
    color = forms.CharField(label="Colour", max_length=7, help_text="#rrggbb", widget=forms.TextInput(attrs={"type": "color"}))

    check_changes = staticmethod(dynasty_changes)


class MarriageEditForm(HandEditForm):
    editable = ("arranged_year",)
    arranged_year = forms.IntegerField(label="Arranged in", help_text="The year the match was arranged.")

    check_changes = staticmethod(marriage_changes)
