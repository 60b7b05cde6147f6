"""Pages: contracts (issue 7). The list and the page of a contract, drafting with structured
clauses, signing, ending, breaches, BloodLine disputes and parleys, unpaid payments settled.

Secrecy: every contract is read through ``campaign.permissions.visible`` (the GM sees all, a player
the contracts his house is party to, an observer what the permission layer gives him); a contract
the viewer may not see is a 404, never a name or a count. Writing:

- a player drafts only contracts his house is party to, ends or breaks (records a breach of) only
  those, and acts for his own house only (his signature, his escape clause, his unpaid payments);
  the GM does everything;
- each party signs its side of a draft (``contract_sign_party``): a player signs for his own house
  only, the GM for any party; the contract comes into force once every party has signed. The GM
  may also record every party's signature at once (``contract_sign``: the printed contract signed
  at the table; the form asks to confirm it);
- disputes and parleys are votes of the whole table: the GM records every house's vote in one form.

Each write goes through :func:`pages.common.run_action` (one transaction, the undo checkpoint, the
one-time form key); a refusal by the services is shown next to the field or at the top of the form,
with status 400, and nothing is written."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.db.models import Count, Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaign.models import Campaign, Role
from campaign.permissions import may_act_for_any, require_party, require_play, visible
from campaign.treasury import currency
from contracts import services
from contracts.models import (
    Breach,
    Clause,
    ClauseKind,
    Contract,
    ContractKind,
    ContractPayment,
    ContractSignature,
    ContractState,
    DisputeTerm,
    Excommunication,
    Parley,
    ParleyKind,
    ParleyVote,
    PaymentStatus,
    VoteChoice,
)
from contracts.printing import CHARACTER_KEYS, contract_pdf, describe
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Marriage, Status
from pages.common import ActionFailed, context, may_act_for, member, require_act_for, require_gm, run_action
from pages.trail import Source, Trail, trail
from rules import contracts as rules
from rules.errors import RuleError

MAX_CLAUSES = 20
STATE_TABS = {
    ContractState.DRAFT: "Drafts",
    ContractState.SIGNED: "Signed",
    ContractState.IN_FORCE: "In force",
    ContractState.ENDED: "Ended",
}
CLAUSE_LINE = re.compile(r"^Clause (\d+) ")

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


# who sees, who acts ----------------------------------------------------------------------------


def _contract(request: HttpRequest, campaign: Campaign, pk: int) -> Contract:
    """The contract if the viewer may see it, else 404 (whether or not it exists)."""
    found = (
        visible(request.user, campaign, Contract.objects.filter(pk=pk))
        .select_related("marriage__husband", "marriage__wife")
        .prefetch_related("parties")
        .first()
    )
    if found is None:
        raise Http404("No such contract.")
    return found


def _party_ids(contract: Contract) -> list[int]:
    return [p.pk for p in contract.parties.all()]


def _acts_for_a_party(role: str, mine: int | None, contract: Contract) -> bool:
    return may_act_for_any(role, mine, _party_ids(contract))


def _require_party(role: str, mine: int | None, contract: Contract) -> None:
    require_party(role, mine, _party_ids(contract))


def _one(obj: Any, attr: str) -> Any:
    """A reverse one-to-one, or None."""
    try:
        return getattr(obj, attr)
    except ObjectDoesNotExist:
        return None


def _attempt(request: HttpRequest, campaign: Campaign, label: str, action: Callable[[Campaign], Any], form: forms.Form) -> Any:
    """Run the action; on a refusal put the services' message next to the field it names (or at
    the top of the form) and return ``False``. None: the same form had already been sent."""
    try:
        return run_action(request, campaign, label, action)
    except ActionFailed as exc:
        _place(form, exc)
        return False


def _place(form: forms.Form, exc: ActionFailed) -> None:
    named = [f for f in exc.fields if f in form.fields]
    form.add_error(named[0] if named else None, exc.message)


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
            label=label, coerce=int, required=required, empty_value=None, help_text=help_text,
            choices=_int_choices(choices.house_choices(), "—" if optional else "Choose a house"),
        )  # fmt: skip
    if base == "parties":
        return forms.TypedMultipleChoiceField(
            label=label, coerce=int, required=required, help_text=help_text,
            choices=choices.house_choices(), widget=forms.CheckboxSelectMultiple,
        )  # fmt: skip
    if base == "amount":
        return forms.IntegerField(
            label=f"{label} ({currency(campaign)})", min_value=1, required=required, help_text=help_text,
            error_messages=_whole(f"The amount is a whole number of {currency(campaign)}, at least 1."),
        )  # fmt: skip
    if base == "year":
        return forms.IntegerField(
            label=label, min_value=campaign.start_year, initial=campaign.current_year,
            error_messages=_whole(f"A year of the campaign: {campaign.start_year} or later."),
        )  # fmt: skip
    if base == "turns":
        return forms.IntegerField(
            label=label, min_value=1, required=required, help_text=help_text,
            error_messages=_whole("A whole number of turns, at least 1 (or leave it empty: open-ended)."),
        )  # fmt: skip
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
        label="In words (optional)", required=False, widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Read with the terms on the printed contract.",
    )  # fmt: skip

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
        label="Parties", coerce=int, widget=forms.CheckboxSelectMultiple, help_text="Two houses or more.",
        error_messages={"required": "Tick the houses party to the contract: two or more."},
    )  # fmt: skip
    marriage = forms.TypedChoiceField(
        label="The match it seals", coerce=int, required=False, empty_value=None,
        help_text="A marriage contract only: the betrothal or marriage.",
    )  # fmt: skip
    start_year = forms.IntegerField(label="Start year")
    term_years = forms.IntegerField(
        label="Fixed term (years)", min_value=1, required=False, help_text="Leave empty: open-ended (no term for a marriage).",
        error_messages=_whole("A fixed term is a whole number of years, at least 1 (or leave it empty)."),
    )  # fmt: skip
    text = forms.CharField(label="Free text", required=False, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, choices: Choices, matches: list[Marriage], role: str, mine: int | None, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.role, self.mine, self.names = role, mine, choices
        self.fields["parties"].choices = choices.house_choices()
        self.fields["marriage"].choices = _int_choices(((m.pk, _match_label(m)) for m in matches), "— none —")
        self.fields["start_year"] = forms.IntegerField(
            label="Start year", min_value=choices.campaign.start_year,
            error_messages=_whole(f"A year of the campaign: {choices.campaign.start_year} or later."),
        )  # fmt: skip

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.role == Role.PLAYER and "parties" in data and self.mine not in data["parties"]:
            self.add_error(
                "parties",
                f"You draft only contracts your house is party to: tick the house of {self.names.name(self.mine or 0)}.",
            )
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
        self.fields["by_dynasty"].choices = parties
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
        self.fields["raised_by"].choices = raisers
        self.fields["by_dynasty"].choices = _int_choices(breakers, "Choose a party")
        self.fields["clause"].choices = _int_choices(
            ((c.pk, f"{c.position}. {c.get_kind_display()}") for c in clauses), "— the contract as a whole —"
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

    def __init__(self, houses: list[Dynasty], on_breach: bool, banned: set[int], *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        if on_breach:
            for name in ("kind", "caller", "subject"):
                del self.fields[name]
        else:
            self.fields["caller"].choices = _int_choices(((d.pk, d.name) for d in houses), "Choose a house")
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
            self.rows.append({
                "dynasty": d, "banned": d.pk in banned,
                "fields": [self[f"{p}{d.pk}"] for p in ("s", "k", "x", "c")],
            })  # fmt: skip

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind = data.get("kind")
        if "subject" in self.fields and kind and kind != ParleyKind.READMISSION and not (data.get("subject") or "").strip():
            self.add_error("subject", "Say what the parley decides (the area, the claim, the inheritance ...).")
        return data

    def votes(self) -> list[dict[str, Any]]:
        out = []
        for d in self.houses:
            stature = self.cleaned_data.get(f"s{d.pk}")
            if stature is None:
                continue
            out.append({
                "dynasty": d.pk, "stature": stature, "church_cards": self.cleaned_data.get(f"k{d.pk}") or 0,
                "christian": bool(self.cleaned_data.get(f"x{d.pk}")),
                "choice": self.cleaned_data.get(f"c{d.pk}") or VoteChoice.ABSTAIN,
            })  # fmt: skip
        return out


# the list ------------------------------------------------------------------------------------


@require_GET
@login_required
def contract_list(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    seen = visible(request.user, campaign, Contract.objects.all())
    counts = dict(seen.order_by().values_list("state").annotate(n=Count("pk", distinct=True)))
    state = request.GET.get("state", "")
    shown = seen.filter(state=state) if state in ContractState.values else seen
    contracts = list(shown.prefetch_related("parties", "signatures").order_by("-start_year", "-pk"))
    for c in contracts:
        signed = {s.dynasty_id for s in c.signatures.all()}
        c.signed_count, c.party_count = len(signed), len(c.parties.all())
        c.awaits_me = c.state == ContractState.DRAFT and role == Role.PLAYER and mine in _party_ids(c) and mine not in signed
    tabs = [("", "All", sum(counts.values()))] + [(s, label, counts.get(s, 0)) for s, label in STATE_TABS.items()]
    parleys = list(
        Parley.objects.filter(campaign=campaign, breach__isnull=True).select_related("caller").order_by("-year", "-pk")[:30]
    )
    banned = list(
        Excommunication.objects.filter(campaign=campaign, ended_year__isnull=True)
        .select_related("dynasty")
        .order_by("dynasty__seat")
    )
    return render(
        request,
        "pages/contracts/list.html",
        context(
            campaign, role, mine, contracts=contracts, tabs=tabs, state=state, parleys=parleys, banned=banned,
            may_draft=role in (Role.GM, Role.PLAYER),
        ),
    )  # fmt: skip


# one contract ----------------------------------------------------------------------------------


def _detail(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    contract: Contract,
    bound: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    bound = bound or {}
    choices = Choices(campaign)
    parties = [choices.by_pk[pk] for pk in _party_ids(contract) if pk in choices.by_pk]
    party_choices = choices.house_choices(p.pk for p in parties)
    clauses = list(contract.clauses.all())
    ids = {v for c in clauses for k, v in (c.params or {}).items() if k in CHARACTER_KEYS and isinstance(v, int)}
    people = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=ids)} if ids else {}
    money = currency(campaign)
    payments = list(contract.payments.select_related("clause", "payer", "payee").order_by("year", "pk"))
    breaches = list(
        contract.breaches.select_related("by_dynasty", "raised_by", "clause", "dispute", "parley__caller")
        .prefetch_related(
            Prefetch("dispute__terms", queryset=DisputeTerm.objects.select_related("clause")),
            Prefetch("parley__votes", queryset=ParleyVote.objects.select_related("dynasty")),
        )
        .order_by("year", "pk")
    )  # fmt: skip
    is_gm = role == Role.GM
    acts = _acts_for_a_party(role, mine, contract)
    bloodline = campaign.ruleset == services.BLOODLINE
    for b in breaches:
        b.the_dispute = _one(b, "dispute")
        b.the_parley = _one(b, "parley")
        b.may_dispute = is_gm and bloodline and b.resolved_year is None
        b.may_parley = is_gm and contract.kind == ContractKind.AGREEMENT and b.resolved_year is None and b.the_parley is None
    for p in payments:
        p.may_settle = p.status == PaymentStatus.UNPAID and may_act_for(role, mine, p.payer_id)
    mine_only = role != Role.GM
    raisers = [c for c in party_choices if not mine_only or c[0] == mine]
    draft = contract.state == ContractState.DRAFT
    signed = {s.dynasty_id: s for s in contract.signatures.select_related("signed_by")}
    signing = [
        {"house": p, "signature": signed.get(p.pk), "may_sign": draft and p.pk not in signed and may_act_for(role, mine, p.pk)}
        for p in parties
    ]
    live = contract.state in services.LIVE
    binding = contract.state in services.BINDING
    has_escape = any(c.kind == ClauseKind.ESCAPE for c in clauses)
    unbreakable = contract.kind == ContractKind.MARRIAGE and contract.state == ContractState.IN_FORCE
    forms_ = {
        "sign": bound.get("sign") or SignForm(),
        "consent": bound.get("consent") or ConsentForm(),
        "escape": bound.get("escape") or EscapeForm(raisers),
        "breach": bound.get("breach") or BreachForm(raisers, party_choices, clauses),
    }
    actions = {
        "sign": is_gm and draft,
        "consent": acts and live and not unbreakable,
        "escape": acts and binding and has_escape,
        "breach": acts and contract.state == ContractState.IN_FORCE,
    }
    for key in actions:
        actions[key] = actions[key] or key in bound  # a refused form is shown with its message
    return render(
        request,
        "pages/contracts/detail.html",
        context(
            campaign, role, mine, contract=contract, parties=parties, currency=money,
            clauses=[(c, describe(c, choices.by_pk, people, money)) for c in clauses],
            payments=payments, breaches=breaches, forms=forms_, actions=actions, settle_error=bound.get("settle_error"),
            signing=signing, waiting=[s["house"] for s in signing if s["signature"] is None],
            sign_error=bound.get("sign_error"),
            escape_condition=next((c.params.get("condition") for c in clauses if c.kind == ClauseKind.ESCAPE), ""),
            bloodline=bloodline, trail=_contract_trail(request, campaign, role, contract),
        ),
        status=status,
    )  # fmt: skip


def _contract_trail(request: HttpRequest, campaign: Campaign, role: str, contract: Contract) -> Trail:
    """The audit trail of the contract, its clauses and its signatures (seen by whoever may see
    the contract: the page is reached through ``_contract``)."""
    clause_kinds = dict(ClauseKind.choices)
    found = trail(request.user, campaign, role, [
        Source(Contract, Contract.history.filter(id=contract.pk), select=("marriage__husband", "marriage__wife")),
        Source(Clause, Clause.history.filter(contract_id=contract.pk),
               lambda r: f"Clause {r.position} ({clause_kinds.get(r.kind, r.kind)})"),
        Source(ContractSignature, ContractSignature.history.filter(contract_id=contract.pk),
               lambda r: f"Signature of {r.dynasty.name if r.dynasty else 'a removed house'}"),
    ])  # fmt: skip
    if role == Role.GM and getattr(request.user, "is_staff", False):
        found.admin_url = reverse("admin:contracts_contract_history", args=[contract.pk])
    return found


@require_GET
@login_required
def contract_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    return _detail(request, campaign, role, mine, _contract(request, campaign, pk))


@require_GET
@login_required
def contract_pdf_view(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, _, _ = member(request, slug)
    contract = _contract(request, campaign, pk)
    response = HttpResponse(contract_pdf(contract), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="contract-{contract.pk}.pdf"'
    return response


def _back(campaign: Campaign, contract: Contract) -> HttpResponse:
    return redirect("pages:contract", campaign.slug, contract.pk)


@require_POST
@login_required
def contract_sign(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The GM records every party's signature at once (the printed contract signed at the table)."""
    campaign, role, mine = member(request, slug)
    contract = _contract(request, campaign, pk)
    require_gm(role)
    form = SignForm(request.POST)
    if form.is_valid():
        done = _attempt(
            request, campaign, f"Sign '{contract.title}'",
            lambda c: services.contract_sign(campaign=c, contract=contract.pk, by=request.user), form,
        )  # fmt: skip
        if done is not False:
            if done is not None:
                messages.success(request, _signed(done))
            return _back(campaign, contract)
    return _detail(request, campaign, role, mine, contract, {"sign": form}, status=400)


