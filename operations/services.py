"""Whole-campaign operations made of many services: the demo campaigns and a campaign made from the
pages with a prehistory played by the automatic player on the task queue (``campaign.jobs``)."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils.crypto import salted_hmac
from django_tasks import task

from campaign import building, registry
from campaign.jobs import job_create, job_progress, job_run, on_lost
from campaign.models import (
    ActionKey,
    Audience,
    Campaign,
    ChronicleEntry,
    DiceEntry,
    Job,
    JobKind,
    Membership,
    Role,
    Setup,
)
from campaign.permissions import SYSTEM_ACTOR, no_actor, require
from campaign.services import membership_add
from dynasties.invitations import OPEN, invitation_create, state, token_hash
from dynasties.models import Dynasty, DynastyKind, Invitation, house_of
from dynasties.services import campaign_create
from dynasties.services.eu_setup import EuCountry, eu_campaign_setup, eu_check, eu_dynasties, eu_ruleset, eu_start_year
from dynasties.services.play_registry import play_named
from dynasties.services.setup import default_dynasties
from operations.simulation import simulate
from rules import default_ruleset
from rules.dice import RandomSource
from rules.errors import NotFound, RuleError

DEMO_SLUG = "demo"
DEMO_NAME = "Demo Campaign"
DEMO_GM = "gm"
DEMO_PLAYERS = 5
DEMO_URL = settings.REGNAL_SITE_URL or "http://127.0.0.1:8000"  # `make lan` serves at the laptop's address


# The demo campaign ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DemoLogin:
    username: str
    password: str | None  # None when the password was not (re)set by this call
    role: str
    dynasty: str


@dataclass(frozen=True)
class DemoResult:
    campaign: Campaign
    created: bool
    logins: list[DemoLogin]
    url: str = DEMO_URL
    invitation: str = ""
    """A link seating a newcomer as an observer (the same one on each call while it waits)."""


def _new_password() -> str:
    return secrets.token_urlsafe(9)


def _demo_user(username: str, password: str) -> User:
    """The login of that name, created or reused, with a new password. The demo's GM is an ordinary
    account, as a GM who creates his campaign on the site is: being its GM gives him its desk."""
    users = get_user_model()
    user, _created = users.objects.get_or_create(defaults=None, **{users.USERNAME_FIELD: username})
    user.set_password(password)
    user.save()
    return user


@dataclass(frozen=True, kw_only=True)
class Demo:
    """A ruleset's demo campaign: its slug, its name and the prefix of its logins; ``countries``: the
    EU set-up's countries and how each first monarch is found (the monarch tables' demo; none: the
    ruleset's default houses for ``DEMO_PLAYERS``)."""

    slug: str
    name: str
    prefix: str
    countries: tuple[EuCountry, ...] = ()


DEMO_RULESETS: dict[str, Demo] = {}
"""Each ruleset's demo, registered by its module of ``operations/play/`` (``register_demo``)."""


def register_demo(ruleset: str, demo: Demo) -> None:
    """Called once per ruleset by its module of ``operations/play/`` (``OperationsConfig.ready()``)."""
    if ruleset in DEMO_RULESETS:
        raise RuleError(f"The ruleset {ruleset!r} has its demo registered twice.", code="duplicate_demo")
    DEMO_RULESETS[ruleset] = demo


