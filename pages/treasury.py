"""Pages: the treasury (issue 7). The exchequers a viewer may see, one exchequer's ledger with its
balance-over-turns chart, gifts and loans between houses, the GM's reversing corrections, and
the Blood Royale Interphase helper form.

Secrecy (RULES.md E7): the GM sees every exchequer; a player only his own house's; an observer
none. Another house's exchequer answers 404 (never a hint that it exists or what it holds). Every
write goes through ``pages.common.run_action`` and the services of ``dynasties.treasury`` and
``dynasties.services.interphase``; each GET runs a fixed number of queries, however long the ledger."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Case, F, IntegerField, Sum, When
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_http_methods

from campaign.models import Campaign, Step
from campaign.permissions import can_view_exchequer, has_own_house, keeps_the_ledger, sees_exchequer
from dynasties.models import Character, Dynasty, Posting, PostingKind, Status
from dynasties.selectors import exchequers_seen
from dynasties.services.interphase import (
    cash_in_open_runs,
    cash_in_preview,
    cash_in_run,
    interphase_open_runs,
    interphase_preview,
    interphase_run,
    last_figures,
)
from dynasties.services.play_registry import plays_interphase
from dynasties.services.provinces import register_entry
from dynasties.services.titles import governed_provinces
from dynasties.treasury import TREASURY, balance, currency, ledger, posting_reverse, treasury_transfer
from pages.charts import balance_svg, year_end_balances
from pages.common import ActionFailed, context, member, run_action, set_choices
from pages.debts import debts_for, split
from rules import interphase as ip
from rules.errors import RuleError

PER_PAGE = 50
STEP_NAMES: dict[str, str] = {
    Step.BIRTHS: "Births",
    Step.SURVIVAL: "Survival",
    Step.MARRIAGES: "Marriages",
    Step.ANNOUNCEMENTS: "Announcements",
    Step.INTERPHASE: "Interphase",
}
KIND_NAMES = dict(PostingKind.choices)
TO_TREASURY = "treasury"


# --- who may see which exchequer ----------------------------------------------------------------


def _exchequer(request: HttpRequest, slug: str, dynasty_pk: int) -> tuple[Campaign, str, int | None, Dynasty]:
    """The campaign, the viewer's role and house, and the dynasty whose exchequer is asked for;
    404 for a non-member, and for anyone but the GM and that house's player (an observer, another
    house's player) whether or not the dynasty exists."""
    campaign, role, mine = member(request, slug)
    if not sees_exchequer(role, mine, dynasty_pk):
        raise Http404("No such exchequer.")
    dynasty = get_object_or_404(Dynasty, campaign=campaign, pk=dynasty_pk)
    dynasty.campaign = campaign  # already read
    if not can_view_exchequer(request.user, dynasty):  # the one permission layer, to be sure
        raise Http404("No such exchequer.")
    return campaign, role, mine, dynasty


# --- forms ------------------------------------------------------------------------------------------

WHOLE = {
    "required": "Give the amount, a whole number above 0.",
    "invalid": "The amount must be a whole number above 0 (no fractions, no letters).",
    "min_value": "The amount must be a whole number above 0.",
    "max_value": "That is more money than the ledger keeps: at most %(limit_value)s.",
}


class TransferForm(forms.Form):
    """A gift or a loan from this exchequer to another house (the GM may also pay the Treasury)."""

    form = forms.CharField(widget=forms.HiddenInput, initial="transfer")
    payee = forms.ChoiceField(label="To", error_messages={"required": "Choose the house that receives the money."})
    kind = forms.ChoiceField(
        label="As",
        choices=[(PostingKind.TRANSFER, "A gift"), (PostingKind.LOAN, "A loan"), (PostingKind.OTHER, "Another payment")],
        initial=PostingKind.TRANSFER,
        error_messages={"invalid_choice": "Choose a gift, a loan or another payment."},
    )
    amount = forms.IntegerField(
        label="Amount",
        min_value=1,
        max_value=1_000_000_000,
        error_messages=WHOLE,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": 1, "step": 1}),
    )
    reason = forms.CharField(
        label="What it is for",
        max_length=200,
        error_messages={"required": "Say what the payment is for."},
        widget=forms.TextInput(attrs={"placeholder": "e.g. a loan against the next harvest"}),
    )

    def __init__(self, *args: Any, houses: list[Dynasty], to_treasury: bool, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "pay_%s")
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        choices = [("", "Choose a house")] + [(str(d.pk), str(d)) for d in houses]
        if to_treasury:
            choices.append((TO_TREASURY, f"{TREASURY[0].upper()}{TREASURY[1:]} (the bank)"))
        set_choices(self, "payee", choices=choices)
        self.fields["payee"].error_messages["invalid_choice"] = "Choose one of the other houses of the campaign."


