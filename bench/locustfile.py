"""The load of game nights, for locust: in each campaign, players browsing and a GM running the
Dynastic Sequence.

Started by ``bench/load.py`` (which builds the campaigns, starts the servers and reads the results);
everything it needs comes from the environment that script sets:

- ``LOAD_CAMPAIGNS``: JSON ``[{"slug": ..., "seats": [[username, password, dynasty id], ...],
  "gm": [username, password, api token]}, ...]``, a seat per player dynasty (the players'
  sessions take a campaign's seats in turn, so 10 players on 5 crowns are each crown's player on
  two devices);
- ``LOAD_PLAYERS``: players per campaign; ``LOAD_THINK``: JSON ``[min, max]`` seconds between two
  clicks of one person (``[0, 0]``: as fast as the server answers);
- ``LOAD_DURATION``: the run's seconds; it goes on after them (for at most ``LOAD_GRACE`` seconds
  more) until every GM has played a whole turn, so a busy machine still sees one. Without it,
  locust's ``--run-time`` alone ends the run.

A player logs in through the login form and reads what a player reads at the table: the dashboard,
the turn and its current step, his house (page and family tree), his characters, his exchequer,
the contracts, the roll log, the stylesheet, and the API's turn (a phone app polling). The GM logs in
too (for the pages) and drives the turn through the API with his token: each of his clicks reads
the turn and does the one thing it waits for (roll the births, close them, roll survival, close it,
close Marriages, publish the Announcements, start the next turn), and every third turn he undoes
the births he rolled and rolls them again. Any answer but the expected one is a failure; a player
opening a character that such an undo removed gets the page's 404 saying it no longer exists, which
is expected (counted apart as ``page: character (gone: undone)``).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import time
import uuid
import warnings
from typing import Any

import gevent
from locust import HttpUser, between, constant, events, task
from urllib3.exceptions import InsecureRequestWarning

warnings.simplefilter("ignore", InsecureRequestWarning)  # gunicorn's certificate is made for the run

CAMPAIGNS: list[dict[str, Any]] = json.loads(os.environ.get("LOAD_CAMPAIGNS", "[]"))
PLAYERS = int(os.environ.get("LOAD_PLAYERS", "10"))
THINK: list[float] = json.loads(os.environ.get("LOAD_THINK", "[0.5, 2.0]"))
STEPS = ("births", "survival", "marriages", "announcements")
GONE = "page: character (gone: undone)"  # bench/load.py counts these apart, as expected
GONE_TEXT = "no longer exists"  # what the character page's 404 says (pages/character_gone.html)
# Campaign by campaign, each seat in turn: with 10 players a campaign, its first five sessions take
# its five seats and the next five the same seats again (the second device).
_seats = itertools.cycle(
    [(c["slug"], c["seats"][i % len(c["seats"])]) for c in CAMPAIGNS for i in range(PLAYERS)] or [("", ["", "", 0])]
)
_games = itertools.cycle([(c["slug"], c["gm"]) for c in CAMPAIGNS] or [("", ["", "", ""])])
SAMPLES = os.environ.get("LOAD_SAMPLES", "")
DURATION = float(os.environ.get("LOAD_DURATION", "0"))
GRACE = float(os.environ.get("LOAD_GRACE", "60"))
_samples: list[tuple[str, str, float, bool]] = []
_turns: dict[str, int] = {}  # campaign slug -> whole turns its GM played
_clock: dict[str, float] = {}  # "start", "end": when the users ran (time.monotonic)


def every_gm_played_a_turn() -> bool:
    return all(_turns.get(c["slug"], 0) >= 1 for c in CAMPAIGNS)


@events.test_start.add_listener
def _start(environment: Any, **_: Any) -> None:
    _clock["start"] = time.monotonic()
    if DURATION:
        gevent.spawn(_stop_when_done, environment)


def _stop_when_done(environment: Any) -> None:
    """Ends the run once its seconds are over and every GM has played a whole turn (or the grace is
    spent too: bench/load.py then reports the GM who played none)."""
    while True:
        gevent.sleep(0.25)
        elapsed = time.monotonic() - _clock["start"]
        if elapsed >= DURATION and (every_gm_played_a_turn() or elapsed >= DURATION + GRACE):
            environment.runner.quit()
            return


@events.request.add_listener
def _record(request_type: str, name: str, response_time: float, exception: Any = None, **_: Any) -> None:
    """Every request's time, kept whole: ``bench/load.py`` computes exact percentiles from them."""
    _samples.append((request_type, name, response_time, exception is not None))


@events.test_stop.add_listener
def _end(**_: Any) -> None:
    _clock.setdefault("end", time.monotonic())


@events.quitting.add_listener
def _dump(**_: Any) -> None:
    """The samples and the seconds the users ran (for the rates)."""
    if SAMPLES:
        seconds = _clock.get("end", time.monotonic()) - _clock.get("start", time.monotonic())
        with open(SAMPLES, "w") as f:
            json.dump({"seconds": round(seconds, 3), "samples": _samples}, f)


def think() -> Any:
    low, high = THINK
    return constant(low) if high <= low else between(low, high)


