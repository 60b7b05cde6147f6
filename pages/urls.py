from django.urls import URLPattern, URLResolver, path

from pages import agreements, marriages, sequence, titles, treasury, views

app_name = "pages"

urlpatterns: list[URLPattern | URLResolver] = [
    path("<slug:slug>/", views.dashboard, name="dashboard"),
    path("<slug:slug>/dynasty/<int:pk>/", views.dynasty, name="dynasty"),
    path("<slug:slug>/character/<int:pk>/", views.character, name="character"),
    path("<slug:slug>/rolls/", views.rolls, name="rolls"),
    *sequence.urlpatterns,
    *marriages.urlpatterns,
    *agreements.urlpatterns,
    *treasury.urlpatterns,
    *titles.urlpatterns,
]
