"""API action routes, part 1 (issue 8): the Dynastic Sequence, the succession, marriages and the
announcements, undo, and the treasury's actions. Paths are relative to /api/v1/.

campaigns/{slug}/turn/                                   GET the turn; POST turn/advance/ (GM)
campaigns/{slug}/births/                                 GET the couples and their odds
campaigns/{slug}/births/attempts/ [{id}/sex/]            POST a birth roll; the child's sex
campaigns/{slug}/births/roll-all/ | finish/              POST (GM)
campaigns/{slug}/survival/                               GET who rolls, what they need, the odds
campaigns/{slug}/survival/rolls/ | finish/               POST rolls; the GM's finish (successions)
campaigns/{slug}/survival/monarchs/                      GET EU monarchs: each crown's due roll and its odds
campaigns/{slug}/survival/monarchs/{crown}/survival/ | succession/   POST (GM) the monarch's roll
campaigns/{slug}/succession/{crown}/ [what-if/]          GET the line; "what if X dies"
campaigns/{slug}/succession/{crown}/pass-over/           POST the crown's player's choice
campaigns/{slug}/marriages/check/ | arrange/ | finish/   POST
campaigns/{slug}/marriages/{id}/wed/ | cancel/           POST
campaigns/{slug}/announcements/ [publish/]               GET a year's announcements; POST (GM)
campaigns/{slug}/undo/                                   POST (GM)
campaigns/{slug}/redo/                                   POST (GM): the last undo, written again
campaigns/{slug}/treasury/transfers/                     POST a gift, loan or payment
campaigns/{slug}/ledger/{id}/reverse/                    POST (GM)
campaigns/{slug}/interphase/{dynasty}/preview/ | run/    POST
campaigns/{slug}/cash-in/{dynasty}/preview/ | run/       POST
campaigns/{slug}/standings/ [pdf/]                       GET the standings; the final table (PDF)
campaigns/{slug}/end/ | end/settings/ | end/reopen/      POST (GM): end the game; its settings; reopen it
"""

from __future__ import annotations

from django.urls import URLPattern, path

from api.views import ending, marriages, money
from api.views.sequence import births, monarchs, redo, succession, survival, turn, undo

C = "campaigns/<slug:slug>/"

urlpatterns: list[URLPattern] = [
    path(C + "turn/", turn.TurnView.as_view(), name="turn"),
    path(C + "turn/advance/", marriages.AdvanceView.as_view(), name="turn-advance"),
    path(C + "standings/", ending.StandingsView.as_view(), name="standings"),
    path(C + "standings/pdf/", ending.FinalTablePdfView.as_view(), name="standings-pdf"),
    path(C + "end/", ending.EndView.as_view(), name="game-end"),
    path(C + "end/settings/", ending.EndSettingsView.as_view(), name="game-end-settings"),
    path(C + "end/reopen/", ending.ReopenView.as_view(), name="game-reopen"),
    path(C + "births/", births.BirthsView.as_view(), name="births"),
    path(C + "births/attempts/", births.AttemptsView.as_view(), name="births-attempts"),
    path(C + "births/attempts/<int:attempt>/sex/", births.SexView.as_view(), name="births-sex"),
    path(C + "births/roll-all/", births.RollAllView.as_view(), name="births-roll-all"),
    path(C + "births/finish/", births.BirthsFinishView.as_view(), name="births-finish"),
    path(C + "survival/", survival.SurvivalView.as_view(), name="survival"),
    path(C + "survival/rolls/", survival.SurvivalRollsView.as_view(), name="survival-rolls"),
    path(C + "survival/finish/", survival.SurvivalFinishView.as_view(), name="survival-finish"),
    path(C + "survival/monarchs/", monarchs.MonarchsView.as_view(), name="monarchs"),
    path(C + "survival/monarchs/<str:crown>/survival/", monarchs.MonarchSurvivalView.as_view(), name="monarchs-survival"),
    path(C + "survival/monarchs/<str:crown>/succession/", monarchs.MonarchSuccessionView.as_view(), name="monarchs-succession"),
    path(C + "succession/<str:crown>/", succession.SuccessionView.as_view(), name="succession"),
    path(C + "succession/<str:crown>/what-if/", succession.WhatIfView.as_view(), name="succession-what-if"),
    path(C + "succession/<str:crown>/pass-over/", succession.PassOverView.as_view(), name="succession-pass-over"),
    path(C + "marriages/check/", marriages.MarriageCheckView.as_view(), name="marriages-check"),
    path(C + "marriages/arrange/", marriages.ArrangeView.as_view(), name="marriages-arrange"),
    path(C + "marriages/finish/", marriages.MarriagesFinishView.as_view(), name="marriages-finish"),
    path(C + "marriages/<int:marriage>/wed/", marriages.WedView.as_view(), name="marriages-wed"),
    path(C + "marriages/<int:marriage>/cancel/", marriages.CancelView.as_view(), name="marriages-cancel"),
    path(C + "announcements/", marriages.AnnouncementsView.as_view(), name="announcements"),
    path(C + "announcements/publish/", marriages.PublishView.as_view(), name="announcements-publish"),
    path(C + "undo/", undo.UndoView.as_view(), name="undo"),
    path(C + "redo/", redo.RedoView.as_view(), name="redo"),
    path(C + "treasury/transfers/", money.TransferView.as_view(), name="treasury-transfers"),
    path(C + "ledger/<int:posting>/reverse/", money.ReverseView.as_view(), name="ledger-reverse"),
    path(C + "interphase/<int:dynasty>/preview/", money.InterphasePreviewView.as_view(), name="interphase-preview"),
    path(C + "interphase/<int:dynasty>/run/", money.InterphaseRunView.as_view(), name="interphase-run"),
    path(C + "cash-in/<int:dynasty>/preview/", money.CashInPreviewView.as_view(), name="cash-in-preview"),
    path(C + "cash-in/<int:dynasty>/run/", money.CashInRunView.as_view(), name="cash-in-run"),
]
