"""Issue 9: the load test (bench/load.py) keeps working.

The figures are the benchmark's (bench/README.md), never a test's; here a short run on the suite's
PostgreSQL server checks that the script builds its campaign, serves it with gunicorn over HTTPS,
that the players read and the GM plays at least one whole turn without a single failure, and that
the script's own arithmetic and log reading are right."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.load import GONE, figures, gone, percentile, server_errors
from campaign.undo import new_action_key, step_action, undo_step
from dynasties.models import Character
from operations.simulation import play_births
from rules.dice import RandomSource

ROOT = Path(__file__).resolve().parent.parent


def test_percentiles_are_nearest_rank():
    times = [float(t) for t in range(1, 101)]  # 1..100 ms
    assert percentile(times, 50) == 50
    assert percentile(times, 99) == 99
    assert percentile(times, 100) == 100
    assert percentile([7.0], 99) == 7
    assert percentile([30.0, 10.0, 20.0], 50) == 20  # unsorted input


def test_figures_count_failures_and_rate():
    samples = [["GET", "page", 100.0, False], ["GET", "page", 300.0, True], ["POST", "step", 200.0, False]]
    assert figures(samples, 2.0) == (3, 1, 1.5, 200.0, 300.0)
    assert figures([], 2.0) == (0, 0, 0.0, 0.0, 0.0)


def test_server_errors_reads_5xx_and_tracebacks(tmp_path):
    access = tmp_path / "access.log"
    access.write_text(
        '127.0.0.1 - - [22/Nov/2026:10:00:00 +0000] "GET /c/x/ HTTP/1.1" 200 512 "-" "python-requests"\n'
        '127.0.0.1 - - [22/Nov/2026:10:00:01 +0000] "POST /api/v1/x/ HTTP/1.1" 500 145 "-" "python-requests"\n'
        '127.0.0.1 - - [22/Nov/2026:10:00:02 +0000] "GET /c/x/500/ HTTP/1.1" 404 88 "-" "python-requests"\n'
    )
    errors = tmp_path / "error.log"
    errors.write_text("[2026-11-22 10:00:00 +0000] [1] [INFO] Booting worker\nTraceback (most recent call last):\n")
    total, five_xx, bad = server_errors(access, errors)
    assert (total, five_xx) == (3, 1)
    assert bad == ["Traceback (most recent call last):"]


def test_a_character_an_undo_removed_answers_404_saying_so(client, campaign, gm, alice):
    """The race the load test met: a player opens a character born in a step the GM then undid."""
    before = set(Character.objects.filter(campaign=campaign).values_list("pk", flat=True))
    step_action(
        campaign=campaign, key=new_action_key(), label="Roll all births", action=lambda c: play_births(c, RandomSource(1)), by=gm
    )
    born = set(Character.objects.filter(campaign=campaign).values_list("pk", flat=True)) - before
    assert born
    client.force_login(alice)
    pk = min(born)
    assert client.get(f"/c/{campaign.slug}/character/{pk}/").status_code == 200
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    response = client.get(f"/c/{campaign.slug}/character/{pk}/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "no longer exists" in html and "undid the step" in html  # what bench/locustfile.py looks for
    assert f'href="/c/{campaign.slug}/"' in html  # a way back
    assert client.get(f"/c/{campaign.slug}/character/999999/").status_code == 404  # never was: the same page


def test_gone_counts_the_expected_404s_apart():
    samples = [["GET", GONE, 20.0, False], ["GET", GONE, 25.0, False], ["GET", "page: character", 30.0, True]]
    assert gone(samples) == 2
    assert f'GONE = "{GONE}"' in (ROOT / "bench" / "locustfile.py").read_text()  # both name it alike


@pytest.mark.postgres
def test_a_short_run_against_gunicorn_has_no_failure():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    assert env.get("DATABASE_URL", "").startswith("postgres")
    run = subprocess.run(
        [
            sys.executable,
            "bench/load.py",
            "--players",
            "3",
            "--duration",
            "20",
            "--think",
            "0",
            "0.2",
            "--prehistory",
            "3",
            "--workers",
            "2",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # 20 s of load; on a busy 2-core machine building, collectstatic and start-up take minutes
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    result = re.search(r"^RESULT: ([\d.]+) requests/s, p50 (\d+) ms, p99 (\d+) ms .* (\d+) failures", run.stdout, re.M)
    assert result, run.stdout
    assert float(result.group(1)) > 0 and int(result.group(4)) == 0  # a 404 after an undo is expected, not a failure
    assert int(result.group(2)) <= int(result.group(3))
    turns = re.search(r"^Played by the GM: (\d+) whole turns? ", run.stdout, re.M)
    assert turns and int(turns.group(1)) >= 1, run.stdout
    assert re.search(r"gunicorn: \d+ requests logged, 0 answered 5xx", run.stdout)
    for kind in ("page: dashboard", "page: character", "tree: own dynasty (SVG)", "GM API: births/roll-all"):
        assert kind in run.stdout
