"""Contract actions: draft with structured clauses, each party signs its side, end (by consent or
the escape clause), record a breach, rule a BloodLine dispute, hold a parley, settle an unpaid
payment. The same rules as the pages (``pages/contracts/``), always through
``contracts.services`` inside ``api.common.run_action``; who may act, the services ask the policy
(``campaign.permissions``), never this door:

- a contract the caller may not see (``campaign.permissions.visible``) is a 404, never a 403;
- a player drafts only contracts his house is party to, signs, escapes, raises breaches and
  settles payments for his own house only; the GM does everything;
- disputes and parleys are votes of the whole table: the GM records them;
- an observer acts on nothing (403)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.common import CampaignScoped, Viewer, run_action, visible_or_404
from api.filters import INT_MAX
from api.schema import IDEMPOTENCY_KEY
from api.views.contracts import BreachOut, ContractOut, ContractViewSet, DisputeOut, ParleyDecisionOut
from campaign.models import Campaign
from contracts import services
from contracts.models import (
    Breach,
    ClauseKind,
    Contract,
    ContractKind,
    ContractPayment,
    ParleyKind,
    VoteChoice,
)
from dynasties.models import Dynasty, Marriage
from rules import contracts as rules
from rules.errors import RuleError

T = TypeVar("T")

MAX_CLAUSES = 20
MAX_PARTIES = 20
MAX_VOTES = 400
ID: dict[str, Any] = {"min_value": 1, "max_value": INT_MAX}
YEAR: dict[str, Any] = {"min_value": -INT_MAX, "max_value": INT_MAX}
CLAUSE_LINE = re.compile(r"^Clause (\d+)\b")


# shared ----------------------------------------------------------------------------------------


def _contract(request: Request, v: Viewer, pk: int) -> Contract:
    """The contract if the caller may see it, else 404 (whether or not it exists)."""
    return visible_or_404(request, v.campaign, Contract.objects.prefetch_related("parties"), pk=pk)  # type: ignore[return-value]


def _explained(exc: RuleError) -> RuleError:
    """The services name a field with a short word (``{"parties": "two"}``); the API's ``fields``
    carry a message a player can act on, so a bare word becomes the error's message."""
    exc.fields = {name: (text if " " in text else exc.message) for name, text in exc.fields.items()}
    return exc


def _act(request: Request, campaign: Campaign, label: str, action: Callable[[Campaign], T]) -> T:
    try:
        return run_action(request, campaign, label, action)
    except RuleError as exc:
        raise _explained(exc) from None


def _contract_out(request: Request, v: Viewer, pk: int) -> dict[str, Any]:
    """The contract as ``GET contracts/{id}/`` shows it (clauses, signatures, breaches)."""
    contract = ContractViewSet.queryset.all().get(pk=pk)
    return dict(ContractOut(contract, context={"request": request, "viewer": v}).data)


def _houses(campaign: Campaign, ids: list[int]) -> set[int]:
    return set(Dynasty.objects.filter(campaign=campaign, pk__in=ids).values_list("pk", flat=True))


class ActionView(CampaignScoped, APIView):
    api_tag = "contracts"


# drafting --------------------------------------------------------------------------------------


