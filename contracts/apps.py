from django.apps import AppConfig


class ContractsConfig(AppConfig):
    name = "contracts"
    verbose_name = "Contracts"
    default_auto_field = "django.db.models.BigAutoField"
