"""The production storage of static files: WhiteNoise's fingerprinted files, compressed with gzip and
brotli, brotli optional (``STATIC_BROTLI=0``: brotli at its best quality is about 90% of
``collectstatic``'s time, some 30 s on two cores, most of it on the API docs' bundled scripts)."""

from __future__ import annotations

from typing import Any

from whitenoise.compress import Compressor
from whitenoise.storage import CompressedManifestStaticFilesStorage

from config.env import env_bool


class StaticFilesStorage(CompressedManifestStaticFilesStorage):  # type: ignore[misc]  # whitenoise ships no types
    def create_compressor(self, **kwargs: Any) -> Compressor:
        return super().create_compressor(**{"use_brotli": env_bool("STATIC_BROTLI", True), **kwargs})
