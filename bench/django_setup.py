"""What the request benchmarks share: Django set up as in production (no query log, DEBUG off),
answering the test client, on the database named by ``DATABASE_URL`` (or SQLite in ``tmp``)."""

from __future__ import annotations

import os
import warnings


def setup_for_requests(tmp: str, *, keep_database: bool) -> None:
    """``keep_database``: a ``DATABASE_URL`` already set (PostgreSQL through scripts/pg-test.sh)
    is used; otherwise SQLite in ``tmp``."""
    sqlite = f"sqlite:///{tmp}/bench.sqlite3"
    if keep_database:
        os.environ.setdefault("DATABASE_URL", sqlite)
    else:
        os.environ["DATABASE_URL"] = sqlite
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ["DEBUG"] = "0"  # no query log: as in production
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # one user asking as fast as the machine answers: the API's rate limit (api/throttles.py) would
    # refuse a long run; it still counts every request, far above it
    os.environ.setdefault("REGNAL_RATE_API", "1000000/min")
    import django

    warnings.filterwarnings("ignore", message="No directory at")  # WhiteNoise: no collectstatic for a bench
    django.setup()
