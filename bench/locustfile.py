"""The load of a game night, for locust: players browsing and a GM running the Dynastic Sequence.

Started by ``bench/load.py`` (which builds the campaign, starts gunicorn and reads the results);
everything it needs comes from the environment that script sets:

- ``LOAD_SLUG``: the campaign; ``LOAD_SEATS``: JSON ``[[username, password, dynasty id], ...]``,
  one per player dynasty (the players' sessions take them in turn, so 10 players on 5 crowns are
  each crown's player on two devices); ``LOAD_GM``: JSON ``[username, password, api token]``;
- ``LOAD_PLAYERS``: how many players; ``LOAD_THINK``: JSON ``[min, max]`` seconds between two
  clicks of one person (``[0, 0]``: as fast as the server answers).

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
import uuid
import warnings
from typing import Any

from locust import HttpUser, between, constant, events, task
from urllib3.exceptions import InsecureRequestWarning

warnings.simplefilter("ignore", InsecureRequestWarning)  # gunicorn's certificate is made for the run

SLUG = os.environ.get("LOAD_SLUG", "load")
SEATS: list[list[Any]] = json.loads(os.environ.get("LOAD_SEATS", "[]"))
GM: list[str] = json.loads(os.environ.get("LOAD_GM", '["", "", ""]'))
PLAYERS = int(os.environ.get("LOAD_PLAYERS", "10"))
THINK: list[float] = json.loads(os.environ.get("LOAD_THINK", "[0.5, 2.0]"))
C = f"/c/{SLUG}"
API = f"/api/v1/campaigns/{SLUG}"
STEP_PAGES = {
    "births": f"{C}/turn/births/",
    "survival": f"{C}/turn/survival/",
    "marriages": f"{C}/turn/marriages/",
    "announcements": f"{C}/turn/announcements/",
    "interphase": f"{C}/turn/",
}
GONE = "page: character (gone: undone)"  # bench/load.py counts these apart, as expected
GONE_TEXT = "no longer exists"  # what the character page's 404 says (pages/character_gone.html)
_seats = itertools.cycle(range(max(len(SEATS), 1)))
SAMPLES = os.environ.get("LOAD_SAMPLES", "")
_samples: list[tuple[str, str, float, bool]] = []


@events.request.add_listener
def _record(request_type: str, name: str, response_time: float, exception: Any = None, **_: Any) -> None:
    """Every request's time, kept whole: ``bench/load.py`` computes exact percentiles from them."""
    _samples.append((request_type, name, response_time, exception is not None))


@events.quitting.add_listener
def _dump(**_: Any) -> None:
    if SAMPLES:
        with open(SAMPLES, "w") as f:
            json.dump(_samples, f)


def think() -> Any:
    low, high = THINK
    return constant(low) if high <= low else between(low, high)


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


class Player(HttpUser):
    """A player at the table: reads, never writes."""

    fixed_count = PLAYERS
    wait_time = think()

    def on_start(self) -> None:
        username, password, dynasty = SEATS[next(_seats)]
        self.dynasty = int(dynasty)
        self.stylesheet_url = ""
        log_in(self, username, password)
        listing = self.client.get(
            f"{API}/characters/", params={"dynasty": self.dynasty, "page_size": 100}, name="API characters (own house)"
        )
        self.characters = [row["id"] for row in listing.json()["results"]] if listing.ok else []

    @task(3)
    def dashboard(self) -> None:
        page = self.client.get(f"{C}/", name="page: dashboard")
        found = re.search(r'href="(/static/[^"]+\.css)"', page.text) if page.ok else None
        if found:
            self.stylesheet_url = found.group(1)

    @task(2)
    def turn(self) -> None:
        self.client.get(f"{C}/turn/", name="page: turn")

    @task(3)
    def current_step(self) -> None:
        turn = self.client.get(f"{API}/turn/", name="API turn")
        if turn.ok:
            step = turn.json()["step"]
            self.client.get(STEP_PAGES.get(step, f"{C}/turn/"), name=f"page: step ({step})")

    @task(2)
    def house(self) -> None:
        page = self.client.get(f"{C}/dynasty/{self.dynasty}/", name="page: own dynasty")
        found = re.search(r'<object class="tree" data="([^"]+)"', page.text) if page.ok else None
        if found:
            self.client.get(found.group(1).replace("&amp;", "&"), name="tree: own dynasty (SVG)")

    @task(3)
    def character(self) -> None:
        if not self.characters:
            return
        pk = random.choice(self.characters)
        with self.client.get(f"{C}/character/{pk}/", name="page: character", catch_response=True) as response:
            if response.status_code == 404 and GONE_TEXT in response.text:
                # born in a step the GM has since undone: the page says so; expected, not a failure
                response.request_meta["name"] = GONE
                response.success()
                self.characters.remove(pk)

    @task(2)
    def exchequer(self) -> None:
        self.client.get(f"{C}/treasury/{self.dynasty}/", name="page: own exchequer")

    @task(1)
    def contracts(self) -> None:
        self.client.get(f"{C}/contracts/", name="page: contracts")

    @task(1)
    def rolls(self) -> None:
        self.client.get(f"{C}/rolls/", name="page: roll log")

    @task(1)
    def stylesheet(self) -> None:
        if self.stylesheet_url:
            self.client.get(self.stylesheet_url, name="static: stylesheet")


class GameMaster(HttpUser):
    """The GM: each click reads the turn and runs what it waits for, through the API."""

    fixed_count = 1
    wait_time = think()

    def on_start(self) -> None:
        username, password, token = GM
        log_in(self, username, password)
        self.auth = {"Authorization": f"Token {token}"}
        self.turns = 0
        self.undone_in: set[int] = set()

    def post(self, action: str, body: dict[str, Any] | None = None) -> None:
        with self.client.post(
            f"{API}/{action}/",
            json=body or {},
            headers={**self.auth, "Idempotency-Key": uuid.uuid4().hex},
            name=f"GM API: {action}",
            catch_response=True,
        ) as response:
            if response.status_code != 200:
                response.failure(f"{action}: HTTP {response.status_code} {response.text[:300]}")

    @task
    def next_step(self) -> None:
        response = self.client.get(f"{API}/turn/", headers=self.auth, name="GM API: turn")
        if not response.ok:
            return
        turn = response.json()
        step, to_roll, number = turn["step"], turn["to_roll"], turn["turn_number"]
        self.client.get(STEP_PAGES.get(step, f"{C}/turn/"), name=f"GM page: step ({step})")
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