@require_POST
@login_required
def contract_sign_party(request: HttpRequest, slug: str, pk: int, dynasty: int) -> HttpResponse:
    """One party signs its side: a player for his own house only, the GM for any party."""
    campaign, role, mine = member(request, slug)
    contract = _contract(request, campaign, pk)
    house = next((p for p in contract.parties.all() if p.pk == dynasty), None)
    if house is None:
        raise Http404("No such party to this contract.")
    require_act_for(role, mine, house.pk)
    try:
        done = run_action(
            request, campaign, f"{house.name} signs '{contract.title}'",
            lambda c: services.contract_sign_party(campaign=c, contract=contract.pk, dynasty=house.pk, by=request.user),
        )  # fmt: skip
    except ActionFailed as exc:
        return _detail(request, campaign, role, mine, contract, {"sign_error": exc.message}, status=400)
    if done is not None:
        if done.state == ContractState.DRAFT:
            signed = set(done.signatures.values_list("dynasty_id", flat=True))
            waiting = [p.name for p in done.parties.all() if p.pk not in signed]
            messages.success(request, f"{house.name} has signed '{done.title}'; waiting for {_names(waiting)}.")
        else:
            messages.success(request, f"{house.name} has signed, the last party to sign. {_signed(done)}")
    return _back(campaign, contract)


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _signed(contract: Contract) -> str:
    if contract.state == ContractState.IN_FORCE:
        return f"'{contract.title}' is signed and in force from {contract.in_force_year}."
    if contract.kind == ContractKind.MARRIAGE:
        return f"'{contract.title}' is signed; it binds from the wedding."
    return f"'{contract.title}' is signed; it comes into force in {contract.start_year}."


