"""The desk matrix (issue 30): every page of the GM's desk, as the GM of campaign A, aimed at campaign B.

Two campaigns on one site, each played a few turns with every optional rule on (and the records the
turns did not make planted), so every model registered on the desk has rows in both. A's GM is an
ordinary account: no staff flag, no model permission (the desk is every GM's, by the policy). Every
text of B carries the marker ``QXBRAVO`` (its name, its GM's name, its houses' and people's names,
its contracts, lines and postings).

For every model on the desk, as A's GM:
- its list (plain, filtered by B, searched for B's marker), and A's rows: the change, history and
  delete pages, and an add or a change POST with every key aimed at A ("ours"), answer him what they
  answer a superuser (the desk works for a GM who is not staff);
- B's row: its change, history, version and delete pages, a POST to change it (every field, every
  foreign key and ``campaign`` aimed at B) and to delete it, and "View on site";
- the add page with ``?<field>=<B's row>`` for every foreign key and ``?campaign=<B>``, and an add
  POST with every foreign key and ``campaign`` aimed at B; a change POST of A's row likewise;
- every autocomplete of its form, with no term and with B's marker;
- every list action, on B's rows.
Nothing of B may be shown (no marker in any answer; lists and autocompletes answer A's rows only; a
query string's B value is not kept in a form), read into a form, or written: B's rows (a fingerprint
of every row of every campaign model), its undo history and its live version are the same at the
end, and no row of either campaign links into the other (the database's own query over every link).
The matrix prints its counts (in the run's summary, ``tests/conftest.py``), once its last model is done."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.db.models import F, ForeignKey, Model, OneToOneField
from django.test import Client
from django.urls import NoReverseMatch, reverse

from campaign import registry
from campaign.integrity import campaign_lookup, same_campaign_links
from campaign.models import Campaign, Checkpoint, ChronicleEntry
from campaign.permissions import SYSTEM_ACTOR
from contracts.models import Breach, Claim, Contract, Dispute, Excommunication, Obligation, Parley, ParleyKind
from desk.admin.scope import campaign_path
from desk.choice import PLUMBING
from dynasties.models import Character, Dynasty, Posting, Title
from dynasties.services import campaign_create
from operations.simulation import play_turn
from rules import get_ruleset
from rules.dice import RandomSource
from tests.desk_forms import context_data

pytestmark = pytest.mark.xdist_group("desk_matrix")

MARK = "QXBRAVO"
SEARCH = "xbrav"  # finds B's texts; an answer echoing it (the search box) does not show the marker
TURNS = 4


@dataclass
class Desk:
    alpha: Campaign
    bravo: Campaign
    gm: Any  # A's GM: no staff flag, no permission
    root: Any  # a superuser, for what the desk answers when it may
    rows: dict[str, dict[type[Model], Model]]  # "a"/"b" -> model -> a row of that campaign
    counts: Counter[str] = field(default_factory=Counter)


def desk_models() -> list[tuple[type[Model], Any]]:
    """Every model on the desk that belongs to a campaign, but the site's plumbing (superusers only)."""
    return sorted(
        (
            (model, model_admin)
            for model, model_admin in admin.site._registry.items()
            if campaign_path(model) is not None and model._meta.label_lower not in PLUMBING
        ),
        key=lambda pair: pair[0]._meta.label,
    )


def _play(name: str, gm: Any, seed: int) -> Campaign:
    options = dict.fromkeys(get_ruleset("blood-royale").optional_rules, True)
    campaign = campaign_create(name=name, players=5, source=RandomSource(seed), by=gm, optional_rules=options)
    source = RandomSource(seed + 100)
    for _ in range(TURNS):
        play_turn(campaign, source, law=True, by=SYSTEM_ACTOR)
    return Campaign.objects.get(pk=campaign.pk)


