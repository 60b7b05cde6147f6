"""The tree cache: renders kept in the artifact storage, indexed in the database.

    hit = fetch(key)                            # (bytes, name) or None; a hit marks it as used
    name = keep(campaign_id, version, key, content)   # stored and indexed, then the cache evicted

Every server sees the same renders (:func:`campaign.artifacts.artifact_storage`: local files in
development, an S3-compatible store in production) and the same order of last use
(:class:`~dynasties.models.TreeRender`, one row per render). The whole cache stays under
``settings.TREE_CACHE_MAX_BYTES``: after each write the least recently used renders go until it
fits; a render larger than the cap is not kept. Deleting a row deletes its file (a receiver of
``post_delete``, so a deleted campaign's renders go too); a row whose file is gone is a miss and
is dropped; a file no row names (its writer crashed) goes at the campaign's next render. Django's
cache framework does not fit: no backend culls the least recently used by size, and the
local-memory one is one process's.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import posixpath
import secrets
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone

from campaign.artifacts import artifact_storage
from dynasties.models import TreeRender

logger = logging.getLogger(__name__)

FOLDER = "trees"  # in the artifact storage: trees/<campaign id>/<version>-<request>-<nonce>.<format>
CACHE_MAX_BYTES = 200 * 1024 * 1024  # settings.TREE_CACHE_MAX_BYTES, when not set
STRAY_AFTER = datetime.timedelta(hours=1)  # a file without a row this old was left by a crashed writer


def cache_max_bytes() -> int:
    return int(getattr(settings, "TREE_CACHE_MAX_BYTES", CACHE_MAX_BYTES))


def fetch(key: str) -> tuple[bytes, str] | None:
    """The render kept under ``key`` and its storage name, marked as just used; None on a miss."""
    row = TreeRender.objects.filter(key=key).values_list("pk", "name").first()
    if row is None:
        return None
    pk, name = row
    try:
        with artifact_storage().open(name, "rb") as f:
            content: bytes = f.read()
    except OSError:  # evicted meanwhile by another server, or lost: a miss
        TreeRender.objects.filter(pk=pk).delete()
        return None
    TreeRender.objects.filter(pk=pk).update(used=timezone.now())
    return content, name


def keep(campaign_id: int, version: str, key: str, content: bytes) -> str | None:
    """Keep a render under ``key`` (``<campaign>/<version>-...``), drop the campaign's renders of
    other versions, then evict down to the cap. The storage name, or None if not kept (larger than
    the cap, kept meanwhile by another server, or the storage could not write it: a full disk)."""
    cap = cache_max_bytes()
    if len(content) > cap:
        return None
    TreeRender.objects.filter(campaign_id=campaign_id).exclude(version=version).delete()  # dead weight
    storage = artifact_storage()
    _sweep(storage, campaign_id)
    stem, ext = posixpath.splitext(key)
    # a name of its own (two servers may render the same tree at once; a store may overwrite)
    try:
        name = storage.save(f"{FOLDER}/{stem}-{secrets.token_hex(4)}{ext}", ContentFile(content))
    except OSError:  # a full disk, say: the render is served all the same, only not kept (nothing written)
        logger.warning("The tree render %s could not be kept in the cache", key, exc_info=True)
        return None
    try:
        with transaction.atomic():
            row = TreeRender.objects.create(
                campaign_id=campaign_id, key=key, version=version, name=name, size=len(content), used=timezone.now()
            )
    except IntegrityError:  # the same render, kept by another server meanwhile
        storage.delete(name)
        return None
    evict(cap, keep=row.pk)
    return name


def evict(cap: int, *, keep: int | None = None) -> None:
    """Delete the least recently used renders until the cache holds at most ``cap`` bytes
    (``keep``, the render just written, last of all)."""
    total = TreeRender.objects.aggregate(total=Sum("size"))["total"] or 0
    if total <= cap:
        return
    doomed: list[int] = []
    others = TreeRender.objects.all() if keep is None else TreeRender.objects.exclude(pk=keep)
    oldest_first = others.order_by("used", "pk").values_list("pk", "size")
    for pk, size in oldest_first.iterator():
        if total <= cap:
            break
        doomed.append(pk)
        total -= size
    if total > cap and keep is not None:
        doomed.append(keep)
    TreeRender.objects.filter(pk__in=doomed).delete()


def _sweep(storage: Storage, campaign_id: int) -> None:
    """Delete the campaign's files that no row names, once they are old enough not to be another
    server's render between its write and its row (a writer that crashed there left them)."""
    folder = f"{FOLDER}/{campaign_id}"
    try:
        names = storage.listdir(folder)[1]
    except OSError:  # no folder yet
        return
    indexed = set(TreeRender.objects.filter(campaign_id=campaign_id).values_list("name", flat=True))
    stray = timezone.now() - STRAY_AFTER
    for name in (f"{folder}/{n}" for n in names):
        with contextlib.suppress(OSError):  # deleted meanwhile
            if name not in indexed and storage.get_modified_time(name) < stray:
                storage.delete(name)


def cache_size() -> int:
    """The bytes the cache holds, by its index."""
    return int(TreeRender.objects.aggregate(total=Sum("size"))["total"] or 0)


@receiver(post_delete, sender=TreeRender)
def _delete_file(sender: type[TreeRender], instance: TreeRender, **kwargs: Any) -> None:
    """A render's file goes with its row (evicted, outdated, or its campaign deleted)."""
    with contextlib.suppress(OSError):  # already gone: nothing to delete
        artifact_storage().delete(instance.name)
