"""Settings for the test suite: the development defaults plus fast password hashing."""

import os

os.environ.setdefault("REGNAL_DEV", "1")

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Static files come from the apps (no collectstatic before the tests), as in development.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True