class ReverseForm(forms.Form):
    """The GM's correction: a mirror posting that undoes one posting."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "reverse_%s")
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    form = forms.CharField(widget=forms.HiddenInput, initial="reverse")
    posting = forms.IntegerField(widget=forms.HiddenInput)
    reason = forms.CharField(
        label="Why",
        max_length=150,
        error_messages={"required": "Say why the posting is reversed."},
        widget=forms.TextInput(attrs={"placeholder": "e.g. entered twice"}),
    )


# --- the list of exchequers -----------------------------------------------------------------------


@require_http_methods(["GET"])
@login_required
def treasury(request: HttpRequest, slug: str) -> HttpResponse:
    """The GM: every exchequer with its balance. A player: straight to his own. An observer: a
    message that money is private (no names, no counts)."""
    campaign, role, mine = member(request, slug)
    if has_own_house(role, mine):
        return redirect("pages:exchequer", slug=campaign.slug, dynasty_pk=mine)
    seen = exchequers_seen(campaign, request.user)  # the GM: every house's and the Treasury's; else none
    rows: list[dict[str, Any]] = [{"dynasty": d, "balance": money} for d, money in seen if d is not None]
    bank = next((money for d, money in seen if d is None), 0)
    return render(
        request,
        "pages/treasury/list.html",
        context(
            campaign,
            role,
            mine,
            rows=rows,
            bank=bank,
            bank_out=-bank,
            currency=currency(campaign),
            interphase=plays_interphase(campaign),
        ),
    )


# --- one exchequer ----------------------------------------------------------------------------------


def _signed(dynasty: Dynasty) -> Sum:
    """The sum of postings as the exchequer sees them: received less paid."""
    return Sum(Case(When(payee_id=dynasty.pk, then=F("amount")), default=-F("amount"), output_field=IntegerField()))


def _yearly(campaign: Campaign, dynasty: Dynasty) -> list[tuple[int, int]]:
    """(year, net movement) of the exchequer, in one query."""
    rows = ledger(campaign, dynasty).order_by().values("year").annotate(net=_signed(dynasty)).order_by("year")  # type: ignore[attr-defined]
    return [(r["year"], int(r["net"])) for r in rows]


def _exchequer_top(campaign: Campaign, dynasty: Dynasty) -> str:
    """The exchequer after a payment, a correction or the Interphase: its top, where the message
    and the new balance are (not the form's fragment, which the browser would otherwise keep)."""
    return reverse("pages:exchequer", kwargs={"slug": campaign.slug, "dynasty_pk": dynasty.pk}) + "#top"


def _exchequer_page(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    dynasty: Dynasty,
    *,
    transfer: TransferForm | None = None,
    correction: ReverseForm | None = None,
    status: int = 200,
) -> HttpResponse:
    money = currency(campaign)
    yearly = _yearly(campaign, dynasty)
    held = sum(net for _, net in yearly)
    series = year_end_balances(yearly, start=campaign.start_year, end=campaign.current_year)
    chart = balance_svg(
        series,
        title=f"Balance of the house of {dynasty.name}, {series[0][0]}–{series[-1][0]}",
        currency=money,
        id_prefix=f"balance-{dynasty.pk}",
        turn=campaign.turn_length,
        origin=campaign.start_year,
    )
    entries = ledger(campaign, dynasty).select_related("reversed_by").order_by("-id")  # type: ignore[attr-defined]
    page = Paginator(entries, PER_PAGE).get_page(request.GET.get("page"))
    rows = list(page.object_list)
    running = held
    if rows:
        later = ledger(campaign, dynasty).filter(id__gt=rows[0].pk).aggregate(s=_signed(dynasty))["s"]  # type: ignore[attr-defined]
        running = held - int(later or 0)
    for p in rows:
        p.signed = p.amount if p.payee_id == dynasty.pk else -p.amount
        p.running = running
        running -= p.signed
        other = p.payer if p.payee_id == dynasty.pk else p.payee
        p.counterparty = str(other) if other is not None else TREASURY
        p.step_name = STEP_NAMES.get(p.step, p.step)
        p.kind_name = KIND_NAMES.get(p.kind, p.kind)
        try:
            p.reversal_pk = p.reversed_by.pk
        except Posting.DoesNotExist:
            p.reversal_pk = None
        p.reversible = p.kind != PostingKind.CORRECTION and p.reversal_pk is None
    houses = list(Dynasty.objects.filter(campaign=campaign).exclude(pk=dynasty.pk).order_by("seat", "name"))
    if transfer is None:
        transfer = TransferForm(houses=houses, to_treasury=keeps_the_ledger(role))
    owes, owed = split(debts_for(campaign, role, mine, house=dynasty.pk), dynasty.pk)
    failed = str(correction["posting"].value()) if correction is not None else None
    inline = failed is not None and any(str(p.pk) == failed and p.reversible for p in rows)
    return render(
        request,
        "pages/treasury/exchequer.html",
        context(
            campaign,
            role,
            mine,
            dynasty=dynasty,
            currency=money,
            balance=held,
            chart=chart,
            series=series,
            page=page,
            rows=rows,
            transfer=transfer,
            correction=correction,
            failed=failed if inline else None,
            interphase=plays_interphase(campaign),
            own=mine == dynasty.pk,
            owes=owes,
            owed=owed,
            owes_total=sum(d["amount"] for d in owes),
            owed_total=sum(d["amount"] for d in owed),
            action=request.get_full_path(),
        ),
        status=status,
    )


def _refuse(form: forms.Form, failure: ActionFailed, default: str | None = None) -> None:
    """Put the services' refusal next to the field it names (else ``default``, else on top)."""
    named = [f for f in failure.fields if f in form.fields]
    field = named[0] if named else default
    form.add_error(field, failure.message)


@require_http_methods(["GET", "POST"])
@login_required
def exchequer(request: HttpRequest, slug: str, dynasty_pk: int) -> HttpResponse:
    campaign, role, mine, dynasty = _exchequer(request, slug, dynasty_pk)
    if request.method == "GET":
        return _exchequer_page(request, campaign, role, mine, dynasty)
    kind = request.POST.get("form")
    if kind == "transfer":
        return _transfer(request, campaign, role, mine, dynasty)
    if kind == "reverse":
        if not keeps_the_ledger(role):
            raise PermissionDenied("Only the game master corrects the ledger.")
        return _reverse(request, campaign, role, mine, dynasty)
    return HttpResponse("Unknown form.", status=400, content_type="text/plain")


def _transfer(request: HttpRequest, campaign: Campaign, role: str, mine: int | None, dynasty: Dynasty) -> HttpResponse:
    houses = list(Dynasty.objects.filter(campaign=campaign).exclude(pk=dynasty.pk).order_by("seat", "name"))
    form = TransferForm(request.POST, houses=houses, to_treasury=keeps_the_ledger(role))
    if not form.is_valid():
        return _exchequer_page(request, campaign, role, mine, dynasty, transfer=form, status=400)
    data = form.cleaned_data
    payee = None if data["payee"] == TO_TREASURY else int(data["payee"])
    label = f"{data['amount']} from {dynasty.name}"

    def action(locked: Campaign) -> Posting:
        return treasury_transfer(
            campaign=locked,
            payer=dynasty.pk,
            payee=payee,
            amount=data["amount"],
            reason=data["reason"],
            kind=data["kind"],
            by=request.user,
        )

    try:
        posting = run_action(request, campaign, f"Payment: {label}", action)
    except ActionFailed as failure:
        _refuse(form, failure)
        return _exchequer_page(request, campaign, role, mine, dynasty, transfer=form, status=400)
    if posting is not None:
        to = str(posting.payee) if posting.payee is not None else TREASURY
        messages.success(request, f"Paid {posting.amount} {currency(campaign)} to {to}: {posting.reason}.")
    return redirect(_exchequer_top(campaign, dynasty))


def _reverse(request: HttpRequest, campaign: Campaign, role: str, mine: int | None, dynasty: Dynasty) -> HttpResponse:
    form = ReverseForm(request.POST)
    if form.is_valid():
        pk = form.cleaned_data["posting"]
        if not ledger(campaign, dynasty).filter(pk=pk).exists():  # type: ignore[attr-defined]
            form.add_error(None, f"Posting #{pk} is not in the ledger of the house of {dynasty.name}.")
    if not form.is_valid():
        return _exchequer_page(request, campaign, role, mine, dynasty, correction=form, status=400)
    pk, reason = form.cleaned_data["posting"], form.cleaned_data["reason"]
    try:
        reversal = run_action(
            request,
            campaign,
            f"Correction of posting #{pk}",
            lambda locked: posting_reverse(campaign=locked, posting=pk, reason=reason, by=request.user),
        )
    except ActionFailed as failure:
        _refuse(form, failure)
        return _exchequer_page(request, campaign, role, mine, dynasty, correction=form, status=400)
    if reversal is not None:
        messages.success(request, f"Posting #{pk} is reversed by posting #{reversal.pk}.")
    return redirect(_exchequer_top(campaign, dynasty))


# --- the Interphase helper --------------------------------------------------------------------------

COUNT_ERRORS = {
    "invalid": "Give a whole number, 0 or more.",
    "min_value": "Give a whole number, %(limit_value)s or more.",
    "max_value": "At most %(limit_value)s.",
}
PROVINCE_HELP = "A number, or the provinces' names separated by commas."
NUMBER = re.compile(r"[+-]?\d+")


class ProvincesField(forms.CharField):
    """A number of provinces or a list of their names (the helper takes either)."""

    def __init__(self, *, blank: int | None = 0, **kwargs: Any) -> None:
        self.blank = blank
        kwargs.setdefault("help_text", PROVINCE_HELP)
        kwargs.setdefault("widget", forms.TextInput(attrs={"autocomplete": "off"}))
        super().__init__(**kwargs)

    def clean(self, value: Any) -> int | list[str] | None:
        text = super().clean(value).strip()
        if not text:
            return self.blank
        if NUMBER.fullmatch(text):
            number = int(text)
            if number < 0:
                raise forms.ValidationError("Give 0 or more provinces.")
            if number > 1000:
                raise forms.ValidationError("That is more provinces than the map holds.")
            return number
        names = [name.strip() for name in re.split(r"[,;\n]", text) if name.strip()]
        if any(NUMBER.fullmatch(name) for name in names):
            raise forms.ValidationError("Give either one number or the provinces' names, not numbers among names.")
        return names


def _count(
    label: str, *, minimum: int = 0, maximum: int = 100, initial: int | None = 0, required: bool = False
) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        min_value=minimum,
        max_value=maximum,
        initial=initial,
        required=required,
        error_messages=COUNT_ERRORS,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": minimum, "step": 1}),
    )


