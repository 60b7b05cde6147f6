"""Per-user, named, revocable API tokens. Only a hash of the key is stored: the key is shown once."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=80, help_text="What the token is for (a bot, a phone, a script).")
    key_hash = models.CharField(max_length=64, unique=True, editable=False, help_text="SHA-256 of the key, hex.")
    prefix = models.CharField(max_length=16, editable=False, help_text="The key's first characters, to recognise it.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["user", "-created_at", "-id"]
        verbose_name = "API token"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "name"], condition=Q(revoked_at__isnull=True), name="apitoken_active_name_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class CacheEntry(models.Model):
    """A row of the site's cache when it is the database (``REGNAL_CACHE=database``, the production
    default: Django's ``DatabaseCache`` on this table, ``config.env.CACHE_TABLE``). The API's rate
    limits count here (``api.throttles``), so that every server counts the same requests. Declared
    as a model so that ``migrate`` makes the table (the columns ``createcachetable`` would make);
    only the cache reads and writes it."""

    cache_key = models.CharField(max_length=255, primary_key=True)
    value = models.TextField()
    expires = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "regnal_cache"
        verbose_name = "cache entry"
        verbose_name_plural = "cache entries"

    def __str__(self) -> str:
        return self.cache_key
