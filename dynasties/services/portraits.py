"""A character's portrait or a dynasty's coat of arms (issue 20): an uploaded image, checked (Pillow
must read it, within the size limits), made at most ``SIDE`` pixels on its longer side and kept
through Django's storage API (``default_storage``). The GM, or the player of the house, sets one
(``require(.., "portrait")``); docs/rulings.md, "Notes and portraits".

Decoding an upload costs a bounded amount of memory (issue 30): the header is read first and an
image is refused before any pixel is decoded when it has more than ``MAX_PIXELS`` pixels or when
what its decoding would hold (:func:`decoding_cost`, from the header) is over ``DECODE_BUDGET``. A
JPEG is decoded straight at a half, a quarter or an eighth of its size (Pillow's ``draft``), the
others whole and then reduced; only the first frame of an animation is read. The stored file is
made anew from the pixels: no metadata block of the upload (EXIF, ICC profile, XMP, comments, PNG
text) survives; the colours are turned into sRGB first when the upload carries a profile. The
figures: bench/portrait.py."""

from __future__ import annotations

import functools
import math
import struct
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
from PIL import Image, ImageCms, ImageFile, ImageOps, PngImagePlugin

from campaign import audit
from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Seen, lock_campaign
from dynasties.models import Character, Dynasty, Portrait
from dynasties.notes import subject_house
from rules.errors import RuleError

MAX_BYTES = 5 * 1024 * 1024
"""The largest file accepted (5 MB)."""
MAX_PIXELS = 16_000_000
"""The largest image accepted, in pixels: a 16-megapixel photograph (a phone's is 12, 4032x3024).
It is drawn at most 400 pixels a side (0.16 megapixels): a hundred times more is plenty."""
DECODE_BUDGET = 48 * 1024 * 1024
"""The most memory decoding one upload may hold, in bytes, as :func:`decoding_cost` reckons it
from the header (bench/portrait.py measures a worker's peak against it)."""
MAX_TEXT_BYTES = 1024 * 1024
"""The most text (metadata chunks, dropped anyway) read from a PNG; Pillow's own bound is 64 MB."""
SIDE = 400
"""The longer side of the stored image, in pixels."""
REDUCING_GAP = 2.0
"""A JPEG is decoded at the smallest fraction (1/2, 1/4, 1/8) still at least this many times the
stored size, and every image reduced to that before its last resampling (Pillow's ``reducing_gap``:
"very close to fair resampling")."""
FORMATS = ("JPEG", "PNG", "GIF", "WEBP")
FOLDER = "portraits"
_JPEG = {"JPEG", "MPO"}
"""Pillow opens a JPEG carrying more pictures (a phone's MPO: a depth map, a preview) as "MPO": its
first picture is a JPEG like any other."""

_WEBP_BYTES_PER_PIXEL = 19
"""libwebp's canvas and previous frame, Pillow's copy of the frame and the image (four RGBA copies)
and the lossless decoder's own rows: 17 to 19 bytes a pixel measured (bench/portrait.py)."""
_UNREADABLE = "This file is not an image Regnal can read: upload a PNG, JPEG, GIF or WebP."
_DECODING_ERRORS = (OSError, ValueError, SyntaxError, EOFError, struct.error, IndexError, KeyError)
"""What Pillow raises on a file it cannot read (UnidentifiedImageError is an OSError)."""

_DECODING = threading.Lock()


@contextmanager
def _guarded_decoding() -> Iterator[None]:
    """Pillow's process-wide settings, as an upload's decoding needs them, for its own time:
    - a file cut short is refused (WeasyPrint, imported for the prints, tells Pillow to load it
      anyway, for the whole process; an upload must be whole);
    - Pillow's decompression-bomb check at ``MAX_PIXELS``: it refuses by itself above twice that
      (before a WebP's decoder reserves its canvas); between the two its warning is silenced and the
      check below refuses, naming the size;
    - a PNG's text chunks held to ``MAX_TEXT_BYTES``.
    A print decoding meanwhile meets only stored portraits, which are whole and small."""
    with _DECODING, warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        before = ImageFile.LOAD_TRUNCATED_IMAGES, Image.MAX_IMAGE_PIXELS, PngImagePlugin.MAX_TEXT_MEMORY
        ImageFile.LOAD_TRUNCATED_IMAGES, Image.MAX_IMAGE_PIXELS = False, MAX_PIXELS
        PngImagePlugin.MAX_TEXT_MEMORY = MAX_TEXT_BYTES
        try:
            yield
        finally:
            ImageFile.LOAD_TRUNCATED_IMAGES, Image.MAX_IMAGE_PIXELS, PngImagePlugin.MAX_TEXT_MEMORY = before


