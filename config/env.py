"""Settings read from environment variables, failing loudly on bad values."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

# WAL lets readers go on while a step writes; synchronous=NORMAL is durable across application
# crashes (only an OS crash can lose the last commits); IMMEDIATE takes the write lock when a
# transaction starts, so two GMs running the same step queue instead of failing half-way.
SQLITE_OPTIONS: dict[str, object] = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str, environ: Mapping[str, str] = os.environ) -> str:
    return environ.get(name, default)


def env_bool(name: str, default: bool, environ: Mapping[str, str] = os.environ) -> bool:
    raw = environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off.")


def env_int(name: str, default: int, environ: Mapping[str, str] = os.environ, *, minimum: int = 0) -> int:
    raw = environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number.") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={raw!r} must be at least {minimum}.")
    return value


def env_list(name: str, default: list[str], environ: Mapping[str, str] = os.environ) -> list[str]:
    raw = environ.get(name)
    if raw is None:
        return default
    items = [item.strip() for item in raw.split(",")]
    if any(not item for item in items):
        raise ImproperlyConfigured(
            f"{name}={raw!r} has an empty entry: give a comma-separated list such as 'example.org,www.example.org'."
        )
    return items


def env_json_object(name: str, environ: Mapping[str, str] = os.environ) -> dict[str, object]:
    """A JSON object (``{}`` when unset), such as a storage's options."""
    raw = environ.get(name, "").strip()
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(
            f'{name} is not JSON ({exc}): write an object such as \'{{"bucket_name": "regnal"}}\'.'
        ) from None
    if not isinstance(value, dict):
        raise ImproperlyConfigured(f'{name}={raw!r} is not a JSON object: write one such as \'{{"bucket_name": "regnal"}}\'.')
    return value


RATE_PERIODS = {
    "s": "s",
    "sec": "s",
    "second": "s",
    "m": "min",
    "min": "min",
    "minute": "min",
    "h": "hour",
    "hour": "hour",
    "d": "day",
    "day": "day",
}


def env_rate(name: str, default: str, environ: Mapping[str, str] = os.environ) -> str:
    """A rate limit, requests per period ("60/min"), in REST framework's form: ``<n>/<s|min|hour|day>``."""
    raw = environ.get(name)
    text = default if raw is None or not raw.strip() else raw.strip()
    count, _, period = text.partition("/")
    unit = RATE_PERIODS.get(period.strip().lower())
    number = int(count.strip()) if count.strip().isdigit() else 0
    if unit is None or number < 1:
        raise ImproperlyConfigured(
            f"{name}={text!r} is not a rate: write how many requests in which period, such as '60/min' "
            "(at least 1; the period is one of s, min, hour, day)."
        )
    return f"{number}/{unit}"


CACHE_TABLE = "regnal_cache"
"""The database cache's table (``api.models.CacheEntry``, made by ``migrate``)."""
CACHE_MAX_ENTRIES = 10_000
"""Rows the database cache keeps before it culls (expired rows first); it counts them at each write."""
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def env_cache(name: str, default: str, environ: Mapping[str, str] = os.environ) -> dict[str, object]:
    """The site's cache (where the API's rate limits count): ``memory`` (this process only),
    ``database`` (the site's database: every server and worker counts together) or a Redis URL."""
    raw = environ.get(name, "").strip() or default
    if raw == "memory":
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "regnal"}
    if raw == "database":
        return {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": CACHE_TABLE,
            "OPTIONS": {"MAX_ENTRIES": CACHE_MAX_ENTRIES},
        }
    if raw.startswith(REDIS_SCHEMES):
        if importlib.util.find_spec("redis") is None:
            raise ImproperlyConfigured(
                f"{name} names a Redis server, but the redis package is not installed: add redis to "
                "requirements.in, re-lock and install it (docs/deployment.md), or use 'database'."
            )
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": raw}
    shown = raw.split("://", 1)[0] + "://..." if "://" in raw else repr(raw)  # a URL may hold a password
    raise ImproperlyConfigured(
        f"{name}={shown} is not a cache: write 'memory' (one process), 'database' (the site's database, "
        "shared by every server) or a Redis URL such as redis://127.0.0.1:6379/0."
    )


KEY_MIN_LENGTH = 50
KEY_MIN_UNIQUE = 5
KEY_INSECURE_PREFIX = "django-insecure-"
KEY_RECIPE = "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"


def env_secret_key(name: str, environ: Mapping[str, str] = os.environ) -> str:
    """A strong key or a refusal: the thresholds of Django's ``check --deploy`` (security.W009),
    made an error. The message never shows the key."""
    key = environ.get(name, "")
    if not key:
        problem = "is not set"
    elif len(key) < KEY_MIN_LENGTH:
        problem = f"is {len(key)} characters long"
    elif len(set(key)) < KEY_MIN_UNIQUE:
        problem = f"has only {len(set(key))} different characters"
    elif key.startswith(KEY_INSECURE_PREFIX):
        problem = f"starts with {KEY_INSECURE_PREFIX!r} (a key made for development)"
    else:
        return key
    raise ImproperlyConfigured(
        f"{name} {problem}: production needs a long random key ({KEY_MIN_LENGTH}+ characters, "
        f"{KEY_MIN_UNIQUE}+ different ones). Write the output of {KEY_RECIPE} into {name} "
        "(changing it logs everyone out)."
    )


def env_database(name: str, default_sqlite_path: str, environ: Mapping[str, str] = os.environ) -> dict[str, object]:
    """SQLite by default; DATABASE_URL (postgres://... or sqlite:///...) otherwise."""
    raw = environ.get(name)
    if not raw:
        return {
            "ENGINE": "config.db_sqlite",
            "NAME": default_sqlite_path,
            "OPTIONS": SQLITE_OPTIONS,
        }
    import dj_database_url

    if not raw.startswith(("postgres://", "postgresql://", "pgsql://", "sqlite://")):
        raise ImproperlyConfigured(
            f"{name} must start with postgres://, postgresql:// or sqlite://; got {raw.split(':', 1)[0]!r}."
        )
    try:
        config: dict[str, object] = dict(dj_database_url.parse(raw))
    except ValueError as exc:  # pragma: no cover - message passthrough
        raise ImproperlyConfigured(f"{name} could not be parsed: {exc}") from exc
    if config.get("ENGINE") == "django.db.backends.sqlite3":
        config["ENGINE"] = "config.db_sqlite"
        config["OPTIONS"] = SQLITE_OPTIONS
    return config