COUNTS = (
    "armies_kept",
    "fleets_kept",
    "armies_on_track",
    "armies_raised",
    "fleets_raised",
    "trade_defence_crowns",
    "trade_interception_crowns",
)
SET_COUNTS = ("basic_sets", "semi_luxury_sets", "luxury_sets")


class InterphaseForm(forms.Form):
    """What the player enters for one country's Interphase (rules.interphase)."""

    provinces = ProvincesField(
        label=ip.LABELS["provinces"], blank=None, error_messages={"required": "Give the provinces the country controls."}
    )
    tax_rate = forms.TypedChoiceField(
        label="Tax rate",
        coerce=int,
        choices=[(ip.NORMAL_TAX, str(ip.NORMAL_TAX)), (ip.HIGH_TAX, str(ip.HIGH_TAX))],
        initial=ip.NORMAL_TAX,
        widget=forms.RadioSelect,
        error_messages={"invalid_choice": f"The tax rate is {ip.NORMAL_TAX} or {ip.HIGH_TAX} per province."},
    )
    famine = ProvincesField(label=ip.LABELS["famine"], required=False)
    rebellion = ProvincesField(label=ip.LABELS["rebellion"], required=False)
    rebellions_bought_off = ProvincesField(
        label=ip.LABELS["rebellions_bought_off"],
        required=False,
        help_text=f"{ip.REBELLION_BUY_OFF_CROWNS} each. A number, or names among those in rebellion.",
    )
    home_provinces = ProvincesField(
        label=ip.LABELS["home_provinces"],
        required=False,
        blank=None,
        help_text="Needed to raise armies (at most 2 per home province not in rebellion). A number or names.",
    )
    home_in_rebellion = _count(ip.LABELS["home_in_rebellion"], initial=None)
    armies_kept = _count(ip.LABELS["armies_kept"], maximum=200)
    fleets_kept = _count(ip.LABELS["fleets_kept"], maximum=40)
    armies_on_track = _count(ip.LABELS["armies_on_track"], maximum=200)
    armies_raised = _count(ip.LABELS["armies_raised"], maximum=200)
    fleets_raised = _count(ip.LABELS["fleets_raised"], maximum=40)
    capital_rebellion = forms.BooleanField(
        label="A rebellion in the capital in this turn's Movement (optional rules)", required=False
    )
    countries = _count(ip.LABELS["countries"], minimum=1, maximum=10, initial=1)
    capital = forms.CharField(label=ip.LABELS["capital"], required=False, max_length=80)
    fleet_ports = forms.CharField(label=ip.LABELS["fleet_ports"], required=False, max_length=800)
    neutral_ransoms = forms.TypedMultipleChoiceField(
        label=ip.LABELS["neutral_ransoms"],
        required=False,
        coerce=int,
        choices=[],
        widget=forms.CheckboxSelectMultiple,
    )
    trade_defence_crowns = _count(ip.LABELS["trade_defence_crowns"], maximum=1000)
    trade_interception_crowns = _count(ip.LABELS["trade_interception_crowns"], maximum=1000)
    event_payments = forms.CharField(
        label=ip.LABELS["event_payments"],
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text='One a line: the card, a colon and the Crowns paid, e.g. "31 Denmark: 40".',
    )
    governed = forms.CharField(
        label=ip.LABELS["governed"],
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text='Optional rule G: one province a line, e.g. "Kent", "Kent, withholds 3", "Kent, present" '
        "(the governor is the title's holder; a foreign one keeps the 2 extra).",
    )

    GROUPS = (
        ("Provinces and taxation", ("provinces", "tax_rate", "famine", "rebellion")),
        (
            "Rebellions and forces",
            (
                "rebellions_bought_off",
                "home_provinces",
                "home_in_rebellion",
                "armies_kept",
                "fleets_kept",
                "armies_on_track",
                "armies_raised",
                "fleets_raised",
                "countries",
                "capital",
                "fleet_ports",
            ),
        ),
        ("Governed provinces (rule G)", ("governed",)),
        (
            "Payments of the Movement",
            (
                "neutral_ransoms",
                "trade_defence_crowns",
                "trade_interception_crowns",
                "event_payments",
            ),
        ),
        ("Events of the Movement", ("capital_rebellion",)),
    )

    def __init__(
        self,
        *args: Any,
        money: str = "Crowns",
        royals: Sequence[tuple[int, str]] = (),
        rule_g: bool = True,
        rule_d: bool = True,
        rule_e: bool = True,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        if not rule_g:  # governed provinces only with optional rule G in force
            del self.fields["governed"]
        if not rule_d:  # Crowns paid on trade interceptions only with optional rule D
            del self.fields["trade_defence_crowns"], self.fields["trade_interception_crowns"]
        if not rule_e:  # bids and investments on event cards only with optional rule E
            del self.fields["event_payments"]
        ransoms = self.fields["neutral_ransoms"]
        assert isinstance(ransoms, forms.TypedMultipleChoiceField)
        ransoms.choices = list(royals)
        helps = {
            "home_in_rebellion": "After this Interphase's buy-offs. Leave empty to let the helper work it out.",
            "armies_kept": f"On the map; {ip.MAINTENANCE_CROWNS} {money} each.",
            "fleets_kept": f"{ip.MAINTENANCE_CROWNS} {money} each.",
            "armies_on_track": "Lost in combat or plague in the previous turn: not in the pool, they cannot be raised.",
            "capital": "Where new armies are placed (the first turn: anywhere at home). Optional.",
            "neutral_ransoms": f"Captured by neutrals: {ip.NEUTRAL_RANSOM_CROWNS} {money} each to the Treasury.",
            "trade_defence_crowns": f"-1 on an interception roll for each {ip.TRADE_DEFENCE_STEP} {money}; not those of an "
            "interception recorded on the turn page (already paid).",
            "trade_interception_crowns": f"+1 on an interception roll for each {ip.TRADE_INTERCEPTION_STEP} {money}; not "
            "those of an interception recorded on the turn page (already paid).",
            "fleet_ports": "The coastal home province of each fleet raised, separated by commas. Optional.",
            "armies_raised": f"{ip.RAISING_CROWNS} {money} each; at most {ip.MAX_ARMIES} armies per country.",
            "fleets_raised": f"{ip.RAISING_CROWNS} {money} each; at most {ip.MAX_FLEETS} fleets per country.",
            "countries": "More than 1 if the player controls several kingdoms.",
            "capital_rebellion": "Half the cash in hand after the Interphase goes back to the Treasury (sets cashed "
            "in at the end of the turn are not halved).",
            "famine": "They pay no tax. " + PROVINCE_HELP,
            "rebellion": "They pay no tax. " + PROVINCE_HELP,
        }
        for name, text in helps.items():
            if name in self.fields:  # a field of an optional rule not in force is not on the form
                self.fields[name].help_text = text
        set_choices(
            self,
            "tax_rate",
            choices=[
                (ip.NORMAL_TAX, f"{ip.NORMAL_TAX} {money} per province (normal)"),
                (ip.HIGH_TAX, f"{ip.HIGH_TAX} {money} (high: {ip.HIGH_TAX_REBELLION_MODIFIER} on this turn's Rebellion rolls)"),
            ],
        )

    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        groups = [(legend, [self[name] for name in names if name in self.fields]) for legend, names in self.GROUPS]
        return [(legend, fields) for legend, fields in groups if fields]

    def clean_governed(self) -> list[ip.Governed]:
        """ "Kent, withholds 3, present" a line -> [Governed(province="Kent", withheld=3, present=True)]."""
        out: list[ip.Governed] = []
        for raw in (self.cleaned_data.get("governed") or "").splitlines():
            parts = [part.strip() for part in raw.split(",") if part.strip()]
            if not parts:
                continue
            withheld, present = 0, False
            for part in parts[1:]:
                words = part.casefold().split()
                if words == ["present"]:
                    present = True
                elif len(words) == 2 and words[0] in ("withholds", "withheld") and words[1].isdigit():
                    withheld = int(words[1])
                else:
                    raise forms.ValidationError(f'{parts[0]}: "{part}" is neither "present" nor "withholds N".')
            out.append(ip.Governed(province=parts[0], withheld=withheld, present=present))
        return out

    def clean_event_payments(self) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        for raw in (self.cleaned_data.get("event_payments") or "").splitlines():
            if not raw.strip():
                continue
            card, _, amount = raw.rpartition(":")
            if not card.strip() or not amount.strip().isdigit() or int(amount) < 1:
                raise forms.ValidationError(f'"{raw.strip()}": give the card, a colon and the Crowns paid.')
            out.append((card.strip(), int(amount)))
        return out

    def clean_capital(self) -> str | None:
        return (self.cleaned_data.get("capital") or "").strip() or None

    def clean_fleet_ports(self) -> list[str]:
        return [name.strip() for name in (self.cleaned_data.get("fleet_ports") or "").split(",") if name.strip()]

    def entry(self) -> ip.InterphaseEntry:
        """The entry of interphase_preview / interphase_run (an empty count is 0; a field of an
        optional rule not in force is not on the form, and left at the entry's default)."""
        data = dict(self.cleaned_data)
        for name in COUNTS:
            if data.get(name) is None:
                data[name] = 0
        if data.get("countries") is None:
            data["countries"] = 1
        return ip.InterphaseEntry(**data)


class CashInForm(forms.Form):
    """The resource sets a house cashes in at its capital at the end of the turn (sequence of play D)."""

    basic_sets = _count(ip.LABELS["basic_sets"])
    semi_luxury_sets = _count(ip.LABELS["semi_luxury_sets"])
    luxury_sets = _count(ip.LABELS["luxury_sets"])

    def __init__(self, *args: Any, money: str = "Crowns", **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["basic_sets"].help_text = f"Metals, cloth and food: {ip.BASIC_SET_CROWNS} {money}."
        self.fields["semi_luxury_sets"].help_text = f"A basic set and a semi-luxury: {ip.SEMI_LUXURY_SET_CROWNS} {money}."
        self.fields["luxury_sets"].help_text = f"A basic set, a semi-luxury and a luxury: {ip.LUXURY_SET_CROWNS} {money}."

    def entry(self) -> dict[str, int]:
        """The keyword arguments of cash_in_preview / cash_in_run (an empty count is 0)."""
        return {name: self.cleaned_data.get(name) or 0 for name in SET_COUNTS}


def _rules_in_force(campaign: Campaign) -> dict[str, bool]:
    """The optional rules that shape the Interphase form (G: governed provinces; D: Crowns paid on
    trade interceptions; E: bids and investments on event cards)."""
    return {
        "rule_g": campaign.option("governing_provinces"),
        "rule_d": campaign.option("trade_item_movement"),
        "rule_e": campaign.option("event_cards"),
    }


def _royals(dynasty: Dynasty) -> list[tuple[int, str]]:
    """The house's living members who are no player's prisoners: those neutrals may have captured."""
    return [
        (c.pk, c.display_name)
        for c in Character.objects.filter(controlled_by=dynasty, status=Status.ALIVE, prisoner_of__isnull=True)
    ]


def _initial(campaign: Campaign, dynasty: Dynasty) -> dict[str, Any]:
    """What the form proposes: last turn's figures (tax rate, armies and fleets kept, countries:
    ``last_figures``), the province register's provinces, markers, Home Provinces and capital
    (``dynasties.services.provinces.register_entry``), and rule G's governed provinces from the titles
    held; the player corrects what the table says otherwise (a house whose provinces and forces did
    not change posts it in one click)."""
    kept = register_entry(campaign, dynasty) if plays_interphase(campaign) else None
    crowns = kept["crowns"] if kept is not None else [dynasty.crown] if dynasty.crown else []
    initial: dict[str, Any] = {"governed": "\n".join(governed_provinces(campaign, *crowns))}
    if plays_interphase(campaign):  # last year's tax rate, forces and countries (dynasties.services.interphase)
        initial.update(last_figures(campaign, dynasty))
    if kept is not None:
        for name in ("provinces", "famine", "rebellion", "home_provinces"):
            initial[name] = ", ".join(kept[name])
        initial["capital"] = kept["capital"] or ""
    return initial


def _interphase_page(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    dynasty: Dynasty,
    *,
    form: InterphaseForm | None = None,
    preview: ip.InterphaseResult | None = None,
    cash_form: CashInForm | None = None,
    cash_preview: ip.CashInResult | None = None,
    status: int = 200,
) -> HttpResponse:
    supported = plays_interphase(campaign)
    initial = _initial(campaign, dynasty) if form is None else {}
    done = interphase_open_runs(campaign, dynasty) if supported else []
    cashed = cash_in_open_runs(campaign, dynasty) if supported else []
    return render(
        request,
        "pages/treasury/interphase.html",
        context(
            campaign,
            role,
            mine,
            dynasty=dynasty,
            balance=balance(campaign, dynasty),
            supported=supported,
            preview=preview,
            form=form
            or InterphaseForm(
                money=currency(campaign),
                royals=_royals(dynasty),
                **_rules_in_force(campaign),
                initial=initial,
            ),
            figures_of=initial.get("year"),  # the year whose figures the form starts from
            done=done,
            open=campaign.step == Step.INTERPHASE,
            cash_form=cash_form or CashInForm(money=currency(campaign)),
            cash_preview=cash_preview,
            cashed=cashed,
            currency=currency(campaign),
            first_turn=campaign.current_year == campaign.start_year,
            step_name=STEP_NAMES.get(campaign.step, campaign.step),
            IN=ip.IN,
        ),
        status=status,
    )


def _service_refusal(form: InterphaseForm | CashInForm, exc: RuleError | ActionFailed) -> None:
    """The helper's refusal on the form: next to the one field it names; with several, on top and
    each field marked."""
    named = [f for f in exc.fields if f in form.fields]
    if len(named) == 1:
        form.add_error(named[0], exc.message)
        return
    form.add_error(None, exc.message)
    for name in named:
        form.add_error(name, "Check this entry (see the message above).")


@require_http_methods(["GET", "POST"])
@login_required
def interphase(request: HttpRequest, slug: str, dynasty_pk: int) -> HttpResponse:
    """GET: the form. POST "preview": what a run would post, nothing written. POST "run": post it
    (once: a second submit of the same form, or a second run in the year, posts nothing). The
    cashing-in's form posts "cash_in_preview" and "cash_in" the same way."""
    campaign, role, mine, dynasty = _exchequer(request, slug, dynasty_pk)
    if request.method == "GET" or not plays_interphase(campaign):
        status = 200 if request.method == "GET" else 400
        return _interphase_page(request, campaign, role, mine, dynasty, status=status)
    money = currency(campaign)
    do = request.POST.get("do")
    if do in ("cash_in_preview", "cash_in"):
        sets = CashInForm(request.POST, money=money)
        counts = sets.entry() if sets.is_valid() else {}
        return _preview_or_run(
            request,
            (campaign, role, mine, dynasty),
            sets,
            run=do == "cash_in",
            preview=lambda: cash_in_preview(campaign=campaign, dynasty=dynasty, by=request.user, **counts),
            post=lambda locked: cash_in_run(campaign=locked, dynasty=dynasty.pk, by=request.user, **counts),
            label="The cashing-in",
            posted=lambda run: (
                f"The cashing-in of {campaign.current_year} is posted: {run.result.income} {money}; the "
                f"exchequer holds {run.balance} {money}."
            ),
        )
    form = InterphaseForm(request.POST, money=money, royals=_royals(dynasty), **_rules_in_force(campaign))
    entry = form.entry() if form.is_valid() else ip.InterphaseEntry()
    return _preview_or_run(
        request,
        (campaign, role, mine, dynasty),
        form,
        run=do == "run",
        preview=lambda: interphase_preview(campaign=campaign, dynasty=dynasty, entry=entry, by=request.user),
        post=lambda locked: interphase_run(campaign=locked, dynasty=dynasty.pk, entry=entry, by=request.user),
        label="The Interphase",
        posted=lambda run: (
            f"The Interphase of {campaign.current_year} is posted: income {run.result.income} {money}, "
            f"costs {run.result.costs} {money}; the exchequer holds {run.balance} {money}."
        ),
    )


def _preview_or_run(
    request: HttpRequest,
    where: tuple[Campaign, str, int | None, Dynasty],
    form: InterphaseForm | CashInForm,
    *,
    run: bool,
    preview: Callable[[], Any],
    post: Callable[[Campaign], Any],
    label: str,
    posted: Callable[[Any], str],
) -> HttpResponse:
    """A house's money phase posted from its form (the Interphase, the cashing-in): an invalid form
    or a refusal comes back on the page (400), next to the entry at fault; a preview is shown with
    nothing written; a run is one step action (``run_action``), then the exchequer."""
    campaign, role, mine, dynasty = where
    names = ("form", "preview") if isinstance(form, InterphaseForm) else ("cash_form", "cash_preview")

    def page(status: int = 200, result: Any = None) -> HttpResponse:
        shown = {names[0]: form, names[1]: result}
        return _interphase_page(request, campaign, role, mine, dynasty, status=status, **shown)

    if not form.is_valid():
        return page(400)
    if not run:
        try:
            result = preview()
        except RuleError as exc:
            _service_refusal(form, exc)
            return page(400)
        return page(result=result)
    try:
        done = run_action(request, campaign, f"{label} of the house of {dynasty.name}", post)
    except ActionFailed as failure:
        _service_refusal(form, failure)
        return page(400)
    if done is not None:
        messages.success(request, posted(done))
    return redirect(_exchequer_top(campaign, dynasty))


urlpatterns = [
    path("<slug:slug>/treasury/", treasury, name="treasury"),
    path("<slug:slug>/treasury/<int:dynasty_pk>/", exchequer, name="exchequer"),
    path("<slug:slug>/treasury/<int:dynasty_pk>/interphase/", interphase, name="interphase"),
]