def read_image(upload: IO[bytes]) -> Image.Image:
    """The uploaded image, checked and decoded (a JPEG at a fraction of its size: :func:`draft_size`;
    an animation's first frame); a :class:`RuleError` saying what to do otherwise."""
    data = upload.read(MAX_BYTES + 1)
    if not data:
        raise RuleError("The file is empty: choose an image (PNG, JPEG, GIF or WebP).", fields={"image": "empty"})
    if len(data) > MAX_BYTES:
        raise RuleError("The image is larger than 5 MB: choose a smaller file.", fields={"image": "too large"})
    try:
        with _guarded_decoding():
            image = Image.open(BytesIO(data), formats=FORMATS)  # the header only
            _check_size(image, data)
            if image.format in _JPEG:
                image.draft(image.mode, draft_size(image.size))
            image.load()
    except RuleError:
        raise
    except Image.DecompressionBombError:
        raise _too_many_pixels(f"The image is larger than {_megapixels(2 * MAX_PIXELS)} megapixels") from None
    except ValueError as exc:
        if "text chunks" in str(exc):  # PngImagePlugin.MAX_TEXT_MEMORY
            raise RuleError(
                f"The image carries more than {MAX_TEXT_BYTES // 1024 // 1024} MB of text (metadata): "
                "save it again without it, or as a JPEG.",
                fields={"image": "too much metadata"},
            ) from None
        raise RuleError(_UNREADABLE, fields={"image": "not an image"}) from None
    except _DECODING_ERRORS:
        raise RuleError(_UNREADABLE, fields={"image": "not an image"}) from None
    return image


def resized(image: Image.Image) -> tuple[bytes, str, int, int]:
    """The image turned upright, at most ``SIDE`` pixels a side, in sRGB and without any metadata:
    (bytes, extension, width, height); a PNG when it has transparency, else a JPEG."""
    try:
        small = _upright(_shrunk(image))
        alpha = small.mode in ("RGBA", "LA")
        clean = _in_srgb(small, "RGBA" if alpha else "RGB")
        clean.info.clear()  # Pillow writes the image's comment (JPEG) and ICC profile (PNG) back
        out = BytesIO()
        if alpha:
            clean.save(out, "PNG", optimize=True)
        else:
            clean.save(out, "JPEG", quality=85)
    except _DECODING_ERRORS:
        raise RuleError(_UNREADABLE, fields={"image": "not an image"}) from None
    return out.getvalue(), "png" if alpha else "jpg", clean.width, clean.height


