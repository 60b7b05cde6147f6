from django.apps import AppConfig


class OperationsConfig(AppConfig):
    """Whole-campaign operations: export and import, backups, the demo, simulated campaigns."""

    name = "operations"
    verbose_name = "Whole-campaign operations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from operations import services  # noqa: F401  (registers what a lost prehistory undoes: campaign.jobs.on_lost)

        self.register_plays()

    def register_plays(self) -> None:
        """The one list of the rulesets' operations (operations/play/: each one's demo and the automatic
        player's law): a fourth ruleset is one new module there and one entry here."""
        from operations.play import blood_royale, bloodline, eu_monarchs

        for module in (blood_royale, bloodline, eu_monarchs):
            module.register()