@transaction.atomic
def demo_create(*, reset_passwords: bool = False, ruleset: str = default_ruleset().name) -> DemoResult:
    """The demo campaign of a ruleset (Blood Royale: slug ``demo``) with a GM login and one login per
    crown (BloodLine's logins start with ``bl-``).

    Created once: a second call finds it and lists its logins without passwords (the hashes cannot
    be read back), unless ``reset_passwords`` sets and returns new ones. Existing users of the same
    names are reused (their passwords are replaced): this is a local demo, not a production tool.
    The system seats the table (``SYSTEM_ACTOR``): the demo is the server's, not a person's.
    """
    if ruleset not in DEMO_RULESETS:
        raise RuleError(
            f"There is no demo for the ruleset {ruleset!r}; choose one of {', '.join(DEMO_RULESETS)}.", code="invalid"
        )
    demo = DEMO_RULESETS[ruleset]
    slug, name, prefix = demo.slug, demo.name, demo.prefix
    campaign = Campaign.objects.filter(slug=slug).first()
    if campaign is not None:
        logins = []
        members = (
            Membership.objects.filter(campaign=campaign)
            .select_related("user", "seat__house")
            .order_by("role", "seat__house", "user_id")
        )
        for m in members:
            password = None
            if reset_passwords:
                password = _new_password()
                m.user.set_password(password)
                m.user.save(update_fields=["password"])
            logins.append(DemoLogin(m.user.get_username(), password, m.get_role_display(), str(house_of(m) or "")))
        return DemoResult(campaign=campaign, created=False, logins=logins, invitation=_demo_invitation(campaign))

    gm_password = _new_password()
    gm = _demo_user(prefix + DEMO_GM, gm_password)
    if demo.countries:  # a monarch on every throne: the aid's own where it seats one at the start
        countries = list(demo.countries)
        campaign = campaign_create(name=name, slug=slug, ruleset=ruleset, dynasties=eu_dynasties(countries), by=gm)
        eu_campaign_setup(campaign=campaign, countries=countries, by=SYSTEM_ACTOR)  # the demo's thrones: the server's
    else:
        campaign = campaign_create(name=name, slug=slug, ruleset=ruleset, players=DEMO_PLAYERS, by=gm)
    logins = [DemoLogin(prefix + DEMO_GM, gm_password, Role.GM.label, "")]
    for dynasty in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("pk"):
        password = _new_password()
        user = _demo_user(prefix + dynasty.crown.lower(), password)
        membership_add(campaign=campaign, user=user, role=Role.PLAYER, dynasty=dynasty, by=SYSTEM_ACTOR)
        logins.append(DemoLogin(user.get_username(), password, Role.PLAYER.label, str(dynasty)))
    return DemoResult(campaign=campaign, created=True, logins=logins, invitation=_demo_invitation(campaign))


def _demo_secret(campaign: Campaign, n: int) -> str:
    """The secret of the demo's ``n``-th observer link: derived (HMAC with the site's secret key) from
    the campaign, ``n`` and its GM's password hash, a secret of the database that anyone reading the
    code cannot guess, so the demo can show a waiting link again without storing it."""
    gm = Membership.objects.filter(campaign=campaign, role=Role.GM).select_related("user").first()
    held = gm.user.password if gm is not None else ""
    return salted_hmac("regnal.demo.invitation", f"{campaign.pk}:{n}:{held}", algorithm="sha256").hexdigest()


def _demo_invitation(campaign: Campaign) -> str:
    """An observer's invitation link to the demo (the system makes it, as the GM would): the same
    link on every run (``make run``) while it waits, a new one once it is used, revoked or expired."""
    made = Invitation.objects.filter(campaign=campaign, role=Role.OBSERVER, created_by=None)
    n = made.count()
    last = made.order_by("-created_at", "-pk").first()
    if last is not None and state(last) == OPEN:
        secret = _demo_secret(campaign, n - 1)
        if last.token_hash == token_hash(secret):
            return DEMO_URL + reverse("join", args=[secret])
    _invitation, token = invitation_create(
        campaign=campaign, role=Role.OBSERVER, secret=_demo_secret(campaign, n), by=SYSTEM_ACTOR
    )
    return DEMO_URL + reverse("join", args=[token])


# A campaign made from the pages ---------------------------------------------------------------

CREATED_LABEL = "campaign created"
MAX_PREHISTORY_TURNS = 30


class CampaignAlreadyCreated(RuleError):
    """The same creation form was sent twice: the first submit made ``campaign``."""

    code = "already_done"
    status = 409

    def __init__(self, campaign: Campaign) -> None:
        super().__init__(f"{campaign.name} was already created by that form: nothing was done again.")
        self.campaign = campaign


