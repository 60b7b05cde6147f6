from django.urls import path

from dynasties import views

urlpatterns = [
    path("campaigns/<slug:slug>/gedcom/", views.gedcom, name="gedcom-campaign"),
    path("campaigns/<slug:slug>/dynasties/<int:dynasty_id>/gedcom/", views.gedcom, name="gedcom-dynasty"),
]
