from django.urls import path

app_name = "pages"

urlpatterns: list = []
