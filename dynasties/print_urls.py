"""URLs of the printables; mount with ``path("print/", include("dynasties.print_urls"))``."""

from django.urls import path

from dynasties import print_views

app_name = "print"

urlpatterns = [
    path("sheet/<int:pk>.pdf", print_views.character_sheet, name="character_sheet"),
    path("dynasty/<int:pk>/sheets.pdf", print_views.dynasty_sheets, name="dynasty_sheets"),
    path("campaign/<slug:slug>/sheets.pdf", print_views.campaign_sheets, name="campaign_sheets"),
    path("campaign/<slug:slug>/announcements/<int:year>.pdf", print_views.announcements, name="announcements"),
    path("campaign/<slug:slug>/jobs/<str:token>/", print_views.job, name="job"),
    path("campaign/<slug:slug>/monarch-cards.pdf", print_views.monarch_cards, name="monarch_cards"),
    path("campaign/<slug:slug>/crown/<str:name>/monarch-card.pdf", print_views.monarch_card, name="monarch_card"),
]
