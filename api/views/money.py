"""Money actions (issue 8): gifts and loans between houses, the GM's reversing corrections, and
the Blood Royale Interphase helper (preview, then run).

Who acts (as ``pages/treasury.py``): a player pays from his own exchequer only and runs his own
house's Interphase; the GM pays from any exchequer (and to the Treasury) and alone corrects the
ledger; an observer never touches money. The writers are ``dynasties.treasury`` and
``dynasties.services.interphase``; every write goes through ``run_action``. Answers show only the
exchequers the caller may see (the payer's, which is his own or the GM's to see)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import prefetch_related_objects
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.schema import IDEMPOTENCY_KEY
from api.views.actions import ActionView, IdField, act
from api.views.treasury import PostingOut
from campaign.models import Campaign
from dynasties.models import Dynasty, Posting, PostingKind
from dynasties.services.interphase import cash_in_preview, cash_in_run, interphase_preview, interphase_run
from dynasties.treasury import balance, currency, posting_reverse, treasury_transfer
from rules import interphase as ip
from rules.errors import NotFound

KINDS = {"gift": PostingKind.TRANSFER, "loan": PostingKind.LOAN, "other": PostingKind.OTHER}
MAX_AMOUNT = 1_000_000_000


# --- gifts and loans -------------------------------------------------------------------------------


class TransferIn(serializers.Serializer[Any]):
    payer = IdField(help_text="The paying dynasty: your own (the GM: any).")
    payee = IdField(allow_null=True, help_text="The receiving dynasty; null: the Treasury (the GM only).")
    amount = serializers.IntegerField(min_value=1, max_value=MAX_AMOUNT, help_text="A whole number above 0.")
    kind = serializers.ChoiceField(choices=[("gift", "A gift"), ("loan", "A loan"), ("other", "Another payment")], default="gift")
    reason = serializers.CharField(max_length=200, help_text="What the payment is for.")

    class Meta:
        ref_name = "TransferRequest"

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if data["payee"] is not None and data["payee"] == data["payer"]:
            raise serializers.ValidationError({"payee": "A payment goes to another house than the payer."})
        return data


class TransferMadeSerializer(serializers.Serializer[Any]):
    posting = PostingOut()
    balance = serializers.IntegerField(help_text="The payer's exchequer after the payment.")
    currency = serializers.CharField()

    class Meta:
        ref_name = "TransferResult"


class TransferView(ActionView):
    api_tag = "treasury"

    @extend_schema(
        request=TransferIn,
        responses={201: TransferMadeSerializer},
        parameters=[IDEMPOTENCY_KEY],
        summary="A gift, a loan or another payment from an exchequer (a player: his own only)",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = TransferIn(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data

        def pay(c: Campaign) -> Posting:  # who may pay from which exchequer, and to the Treasury: the service asks the policy
            return treasury_transfer(
                campaign=c,
                payer=d["payer"],
                payee=d["payee"],
                amount=d["amount"],
                reason=d["reason"],
                kind=KINDS[d["kind"]],
                by=request.user,
            )

        posting, _ = act(request, v.campaign, f"Payment: {d['amount']} from dynasty #{d['payer']}", pay)
        body = {"posting": posting, "balance": balance(v.campaign, d["payer"]), "currency": currency(v.campaign)}
        return Response(TransferMadeSerializer(body, context=self.out_context()).data, status=status.HTTP_201_CREATED)


class ReverseIn(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=150, help_text="Why the posting is reversed.")

    class Meta:
        ref_name = "PostingReverseRequest"


class ReverseMadeSerializer(serializers.Serializer[Any]):
    reversal = PostingOut(help_text="The mirror posting (kind correction).")
    reversed = PostingOut(help_text="The posting it undoes.")

    class Meta:
        ref_name = "PostingReverseResult"


class ReverseView(ActionView):
    api_tag = "treasury"

    @extend_schema(
        request=ReverseIn,
        responses={201: ReverseMadeSerializer},
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM's correction: a mirror posting that undoes a posting (nothing is edited)",
    )
    def post(self, request: Request, slug: str, posting: int) -> Response:
        v = self.viewer
        data = ReverseIn(data=request.data)
        data.is_valid(raise_exception=True)
        reason = data.validated_data["reason"]
        reversal, _ = act(
            request,
            v.campaign,
            f"Correction of posting #{posting}",
            lambda c: posting_reverse(campaign=c, posting=posting, reason=reason, by=request.user),
        )
        body = {"reversal": reversal, "reversed": Posting.objects.select_related("contract_link").get(pk=posting)}
        return Response(ReverseMadeSerializer(body, context=self.out_context()).data, status=status.HTTP_201_CREATED)


# --- the Interphase helper ---------------------------------------------------------------------------


@extend_schema_field(
    {
        "oneOf": [
            {"type": "integer", "minimum": 0, "maximum": 1000},
            {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 80}, "maxItems": 1000},
        ],
        "description": "A number of provinces, or the provinces' names.",
    }
)
class ProvincesField(serializers.Field):  # type: ignore[type-arg]
    """A number of provinces (0 to 1000) or a list of their names (as the helper takes either)."""

    default_error_messages = {
        "invalid": "Give a number of provinces (0 to 1000) or a list of their names.",
        "name": "A province's name is 1 to 80 characters.",
    }

    def to_internal_value(self, data: Any) -> int | list[str]:
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, int):
            if not 0 <= data <= 1000:
                self.fail("invalid")
            return data
        if isinstance(data, list) and len(data) <= 1000:
            names = []
            for item in data:
                if not isinstance(item, str) or not 1 <= len(item.strip()) <= 80 or "\x00" in item:
                    self.fail("name")
                names.append(item.strip())
            return names
        self.fail("invalid")
        raise AssertionError  # fail raises

    def to_representation(self, value: Any) -> Any:
        return value


def _count(maximum: int, *, minimum: int = 0, default: int = 0, label: str = "") -> serializers.IntegerField:
    return serializers.IntegerField(min_value=minimum, max_value=maximum, default=default, help_text=label)


class GovernedIn(serializers.Serializer[Any]):
    """Optional rule G: one governed province of the country (its governor is the title's holder)."""

    province = serializers.CharField(max_length=80)
    withheld = serializers.IntegerField(
        min_value=0, max_value=ip.HIGH_TAX, default=0, help_text="Royal tax a foreign governor withholds."
    )
    present = serializers.BooleanField(default=False, help_text="The governor is in the province: his Charisma counts.")

    class Meta:
        ref_name = "GovernedProvince"


class EventPaymentIn(serializers.Serializer[Any]):
    """A bid won or an investment made on an event card, paid to the Treasury."""

    card = serializers.CharField(max_length=80)
    amount = serializers.IntegerField(min_value=1, max_value=10000)

    class Meta:
        ref_name = "EventPayment"


class InterphaseIn(serializers.Serializer[Any]):
    """What the player enters for one country's Interphase (the fields of the treasury page's form)."""

    provinces = ProvincesField(
        required=False,
        allow_null=True,
        default=None,
        help_text=ip.LABELS["provinces"] + "; left out (or null): the province register's, with its markers, Home "
        "Provinces and capital (what is entered besides corrects the register's).",
    )
    tax_rate = serializers.ChoiceField(
        choices=[(ip.NORMAL_TAX, f"{ip.NORMAL_TAX} per province (normal)"), (ip.HIGH_TAX, f"{ip.HIGH_TAX} (high)")],
        default=ip.NORMAL_TAX,
    )
    famine = ProvincesField(required=False, default=0, help_text=ip.LABELS["famine"])
    rebellion = ProvincesField(required=False, default=0, help_text=ip.LABELS["rebellion"])
    rebellions_bought_off = ProvincesField(required=False, default=0, help_text=ip.LABELS["rebellions_bought_off"])
    home_provinces = ProvincesField(required=False, allow_null=True, default=None, help_text=ip.LABELS["home_provinces"])
    home_in_rebellion = serializers.IntegerField(
        min_value=0,
        max_value=100,
        required=False,
        allow_null=True,
        default=None,
        help_text="After this Interphase's buy-offs; null: the helper works it out.",
    )
    armies_kept = _count(200, label=ip.LABELS["armies_kept"])
    fleets_kept = _count(40, label=ip.LABELS["fleets_kept"])
    armies_on_track = _count(
        200, label="Army counters lost in the previous turn, still on the Year Track: they cannot be raised."
    )
    armies_raised = _count(200, label=ip.LABELS["armies_raised"])
    fleets_raised = _count(40, label=ip.LABELS["fleets_raised"])
    capital_rebellion = serializers.BooleanField(
        default=False, help_text="A rebellion in the capital in the Movement that follows (optional rules)."
    )
    countries = _count(10, minimum=1, default=1, label=ip.LABELS["countries"])
    governed = GovernedIn(
        many=True,
        required=False,
        allow_null=True,
        default=None,
        help_text="Rule G: the governed provinces; left out (or null): those whose titles are held.",
    )
    capital = serializers.CharField(
        max_length=80, required=False, allow_null=True, default=None, help_text="Where new armies are placed."
    )
    fleet_ports = serializers.ListField(
        child=serializers.CharField(max_length=80),
        required=False,
        default=list,
        max_length=40,
        help_text="The coastal home province of each fleet raised.",
    )
    neutral_ransoms = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        default=list,
        max_length=20,
        help_text="The house's royals captured by neutrals, ransomed for 100 each (character ids).",
    )
    trade_defence_crowns = _count(1000, label=ip.LABELS["trade_defence_crowns"] + ": a multiple of 15.")
    trade_interception_crowns = _count(1000, label=ip.LABELS["trade_interception_crowns"] + ": a multiple of 20.")
    event_payments = EventPaymentIn(many=True, required=False, default=list, help_text=ip.LABELS["event_payments"])

    class Meta:
        ref_name = "InterphaseRequest"

    def entry(self) -> ip.InterphaseEntry:
        """The validated request as the services' entry (rule G's provinces and the event cards'
        payments in the entry's own types)."""
        data = dict(self.validated_data)
        if data.get("governed") is not None:
            data["governed"] = [ip.Governed(**item) for item in data["governed"]]
        data["event_payments"] = [(item["card"], item["amount"]) for item in data.get("event_payments", ())]
        return ip.InterphaseEntry(**data)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # Sets are cashed in at the end of the turn (its own door), never as Interphase income: an
        # entry that still sends them is refused rather than silently losing them.
        sent = [name for name in SET_FIELDS if name in self.initial_data]
        if sent:
            raise serializers.ValidationError(
                {
                    name: "Resource sets are cashed in at the end of the turn (sequence of play D), after the Interphase "
                    "and the Movement: POST them to cash-in/{dynasty}/run/."
                    for name in sent
                }
            )
        return attrs


