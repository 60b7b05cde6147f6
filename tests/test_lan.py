"""Game night on a local network (``make lan``, config/lan.py; README.md "Game night on a local
network"): the address and hosts it computes, the secret key it keeps, the LAN settings, the table
screen's QR code of the site's address, and the whole command run for real on a second loopback
address (127.0.0.2: Linux routes 127.0.0.0/8 on ``lo`` with no set-up), a phone's login posted
through it with its CSRF token."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import secrets
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from django.urls import reverse

from config import lan

ROOT = Path(__file__).resolve().parent.parent


# -- the address, the hosts and the origins ------------------------------------------------------


def test_plan_of_a_lan_address_allows_that_host_and_its_origin_only() -> None:
    p = lan.plan("192.168.1.20", 8000)
    assert p.bind == "192.168.1.20:8000"
    assert p.url == "http://192.168.1.20:8000/"
    assert p.hosts == ["192.168.1.20"]
    assert p.origins == ["http://192.168.1.20:8000"]


def test_plan_on_every_interface_shows_the_found_address_and_answers_on_loopback_too() -> None:
    p = lan.plan("0.0.0.0", 8080, found="10.0.0.7")  # noqa: S104 - the option under test
    assert p.bind == "0.0.0.0:8080"
    assert p.url == "http://10.0.0.7:8080/"
    assert p.hosts == ["10.0.0.7", "127.0.0.1", "localhost"]
    assert p.origins == ["http://10.0.0.7:8080", "http://127.0.0.1:8080", "http://localhost:8080"]
    with pytest.raises(lan.LanError, match="no network address"):
        lan.plan("0.0.0.0", 8080, found="")  # noqa: S104


def test_plan_writes_ipv6_in_brackets() -> None:
    p = lan.plan("fd00::5", 8000)
    assert p.bind == "[fd00::5]:8000"
    assert p.url == "http://[fd00::5]:8000/"
    assert p.hosts == ["[fd00::5]"]  # as Django's ALLOWED_HOSTS writes an IPv6 host
    assert p.origins == ["http://[fd00::5]:8000"]


@pytest.mark.parametrize(
    ("address", "port", "message"),
    [("my-laptop", 8000, "not an IP address"), ("192.168.1.20", 0, "not a port"), ("192.168.1.20", 70000, "not a port")],
)
def test_plan_refuses_what_cannot_be_served_and_says_what_to_give(address: str, port: int, message: str) -> None:
    with pytest.raises(lan.LanError, match=message):
        lan.plan(address, port)


def test_lan_address_is_the_source_of_the_route_and_empty_without_one() -> None:
    assert lan.lan_address("127.0.0.2") == "127.0.0.1"  # the kernel's source for a loopback destination
    found = lan.lan_address()
    assert found == "" or not found.startswith("127.")  # this machine's address on its network, if any
    assert lan.lan_address("not-an-address") == ""


IP_LISTING = """\
3: wlp2s0    inet 192.168.1.20/24 brd 192.168.1.255 scope global dynamic noprefixroute wlp2s0\\       valid_lft 86000sec
5: docker0    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0\\       valid_lft forever preferred_lft forever
6: wlp2s0    inet 192.168.1.20/24 scope global secondary wlp2s0\\       valid_lft forever
"""


def test_interface_addresses_reads_iproute2_s_listing() -> None:
    """A laptop's own hotspot may have no route out (then the route finds no address): the
    interfaces' addresses are the fallback, and the other choices the command names."""
    assert lan.interface_addresses(IP_LISTING) == ["192.168.1.20", "172.17.0.1"]
    assert lan.interface_addresses("") == []
    assert all(not a.startswith("127.") for a in lan.interface_addresses())  # this machine's, if iproute2 is here


def test_the_banner_names_the_address_its_code_the_logins_file_and_what_to_do_when_a_phone_cannot_connect(
    tmp_path: Path,
) -> None:
    p = lan.plan("192.168.1.20", 8000)
    logins = tmp_path / "logins.txt"
    logins.write_text("gm  secret\n")
    text = lan.banner(p, logins=str(logins), others=["172.17.0.1"])
    assert "Regnal is served on the local network at  http://192.168.1.20:8000/" in text
    assert lan.qr_text(p.url).rstrip("\n") in text
    assert "▀" in lan.qr_text(p.url)
    assert f"The demo's logins are in {logins}" in text
    assert "other addresses too (172.17.0.1)" in text
    assert "firewall let TCP\nport 8000 in" in text
    assert "a phone's hotspot or a travel router" in text
    assert "--new-passwords" in lan.banner(p, logins=str(tmp_path / "none.txt"))
    assert "logins" not in lan.banner(p, logins="")


