"""Issue 30, item 5: a portrait's decoding is bounded and its stored file carries no metadata.

An image over the pixel cap, or whose decoding would hold more than the budget (reckoned from its
header), is refused before a pixel is decoded, saying what to make it; a JPEG is decoded at a
fraction of its size (``draft``), upright still; palette, 16-bit and animated images are read (the
first frame); and nothing of the upload's metadata (EXIF, ICC, XMP, comments, PNG text) survives in
the stored file. Memory itself is measured by bench/portrait.py, not here."""

from __future__ import annotations

import base64
import struct
import zlib
from io import BytesIO

import pytest
from django.core.files.storage import default_storage
from PIL import Image, ImageCms, ImageFile, JpegImagePlugin, PngImagePlugin

from dynasties.models import Character, Dynasty, Portrait, Status
from dynasties.services.portraits import (
    DECODE_BUDGET,
    MAX_PIXELS,
    decoding_cost,
    portrait_set,
    read_image,
    resized,
)
from rules.errors import RuleError

NAVY, GOLD = (0, 0, 128), (230, 180, 20)


def someone_of(campaign) -> Character:
    house = Dynasty.objects.get(campaign=campaign, crown="England")
    return Character.objects.filter(campaign=campaign, controlled_by=house, status=Status.ALIVE).first()


def flat_png(width: int, height: int) -> bytes:
    """A flat RGB PNG written row by row (issue 30's 39.9-megapixel file weighs 170 KB): the
    picture is never held whole, here or in Pillow."""
    squeeze = zlib.compressobj(6)
    row = b"\x00" + bytes(NAVY) * width
    body = b"".join(squeeze.compress(row) for _ in range(height)) + squeeze.flush()

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def encoded(image: Image.Image, fmt: str, **options) -> bytes:
    out = BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


@pytest.fixture
def no_decoding(monkeypatch):
    """Decoding any pixel fails the test: what is refused is refused from the header."""

    def decoded(self, *args, **kwargs):
        raise AssertionError(f"{self.format} {self.size} was decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", decoded)


# --- refused from the header ---------------------------------------------------------------------


@pytest.mark.django_db
def test_issue_30s_png_is_refused_before_a_pixel_is_decoded(campaign, gm, no_decoding):
    edward = someone_of(campaign)
    issue_30 = flat_png(7300, 5465)  # 39.9 megapixels, under the former 40-megapixel cap
    assert len(issue_30) < 300_000
    with pytest.raises(RuleError) as refused:
        portrait_set(campaign, BytesIO(issue_30), character=edward, by=gm)
    assert refused.value.message == (
        "The image is larger than 32 megapixels: keep it at most 16 megapixels (a phone's photo is 12); "
        "it is shown at most 400 pixels a side."
    )
    assert refused.value.fields == {"image": "too many pixels"}
    with pytest.raises(RuleError) as refused:  # over the cap, under Pillow's own refusal: the size is named
        portrait_set(campaign, BytesIO(flat_png(5200, 3900)), character=edward, by=gm)
    assert refused.value.message.startswith("The image is 5200x3900 pixels (20.3 megapixels): keep it at most 16")
    assert not Portrait.objects.exists() and not default_storage.exists("portraits")


def _webp_of(size):
    return encoded(Image.new("RGB", size, NAVY), "WEBP", quality=80)


def _png_with_alpha(size):
    return encoded(Image.new("RGBA", size, (*NAVY, 128)), "PNG")


def _progressive_444(size):
    return encoded(Image.new("RGB", size, NAVY), "JPEG", progressive=True, subsampling=0)


@pytest.mark.parametrize(
    ("make", "size", "kind"),
    [
        (_webp_of, (2000, 1500), "a WebP image"),  # 3 MP: a WebP is decoded as four RGBA copies
        (_png_with_alpha, (3000, 2250), "a PNG with transparency"),  # 6.75 MP, resampled premultiplied
        (_progressive_444, (3600, 2700), "a progressive JPEG"),  # 9.7 MP: every DCT coefficient kept
    ],
    ids=["webp", "png-rgba", "jpeg-progressive-444"],
)
def test_an_image_too_costly_to_decode_is_refused_from_its_header(make, size, kind, no_decoding):
    data = make(size)
    assert size[0] * size[1] <= MAX_PIXELS  # under the cap: its kind is what costs
    with pytest.raises(RuleError) as refused:
        read_image(BytesIO(data))
    message = refused.value.message
    assert message.startswith(f"The image is {size[0]}x{size[1]} pixels: {kind}") and refused.value.fields == {
        "image": "too many pixels"
    }
    most = message.split("Make it at most ")[1].split(" pixels")[0]
    width, height = (int(n) for n in most.split("x"))
    assert width / height == pytest.approx(size[0] / size[1], rel=0.01)
    smaller = make((width, height))  # what the message asks for is accepted (its header says so)
    assert decoding_cost(Image.open(BytesIO(smaller)), smaller) <= DECODE_BUDGET