def _bounded(value: Any) -> bool:
    """No whole number beyond what the database stores, however deep in the terms."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return -INT_MAX <= value <= INT_MAX
    if isinstance(value, dict):
        return all(_bounded(v) for v in value.values())
    if isinstance(value, list):
        return all(_bounded(v) for v in value)
    return True


class ClauseIn(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=ClauseKind.choices)
    params = serializers.DictField(
        required=False,
        default=dict,
        help_text=(
            "The kind's terms (rules/contracts.py CLAUSE_TERMS): payment {payer, payee, amount}; recurring_payment "
            "{payer, payee, amount, from_year, turns?}; trade_item {from, to, item, turns?}; non_aggression and "
            "safe_passage {between?}; military_support {by?, to?, exclusions?}; cession {province, from, to}; "
            "renunciation {character, crown}; children_raised_by {dynasty}; husband_joins_wife {}; dowry {payer, "
            "payee, amount | province}; escape {condition}; damages {amount}. Houses are dynasty ids among the parties."
        ),
    )
    text = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000, help_text="In words.")

    class Meta:
        ref_name = "ClauseDraft"


class ContractDraftIn(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=ContractKind.choices)
    title = serializers.CharField(max_length=200)
    parties = serializers.ListField(
        child=serializers.IntegerField(**ID), min_length=2, max_length=MAX_PARTIES, help_text="Two dynasties or more."
    )
    marriage = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="A marriage contract: the match it seals.", **ID
    )
    start_year = serializers.IntegerField(required=False, allow_null=True, default=None, help_text="Default: this year.", **YEAR)
    term_years = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, max_value=INT_MAX, help_text="A fixed term; none: open-ended."
    )
    text = serializers.CharField(required=False, allow_blank=True, default="", max_length=10000)
    clauses = ClauseIn(many=True, required=False, max_length=MAX_CLAUSES)  # type: ignore[call-arg]  # many=True: for the list

    class Meta:
        ref_name = "ContractDraft"

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        campaign: Campaign = self.context["campaign"]
        parties = list(dict.fromkeys(data["parties"]))
        known = _houses(campaign, parties)
        unknown = [pk for pk in parties if pk not in known]
        if unknown:
            raise serializers.ValidationError({"parties": f"There is no dynasty #{unknown[0]} in this campaign."})
        if len(parties) < 2:
            raise serializers.ValidationError({"parties": "A contract binds two houses or more: name the parties."})
        data["parties"] = parties
        if data["marriage"] is not None and not Marriage.objects.filter(campaign=campaign, pk=data["marriage"]).exists():
            raise serializers.ValidationError({"marriage": f"There is no marriage or betrothal #{data['marriage']} here."})
        clauses = data.get("clauses") or []
        errors: list[dict[str, str]] = []
        for n, clause in enumerate(clauses, 1):
            problem: dict[str, str] = {}
            if not _bounded(clause["params"]):
                problem["params"] = f"Clause {n}: a number is out of range (at most {INT_MAX})."
            else:
                try:
                    clause["params"] = rules.validate_clause(
                        clause["kind"], clause["params"], parties=set(parties), label=f"Clause {n}"
                    )
                except RuleError as exc:
                    problem["params"] = exc.message
            errors.append(problem)
        if any(errors):
            raise serializers.ValidationError({"clauses": errors})
        try:
            rules.validate_clauses([c["kind"] for c in clauses], marriage_contract=data["kind"] == ContractKind.MARRIAGE)
        except RuleError as exc:
            raise serializers.ValidationError({"clauses": exc.message}) from None
        data["clauses"] = clauses
        return data


class ContractCollectionViewSet(ContractViewSet):
    """``GET``: the contracts you may see. ``POST``: draft a contract."""

    @extend_schema(
        summary="Draft a contract",
        description=(
            "A draft with its parties and structured clauses, each checked against its kind (a clause at fault is "
            "named in `fields` as `clauses.<n>.params`). A player drafts only contracts his house is party to; an "
            "observer drafts nothing. Each party then signs its side (`sign/`)."
        ),
        request=ContractDraftIn,
        responses={201: ContractOut},
        parameters=[IDEMPOTENCY_KEY],
    )
    def draft(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = ContractDraftIn(data=request.data, context={"campaign": v.campaign})
        data.is_valid(raise_exception=True)
        d = data.validated_data
        try:  # who may draft it (the GM, or the player of a party): the service asks the policy
            contract = _act(
                request,
                v.campaign,
                f"Draft '{d['title']}'",
                lambda c: services.contract_draft(
                    campaign=c,
                    kind=d["kind"],
                    title=d["title"],
                    parties=d["parties"],
                    marriage=d["marriage"],
                    start_year=d["start_year"],
                    term_years=d["term_years"],
                    clauses=d.get("clauses") or [],
                    text=d["text"],
                    by=request.user,
                ),
            )
        except RuleError as exc:
            found = CLAUSE_LINE.match(exc.message)
            if found and not exc.fields:
                exc.fields = {f"clauses.{int(found.group(1)) - 1}": exc.message}
            raise
        return Response(_contract_out(request, v, contract.pk), status=status.HTTP_201_CREATED)


# signing and ending ----------------------------------------------------------------------------


class SignIn(serializers.Serializer[Any]):
    dynasty = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The party signing its side: a player signs for his own house (the default), the GM for any party.",
        **ID,
    )
    all_parties = serializers.BooleanField(
        default=False, help_text="The GM only: record every party's signature at once (signed at the table)."
    )

    class Meta:
        ref_name = "ContractSign"


class SignView(ActionView):
    @extend_schema(
        summary="Sign a draft (one party's side)",
        description=(
            "The contract is signed once every party has signed; it then comes into force now, at its start year, "
            "or (a marriage contract on a betrothal) at the wedding."
        ),
        request=SignIn,
        responses={200: ContractOut},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        v = self.viewer
        contract = _contract(request, v, pk)
        data = SignIn(data=request.data)
        data.is_valid(raise_exception=True)
        if data.validated_data["all_parties"]:
            _act(
                request,
                v.campaign,
                f"Sign '{contract.title}'",
                lambda c: services.contract_sign(campaign=c, contract=contract.pk, by=request.user),
            )
            return Response(_contract_out(request, v, contract.pk))
        house = data.validated_data["dynasty"]  # none: the service takes a player's own house
        _act(
            request,
            v.campaign,
            f"Dynasty #{house} signs '{contract.title}'" if house is not None else f"Sign '{contract.title}'",
            lambda c: services.contract_sign_party(campaign=c, contract=contract.pk, dynasty=house, by=request.user),
        )
        return Response(_contract_out(request, v, contract.pk))


class EndIn(serializers.Serializer[Any]):
    how = serializers.ChoiceField(choices=[("consent", "By mutual consent"), ("escape", "By the escape clause")])
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=150,
        help_text="Consent: why (optional). Escape: how the escape condition is met (required).",
    )
    by_dynasty = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Escape: the party invoking it (a player: his own house, the default).",
        **ID,
    )

    class Meta:
        ref_name = "ContractEnd"


class EndView(ActionView):
    @extend_schema(
        summary="End a contract",
        description=(
            "`consent`: the parties cancel it (a marriage contract in force cannot be broken). `escape`: a party "
            "invokes the escape clause, saying how its condition is met."
        ),
        request=EndIn,
        responses={200: ContractOut},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        v = self.viewer
        contract = _contract(request, v, pk)
        data = EndIn(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data
        if d["how"] == "consent":
            _act(
                request,
                v.campaign,
                f"End '{contract.title}'",
                lambda c: services.contract_end_by_consent(campaign=c, contract=contract.pk, reason=d["reason"], by=request.user),
            )
            return Response(_contract_out(request, v, contract.pk))
        _act(
            request,
            v.campaign,
            f"Escape '{contract.title}'",
            lambda c: services.contract_escape(
                campaign=c, contract=contract.pk, by_dynasty=d["by_dynasty"], reason=d["reason"], by=request.user
            ),
        )
        return Response(_contract_out(request, v, contract.pk))


# breaches, disputes, parleys -------------------------------------------------------------------


class BreachIn(serializers.Serializer[Any]):
    by_dynasty = serializers.IntegerField(help_text="The party in breach.", **ID)
    raised_by = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The injured party: a player's own house (the default); the GM may leave it out on a two-party contract.",
        **ID,
    )
    clause = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="The term broken; none: the contract as a whole.", **ID
    )
    text = serializers.CharField(max_length=1000, help_text="What was broken.")

    class Meta:
        ref_name = "BreachRecord"


class BreachView(ActionView):
    @extend_schema(
        summary="Record a breach",
        description="A party accuses another party of breaking a contract in force.",
        request=BreachIn,
        responses={201: BreachOut},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        v = self.viewer
        contract = _contract(request, v, pk)
        data = BreachIn(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data
        if d["clause"] is not None and not contract.clauses.filter(pk=d["clause"]).exists():
            raise serializers.ValidationError({"clause": f"Clause #{d['clause']} is not a term of '{contract.title}'."})
        breach = _act(
            request,
            v.campaign,
            f"Breach of '{contract.title}'",
            lambda c: services.breach_record(
                campaign=c,
                contract=contract.pk,
                by_dynasty=d["by_dynasty"],
                raised_by=d["raised_by"],
                clause=d["clause"],
                text=d["text"],
                by=request.user,
            ),
        )
        return Response(BreachOut(breach, context={"request": request, "viewer": v}).data, status=status.HTTP_201_CREATED)


class DisputeVoteIn(serializers.Serializer[Any]):
    dynasty = serializers.IntegerField(help_text="A player who is not a party to the dispute.", **ID)
    clause = serializers.IntegerField(help_text="A term of the contract.", **ID)
    upholds = serializers.BooleanField(help_text="True: upholds the term; false: rejects it. Leave a silent player out.")

    class Meta:
        ref_name = "DisputeVoteCast"


class DisputeIn(serializers.Serializer[Any]):
    votes = DisputeVoteIn(many=True, max_length=MAX_VOTES)  # type: ignore[call-arg]  # many=True: for the list

    class Meta:
        ref_name = "DisputeRuling"


class DisputeView(ActionView):
    @extend_schema(
        summary="Rule a BloodLine dispute (GM)",
        description=(
            "BloodLine: the other players (not the two disputing parties) vote on each disputed term; a term upheld "
            "by a majority of them is enforced (damages are posted), the rest ignored. The GM records the votes."
        ),
        request=DisputeIn,
        responses={201: DisputeOut},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        v = self.viewer
        owner = Breach.objects.filter(pk=pk, campaign=v.campaign).values_list("contract_id", flat=True).first()
        if owner is None:
            raise Http404("No such breach.")
        _contract(request, v, owner)  # a breach of a contract one may not see is not there
        data = DisputeIn(data=request.data)
        data.is_valid(raise_exception=True)
        votes: dict[int, dict[int, bool]] = {}
        for n, vote in enumerate(data.validated_data["votes"]):
            mine = votes.setdefault(vote["dynasty"], {})
            if vote["clause"] in mine:
                raise serializers.ValidationError({f"votes.{n}": "This house's vote on this term is given twice."})
            mine[vote["clause"]] = vote["upholds"]
        dispute = _act(
            request,
            v.campaign,
            "Rule a dispute",
            lambda c: services.dispute_majority(campaign=c, breach=pk, votes=votes, by=request.user),
        )
        return Response(DisputeOut(dispute).data, status=status.HTTP_201_CREATED)


class ParleyVoteIn(serializers.Serializer[Any]):
    dynasty = serializers.IntegerField(**ID)
    stature = serializers.IntegerField(min_value=0, max_value=1000, help_text="The leader's diplomatic stature.")
    church_cards = serializers.IntegerField(
        min_value=0, max_value=100, default=0, help_text="Influence in Church Hierarchy cards (+5 votes each)."
    )
    christian = serializers.BooleanField(default=True, help_text="Only Christian leaders vote (20.4).")
    choice = serializers.ChoiceField(choices=VoteChoice.choices, default=VoteChoice.ABSTAIN)

    class Meta:
        ref_name = "ParleyVoteCast"


class ParleyIn(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(
        choices=ParleyKind.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text="Leave it out (or `breach`) for a parley on a breach.",
    )
    breach = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="A broken binding agreement's breach (20.44).", **ID
    )
    caller = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Who calls it (not on a breach: the injured party calls that one). Readmission: the excommunicated house.",
        **ID,
    )
    subject = serializers.CharField(required=False, allow_blank=True, default="", max_length=200, help_text="What it decides.")
    area = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=100,
        help_text="A claim, conquest or inheritance: the area as the board names it (empty: the subject).",
    )
    opponent = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A conquest or inheritance contested: the conqueror, or the player of the Dynastic Inheritance card.",
        **ID,
    )
    votes = ParleyVoteIn(  # type: ignore[call-arg]  # many=True: max_length is the list's
        many=True, max_length=MAX_PARTIES * 5, help_text="Each house's block; a house left out takes no part."
    )

    class Meta:
        ref_name = "ParleyCall"


class ParleyView(ActionView):
    @extend_schema(
        summary="Hold a parley (GM)",
        description=(
            "The medieval parley (20.4): each Christian player casts his leader's diplomatic stature (+5 per church "
            "card), most votes first. On a broken binding agreement a tie excommunicates the breaker (20.44); "
            "`readmission` readmits an excommunicated house (20.45); the other kinds record the vote, a tie "
            "favouring the caller, and their decision follows: a `claim` that carries grants the claim to `area` "
            "(20.42); a `conquest` or `inheritance` contested against `opponent` makes the loser return or "
            "relinquish the area (the parley's `obligation`, 20.41, 20.43)."
        ),
        request=ParleyIn,
        responses={201: ParleyDecisionOut},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = ParleyIn(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data
        votes = [dict(vote) for vote in d["votes"]]
        if d["breach"] is not None:
            if not Breach.objects.filter(pk=d["breach"], campaign=v.campaign).exists():
                raise serializers.ValidationError({"breach": f"There is no breach #{d['breach']} in this campaign."})
        elif d["kind"] == ParleyKind.READMISSION:
            if d["caller"] is None:
                raise serializers.ValidationError({"caller": "Name the excommunicated house asking to be readmitted."})
        else:
            if d["kind"] in (None, ParleyKind.BREACH):
                raise serializers.ValidationError({"kind": "Say the kind of parley, or name the breach it is held on."})
            if d["caller"] is None:
                raise serializers.ValidationError({"caller": "Say which house calls the parley."})
            if not d["subject"].strip() and not d["area"].strip():
                raise serializers.ValidationError({"subject": "Say what the parley decides (the area, the claim ...)."})
        subject = d["subject"] if d["breach"] is None else ""

        def run(c: Campaign) -> Any:
            return services.parley_hold(
                campaign=c,
                votes=votes,
                breach=d["breach"],
                kind=d["kind"],
                caller=d["caller"],
                subject=subject,
                area=d["area"] if d["breach"] is None else "",
                opponent=d["opponent"] if d["breach"] is None else None,
                by=request.user,
            )

        parley = _act(request, v.campaign, "Parley", run)
        return Response(ParleyDecisionOut(parley).data, status=status.HTTP_201_CREATED)


# payments --------------------------------------------------------------------------------------


class PaymentOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = ContractPayment
        fields = [
            "id",
            "contract",
            "clause",
            "breach",
            "year",
            "payer",
            "payee",
            "amount",
            "status",
            "settled_year",
            "posting",
            "note",
        ]
        ref_name = "ContractPayment"


class SettleView(ActionView):
    @extend_schema(
        summary="Settle an unpaid payment",
        description=(
            "Make good a payment the payer could not cover when it fell due (refused while he still cannot). The "
            "payer's player or the GM. Unpaid payments are told in the chronicle (`kind=contract_unpaid`, "
            "`data.payment`)."
        ),
        request=None,
        responses={200: PaymentOut},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request, slug: str, pk: int, payment: int) -> Response:
        v = self.viewer
        contract = _contract(request, v, pk)
        due = ContractPayment.objects.filter(pk=payment, contract=contract).first()
        if due is None:
            raise Http404("No such payment on this contract.")
        settled = _act(
            request,
            v.campaign,
            f"Settle a payment of '{contract.title}'",
            lambda c: services.payment_settle(campaign=c, payment=due.pk, by=request.user),
        )
        return Response(PaymentOut(settled).data)