def _plant(campaign: Campaign) -> None:
    """The records a few turns may not make: a dispute, a parley, an excommunication, a claim, an obligation."""
    breach = Breach.objects.filter(campaign=campaign).first()
    if breach is None:
        contract = Contract.objects.filter(campaign=campaign).order_by("pk").first()
        houses = list(contract.parties.all()[:2])
        breach = Breach.objects.create(
            campaign=campaign,
            contract=contract,
            year=campaign.current_year,
            by_dynasty=houses[0],
            raised_by=houses[-1],
            text="A breach",
        )
    if not Dispute.objects.filter(campaign=campaign).exists():
        Dispute.objects.create(campaign=campaign, breach=breach, year=campaign.current_year, outcome="Upheld")
    parley = Parley.objects.filter(campaign=campaign).first() or Parley.objects.create(
        campaign=campaign,
        year=campaign.current_year,
        step=campaign.step,
        kind=ParleyKind.values[0],
        subject="A parley",
        caller=breach.raised_by,
        carried=True,
        outcome="Carried",
    )
    if not Excommunication.objects.filter(campaign=campaign).exists():
        Excommunication.objects.create(
            campaign=campaign, dynasty=breach.by_dynasty, start_year=campaign.current_year, reason="A sin", parley=parley
        )
    if not Title.objects.filter(campaign=campaign).exists():  # rule G's governors come by the dice
        governor = Character.objects.filter(campaign=campaign, status="alive", sex="M").order_by("pk").first()
        Title.objects.create(
            campaign=campaign,
            name="Duke of Kent",
            province="Kent",
            crown="England",
            holder=governor,
            granted_year=campaign.current_year,
            granted_to=governor,
        )
    if not Claim.objects.filter(campaign=campaign).exists():
        Claim.objects.create(
            campaign=campaign,
            dynasty=breach.by_dynasty,
            area="An area",
            area_key="an area",
            since_year=campaign.current_year,
            how="recorded",
        )
    if not Obligation.objects.filter(campaign=campaign).exists():
        Obligation.objects.create(
            campaign=campaign,
            parley=Parley.objects.filter(campaign=campaign, obligation__isnull=True).first() or parley,
            obliged=breach.by_dynasty,
            owed_to=breach.raised_by,
            area="An area",
            action="return",
            due_year=campaign.current_year,
        )


def _mark(campaign: Campaign) -> None:
    """Every text of B carries the marker, so any of it shown anywhere is seen."""
    Campaign.objects.filter(pk=campaign.pk).update(name=f"{MARK} Campaign")
    for d in Dynasty.objects.filter(campaign=campaign):
        Dynasty.objects.filter(pk=d.pk).update(name=f"{MARK} {d.name}")
    for c in Character.objects.filter(campaign=campaign):
        Character.objects.filter(pk=c.pk).update(given_name=f"{MARK}{c.pk}", dynastic_name=MARK)
    ChronicleEntry.objects.filter(campaign=campaign).update(text=f"{MARK} line")
    Posting.objects.filter(campaign=campaign).update(reason=f"{MARK} money")
    Contract.objects.filter(campaign=campaign).update(title=f"{MARK} pact", text=f"{MARK} terms")


def _row(model: type[Model], campaign: Campaign) -> Model:
    path = campaign_path(model)
    row = model._base_manager.filter(**{path: campaign.pk}).order_by("pk").first()
    assert row is not None, f"{model._meta.label}: no row in {campaign.name} (plant one in tests/test_secrecy_desk.py)"
    return row  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def desk(django_db_setup: Any, django_db_blocker: Any) -> Iterator[Desk]:
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            User = get_user_model()
            gm = User.objects.create_user("alpha-gm", password="alpha-password-1")
            other = User.objects.create_user(f"{MARK.lower()}-gm", password="bravo-password-1")
            root = User.objects.create_superuser("desk-root", password="root-password-1")
            alpha = _play("Alpha Desk", gm, 21)
            bravo = _play("Bravo Desk", other, 22)
            for campaign, by in ((alpha, gm), (bravo, other)):
                _plant(campaign)
                client = Client()
                client.force_login(by)  # a desk save: the campaign's undo history has a desk change set
                row = Character.objects.filter(campaign=campaign).order_by("pk").first()
                client.post(
                    reverse("admin:dynasties_character_change", args=[row.pk]), _form_data(client, row) | {"given_name": "Edmund"}
                )
            _mark(bravo)
            rows = {
                key: {m: _row(m, c) for m, _ in desk_models()}
                for key, c in (("a", alpha), ("b", Campaign.objects.get(pk=bravo.pk)))
            }
            yield Desk(alpha, Campaign.objects.get(pk=bravo.pk), gm, root, rows)
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


