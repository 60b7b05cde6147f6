"""Benchmark: a worker's peak memory reading the largest portrait accepted, of each format (issue 30).

Each image is made first (one flat colour, as a hostile file is: issue 30's 39.9-megapixel PNG
weighs 170 KB), at the largest size the upload accepts for its kind (``MAX_PIXELS``, or less where
``decoding_cost`` reaches ``DECODE_BUDGET``), then read in a fresh Python with Django set up as the
site is: ``read_image`` and ``resized``, as an upload is. The child reports the rise of its resident
memory (its peak, VmHWM, over what it held before: what a gunicorn worker grows by) and
tracemalloc's peak (Python's own allocations; Pillow's pixels are C memory, counted in the first
figure only). ``before`` is the same file read as before issue 30 (whole, turned upright, then
resized, up to 40 megapixels). Target: every accepted portrait within a few tens of MB (the
budget, 48 MiB = 50.3 MB, plus a few MB); the 39.9-megapixel PNG refused before any pixel is
decoded.

    .venv/bin/python bench/portrait.py [--only png-rgb webp-rgba ...]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ASPECT = 4 / 3
# name: (format, Pillow mode, save options) -- each drawn at the largest size accepted
KINDS: dict[str, tuple[str, str, dict[str, object]]] = {
    "jpeg-baseline": ("JPEG", "RGB", {"quality": 85}),
    "jpeg-baseline-444": ("JPEG", "RGB", {"quality": 85, "subsampling": 0}),
    "jpeg-progressive": ("JPEG", "RGB", {"quality": 85, "progressive": True}),
    "jpeg-progressive-444": ("JPEG", "RGB", {"quality": 85, "progressive": True, "subsampling": 0}),
    "png-rgb": ("PNG", "RGB", {}),
    "png-rgba": ("PNG", "RGBA", {}),
    "png-palette": ("PNG", "P", {}),
    "png-grey-16bit": ("PNG", "I;16", {}),
    "gif": ("GIF", "P", {}),
    "webp-rgb": ("WEBP", "RGB", {"quality": 80}),
    "webp-rgba": ("WEBP", "RGBA", {"lossless": True}),
}
ISSUE_30 = (7300, 5465)  # issue 30's PNG: 39.9 megapixels, under the former 40-megapixel cap


def setup_django() -> None:
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _status(field: str) -> float | None:
    """A figure of /proc/self/status in MB (Linux), None elsewhere."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024 / 1e6
    except (OSError, ValueError):
        pass
    return None


def reset_peak() -> float:
    """The resident memory now, the peak (VmHWM) reset to it where Linux allows (clear_refs 5).
    ``ru_maxrss`` will not do: after an exec it still holds the peak of the parent it forked from."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")
    return _status("VmRSS") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def peak_mb() -> float:
    return _status("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6  # kB on Linux


def read_as_before(data: bytes) -> tuple[int, int]:
    """The upload's reading before issue 30: whole, turned upright at full size, then resized."""
    from PIL import Image, ImageOps

    image = Image.open(BytesIO(data))
    if image.width * image.height > 40_000_000:
        raise ValueError("over 40 megapixels")
    image.load()
    image = ImageOps.exif_transpose(image) or image
    image.thumbnail((400, 400))
    out = BytesIO()
    image.convert("RGBA" if "A" in image.mode else "RGB").save(out, "PNG" if "A" in image.mode else "JPEG")
    return image.size


def child(path: str, before: bool) -> None:
    """Read one file as an upload is (or as before), and print what it cost as JSON."""
    setup_django()
    from dynasties.services.portraits import read_image, resized
    from rules.errors import RuleError

    data = Path(path).read_bytes()
    tracemalloc.start()
    held = reset_peak()
    start = time.perf_counter()
    try:
        if before:
            size = read_as_before(data)
        else:
            _, _, width, height = resized(read_image(BytesIO(data)))
            size = (width, height)
        outcome = f"stored {size[0]}x{size[1]}"
    except (RuleError, ValueError) as exc:
        outcome = f"refused: {exc}"
    seconds = time.perf_counter() - start
    traced = tracemalloc.get_traced_memory()[1] / 1e6
    print(json.dumps({"rise": peak_mb() - held, "traced": traced, "seconds": seconds, "outcome": outcome}))


def largest(kind: str, folder: Path) -> tuple[Path, tuple[int, int]]:
    """The kind's largest accepted image (4:3), written to ``folder``: shrunk from ``MAX_PIXELS``
    until its decoding cost is within the budget."""
    from PIL import Image

    from dynasties.services.portraits import DECODE_BUDGET, MAX_PIXELS, decoding_cost

    fmt, mode, options = KINDS[kind]
    width = int(math.sqrt(MAX_PIXELS * ASPECT))
    while True:
        size = (width, int(width / ASPECT))
        path = folder / f"{kind}.{fmt.lower()}"
        colour = {"RGBA": (40, 60, 120, 160), "I;16": 30000}.get(mode, (40, 60, 120))
        image = Image.new("RGB" if mode == "P" else mode, size, colour)
        if mode == "P":
            image = image.convert("P")
        image.save(path, fmt, **options)
        data = path.read_bytes()
        cost = decoding_cost(Image.open(BytesIO(data)), data)
        if cost <= DECODE_BUDGET:
            return path, size
        width = int(width * math.sqrt(DECODE_BUDGET / cost) * 0.999)


def issue_30_png(folder: Path) -> Path:
    """Issue 30's PNG, written row by row (the flat picture is never held whole)."""
    import struct
    import zlib

    width, height = ISSUE_30
    path = folder / "issue-30.png"
    squeeze = zlib.compressobj(9)
    row = b"\x00" + bytes((40, 60, 120)) * width
    body = b"".join(squeeze.compress(row) for _ in range(height)) + squeeze.flush()

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b""))
    return path


def measure(path: Path, *, before: bool) -> dict[str, object]:
    answer = subprocess.run(  # noqa: S603 (this script, with a file it made)
        [sys.executable, __file__, "--child", str(path)] + (["--before"] if before else []),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    result: dict[str, object] = json.loads(answer.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", choices=[*KINDS, "issue-30"], help="These kinds only.")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--before", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.before)
        return
    setup_django()
    from dynasties.services.portraits import DECODE_BUDGET, MAX_PIXELS

    print(f"MAX_PIXELS {MAX_PIXELS:,}, DECODE_BUDGET {DECODE_BUDGET / 1e6:.1f} MB; rise of a fresh worker's peak memory")
    print("| kind | size | file | now: rise | traced | time | before issue 30: rise | outcome now |")
    print("|---|---|---|---|---|---|---|---|")
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="regnal-portrait-bench-") as tmp:
        folder = Path(tmp)
        for kind in args.only or [*KINDS, "issue-30"]:
            if kind == "issue-30":
                path, size = issue_30_png(folder), ISSUE_30
            else:
                path, size = largest(kind, folder)
            now, then = measure(path, before=False), measure(path, before=True)
            rise = float(now["rise"])  # type: ignore[arg-type]
            if str(now["outcome"]).startswith("stored"):
                worst = max(worst, rise)
            print(
                f"| {kind} | {size[0]}x{size[1]} ({size[0] * size[1] / 1e6:.1f} MP) | {path.stat().st_size // 1024:,} KB "
                f"| {rise:.0f} MB | {now['traced']:.1f} MB | {now['seconds']:.2f} s | {then['rise']:.0f} MB | {now['outcome']} |"
            )
    print(f"Worst accepted portrait: +{worst:.0f} MB (target: a few tens of MB).")


if __name__ == "__main__":
    main()
