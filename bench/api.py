"""Benchmark: the API's characters list (100 a page, with family links) against DRF's bare list.

Builds 10,000 characters (five intermarrying houses over generations, a third of them wed) in a
temporary SQLite database, then serves, in the same process and the same run:

- ``/api/v1/campaigns/<slug>/characters/?page_size=100``: the real list (permission layer,
  filters, father/mother/spouses/children as links);
- ``/bare/``: a plain ``ListAPIView`` + ``ModelSerializer`` (every column, ids for links) over the
  same model with DRF's default 20 a page, mounted only here, in the bench's own urlconf.

Both go through the same middleware, session login and REST framework settings, with Django's test
``Client`` (no network), in alternating rounds so a busy machine slows both alike. Prints the
requests per second of each and their ratio; the target (issue 8) is at least half the bare list's
requests per second, i.e. a ratio of 0.5 or more, though the real list sends five times the rows.

    make bench        # or: .venv/bin/python bench/api.py [--people 10000] [--requests 200] [--profile]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HOUSES = [
    ("Plantagenet", "England"),
    ("Valois", "France"),
    ("Habsburg", "Austria"),
    ("Trastamara", "Spain"),
    ("Visconti", "Milan"),
]
TARGET = 0.5
ROUNDS = 10


def build(people: int, seed: int = 7):  # type: ignore[no-untyped-def]
    """A campaign of ``people`` characters: generations of couples per house, their children."""
    from django.contrib.auth import get_user_model

    from campaign.models import Campaign, Membership, Role
    from dynasties.models import Character, Dynasty, Marriage

    rng = random.Random(seed)
    campaign = Campaign.objects.create(name="API bench", slug="api-bench", start_year=1000, current_year=1400)
    houses = Dynasty.objects.bulk_create([Dynasty(campaign=campaign, name=n, crown=c, seat=i) for i, (n, c) in enumerate(HOUSES)])
    gm = get_user_model().objects.create_user("bench-gm")  # logged in with force_login
    Membership.objects.create(campaign=campaign, user=gm, role=Role.GM)

    def person(name: str, sex: str, year: int, house: Dynasty, father: Character | None, mother: Character | None) -> Character:
        return Character(
            campaign=campaign,
            given_name=name,
            sex=sex,
            birth_year=year,
            father=father,
            mother=mother,
            dynastic_name=house.name,
            birth_dynasty=house,
            controlled_by=house,
            status="dead" if year < 1340 else "alive",
            death_year=year + 45 if year < 1340 else None,
            characteristics={"strength": rng.randint(-3, 3), "constitution": 0},
        )

    generation = Character.objects.bulk_create(
        [person(f"Founder{i}", sex, 1000, house, None, None) for i, house in enumerate(houses) for sex in "MF"]
    )
    made, year = len(generation), 1000
    while made < people:
        year += 25
        men = [c for c in generation if c.sex == "M"]
        women = [c for c in generation if c.sex == "F"]
        rng.shuffle(women)
        couples = list(zip(men, women, strict=False))
        Marriage.objects.bulk_create(
            [Marriage(campaign=campaign, husband=h, wife=w, arranged_year=year, wedding_year=year) for h, w in couples]
        )
        children = []
        for husband, wife in couples:
            house = next(d for d in houses if d.pk == husband.controlled_by_id)
            first = rng.choice("MF")
            for n in range(rng.randint(2, 4)):  # sons and daughters in turn: the houses never die out
                if made + len(children) >= people:
                    break
                sex = first if n % 2 == 0 else "MF".replace(first, "")
                children.append(person(f"Child{made + len(children)}", sex, year + n, house, husband, wife))
        generation = Character.objects.bulk_create(children)
        made += len(children)
    return campaign, gm


def bare_urlconf(api_urlconf: str) -> str:
    """An urlconf with the site's URLs and DRF's bare list of characters at /bare/."""
    from django.urls import include, path
    from rest_framework import generics, serializers

    from dynasties.models import Character

    class BareCharacter(serializers.ModelSerializer):  # type: ignore[type-arg]
        class Meta:
            model = Character
            fields = "__all__"

    class BareList(generics.ListAPIView):  # type: ignore[type-arg]
        queryset = Character.objects.order_by("pk")
        serializer_class = BareCharacter

    module = types.ModuleType("bench_api_urls")
    module.urlpatterns = [path("bare/", BareList.as_view()), path("", include(api_urlconf))]  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    return module.__name__


def timed(client, address: str, count: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(wall seconds, CPU seconds of this process) for ``count`` requests."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(count):
        response = client.get(address)
        assert response.status_code == 200, response.content[:300]
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200, help="requests to each list (in alternating rounds)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the characters list")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="regnal-bench-")
    try:
        run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(args: argparse.Namespace, tmp: str) -> None:
    from bench.django_setup import setup_for_requests

    setup_for_requests(tmp, keep_database=False)
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    from dynasties.models import Character

    call_command("migrate", verbosity=0)
    campaign, gm = build(args.people)
    settings.ROOT_URLCONF = bare_urlconf(settings.ROOT_URLCONF)
    print(f"database: {Character.objects.count()} characters; {args.requests} requests to each list")

    client = Client()
    client.force_login(gm)
    real = f"/api/v1/campaigns/{campaign.slug}/characters/?page_size=100&page=3"
    bare = "/bare/?page=3"
    rows_real = len(client.get(real).json()["results"])
    rows_bare = len(client.get(bare).json()["results"])
    timed(client, real, 10)  # warm up both
    timed(client, bare, 10)

    each = max(1, args.requests // ROUNDS)
    totals = {real: [0.0, 0.0], bare: [0.0, 0.0]}
    for _ in range(ROUNDS):  # alternating rounds: a busy machine slows both alike
        for address in (real, bare):
            wall, cpu = timed(client, address, each)
            totals[address][0] += wall
            totals[address][1] += cpu
    n = ROUNDS * each
    (real_wall, real_cpu), (bare_wall, bare_cpu) = totals[real], totals[bare]
    for label, wall, cpu in (
        (f"characters list ({rows_real} a page, family links):", real_wall, real_cpu),
        (f"DRF bare list   ({rows_bare} a page, ModelSerializer):", bare_wall, bare_cpu),
    ):
        print(f"{label:54} {n / wall:7.1f} requests/s ({1000 * cpu / n:.1f} ms CPU each)")
    ratio, steady = bare_wall / real_wall, bare_cpu / real_cpu
    verdict = "meets" if ratio >= TARGET else "misses"
    print(f"ratio {ratio:.2f} of the bare list's requests/s: {verdict} the target (at least {TARGET})")
    print(f"ratio by CPU time (steadier on a shared machine): {steady:.2f}")

    if args.profile:
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.enable()
        timed(client, real, 50)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