# --- reading and writing forms ----------------------------------------------------------------------


def _url(model: type[Model], view: str, *args: Any) -> str | None:
    try:
        return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)
    except NoReverseMatch:
        return None


def _form_data(client: Client, row: Model) -> dict[str, Any]:
    return context_data(client.get(_url(type(row), "change", row.pk)))


def _aimed_at(model: type[Model], desk: Desk, side: str = "b") -> dict[str, Any]:
    """Every foreign key of the model (and its campaign) set to a row of B (``side`` "a": of A)."""
    campaign = desk.bravo if side == "b" else desk.alpha
    data: dict[str, Any] = {"campaign": campaign.pk}
    for f in model._meta.concrete_fields:
        if isinstance(f, ForeignKey | OneToOneField) and f.name != "campaign":
            target = f.related_model
            if target in desk.rows[side]:
                data[f.name] = desk.rows[side][target].pk
            elif target is Campaign:
                data[f.name] = campaign.pk
            elif campaign_lookup(target) not in (None, "pk"):
                row = target._base_manager.filter(**{campaign_lookup(target): campaign.pk}).order_by("pk").first()
                if row is not None:
                    data[f.name] = row.pk
    for f in model._meta.many_to_many:
        if f.related_model in desk.rows[side]:
            data[f.name] = [desk.rows[side][f.related_model].pk]
    return data


def _answered(client: Client, url: str, data: dict[str, Any]) -> int:
    """The status of a POST whose writes are then rolled back (the GM and a superuser send the same)."""
    with transaction.atomic():
        status = client.post(url, data).status_code
        transaction.set_rollback(True)
    return status


# --- what B is, and what must stay as it is ----------------------------------------------------------


def fingerprint(campaign: Campaign) -> dict[str, str]:
    """A hash of every row of every campaign model of ``campaign``, model by model."""
    out = {}
    for entry in registry.entries():
        if not entry.campaign_path:
            continue
        rows = entry.model._base_manager.filter(**{entry.campaign_path: campaign.pk}).order_by("pk").values_list()
        out[entry.label] = hashlib.sha256(json.dumps(list(rows), default=str).encode()).hexdigest()
    state = Campaign.objects.filter(pk=campaign.pk).values_list().get()
    out["campaign"] = hashlib.sha256(json.dumps(list(state), default=str).encode()).hexdigest()
    out["checkpoints"] = str(list(Checkpoint.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "undone_in")))
    return out


def cross_links() -> list[str]:
    """Every row of any campaign that links into another one, found by the database."""
    found = []
    with connection.cursor() as cursor:
        for link in same_campaign_links():
            cursor.execute(
                f'SELECT t."{link.column}" FROM "{link.table}" t JOIN "{link.target}" o ON o.id = t."{link.column}" '  # noqa: S608 (names from the models)
                "WHERE o.campaign_id <> t.campaign_id"
            )  # the link's value, not the row's id: a seat's key is its membership
            found += [f"{link.table}.{link.column} -> #{pk}" for (pk,) in cursor.fetchall()]
    parties = Contract.parties.through.objects.exclude(dynasty__campaign_id=F("contract__campaign_id"))
    found += [f"contract parties #{pk}" for pk in parties.values_list("pk", flat=True)]
    return found


# --- the requests -------------------------------------------------------------------------------------


def _text(response: Any) -> str:
    content = getattr(response, "content", b"")
    return content.decode(errors="replace") if isinstance(content, bytes) else ""


