"""The game master's admin for contracts, their payments, breaches, rulings, parleys and
excommunications. The records are written by ``contracts.services`` (drafting, signing, the
wedding and death hooks, the turn advance, the votes): the pages show them, and the actions call
the services, showing their rule errors."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse

from campaign import audit
from contracts.models import (
    Breach,
    Claim,
    Clause,
    Contract,
    ContractPayment,
    ContractSignature,
    ContractState,
    Dispute,
    DisputeTerm,
    DisputeVote,
    Excommunication,
    Obligation,
    Parley,
    ParleyVote,
    PaymentStatus,
)
from contracts.services import contract_end_by_consent, contract_sign, payment_settle
from contracts.services.editing import CONTRACT_FIELDS, contract_changes, contract_edit
from desk.admin.audit import AuditedAdmin
from desk.admin.base import DeskAdmin, DeskTabularInline
from desk.admin.editing import HandEditAdmin
from rules.errors import RuleError


class ServiceMadeMixin:
    """Rows the services write: viewed, never added, edited or deleted by hand (corrections are new
    records through the services, like the ledger's reversing postings)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        model: type[Model] = self.model  # type: ignore[attr-defined]
        return [f.name for f in model._meta.concrete_fields] + [f.name for f in model._meta.many_to_many]


class ReadOnlyInline(DeskTabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ClauseInline(ReadOnlyInline):
    model = Clause
    fields = readonly_fields = ("position", "kind", "params", "text")


class ContractSignatureInline(ReadOnlyInline):
    model = ContractSignature
    fields = readonly_fields = ("dynasty", "year", "signed_by", "created_at")


class ContractPaymentInline(ReadOnlyInline):
    model = ContractPayment
    fk_name = "contract"
    fields = readonly_fields = ("year", "clause", "payer", "payee", "amount", "status", "posting", "settled_year", "note")


class BreachInline(ReadOnlyInline):
    model = Breach
    fields = readonly_fields = ("year", "by_dynasty", "raised_by", "clause", "text", "resolution", "resolved_year")


def _run(
    admin_: admin.ModelAdmin[Any],  # a contract's or a payment's
    request: HttpRequest,
    rows: QuerySet[Any],
    service: Any,
    done: str,
    *,
    field: str = "contract",
    **kwargs: Any,
) -> None:
    for row in rows:
        try:
            with audit.acting(request.user, year=row.campaign.current_year, step=row.campaign.step, label=f"Admin: {done}"):
                service(campaign=row.campaign_id, **{field: row.pk}, by=request.user, **kwargs)
        except RuleError as exc:
            admin_.message_user(request, f"{row}: {exc.message}", messages.ERROR)
        else:
            admin_.message_user(request, f"{row}: {done}.")


@admin.register(Contract)
class ContractAdmin(HandEditAdmin, ServiceMadeMixin, AuditedAdmin):  # the History button: the audit trail
    """Written by the services; by hand, through ``contract_edit``: the title, and a draft's text and term."""

    def editable(self, obj: Contract) -> tuple[str, ...]:
        return CONTRACT_FIELDS if obj.state == ContractState.DRAFT else ("title",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = super().get_readonly_fields(request, obj)
        return [f for f in fields if obj is None or f not in self.editable(obj)]

    hand_checker = staticmethod(lambda campaign, contract, changes: contract_changes(contract, changes))
    hand_editor = staticmethod(contract_edit)
    hand_key = "contract"

    list_display = ["title", "kind", "state", "party_names", "start_year", "term_years", "ended_year", "campaign"]
    list_filter = ["campaign", "kind", "state", "end_kind"]
    ordering = ["-start_year", "-pk"]  # the last contracts first
    search_fields = ["title", "text", "parties__name", "clauses__text", "end_reason"]
    list_select_related = ["campaign", "marriage__husband", "marriage__wife"]
    inlines = [ClauseInline, ContractSignatureInline, ContractPaymentInline, BreachInline]
    actions = ["sign", "end_by_consent", "print_pdf"]

    @admin.action(description="Print the selected contract (PDF, A4, to sign)")
    def print_pdf(self, request: HttpRequest, queryset: QuerySet[Contract]) -> HttpResponse | None:
        from contracts.printing import contract_pdf

        if queryset.count() != 1:
            self.message_user(request, "Select one contract to print.", level=messages.WARNING)
            return None
        contract = queryset.get()
        response = HttpResponse(contract_pdf(contract), content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="contract-{contract.pk}.pdf"'
        return response

    def get_queryset(self, request: HttpRequest) -> QuerySet[Contract]:
        return super().get_queryset(request).prefetch_related("parties")

    @admin.display(description="parties")
    def party_names(self, obj: Contract) -> str:
        return ", ".join(d.name for d in obj.parties.all())

    @admin.action(description="Sign the selected drafts (every party not yet signed signs now)", permissions=["change"])
    def sign(self, request: HttpRequest, queryset: QuerySet[Contract]) -> None:
        _run(self, request, queryset.filter(state=ContractState.DRAFT), contract_sign, "signed")

    @admin.action(description="End the selected contracts by mutual consent", permissions=["change"])
    def end_by_consent(self, request: HttpRequest, queryset: QuerySet[Contract]) -> None:
        _run(self, request, queryset, contract_end_by_consent, "ended by mutual consent", reason="recorded by the GM")


@admin.register(ContractPayment)
class ContractPaymentAdmin(ServiceMadeMixin, DeskAdmin):
    list_display = ["year", "contract", "payer", "payee", "amount", "status", "settled_year", "campaign"]
    list_filter = ["campaign", "status", "year"]
    ordering = ["-year", "-pk"]
    search_fields = ["contract__title", "payer__name", "payee__name", "note"]
    list_select_related = ["contract", "payer", "payee", "campaign"]
    actions = ["settle"]

    @admin.action(description="Settle the selected unpaid payments now", permissions=["change"])
    def settle(self, request: HttpRequest, queryset: QuerySet[ContractPayment]) -> None:
        _run(self, request, queryset.filter(status=PaymentStatus.UNPAID), payment_settle, "settled", field="payment")


@admin.register(Breach)
class BreachAdmin(ServiceMadeMixin, DeskAdmin):
    list_display = ["year", "contract", "by_dynasty", "raised_by", "clause", "resolution", "campaign"]
    list_filter = ["campaign", ("resolved_year", admin.EmptyFieldListFilter)]
    ordering = ["-year", "-pk"]
    search_fields = ["contract__title", "text", "resolution", "by_dynasty__name"]
    list_select_related = ["contract", "by_dynasty", "raised_by", "clause", "campaign"]


class DisputeTermInline(ReadOnlyInline):
    model = DisputeTerm
    fields = readonly_fields = ("clause", "upheld_by", "rejected_by", "upheld", "enforcement")


class DisputeVoteInline(ReadOnlyInline):
    model = DisputeVote
    fields = readonly_fields = ("dynasty", "clause", "upholds")


@admin.register(Dispute)
class DisputeAdmin(ServiceMadeMixin, DeskAdmin):
    list_display = ["year", "breach", "outcome", "campaign"]
    list_filter = ["campaign"]
    ordering = ["-year", "-pk"]
    search_fields = ["breach__contract__title", "outcome"]
    list_select_related = ["breach__contract", "breach__by_dynasty", "campaign"]
    inlines = [DisputeTermInline, DisputeVoteInline]


class ParleyVoteInline(ReadOnlyInline):
    model = ParleyVote
    fields = readonly_fields = ("position", "dynasty", "stature", "church_cards", "christian", "votes", "choice", "excluded")


@admin.register(Parley)
class ParleyAdmin(ServiceMadeMixin, DeskAdmin):
    list_display = ["year", "kind", "subject", "caller", "votes_for", "votes_against", "carried", "outcome", "campaign"]
    list_filter = ["campaign", "kind", "carried"]
    ordering = ["-year", "-pk"]
    search_fields = ["subject", "outcome", "caller__name"]
    list_select_related = ["caller", "campaign"]
    inlines = [ParleyVoteInline]


@admin.register(Excommunication)
class ExcommunicationAdmin(ServiceMadeMixin, DeskAdmin):
    list_display = ["dynasty", "leader", "start_year", "reason", "ended_year", "end_reason", "campaign"]
    list_filter = ["campaign", ("ended_year", admin.EmptyFieldListFilter)]
    ordering = ["-start_year", "-pk"]
    search_fields = ["dynasty__name", "reason", "end_reason"]
    list_select_related = ["dynasty", "leader", "campaign"]


@admin.register(Claim)
class ClaimAdmin(ServiceMadeMixin, DeskAdmin):
    """The claims register (written by the parleys, the exchanges and the Claims page)."""

    list_display = ["area", "dynasty", "since_year", "how", "ended_year", "end", "campaign"]
    list_filter = ["campaign", "how", ("ended_year", admin.EmptyFieldListFilter)]
    ordering = ["area_key", "-since_year", "-pk"]
    search_fields = ["area", "dynasty__name", "note"]
    list_select_related = ["dynasty", "campaign"]


@admin.register(Obligation)
class ObligationAdmin(ServiceMadeMixin, DeskAdmin):
    """What parley decisions made due (answered on the parley's page)."""

    list_display = ["obliged", "action", "area", "owed_to", "due_year", "state", "resolved_year", "campaign"]
    list_filter = ["campaign", "state"]
    ordering = ["-due_year", "-pk"]
    search_fields = ["area", "obliged__name", "owed_to__name"]
    list_select_related = ["obliged", "owed_to", "campaign"]
