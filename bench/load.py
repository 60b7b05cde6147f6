"""Load test: players browsing and a GM running steps, over real HTTP, against gunicorn on PostgreSQL.

    make load        # = scripts/pg-test.sh .venv/bin/python bench/load.py
    scripts/pg-test.sh .venv/bin/python bench/load.py [--players 10] [--duration 60] [--workers 3]
                                                      [--think 0.5 2.0] [--prehistory 20]

Run it through ``scripts/pg-test.sh``: that starts a throwaway PostgreSQL server and gives this
script its ``DATABASE_URL``. The script then

1. migrates, and builds a Blood Royale campaign with five player logins and a GM (its API token),
   after a prehistory of ``--prehistory`` turns played by the automatic player (fixed dice seed);
2. collects the static files and starts gunicorn with the **production settings**
   (``config.settings_production``: DEBUG off, WhiteNoise, secure cookies) over HTTPS with a
   certificate made for the run (``openssl``), on a free port of 127.0.0.1, ``--no-control-socket``;
3. runs locust (``bench/locustfile.py``) headless: ``--players`` players browsing and one GM running
   the Dynastic Sequence, for ``--duration`` seconds, each person waiting ``--think`` seconds
   (a random time between the two numbers) between two clicks;
4. stops gunicorn, and prints requests per second, the median and 99th percentile response times,
   per kind of request and in all, the turns the GM played, the gunicorn workers' memory, and every
   failure: a request answered otherwise than expected, a 5xx in gunicorn's log, a traceback. A
   player opening a character the GM's undo has just removed gets a 404 saying so: expected,
   counted apart (``page: character (gone: undone)``), not a failure.

Bounded: loopback only, the run time given (at most 600 s), 50 users at most, a deadline on every
subprocess. Exits 1 if anything failed. The figures and how they were obtained: bench/README.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent
HOST = "127.0.0.1"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10, help="players browsing (default 10)")
    parser.add_argument("--duration", type=int, default=60, help="seconds of load (default 60)")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers (default 3)")
    parser.add_argument(
        "--threads", type=int, default=4, help="threads per worker (default 4, gthread: keeps connections alive; 1: sync workers)"
    )
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=[0.5, 2.0],
        metavar=("MIN", "MAX"),
        help="seconds between two clicks of one person (default 0.5 2.0; 0 0: as fast as answered)",
    )
    parser.add_argument("--prehistory", type=int, default=20, help="turns played before the run (default 20)")
    args = parser.parse_args()
    if not 1 <= args.players <= 49:
        parser.error("--players: 1 to 49 (with the GM, at most 50 users).")
    if not 5 <= args.duration <= 600:
        parser.error("--duration: 5 to 600 seconds.")
    if not 1 <= args.workers <= 16:
        parser.error("--workers: 1 to 16.")
    if not 1 <= args.threads <= 16:
        parser.error("--threads: 1 to 16.")
    if not 0 <= args.think[0] <= args.think[1] <= 60:
        parser.error("--think MIN MAX: 0 <= MIN <= MAX <= 60.")
    return args


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def build(prehistory: int) -> dict[str, Any]:
    """The campaign, its five players and the GM with an API token (the shared settings)."""
    import django

    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections

    from api.services import token_create
    from campaign.models import Role
    from campaign.services import membership_add
    from dynasties.models import Character, Dynasty, DynastyKind
    from operations.services import campaign_start

    call_command("migrate", verbosity=0, interactive=False)
    users = get_user_model().objects
    run = secrets.token_hex(3)  # the same database may serve several runs

    def login(name: str) -> tuple[Any, str]:
        password = secrets.token_urlsafe(12)
        return users.create_user(f"{name}-{run}", password=password), password

    gm, gm_password = login("load-gm")
    campaign = campaign_start(name=f"Load test {run}", gm=gm, players=5, prehistory_turns=prehistory, seed=1)
    seats = []
    for dynasty in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("pk"):
        user, password = login(f"load-{dynasty.crown.lower()}")
        membership_add(campaign=campaign, user=user, role=Role.PLAYER, dynasty=dynasty)
        seats.append([user.get_username(), password, dynasty.pk])
    _, key = token_create(user=gm, name="load test")
    people = Character.objects.filter(campaign=campaign).count()
    campaign.refresh_from_db()
    connections.close_all()
    return {
        "slug": campaign.slug,
        "seats": seats,
        "gm": [gm.get_username(), gm_password, key],
        "people": people,
        "year": campaign.current_year,
        "turn": campaign.turn_number,
    }


def certificate(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            f"/CN={HOST}",
            "-addext",
            f"subjectAltName=IP:{HOST}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


def wait_until_up(url: str, server: subprocess.Popen[bytes], deadline: float) -> None:
    context = ssl._create_unverified_context()  # the run's own certificate
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn stopped at start-up (exit {server.returncode}): its log is above.")
        try:
            with urllib.request.urlopen(url, context=context, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"gunicorn did not answer {url} in time.")


class MemoryWatch(threading.Thread):
    """The largest total resident memory of gunicorn's processes (master and workers), from /proc."""

    def __init__(self, master: int) -> None:
        super().__init__(daemon=True)
        self.master, self.peak_kb, self.stop = master, 0, threading.Event()

    def tree(self) -> list[int]:
        pids = [self.master]
        try:
            children = Path(f"/proc/{self.master}/task/{self.master}/children").read_text().split()
        except OSError:
            return pids
        return pids + [int(p) for p in children]

    def run(self) -> None:
        while not self.stop.wait(0.5):
            total = 0
            for pid in self.tree():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
                total += int(found.group(1)) if found else 0
            self.peak_kb = max(self.peak_kb, total)