@transaction.atomic
def campaign_start(
    *,
    name: str,
    gm: User,
    ruleset: str = default_ruleset().name,
    players: int = 5,
    start_year: int | None = None,
    optional_rules: dict[str, Any] | None = None,
    seats: dict[str, User] | None = None,
    observers: Iterable[User] = (),
    prehistory_turns: int = 0,
    seed: int | None = None,
    key: str | None = None,
    dice_entry: str = DiceEntry.FACES,
    auto_pass_certain: bool = False,
    slug: str | None = None,
    eu_countries: Sequence[EuCountry] | None = None,
    eu_first_turn: int = 1,
    countries: Sequence[str] | None = None,
    end_year: int | None = None,
    money_target: int | None = None,
) -> Campaign:
    """A campaign as the creation page makes it, all or nothing: ``campaign_create`` with ``gm``
    as its game master, a player for each crown in ``seats`` (crown name -> user), the observers,
    then - with ``prehistory_turns`` - that many turns played by the automatic player
    (``operations.simulation.simulate``) with the dice seeded by ``seed`` (a random seed when None;
    the chronicle records it). The prehistory is a task (``prehistory_play``) whose job
    (``prehistory_job``) counts the turns: the immediate backend plays it before this returns, a
    worker later. Until it has finished the campaign is being built, not open for play
    (``campaign.building``); if it fails, or its worker is found lost, the campaign stays, marked,
    and the job says why: its GM retries (:func:`campaign_setup_retry`) or deletes it
    (:func:`campaign_setup_delete`). ``key`` is the form's one-time key: a second submit of the same
    form raises :class:`CampaignAlreadyCreated` naming the first campaign.

    An ``eu-monarchs`` campaign given ``eu_countries`` has those countries' houses (not ``players``),
    starts at EU turn ``eu_first_turn`` (its start year that turn's unless given) and has a first
    monarch on every throne (``dynasties.services.eu_setup``), in the same transaction. A Blood
    Royale campaign's ``countries`` are those the table chose (None: the rulebook's default for
    ``players``, four without England: ``default_dynasties``). ``end_year`` and ``money_target`` are
    how the game ends (``dynasties.services.ending``; a prehistory stops at the end)."""
    if key:
        # one creation at a time per user, so a double click waits for the first and finds its key
        get_user_model().objects.select_for_update().filter(pk=gm.pk).exists()
        done = ActionKey.objects.filter(key=key[:64], label=CREATED_LABEL, by=gm).select_related("campaign").first()
        if done is not None:
            raise CampaignAlreadyCreated(done.campaign)
    if not 0 <= prehistory_turns <= MAX_PREHISTORY_TURNS:
        raise RuleError(
            f"A prehistory is 1 to {MAX_PREHISTORY_TURNS} turns; {prehistory_turns} were asked for.",
            code="invalid",
            fields={"turns": "range"},
        )
    if prehistory_turns and seed is None:
        seed = secrets.randbelow(1_000_000)
    source = RandomSource(seed) if prehistory_turns else None
    houses_wanted = default_dynasties(players, ruleset, countries) if countries else None
    if eu_countries is not None:
        if play_named(ruleset).monarchs is None:  # the ruleset rolls no monarchs
            raise RuleError(f"Countries and first monarchs are chosen for an {eu_ruleset()} campaign only.", code="invalid")
        eu_check(eu_countries, first_turn=eu_first_turn)  # everything refused before anything is written
        houses_wanted = eu_dynasties(eu_countries)
        if start_year is None:
            start_year = eu_start_year(eu_first_turn)
    campaign = campaign_create(
        name=name,
        ruleset=ruleset,
        players=players,
        dynasties=houses_wanted,
        start_year=start_year,
        optional_rules=optional_rules,
        source=source,
        dice_entry=dice_entry,
        auto_pass_certain=auto_pass_certain,
        slug=slug,
        end_year=end_year,
        money_target=money_target,
        by=gm,
    )
    houses = {d.crown: d for d in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER)}
    for crown, user in (seats or {}).items():
        if crown not in houses:
            raise RuleError(
                f"{campaign.name} has no player dynasty for {crown}: its crowns are {', '.join(houses)}.",
                code="invalid",
                fields={f"player_{crown}": "no_such_crown"},
            )
        membership_add(campaign=campaign, user=user, role=Role.PLAYER, dynasty=houses[crown], by=gm)
    for user in observers:
        membership_add(campaign=campaign, user=user, role=Role.OBSERVER, by=gm)
    if eu_countries is not None:
        eu_campaign_setup(campaign=campaign, countries=eu_countries, first_turn=eu_first_turn, source=source, by=gm)
    if key:
        ActionKey.objects.create(campaign=campaign, key=key[:64], label=CREATED_LABEL, by=gm)
    if source is not None:
        building.mark(campaign.pk, Setup.BUILDING, was=Setup.READY)  # not open for play until its prehistory is played
        job = job_create(
            kind=JobKind.PREHISTORY,
            campaign=campaign,
            by=gm,
            total=prehistory_turns,
            params={
                "name": campaign.name,
                "seed": seed,
                "dice": _dice_state(source),
                "players": players,
                **({"countries": list(countries)} if countries else {}),
                **_eu_params(eu_countries, eu_first_turn),  # a retry sets the same countries up again
            },
        )
        # queued with the campaign (a worker sees both once they are committed); the immediate
        # backend plays it here and now
        prehistory_play.enqueue(str(job.pk))
        campaign = Campaign.objects.filter(pk=campaign.pk).first() or campaign  # as the prehistory left it
    return campaign


