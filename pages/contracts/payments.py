"""A contract's unpaid payment, settled."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from contracts import services
from contracts.models import ContractPayment
from dynasties.treasury import currency
from pages.common import ActionFailed, may_act_for, member, run_action
from pages.contracts.common import back_to, visible_contract
from pages.contracts.detail import detail_page


@require_POST
@login_required
def payment_settle(request: HttpRequest, slug: str, pk: int, payment: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    contract = visible_contract(request, campaign, pk)
    due = ContractPayment.objects.filter(pk=payment, contract=contract).first()
    if due is None:
        raise Http404("No such payment.")
    if not may_act_for(role, mine, due.payer_id):
        raise PermissionDenied("Only the payer's player (or the GM) settles a payment.")
    try:
        done = run_action(
            request,
            campaign,
            f"Settle a payment of '{contract.title}'",
            lambda c: services.payment_settle(campaign=c, payment=due.pk, by=request.user),
        )
    except ActionFailed as exc:
        return detail_page(request, campaign, role, mine, contract, {"settle_error": (due.pk, exc.message)}, status=400)
    if done is not None:
        messages.success(request, f"The {done.amount} {currency(campaign)} owed since {done.year} are paid.")
    return back_to(campaign, contract)