@require_POST
@login_required
def contract_end(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    contract = _contract(request, campaign, pk)
    _require_party(role, mine, contract)
    if request.POST.get("how") == "escape":
        parties = Choices(campaign).house_choices(_party_ids(contract))
        allowed = [c for c in parties if role == Role.GM or c[0] == mine]
        form: forms.Form = EscapeForm(allowed, request.POST)
        key = "escape"
        if form.is_valid():
            data = form.cleaned_data
            done = _attempt(
                request, campaign, f"Escape '{contract.title}'",
                lambda c: services.contract_escape(
                    campaign=c, contract=contract.pk, by_dynasty=data["by_dynasty"], reason=data["reason"], by=request.user
                ),
                form,
            )  # fmt: skip
            if done is not False:
                if done is not None:
                    messages.success(request, f"'{contract.title}' ended: the escape clause was invoked.")
                return _back(campaign, contract)
    else:
        form = ConsentForm(request.POST)
        key = "consent"
        if form.is_valid():
            reason = form.cleaned_data["reason"]
            done = _attempt(
                request, campaign, f"End '{contract.title}'",
                lambda c: services.contract_end_by_consent(campaign=c, contract=contract.pk, reason=reason, by=request.user),
                form,
            )  # fmt: skip
            if done is not False:
                if done is not None:
                    messages.success(request, f"'{contract.title}' ended by mutual consent.")
                return _back(campaign, contract)
    return _detail(request, campaign, role, mine, contract, {key: form}, status=400)


@require_POST
@login_required
def breach_new(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    contract = _contract(request, campaign, pk)
    _require_party(role, mine, contract)
    parties = Choices(campaign).house_choices(_party_ids(contract))
    raisers = [c for c in parties if role == Role.GM or c[0] == mine]
    form = BreachForm(raisers, parties, list(contract.clauses.all()), request.POST)
    if form.is_valid():
        data = form.cleaned_data
        done = _attempt(
            request, campaign, f"Breach of '{contract.title}'",
            lambda c: services.breach_record(
                campaign=c, contract=contract.pk, by_dynasty=data["by_dynasty"], raised_by=data["raised_by"],
                clause=data["clause"], text=data["text"], by=request.user,
            ),
            form,
        )  # fmt: skip
        if done is not False:
            if done is not None:
                messages.success(request, "The breach is recorded.")
            return _back(campaign, contract)
    return _detail(request, campaign, role, mine, contract, {"breach": form}, status=400)


@require_POST
@login_required
def payment_settle(request: HttpRequest, slug: str, pk: int, payment: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    contract = _contract(request, campaign, pk)
    due = ContractPayment.objects.filter(pk=payment, contract=contract).first()
    if due is None:
        raise Http404("No such payment.")
    if not may_act_for(role, mine, due.payer_id):
        raise PermissionDenied("Only the payer's player (or the GM) settles a payment.")
    try:
        done = run_action(
            request, campaign, f"Settle a payment of '{contract.title}'",
            lambda c: services.payment_settle(campaign=c, payment=due.pk, by=request.user),
        )  # fmt: skip
    except ActionFailed as exc:
        return _detail(request, campaign, role, mine, contract, {"settle_error": (due.pk, exc.message)}, status=400)
    if done is not None:
        messages.success(request, f"The {done.amount} {currency(campaign)} owed since {done.year} are paid.")
    return _back(campaign, contract)


# drafting --------------------------------------------------------------------------------------


def _initial(form: forms.Form) -> dict[str, Any]:
    """What was typed into a form, as the initial values of a fresh one (no errors shown)."""
    return {name: form[name].data for name in form.fields}


def _posted_kinds(post: Any) -> list[tuple[int, str]]:
    try:
        count = int(post.get("rows", 0))
    except (TypeError, ValueError):
        count = 0
    out = []
    for i in range(max(0, min(count, MAX_CLAUSES))):
        kind = post.get(f"c{i}-kind", "")
        if kind in CLAUSE_FIELDS:
            out.append((i, kind))
    return out


def _draft_page(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    head: ContractForm,
    rows: list[ClauseForm],
    total: int,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "pages/contracts/new.html",
        context(
            campaign, role, mine, form=head, rows=rows, total=total, clause_kinds=ClauseKind.choices,
            full=len(rows) >= MAX_CLAUSES, invalid=status == 400,
        ),
        status=status,
    )  # fmt: skip


@require_http_methods(["GET", "POST"])
@login_required
def contract_new(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    require_play(role)
    choices = Choices(campaign)
    matches = list(
        Marriage.objects.filter(campaign=campaign, ended_year__isnull=True)
        .select_related("husband", "wife")
        .order_by("arranged_year", "pk")
    )
    if request.method == "GET":
        initial: dict[str, Any] = {"start_year": campaign.current_year, "parties": [mine] if role == Role.PLAYER else []}
        match = next((m for m in matches if str(m.pk) == request.GET.get("marriage")), None)
        if match is not None:
            houses = [
                h for s in (match.husband, match.wife) for h in (s.controlled_by_id or s.birth_dynasty_id,) if h is not None
            ]
            initial.update(
                kind=ContractKind.MARRIAGE, marriage=match.pk, parties=list(dict.fromkeys(initial["parties"] + houses)),
                title=f"The marriage of {match.husband.display_name} and {match.wife.display_name}",
            )  # fmt: skip
        head = ContractForm(choices, matches, role, mine, initial=initial)
        return _draft_page(request, campaign, role, mine, head, [], 0)

    post = request.POST
    op = post.get("op", "draft")
    kinds = _posted_kinds(post)
    head = ContractForm(choices, matches, role, mine, post)
    rows = [ClauseForm(kind, choices, post, prefix=f"c{i}") for i, kind in kinds]
    if op == "add" or op.startswith("remove-"):
        indices = [i for i, _ in kinds]
        kept = [(row.clause_kind, _initial(row)) for i, row in zip(indices, rows, strict=True) if op != f"remove-{i}"]
        added = post.get("add_kind", "")
        if op == "add" and added in CLAUSE_FIELDS and len(kept) < MAX_CLAUSES:
            kept.append((added, {}))
        head = ContractForm(choices, matches, role, mine, initial=_initial(head))
        rows = [ClauseForm(kind, choices, initial=values, prefix=f"c{n}") for n, (kind, values) in enumerate(kept)]
        for n, row in enumerate(rows, 1):
            row.number = n
        return _draft_page(request, campaign, role, mine, head, rows, len(rows))

    total = kinds[-1][0] + 1 if kinds else 0
    head_ok = head.is_valid()
    parties = set(head.cleaned_data.get("parties") or []) if head_ok else None
    for n, row in enumerate(rows, 1):
        row.parties, row.number = parties, n
    rows_ok = all([row.is_valid() for row in rows])  # every row checked, all errors shown at once
    if head_ok and rows_ok:
        data = head.cleaned_data
        spec = [{"kind": r.clause_kind, "params": r.params(), "text": r.cleaned_data.get("text", "")} for r in rows]
        try:
            contract = run_action(
                request, campaign, f"Draft '{data['title']}'",
                lambda c: services.contract_draft(
                    campaign=c, kind=data["kind"], title=data["title"], parties=data["parties"], marriage=data["marriage"],
                    start_year=data["start_year"], term_years=data["term_years"], clauses=spec, text=data["text"],
                    by=request.user,
                ),
            )  # fmt: skip
        except ActionFailed as exc:
            _place_draft(exc, head, rows)
        else:
            if contract is None:
                return redirect("pages:contracts", campaign.slug)
            messages.success(
                request, f"'{contract.title}' is drafted. Each party signs it here; it binds once every party has signed."
            )
            return redirect("pages:contract", campaign.slug, contract.pk)
    return _draft_page(request, campaign, role, mine, head, rows, total, status=400)


def _place_draft(exc: ActionFailed, head: ContractForm, rows: list[ClauseForm]) -> None:
    """A refusal of the draft: next to the field it names, else on the clause it numbers, else on top."""
    named = [f for f in exc.fields if f in head.fields]
    if named:
        head.add_error(named[0], exc.message)
        return
    found = CLAUSE_LINE.match(exc.message)
    if found and 1 <= int(found.group(1)) <= len(rows):
        rows[int(found.group(1)) - 1].add_error(None, exc.message)
        return
    head.add_error(None, exc.message)


# disputes and parleys ------------------------------------------------------------------------


def _breach(contract: Contract, pk: int) -> Breach:
    found = Breach.objects.filter(pk=pk, contract=contract).select_related("by_dynasty", "raised_by", "clause").first()
    if found is None:
        raise Http404("No such breach.")
    return found


@require_http_methods(["GET", "POST"])
@login_required
def dispute(request: HttpRequest, slug: str, pk: int, breach: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    contract = _contract(request, campaign, pk)
    found = _breach(contract, breach)
    require_gm(role)
    disputing = {found.by_dynasty_id, found.raised_by_id}
    voters = list(
        Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).exclude(pk__in=disputing).order_by("seat", "name")
    )
    clauses = list(contract.clauses.all())
    form = DisputeForm(voters, clauses, request.POST if request.method == "POST" else None)
    choices = Choices(campaign)
    ids = {v for c in clauses for k, v in (c.params or {}).items() if k in CHARACTER_KEYS and isinstance(v, int)}
    people = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=ids)} if ids else {}
    words = [describe(c, choices.by_pk, people, currency(campaign)) for c in clauses]
    status = 200
    if request.method == "POST":
        if form.is_valid():
            votes = form.votes()
            done = _attempt(
                request, campaign, f"Dispute over '{contract.title}'",
                lambda c: services.dispute_majority(campaign=c, breach=found.pk, votes=votes, by=request.user), form,
            )  # fmt: skip
            if done is not False:
                if done is not None:
                    messages.success(request, f"The dispute is ruled: {done.outcome}.")
                return _back(campaign, contract)
        status = 400
    return render(
        request,
        "pages/contracts/dispute.html",
        context(
            campaign, role, mine, contract=contract, breach=found, form=form, clauses=clauses, words=words,
            bloodline=campaign.ruleset == services.BLOODLINE,
        ),
        status=status,
    )  # fmt: skip


@require_http_methods(["GET", "POST"])
@login_required
def parley(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    source = request.POST if request.method == "POST" else request.GET
    found: Breach | None = None
    contract: Contract | None = None
    if source.get("breach"):
        try:
            breach_pk = int(source["breach"])
        except ValueError:
            raise Http404("No such breach.") from None
        owner = Breach.objects.filter(pk=breach_pk, campaign=campaign).values_list("contract_id", flat=True).first()
        if owner is None:
            raise Http404("No such breach.")
        contract = _contract(request, campaign, owner)
        found = _breach(contract, breach_pk)
    require_gm(role)
    houses = list(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "name"))
    banned = set(Excommunication.objects.filter(campaign=campaign, ended_year__isnull=True).values_list("dynasty_id", flat=True))
    form = ParleyForm(houses, found is not None, banned, request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data, votes = form.cleaned_data, form.votes()

            def run(c: Campaign) -> Parley:
                if found is not None:
                    return services.parley_run(campaign=c, breach=found.pk, votes=votes, by=request.user)
                if data["kind"] == ParleyKind.READMISSION:
                    return services.readmission_parley(campaign=c, dynasty=data["caller"], votes=votes, by=request.user)
                return services.parley_run(
                    campaign=c, kind=data["kind"], caller=data["caller"], subject=data["subject"], votes=votes, by=request.user
                )

            done = _attempt(request, campaign, "Parley", run, form)
            if done is not False:
                if done is not None:
                    messages.success(request, f"The parley is held: {done.outcome}.")
                if contract is not None:
                    return _back(campaign, contract)
                return redirect("pages:contracts", campaign.slug)
        status = 400
    return render(
        request,
        "pages/contracts/parley.html",
        context(campaign, role, mine, form=form, breach=found, contract=contract),
        status=status,
    )


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/contracts/", contract_list, name="contracts"),
    path("<slug:slug>/contracts/new/", contract_new, name="contract_new"),
    path("<slug:slug>/contracts/parley/", parley, name="parley"),
    path("<slug:slug>/contracts/<int:pk>/", contract_detail, name="contract"),
    path("<slug:slug>/contracts/<int:pk>/pdf/", contract_pdf_view, name="contract_pdf"),
    path("<slug:slug>/contracts/<int:pk>/sign/", contract_sign, name="contract_sign"),
    path("<slug:slug>/contracts/<int:pk>/sign/<int:dynasty>/", contract_sign_party, name="contract_sign_party"),
    path("<slug:slug>/contracts/<int:pk>/end/", contract_end, name="contract_end"),
    path("<slug:slug>/contracts/<int:pk>/breach/", breach_new, name="breach_new"),
    path("<slug:slug>/contracts/<int:pk>/breaches/<int:breach>/dispute/", dispute, name="dispute"),
    path("<slug:slug>/contracts/<int:pk>/payments/<int:payment>/settle/", payment_settle, name="payment_settle"),
]
