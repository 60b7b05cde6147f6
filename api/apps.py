from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "REST API"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from api import schema  # noqa: F401  (the OpenAPI extension for the token scheme)
        from api.models import ApiToken, CacheEntry
        from campaign import registry

        registry.exempt(ApiToken, "a user's key to the API, not a campaign's")
        registry.exempt(CacheEntry, "the site's cache (the API's rate limits), no campaign's state")
