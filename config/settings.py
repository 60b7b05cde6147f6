"""Regnal settings: everything that differs between machines comes from the environment."""

from __future__ import annotations

import datetime
from pathlib import Path

from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_cache, env_database, env_int, env_json_object, env_list, env_rate, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and not env_bool("REGNAL_DEV", False):
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set SECRET_KEY for production, or DEBUG=1 / REGNAL_DEV=1 for a "
            "local checkout (the Makefile does this for you)."
        )
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
# The address the players open, as the table screen's QR code shows it (``make lan`` sets it to the
# laptop's address on the local network: config/lan.py); empty: the address the screen was opened at.
REGNAL_SITE_URL = env_str("REGNAL_SITE_URL", "").strip().rstrip("/")
# Where `manage.py demo` writes the demo's logins when it sets their passwords (`make run` prints
# them once; the development server's log would scroll them away). Empty: nowhere.
REGNAL_LOGINS_FILE = env_str("REGNAL_LOGINS_FILE", str(BASE_DIR / "var" / "logins.txt"))

INSTALLED_APPS = [
    "desk.admin_config.DeskAdminConfig",  # django.contrib.admin with the GM's desk as its site (desk/site.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "simple_history",  # the audit trail (campaign/audit.py)
    "django_tasks",  # background work (campaign/jobs.py)
    "django_tasks_db",  # ... its database backend's queue and `manage.py db_worker`
    "django_htmx",  # pages that update in place: request.htmx, the htmx script
    "campaign",
    "dynasties",
    "contracts",
    "operations",
    "pages",
    "api",
    "desk",  # the admin of every app (after them all: it scopes what they registered)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # every answer but a static file's: Cache-Control "private, no-store" unless its view chose private caching
    "config.cache_control.PrivateNoStoreMiddleware",
    "csp.middleware.CSPMiddleware",  # the Content-Security-Policy below, on every answer but static files
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "config.errors.RefusalMiddleware",  # a domain error a door let through: its answer (campaign.doors.refusal)
    "django_htmx.middleware.HtmxMiddleware",  # request.htmx: a fragment asked for by htmx, not a page
    "simple_history.middleware.HistoryRequestMiddleware",  # who edited in the admin (campaign/audit.py)
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

DATABASES = {"default": env_database("DATABASE_URL", str(BASE_DIR / "db.sqlite3"))}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", "") or BASE_DIR / "var" / "static")
# WhiteNoise serves STATIC_ROOT (filled by `manage.py collectstatic`) from the application itself;
# in development it finds the files in the apps, as runserver does.
WHITENOISE_AUTOREFRESH = DEBUG
WHITENOISE_USE_FINDERS = DEBUG
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Background work (print batches, a new campaign's prehistory: campaign/jobs.py) goes on Django's
# task queue. By default the tasks run at once, in the request (development, tests, `make run`);
# TASKS_BACKEND=django_tasks_db.DatabaseBackend queues them in the database for `manage.py db_worker`
# (the production default, docs/deployment.md).
TASKS = {"default": {"BACKEND": env_str("TASKS_BACKEND", "django_tasks.backends.immediate.ImmediateBackend")}}
# A job running without a sign of life (progress) for this long lost its worker: it is marked failed
# when looked at, or by `manage.py fail_lost_jobs` (campaign/jobs.py).
REGNAL_JOB_STALE_SECONDS = env_int("REGNAL_JOB_STALE_SECONDS", 900, minimum=60)
# Files the site writes go through Django's storage API: `default_storage` keeps them under
# MEDIA_ROOT (never served from there: the views that hand them out check who asks), each written
# whole or not at all (campaign/files.py: a full disk leaves no partial file).
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", "") or BASE_DIR / "var" / "media")
STORAGES: dict[str, dict[str, object]] = {
    "default": {"BACKEND": "campaign.files.AtomicFileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Rendered artifacts (family trees) go to the storage "artifacts" if ARTIFACTS_STORAGE names a
# backend (S3 through django-storages, docs/deployment.md), else to `default_storage`.
if env_str("ARTIFACTS_STORAGE", "").strip():
    STORAGES["artifacts"] = {
        "BACKEND": env_str("ARTIFACTS_STORAGE", "").strip(),
        "OPTIONS": env_json_object("ARTIFACTS_STORAGE_OPTIONS"),
    }
# Rendered family trees are cached in that storage (indexed in the database, so every server sees
# them) up to this many bytes in all: the least recently used renders are deleted beyond it.
TREE_CACHE_MAX_BYTES = env_int("TREE_CACHE_MAX_BYTES", 200 * 1024 * 1024, minimum=1024 * 1024)
# A tree of more people than this that is not in the cache is rendered by the task queue, the page
# following its job (dot takes about 0.5 s at 500 people, 4 s at 1,200: bench/tree.py).
TREE_INLINE_PEOPLE = env_int("TREE_INLINE_PEOPLE", 500, minimum=1)
# The API's campaign import (POST /api/v1/campaigns/import/) takes a body up to this many bytes
# (api/parsers.py); every other request keeps Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB).
REGNAL_IMPORT_MAX_BYTES = env_int("REGNAL_IMPORT_MAX_BYTES", 50 * 1024 * 1024, minimum=1024 * 1024)

# The site's cache: where the API's rate limits count (api/throttles.py). "memory" counts in each
# process (one process: `make run`); the production settings use "database" (every server and worker
# counts the same requests, in the table regnal_cache that `migrate` makes); a Redis URL
# (redis://host:6379/0, with the redis package installed) does the same in Redis.
CACHES = {"default": env_cache("REGNAL_CACHE", "memory")}
# The live table's poll (campaign/live.py) reads who asks, his seat and the campaign's counters from
# this cache alias (empty: from the database, every poll). It must be shared by every process that
# serves the site or writes to it: "memory" is right for one process only (`make run`; a command
# run beside it, `manage.py simulate`, reaches its polls within REGNAL_LIVE_CACHE_SECONDS); the production settings
# (and `make lan`, whose gunicorn runs two workers) default to "database", which every worker
# shares but which is a database read; with REGNAL_CACHE=redis://... the poll reads no database.
REGNAL_LIVE_CACHE = env_str("REGNAL_LIVE_CACHE", "default")
# How long a cached answer lives at most (s): the bound on one a race between a poll and a commit
# left behind (campaign/live.py); a poll after it reads the database once.
REGNAL_LIVE_CACHE_SECONDS = env_int("REGNAL_LIVE_CACHE_SECONDS", 60, minimum=1)

# The API's rate limits, per user (his session and all his tokens together; by address when not
# logged in), each a number of requests per s, min, hour or day (docs/api.md): every request counts
# in "api"; renders of trees, sheets, PDFs, GEDCOM and exports, campaign imports and note writes
# count in their own scope as well. Over a limit: 429, saying when to try again (Retry-After).
REGNAL_API_RATES = {
    "api": env_rate("REGNAL_RATE_API", "3000/min"),
    "render": env_rate("REGNAL_RATE_RENDER", "30/min"),
    "import": env_rate("REGNAL_RATE_IMPORT", "20/hour"),
    "notes": env_rate("REGNAL_RATE_NOTES", "30/min"),
}

AUTHENTICATION_BACKENDS = [
    "config.auth.AxesBackend",  # refuses a locked-out username + address before the password is checked
    "django.contrib.auth.backends.ModelBackend",
]

# Login rate limiting (django-axes, config/auth.py): AXES_FAILURE_LIMIT wrong passwords for one
# username from one address lock that pair out for AXES_COOLOFF_MINUTES; a good login resets the count.
AXES_ENABLED = env_bool("AXES_ENABLED", True)
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = datetime.timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "config.auth.lockout_response"
AXES_CLIENT_IP_CALLABLE = "config.auth.client_ip"
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "csrfmiddlewaretoken"]  # masked in logs (passwords always are)

# Accounts (issue 34; docs/rulings.md, "Seating the table and accounts"): REGNAL_OPEN_SIGNUP lets
# anyone make an account at /signup/ (then start a campaign, or join one by a link). On by default
# here (`make run`) and with config.settings_lan (`make lan`, game night); off by default with the
# production settings (a public site: accounts come by invitation, or `manage.py createsuperuser`).
# Sign-up attempts count per address (REGNAL_RATE_SIGNUP, in the cache above), as logins do.
REGNAL_OPEN_SIGNUP = env_bool("REGNAL_OPEN_SIGNUP", True)
REGNAL_RATE_SIGNUP = env_rate("REGNAL_RATE_SIGNUP", "20/hour")

PROXY_COUNT = env_int("PROXY_COUNT", 0)
"""How many reverse proxies in front of the application append to X-Forwarded-For (0: none)."""

# Logs go to stderr (gunicorn and systemd collect them). Nothing here logs request bodies, headers
# or SQL parameters: passwords and API token keys never reach a log line (tests/test_security.py).
LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "server": {"()": "django.utils.log.ServerFormatter", "format": "[{server_time}] {message}", "style": "{"},
    },
    "filters": {
        "requestless_login": {"()": "config.log_filters.RequestlessLoginFilter"},
        "quiet_poll": {"()": "config.log_filters.QuietPollFilter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["requestless_login"]},
        "server": {"class": "logging.StreamHandler", "formatter": "server"},
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Django's own console handler (DEBUG only) would print every line twice next to the root's.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        # SQL with its parameters (hashes, keys) is logged at DEBUG when DEBUG=1: never let it out.
        "django.db.backends": {"level": "INFO", "propagate": True},
        # Axes: failures and lockouts are warnings (with the username and address masked); its
        # INFO lines (the banner, every clean-up) are noise.
        "axes": {"level": "WARNING", "propagate": True},
        # runserver's request lines (`make run`), as Django prints them, less the live poll's answers
        # (every open page asks every 700 ms: they would scroll the demo's logins away in seconds).
        "django.server": {"handlers": ["server"], "level": "INFO", "propagate": False, "filters": ["quiet_poll"]},
    },
}

# Content-Security-Policy (django-csp) on every answer: script only from this site's files, never
# inline, so an escaping slip cannot run script. Styles likewise, but for a <style> block that
# carries the request's nonce (nonce="{{ request.csp_nonce }}"). docs/deployment.md.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],  # the dynasty page allows 'self' for its tree's <object> (pages/views.py)
        "base-uri": [SELF],
        "frame-ancestors": [NONE],  # the tree's SVG allows 'self' (pages/trees.py)
        "form-action": [SELF],
    },
}