SET_FIELDS = ("basic_sets", "semi_luxury_sets", "luxury_sets")


class CashInIn(serializers.Serializer[Any]):
    """The resource sets a house cashes in at its capital at the end of the turn."""

    basic_sets = _count(100, label=ip.LABELS["basic_sets"])
    semi_luxury_sets = _count(100, label=ip.LABELS["semi_luxury_sets"])
    luxury_sets = _count(100, label=ip.LABELS["luxury_sets"])

    class Meta:
        ref_name = "CashInRequest"


class InterphaseLineSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    direction = serializers.CharField(help_text=f"'{ip.IN}': from the Treasury to the house; else from the house.")
    amount = serializers.IntegerField()
    signed = serializers.IntegerField(help_text="The change to the exchequer.")
    reason = serializers.CharField()
    house = serializers.IntegerField(
        allow_null=True, required=False, help_text="Rule G: another house's line (a foreign governor's); null: this house's."
    )

    class Meta:
        ref_name = "InterphaseLine"


class InterphaseResultSerializer(serializers.Serializer[Any]):
    lines = InterphaseLineSerializer(many=True, help_text="Taxes first, then costs, then a rebellion in the capital.")
    cash_before = serializers.IntegerField()
    cash_after = serializers.IntegerField()
    income = serializers.IntegerField()
    costs = serializers.IntegerField()
    shortfall = serializers.IntegerField(help_text="How much the costs exceed cash plus income by (0: affordable).")
    taxed_provinces = serializers.IntegerField()
    rebellion_modifier = serializers.IntegerField()
    raising_cap = serializers.IntegerField(allow_null=True)
    notes = serializers.ListField(child=serializers.CharField())
    currency = serializers.CharField()

    class Meta:
        ref_name = "InterphaseResult"


