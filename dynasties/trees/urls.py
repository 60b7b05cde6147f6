from django.urls import path

from dynasties.trees import views

app_name = "trees"

urlpatterns = [
    path("<slug:slug>/jobs/<str:token>/", views.job, name="job"),
    path("<slug:slug>/<str:kind>/", views.tree, name="tree"),
]
