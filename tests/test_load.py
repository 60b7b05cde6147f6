"""Issue 9: the load test (bench/load.py) keeps working; issue 18: its two servers behind nginx.

The figures are the benchmark's (bench/README.md), never a test's; here a short run on the suite's
PostgreSQL server checks that the script builds its campaign, serves it with gunicorn over HTTPS
and the task worker, that the players read and the GM plays at least one whole turn without a
single failure, that a print job goes through the worker and back and that a GM's note reaches a
player's poll and page. A two-server run takes minutes on this machine, not seconds, so its parts
are checked apart: nginx's configuration (by ``nginx -t``), the log reading, and the print and
live checks against a live server as nginx would reach it (plain HTTP, the proxy's headers, secure
cookies)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.load import (
    GONE,
    LiveCheck,
    PrintCheck,
    bad_lines,
    certificate,
    figures,
    gone,
    nginx_command,
    nginx_config,
    parse_args,
    percentile,
    server_errors,
    upstreams,
)
from campaign.undo import new_action_key, step_action, undo_step
from dynasties.models import Character, Note
from operations.simulation import play_births
from rules.dice import RandomSource
from tests.profiles import PROFILE

ROOT = Path(__file__).resolve().parent.parent
LOAD_SECONDS = 20 if PROFILE == "thorough" else 10  # the short run's load: CI's thorough profile keeps 20 s


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
        campaign=campaign,
        key=new_action_key(),
        label="Roll all births",
        action=lambda c: play_births(c, RandomSource(1), by=gm),
        by=gm,
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
@pytest.mark.long
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
            str(LOAD_SECONDS),
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
        timeout=600,  # 10-20 s of load; on a busy 2-core machine building, collectstatic and start-up take minutes
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    result = re.search(r"^RESULT: ([\d.]+) requests/s, p50 (\d+) ms, p99 (\d+) ms .* (\d+) failures", run.stdout, re.M)
    assert result, run.stdout
    assert float(result.group(1)) > 0 and int(result.group(4)) == 0  # a 404 after an undo is expected, not a failure
    assert int(result.group(2)) <= int(result.group(3))
    turns = re.search(r"^Played by the GM of \S+: (\d+) whole turns? ", run.stdout, re.M)
    assert turns and int(turns.group(1)) >= 1, run.stdout
    assert re.search(r"^gunicorn 1 \(https://127\.0\.0\.1:\d+\): \d+ requests logged, 0 answered 5xx", run.stdout, re.M)
    assert re.search(r"^task worker: peak memory [1-9]\d* MB", run.stdout, re.M)
    printed = re.search(r"^Print job across servers: (\d+) sheets .* rendered by the task worker", run.stdout, re.M)
    assert printed and int(printed.group(1)) > 20, run.stdout  # over INLINE_LIMIT: a job for the worker
    live = r"^Live table across servers: a public note written through https://\S+ API reached a player's poll"
    assert re.search(live, run.stdout, re.M), run.stdout
    for kind in ("page: dashboard", "page: character", "tree: own dynasty (SVG)", "GM API: births/roll-all"):
        assert kind in run.stdout


def test_two_servers_mean_nginx_and_five_campaigns_by_default():
    one = parse_args([])
    assert (one.servers, one.proxy, one.campaigns, one.players) == (1, False, 1, 10)
    two = parse_args(["--servers", "2"])
    assert (two.servers, two.proxy, two.campaigns, two.players) == (2, True, 5, 10)  # 55 users
    assert parse_args(["--proxy"]).proxy is True
    with pytest.raises(SystemExit):
        parse_args(["--servers", "2", "--campaigns", "5", "--players", "20"])  # 105 users: over 100


def test_nginx_config_is_valid_and_keeps_everything_in_the_run_directory(tmp_path):
    cert, key = certificate(tmp_path)
    folder = tmp_path / "nginx"
    folder.mkdir()
    config = nginx_config(folder, 8443, [8001, 8002], cert, key)
    (folder / "nginx.conf").write_text(config)
    assert "listen 127.0.0.1:8443 ssl;" in config  # loopback only, TLS with the run's certificate
    assert "server 127.0.0.1:8001;" in config and "server 127.0.0.1:8002;" in config
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in config  # SECURE_PROXY_SSL_HEADER
    assert "proxy_set_header Host $http_host;" in config  # the port too: the CSRF check compares it
    for path in re.findall(r"^\s*(?:pid|error_log|access_log|\w+_temp_path|ssl_certificate\w*) (/\S+?)[; ]", config, re.M):
        assert path.startswith(str(tmp_path)), path
    assert len(re.findall(r"_temp_path ", config)) == 5
    checked = subprocess.run([*nginx_command(folder), "-t"], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
    assert "test is successful" in checked.stderr


def test_upstreams_count_what_nginx_passed_to_each_server(tmp_path):
    log = tmp_path / "access.log"
    log.write_text(
        '127.0.0.1 [24/Nov/2026:16:11:01 +0000] "GET /login/ HTTP/1.1" 200 1153 127.0.0.1:8001 0.028\n'
        '127.0.0.1 [24/Nov/2026:16:11:03 +0000] "GET /c/x/ HTTP/1.1" 200 5120 127.0.0.1:8002 0.016\n'
        '127.0.0.1 [24/Nov/2026:16:11:03 +0000] "POST /api/v1/x/ HTTP/1.1" 502 150 127.0.0.1:8001 0.001\n'
        '127.0.0.1 [24/Nov/2026:16:11:04 +0000] "GET / HTTP/1.1" 400 150 - 0.000\n'
    )
    assert upstreams(log) == {"127.0.0.1:8001": 2, "127.0.0.1:8002": 1}
    assert server_errors(log, tmp_path / "no-error.log") == (4, 1, [])


def test_bad_lines_are_errors_of_gunicorn_django_and_nginx(tmp_path):
    log = tmp_path / "error.log"
    log.write_text(
        "2026-11-24 16:11:00,185 INFO django_tasks_db: Starting worker\n"
        "2026-11-24 16:11:01,000 WARNING django.request: Not Found: /c/x/character/9/\n"
        "2026-11-24 16:11:02,000 ERROR django.request: Internal Server Error: /c/x/\n"
        "2026/11/24 16:11:03 [warn] 12#12: *5 an upstream response is buffered\n"
        "2026/11/24 16:11:04 [error] 12#12: *6 upstream prematurely closed connection\n"
    )
    assert bad_lines(log) == [
        "2026-11-24 16:11:02,000 ERROR django.request: Internal Server Error: /c/x/",
        "2026/11/24 16:11:04 [error] 12#12: *6 upstream prematurely closed connection",
    ]
    assert bad_lines(tmp_path / "never-written.log") == []


@pytest.mark.django_db(transaction=True)
def test_the_print_check_reaches_a_server_as_nginx_does(live_server, campaign, gm, settings, monkeypatch):
    """Plain HTTP with the proxy's headers to a server with the production settings' secure cookies
    and proxy header: the check logs in (CSRF over "HTTPS"), starts the batch and fetches the PDF."""
    from dynasties import print_jobs

    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    monkeypatch.setattr(print_jobs, "INLINE_LIMIT", 5)  # the test campaign has 15 characters
    check = PrintCheck(live_server.url, live_server.url, campaign.slug, "gm", "gm-password-1", proxied=True, timeout=60)
    check.run()
    assert check.error == "" and check.result.startswith(f"15 sheets started at {live_server.url}"), check.error
    wrong = PrintCheck(live_server.url, live_server.url, campaign.slug, "gm", "not-the-password", proxied=True)
    wrong.run()
    assert wrong.result == "" and wrong.error.startswith("the GM could not log in")


@pytest.mark.django_db(transaction=True)
def test_the_live_check_sees_a_note_written_on_one_server_from_another(live_server, campaign, gm, alice, settings):
    """The same check as the two-server run's, against one live server as nginx reaches it: the GM's
    public note through the API, a player's poll telling the campaign moved on, his dashboard
    showing the note. A wrong token is a refused note, said so."""
    from api.services import token_create

    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    _, key = token_create(user=gm, name="live check")
    url = live_server.url
    check = LiveCheck(url, url, campaign.slug, "alice", "alice-password-1", proxied=True, timeout=30, api_key=key)
    check.run()
    assert check.error == "", check.error
    reached = f"a public note written through {url}'s API reached a player's poll and dashboard on {url}"
    assert check.result.startswith(reached), check.result
    note = Note.objects.get(campaign=campaign, character=None, dynasty=None, audience="public")
    assert note.text.startswith("Live check ")
    refused = LiveCheck(url, url, campaign.slug, "alice", "alice-password-1", proxied=True, timeout=30, api_key="not-a-token")
    refused.run()
    assert refused.result == "" and refused.error.startswith(f"the GM's note was refused by {url} (HTTP 401"), refused.error
