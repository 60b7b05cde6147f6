"""Pages: the EU set-up part of the New campaign form (issue 32).

For an ``eu-monarchs`` campaign the form lists the countries of the shipped countries table (the
majors, then the minors), five majors ticked; each row shows the country's base column and special
rules, its own settings (Poland's era, the event that moves France's and Russia's column, Spain's
dynastic alliances, Venice's Doges) and how its first monarch is found: rolled, a historical monarch
of the aid (the named monarchs' table) or typed by the GM. The form checks what it can beside each
field; ``dynasties.services.eu_setup`` checks it all again and its refusals come back beside the
field they name (``"<country>:<what>"``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django import forms

from dynasties.services.eu_monarchs import tables_play
from dynasties.services.eu_setup import FIRST_WAYS, HISTORICAL, MAX_FIRST_TURN, ROLL, TYPED, EuCountry
from rules.names import EU_CROWNS

PLAY = tables_play()  # the play whose monarchs roll on the tables (registered before the pages load)
TABLES = PLAY.default_tables()  # a campaign not made yet reads the shipped tables (its GM edits its own copy later)
MAJORS, MINORS = (sorted(rows, key=lambda r: str(r["country"])) for rows in PLAY.setup_countries(TABLES))
TICKED = set(EU_CROWNS[:5])  # the five majors a new campaign starts with, as before
LOW, HIGH = PLAY.value_range()


def key(country: str) -> str:
    return "eu_" + re.sub(r"\W+", "_", country.casefold()).strip("_")


def majors() -> list[str]:
    return [str(r["country"]) for r in MAJORS]


def _named(country: str) -> list[Mapping[str, Any]]:
    return PLAY.named_monarchs(TABLES, country)


def _named_label(m: Mapping[str, Any]) -> str:
    values = m.get("values")
    shown = "/".join(str(values[k]) for k in PLAY.characteristics()) if values else "values rolled"
    return f"{m['name']} ({shown}; {m['condition']})"


class NamedSelect(forms.Select):
    """The historical monarchs; an option whose values the aid fixes is marked ``data-fixed`` (the
    page then hides the value fields: CSS ``:has(option[data-fixed]:checked)``)."""

    fixed: set[str]

    def create_option(self, name: str, value: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(name, value, *args, **kwargs)
        if str(value) in self.fixed:
            option["attrs"]["data-fixed"] = ""
        return option


def specials(row: Mapping[str, Any]) -> str:
    """What the table makes of a country: its base column and special rules, in a few words."""
    parts = [f"column {row['column']}"]
    if "until" in row:
        parts[0] += f" ({row['then']} after {row['until']})"
    if row.get("habsburg"):
        parts.append("Habsburg endogamy by period and dynastic alliances")
    if row.get("turkey"):
        parts.append("the Turkish survival column (Pasha, revolts), +1 to survival if MIL below 7")
    if row.get("doge"):
        parts.append("Doges: +1 to each value die, minimum 4, reign −2, no Dynastic Crisis")
    if row["country"] == "Poland":
        parts.append("elective kings; −2 to the crisis and reign rolls in its eras")
    bonus = row.get("leader_die_bonus")
    if bonus:
        parts.append("as a leader +1 to " + " and ".join(sorted(bonus)))
    return "; ".join(parts)


def add_fields(form: forms.Form) -> None:
    """The EU set-up's fields, added to the New campaign form."""
    f = form.fields
    f["eu_first_turn"] = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_FIRST_TURN,
        initial=1,
        label="Starting EU turn",
        help_text="Periods: "
        + ", ".join(f"{p['name']} from turn {p['first_turn']}" for p in PLAY.period_rows(TABLES))
        + ". Turn 1 is 1492; the start year follows the turn unless you type one.",
    )
    for row in (*MAJORS, *MINORS):
        country = str(row["country"])
        k = key(country)
        f[k] = forms.BooleanField(required=False, initial=country in TICKED, label=country)
        f[f"{k}_first"] = forms.ChoiceField(
            choices=list(FIRST_WAYS.items()), initial=ROLL, widget=forms.RadioSelect, label="First monarch", required=False
        )
        named = _named(country)
        if named:
            at_start = next((m["name"] for m in named if m.get("at_start")), named[0]["name"])
            widget = NamedSelect()
            widget.fixed = {str(m["name"]) for m in named if m.get("values")}
            f[f"{k}_named"] = forms.ChoiceField(
                choices=[(m["name"], _named_label(m)) for m in named],
                initial=at_start,
                required=False,
                label="Historical monarch",
                widget=widget,
            )
        f[f"{k}_name"] = forms.CharField(required=False, max_length=60, label="Name")
        for v in PLAY.characteristics():
            f[f"{k}_{v}"] = forms.IntegerField(required=False, min_value=LOW, max_value=HIGH, label=v.upper())
        f[f"{k}_reign"] = forms.IntegerField(required=False, min_value=1, max_value=40, label="Reign (turns)")
        if country == "Poland":
            f[f"{k}_era"] = forms.BooleanField(
                required=False, initial=True, label="Poland's era: before the Union of Lublin, or after the Liberum Veto (−2)"
            )
        if "until" in row:
            f[f"{k}_passed"] = forms.BooleanField(required=False, label=f"After {row['until']} (column {row['then']})")
        if row.get("habsburg"):
            f[f"{k}_alliances"] = forms.IntegerField(
                required=False, min_value=0, max_value=50, initial=0, label="Dynastic alliances"
            )
        if row.get("doge"):
            f[f"{k}_doge"] = forms.BooleanField(required=False, initial=True, label="Ruled by Doges")


