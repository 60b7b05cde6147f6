from django.urls import URLPattern, URLResolver, path

from pages import (
    backups,
    corrections,
    crowns,
    ending,
    invitations,
    live,
    marriages,
    notes,
    preferences,
    provinces,
    search,
    sequence,
    setup,
    table_events,
    titles,
    treasury,
    views,
)
from pages.contracts import urls as contracts
from pages.editing import urlpatterns as editing_urls

app_name = "pages"

urlpatterns: list[URLPattern | URLResolver] = [
    path("<slug:slug>/", views.dashboard, name="dashboard"),
    path("<slug:slug>/dynasty/<int:pk>/", views.dynasty, name="dynasty"),
    path("<slug:slug>/character/<int:pk>/", views.character, name="character"),
    path("<slug:slug>/rolls/", views.rolls, name="rolls"),
    *corrections.urlpatterns,
    *editing_urls,
    *preferences.urlpatterns,
    *sequence.urlpatterns,
    *marriages.urlpatterns,
    *contracts.urlpatterns,
    *treasury.urlpatterns,
    *titles.urlpatterns,
    *backups.urlpatterns,
    *invitations.urlpatterns,
    *live.urlpatterns,
    *search.urlpatterns,
    *notes.urlpatterns,
    *setup.urlpatterns,
    *table_events.urlpatterns,
    *crowns.urlpatterns,
    *ending.urlpatterns,
    *provinces.urlpatterns,
]