class Table(HttpUser):
    """Someone at one campaign's table: its pages (``self.c``) and API (``self.api``)."""

    abstract = True

    def at(self, slug: str) -> None:
        self.slug, self.c, self.api = slug, f"/c/{slug}", f"/api/v1/campaigns/{slug}"

    def step_page(self, step: str) -> str:
        """The page of the turn's current step (the interphase's is the turn page)."""
        return f"{self.c}/turn/{step}/" if step in STEPS else f"{self.c}/turn/"


def log_in(user: HttpUser, username: str, password: str) -> None:
    """The login form, as a browser sends it (its CSRF token, and the Referer HTTPS requires)."""
    user.client.verify = False
    user.client.get("/login/", name="login form")
    token = user.client.cookies.get("csrftoken", "")
    with user.client.post(
        "/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token},
        headers={"Referer": f"{user.host}/login/"},
        name="log in",
        catch_response=True,
    ) as response:
        if response.status_code != 200 or "/login/" in response.url:
            response.failure(f"{username} could not log in (HTTP {response.status_code}, at {response.url})")


class Player(Table):
    """A player at the table: reads, never writes."""

    fixed_count = PLAYERS * len(CAMPAIGNS)
    wait_time = think()

    def on_start(self) -> None:
        slug, (username, password, dynasty) = next(_seats)
        self.at(slug)
        self.dynasty = int(dynasty)
        self.stylesheet_url = ""
        log_in(self, username, password)
        listing = self.client.get(
            f"{self.api}/characters/", params={"dynasty": self.dynasty, "page_size": 100}, name="API characters (own house)"
        )
        self.characters = [row["id"] for row in listing.json()["results"]] if listing.ok else []

    @task(3)
    def dashboard(self) -> None:
        page = self.client.get(f"{self.c}/", name="page: dashboard")
        found = re.search(r'href="(/static/[^"]+\.css)"', page.text) if page.ok else None
        if found:
            self.stylesheet_url = found.group(1)

    @task(2)
    def turn(self) -> None:
        self.client.get(f"{self.c}/turn/", name="page: turn")

    @task(3)
    def current_step(self) -> None:
        turn = self.client.get(f"{self.api}/turn/", name="API turn")
        if turn.ok:
            step = turn.json()["step"]
            self.client.get(self.step_page(step), name=f"page: step ({step})")

    @task(2)
    def house(self) -> None:
        page = self.client.get(f"{self.c}/dynasty/{self.dynasty}/", name="page: own dynasty")
        found = re.search(r'<object class="tree" data="([^"]+)"', page.text) if page.ok else None
        if found:
            self.client.get(found.group(1).replace("&amp;", "&"), name="tree: own dynasty (SVG)")

    @task(3)
    def character(self) -> None:
        if not self.characters:
            return
        pk = random.choice(self.characters)
        with self.client.get(f"{self.c}/character/{pk}/", name="page: character", catch_response=True) as response:
            if response.status_code == 404 and GONE_TEXT in response.text:
                # born in a step the GM has since undone: the page says so; expected, not a failure
                response.request_meta["name"] = GONE
                response.success()
                self.characters.remove(pk)

    @task(2)
    def exchequer(self) -> None:
        self.client.get(f"{self.c}/treasury/{self.dynasty}/", name="page: own exchequer")

    @task(1)
    def contracts(self) -> None:
        self.client.get(f"{self.c}/contracts/", name="page: contracts")

    @task(1)
    def rolls(self) -> None:
        self.client.get(f"{self.c}/rolls/", name="page: roll log")

    @task(1)
    def stylesheet(self) -> None:
        if self.stylesheet_url:
            self.client.get(self.stylesheet_url, name="static: stylesheet")


class GameMaster(Table):
    """The GM: each click reads the turn and runs what it waits for, through the API."""

    fixed_count = len(CAMPAIGNS)
    wait_time = think()

    def on_start(self) -> None:
        slug, (username, password, token) = next(_games)
        self.at(slug)
        log_in(self, username, password)
        self.auth = {"Authorization": f"Token {token}"}
        self.turns = 0
        self.undone_in: set[int] = set()

    def post(self, action: str, body: dict[str, Any] | None = None) -> None:
        with self.client.post(
            f"{self.api}/{action}/",
            json=body or {},
            headers={**self.auth, "Idempotency-Key": uuid.uuid4().hex},
            name=f"GM API: {action}",
            catch_response=True,
        ) as response:
            if response.status_code != 200:
                response.failure(f"{action}: HTTP {response.status_code} {response.text[:300]}")

    @task
    def next_step(self) -> None:
        response = self.client.get(f"{self.api}/turn/", headers=self.auth, name="GM API: turn")
        if not response.ok:
            return
        turn = response.json()
        step, to_roll, number = turn["step"], turn["to_roll"], turn["turn_number"]
        self.client.get(self.step_page(step), name=f"GM page: step ({step})")
        if step == "births":
            if to_roll:
                self.post("births/roll-all")
            elif number % 3 == 0 and number not in self.undone_in:
                self.undone_in.add(number)  # a roll the table disputes: undo the step, roll again
                self.post("undo", {"which": "step"})
            else:
                self.post("births/finish")
        elif step == "survival":
            self.post("survival/rolls" if to_roll else "survival/finish")
        elif step == "marriages":
            self.post("marriages/finish")
        elif step == "announcements":
            self.post("announcements/publish")
        else:
            self.post("turn/advance")
            self.turns += 1
            _turns[self.slug] = _turns.get(self.slug, 0) + 1
