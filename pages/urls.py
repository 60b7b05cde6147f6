from django.urls import path

from pages import views

app_name = "pages"

urlpatterns = [
    path("<slug:slug>/", views.dashboard, name="dashboard"),
    path("<slug:slug>/dynasty/<int:pk>/", views.dynasty, name="dynasty"),
    path("<slug:slug>/character/<int:pk>/", views.character, name="character"),
    path("<slug:slug>/rolls/", views.rolls, name="rolls"),
]