def percentile(times: list[float], p: float) -> float:
    """The nearest-rank percentile of response times (milliseconds)."""
    ordered = sorted(times)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def figures(samples: list[list[Any]], seconds: float) -> tuple[int, int, float, float, float]:
    """Count, failures, requests per second, p50 and p99 (ms) of some requests."""
    times = [float(s[2]) for s in samples]
    if not times:
        return 0, 0, 0.0, 0.0, 0.0
    failed = sum(1 for s in samples if s[3])
    return len(times), failed, len(times) / seconds, percentile(times, 50), percentile(times, 99)


def read_failures(prefix: Path) -> list[dict[str, str]]:
    path = Path(f"{prefix}_failures.csv")
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def server_errors(access_log: Path, error_log: Path) -> tuple[int, int, list[str]]:
    """Requests gunicorn logged, those answered 5xx, and the error log's tracebacks and errors."""
    total = errors = 0
    for line in access_log.read_text(errors="replace").splitlines():
        found = re.search(r'" (\d{3}) ', line)
        if found:
            total += 1
            errors += found.group(1).startswith("5")
    bad = [
        line
        for line in error_log.read_text(errors="replace").splitlines()
        if "Traceback" in line or "[ERROR]" in line or "[CRITICAL]" in line
    ]
    return total, errors, bad


def final_state(slug: str) -> dict[str, Any]:
    from campaign.models import Campaign, Posting, Roll
    from dynasties.models import Character

    campaign = Campaign.objects.get(slug=slug)
    return {
        "year": campaign.current_year,
        "turn": campaign.turn_number,
        "step": campaign.step,
        "people": Character.objects.filter(campaign=campaign).count(),
        "rolls": Roll.objects.filter(campaign=campaign).count(),
        "postings": Posting.objects.filter(campaign=campaign).count(),
    }


