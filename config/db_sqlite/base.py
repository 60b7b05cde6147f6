"""SQLite backend that uses the real variable limit of the linked SQLite library.

Django assumes the historic compile-time default of 999 variables per statement, which
splits a bulk insert of a few hundred roll-log rows into many statements and makes the
query count of a Dynastic Sequence step grow with the size of the campaign. SQLite 3.32+
allows 32,766; we ask the library for its limit.
"""

from __future__ import annotations

import sqlite3
from functools import cached_property

from django.db.backends.sqlite3 import base, features


class DatabaseFeatures(features.DatabaseFeatures):
    @cached_property
    def max_query_params(self) -> int:  # type: ignore[override]
        self.connection.ensure_connection()
        limit: int = self.connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        return limit


class DatabaseWrapper(base.DatabaseWrapper):
    features_class = DatabaseFeatures