def _result(campaign: Campaign, r: ip.InterphaseResult) -> dict[str, Any]:
    return {
        "lines": [
            {
                "kind": x.kind,
                "direction": x.direction,
                "amount": x.amount,
                "signed": x.signed,
                "reason": x.reason,
                "house": x.house,
            }
            for x in r.lines
        ],
        "cash_before": r.cash_before,
        "cash_after": r.cash_after,
        "income": r.income,
        "costs": r.costs,
        "shortfall": r.shortfall,
        "taxed_provinces": r.taxed_provinces,
        "rebellion_modifier": r.rebellion_modifier,
        "raising_cap": r.raising_cap,
        "notes": list(r.notes),
        "currency": currency(campaign),
    }


class InterphaseRunSerializer(serializers.Serializer[Any]):
    result = InterphaseResultSerializer()
    postings = PostingOut(many=True, help_text="The postings made, in the order of the lines.")
    balance = serializers.IntegerField(help_text="The exchequer after the run.")

    class Meta:
        ref_name = "InterphaseRun"


class CashInResultSerializer(serializers.Serializer[Any]):
    lines = InterphaseLineSerializer(many=True, help_text="One line per kind of set cashed in.")
    cash_before = serializers.IntegerField()
    cash_after = serializers.IntegerField()
    income = serializers.IntegerField()
    currency = serializers.CharField()

    class Meta:
        ref_name = "CashInResult"