def main() -> int:
    args = parse_args()
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        print("The load test runs on PostgreSQL: start it with scripts/pg-test.sh (make load).", file=sys.stderr)
        return 2
    for name in ("DEBUG", "REGNAL_DEV"):
        os.environ.pop(name, None)
    os.environ["SECRET_KEY"] = secrets.token_urlsafe(50)
    os.environ["ALLOWED_HOSTS"] = HOST
    work = Path(tempfile.mkdtemp(prefix="regnal-load-"))
    server: subprocess.Popen[bytes] | None = None
    try:
        started = time.monotonic()
        data = build(args.prehistory)
        print(
            f"Campaign built in {time.monotonic() - started:.1f} s: {data['people']} characters after "
            f"{args.prehistory} turns, now {data['year']} (turn {data['turn']})."
        )
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings_production",
            "STATIC_ROOT": str(work / "static"),
            "MEDIA_ROOT": str(work / "media"),  # rendered trees (default_storage), shared by the servers
        }
        subprocess.run(
            [str(BIN / "python"), "manage.py", "collectstatic", "--no-input", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=300,
        )
        cert, key = certificate(work)
        port = free_port()
        base = f"https://{HOST}:{port}"
        access_log, error_log = work / "access.log", work / "error.log"
        server = subprocess.Popen(
            [
                str(BIN / "gunicorn"),
                "config.wsgi:application",
                "--bind",
                f"{HOST}:{port}",
                "--workers",
                str(args.workers),
                "--threads",
                str(args.threads),
                "--no-control-socket",
                "--certfile",
                str(cert),
                "--keyfile",
                str(key),
                "--timeout",
                "60",
                "--access-logfile",
                str(access_log),
                "--error-logfile",
                str(error_log),
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        try:
            wait_until_up(f"{base}/login/", server, time.monotonic() + 60)
        except SystemExit:
            print(error_log.read_text(errors="replace")[-3000:] if error_log.exists() else "", file=sys.stderr)
            raise
        print(f"gunicorn: {args.workers} workers x {args.threads} threads at {base} (production settings, HTTPS).")
        watch = MemoryWatch(server.pid)
        watch.start()
        prefix = work / "load"
        users = args.players + 1
        locust_env = {
            **env,
            "LOAD_SLUG": data["slug"],
            "LOAD_SEATS": json.dumps(data["seats"]),
            "LOAD_GM": json.dumps(data["gm"]),
            "LOAD_PLAYERS": str(args.players),
            "LOAD_THINK": json.dumps(args.think),
            "LOAD_SAMPLES": str(work / "samples.json"),
        }
        print(
            f"locust: {args.players} players and 1 GM for {args.duration} s, "
            f"{args.think[0]:g}-{args.think[1]:g} s between clicks."
        )
        run = subprocess.run(
            [
                str(BIN / "locust"),
                "-f",
                str(ROOT / "bench" / "locustfile.py"),
                "--headless",
                "--host",
                base,
                "--users",
                str(users),
                "--spawn-rate",
                str(users),
                "--run-time",
                f"{args.duration}s",
                "--stop-timeout",
                "10",
                "--csv",
                str(prefix),
                "--only-summary",
                "--loglevel",
                "WARNING",
                "--exit-code-on-error",
                "0",
            ],
            cwd=ROOT,
            env=locust_env,
            timeout=args.duration + 120,
            capture_output=True,
            text=True,
        )
        if run.returncode != 0 or not (work / "samples.json").exists():
            print(run.stdout[-3000:], run.stderr[-3000:], sep="\n", file=sys.stderr)
            raise SystemExit(f"locust failed (exit {run.returncode}).")
        watch.stop.set()
        watch.join()
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        server = None
        return report(args, data, work, access_log, error_log, watch.peak_kb)
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


LOGIN = ("login form", "log in")
GONE = "page: character (gone: undone)"  # as bench/locustfile.py names a character an undo removed


def gone(samples: list[list[Any]]) -> int:
    """Character pages that answered the expected 404: born in a step the GM then undid."""
    return sum(1 for s in samples if s[1] == GONE and not s[3])


def report(args: argparse.Namespace, data: dict[str, Any], work: Path, access_log: Path, error_log: Path, peak_kb: int) -> int:
    samples: list[list[Any]] = json.loads((work / "samples.json").read_text())
    failures = read_failures(work / "load")
    logged, five_xx, bad_lines = server_errors(access_log, error_log)
    after = final_state(data["slug"])
    seconds = float(args.duration)
    kinds = sorted({(s[0], s[1]) for s in samples}, key=lambda k: (k[1].startswith("GM"), k[1], k[0]))
    width = max([len(f"{t} {n}") for t, n in kinds] + [32])
    line = f"{{:<{width}}}  {{:>6}}  {{:>4}}  {{:>6}}  {{:>7}}  {{:>7}}"
    print()
    print(line.format("request", "count", "fail", "req/s", "p50 ms", "p99 ms"))

    def show(label: str, chosen: list[list[Any]]) -> tuple[int, int, float, float, float]:
        count, failed, rate, p50, p99 = figures(chosen, seconds)
        print(line.format(label, count, failed, f"{rate:.1f}", f"{p50:.0f}", f"{p99:.0f}"))
        return count, failed, rate, p50, p99

    for kind, name in kinds:
        show(f"{kind} {name}", [s for s in samples if (s[0], s[1]) == (kind, name)])
    print("-" * (width + 40))
    show("the GM's steps (API writes)", [s for s in samples if s[0] == "POST" and s[1].startswith("GM")])
    show("the players' pages and reads", [s for s in samples if not s[1].startswith("GM") and s[1] not in LOGIN])
    steady = show("all but logging in", [s for s in samples if s[1] not in LOGIN])
    everything = show("all requests", samples)
    played = after["turn"] - data["turn"]
    print()
    print(
        f"Played by the GM: {played} whole turn{'' if played == 1 else 's'} "
        f"({data['year']} -> {after['year']}, now at {after['step']}); "
        f"{after['people'] - data['people']} characters more, {after['rolls']} rolls in the log, "
        f"{after['postings']} ledger postings."
    )
    undone = gone(samples)
    if undone:
        print(f"Expected: {undone} character page{'' if undone == 1 else 's'} answered 404 (the GM's undo had removed them).")
    print(f"gunicorn: {logged} requests logged, {five_xx} answered 5xx; peak memory {peak_kb / 1024:.0f} MB in all.")
    print(
        f"RESULT: {steady[2]:.1f} requests/s, p50 {steady[3]:.0f} ms, p99 {steady[4]:.0f} ms (all but the "
        f"{everything[0] - steady[0]} login requests), {everything[1]} failures; {args.players} players + 1 GM, "
        f"{args.duration} s, {args.think[0]:g}-{args.think[1]:g} s between clicks, "
        f"{args.workers} workers x {args.threads} threads"
    )
    problems = [f"{f['Method']} {f['Name']}: {f['Error']} (x{f['Occurrences']})" for f in failures]
    problems += [f"{everything[1]} requests failed"] if everything[1] and not failures else []
    problems += [f"gunicorn: {five_xx} responses were 5xx"] if five_xx else []
    problems += [f"gunicorn error log: {entry}" for entry in bad_lines[:20]]
    problems += ["the GM played no whole turn"] if played < 1 else []
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