class Asker:
    """A's GM's client and a superuser's, counting and checking every answer for B's marker."""

    def __init__(self, desk: Desk, model: type[Model]) -> None:
        self.desk, self.model = desk, model
        self.gm, self.root = Client(), Client()
        self.gm.force_login(desk.gm)
        self.root.force_login(desk.root)
        self.gm.get(reverse("admin:desk_choose", args=[desk.alpha.pk]))  # the desk works on A
        self.root.get(reverse("admin:desk_choose", args=[desk.alpha.pk]))

    def _check(self, kind: str, url: str, response: Any) -> Any:
        self.desk.counts[kind] += 1
        assert response.status_code < 500, f"{url}: {response.status_code}"
        assert MARK not in _text(response), f"{self.model._meta.label}: {kind} {url} shows something of B"
        assert MARK.lower() not in _text(response).lower(), f"{self.model._meta.label}: {kind} {url} shows something of B"
        return response

    def get(self, kind: str, url: str, **extra: Any) -> Any:
        return self._check(kind, url, self.gm.get(url, **extra))

    def post(self, kind: str, url: str, data: dict[str, Any]) -> Any:
        return self._check(kind, url, self.gm.post(url, data))

    def same_as_root(self, kind: str, url: str | None) -> None:
        """A's own row: the GM who is not staff gets what a superuser gets."""
        if url is None:
            return
        mine, theirs = self.get(kind, url), self.root.get(url)
        assert mine.status_code == theirs.status_code, f"{url}: the GM gets {mine.status_code}, a superuser {theirs.status_code}"


def _b_ids(model: type[Model], desk: Desk) -> set[Any]:
    path = campaign_lookup(model)
    if path in (None, "pk"):
        return {desk.bravo.pk} if model is Campaign else set()
    return set(model._base_manager.filter(**{path: desk.bravo.pk}).values_list("pk", flat=True))


@pytest.fixture(scope="module")
def before(desk: Desk, django_db_blocker: Any) -> dict[str, str]:
    with django_db_blocker.unblock():
        return fingerprint(desk.bravo)


MODELS = [pytest.param(m, id=m._meta.label) for m, _ in desk_models()]