def _eu_params(countries: Sequence[EuCountry] | None, first_turn: int) -> dict[str, Any]:
    if countries is None:
        return {}
    return {"eu": {"first_turn": first_turn, "countries": [{**asdict(c), "settings": dict(c.settings)} for c in countries]}}


def _eu_from_params(params: dict[str, Any]) -> dict[str, Any]:
    saved = params.get("eu")
    if not saved:
        return {}
    return {"eu_countries": [EuCountry(**c) for c in saved["countries"]], "eu_first_turn": saved["first_turn"]}


# A campaign's prehistory, on the task queue -----------------------------------------------------


def _dice_state(source: RandomSource) -> list[Any]:
    """The seeded dice's state after the set-up rolls, so the prehistory goes on from there in any
    process: the same seed plays the same prehistory."""
    version, internal, gauss = source._rng.getstate()
    return [version, list(internal), gauss]


def _dice(state: list[Any]) -> RandomSource:
    source = RandomSource()
    source._rng.setstate((state[0], tuple(state[1]), state[2]))
    return source


def prehistory_job(campaign: Campaign | int) -> Job | None:
    """The newest prehistory job of a campaign (kept after the campaign is deleted), or None."""
    return building.setup_job(campaign)


def _discard(campaign_id: int) -> None:
    """Delete the campaign and every row of it (its GM's choice: :func:`campaign_setup_delete`)."""
    with transaction.atomic():
        for entry in reversed(registry.scoped_models()):
            rows = entry.model._default_manager.filter(**{entry.campaign_path: campaign_id})
            rows._raw_delete(rows.db)
        Campaign.objects.filter(pk=campaign_id).delete()


def _play_prehistory(job: Job) -> None:
    """The automatic player plays for the GM who started the job (``Job.by``: the campaign's
    creator); a job whose user is gone acts for no one and fails (``NoActor``)."""
    assert job.campaign_id is not None  # a prehistory is made for its campaign (job_create)
    campaign = Campaign.objects.get(pk=job.campaign_id)
    source = _dice(job.params["dice"])
    try:
        with building.building(campaign.pk):  # its own writes, while no one else's are taken
            for turn in range(job.total):
                if job.by is None:  # its user is gone: no one acts
                    raise no_actor(job.by)
                campaign = simulate(campaign, turns=1, source=source, by=job.by)  # each turn commits: the progress shows
                job_progress(job, turn + 1)
            ChronicleEntry.objects.create(
                campaign=campaign,
                year=campaign.start_year,
                step="setup",
                kind="setup",
                text=f"A prehistory of {job.total} turns was generated ({campaign.start_year}-"
                f"{campaign.current_year}, dice seed {job.params['seed']}).",
                data={"prehistory_turns": job.total, "seed": job.params["seed"]},
                audience=Audience.PUBLIC,
            )
            building.mark(campaign.pk, Setup.READY)  # open for play
    except Exception:
        building.mark(campaign.pk, Setup.FAILED)  # kept, marked, for its GM to retry or delete
        raise


