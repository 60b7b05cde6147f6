"""A character's portrait or a dynasty's coat of arms (issue 20): an uploaded image, checked (Pillow
must read it, within the size limits), made at most ``SIDE`` pixels on its longer side and kept
through Django's storage API (``default_storage``). The GM, or the player of the house, sets one
(``require(.., "portrait")``); docs/rulings.md, "Notes and portraits"."""

from __future__ import annotations

import threading
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from io import BytesIO
from typing import IO

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

from campaign import audit
from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import lock_campaign
from dynasties.models import Character, Dynasty, Portrait
from dynasties.notes import subject_house
from rules.errors import RuleError

MAX_BYTES = 5 * 1024 * 1024
"""The largest file accepted (5 MB)."""
MAX_PIXELS = 40_000_000
"""The largest image accepted, in pixels (a photograph of 40 megapixels)."""
SIDE = 400
"""The longer side of the stored image, in pixels."""
FORMATS = {"PNG", "JPEG", "GIF", "WEBP"}
FOLDER = "portraits"


_STRICT = threading.Lock()


@contextmanager
def _whole_images_only() -> Iterator[None]:
    """Pillow refuses a file cut short, unless told to load it anyway: WeasyPrint, imported for the
    prints, tells it so for the whole process. An upload must be whole, so its decoding turns that
    off for its own time (a print decoding meanwhile meets only stored portraits, which are whole)."""
    with _STRICT:
        before = ImageFile.LOAD_TRUNCATED_IMAGES
        ImageFile.LOAD_TRUNCATED_IMAGES = False
        try:
            yield
        finally:
            ImageFile.LOAD_TRUNCATED_IMAGES = before


def read_image(upload: IO[bytes]) -> Image.Image:
    """The uploaded image, opened and checked; a :class:`RuleError` saying what to do otherwise."""
    data = upload.read(MAX_BYTES + 1)
    if not data:
        raise RuleError("The file is empty: choose an image (PNG, JPEG, GIF or WebP).", fields={"image": "empty"})
    if len(data) > MAX_BYTES:
        raise RuleError("The image is larger than 5 MB: choose a smaller file.", fields={"image": "too large"})
    unreadable = RuleError(
        "This file is not an image Regnal can read: upload a PNG, JPEG, GIF or WebP.", fields={"image": "not an image"}
    )
    try:
        with warnings.catch_warnings(), _whole_images_only():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(BytesIO(data))
            if image.format not in FORMATS:
                raise unreadable
            if image.width * image.height > MAX_PIXELS:
                raise RuleError(
                    f"The image is {image.width}x{image.height} pixels: keep it under 40 megapixels.",
                    fields={"image": "too many pixels"},
                )
            image.load()
    except RuleError:
        raise
    except (
        UnidentifiedImageError,
        OSError,
        ValueError,
        SyntaxError,
        Image.DecompressionBombWarning,
        Image.DecompressionBombError,
    ):
        raise unreadable from None
    return image


def resized(image: Image.Image) -> tuple[bytes, str, int, int]:
    """The image turned upright, at most ``SIDE`` pixels a side: (bytes, extension, width, height);
    a PNG when it has transparency, else a JPEG."""
    image = ImageOps.exif_transpose(image) or image
    image.thumbnail((SIDE, SIDE))
    out = BytesIO()
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        image.convert("RGBA").save(out, "PNG", optimize=True)
        extension = "png"
    else:
        image.convert("RGB").save(out, "JPEG", quality=85)
        extension = "jpg"
    return out.getvalue(), extension, image.width, image.height


def portrait_set(
    campaign: Campaign,
    upload: IO[bytes],
    *,
    character: Character | None = None,
    dynasty: Dynasty | None = None,
    by: Actor,
) -> Portrait:
    """Stores the image as the character's portrait or the dynasty's arms (replacing any before)."""
    subject = _subject(campaign, character, dynasty)
    require(by, campaign, "portrait", house=subject_house(character, dynasty))
    data, extension, width, height = resized(read_image(upload))
    name = default_storage.save(f"{FOLDER}/{campaign.pk}/{subject}-{uuid.uuid4().hex}.{extension}", ContentFile(data))
    try:
        with transaction.atomic(), audit.acting(by, year=campaign.current_year, step=campaign.step, label="portrait"):
            lock_campaign(campaign)  # raises the live version: open pages show the portrait without a reload
            old = Portrait.objects.select_for_update().filter(campaign=campaign, character=character, dynasty=dynasty).first()
            if old is None:
                return Portrait.objects.create(
                    campaign=campaign, character=character, dynasty=dynasty, name=name, width=width, height=height
                )
            gone = old.name
            old.name, old.width, old.height = name, width, height
            old.save(update_fields=["name", "width", "height"])
            transaction.on_commit(lambda: default_storage.delete(gone))
            return old
    except BaseException:
        default_storage.delete(name)  # nothing written: the new file goes too
        raise


def portrait_remove(campaign: Campaign, *, character: Character | None = None, dynasty: Dynasty | None = None, by: Actor) -> bool:
    """Takes the portrait (or arms) away; False if there was none."""
    _subject(campaign, character, dynasty)
    require(by, campaign, "portrait", house=subject_house(character, dynasty))
    with transaction.atomic():
        lock_campaign(campaign)
        old = Portrait.objects.select_for_update().filter(campaign=campaign, character=character, dynasty=dynasty).first()
        if old is None:
            return False
        gone = old.name
        old.delete()
        transaction.on_commit(lambda: default_storage.delete(gone))
    return True


def _subject(campaign: Campaign, character: Character | None, dynasty: Dynasty | None) -> str:
    if (character is None) == (dynasty is None):
        raise RuleError("A portrait is of one character, or a coat of arms of one dynasty.")
    subject = character if character is not None else dynasty
    if subject is None or subject.campaign_id != campaign.pk:
        raise RuleError("That is not part of this campaign.", code="not_found")
    return f"character-{subject.pk}" if character is not None else f"dynasty-{subject.pk}"
