"""Settings for the test suite: the development defaults plus fast password hashing."""

import os

os.environ.setdefault("REGNAL_DEV", "1")

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