@on_lost(JobKind.PREHISTORY)
def _lost_prehistory(job: Job) -> None:
    """A prehistory whose worker died leaves its part-played campaign marked, never deleted: its GM
    retries or deletes it (a campaign the job had finished stays open)."""
    if job.campaign_id is not None:
        building.mark(job.campaign_id, Setup.FAILED)


def _failed_setup(campaign: Campaign | int, by: User) -> Campaign:
    """The campaign under its row lock, for its GM, when its set-up failed (a lost job found now)."""
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    found = Campaign.objects.select_for_update().filter(pk=pk).first()
    if found is None:
        raise NotFound("There is no such campaign.")
    require(by, found, "gm")
    status = building.setup_status(found)
    if status.building:
        raise RuleError(
            f"{found.name} is still being built: its prehistory is at turn {status.job.done if status.job else 0} of "
            f"{status.job.total if status.job else 0}. Wait for it to finish, or to be found lost.",
            code="not_failed",
        )
    if status.ready:
        raise RuleError(f"{found.name} was set up: there is nothing to retry or delete here.", code="not_failed")
    return found


@transaction.atomic
def campaign_setup_retry(*, campaign: Campaign | int, by: User) -> Campaign:
    """Set up again a campaign whose set-up failed (its GM's): the half-built campaign is deleted and
    made anew, with the same name, address, ruleset, options, members and seats, and the prehistory
    played again from the start with the same dice seed (the same prehistory, if it now finishes).
    Returns the new campaign (being built on a worker, or ready with the immediate backend)."""
    found = _failed_setup(campaign, by)
    job = building.setup_job(found)
    if job is None:
        raise RuleError(f"{found.name} has no set-up to play again: delete it and create it anew.", code="no_setup")
    members = list(Membership.objects.filter(campaign=found).select_related("user", "seat__house").order_by("pk"))
    gm = next((m.user for m in members if m.role == Role.GM), by)
    houses = {m.pk: house_of(m) for m in members}
    seats = {h.crown: m.user for m in members if m.role == Role.PLAYER and (h := houses[m.pk]) is not None and h.crown}
    observers = [m.user for m in members if m.role == Role.OBSERVER]
    players = job.params.get("players") or Dynasty.objects.filter(campaign=found, kind=DynastyKind.PLAYER).count()
    name, slug, ruleset, start_year = found.name, found.slug, found.ruleset, found.start_year
    optional_rules = dict(found.optional_rules or {})
    dice_entry, auto_pass_certain = found.dice_entry, found.auto_pass_certain
    _discard(found.pk)
    return campaign_start(
        name=name,
        slug=slug,
        ruleset=ruleset,
        start_year=start_year,
        optional_rules=optional_rules,
        dice_entry=dice_entry,
        auto_pass_certain=auto_pass_certain,
        gm=gm,
        players=players,
        seats=seats,
        observers=observers,
        prehistory_turns=job.total,
        seed=job.params.get("seed"),
        countries=job.params.get("countries"),
        **_eu_from_params(job.params),
    )


@transaction.atomic
def campaign_setup_delete(*, campaign: Campaign | int, by: User) -> str:
    """Delete a campaign whose set-up failed, and everything written into it (its GM's); its name."""
    found = _failed_setup(campaign, by)
    _discard(found.pk)
    return found.name


@task()
def prehistory_play(job_id: str) -> None:
    """Play a new campaign's prehistory turn by turn, the job counting the turns (the task)."""
    job_run(job_id, _play_prehistory)
