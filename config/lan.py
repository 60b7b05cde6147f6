"""Game night on a local network: ``make lan`` (``python -m config.lan``).

Serves the site to the phones at the table: migrates, keeps (or creates) the demo campaign, collects
the static files, then runs gunicorn (not ``runserver``) with the LAN settings
(``config.settings_lan``: the production settings over plain HTTP) bound to this machine's address
on the local network, and the task worker (``manage.py db_worker``) beside it. It prints the address
and its QR code; the table screen shows the same code (``REGNAL_SITE_URL``). ``ALLOWED_HOSTS``,
``CSRF_TRUSTED_ORIGINS`` and ``REGNAL_SITE_URL`` are set for that address in the servers'
environment, so no setting is edited. Ctrl-C stops both processes.

The address is the one this machine would use to reach the network (a UDP socket "connected" to a
documentation address: no packet is sent), or ``--address``/``ADDRESS``. No Django import here: the
settings are the servers' business, and this module must run before they can load.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import ipaddress
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PORT = 8000
PROBE = "192.0.2.1"
"""A documentation address (RFC 5737): connecting a UDP socket to it picks the interface of the
default route without sending anything."""
SECRET_KEY_FILE = ROOT / "var" / "secret_key"
LOGINS_FILE = "var/logins.txt"
START_TIMEOUT = 120.0
"""Seconds gunicorn has to answer its login page before the command gives up."""
SETTINGS = "config.settings_lan"
# Development switches the LAN settings refuse (they are the production ones), dropped from the
# servers' environment: `make run`'s DEBUG=1 must not leak into game night.
DROPPED = ("DEBUG", "REGNAL_DEV", "TASKS_BACKEND")


class LanError(Exception):
    """Something the user must fix; the message says what."""


def lan_address(probe: str = PROBE) -> str:
    """This machine's address on the network its default route leads to, or ``""`` when it has
    none (no network: then only loopback is left, which the phones cannot reach)."""
    family = socket.AF_INET6 if ":" in probe else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))  # UDP: no packet leaves, the kernel only picks the route
            address = str(s.getsockname()[0])
    except OSError:
        return ""
    return "" if ipaddress.ip_address(address).is_unspecified else address


def interface_addresses(listing: str | None = None) -> list[str]:
    """This machine's IPv4 addresses on its networks (``ip -o -4 addr show scope global up``), for a
    laptop whose own hotspot has no route out (then ``lan_address`` finds nothing) and to name the
    other choices. ``[]`` without iproute2."""
    if listing is None:
        try:
            listing = subprocess.run(
                ["ip", "-o", "-4", "addr", "show", "scope", "global", "up"],  # noqa: S607 - iproute2, on PATH
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return []
    found: list[str] = []
    for line in listing.splitlines():
        fields = line.split()
        if "inet" in fields[:-1]:
            address = fields[fields.index("inet") + 1].split("/", 1)[0]
            with contextlib.suppress(ValueError):
                if not ipaddress.ip_address(address).is_loopback and address not in found:
                    found.append(address)
    return found


@dataclass(frozen=True)
class Plan:
    bind: str
    """What gunicorn binds: ``address:port`` (``[v6]:port``)."""
    url: str
    """The address the players open (printed, drawn as a QR code, shown on the table screen)."""
    hosts: list[str]
    """``ALLOWED_HOSTS``: the address (and loopback's names when the site listens on every interface)."""
    origins: list[str]
    """``CSRF_TRUSTED_ORIGINS``: the origin of each host, with the port."""


def _host(address: str) -> str:
    """An address as it is written in a URL or a Host header: IPv6 in brackets."""
    return f"[{address}]" if ipaddress.ip_address(address).version == 6 else address


def plan(address: str, port: int, *, found: str = "") -> Plan:
    """The bind, the address to open, the allowed hosts and the CSRF origins for ``address`` and
    ``port``. ``address`` may be ``0.0.0.0`` (every interface): the site is then opened at ``found``
    (the LAN address) and also answers on this machine's loopback."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise LanError(f"--address {address!r} is not an IP address: give one such as 192.168.1.20 (see `ip addr`).") from None
    if not 0 < port < 65536:
        raise LanError(f"--port {port} is not a port: give one between 1 and 65535 (8000 by default).")
    hosts: list[str]
    if ip.is_unspecified:
        if not found:
            raise LanError("This machine has no network address: join the Wi-Fi (or start a hotspot) first.")
        shown = found
        hosts = [_host(found), "127.0.0.1", "localhost"] if ip.version == 4 else [_host(found), "[::1]", "localhost"]
    else:
        shown = address
        hosts = [_host(address)]
    origins = [f"http://{h}:{port}" for h in hosts]
    return Plan(bind=f"{_host(address)}:{port}", url=f"http://{_host(shown)}:{port}/", hosts=hosts, origins=origins)


def secret_key(environ: Mapping[str, str], path: Path = SECRET_KEY_FILE) -> str:
    """``SECRET_KEY`` from the environment, else the one kept in ``var/secret_key``, else a new one
    written there (readable by its owner only): logins survive a restart of game night."""
    given = environ.get("SECRET_KEY", "")
    if given:
        return given
    if path.exists():
        kept = path.read_text().strip()
        if kept:
            return kept
    key = secrets.token_urlsafe(50)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(key + "\n")
    return key


def server_environment(environ: Mapping[str, str], the_plan: Plan, key: str) -> dict[str, str]:
    """The environment of every process the command starts: the LAN settings for that address."""
    env = {name: value for name, value in environ.items() if name not in DROPPED}
    env |= {
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "SECRET_KEY": key,
        "ALLOWED_HOSTS": ",".join(the_plan.hosts),
        "CSRF_TRUSTED_ORIGINS": ",".join(the_plan.origins),
        "REGNAL_SITE_URL": the_plan.url.rstrip("/"),
    }
    env.setdefault("STATIC_BROTLI", "0")  # gzip is plenty on a local network; brotli costs ~30 s
    return env


def qr_text(url: str) -> str:
    """The address's QR code for a terminal (segno, two rows a line)."""
    import segno

    out = io.StringIO()
    segno.make(url, error="m", micro=False).terminal(out=out, compact=True)
    return out.getvalue()


def shown_path(path: str) -> str:
    """A path as the README names it: relative to the checkout when inside it."""
    full = (ROOT / path).resolve()
    return str(full.relative_to(ROOT)) if full.is_relative_to(ROOT) else str(full)


def banner(the_plan: Plan, *, logins: str, others: Sequence[str] = ()) -> str:
    """What the command prints once the site answers: the address, its QR code, the logins' file."""
    port = the_plan.bind.rsplit(":", 1)[1]
    lines = [
        "",
        f"Regnal is served on the local network at  {the_plan.url}",
        "Players: join this machine's Wi-Fi and open that address, or scan this code",
        "(the table screen, /c/<campaign>/table/, shows it too):",
        "",
        qr_text(the_plan.url).rstrip("\n"),
        "",
    ]
    if others:
        lines.append(f"This machine has other addresses too ({', '.join(others)}): ADDRESS=... chooses one.")
    if logins:
        if (ROOT / logins).exists():
            lines.append(f"The demo's logins are in {shown_path(logins)} (written when their passwords were set).")
        else:
            lines.append("The demo's passwords were set before and not kept: `make lan LAN_ARGS=--new-passwords` sets new ones.")
    lines += [
        "A phone that cannot open it: is it on the same Wi-Fi? Does this machine's firewall let TCP",
        f"port {port} in? A Wi-Fi that isolates its devices (cafes, clubs, guest networks) needs a network",
        'of your own: a phone\'s hotspot or a travel router (README.md, "Game night on a local network").',
        "Ctrl-C stops the server.",
        "",
    ]
    return "\n".join(lines)


def run_step(args: Sequence[str], env: Mapping[str, str]) -> None:
    """One ``manage.py`` command before the servers start; its failure stops the command."""
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=dict(env), check=False)  # noqa: S603
    if done.returncode != 0:
        raise LanError(f"manage.py {' '.join(args)} failed (exit {done.returncode}); its message is above.")


