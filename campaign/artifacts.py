"""Where the site keeps the files it makes (rendered trees): Django's storage API, never a path.

``STORAGES["artifacts"]`` when the deployment names one (``ARTIFACTS_STORAGE``: an S3-compatible
store through django-storages, say), else ``default_storage`` (local files under ``MEDIA_ROOT``
in development). A file written by one server is read by the others through the same storage."""

from __future__ import annotations

from django.conf import settings
from django.core.files.storage import Storage, default_storage, storages

ARTIFACTS = "artifacts"


def artifact_storage() -> Storage:
    """The storage of rendered artifacts."""
    if ARTIFACTS in settings.STORAGES:
        return storages[ARTIFACTS]
    return default_storage