# A 64x48 baseline JPEG (4:4:4) whose three components are in three scans (jpegtran -scans): libjpeg
# keeps its whole coefficients as for a progressive one, though nothing in Pillow's info says so.
SEVERAL_SCANS = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAUDBAQEAwUEBAQFBQUGBwwIBwcHBw8LCwkMEQ8SEhEPERETFhwXExQaFRERGCEYGh0d"
    "Hx8fExciJCIeJBweHx7/2wBDAQUFBQcGBw4ICA4eFBEUHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4e"
    "Hh4eHh4eHh7/wAARCAAwAEADAREAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAj/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/9oA"
    "CAEBAAA/AJKAAAAAAAAAAAAAAAB//8QAFQEBAQAAAAAAAAAAAAAAAAAAAAf/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oACAECEQA/"
    "ALMAAAAAAAAAAAAAAAD/xAAVAQEBAAAAAAAAAAAAAAAAAAAABf/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQMRAD8AngAAAAAA"
    "AAAAAAAAA//Z"
)


def test_a_jpeg_in_several_scans_costs_its_coefficients():
    def cost(data: bytes) -> int:
        return decoding_cost(Image.open(BytesIO(data)), data)

    pixels = 4 * 64 * 48  # decoded whole (smaller than 400 pixels), 4 bytes a pixel
    coefficients = 3 * (8 * 6) * 64 * 2  # 3 components of 8x6 blocks of 64 coefficients of 2 bytes
    one_scan = encoded(Image.new("RGB", (64, 48), NAVY), "JPEG", subsampling=0)
    progressive = encoded(Image.new("RGB", (64, 48), NAVY), "JPEG", subsampling=0, progressive=True)
    assert "progressive" not in Image.open(BytesIO(SEVERAL_SCANS)).info
    assert (cost(one_scan), cost(progressive), cost(SEVERAL_SCANS)) == (pixels, pixels + coefficients, pixels + coefficients)
    assert read_image(BytesIO(SEVERAL_SCANS)).getpixel((5, 5)) == pytest.approx(NAVY, abs=2)


def test_a_png_heavy_with_text_is_refused():
    info = PngImagePlugin.PngInfo()
    for key in ("one", "two"):  # 2 MB of text in a file of a few KB (Pillow alone reads 64 MB of it)
        info.add_text(key, "a" * (1024 * 1024 - 8), zip=True)
    data = encoded(Image.new("RGB", (10, 10), NAVY), "PNG", pnginfo=info)
    assert len(data) < 10_000
    with pytest.raises(RuleError, match=r"more than 1 MB of text \(metadata\): save it again without it"):
        read_image(BytesIO(data))


# --- decoded small --------------------------------------------------------------------------------


def test_a_large_jpeg_is_decoded_at_a_fraction_of_its_size_and_upright(monkeypatch):
    asked = []
    draft = JpegImagePlugin.JpegImageFile.draft

    def observed(self, mode, size):
        asked.append(size)
        return draft(self, mode, size)

    monkeypatch.setattr(JpegImagePlugin.JpegImageFile, "draft", observed)
    photo = encoded(Image.new("RGB", (4000, 3000), NAVY), "JPEG", quality=85)
    image = read_image(BytesIO(photo))
    assert asked == [(800, 600)] and image.size == (1000, 750)  # decoded at a quarter: 0.75 MP, not 12
    assert resized(image)[1:] == ("jpg", 400, 300)

    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: the camera was turned; the picture is to be rotated 90 degrees
    sideways = encoded(Image.new("RGB", (4000, 2000), NAVY), "JPEG", exif=exif)
    image = read_image(BytesIO(sideways))
    assert image.size == (1000, 500)
    assert resized(image)[1:] == ("jpg", 200, 400)  # turned upright after the draft


def test_a_phones_mpo_is_read_as_its_first_jpeg():
    """A JPEG carrying more pictures (MPO: a phone's depth map or preview) was refused as no image."""
    first, second = Image.new("RGB", (4000, 3000), NAVY), Image.new("RGB", (4000, 3000), GOLD)
    data = encoded(first, "MPO", save_all=True, append_images=[second])
    image = read_image(BytesIO(data))
    assert image.format == "MPO" and image.size == (1000, 750)  # drafted, as a JPEG
    stored, ext, width, height = resized(image)
    assert (ext, width, height) == ("jpg", 400, 300)
    assert Image.open(BytesIO(stored)).getpixel((200, 150)) == pytest.approx(NAVY, abs=3)
    assert [marker for marker, _ in _jpeg_markers(stored) if 0xE0 <= marker <= 0xEF] == [0xE0]  # no MPF (APP2)