SPECIAL_FIELDS = {"era": "poland_era", "passed": "base_column_event_passed", "alliances": "dynastic_alliances", "doge": "doge"}


def rows(form: forms.Form) -> list[dict[str, Any]]:
    """The countries' rows for the template, majors then minors, with their fields."""
    out = []
    for row in (*MAJORS, *MINORS):
        country = str(row["country"])
        k = key(country)
        fields = {name: form[f"{k}_{name}"] for name in ("first", "name", "adm", "dip", "mil", "reign")}
        named = form[f"{k}_named"] if f"{k}_named" in form.fields else None
        extra = [form[f"{k}_{s}"] for s in SPECIAL_FIELDS if f"{k}_{s}" in form.fields]
        bound = [form[k], *fields.values(), *extra, *([named] if named else [])]
        out.append(
            {
                "country": country,
                "key": k,
                "major": bool(row.get("major")),
                "aliases": ", ".join(row.get("aliases", [])),
                "specials": specials(row),
                "tick": form[k],
                "named": named,
                "extra": extra,
                "invalid": any(b.errors for b in bound),
                "ticked": bool(form[k].value()),
                **fields,
            }
        )
    return out


def clean(form: forms.Form, data: dict[str, Any]) -> list[str]:
    """The chosen countries (as ``EuCountry``) into ``data["eu_countries"]``; errors beside their
    fields. Returns the ticked majors (the crowns a player may be seated for)."""
    chosen: list[EuCountry] = []
    for row in (*MAJORS, *MINORS):
        country = str(row["country"])
        k = key(country)
        if not data.get(k):
            continue
        first = data.get(f"{k}_first") or ROLL
        values = {v: data.get(f"{k}_{v}") for v in PLAY.characteristics()}
        settings = {s: data.get(f"{k}_{name}") for name, s in SPECIAL_FIELDS.items() if f"{k}_{name}" in form.fields}
        if "dynastic_alliances" in settings and settings["dynastic_alliances"] is None:
            settings["dynastic_alliances"] = 0
        chosen.append(
            EuCountry(
                country,
                first=first,
                named=(data.get(f"{k}_named") or "") if first == HISTORICAL else "",
                given_name=(data.get(f"{k}_name") or "") if first in (ROLL, TYPED) else "",
                adm=values["adm"] if first != ROLL else None,
                dip=values["dip"] if first != ROLL else None,
                mil=values["mil"] if first != ROLL else None,
                reign_turns=data.get(f"{k}_reign") if first == TYPED else None,
                settings=settings,
            )
        )
    data["eu_countries"] = chosen
    data["eu_first_turn"] = data.get("eu_first_turn") or 1
    return [c.country for c in chosen if PLAY.is_major(TABLES, c.country)]


def field_of(name: str) -> str | None:
    """The form's field for a set-up service's error field ``"<country>:<what>"`` (or ``first_turn``)."""
    if name == "first_turn":
        return "eu_first_turn"
    if name == "countries":
        return None
    country, _, what = name.partition(":")
    k = key(country)
    suffix = {"first": "_first", "named": "_named", "given_name": "_name", "adm": "_adm", "dip": "_dip", "mil": "_mil"}
    suffix |= {"reign_turns": "_reign", "country": "", "settings": "_first"}
    return k + suffix.get(what, "_first")


def seat_css(chosen: str) -> list[str]:
    """CSS rules (selectors) hiding, for an EU campaign, the seats of the majors not ticked."""
    return [f'{chosen}:has(input[name="{key(c)}"]:not(:checked)) .seat-{c}:not(.invalid)' for c in majors()]
