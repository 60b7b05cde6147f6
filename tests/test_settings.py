"""Settings come from the environment and fail loudly on bad values."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_database, env_list

ROOT = Path(__file__).resolve().parent.parent
STRONG_KEY = secrets.token_urlsafe(50)  # the production settings refuse a weak one (tests/test_csp.py)


def test_booleans():
    assert env_bool("X", False, {"X": "yes"}) is True
    assert env_bool("X", True, {"X": "0"}) is False
    assert env_bool("X", True, {}) is True
    with pytest.raises(ImproperlyConfigured, match=r"DEBUG='maybe' is not a boolean: use one of 1/0"):
        env_bool("DEBUG", False, {"DEBUG": "maybe"})


def test_lists():
    assert env_list("H", ["a"], {"H": "example.org, www.example.org"}) == ["example.org", "www.example.org"]
    assert env_list("H", ["a"], {}) == ["a"]
    with pytest.raises(ImproperlyConfigured, match="has an empty entry"):
        env_list("ALLOWED_HOSTS", [], {"ALLOWED_HOSTS": "example.org,,x"})


def test_database_urls():
    default = env_database("DATABASE_URL", "/tmp/x.sqlite3", {})
    assert default["ENGINE"] == "config.db_sqlite" and default["NAME"] == "/tmp/x.sqlite3"
    pg = env_database("DATABASE_URL", "", {"DATABASE_URL": "postgres://u:p@127.0.0.1:5433/regnal"})
    assert pg["ENGINE"] == "django.db.backends.postgresql"
    assert (pg["HOST"], pg["PORT"], pg["NAME"], pg["USER"]) == ("127.0.0.1", 5433, "regnal", "u")
    lite = env_database("DATABASE_URL", "", {"DATABASE_URL": "sqlite:////tmp/y.sqlite3"})
    assert lite["ENGINE"] == "config.db_sqlite" and lite["NAME"] == "/tmp/y.sqlite3"
    with pytest.raises(ImproperlyConfigured, match="must start with postgres://"):
        env_database("DATABASE_URL", "", {"DATABASE_URL": "mysql://x/y"})


def test_time_zone_is_utc():
    assert settings.TIME_ZONE == "UTC" and settings.USE_TZ


def _import_settings(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "REGNAL_DEV", "SECRET_KEY", "ALLOWED_HOSTS"}}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-c", "import config.settings as s; print(s.DEBUG, s.ALLOWED_HOSTS)"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        check=False,
    )


def test_missing_secret_key_stops_production_start_up():
    result = _import_settings({})
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_production_settings_from_the_environment():
    result = _import_settings({"SECRET_KEY": "x" * 50, "ALLOWED_HOSTS": "regnal.example"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False ['regnal.example']"
    bad = _import_settings({"SECRET_KEY": "x" * 50, "DEBUG": "perhaps"})
    assert bad.returncode != 0 and "DEBUG='perhaps' is not a boolean" in bad.stderr


def test_sqlite_backend_uses_the_real_variable_limit(db):
    from django.db import connection

    # (PostgreSQL has no such limit; the SQLite backend must not assume the historic 999.)
    assert connection.vendor != "sqlite" or connection.features.max_query_params > 999


def _production(env: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "REGNAL_DEV", "SECRET_KEY", "ALLOWED_HOSTS"}}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-c", f"import config.settings_production as s; {code}"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        check=False,
    )


def test_production_settings_need_a_secret_key_and_no_debug():
    missing = _production({}, "")
    assert missing.returncode != 0 and "SECRET_KEY is not set" in missing.stderr
    debug = _production({"SECRET_KEY": STRONG_KEY, "DEBUG": "1"}, "")
    assert debug.returncode != 0 and "DEBUG=1 and REGNAL_DEV=1 are for development" in debug.stderr


def test_production_settings_are_https_only_and_env_driven():
    shown = (
        "print(s.DEBUG, s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, "
        "getattr(s, 'SECURE_PROXY_SSL_HEADER', None), s.STORAGES['staticfiles']['BACKEND'].rsplit('.', 1)[-1], "
        "s.DATABASES['default']['CONN_MAX_AGE'])"
    )
    default = _production({"SECRET_KEY": STRONG_KEY}, shown)
    assert default.returncode == 0, default.stderr
    assert default.stdout.split() == [
        "False",
        "True",
        "True",
        "True",
        "31536000",
        "None",
        "StaticFilesStorage",  # config.static: WhiteNoise's compressed, fingerprinted files
        "60",
    ]
    proxied = _production(
        {"SECRET_KEY": STRONG_KEY, "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto", "SECURE_HSTS_SECONDS": "3600"}, shown
    )
    assert proxied.returncode == 0, proxied.stderr
    assert "3600 ('HTTP_X_FORWARDED_PROTO', 'https')" in proxied.stdout
    bad = _production({"SECRET_KEY": STRONG_KEY, "SECURE_HSTS_SECONDS": "a year"}, "")
    assert bad.returncode != 0 and "SECURE_HSTS_SECONDS='a year' is not a whole number" in bad.stderr


def test_production_settings_take_the_forwarded_host_only_when_told():
    shown = "print(s.USE_X_FORWARDED_HOST)"
    assert _production({"SECRET_KEY": STRONG_KEY}, shown).stdout.split() == ["False"]
    assert _production({"SECRET_KEY": STRONG_KEY, "USE_X_FORWARDED_HOST": "1"}, shown).stdout.split() == ["True"]


def test_login_rate_limiting_is_on_unless_turned_off():
    assert settings.AXES_ENABLED is True
    code = "import config.settings as s; print(s.AXES_ENABLED, s.AXES_FAILURE_LIMIT, s.AXES_COOLOFF_TIME)"
    shown = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "REGNAL_DEV": "1", "AXES_ENABLED": "0", "AXES_FAILURE_LIMIT": "3", "AXES_COOLOFF_MINUTES": "60"},
    )
    assert shown.stdout.strip() == "False 3 1:00:00", shown.stderr


def test_the_files_the_site_writes_go_where_the_environment_says(tmp_path):
    shown = "print(s.MEDIA_ROOT, s.STORAGES['default']['BACKEND'], s.STORAGES.get('artifacts'))"
    default = _production({"SECRET_KEY": STRONG_KEY}, shown)
    assert default.returncode == 0, default.stderr
    assert default.stdout.split() == [str(ROOT / "var" / "media"), "campaign.files.AtomicFileSystemStorage", "None"]
    s3 = {"ARTIFACTS_STORAGE": "storages.backends.s3.S3Storage", "ARTIFACTS_STORAGE_OPTIONS": '{"bucket_name": "regnal"}'}
    chosen = _production({"SECRET_KEY": STRONG_KEY, "MEDIA_ROOT": str(tmp_path / "media"), **s3}, shown)
    assert chosen.stdout.split(" ", 2) == [
        str(tmp_path / "media"),
        "campaign.files.AtomicFileSystemStorage",
        "{'BACKEND': 'storages.backends.s3.S3Storage', 'OPTIONS': {'bucket_name': 'regnal'}}\n",
    ], chosen.stderr
    bad = _production({"SECRET_KEY": STRONG_KEY, **s3, "ARTIFACTS_STORAGE_OPTIONS": "bucket=regnal"}, shown)
    assert bad.returncode != 0 and "ARTIFACTS_STORAGE_OPTIONS is not JSON" in bad.stderr
    listed = _production({"SECRET_KEY": STRONG_KEY, **s3, "ARTIFACTS_STORAGE_OPTIONS": '["regnal"]'}, shown)
    assert listed.returncode != 0 and "is not a JSON object" in listed.stderr


def test_artifacts_go_to_the_default_storage_unless_one_is_named(settings, tmp_path):
    from django.core.files.storage import InMemoryStorage, default_storage

    from campaign.artifacts import artifact_storage

    settings.MEDIA_ROOT = str(tmp_path / "elsewhere")
    assert artifact_storage() is default_storage and default_storage.location == str(tmp_path / "elsewhere")
    settings.STORAGES = {**settings.STORAGES, "artifacts": {"BACKEND": "django.core.files.storage.InMemoryStorage"}}
    assert isinstance(artifact_storage(), InMemoryStorage)


def test_static_files_are_compressed_with_brotli_unless_told_not_to(monkeypatch, tmp_path):
    from whitenoise.storage import CompressedManifestStaticFilesStorage

    from config.static import StaticFilesStorage

    storage = StaticFilesStorage(location=str(tmp_path))
    assert isinstance(storage, CompressedManifestStaticFilesStorage)
    monkeypatch.delenv("STATIC_BROTLI", raising=False)
    compressor = storage.create_compressor(quiet=True)
    assert compressor.use_gzip and compressor.use_brotli  # brotli comes with the site (WeasyPrint's fonttools)
    monkeypatch.setenv("STATIC_BROTLI", "0")
    compressor = storage.create_compressor(quiet=True)
    assert compressor.use_gzip and not compressor.use_brotli
    (tmp_path / "site.css").write_text("body { color: #123456; }" * 100)
    written = list(compressor.compress(str(tmp_path / "site.css")))
    assert [Path(p).name for p in written] == ["site.css.gz"]
