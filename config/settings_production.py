"""Production settings: ``DJANGO_SETTINGS_MODULE=config.settings_production`` (docs/deployment.md).

The shared settings plus HTTPS everywhere (redirect, HSTS, secure cookies), compressed and
fingerprinted static files served by WhiteNoise, and persistent database connections. Everything
still comes from the environment; a development shortcut (``DEBUG=1``, ``REGNAL_DEV=1``, no
``SECRET_KEY`` or a weak one) stops start-up here. ``manage.py check --deploy`` is clean with the
defaults (tests/test_security.py)."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_cache, env_int, env_list, env_secret_key, env_str

env_secret_key("SECRET_KEY")  # missing, short, repetitive or "django-insecure-...": refused
if env_bool("DEBUG", False) or env_bool("REGNAL_DEV", False):
    raise ImproperlyConfigured("DEBUG=1 and REGNAL_DEV=1 are for development: unset them with the production settings.")

from config.settings import *  # noqa: E402, F403 (after the checks above, which must come first)
from config.settings import DATABASES, STORAGES  # noqa: E402

DEBUG = False

# A public site: no open sign-up unless asked for (accounts come by invitation links).
REGNAL_OPEN_SIGNUP = env_bool("REGNAL_OPEN_SIGNUP", False)

# HTTPS: every http:// request is redirected, browsers are told to stay on HTTPS (HSTS) and the
# session and CSRF cookies are never sent in clear.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)

# Behind a reverse proxy that terminates TLS, name the header it sets to "https" (for example
# SECURE_PROXY_SSL_HEADER=X-Forwarded-Proto) -- only if the proxy always sets or strips it.
_proxy_header = env_str("SECURE_PROXY_SSL_HEADER", "").strip()
if _proxy_header:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_header.upper().replace("-", "_"), "https")
# A proxy that rewrites the Host header: USE_X_FORWARDED_HOST=1 makes Django take the host the
# browser asked for from X-Forwarded-Host instead -- again only if the proxy always sets it.
USE_X_FORWARDED_HOST = env_bool("USE_X_FORWARDED_HOST", False)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 14 * 24 * 3600, minimum=60)

# WhiteNoise serves what `manage.py collectstatic` wrote to STATIC_ROOT, compressed (gzip, and brotli
# unless STATIC_BROTLI=0), with fingerprinted names cached for a year.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "config.static.StaticFilesStorage"}}
WHITENOISE_AUTOREFRESH = False
WHITENOISE_USE_FINDERS = False

# One connection per gunicorn worker, kept between requests and checked before reuse.
DATABASES["default"]["CONN_MAX_AGE"] = env_int("CONN_MAX_AGE", 60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

# The API's rate limits count in the database by default, so that every server counts the same
# requests (a cache in each process's memory would let each of N workers allow the whole rate).
CACHES = {"default": env_cache("REGNAL_CACHE", "database")}
# Sessions read from that cache, written to the database and the cache (the live poll's session is
# then no database read with a Redis cache; with the database cache, one read of its table).
SESSION_ENGINE = env_str("SESSION_ENGINE", "django.contrib.sessions.backends.cached_db")

# Background work is queued in the database and done by `manage.py db_worker` (docs/deployment.md).
TASKS = {"default": {"BACKEND": env_str("TASKS_BACKEND", "django_tasks_db.DatabaseBackend")}}
