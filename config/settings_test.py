"""Settings for the test suite: the development defaults plus fast password hashing."""

import os

os.environ.setdefault("REGNAL_DEV", "1")

from config.settings import *  # noqa: F403

# `manage.py demo` in a test writes no logins file (var/logins.txt is the developer's); a test that
# wants one names it (--logins-file).
REGNAL_LOGINS_FILE = ""

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Static files come from the apps (no collectstatic before the tests), as in development.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True

# SQLite's test database in memory, one per pytest-xdist worker (pytest-django names a file
# database after the worker; the custom engine below hides that it is SQLite). Its tables are made
# from the models, not by running the 36 migrations (14 s a database on SQLite, which rebuilds a
# table for most changes): `make test` checks the models and the migrations agree
# (makemigrations --check) and the PostgreSQL run builds its databases by migrating; the data
# migrations' functions have tests of their own.
for _db in DATABASES.values():  # noqa: F405
    if _db["ENGINE"] == "config.db_sqlite":
        _test = _db.setdefault("TEST", {})
        assert isinstance(_test, dict), "DATABASES' TEST settings are a dict"
        _test.update(NAME=":memory:", MIGRATE=False)

# The live poll reads the database (campaign/live.py): a test case's writes never commit, so their
# on_commit callbacks, which put the counters in the cache, never run. tests/test_live_cache.py
# turns the cache on (and commits) to test it.
REGNAL_LIVE_CACHE = ""

# The suite's clients go as fast as the machine, many requests in one test as one user (the API's
# fuzz tests, the secrecy matrix, the load test's in-process check): the rate limits are far above
# them, per second so that the counts stay short. The throttles still count every request;
# tests/api/test_throttles.py sets the rates it tests.
REGNAL_API_RATES = {scope: "100000/s" for scope in REGNAL_API_RATES}  # noqa: F405
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": REGNAL_API_RATES}  # noqa: F405