@pytest.mark.django_db
@pytest.mark.parametrize("model", MODELS)
def test_the_desk_shows_reads_and_writes_nothing_of_another_campaign(
    desk: Desk, before: dict[str, str], model: type[Model], record_property: Any
) -> None:
    model_admin = admin.site._registry[model]
    ask = Asker(desk, model)
    a, b = desk.rows["a"][model], desk.rows["b"][model]
    version = Campaign.objects.get(pk=desk.bravo.pk).live_version

    # the list: A's rows only, however asked
    changelist = _url(model, "changelist")
    for query in ("", f"?campaign__id__exact={desk.bravo.pk}", f"?q={SEARCH}", f"?campaign={desk.bravo.pk}"):
        response = ask.get("list", changelist + query)
        ok = response.status_code == 200 or response["Location"].endswith("?e=1")  # ?e=1: a filter the list has not
        assert ok, f"{changelist}{query}: {response.status_code}"
        if response.context is not None and "cl" in response.context:
            shown = {getattr(r, "pk", None) for r in response.context["cl"].result_list}
            assert not shown & _b_ids(model, desk), f"{changelist}{query} lists rows of B"

    # A's row: what a superuser gets
    for view in ("change", "history", "delete"):
        ask.same_as_root(view, _url(model, view, a.pk))

    # B's row: nothing of it, by any page
    for view in ("change", "history", "delete"):
        url = _url(model, view, b.pk)
        if url is not None:
            assert ask.get(view, url).status_code in (302, 403, 404), f"{url} opens B's row"
    history = getattr(model, "history", None)
    if history is not None and model is not Campaign:
        version_row = history.model.objects.filter(id=b.pk).order_by("history_id").first()
        if version_row is not None:
            ask.get(
                "version",
                reverse(
                    f"admin:{model._meta.app_label}_{model._meta.model_name}_simple_history", args=[b.pk, version_row.history_id]
                ),
            )
    ct = ContentType.objects.get_for_model(model)
    for key in (b.pk, "not-a-key", "00000000-0000-0000-0000-000000000000"):
        assert ask.get("view on site", f"/admin/r/{ct.pk}/{key}/").status_code == 404
    aimed = _aimed_at(model, desk)
    if (change := _url(model, "change", b.pk)) is not None:
        ask.post("post", change, _form_data(ask.root, b) | aimed | {"given_name": "Taken", "name": "Taken"})
    if (delete := _url(model, "delete", b.pk)) is not None:
        ask.post("post", delete, {"post": "yes"})

    # an add page: a query string's B values are not kept, and a POST aimed at B writes nothing of B's
    add = _url(model, "add")
    if add is not None and model is not Campaign:
        query = "&".join(f"{name}={value[0] if isinstance(value, list) else value}" for name, value in aimed.items())
        page = ask.get("add", f"{add}?{query}")
        if page.status_code == 200 and page.context is not None and "adminform" in page.context:
            form = page.context["adminform"].form
            assert "campaign" not in form.fields, f"{add}: the campaign is a choice"
            for name in set(aimed) & set(form.fields):
                assert name not in form.initial, f"{add}?{name}=<B's> keeps B's value"
            data = context_data(page) | aimed
            ask.post("post", add, data | {"desk_campaign": desk.alpha.pk})
            ask.post("post", add, data | {"desk_campaign": desk.bravo.pk})

    # A's row changed with every key aimed at B
    if (change := _url(model, "change", a.pk)) is not None:
        ask.post("post", change, _form_data(ask.root, a) | aimed)
        a.refresh_from_db()
        assert (
            campaign_lookup(model) in (None, "pk")
            or model._base_manager.filter(pk=a.pk, **{campaign_lookup(model): desk.alpha.pk}).exists()
        ), f"{model._meta.label}: A's row moved"

    # the same requests aimed at A: the GM who is not staff gets what a superuser gets
    ours = _aimed_at(model, desk, "a")
    if add is not None and model is not Campaign:
        page = ask.get("add", add)
        if page.status_code == 200 and page.context is not None and "adminform" in page.context:
            data = context_data(page) | ours | {"desk_campaign": desk.alpha.pk}
            desk.counts["ours"] += 1
            assert _answered(ask.gm, add, data) == _answered(ask.root, add, data), f"{add}: the GM is not answered as a superuser"
    if (change := _url(model, "change", a.pk)) is not None:
        data = _form_data(ask.root, a) | ours
        desk.counts["ours"] += 1
        assert _answered(ask.gm, change, data) == _answered(ask.root, change, data), (
            f"{change}: the GM is not answered as a superuser"
        )

    # the autocomplete of every field of its form: A's rows only
    for name in model_admin.get_autocomplete_fields(ask.gm):
        target = model._meta.get_field(name).related_model
        for term in ("", SEARCH, "a"):
            response = ask.get(
                "autocomplete",
                reverse("admin:autocomplete"),
                data={"app_label": model._meta.app_label, "model_name": model._meta.model_name, "field_name": name, "term": term},
            )
            if response.status_code == 200:
                ids = {str(r["id"]) for r in response.json()["results"]}
                assert not ids & {str(pk) for pk in _b_ids(target, desk)}, (
                    f"the autocomplete of {model.__name__}.{name} offers B's rows"
                )

    # every list action, on B's rows
    for action in model_admin.get_actions(_request_of(ask.root, changelist)):
        ask.post("action", changelist, {"action": action, ACTION_CHECKBOX_NAME: [str(b.pk)], "index": "0"})

    assert fingerprint(desk.bravo) == before, f"{model._meta.label}: something of B was written"
    assert Campaign.objects.get(pk=desk.bravo.pk).live_version == version, f"{model._meta.label}: B's live version moved"
    assert cross_links() == [], f"{model._meta.label}: a row links into another campaign"
    desk.counts["models"] += 1
    if model is MODELS[-1].values[0]:  # the last model of this worker's run: its counts to the run's summary
        record_property("matrix", _counts_line(desk))


def _counts_line(desk: Desk) -> str:
    counts = {k: n for k, n in desk.counts.items() if k != "models"}
    return (
        f"desk matrix: {desk.counts['models']} of {len(desk_models())} models, {sum(counts.values())} requests as A's GM "
        "aimed at B (" + ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items())) + "); nothing of B shown, read or written"
    )


def _request_of(client: Client, url: str) -> Any:
    """A request of the superuser, for the actions his list would offer (every one the admin has)."""
    return client.get(url).wsgi_request