def test_the_secret_key_is_the_environment_s_else_kept_in_var(tmp_path: Path) -> None:
    path = tmp_path / "var" / "secret_key"
    assert lan.secret_key({"SECRET_KEY": "given"}, path) == "given"
    assert not path.exists()
    made = lan.secret_key({}, path)
    assert len(made) >= 50
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert lan.secret_key({}, path) == made  # kept: the players stay logged in across a restart


def test_the_servers_environment_drops_development_switches_and_names_the_address() -> None:
    p = lan.plan("192.168.1.20", 8000)
    env = lan.server_environment({"DEBUG": "1", "REGNAL_DEV": "1", "PATH": "/bin"}, p, "k" * 50)
    assert "DEBUG" not in env
    assert "REGNAL_DEV" not in env
    assert env["PATH"] == "/bin"
    assert env["DJANGO_SETTINGS_MODULE"] == "config.settings_lan"
    assert env["ALLOWED_HOSTS"] == "192.168.1.20"
    assert env["CSRF_TRUSTED_ORIGINS"] == "http://192.168.1.20:8000"
    assert env["REGNAL_SITE_URL"] == "http://192.168.1.20:8000"


def test_the_lan_settings_are_production_s_over_plain_http() -> None:
    """DEBUG off, WhiteNoise's compressed static files, the task queue in the database, the hosts and
    origins from the environment; but no HTTPS redirect, no HSTS and cookies a phone sends back over
    http:// (a Secure cookie would never come back: nobody could log in)."""
    show = (
        "import json, django; django.setup(); from django.conf import settings as s; print(json.dumps({"
        "'debug': s.DEBUG, 'hosts': s.ALLOWED_HOSTS, 'origins': s.CSRF_TRUSTED_ORIGINS, 'site': s.REGNAL_SITE_URL,"
        "'redirect': s.SECURE_SSL_REDIRECT, 'hsts': s.SECURE_HSTS_SECONDS, 'session_secure': s.SESSION_COOKIE_SECURE,"
        "'csrf_secure': s.CSRF_COOKIE_SECURE, 'static': s.STORAGES['staticfiles']['BACKEND'],"
        "'tasks': s.TASKS['default']['BACKEND'], 'whitenoise': 'whitenoise.middleware.WhiteNoiseMiddleware' in s.MIDDLEWARE}))"
    )
    env = lan.server_environment({"PATH": os.environ.get("PATH", "")}, lan.plan("192.168.1.20", 8000), secrets.token_urlsafe(50))
    out = subprocess.run([sys.executable, "-c", show], cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=60)
    got = json.loads(out.stdout)
    assert got == {
        "debug": False,
        "hosts": ["192.168.1.20"],
        "origins": ["http://192.168.1.20:8000"],
        "site": "http://192.168.1.20:8000",
        "redirect": False,
        "hsts": 0,
        "session_secure": False,
        "csrf_secure": False,
        "static": "config.static.StaticFilesStorage",
        "tasks": "django_tasks_db.DatabaseBackend",
        "whitenoise": True,
    }


# -- the table screen's QR code -----------------------------------------------------------------


def _qr_caption(html: str) -> str:
    match = re.search(r'<aside class="ts-qr".*?<p class="ts-qr-text"><strong>Scan to join</strong>(.*?)</p>', html, re.S)
    assert match, "the table screen has no QR code"
    return match.group(1)


@pytest.mark.django_db
def test_the_table_screen_shows_the_qr_code_of_the_site_address(client, campaign, alice, settings) -> None:
    settings.REGNAL_SITE_URL = "http://192.168.1.20:8000"
    client.force_login(alice)
    html = client.get(reverse("pages:table", args=[campaign.slug])).content.decode()
    link = f"http://192.168.1.20:8000/c/{campaign.slug}/"
    assert _qr_caption(html) == link
    assert f'aria-label="QR code: {link}"' in html  # the figure drawn for that link (segno's SVG)
    drawn = html.split('class="ts-qr"', 1)[1]
    assert '<svg xmlns="http://www.w3.org/2000/svg" viewBox=' in drawn  # sized by the screen's CSS, not cut