def decoding_cost(image: Image.Image, data: bytes) -> int:
    """The bytes decoding ``image`` (opened, its header read) will hold at its peak, as measured by
    bench/portrait.py:
    - a JPEG: its pixels at the fraction it is decoded at (:func:`draft_size`), 4 bytes each, and,
      if progressive or in several scans, the whole image's DCT coefficients libjpeg must keep
      (2 bytes a sample: 3 bytes a pixel at 4:2:0, 6 at 4:4:4);
    - a WebP: 19 bytes a pixel (four RGBA copies of the canvas, and the decoder's own);
    - a PNG or GIF: a byte a pixel in grey, palette or black and white, 2 in 16-bit grey, 4 in
      colour, 8 with transparency (resampled premultiplied, a second copy)."""
    width, height = image.size
    if image.format in _JPEG:
        scale = _draft_scale(image.size)
        cost = 4 * -(-width // scale) * -(-height // scale)
        if _whole_image_buffered(image, data):
            cost += _coefficients(image)
        return cost
    if image.format == "WEBP":
        return _WEBP_BYTES_PER_PIXEL * width * height
    return _bytes_per_pixel(image.mode) * width * height


def draft_size(size: tuple[int, int]) -> tuple[int, int]:
    """The size a JPEG is asked to be decoded at (``REDUCING_GAP`` times the stored size): Pillow's
    ``draft`` decodes it at the smallest of 1/8, 1/4, 1/2 or 1 that is at least that large."""
    width, height = _fitted(size, SIDE)
    return max(1, int(width * REDUCING_GAP)), max(1, int(height * REDUCING_GAP))


# --- the checks ---------------------------------------------------------------------------------


def _check_size(image: Image.Image, data: bytes) -> None:
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise _too_many_pixels(f"The image is {width}x{height} pixels ({_megapixels(width * height)} megapixels)")
    cost = decoding_cost(image, data)
    if cost > DECODE_BUDGET:
        shrink = math.sqrt(DECODE_BUDGET / cost) * 0.99
        most = f"{int(width * shrink)}x{int(height * shrink)}"
        kind = _kind(image)
        instead = "" if _has_alpha(image) or image.format == "GIF" else ", or save it as a JPEG (not progressive)"
        raise RuleError(
            f"The image is {width}x{height} pixels: {kind} that large takes too much memory to read. "
            f"Make it at most {most} pixels{instead}.",
            fields={"image": "too many pixels"},
        )


def _too_many_pixels(what: str) -> RuleError:
    return RuleError(
        f"{what}: keep it at most {_megapixels(MAX_PIXELS)} megapixels (a phone's photo is 12); "
        f"it is shown at most {SIDE} pixels a side.",
        fields={"image": "too many pixels"},
    )


def _megapixels(pixels: int) -> str:
    return f"{pixels / 1_000_000:.1f}".removesuffix(".0")


def _kind(image: Image.Image) -> str:
    if image.format in _JPEG:
        return "a progressive JPEG (or one saved in several scans)"
    if image.format == "WEBP":
        return "a WebP image"
    if image.format == "PNG" and _has_alpha(image):
        return "a PNG with transparency"
    return f"a {image.format} image"


def _has_alpha(image: Image.Image) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info


def _bytes_per_pixel(mode: str) -> int:
    if mode in ("1", "L", "P"):
        return 1
    if mode.startswith("I;16"):
        return 2
    if mode in ("LA", "RGBA", "PA"):
        return 8
    return 4


def _draft_scale(size: tuple[int, int]) -> int:
    """The fraction ``draft`` decodes a JPEG of ``size`` at (Pillow's rule: JpegImageFile.draft)."""
    asked = draft_size(size)
    fits = min(size[0] // asked[0], size[1] // asked[1])
    return next(scale for scale in (8, 4, 2, 1) if fits >= scale or scale == 1)


def _whole_image_buffered(image: Image.Image, data: bytes) -> bool:
    """libjpeg keeps the whole image's coefficients for a progressive JPEG, and for a baseline one
    whose first scan holds fewer components than the frame (several scans: not in Pillow's info)."""
    if image.info.get("progressive") or image.info.get("progression"):
        return True
    first = _first_scan_components(data)
    return first is None or first < len(getattr(image, "layer", ()))


def _first_scan_components(data: bytes) -> int | None:
    """How many components the JPEG's first scan (SOS) holds; None if the markers cannot be walked."""
    pos = 2  # after SOI
    while pos + 4 < len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # markers without a length
            pos += 2
            continue
        if marker == 0xDA:
            return data[pos + 4]
        pos += 2 + int.from_bytes(data[pos + 2 : pos + 4], "big")
    return None


def _coefficients(image: Image.Image) -> int:
    """The bytes of a JPEG's DCT coefficients, whole: 64 of 2 bytes a block of 8x8 samples per
    component, the blocks padded to the component's sampling factors (libjpeg's jdcoefct.c)."""
    width, height = image.size
    layers = getattr(image, "layer", None) or [("", 1, 1, 0)] * len(image.getbands())
    h_max = max(int(layer[1]) for layer in layers)
    v_max = max(int(layer[2]) for layer in layers)
    total = 0
    for _id, h, v, _table in layers:
        columns = -(-width * int(h) // (h_max * 8))
        rows = -(-height * int(v) // (v_max * 8))
        columns, rows = -(-columns // int(h)) * int(h), -(-rows // int(v)) * int(v)
        total += columns * rows * 64 * 2
    return total


# --- the resizing -------------------------------------------------------------------------------


def _fitted(size: tuple[int, int], side: float) -> tuple[int, int]:
    """``size`` made at most ``side`` on its longer side, its proportions kept."""
    width, height = size
    if max(width, height) <= side:
        return width, height
    ratio = side / max(width, height)
    return max(1, round(width * ratio)), max(1, round(height * ratio))


def _shrunk(image: Image.Image) -> Image.Image:
    """The image at most ``SIDE`` a side. Palette, black-and-white and 16-bit images are first
    shrunk on their raw values (nearest neighbour, to ``REDUCING_GAP`` times the stored size: cheap)
    and turned into 8-bit grey or colour, then everything is resampled (Lanczos, after a
    ``reduce`` of whole pixels: the decoded image is never copied at full size, transparency apart)."""
    if image.mode in ("1", "P", "PA") or image.mode.startswith(("I", "F")):
        image = image.resize(_fitted(image.size, SIDE * REDUCING_GAP), Image.Resampling.NEAREST)
        if image.mode.startswith(("I", "F")):
            image = image.convert("I").point(lambda value: value * (1 / 256)).convert("L")
        else:
            image = image.convert("RGBA" if _has_alpha(image) else "RGB")
    image.thumbnail((SIDE, SIDE), Image.Resampling.LANCZOS, reducing_gap=REDUCING_GAP)
    return image


def _upright(image: Image.Image) -> Image.Image:
    """Turned as its EXIF orientation says; as it is if that block cannot be read."""
    try:
        return ImageOps.exif_transpose(image)
    except _DECODING_ERRORS:
        return image


@functools.cache
def _srgb() -> ImageCms.ImageCmsProfile:
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


def _in_srgb(image: Image.Image, mode: str) -> Image.Image:
    """The image in ``mode`` (RGB or RGBA), its colours turned from its ICC profile into sRGB (the
    profile is not kept, and a browser reads an image without one as sRGB); a profile that cannot
    be read or applied is ignored."""
    icc = image.info.get("icc_profile")
    if icc and image.mode in ("RGB", "RGBA", "CMYK", "L"):
        try:
            source = ImageCms.ImageCmsProfile(BytesIO(icc))
            out_mode = "RGBA" if image.mode == "RGBA" else "RGB"
            converted = ImageCms.profileToProfile(image, source, _srgb(), outputMode=out_mode)
            if converted is not None:
                image = converted
        except (ImageCms.PyCMSError, *_DECODING_ERRORS):
            pass
    return image.convert(mode)


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
            lock_campaign(campaign, seen=Seen.ALL)  # raises the live version: open pages show the portrait without a reload
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
        lock_campaign(campaign, seen=Seen.ALL)
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
