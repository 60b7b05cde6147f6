"""Settings for the test suite: the development defaults plus fast password hashing."""

import os

os.environ.setdefault("REGNAL_DEV", "1")

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Static files come from the apps (no collectstatic before the tests), as in development.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True

# SQLite's test database in memory, one per pytest-xdist worker (pytest-django names a file
# database after the worker; the custom engine below hides that it is SQLite).
for _db in DATABASES.values():  # noqa: F405
    if _db["ENGINE"] == "config.db_sqlite":
        _db.setdefault("TEST", {})["NAME"] = ":memory:"
