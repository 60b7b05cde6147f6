"""Load test: players browsing and GMs running steps, over real HTTP, against gunicorn on PostgreSQL.

    make load        # = scripts/pg-test.sh .venv/bin/python bench/load.py
    make load LOAD_ARGS="--servers 2"                 # two gunicorn servers behind nginx, 5 campaigns
    scripts/pg-test.sh .venv/bin/python bench/load.py [--servers 1] [--proxy] [--campaigns 1]
                      [--players 10] [--duration 60] [--workers 3] [--think 0.5 2.0] [--prehistory 20]

Run it through ``scripts/pg-test.sh``: that starts a throwaway PostgreSQL server and gives this
script its ``DATABASE_URL``. The script then

1. migrates, and builds ``--campaigns`` Blood Royale campaigns, each with five player logins and a
   GM (and his API token), after a prehistory of ``--prehistory`` turns played by the automatic
   player (fixed dice seed);
2. collects the static files and starts, with the **production settings**
   (``config.settings_production``: DEBUG off, WhiteNoise, secure cookies, tasks queued in the
   database), ``--servers`` gunicorn servers on free ports of 127.0.0.1 (``--no-control-socket``)
   and the task worker (``manage.py db_worker``). One server serves HTTPS itself, with a
   certificate made for the run (``openssl``); with two or more (or ``--proxy``) the servers speak
   plain HTTP and nginx, on a loopback port, terminates TLS with that certificate and shares the
   requests out between them (its configuration, pid, logs and temporary files in the run's
   directory);
3. runs locust (``bench/locustfile.py``) headless: in every campaign ``--players`` players (two
   devices a player with the default 10) browsing and one GM running the Dynastic Sequence, for
   ``--duration`` seconds (longer, by at most a minute, until every GM has played a whole turn;
   the rates are per second of the actual run), each person waiting ``--think`` seconds (a random time between the two
   numbers) between two clicks. Meanwhile the first campaign's GM prints all its sheets (a batch
   for the task queue) through the first server, straight to its port, and waits for the PDF and
   fetches it through the last one: a job started on one server must be seen and handed out by
   another. And the live table: one of its players polls the last server (as an open page does)
   while the GM writes a public note through the first one's API; the poll must tell the campaign
   moved on and his dashboard, asked again there, show the note;
4. stops everything, and prints requests per second, the median and 99th percentile response
   times, per kind of request and in all, the turns the GMs played, the peak memory of each server
   (master and workers), of the task worker and of nginx, and every failure: a request answered
   otherwise than expected, a 5xx in a server's or nginx's log, a traceback or error logged, a GM
   who played no whole turn, a print job not handed out, a note that did not reach the other
   server. A player opening a character the GM's undo has just removed gets a 404 saying so:
   expected, counted apart (``page: character (gone: undone)``), not a failure.

Bounded: loopback only, the run time given (at most 600 s, and a minute more for a GM to end his
turn), 100 users at most, a deadline on every subprocess. Exits 1 if anything failed. The figures
and how they were obtained: bench/README.md.
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
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent
HOST = "127.0.0.1"
MAX_USERS = 100
# The run goes on after --duration, for at most GRACE seconds, until every GM has played a whole
# turn (bench/locustfile.py): on a busy machine the suite's short run still plays one.
GRACE = 60
# What nginx adds to every request it passes on (and the print check sends when it goes straight
# to a server behind it): the production settings read the scheme from it (SECURE_PROXY_SSL_HEADER).
PROXIED = {"X-Forwarded-Proto": "https", "X-Forwarded-For": HOST}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=1, help="gunicorn servers (default 1; 2 or more: behind nginx)")
    parser.add_argument("--proxy", action="store_true", help="nginx in front of a single server too")
    parser.add_argument(
        "--campaigns", type=int, default=None, help="campaigns played at once (default 1; 5 with two servers or more)"
    )
    parser.add_argument("--players", type=int, default=10, help="players browsing, per campaign (default 10)")
    parser.add_argument("--duration", type=int, default=60, help="seconds of load (default 60)")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers per server (default 3)")
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
    parser.add_argument("--keep", action="store_true", help="keep the run's directory (logs, configuration) at the end")
    args = parser.parse_args(argv)
    if not 1 <= args.servers <= 4:
        parser.error("--servers: 1 to 4.")
    args.proxy = args.proxy or args.servers > 1
    if args.campaigns is None:
        args.campaigns = 5 if args.servers > 1 else 1
    if not 1 <= args.campaigns <= 10:
        parser.error("--campaigns: 1 to 10.")
    if not 1 <= args.players <= 49:
        parser.error("--players: 1 to 49 a campaign.")
    if args.campaigns * (args.players + 1) > MAX_USERS:
        parser.error(f"--campaigns x (--players + 1 GM): at most {MAX_USERS} users.")
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


def build(prehistory: int, campaigns: int) -> list[dict[str, Any]]:
    """The campaigns, each with its five players and its GM with an API token (the shared settings)."""
    import django

    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections

    from api.services import token_create
    from campaign.models import Role
    from campaign.permissions import SYSTEM_ACTOR
    from campaign.services import membership_add
    from dynasties.models import Character, Dynasty, DynastyKind
    from operations.services import campaign_start

    call_command("migrate", verbosity=0, interactive=False)
    users = get_user_model().objects
    built = []
    for number in range(1, campaigns + 1):
        run = f"{secrets.token_hex(3)}-{number}"  # the same database may serve several runs

        def login(name: str, run: str = run) -> tuple[Any, str]:
            password = secrets.token_urlsafe(12)
            return users.create_user(f"{name}-{run}", password=password), password

        gm, gm_password = login("load-gm")
        campaign = campaign_start(name=f"Load test {run}", gm=gm, players=5, prehistory_turns=prehistory, seed=number)
        seats = []
        for dynasty in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("pk"):
            user, password = login(f"load-{dynasty.crown.lower()}")
            membership_add(campaign=campaign, user=user, role=Role.PLAYER, dynasty=dynasty, by=SYSTEM_ACTOR)
            seats.append([user.get_username(), password, dynasty.pk])
        _, key = token_create(user=gm, name="load test")
        campaign.refresh_from_db()
        built.append(
            {
                "slug": campaign.slug,
                "seats": seats,
                "gm": [gm.get_username(), gm_password, key],
                "people": Character.objects.filter(campaign=campaign).count(),
                "year": campaign.current_year,
                "turn": campaign.turn_number,
            }
        )
    connections.close_all()
    return built


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


def nginx_config(folder: Path, port: int, backends: list[int], cert: Path, key: Path) -> str:
    """nginx's configuration for the run: TLS on a loopback port with the run's certificate, the
    requests shared out between the backends (plain HTTP, loopback), and its pid, logs and
    temporary files in ``folder``. Idle connections to a backend are closed before gunicorn's
    keep-alive (5 s) would close them under a request."""
    servers = "\n".join(f"        server {HOST}:{backend};" for backend in backends)
    temp = "\n".join(f"    {kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""# The load test's nginx (bench/load.py), made for one run.
daemon off;
worker_processes 1;
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} warn;

events {{
    worker_connections 1024;
}}

http {{
    log_format upstream '$remote_addr [$time_local] "$request" $status $body_bytes_sent $upstream_addr $request_time';
    access_log {folder / "access.log"} upstream;
{temp}
    proxy_max_temp_file_size 0;
    client_max_body_size 50m;

    upstream regnal {{
{servers}
        keepalive 32;
        keepalive_timeout 4s;
    }}

    server {{
        listen {HOST}:{port} ssl;
        ssl_certificate {cert};
        ssl_certificate_key {key};

        location / {{
            proxy_pass http://regnal;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_read_timeout 90s;
        }}
    }}
}}
"""