LOGIN_URL = "login"
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"  # a styled 403 that says to reload the page (config/errors.py)

LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

REST_FRAMEWORK = {
    # the token first: its "WWW-Authenticate: Token" makes a missing login a 401 (not a 403)
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # JSON with bounded nesting and JSON errors for every unreadable body (api/parsers.py)
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "api.exceptions.exception_handler",
    # the rate limits (api/throttles.py): every request in "api", a costly one in its own scope too
    "DEFAULT_THROTTLE_CLASSES": ["api.throttles.TableThrottle", "api.throttles.CostThrottle"],
    "DEFAULT_THROTTLE_RATES": REGNAL_API_RATES,
    "NUM_PROXIES": PROXY_COUNT,  # the client's address behind the proxies (an anonymous caller's limit)
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Regnal API",
    "DESCRIPTION": (
        "The books of a tabletop campaign of royal dynasties. Log in (session) or send "
        "`Authorization: Token <key>`; every error is `{code, message, fields}`."
    ),
    "VERSION": "1",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",  # served from static files: the table's machines may be offline
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "MarriageStateEnum": "api.views.families.MARRIAGE_STATES",
        "ContractStateEnum": "contracts.models.ContractState",
        # read by the contracts and written by their actions: one enum each, not one per serializer
        "ContractKindEnum": "contracts.models.ContractKind",
        "ClauseKindEnum": "contracts.models.ClauseKind",
        "ParleyKindEnum": "contracts.models.ParleyKind",
        "JobStateEnum": "campaign.models.JobState",  # a backup's and a large tree's job
        "CharacterStatusEnum": "dynasties.models.Status",  # a character in the list and in the detail
        "ModifierKindEnum": "dynasties.models.ModifierKind",  # a character's modifiers and a crown's
        "CrownEventKindEnum": "dynasties.models.CrownEventKind",  # a crown's history: a Stability change or a revolt
    },
}
