from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from campaign import views
from pages import campaigns

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("", include("dynasties.urls")),
    path("trees/", include("dynasties.trees.urls")),
    path("print/", include("dynasties.print_urls")),
    path("campaigns/", include((campaigns.urlpatterns, "campaigns"))),
    path("c/", include("pages.urls")),
    path("api/", include("api.urls")),
    path("account/", include("api.account")),
]