class CashInRunSerializer(serializers.Serializer[Any]):
    result = CashInResultSerializer()
    postings = PostingOut(many=True, help_text="The postings made, in the order of the lines.")
    balance = serializers.IntegerField(help_text="The exchequer after the cashing-in.")

    class Meta:
        ref_name = "CashInRun"


def _cash_in_result(campaign: Campaign, r: ip.CashInResult) -> dict[str, Any]:
    return {
        "lines": [
            {"kind": x.kind, "direction": x.direction, "amount": x.amount, "signed": x.signed, "reason": x.reason}
            for x in r.lines
        ],
        "cash_before": r.cash_before,
        "cash_after": r.cash_after,
        "income": r.income,
        "currency": currency(campaign),
    }


@dataclass(frozen=True)
class MoneyFlow:
    """One house money phase as the API runs it: what it reads and how the services' answer is
    written (its preview and run views each name their service)."""

    label: str  # "The Interphase": the step action's name is "<label> of the house of <name>"
    input_serializer: type[serializers.Serializer[Any]]
    result_serializer: type[serializers.Serializer[Any]]
    run_serializer: type[serializers.Serializer[Any]]
    entry: Callable[[serializers.Serializer[Any]], Any]  # the validated request as the services take it
    result: Callable[[Campaign, Any], dict[str, Any]]


def _interphase_entry(data: serializers.Serializer[Any]) -> ip.InterphaseEntry:
    assert isinstance(data, InterphaseIn)
    return data.entry()


INTERPHASE = MoneyFlow(
    label="The Interphase",
    input_serializer=InterphaseIn,
    result_serializer=InterphaseResultSerializer,
    run_serializer=InterphaseRunSerializer,
    entry=_interphase_entry,
    result=_result,
)

CASH_IN = MoneyFlow(
    label="The cashing-in",
    input_serializer=CashInIn,
    result_serializer=CashInResultSerializer,
    run_serializer=CashInRunSerializer,
    entry=lambda data: dict(data.validated_data),
    result=_cash_in_result,
)


Service = Callable[[Campaign, Dynasty, Any, Any], Any]
"""A money service as a view calls it: (campaign, house, entry, by)."""