@pytest.mark.django_db
def test_without_make_lan_the_code_is_the_address_the_screen_was_opened_at(client, campaign, alice, settings) -> None:
    settings.REGNAL_SITE_URL = ""
    settings.ALLOWED_HOSTS = ["testserver", "127.0.0.1", "table.example"]
    client.force_login(alice)
    url = reverse("pages:table", args=[campaign.slug])
    html = client.get(url, HTTP_HOST="table.example").content.decode()
    assert _qr_caption(html) == f"http://table.example/c/{campaign.slug}/"
    # at 127.0.0.1 no phone can follow it: the screen says how to serve the phones
    html = client.get(url, HTTP_HOST="127.0.0.1").content.decode()
    caption = _qr_caption(html)
    assert caption.startswith(f"http://127.0.0.1/c/{campaign.slug}/<br>This address works on this computer only")
    assert "make lan" in caption


# -- the command itself, on a second loopback address ---------------------------------------------

SECOND_LOOPBACK = "127.0.0.2"
START_BUDGET = 240.0
"""Seconds the command has to migrate a new database, create the demo, collect the static files and
answer (about 20 s here)."""


def _free_port(address: str) -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return int(s.getsockname()[1])


def _port_open(address: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex((address, port)) == 0


def _login_form_token(html: str) -> str:
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert match, "the login page has no CSRF token"
    return match.group(1)


@pytest.mark.long
def test_make_lan_serves_the_site_on_a_second_loopback_address_and_a_login_posts_through_it(tmp_path: Path) -> None:
    port = _free_port(SECOND_LOOPBACK)
    logins = tmp_path / "logins.txt"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST_"))},
        "DEBUG": "1",  # as `make run` leaves it: the command must drop it (production settings)
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "STATIC_ROOT": str(tmp_path / "static"),
        "MEDIA_ROOT": str(tmp_path / "media"),
        "REGNAL_LOGINS_FILE": str(logins),
        "SECRET_KEY": secrets.token_urlsafe(50),
    }
    out = tmp_path / "out.txt"
    started = time.monotonic()
    with open(out, "wb") as sink:
        command = subprocess.Popen(
            [sys.executable, "-m", "config.lan", "--address", SECOND_LOOPBACK, "--port", str(port), "--workers", "1"],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        while "Ctrl-C stops the server." not in out.read_text(errors="replace"):
            assert command.poll() is None, out.read_text(errors="replace")[-3000:]
            assert time.monotonic() - started < START_BUDGET, out.read_text(errors="replace")[-3000:]
            time.sleep(0.5)
        up = time.monotonic() - started
        printed = out.read_text(errors="replace")
        base = f"http://{SECOND_LOOPBACK}:{port}"
        assert f"Regnal is served on the local network at  {base}/" in printed
        assert "▄▄▄▄▄" in printed  # the QR code, drawn in the terminal
        assert f"The demo's logins are in {logins}" in printed
        assert f"Open {base} and log in" in logins.read_text()  # the demo names the address served, not 127.0.0.1:8000

        # the demo's GM, from the logins file the README names
        gm_line = next(line for line in logins.read_text().splitlines() if line.startswith("gm "))
        password = gm_line.split()[1]
        assert stat.S_IMODE(logins.stat().st_mode) == 0o600

        phone = requests.Session()
        phone.trust_env = False  # straight to the address, as a phone on the Wi-Fi (no http_proxy)
        page = phone.get(f"{base}/login/", timeout=10)
        assert page.status_code == 200
        assert "csrftoken" in phone.cookies
        token = _login_form_token(page.text)
        # a page of another origin cannot post here (CSRF holds on plain HTTP too)
        stranger = phone.post(
            f"{base}/login/",
            data={"csrfmiddlewaretoken": token, "username": "gm", "password": password},
            headers={"Origin": "http://evil.example"},
            allow_redirects=False,
            timeout=10,
        )
        assert stranger.status_code == 403
        # the phone's own post, as a browser sends it (Origin and Referer of the address it opened)
        answer = phone.post(
            f"{base}/login/",
            data={"csrfmiddlewaretoken": token, "username": "gm", "password": password},
            headers={"Origin": base, "Referer": f"{base}/login/"},
            allow_redirects=False,
            timeout=10,
        )
        assert answer.status_code == 302, answer.text[:2000]
        assert "sessionid" in phone.cookies  # not a Secure cookie: it comes back over http://
        table = phone.get(f"{base}/c/demo/table/", timeout=10)
        assert table.status_code == 200
        assert _qr_caption(table.text) == f"{base}/c/demo/"  # the code of the address the players open
        # production, not runserver: no debug page, static files by WhiteNoise (fingerprinted, compressed)
        missing = phone.get(f"{base}/no-such-page/", timeout=10)
        assert missing.status_code == 404
        assert "URLconf" not in missing.text
        css = re.search(r'href="(/static/[^"]+\.[0-9a-f]{12}\.css)"', table.text)
        assert css, "no fingerprinted stylesheet"
        static = phone.get(base + css.group(1), headers={"Accept-Encoding": "gzip"}, timeout=10)
        assert static.status_code == 200
        assert static.headers.get("Content-Encoding") == "gzip"
        print(f"make lan: served at {base}/ in {up:.1f} s (new database, demo, static files); login posted through it: 302")
    finally:
        if command.poll() is None:
            os.kill(command.pid, signal.SIGINT)  # Ctrl-C
        try:
            code = command.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(command.pid, signal.SIGKILL)
            command.wait()
            raise
    assert code == 0, out.read_text(errors="replace")[-3000:]
    assert not _port_open(SECOND_LOOPBACK, port)  # gunicorn stopped with it


# -- make run: the logins stay readable -----------------------------------------------------------


def _server_lines(*calls: tuple[str, str]) -> str:
    """What the development server prints for these request lines and statuses, through Django's
    own ``log_message`` and the site's logging configuration."""
    from django.core.servers.basehttp import WSGIRequestHandler

    handler = WSGIRequestHandler.__new__(WSGIRequestHandler)  # only its logging is used
    handler.request = None
    from django.utils.log import ServerFormatter

    # the site's handler (pytest adds its own capturing ones beside it)
    (server_handler,) = [h for h in logging.getLogger("django.server").handlers if isinstance(h.formatter, ServerFormatter)]
    assert isinstance(server_handler, logging.StreamHandler)
    stream = io.StringIO()
    old = server_handler.setStream(stream)
    try:
        for line, status in calls:
            handler.log_message('"%s" %s %s', line, status, "0")
    finally:
        server_handler.setStream(old)
    return stream.getvalue()


def test_the_development_server_leaves_the_answered_live_poll_out_of_its_log() -> None:
    printed = _server_lines(
        ("GET /c/demo/live/?v=12 HTTP/1.1", "204"),
        ("GET /c/demo/live/?v=12&as=public HTTP/1.1", "200"),
        ("GET /c/demo/ HTTP/1.1", "200"),
        ("POST /c/demo/turn/births/ HTTP/1.1", "302"),
        ("GET /c/gone/live/?v=1 HTTP/1.1", "404"),
        ("GET /c/demo/live-notes/ HTTP/1.1", "200"),
    )
    assert "/live/?v=12" not in printed
    assert '"GET /c/demo/ HTTP/1.1" 200 0' in printed
    assert '"POST /c/demo/turn/births/ HTTP/1.1" 302 0' in printed
    assert '"GET /c/gone/live/?v=1 HTTP/1.1" 404 0' in printed  # a failing poll still shows
    assert "/c/demo/live-notes/" in printed  # only the poll itself is left out
    assert len(printed.splitlines()) == 4


def test_quiet_poll_filter_keeps_records_that_are_not_request_lines() -> None:
    from config.log_filters import QuietPollFilter

    record = logging.LogRecord("django.server", logging.INFO, __file__, 1, "Starting server", None, None)
    assert QuietPollFilter().filter(record)
    poll = logging.LogRecord(
        "django.server", logging.INFO, __file__, 1, '"%s" %s %s', ("GET /c/x/live/?v=1 HTTP/1.1", "204", "0"), None
    )
    poll.status_code = 204
    assert not QuietPollFilter().filter(poll)


@pytest.mark.django_db
def test_demo_writes_its_logins_to_the_file_the_readme_names(tmp_path: Path) -> None:
    from django.contrib.auth import authenticate
    from django.core.management import call_command

    path = tmp_path / "var" / "logins.txt"
    out = io.StringIO()
    call_command("demo", logins_file=str(path), stdout=out)
    assert f"These logins are written to {path} as well." in out.getvalue()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    written = path.read_text()
    rows = {line.split()[0]: line.split()[1] for line in written.splitlines() if re.match(r"^(gm|england|france) ", line)}
    assert set(rows) == {"gm", "england", "france"}
    assert authenticate(username="gm", password=rows["gm"]) is not None  # the file's password logs in
    # run again (`make run` each time): the passwords are not shown again, and the file keeps them
    out = io.StringIO()
    call_command("demo", logins_file=str(path), stdout=out)
    assert f"The passwords set before are in {path}." in out.getvalue()
    assert path.read_text() == written
    # new passwords: the file follows
    call_command("demo", logins_file=str(path), reset_passwords=True, stdout=io.StringIO())
    assert path.read_text() != written
    gm_password = next(line.split()[1] for line in path.read_text().splitlines() if line.startswith("gm "))
    assert authenticate(username="gm", password=gm_password) is not None
