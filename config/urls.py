from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from pages import accounts, campaigns, gedcom, home, invitations, prints, trees

urlpatterns = [
    path("", home.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    *gedcom.urlpatterns,
    path("trees/", include((trees.urlpatterns, "trees"))),
    path("print/", include((prints.urlpatterns, "print"))),
    path("campaigns/", include((campaigns.urlpatterns, "campaigns"))),
    path("c/", include("pages.urls")),
    path("api/", include("api.urls")),
    path("account/", include("api.account")),
    *invitations.join_urlpatterns,
    *accounts.urlpatterns,
]

# The site's error pages (config/errors.py): styled, with a way back; JSON under /api/.
handler403 = "config.errors.forbidden"
handler404 = "config.errors.not_found"
handler500 = "config.errors.server_error"
