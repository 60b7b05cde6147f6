from django.apps import AppConfig


class DynastiesConfig(AppConfig):
    name = "dynasties"
    verbose_name = "Dynasties"
    default_auto_field = "django.db.models.BigAutoField"
