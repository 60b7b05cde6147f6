from django.apps import AppConfig


class CampaignConfig(AppConfig):
    name = "campaign"
    verbose_name = "Campaigns"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from campaign import checks  # noqa: F401
        from campaign.admin_scope import scope_admin

        scope_admin()  # the admin's autodiscovery (an earlier app) has registered every model by now
