"""The shape of the code: the layers' picture and the import contract agree; the site's
dependencies hold no development tool."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV_ONLY = ("pytest", "playwright", "hypothesis", "schemathesis", "locust", "mypy", "ruff", "flask", "gevent", "import-linter")


def _layers() -> list[str]:
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    layers = config["importlinter:contract:layers"]["layers"]
    return [name.strip() for line in layers.split("\n") for name in line.split("|") if name.strip()]


def test_the_picture_shows_the_layers_the_import_contract_enforces():
    dot = (ROOT / "docs" / "layers.dot").read_text()
    nodes = set(re.findall(r"^\s*(\w+) \[label=", dot, re.M))
    assert nodes == set(_layers())
    assert set(_layers()) >= {"rules", "campaign", "dynasties", "contracts", "operations", "pages", "api"}
    assert "<svg" in (ROOT / "docs" / "layers.svg").read_text()


def test_the_pictures_of_the_plays_and_of_one_request_are_drawn_and_shown():
    doc = (ROOT / "docs" / "architecture.md").read_text()
    for name in ("plays", "request"):
        assert (ROOT / "docs" / f"{name}.dot").read_text().startswith("//")
        assert "<svg" in (ROOT / "docs" / f"{name}.svg").read_text()
        assert f"]({name}.svg)" in doc, f"docs/architecture.md shows docs/{name}.svg"


def _pins(name: str) -> set[str]:
    lines = (ROOT / name).read_text().splitlines()
    return {line.split("==")[0].strip().lower() for line in lines if "==" in line and not line.startswith("#")}


def test_the_site_installs_no_development_tool():
    site = _pins("requirements.txt")
    assert "django" in site and "weasyprint" in site
    assert [p for p in site if p.startswith(DEV_ONLY)] == []
    dev = _pins("requirements-dev.txt")
    assert site <= dev, "requirements-dev.txt pins everything the site needs too"
    assert {"pytest", "pytest-xdist", "playwright", "import-linter"} <= dev


def test_make_run_installs_only_the_site():
    makefile = (ROOT / "Makefile").read_text()
    run = re.search(r"^run: (.*)$", makefile, re.M)
    assert run is not None and run.group(1).split() == ["setup"]
    setup = makefile.split("\nsetup:\n", 1)[1].split("\n\n", 1)[0]
    assert "RUN_APT" in setup and "RUN_STAMP" in setup and "DEV" not in setup
    run_apt = re.search(r"^RUN_APT := (.*)$", makefile, re.M)
    assert run_apt is not None and not {"chromium", "postgresql"} & set(run_apt.group(1).split())
