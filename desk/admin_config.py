"""The admin app with the GM's desk as its site (``desk.site.DeskSite``): listed in INSTALLED_APPS in
place of ``django.contrib.admin``, so ``admin.site`` and every ``@admin.register`` use it."""

from django.contrib.admin.apps import AdminConfig


class DeskAdminConfig(AdminConfig):
    default_site = "desk.site.DeskSite"