def start(args: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """A server process leading its own session (stopped with its children by ``stop``)."""
    return subprocess.Popen(list(args), cwd=ROOT, env=dict(env), start_new_session=True)  # noqa: S603


def stop(process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_until_up(url: str, server: subprocess.Popen[bytes], timeout: float = START_TIMEOUT) -> None:
    """Until the login page answers at the players' address (its Host header included)."""
    deadline = time.monotonic() + timeout
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through an http_proxy
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise LanError(f"gunicorn stopped (exit {server.returncode}) before it answered; its message is above.")
        try:
            with direct.open(url + "login/", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.3)
    raise LanError(f"gunicorn did not answer {url}login/ within {timeout:.0f} s.")


def parse_args(argv: Sequence[str] | None, environ: Mapping[str, str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make lan", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--address",
        default=environ.get("ADDRESS", ""),
        help="the address to serve on (default: this machine's address on its network; 0.0.0.0: every interface)",
    )
    parser.add_argument("--port", type=int, default=int(environ.get("PORT", "") or DEFAULT_PORT), help="default 8000")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2, 4 threads each)")
    parser.add_argument("--no-demo", action="store_true", help="do not create the demo campaign")
    parser.add_argument("--new-passwords", action="store_true", help="new passwords for the demo's logins (printed, kept)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] = os.environ) -> int:
    args = parse_args(argv, environ)
    try:
        found = lan_address() or next(iter(interface_addresses()), "")
        address = args.address or found
        if not address:
            raise LanError(
                "This machine has no network address: join the Wi-Fi (or start a hotspot) first, or give --address (ADDRESS=...)."
            )
        the_plan = plan(address, args.port, found=found)
        env = server_environment(environ, the_plan, secret_key(environ))
        run_step(["migrate", "--no-input", "-v", "0"], env)
        if not args.no_demo:
            run_step(["demo", *(["--reset-passwords"] if args.new_passwords else [])], env)
        run_step(["collectstatic", "--no-input", "-v", "0"], env)
    except LanError as exc:
        print(f"make lan: {exc}", file=sys.stderr)
        return 2
    gunicorn = Path(sys.executable).with_name("gunicorn")
    processes = [
        start(
            [
                str(gunicorn),
                "config.wsgi:application",
                "--bind",
                the_plan.bind,
                "--workers",
                str(args.workers),
                "--threads",
                "4",
                "--no-control-socket",
                "--timeout",
                "60",
            ],
            env,
        ),
        start([sys.executable, "manage.py", "db_worker", "--interval", "1"], env),
    ]
    stopping: list[int] = []

    def on_signal(signum: int, _frame: object) -> None:
        stopping.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        wait_until_up(the_plan.url, processes[0])
        logins = "" if args.no_demo else env.get("REGNAL_LOGINS_FILE", LOGINS_FILE)
        others = [] if args.address else [a for a in interface_addresses() if _host(a) not in the_plan.hosts]
        print(banner(the_plan, logins=logins, others=others), flush=True)
        while not stopping and all(p.poll() is None for p in processes):
            time.sleep(0.5)
        failed = [p for p in processes if p.poll() is not None]
        if failed and not stopping:
            print(f"make lan: a server stopped (exit {failed[0].returncode}); stopping the rest.", file=sys.stderr)
            return 1
        return 0
    except LanError as exc:
        print(f"make lan: {exc}", file=sys.stderr)
        return 1
    finally:
        for process in processes:
            stop(process)


if __name__ == "__main__":
    sys.exit(main())
