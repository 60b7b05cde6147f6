from django.apps import AppConfig


class OperationsConfig(AppConfig):
    """Whole-campaign operations: export and import, backups, the demo, simulated campaigns."""

    name = "operations"
    verbose_name = "Whole-campaign operations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from operations import services  # noqa: F401  (registers what a lost prehistory undoes: campaign.jobs.on_lost)