def nginx_command(folder: Path) -> list[str]:
    """nginx with the run's configuration (``folder``/nginx.conf), its start-up errors in the run's log."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    return [nginx, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-e", str(folder / "error.log")]


def wait_until_up(url: str, process: subprocess.Popen[bytes], name: str, deadline: float, headers: dict[str, str]) -> None:
    context = ssl._create_unverified_context()  # the run's own certificate
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{name} stopped at start-up (exit {process.returncode}).")
        try:
            request = urllib.request.Request(url, headers=headers)
            with urllib.request.urlopen(request, context=context, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"{name} did not answer {url} in time.")


class MemoryWatch(threading.Thread):
    """The largest resident memory of each group of processes (a process and its children: gunicorn's
    master and workers, nginx's master and worker), and of all of them together, from /proc."""

    def __init__(self, roots: dict[str, int]) -> None:
        super().__init__(daemon=True)
        self.roots, self.stop = roots, threading.Event()
        self.peak_kb = dict.fromkeys(roots, 0)
        self.total_kb = 0

    @staticmethod
    def tree(root: int) -> list[int]:
        try:
            children = Path(f"/proc/{root}/task/{root}/children").read_text().split()
        except OSError:
            return [root]
        return [root] + [int(p) for p in children]

    @staticmethod
    def resident_kb(pid: int) -> int:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return 0
        found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
        return int(found.group(1)) if found else 0

    def sample(self) -> None:
        now = {name: sum(self.resident_kb(pid) for pid in self.tree(root)) for name, root in self.roots.items()}
        for name, kb in now.items():
            self.peak_kb[name] = max(self.peak_kb[name], kb)
        self.total_kb = max(self.total_kb, sum(now.values()))

    def run(self) -> None:
        while not self.stop.wait(0.5):
            self.sample()


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


BAD_LOG_LINE = re.compile(r"Traceback|\[ERROR\]|\[CRITICAL\]| ERROR | CRITICAL |\[(error|crit|alert|emerg)\]")


def bad_lines(log: Path) -> list[str]:
    """A log's tracebacks and errors (gunicorn's, Django's, nginx's)."""
    if not log.exists():
        return []
    return [line for line in log.read_text(errors="replace").splitlines() if BAD_LOG_LINE.search(line)]


def server_errors(access_log: Path, error_log: Path) -> tuple[int, int, list[str]]:
    """Requests a server (gunicorn or nginx) logged, those answered 5xx, and its error log's
    tracebacks and errors."""
    total = errors = 0
    for line in access_log.read_text(errors="replace").splitlines():
        found = re.search(r'" (\d{3}) ', line)
        if found:
            total += 1
            errors += found.group(1).startswith("5")
    return total, errors, bad_lines(error_log)


def upstreams(access_log: Path) -> Counter[str]:
    """How many requests nginx passed to each backend (its ``upstream`` log format)."""
    counts: Counter[str] = Counter()
    for line in access_log.read_text(errors="replace").splitlines():
        found = re.search(r'" \d{3} \d+ (\S+) ', line)
        if found and found.group(1) != "-":
            counts[found.group(1)] += 1
    return counts


class CheckFailed(Exception):
    pass


@dataclass
class Check:
    """A check made beside the load, straight to the servers (not through nginx), as one person: it
    logs in on a server and sends its own requests; ``run`` keeps its result or what went wrong."""

    start: str  # the server the check acts on (its own address, not nginx's)
    fetch: str  # the server that must see what was done on the first
    slug: str
    username: str
    password: str
    proxied: bool  # the servers sit behind nginx: plain HTTP, with the headers nginx adds
    timeout: float = 240.0
    result: str = ""
    error: str = ""
    seconds: float = 0.0

    def session(self) -> Any:
        import requests
        from urllib3.exceptions import InsecureRequestWarning

        warnings.simplefilter("ignore", InsecureRequestWarning)  # the run's own certificate
        browser = requests.Session()
        if self.proxied:
            browser.headers.update(PROXIED)
        return browser

    @staticmethod
    def send(browser: Any, method: str, url: str, **kwargs: Any) -> Any:
        """One request, redirects not followed; the session's cookies go with it even over plain
        HTTP to a server behind nginx (requests keeps secure cookies for https:// addresses)."""
        cookies = "; ".join(f"{c.name}={c.value}" for c in browser.cookies)
        headers = {**kwargs.pop("headers", {}), **({"Cookie": cookies} if cookies else {})}
        # verify=False here, not only on the session: REQUESTS_CA_BUNDLE in the environment would win over it
        return browser.request(method, url, headers=headers, allow_redirects=False, verify=False, timeout=120, **kwargs)

    def log_in(self, browser: Any, server: str, who: str) -> None:
        form = self.send(browser, "GET", f"{server}/login/")
        origin = "https://" + server.split("://", 1)[1]  # the address as the browser sees it (HTTPS)
        token = browser.cookies.get("csrftoken", "")
        answer = self.send(
            browser,
            "POST",
            f"{server}/login/",
            data={"username": self.username, "password": self.password, "csrfmiddlewaretoken": token},
            headers={"Referer": f"{origin}/login/"},
        )
        if form.status_code != 200 or answer.status_code != 302 or "/login/" in answer.headers.get("Location", "/login/"):
            raise CheckFailed(f"the {who} could not log in at {server} (HTTP {answer.status_code})")

    def run(self) -> None:
        try:
            self.result = self.check()
        except CheckFailed as failed:
            self.error = str(failed)
        except Exception as exc:  # a connection refused, a timeout: the check failed, say how
            self.error = f"{type(exc).__name__}: {exc}"

    def check(self) -> str:
        raise CheckFailed("no check")  # each kind of check says what it does


@dataclass
class PrintCheck(Check):
    """A GM's print of his campaign's sheets: started on one server, waited for and fetched on another."""

    def check(self) -> str:
        browser = self.session()
        deadline = time.monotonic() + self.timeout
        self.log_in(browser, self.start, "GM")
        started = time.monotonic()
        batch = self.send(browser, "GET", f"{self.start}/print/campaign/{self.slug}/sheets.pdf")
        location = batch.headers.get("Location", "")
        if batch.status_code != 302 or "/jobs/" not in location:
            raise CheckFailed(f"the campaign's sheets did not go to the task queue (HTTP {batch.status_code})")
        waits = Counter[str]()
        while True:
            page = self.send(browser, "GET", f"{self.fetch}{location}")
            if page.status_code != 200:
                raise CheckFailed(f"{self.fetch} answered HTTP {page.status_code} for the job {location}")
            ready = re.search(r"Ready: (\d+) sheets", page.text)
            if ready:
                break
            failed = re.search(r'<p class="error">(.*?)</p>', page.text, re.S)
            if failed:
                raise CheckFailed(f"the job failed: {failed.group(1).strip()}")
            waits["queued" if "Waiting for a worker" in page.text else "rendering"] += 1
            if time.monotonic() > deadline:
                raise CheckFailed(f"the job was not done after {self.timeout:.0f} s ({dict(waits)} pages)")
            time.sleep(0.5)
        pdf = self.send(browser, "GET", f"{self.fetch}{location}", params={"download": "1"})
        kind = pdf.headers.get("Content-Type")
        if pdf.status_code != 200 or kind != "application/pdf" or not pdf.content.startswith(b"%PDF"):
            raise CheckFailed(f"{self.fetch} did not hand out the PDF (HTTP {pdf.status_code}, {kind})")
        self.seconds = time.monotonic() - started
        return (
            f"{ready.group(1)} sheets started at {self.start}, rendered by the task worker and handed out by "
            f"{self.fetch} ({len(pdf.content) / 1024:.0f} KiB) {self.seconds:.1f} s later; the job's page "
            f"was read {sum(waits.values()) + 1} times there"
        )


@dataclass
class LiveCheck(Check):
    """The live table across servers: a player's page open on ``fetch`` polls (as regnal-live.js
    does) while the GM writes a public note on ``start`` through the API (``api_key``, his token);
    the poll must tell the campaign moved on and the player's dashboard, asked again on ``fetch``,
    must show the note. The player logs in with ``username``/``password``."""

    api_key: str = ""
    poll_every: float = 0.3

    def check(self) -> str:
        browser = self.session()
        self.log_in(browser, self.fetch, "player")
        live = f"{self.fetch}/c/{self.slug}/live/"
        first = self.send(browser, "GET", live, params={"v": 0})  # 204: still at 0; 200: the version now
        if first.status_code not in (200, 204):
            raise CheckFailed(f"{self.fetch}'s live poll answered HTTP {first.status_code} to a member")
        seen = int(first.json()["version"]) if first.status_code == 200 else 0
        text = f"Live check {secrets.token_hex(4)}: the court gathers."
        gm = self.session()
        wrote = self.send(
            gm,
            "POST",
            f"{self.start}/api/v1/campaigns/{self.slug}/notes/",
            json={"audience": "public", "text": text},
            headers={"Authorization": f"Token {self.api_key}"},
        )
        if wrote.status_code != 200:
            raise CheckFailed(f"the GM's note was refused by {self.start} (HTTP {wrote.status_code}: {wrote.text[:200]})")
        written = time.monotonic()
        polls = 0
        while True:
            polls += 1
            answer = self.send(browser, "GET", live, params={"v": seen})
            if answer.status_code == 200:
                seen = int(answer.json()["version"])
                page = self.send(browser, "GET", f"{self.fetch}/c/{self.slug}/")
                if page.status_code != 200:
                    raise CheckFailed(f"{self.fetch} answered HTTP {page.status_code} for the player's dashboard")
                if text in page.text:
                    break
            elif answer.status_code != 204:
                raise CheckFailed(f"{self.fetch}'s live poll answered HTTP {answer.status_code}")
            if time.monotonic() - written > self.timeout:
                raise CheckFailed(f"the note written on {self.start} did not reach {self.fetch} in {self.timeout:.0f} s")
            time.sleep(self.poll_every)
        self.seconds = time.monotonic() - written
        return (
            f"a public note written through {self.start}'s API reached a player's poll and dashboard on "
            f"{self.fetch} {self.seconds * 1000:.0f} ms later ({polls} poll{'' if polls == 1 else 's'})"
        )


def final_state(slug: str) -> dict[str, Any]:
    from campaign.models import Campaign, Roll
    from dynasties.models import Character, Posting

    campaign = Campaign.objects.get(slug=slug)
    return {
        "year": campaign.current_year,
        "turn": campaign.turn_number,
        "step": campaign.step,
        "people": Character.objects.filter(campaign=campaign).count(),
        "rolls": Roll.objects.filter(campaign=campaign).count(),
        "postings": Posting.objects.filter(campaign=campaign).count(),
    }


@dataclass
class Server:
    """A process the run started, and its logs."""

    name: str
    process: subprocess.Popen[bytes]
    url: str
    access_log: Path
    error_log: Path


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    """Stop a process the run started (and its children: it leads its own session)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, sig)
            process.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def main() -> int:
    args = parse_args()
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        print("The load test runs on PostgreSQL: start it with scripts/pg-test.sh (make load).", file=sys.stderr)
        return 2
    for name in ("DEBUG", "REGNAL_DEV", "TASKS_BACKEND"):
        os.environ.pop(name, None)
    os.environ["SECRET_KEY"] = secrets.token_urlsafe(50)
    os.environ["ALLOWED_HOSTS"] = HOST
    work = Path(tempfile.mkdtemp(prefix="regnal-load-"))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        started = time.monotonic()
        campaigns = build(args.prehistory, args.campaigns)
        print(
            f"{len(campaigns)} campaign{'s' if len(campaigns) > 1 else ''} built in {time.monotonic() - started:.1f} s: "
            f"{', '.join(str(c['people']) for c in campaigns)} characters after {args.prehistory} turns, "
            f"now {campaigns[0]['year']} (turn {campaigns[0]['turn']})."
        )
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings_production",
            "STATIC_ROOT": str(work / "static"),
            "MEDIA_ROOT": str(work / "media"),  # the artifact storage (trees, PDFs), shared by the servers
            "STATIC_BROTLI": "0",  # gzip only: brotli would take 90% of collectstatic (~30 s); 1 request in 100 is static
        }
        if args.proxy:
            env |= {"SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto", "PROXY_COUNT": "1"}
        subprocess.run(
            [str(BIN / "python"), "manage.py", "collectstatic", "--no-input", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=300,
        )
        cert, key = certificate(work)
        servers = []
        for number in range(1, args.servers + 1):
            port = free_port()
            logs = work / f"access-{number}.log", work / f"error-{number}.log"
            tls = [] if args.proxy else ["--certfile", str(cert), "--keyfile", str(key)]
            process = subprocess.Popen(
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
                    *tls,
                    "--forwarded-allow-ips",
                    HOST,
                    "--keep-alive",
                    "5",
                    "--timeout",
                    "60",
                    "--access-logfile",
                    str(logs[0]),
                    "--error-logfile",
                    str(logs[1]),
                    "--capture-output",
                ],
                cwd=ROOT,
                env=env,
                start_new_session=True,
            )
            processes.append(process)
            scheme = "http" if args.proxy else "https"
            servers.append(Server(f"gunicorn {number}", process, f"{scheme}://{HOST}:{port}", *logs))
        worker_log = work / "worker.log"
        with open(worker_log, "wb") as log:
            worker = subprocess.Popen(
                [str(BIN / "python"), "manage.py", "db_worker", "--interval", "0.5"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        processes.append(worker)
        nginx: Server | None = None
        if args.proxy:
            folder = work / "nginx"
            folder.mkdir()
            if os.geteuid() == 0:
                work.chmod(0o711)  # nginx's workers (user nobody) reach their temporary directories
            port = free_port()
            backends = [int(s.url.rsplit(":", 1)[1]) for s in servers]
            (folder / "nginx.conf").write_text(nginx_config(folder, port, backends, cert, key))
            process = subprocess.Popen(nginx_command(folder), cwd=folder, start_new_session=True)
            processes.append(process)
            nginx = Server("nginx", process, f"https://{HOST}:{port}", folder / "access.log", folder / "error.log")
        deadline = time.monotonic() + 120
        for server in servers:
            try:
                wait_until_up(f"{server.url}/login/", server.process, server.name, deadline, PROXIED if args.proxy else {})
            except SystemExit:
                print(server.error_log.read_text(errors="replace")[-3000:], file=sys.stderr)
                raise
        if nginx is not None:
            wait_until_up(f"{nginx.url}/login/", nginx.process, "nginx", deadline, {})
        base = nginx.url if nginx is not None else servers[0].url
        for server in servers:
            print(f"{server.name}: {args.workers} workers x {args.threads} threads at {server.url} (production settings).")
        print(f"task worker: manage.py db_worker (pid {worker.pid}).")
        if nginx is not None:
            print(f"nginx at {nginx.url} (TLS), passing requests to the {len(servers)} server{'s' if len(servers) > 1 else ''}.")
        roots = {s.name: s.process.pid for s in servers} | {"task worker": worker.pid}
        watch = MemoryWatch(roots | ({"nginx": nginx.process.pid} if nginx is not None else {}))
        watch.start()
        first = campaigns[0]
        check = PrintCheck(servers[0].url, servers[-1].url, first["slug"], first["gm"][0], first["gm"][1], args.proxy)
        seat = first["seats"][0]
        live = LiveCheck(
            servers[0].url, servers[-1].url, first["slug"], seat[0], seat[1], args.proxy, timeout=60, api_key=first["gm"][2]
        )
        checkers = [
            threading.Timer(min(10.0, args.duration / 4), check.run),
            threading.Timer(min(5.0, args.duration / 5), live.run),
        ]
        for checker in checkers:
            checker.daemon = True
            checker.start()
        prefix = work / "load"
        users = args.campaigns * (args.players + 1)
        locust_env = {
            **env,
            "LOAD_CAMPAIGNS": json.dumps([{k: c[k] for k in ("slug", "seats", "gm")} for c in campaigns]),
            "LOAD_PLAYERS": str(args.players),
            "LOAD_THINK": json.dumps(args.think),
            "LOAD_SAMPLES": str(work / "samples.json"),
            "LOAD_DURATION": str(args.duration),
            "LOAD_GRACE": str(GRACE),
        }
        print(
            f"locust: {args.campaigns} x ({args.players} players and 1 GM) for {args.duration} s, "
            f"{args.think[0]:g}-{args.think[1]:g} s between clicks, at {base}."
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
                f"{args.duration + GRACE}s",  # the locustfile ends the run sooner: see GRACE
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
            timeout=args.duration + GRACE + 120,
            capture_output=True,
            text=True,
        )
        for checker, limit in zip(checkers, (check.timeout, live.timeout), strict=True):
            checker.join(timeout=limit + 60)
        if run.returncode != 0 or not (work / "samples.json").exists():
            print(run.stdout[-3000:], run.stderr[-3000:], sep="\n", file=sys.stderr)
            raise SystemExit(f"locust failed (exit {run.returncode}).")
        watch.stop.set()
        watch.join()
        if nginx is not None:
            stop(nginx.process, signal.SIGQUIT)  # graceful: finishes what it passes on
        for process in processes:
            stop(process)
        return report(args, campaigns, work, servers, nginx, worker_log, watch, check, live)
    finally:
        for process in processes:
            stop(process, signal.SIGKILL)
        if args.keep:
            print(f"The run's files are kept in {work}.")
        else:
            shutil.rmtree(work, ignore_errors=True)


LOGIN = ("login form", "log in")
GONE = "page: character (gone: undone)"  # as bench/locustfile.py names a character an undo removed


def gone(samples: list[list[Any]]) -> int:
    """Character pages that answered the expected 404: born in a step the GM then undid."""
    return sum(1 for s in samples if s[1] == GONE and not s[3])


def megabytes(kb: int) -> str:
    return f"{kb / 1024:.0f} MB"


def report(
    args: argparse.Namespace,
    campaigns: list[dict[str, Any]],
    work: Path,
    servers: list[Server],
    nginx: Server | None,
    worker_log: Path,
    watch: MemoryWatch,
    check: PrintCheck,
    live: LiveCheck,
) -> int:
    dump = json.loads((work / "samples.json").read_text())
    samples: list[list[Any]] = dump["samples"]
    failures = read_failures(work / "load")
    seconds = float(dump["seconds"])  # the run's: longer than --duration when a GM needed it for a whole turn
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
    show("the GMs' steps (API writes)", [s for s in samples if s[0] == "POST" and s[1].startswith("GM")])
    show("the players' pages and reads", [s for s in samples if not s[1].startswith("GM") and s[1] not in LOGIN])
    steady = show("all but logging in", [s for s in samples if s[1] not in LOGIN])
    everything = show("all requests", samples)
    print()
    problems = []
    for campaign in campaigns:
        after = final_state(campaign["slug"])
        played = after["turn"] - campaign["turn"]
        print(
            f"Played by the GM of {campaign['slug']}: {played} whole turn{'' if played == 1 else 's'} "
            f"({campaign['year']} -> {after['year']}, now at {after['step']}); "
            f"{after['people'] - campaign['people']} characters more, {after['rolls']} rolls in the log, "
            f"{after['postings']} ledger postings."
        )
        problems += [f"the GM of {campaign['slug']} played no whole turn"] if played < 1 else []
    undone = gone(samples)
    if undone:
        print(f"Expected: {undone} character page{'' if undone == 1 else 's'} answered 404 (the GM's undo had removed them).")
    logged_all = five_xx_all = 0
    for server in servers:
        logged, five_xx, bad = server_errors(server.access_log, server.error_log)
        logged_all, five_xx_all = logged_all + logged, five_xx_all + five_xx
        print(
            f"{server.name} ({server.url}): {logged} requests logged, {five_xx} answered 5xx; "
            f"peak memory {megabytes(watch.peak_kb[server.name])} (master and workers)."
        )
        problems += [f"{server.name}: {five_xx} responses were 5xx"] if five_xx else []
        problems += [f"{server.name}'s log: {entry}" for entry in bad[:20]]
    if len(servers) > 1:
        print(f"gunicorn: {logged_all} requests logged, {five_xx_all} answered 5xx, on {len(servers)} servers.")
    print(f"task worker: peak memory {megabytes(watch.peak_kb['task worker'])}.")
    problems += [f"the task worker's log: {entry}" for entry in bad_lines(worker_log)[:20]]
    if nginx is not None:
        logged, five_xx, bad = server_errors(nginx.access_log, nginx.error_log)
        shares = ", ".join(f"{count} to {address}" for address, count in sorted(upstreams(nginx.access_log).items()))
        print(
            f"nginx ({nginx.url}): {logged} requests ({shares}), {five_xx} answered 5xx; "
            f"peak memory {megabytes(watch.peak_kb['nginx'])}."
        )
        problems += [f"nginx: {five_xx} responses were 5xx"] if five_xx else []
        problems += [f"nginx's log: {entry}" for entry in bad[:20]]
    print(f"Peak memory of all the servers' processes together: {megabytes(watch.total_kb)}.")
    if check.result:
        print(f"Print job across servers: {check.result}.")
    else:
        problems.append(f"print job across servers: {check.error or 'did not finish'}")
    if live.result:
        print(f"Live table across servers: {live.result}.")
    else:
        problems.append(f"live table across servers: {live.error or 'did not finish'}")
    layout = f"{len(servers)} server{'s' if len(servers) > 1 else ''}"
    layout += " behind nginx" if nginx is not None else " (HTTPS itself)"
    print(
        f"RESULT: {steady[2]:.1f} requests/s, p50 {steady[3]:.0f} ms, p99 {steady[4]:.0f} ms (all but the "
        f"{everything[0] - steady[0]} login requests), {everything[1]} failures; {layout}, "
        f"{args.campaigns} x ({args.players} players + 1 GM), {seconds:.0f} s, "
        f"{args.think[0]:g}-{args.think[1]:g} s between clicks, {args.workers} workers x {args.threads} threads a server"
    )
    problems[:0] = [f"{f['Method']} {f['Name']}: {f['Error']} (x{f['Occurrences']})" for f in failures]
    problems += [f"{everything[1]} requests failed"] if everything[1] and not failures else []
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
