"""Settings read from environment variables, failing loudly on bad values."""

from __future__ import annotations

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