class HouseMoneyView(ActionView):
    """A house's money phase (the Interphase, the cashing-in): the subclass names its
    :class:`MoneyFlow` and its one ``service`` (a preview's or a run's); ``preview`` answers what
    ``run`` would post, ``run`` posts it as one step action. Whether the caller may act for the
    house, the services ask the policy."""

    api_tag = "treasury"
    flow: MoneyFlow
    service: Service

    def house(self, request: Request, dynasty: int) -> tuple[Dynasty, Any]:
        """The dynasty (404 unknown) and the validated entry."""
        house = Dynasty.objects.filter(campaign=self.viewer.campaign, pk=dynasty).first()
        if house is None:
            raise NotFound(f"There is no dynasty #{dynasty} in this campaign.")
        data = self.flow.input_serializer(data=request.data)
        data.is_valid(raise_exception=True)
        return house, self.flow.entry(data)

    def preview(self, request: Request, dynasty: int) -> Response:
        house, entry = self.house(request, dynasty)
        result = self.service(self.viewer.campaign, house, entry, request.user)
        return Response(self.flow.result_serializer(self.flow.result(self.viewer.campaign, result)).data)

    def run(self, request: Request, dynasty: int) -> Response:
        v = self.viewer
        house, entry = self.house(request, dynasty)
        done, _ = act(
            request,
            v.campaign,
            f"{self.flow.label} of the house of {house.name}",
            lambda c: self.service(c, house, entry, request.user),
        )
        postings = list(done.postings)
        prefetch_related_objects(postings, "contract_link")  # the contract each paid under: one query
        body = {"result": self.flow.result(v.campaign, done.result), "postings": postings, "balance": done.balance}
        return Response(self.flow.run_serializer(body, context=self.out_context()).data, status=status.HTTP_201_CREATED)


class InterphasePreviewView(HouseMoneyView):
    flow = INTERPHASE
    service = staticmethod(
        lambda campaign, house, entry, by: interphase_preview(campaign=campaign, dynasty=house, entry=entry, by=by)
    )

    @extend_schema(
        request=InterphaseIn,
        responses=InterphaseResultSerializer,
        summary="What an Interphase run would post for the house (nothing is written; a shortfall is reported)",
    )
    def post(self, request: Request, slug: str, dynasty: int) -> Response:
        return self.preview(request, dynasty)


class InterphaseRunView(HouseMoneyView):
    flow = INTERPHASE
    service = staticmethod(
        lambda campaign, house, entry, by: interphase_run(campaign=campaign, dynasty=house.pk, entry=entry, by=by)
    )

    @extend_schema(
        request=InterphaseIn,
        responses={201: InterphaseRunSerializer},
        parameters=[IDEMPOTENCY_KEY],
        summary="Post the house's Interphase (once a year, in the Interphase step; refused if it cannot be paid)",
    )
    def post(self, request: Request, slug: str, dynasty: int) -> Response:
        return self.run(request, dynasty)


class CashInPreviewView(HouseMoneyView):
    flow = CASH_IN
    service = staticmethod(lambda campaign, house, entry, by: cash_in_preview(campaign=campaign, dynasty=house, by=by, **entry))

    @extend_schema(
        request=CashInIn,
        responses=CashInResultSerializer,
        summary="What the house's cashing-in of resource sets would post (nothing is written)",
    )
    def post(self, request: Request, slug: str, dynasty: int) -> Response:
        return self.preview(request, dynasty)


class CashInRunView(HouseMoneyView):
    flow = CASH_IN
    service = staticmethod(lambda campaign, house, entry, by: cash_in_run(campaign=campaign, dynasty=house.pk, by=by, **entry))

    @extend_schema(
        request=CashInIn,
        responses={201: CashInRunSerializer},
        parameters=[IDEMPOTENCY_KEY],
        summary="Post the house's cashing-in of resource sets (the turn's last phase: after its Interphase, once a year)",
    )
    def post(self, request: Request, slug: str, dynasty: int) -> Response:
        return self.run(request, dynasty)
