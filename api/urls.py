"""/api/: the schema, its Swagger UI, and version 1 of the API.

/api/schema/                                   OpenAPI 3 (YAML; ?format=json for JSON)
/api/docs/                                     Swagger UI (assets from drf-spectacular-sidecar; ?script= its start-up script)
/api/v1/tokens/ [{id}/ [revoke/]]              your API tokens
/api/v1/campaigns/ [{slug}/]                   your campaigns
/api/v1/campaigns/{slug}/<resource>/ [{id}/]   memberships, dynasties, characters, marriages,
                                               reigns, titles, crowns, crown-events, monarchs, contracts,
                                               claims, obligations, ledger, balances,
                                               rolls, chronicle
/api/v1/campaigns/{slug}/rolls/{id}/correct/   POST (GM): a die of the current turn corrected
/api/v1/campaigns/{slug}/memberships/{id}/password-reset/  POST (GM): a member's one-time password-reset link
/api/v1/campaigns/{slug}/search/?q=            people, houses, crowns, contracts, lines, notes by name
/api/v1/campaigns/{slug}/notes/ [{id}/]        the notes you may read; POST writes one (api/views/notes.py)
/api/v1/campaigns/{slug}/events/ [{key}/]      the table's events offered to you; POST records one (api/views/table_events.py)
/api/v1/...                                    the actions: api/actions_sequence.py, api/actions_more.py
"""

from __future__ import annotations

from typing import Any

from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from api import actions_more, actions_sequence
from api.exceptions import not_found
from api.views import (
    campaigns,
    chronicle,
    claims,
    contracts,
    corrections,
    crowns,
    families,
    notes,
    provinces,
    rolls,
    search,
    table_events,
    tokens,
    treasury,
)

app_name = "api"

CAMPAIGN = "campaigns/<slug:slug>/"


def read_routes(prefix: str, viewset: Any, name: str) -> list[URLPattern]:
    """List and detail of a read resource: ``<name>-list`` and ``<name>-detail``."""
    return [
        path(f"{prefix}", viewset.as_view({"get": "list"}), name=f"{name}-list"),
        path(f"{prefix}<int:pk>/", viewset.as_view({"get": "retrieve"}), name=f"{name}-detail"),
    ]


v1: list[URLPattern | URLResolver] = [
    path("tokens/", tokens.TokenViewSet.as_view({"get": "list", "post": "create"}), name="token-list"),
    path("tokens/<int:pk>/", tokens.TokenViewSet.as_view({"get": "retrieve"}), name="token-detail"),
    path("tokens/<int:pk>/revoke/", tokens.TokenViewSet.as_view({"post": "revoke"}), name="token-revoke"),
    *actions_more.urlpatterns,  # first: POST contracts/ and campaigns/import/ share paths with read routes
    *table_events.urlpatterns(),
    path("campaigns/", campaigns.CampaignViewSet.as_view({"get": "list"}), name="campaign-list"),
    path(CAMPAIGN, campaigns.CampaignViewSet.as_view({"get": "retrieve"}), name="campaign-detail"),
    *read_routes(CAMPAIGN + "memberships/", campaigns.MembershipViewSet, "memberships"),
    path(
        CAMPAIGN + "memberships/<int:pk>/password-reset/", campaigns.PasswordResetView.as_view(), name="membership-password-reset"
    ),
    *read_routes(CAMPAIGN + "dynasties/", families.DynastyViewSet, "dynasties"),
    *read_routes(CAMPAIGN + "characters/", families.CharacterViewSet, "characters"),
    *read_routes(CAMPAIGN + "marriages/", families.MarriageViewSet, "marriages"),
    *read_routes(CAMPAIGN + "reigns/", families.ReignViewSet, "reigns"),
    *read_routes(CAMPAIGN + "titles/", families.TitleViewSet, "titles"),
    *read_routes(CAMPAIGN + "crowns/", crowns.CrownViewSet, "crowns"),
    *read_routes(CAMPAIGN + "crown-events/", crowns.CrownEventViewSet, "crown-events"),
    *read_routes(CAMPAIGN + "provinces/", provinces.ProvinceViewSet, "provinces"),
    *read_routes(CAMPAIGN + "monarchs/", crowns.MonarchViewSet, "monarchs"),
    *read_routes(CAMPAIGN + "contracts/", contracts.ContractViewSet, "contracts"),
    *read_routes(CAMPAIGN + "claims/", claims.ClaimViewSet, "claims"),
    *read_routes(CAMPAIGN + "obligations/", claims.ObligationViewSet, "obligations"),
    *read_routes(CAMPAIGN + "ledger/", treasury.LedgerViewSet, "ledger"),
    *read_routes(CAMPAIGN + "balances/", treasury.BalanceViewSet, "balances"),
    *read_routes(CAMPAIGN + "rolls/", rolls.RollViewSet, "rolls"),
    path(CAMPAIGN + "rolls/<int:roll>/correct/", corrections.CorrectView.as_view(), name="rolls-correct"),
    *read_routes(CAMPAIGN + "chronicle/", chronicle.ChronicleViewSet, "chronicle"),
    path(CAMPAIGN + "search/", search.SearchView.as_view(), name="search"),
    path(CAMPAIGN + "notes/", notes.NoteViewSet.as_view({"get": "list", "post": "create"}), name="notes-list"),
    path(CAMPAIGN + "notes/<int:pk>/", notes.NoteViewSet.as_view({"get": "retrieve"}), name="notes-detail"),
    *actions_sequence.urlpatterns,
]

urlpatterns: list[URLPattern | URLResolver] = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # the split view serves its start-up script at /api/docs/?script= (no inline script: the CSP)
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema", template_name="api/swagger_ui.html"), name="docs"),
    path("v1/", include(v1)),
    re_path(r"^", not_found),  # anything else under /api/, newlines included
]
