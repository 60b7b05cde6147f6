"""The contract pages' forms: a draft's head and its structured clauses, signing, ending, breaches, disputes, parleys."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms

from campaign.models import Campaign
from contracts.models import Clause, ClauseKind, ContractKind, ParleyKind, VoteChoice
from dynasties.models import Character, Crown, Dynasty, Marriage, Status
from dynasties.treasury import currency
from pages.common import set_choices
from rules import contracts as rules
from rules.errors import RuleError

# Each clause kind's terms as form fields: (parameter, label, type). A "?" marks an optional term.
CLAUSE_FIELDS: dict[str, list[tuple[str, str, str]]] = {
    ClauseKind.PAYMENT: [("payer", "Payer", "party"), ("payee", "Payee", "party"), ("amount", "Amount", "amount")],
    ClauseKind.RECURRING_PAYMENT: [
        ("payer", "Payer", "party"),
        ("payee", "Payee", "party"),
        ("amount", "Amount each turn", "amount"),
        ("from_year", "First year", "year"),
        ("turns", "Number of turns", "turns?"),
    ],
    ClauseKind.TRADE_ITEM: [
        ("from", "Giver", "party"),
        ("to", "Receiver", "party"),
        ("item", "Item", "item"),
        ("turns", "Number of turns", "turns?"),
    ],
    ClauseKind.NON_AGGRESSION: [("between", "Between", "parties?")],
    ClauseKind.SAFE_PASSAGE: [("between", "Between", "parties?")],
    ClauseKind.MILITARY_SUPPORT: [
        ("by", "Supporter", "party?"),
        ("to", "Supported", "party?"),
        ("exclusions", "Exclusions, one per line", "lines?"),
    ],
    ClauseKind.CESSION: [("province", "Province", "text"), ("from", "Giver", "party"), ("to", "Receiver", "party")],
    ClauseKind.RENUNCIATION: [("character", "Who renounces", "character"), ("crown", "The crown renounced", "crown")],
    ClauseKind.CHILDREN_RAISED_BY: [("dynasty", "The house that raises the children", "party")],
    ClauseKind.HUSBAND_JOINS_WIFE: [],
    ClauseKind.DOWRY: [
        ("payer", "Giver", "party"),
        ("payee", "Receiver", "party"),
        ("amount", "Amount", "amount?"),
        ("province", "or a province", "text?"),
    ],
    ClauseKind.ESCAPE: [("condition", "Condition", "text")],
    ClauseKind.DAMAGES: [("amount", "Amount the breaker pays", "amount")],
}
HELP = {
    "turns?": "Leave empty: open-ended.",
    "parties?": "None ticked: all the parties.",
    "party?": "Optional.",
}


# forms -----------------------------------------------------------------------------------------


def _int_choices(items: Iterable[tuple[int, str]], blank: str | None = None) -> list[tuple[Any, str]]:
    out: list[tuple[Any, str]] = [("", blank)] if blank is not None else []
    return out + [(pk, label) for pk, label in items]


class Choices:
    """What the forms of a campaign offer: its houses (and, when needed, people, crowns and matches)."""

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign
        self.houses = list(Dynasty.objects.filter(campaign=campaign).order_by("seat", "name"))
        self.by_pk = {d.pk: d for d in self.houses}
        self._people: list[tuple[str, list[tuple[int, str]]]] | None = None
        self._crowns: list[tuple[str, str]] | None = None

    def house_choices(self, ids: Iterable[int] | None = None) -> list[tuple[int, str]]:
        keep = set(ids) if ids is not None else None
        return [(d.pk, f"{d.name} ({d.crown})" if d.crown else d.name) for d in self.houses if keep is None or d.pk in keep]

    def name(self, pk: int) -> str:
        d = self.by_pk.get(pk)
        return d.name if d else f"#{pk}"

    def people(self) -> list[tuple[str, list[tuple[int, str]]]]:
        if self._people is None:
            groups: dict[str, list[tuple[int, str]]] = {}
            living = (
                Character.objects.filter(campaign=self.campaign)
                .exclude(status=Status.DEAD)
                .order_by("controlled_by__seat", "birth_year", "pk")
                .values_list("pk", "given_name", "dynastic_name", "birth_year", "controlled_by__name")
            )
            for pk, given, dynastic, born, house in living:
                groups.setdefault(house or "No house", []).append((pk, f"{given} {dynastic} (b. {born})"))
            self._people = list(groups.items())
        return self._people

    def crowns(self) -> list[tuple[str, str]]:
        if self._crowns is None:
            names = {d.crown for d in self.houses if d.crown}
            names |= set(Crown.objects.filter(campaign=self.campaign).values_list("name", flat=True))
            self._crowns = [(n, n) for n in sorted(names)]
        return self._crowns


def _whole(message: str) -> dict[str, str]:
    return {"invalid": message, "min_value": message}


def _field(kind: str, label: str, choices: Choices, campaign: Campaign) -> forms.Field:
    optional = kind.endswith("?")
    base = kind.rstrip("?")
    help_text = HELP.get(kind, "")
    required = not optional
    if base == "party":
        return forms.TypedChoiceField(
            label=label,
            coerce=int,
            required=required,
            empty_value=None,
            help_text=help_text,
            choices=_int_choices(choices.house_choices(), "—" if optional else "Choose a house"),
        )
    if base == "parties":
        return forms.TypedMultipleChoiceField(
            label=label,
            coerce=int,
            required=required,
            help_text=help_text,
            choices=choices.house_choices(),
            widget=forms.CheckboxSelectMultiple,
        )
    if base == "amount":
        return forms.IntegerField(
            label=f"{label} ({currency(campaign)})",
            min_value=1,
            required=required,
            help_text=help_text,
            error_messages=_whole(f"The amount is a whole number of {currency(campaign)}, at least 1."),
        )
    if base == "year":
        return forms.IntegerField(
            label=label,
            min_value=campaign.start_year,
            initial=campaign.current_year,
            error_messages=_whole(f"A year of the campaign: {campaign.start_year} or later."),
        )
    if base == "turns":
        return forms.IntegerField(
            label=label,
            min_value=1,
            required=required,
            help_text=help_text,
            error_messages=_whole("A whole number of turns, at least 1 (or leave it empty: open-ended)."),
        )
    if base == "item":
        return forms.ChoiceField(label=label, choices=[(i, i) for i in rules.TRADE_ITEMS])
    if base == "lines":
        return forms.CharField(label=label, required=required, widget=forms.Textarea(attrs={"rows": 2}), help_text=help_text)
    if base == "character":
        return forms.TypedChoiceField(label=label, coerce=int, choices=[("", "Choose a character"), *choices.people()])
    if base == "crown":
        return forms.ChoiceField(label=label, choices=[("", "Choose a crown"), *choices.crowns()])
    return forms.CharField(label=label, max_length=200, required=required, help_text=help_text)


class ClauseForm(forms.Form):
    """One clause: its kind (fixed when the row was added) and that kind's terms."""

    kind = forms.CharField(widget=forms.HiddenInput)
    text = forms.CharField(
        label="In words (optional)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Read with the terms on the printed contract.",
    )

    def __init__(self, clause_kind: str, choices: Choices, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.clause_kind = clause_kind
        self.label = rules.CLAUSE_LABELS[clause_kind]
        self.title = ClauseKind(clause_kind).label
        self.choices = choices
        self.parties: set[int] | None = None
        self.number = 0
        self.index = int(self.prefix[1:]) if self.prefix and self.prefix[1:].isdigit() else 0
        self.fields["kind"].initial = clause_kind
        terms = {}
        for name, label, kind in CLAUSE_FIELDS[clause_kind]:
            terms[name] = _field(kind, label, choices, choices.campaign)
        self.fields = {"kind": self.fields["kind"], **terms, "text": self.fields["text"]}
        self.types = {name: kind for name, _, kind in CLAUSE_FIELDS[clause_kind]}

    def terms(self) -> list[forms.BoundField]:
        return [self[name] for name in self.types]

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, kind in self.types.items():
            value = self.cleaned_data.get(name)
            if kind.startswith("lines"):
                value = [line.strip() for line in (value or "").splitlines() if line.strip()]
            if value in (None, "", []):
                continue
            out[name] = value
        return out

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.parties is None or self.errors:
            return data
        for name, kind in self.types.items():
            if not kind.startswith("part"):
                continue
            values = data.get(name)
            for pk in values if isinstance(values, list) else [values]:
                if pk is not None and pk not in self.parties:
                    self.add_error(
                        name, f"The house of {self.choices.name(pk)} is not a party: tick it among the parties, or choose one."
                    )
        if not self.errors:
            try:
                rules.validate_clause(self.clause_kind, self.params(), parties=self.parties, label=f"Clause {self.number}")
            except RuleError as exc:
                self.add_error(None, exc.message)
        return data


class ContractForm(forms.Form):
    kind = forms.ChoiceField(label="Kind of contract", choices=[("", "Choose the kind"), *ContractKind.choices])
    title = forms.CharField(max_length=200, error_messages={"required": "Give the contract a title."})
    parties = forms.TypedMultipleChoiceField(
        label="Parties",
        coerce=int,
        widget=forms.CheckboxSelectMultiple,
        help_text="Two houses or more.",
        error_messages={"required": "Tick the houses party to the contract: two or more."},
    )
    marriage = forms.TypedChoiceField(
        label="The match it seals",
        coerce=int,
        required=False,
        empty_value=None,
        help_text="A marriage contract only: the betrothal or marriage.",
    )
    start_year = forms.IntegerField(label="Start year")
    term_years = forms.IntegerField(
        label="Fixed term (years)",
        min_value=1,
        required=False,
        help_text="Leave empty: open-ended (no term for a marriage).",
        error_messages=_whole("A fixed term is a whole number of years, at least 1 (or leave it empty)."),
    )
    text = forms.CharField(label="Free text", required=False, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, choices: Choices, matches: list[Marriage], role: str, mine: int | None, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.role, self.mine, self.names = role, mine, choices
        set_choices(self, "parties", choices=choices.house_choices())
        set_choices(self, "marriage", choices=_int_choices(((m.pk, _match_label(m)) for m in matches), "— none —"))
        self.fields["start_year"] = forms.IntegerField(
            label="Start year",
            min_value=choices.campaign.start_year,
            error_messages=_whole(f"A year of the campaign: {choices.campaign.start_year} or later."),
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("marriage") and data.get("kind") and data["kind"] != ContractKind.MARRIAGE:
            self.add_error("marriage", "Only a marriage contract seals a match: choose that kind, or no match.")
        return data


def _match_label(m: Marriage) -> str:
    how = f"wed {m.wedding_year}" if m.wedding_year else f"betrothed {m.arranged_year}"
    return f"{m.husband.display_name} & {m.wife.display_name} ({how})"


class SignForm(forms.Form):
    """The GM's shortcut: every party signed at the table (or the printed copy)."""

    signed = forms.BooleanField(
        label="Every party has signed it (at the table, or on the printed copy).",
        error_messages={"required": "Tick this once every party has signed: this records the signature of every party at once."},
    )


class ConsentForm(forms.Form):
    consent = forms.BooleanField(
        label="Every party consents to end it.",
        error_messages={"required": "Tick this once every party has agreed: it ends by mutual consent."},
    )
    reason = forms.CharField(label="Why (optional)", max_length=150, required=False)


class EscapeForm(forms.Form):
    by_dynasty = forms.TypedChoiceField(label="The party invoking it", coerce=int)
    reason = forms.CharField(label="How the condition is met", max_length=150)

    def __init__(self, parties: list[tuple[int, str]], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        set_choices(self, "by_dynasty", choices=parties)
        if len(parties) == 1:
            self.fields["by_dynasty"].widget = forms.HiddenInput()
            self.fields["by_dynasty"].initial = parties[0][0]


class BreachForm(forms.Form):
    raised_by = forms.TypedChoiceField(label="The injured party (who raises it)", coerce=int)
    by_dynasty = forms.TypedChoiceField(label="The party in breach", coerce=int)
    clause = forms.TypedChoiceField(label="The term broken", coerce=int, required=False, empty_value=None)
    text = forms.CharField(label="What was broken", widget=forms.Textarea(attrs={"rows": 2}), max_length=1000)

    def __init__(
        self, raisers: list[tuple[int, str]], breakers: list[tuple[int, str]], clauses: list[Clause], *a: Any, **kw: Any
    ) -> None:
        super().__init__(*a, **kw)
        set_choices(self, "raised_by", choices=raisers)
        set_choices(self, "by_dynasty", choices=_int_choices(breakers, "Choose a party"))
        set_choices(
            self,
            "clause",
            choices=_int_choices(
                ((c.pk, f"{c.position}. {c.get_kind_display()}") for c in clauses), "— the contract as a whole —"
            ),
        )
        if len(raisers) == 1:
            self.fields["raised_by"].widget = forms.HiddenInput()
            self.fields["raised_by"].initial = raisers[0][0]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("by_dynasty") is not None and data.get("by_dynasty") == data.get("raised_by"):
            self.add_error("by_dynasty", "A party does not accuse itself: choose the other party.")
        return data


class DisputeForm(forms.Form):
    """BloodLine: each other player's vote on each term (silent, upholds, rejects)."""

    VOTES = [("", "silent"), ("uphold", "Upholds"), ("reject", "Rejects")]

    def __init__(self, voters: list[Dynasty], clauses: list[Clause], *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.grid: list[tuple[Dynasty, list[tuple[Clause, forms.BoundField]]]] = []
        for d in voters:
            for c in clauses:
                self.fields[f"v{d.pk}_{c.pk}"] = forms.ChoiceField(
                    label=f"{d.name} on clause {c.position}", choices=self.VOTES, required=False
                )
        for d in voters:
            self.grid.append((d, [(c, self[f"v{d.pk}_{c.pk}"]) for c in clauses]))
        self.voters, self.clauses = voters, clauses

    def votes(self) -> dict[int, dict[int, bool]]:
        out: dict[int, dict[int, bool]] = {}
        for d in self.voters:
            for c in self.clauses:
                vote = self.cleaned_data.get(f"v{d.pk}_{c.pk}")
                if vote:
                    out.setdefault(d.pk, {})[c.pk] = vote == "uphold"
        return out


class ParleyForm(forms.Form):
    """A parley: (when not on a breach) its kind, caller and subject; then each house's block of
    votes: diplomatic stature, church cards, Christian leader, choice. A house left without a
    stature takes no part."""

    kind = forms.ChoiceField(
        label="Kind of parley", choices=[(k, label) for k, label in ParleyKind.choices if k != ParleyKind.BREACH]
    )
    caller = forms.TypedChoiceField(label="Called by", coerce=int)
    subject = forms.CharField(
        label="What it decides", max_length=200, required=False, help_text="The area, the claim, the inheritance ..."
    )
    area = forms.CharField(
        label="Area",
        max_length=100,
        required=False,
        help_text="A claim, a conquest or an inheritance: the area as the board names it (empty: the subject).",
    )
    opponent = forms.TypedChoiceField(
        label="Opponent",
        coerce=int,
        required=False,
        empty_value=None,
        help_text="A conquest or an inheritance contested: the conqueror, or the player of the Dynastic Inheritance card.",
    )

    def __init__(self, houses: list[Dynasty], on_breach: bool, banned: set[int], *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        if on_breach:
            for name in ("kind", "caller", "subject", "area", "opponent"):
                del self.fields[name]
        else:
            set_choices(self, "caller", choices=_int_choices(((d.pk, d.name) for d in houses), "Choose a house"))
            set_choices(self, "opponent", choices=_int_choices(((d.pk, d.name) for d in houses), "Nobody (not a contest)"))
        self.houses = houses
        self.rows: list[dict[str, Any]] = []
        for d in houses:
            self.fields[f"s{d.pk}"] = forms.IntegerField(label="Stature", min_value=0, required=False)
            self.fields[f"k{d.pk}"] = forms.IntegerField(label="Church cards", min_value=0, required=False, initial=0)
            self.fields[f"x{d.pk}"] = forms.BooleanField(label="Christian", required=False, initial=True)
            self.fields[f"c{d.pk}"] = forms.ChoiceField(
                label="Vote", choices=VoteChoice.choices, initial=VoteChoice.ABSTAIN, required=False
            )
        for d in houses:
            self.rows.append(
                {
                    "dynasty": d,
                    "banned": d.pk in banned,
                    "fields": [self[f"{p}{d.pk}"] for p in ("s", "k", "x", "c")],
                }
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind = data.get("kind")
        named = (data.get("subject") or "").strip() or (data.get("area") or "").strip()
        if "subject" in self.fields and kind and kind != ParleyKind.READMISSION and not named:
            self.add_error("subject", "Say what the parley decides (the area, the claim, the inheritance ...).")
        return data

    def votes(self) -> list[dict[str, Any]]:
        out = []
        for d in self.houses:
            stature = self.cleaned_data.get(f"s{d.pk}")
            if stature is None:
                continue
            out.append(
                {
                    "dynasty": d.pk,
                    "stature": stature,
                    "church_cards": self.cleaned_data.get(f"k{d.pk}") or 0,
                    "christian": bool(self.cleaned_data.get(f"x{d.pk}")),
                    "choice": self.cleaned_data.get(f"c{d.pk}") or VoteChoice.ABSTAIN,
                }
            )
        return out