def test_palette_16_bit_and_transparent_images_are_read():
    palette = Image.new("P", (1200, 600), 1)
    palette.putpalette([*GOLD, *NAVY] + [0] * 762)
    palette.paste(0, (0, 0, 600, 600))
    data, ext, width, height = resized(read_image(BytesIO(encoded(palette, "PNG", transparency=0))))
    stored = Image.open(BytesIO(data))
    assert (ext, width, height, stored.mode) == ("png", 400, 200, "RGBA")
    assert stored.getpixel((50, 100))[3] == 0 and stored.getpixel((350, 100)) == (*NAVY, 255)

    grey = Image.new("I;16", (2000, 1000), 30000)  # 16-bit grey: 30000 of 65535
    data, ext, width, height = resized(read_image(BytesIO(encoded(grey, "PNG"))))
    stored = Image.open(BytesIO(data))
    assert (ext, width, height) == ("jpg", 400, 200)
    assert all(abs(channel - 30000 // 256) <= 2 for channel in stored.getpixel((200, 100)))


# --- no metadata survives ------------------------------------------------------------------------------

SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description about="secret"/></rdf:RDF></x:xmpmeta>'


def _exif() -> Image.Exif:
    exif = Image.Exif()
    exif[0x010F] = "Secret camera"  # Make
    exif[0x9286] = "the secret user comment"
    return exif


def _jpeg() -> bytes:
    return encoded(Image.new("RGB", (900, 600), NAVY), "JPEG", comment=b"secret comment", exif=_exif(), icc_profile=SRGB, xmp=XMP)


def _png_texts(mode: str) -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("comment", "secret comment")
    info.add_text("Author", "secret author", zip=True)
    info.add_itxt("Description", "secret description", lang="en", tkey="Description", zip=True)
    info.add_itxt("XML:com.adobe.xmp", XMP.decode())
    colour = (*NAVY, 200) if mode == "RGBA" else NAVY
    return encoded(Image.new(mode, (900, 600), colour), "PNG", pnginfo=info, icc_profile=SRGB, exif=_exif())


def _palette_png() -> bytes:
    palette = Image.new("P", (900, 600), 1)
    palette.putpalette([*GOLD, *NAVY] + [0] * 762)
    info = PngImagePlugin.PngInfo()
    info.add_text("comment", "secret comment")
    return encoded(palette, "PNG", transparency=0, pnginfo=info, icc_profile=SRGB)


def _gif() -> bytes:
    first, second = Image.new("RGB", (900, 600), NAVY).convert("P"), Image.new("RGB", (900, 600), GOLD).convert("P")
    return encoded(first, "GIF", save_all=True, append_images=[second], comment=b"secret comment", duration=100)


def _animated_webp() -> bytes:
    first, second = Image.new("RGBA", (900, 600), (*NAVY, 200)), Image.new("RGBA", (900, 600), (*GOLD, 200))
    return encoded(first, "WEBP", save_all=True, append_images=[second], icc_profile=SRGB, exif=_exif(), xmp=XMP, lossless=True)


def _jpeg_markers(data: bytes) -> list[tuple[int, bytes]]:
    """The JPEG's markers up to its first scan, with their payloads."""
    assert data[:2] == b"\xff\xd8"
    found, pos = [], 2
    while True:
        assert data[pos] == 0xFF
        marker, length = data[pos + 1], int.from_bytes(data[pos + 2 : pos + 4], "big")
        found.append((marker, data[pos + 4 : pos + 2 + length]))
        if marker == 0xDA:
            return found
        pos += 2 + length


def _png_chunks(data: bytes) -> list[bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    found, pos = [], 8
    while pos < len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        found.append(data[pos + 4 : pos + 8])
        pos += 12 + length
    return found


@pytest.mark.parametrize(
    ("make", "ext", "colour"),
    [
        (_jpeg, "jpg", NAVY),
        (lambda: _png_texts("RGB"), "jpg", NAVY),
        (lambda: _png_texts("RGBA"), "png", (*NAVY, 200)),
        (_palette_png, "png", (*NAVY, 255)),
        (_gif, "jpg", NAVY),  # the first frame
        (_animated_webp, "png", (*NAVY, 200)),  # the first frame
    ],
    ids=["jpeg", "png", "png-rgba", "png-palette", "gif-animated", "webp-animated"],
)
@pytest.mark.django_db
def test_no_metadata_survives_in_the_stored_file(make, ext, colour, campaign, gm):
    upload = make()
    assert b"secret" in upload or b"sRGB" in upload  # the upload carries them
    found = portrait_set(campaign, BytesIO(upload), character=someone_of(campaign), by=gm)
    assert found.name.endswith(f".{ext}") and (found.width, found.height) == (400, 267)
    with default_storage.open(found.name, "rb") as file:
        data = file.read()
    assert b"secret" not in data and b"Secret" not in data and b"xmpmeta" not in data
    stored = Image.open(BytesIO(data))
    leaked = {"comment", "icc_profile", "exif", "xmp", "XML:com.adobe.xmp", "Author", "Description", "transparency"}
    assert not leaked & set(stored.info) and not getattr(stored, "text", {})
    assert stored.getpixel((200, 130)) == pytest.approx(colour, abs=3)
    if ext == "jpg":
        markers = _jpeg_markers(data)
        assert 0xFE not in [marker for marker, _ in markers]  # no comment (COM)
        applications = [(marker, payload) for marker, payload in markers if 0xE0 <= marker <= 0xEF]
        assert applications == [(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")]  # a bare JFIF APP0
    else:
        assert _png_chunks(data) == [b"IHDR", b"IDAT", b"IEND"]
