"""API action routes, part 2 (issue 8): contracts, export/import, renders. Paths are relative to
/api/v1/. ``api/urls.py`` puts these before the read routes: ``POST campaigns/{slug}/contracts/``
shares its path with the contracts list (one view answers both methods) and ``POST
campaigns/import/`` would otherwise be taken for a campaign called "import".

campaigns/import/                                         POST import a regnal/3 document
campaigns/{slug}/export/                                  GET  the regnal/3 document (GM)
campaigns/{slug}/backups/                                 POST queue a backup (GM); {id}/ its job, {id}/file/ the export
campaigns/{slug}/contracts/                               GET  list, POST draft
campaigns/{slug}/contracts/{id}/sign/                     POST one party signs (or the GM: all)
campaigns/{slug}/contracts/{id}/end/                      POST by consent or the escape clause
campaigns/{slug}/contracts/{id}/breaches/                 POST record a breach
campaigns/{slug}/contracts/{id}/payments/{pid}/settle/    POST settle an unpaid payment
campaigns/{slug}/contracts/{id}/pdf/                      GET  the contract, PDF
campaigns/{slug}/breaches/{id}/dispute/                   POST BloodLine's ruling (GM)
campaigns/{slug}/parleys/                                 POST a parley (GM)
campaigns/{slug}/claims/record/ | exchange/               POST record a claim, an exchange of claims (GM)
campaigns/{slug}/claims/{id}/renounce/                    POST renounce a claim (its house or the GM)
campaigns/{slug}/obligations/{id}/resolve/                POST comply with or refuse a parley's decision
campaigns/{slug}/trees/{kind}/                            GET  SVG, PNG or PDF
campaigns/{slug}/characters/{id}/sheet.pdf                GET  the character sheet
campaigns/{slug}/announcements/{year}/pdf/                GET  a turn's announcements
campaigns/{slug}/gedcom/                                  GET  GEDCOM 5.5.1
campaigns/{slug}/titles/{id}/reclaim/ | bequeath/         POST BloodLine: a title at its holder's death
campaigns/{slug}/titles/{id}/crisis-claim/ | crisis-waive/ POST BloodLine: a Dynastic Crisis's title claims
campaigns/{slug}/titles/{id}/dispute/                    POST Blood Royale rule G: the King disputes an inheritance (GM)
campaigns/{slug}/titles/{id}/line/                       GET  the title's line of succession (public record)
"""

from __future__ import annotations

from django.urls import URLPattern, path

from api.views import backups, claims, exchange, renders, titles
from api.views import contract_actions as contracts

CAMPAIGN = "campaigns/<slug:slug>/"
CONTRACT = CAMPAIGN + "contracts/<int:pk>/"
TITLE = CAMPAIGN + "titles/<int:pk>/"

urlpatterns: list[URLPattern] = [
    path("campaigns/import/", exchange.ImportView.as_view(), name="campaign-import"),
    path(CAMPAIGN + "export/", exchange.ExportView.as_view(), name="campaign-export"),
    path(CAMPAIGN + "backups/", backups.BackupsView.as_view(), name="backups"),
    path(CAMPAIGN + "backups/<str:token>/", backups.BackupView.as_view(), name="backup"),
    path(CAMPAIGN + "backups/<str:token>/file/", backups.BackupFileView.as_view(), name="backup-file"),
    path(
        CAMPAIGN + "contracts/",
        contracts.ContractCollectionViewSet.as_view({"get": "list", "post": "draft"}),
        name="contracts-draft",
    ),
    path(CONTRACT + "sign/", contracts.SignView.as_view(), name="contract-sign"),
    path(CONTRACT + "end/", contracts.EndView.as_view(), name="contract-end"),
    path(CONTRACT + "breaches/", contracts.BreachView.as_view(), name="contract-breaches"),
    path(CONTRACT + "payments/<int:payment>/settle/", contracts.SettleView.as_view(), name="contract-payment-settle"),
    path(CONTRACT + "pdf/", renders.ContractPdfView.as_view(), name="contract-pdf"),
    path(CAMPAIGN + "breaches/<int:pk>/dispute/", contracts.DisputeView.as_view(), name="breach-dispute"),
    path(CAMPAIGN + "parleys/", contracts.ParleyView.as_view(), name="parleys"),
    path(CAMPAIGN + "claims/record/", claims.ClaimRecordView.as_view(), name="claims-record"),
    path(CAMPAIGN + "claims/exchange/", claims.ClaimExchangeView.as_view(), name="claims-exchange"),
    path(CAMPAIGN + "claims/<int:pk>/renounce/", claims.ClaimRenounceView.as_view(), name="claim-renounce"),
    path(CAMPAIGN + "obligations/<int:pk>/resolve/", claims.ObligationResolveView.as_view(), name="obligation-resolve"),
    path(CAMPAIGN + "trees/<str:kind>/", renders.TreeView.as_view(), name="tree"),
    path(CAMPAIGN + "trees/jobs/<str:token>/", renders.TreeJobView.as_view(), name="tree-job"),
    path(CAMPAIGN + "trees/jobs/<str:token>/file/", renders.TreeJobFileView.as_view(), name="tree-job-file"),
    path(CAMPAIGN + "characters/<int:pk>/sheet.pdf", renders.SheetView.as_view(), name="character-sheet"),
    path(CAMPAIGN + "announcements/<int:year>/pdf/", renders.AnnouncementsPdfView.as_view(), name="announcements-pdf"),
    path(CAMPAIGN + "gedcom/", renders.GedcomView.as_view(), name="gedcom"),
    path(TITLE + "reclaim/", titles.ReclaimView.as_view(), name="title-reclaim"),
    path(TITLE + "bequeath/", titles.BequeathView.as_view(), name="title-bequeath"),
    path(TITLE + "crisis-claim/", titles.CrisisClaimView.as_view(), name="title-crisis-claim"),
    path(TITLE + "crisis-waive/", titles.CrisisWaiveView.as_view(), name="title-crisis-waive"),
    path(TITLE + "dispute/", titles.DisputeView.as_view(), name="title-dispute"),
    path(TITLE + "line/", titles.TitleLineView.as_view(), name="title-line"),
]
