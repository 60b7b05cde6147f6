"""The contract pages' URLs (``/<campaign>/contracts/...``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from pages.contracts.breaches import breach_new, dispute
from pages.contracts.claims import (
    area_claim_exchange,
    area_claim_record,
    area_claim_renounce,
    claims,
    obligation_resolve,
    parley_detail,
)
from pages.contracts.detail import contract_detail, contract_list, contract_pdf_view
from pages.contracts.draft import contract_new
from pages.contracts.ending import contract_end
from pages.contracts.parleys import parley
from pages.contracts.payments import payment_settle
from pages.contracts.signing import contract_sign, contract_sign_party

urlpatterns: list[URLPattern] = [
    path("<slug:slug>/contracts/", contract_list, name="contracts"),
    path("<slug:slug>/contracts/new/", contract_new, name="contract_new"),
    path("<slug:slug>/contracts/parley/", parley, name="parley"),
    path("<slug:slug>/contracts/parleys/<int:pk>/", parley_detail, name="parley_detail"),
    path("<slug:slug>/contracts/obligations/<int:pk>/resolve/", obligation_resolve, name="obligation_resolve"),
    path("<slug:slug>/claims/", claims, name="claims"),
    path("<slug:slug>/claims/record/", area_claim_record, name="claim_record"),
    path("<slug:slug>/claims/exchange/", area_claim_exchange, name="claim_exchange"),
    path("<slug:slug>/claims/<int:pk>/renounce/", area_claim_renounce, name="claim_renounce"),
    path("<slug:slug>/contracts/<int:pk>/", contract_detail, name="contract"),
    path("<slug:slug>/contracts/<int:pk>/pdf/", contract_pdf_view, name="contract_pdf"),
    path("<slug:slug>/contracts/<int:pk>/sign/", contract_sign, name="contract_sign"),
    path("<slug:slug>/contracts/<int:pk>/sign/<int:dynasty>/", contract_sign_party, name="contract_sign_party"),
    path("<slug:slug>/contracts/<int:pk>/end/", contract_end, name="contract_end"),
    path("<slug:slug>/contracts/<int:pk>/breach/", breach_new, name="breach_new"),
    path("<slug:slug>/contracts/<int:pk>/breaches/<int:breach>/dispute/", dispute, name="dispute"),
    path("<slug:slug>/contracts/<int:pk>/payments/<int:payment>/settle/", payment_settle, name="payment_settle"),
]
