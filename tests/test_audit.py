"""The audit trail (campaign/audit.py): every change to characters, marriages and contracts keeps
who, when and at which turn, through single saves, bulk writes, the admin and undo; the ledger's
postings carry who entered them; the pages and the admin show the trail."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from campaign import audit
from campaign.models import Campaign, Membership, Role, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import new_action_key, snapshot, step_action, undo_step
from contracts.models import Clause, Contract, ContractSignature
from contracts.services import contract_draft
from dynasties import services, treasury
from dynasties.models import Character, Dynasty, Marriage, PostingKind, Status
from operations.exchange import campaign_export
from operations.simulation import play_births
from rules.dice import RandomSource
from tests.factories import at_step, person, wed

pytestmark = pytest.mark.django_db

H = Character.history.model
HM = Marriage.history.model


def act(campaign: Campaign, label: str, fn, by):
    return step_action(campaign=campaign, key=new_action_key(), label=label, action=fn, by=by)


def house(campaign: Campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def page(name: str, campaign: Campaign, *args) -> str:
    return reverse(f"pages:{name}", args=[campaign.slug, *args])


# who and when, through every kind of write ------------------------------------------------------


def test_a_bulk_step_records_its_children_with_the_user_the_turn_and_the_action(campaign, gm):
    before = timezone.now()
    act(campaign, "Roll all births", lambda c: play_births(c, RandomSource(3), by=gm), gm)
    born = Character.objects.filter(campaign=campaign, birth_year=campaign.current_year)
    assert born.exists()
    created = H.objects.filter(id__in=born.values("pk"), history_type="+")
    assert created.count() == born.count()  # bulk_create sends no signal: audit.bulk_create wrote them
    for row in created:
        assert row.history_user == gm and row.history_date >= before
        assert (row.history_year, row.history_step, row.history_change_reason) == (
            campaign.current_year,
            "births",
            "Roll all births",
        )


def test_deaths_by_a_bulk_update_are_recorded_with_their_new_values(campaign, gm):
    king = Character.objects.get(campaign=campaign, pk=Marriage.objects.filter(campaign=campaign).first().husband_id)
    at_step(campaign, Step.SURVIVAL)
    act(campaign, "A death", lambda c: services.character_die(campaign=c, character_ids=[king.pk], cause="plague"), gm)
    row = H.objects.filter(id=king.pk).latest("history_date")
    assert (row.history_type, row.status, row.death_cause, row.death_year) == ("~", Status.DEAD, "plague", campaign.current_year)
    assert row.history_user == gm and row.history_step == "survival"
    ended = Marriage.objects.get(husband=king, ended_year=campaign.current_year)
    marriage_row = HM.objects.filter(id=ended.pk).latest("history_date")
    assert (marriage_row.end_cause, marriage_row.history_user) == ("death of the husband", gm)
    # the change is there to read: the diff against the record before
    delta = row.diff_against(row.prev_record)
    assert {"status", "death_year", "death_cause"} <= set(delta.changed_fields)


def test_weddings_record_the_marriage_and_whoever_changes_house(campaign, gm, alice):
    at_step(campaign, Step.MARRIAGES, 1320)
    groom = person(campaign, house(campaign, "England"), "Edmund", "M", 1300)
    bride = person(campaign, house(campaign, "France"), "Blanche", "F", 1301)
    match = services.Match(groom.pk, bride.pk)
    [m] = act(
        campaign,
        "A wedding",
        lambda c: services.marriage_arrange_many(campaign=c, matches=[match], wed=True, by=alice),
        alice,
    )
    rows = list(HM.objects.filter(id=m.pk).order_by("history_id"))
    assert [r.history_type for r in rows] == ["+", "~"] and rows[-1].wedding_year == 1320
    assert {r.history_user for r in rows} == {alice}
    moved = H.objects.filter(id=bride.pk, history_user=alice).latest("history_date")
    assert moved.controlled_by_id == house(campaign, "England").pk


def test_a_contract_its_clauses_and_its_signature_keep_who_and_when(campaign, alice, bob):
    parties = [house(campaign, "England").pk, house(campaign, "France").pk]
    pact = act(
        campaign,
        "Draft",
        lambda c: contract_draft(
            campaign=c, kind="agreement", title="The Pact", parties=parties, clauses=[{"kind": "non_aggression"}], by=alice
        ),
        alice,
    )
    assert Contract.history.filter(id=pact.pk, history_type="+").get().history_user == alice
    assert Clause.history.filter(contract_id=pact.pk).get().history_user == alice  # bulk-created
    from contracts.services import contract_sign_party

    act(campaign, "Sign", lambda c: contract_sign_party(campaign=c, contract=pact, dynasty=parties[1], by=bob), bob)
    signature = ContractSignature.history.get(contract_id=pact.pk)
    assert (signature.history_user, signature.dynasty_id, signature.history_type) == (bob, parties[1], "+")


def test_a_page_write_is_recorded_as_the_logged_in_user(client, campaign, alice):
    pact = contract_draft(
        campaign=campaign,
        kind="agreement",
        title="Dover",
        parties=[house(campaign, "England").pk, house(campaign, "France").pk],
        by=SYSTEM_ACTOR,
    )
    client.force_login(alice)
    response = client.post(
        page("contract_sign_party", campaign, pact.pk, house(campaign, "England").pk), {"action_key": new_action_key()}
    )
    assert response.status_code == 302
    assert ContractSignature.history.get(contract_id=pact.pk).history_user == alice


def test_a_service_called_outside_an_action_records_no_one(campaign):
    king = Marriage.objects.filter(campaign=campaign).first().husband
    at_step(campaign, Step.SURVIVAL)
    services.character_die(campaign=campaign, character_ids=[king.pk], cause="age")
    row = H.objects.filter(id=king.pk).latest("history_date")
    assert row.history_user is None and row.history_year is None


def test_an_admin_edit_is_recorded_as_the_admin_with_the_turn(client, campaign, django_user_model):
    admin = django_user_model.objects.create_superuser("root", password="root-password-1")
    client.force_login(admin)
    c = Character.objects.filter(campaign=campaign).first()
    form = {
        "campaign": campaign.pk,
        "given_name": "Renamed",
        "dynastic_name": c.dynastic_name,
        "sex": c.sex,
        "birth_year": c.birth_year,
        "birth_order": c.birth_order,
        "origin": c.origin,
        "father": c.father_id or "",
        "mother": c.mother_id or "",
        "birth_dynasty": c.birth_dynasty_id or "",
        "controlled_by": c.controlled_by_id or "",
        **{f"char_{key}": value for key, value in c.characteristics.items()},  # one field each (issue 20)
        "prince_piece": c.prince_piece,
        "prisoner_of": "",
        "effective_age_offset": 0,
        "legitimate": "on",
        "status": c.status,
        "death_year": "",
        "death_cause": "",
        "retired_year": "",
    }
    response = client.post(reverse("admin:dynasties_character_change", args=[c.pk]), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    row = H.objects.filter(id=c.pk).latest("history_date")
    assert (row.given_name, row.history_user, row.history_change_reason) == ("Renamed", admin, "Admin edit")
    assert (row.history_year, row.history_step) == (campaign.current_year, campaign.step)
    # the admin's History page lists it, with the field it changed
    history = client.get(reverse("admin:dynasties_character_history", args=[c.pk]))
    assert history.status_code == 200
    html = history.content.decode()
    assert "root" in html and "Admin edit" in html and "Renamed" in html
    # the trail is read-only: no revert from a record's page
    record = reverse("admin:dynasties_character_simple_history", args=[c.pk, row.history_id])
    assert client.get(record).status_code == 200
    assert client.post(record, form).status_code == 403


def test_the_admin_history_pages_run_a_fixed_number_of_queries(client, campaign, django_user_model, gm):
    admin = django_user_model.objects.create_superuser("root", password="root-password-1")
    client.force_login(admin)
    m = Marriage.objects.filter(campaign=campaign).first()
    c = m.husband

    def count(model, pk):
        address = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_history", args=[pk])
        with CaptureQueriesContext(connection) as queries:
            assert client.get(address).status_code == 200
        return len(queries)

    count(Character, c.pk)  # warms Django's content-type cache, which the first admin page fills
    few = (count(Character, c.pk), count(Marriage, m.pk))
    with audit.acting(gm, year=1300, step="births", label="churn"):
        for i in range(12):
            c.prince_piece = "" if i % 2 else "K"
            c.save()
            m.dowry = f"{i} ducats"
            m.save()
    assert (count(Character, c.pk), count(Marriage, m.pk)) == few


def test_postings_carry_who_entered_them_through_an_action(campaign, gm, alice):
    england = house(campaign, "England")
    made = act(
        campaign,
        "A gift",
        lambda c: treasury.post(c, payer=None, payee=england, amount=5, kind=PostingKind.OTHER, reason="gift"),
        alice,
    )
    assert made.entered_by == alice and made.created_at is not None
    unsaved = act(
        campaign,
        "Rules' payment",
        lambda c: treasury.unsaved(c, payer=None, payee=england, amount=3, kind=PostingKind.OTHER, reason="rule"),
        gm,
    )
    assert unsaved.entered_by == gm  # bulk-created postings too
    assert treasury.post(campaign, payer=None, payee=england, amount=1, kind=PostingKind.OTHER, reason="cmd").entered_by is None


# query counts --------------------------------------------------------------------------------------


def test_a_recorded_update_costs_one_query_whatever_the_number_of_rows(campaign, gm):
    ids = list(Character.objects.filter(campaign=campaign).values_list("pk", flat=True))

    def count(pks):
        with CaptureQueriesContext(connection) as queries, audit.acting(gm, year=1, step="births", label="x"):
            audit.update(Character.objects.filter(pk__in=pks), prince_piece="")
        return len(queries)

    assert count(ids[:1]) == count(ids) == 2  # the history copy and the update
    assert count([]) == 0
    assert H.objects.filter(id=ids[0], history_change_reason="x").count() == 2  # in both updates


# the pages --------------------------------------------------------------------------------------


def _births(campaign, gm):
    act(campaign, "Roll all births", lambda c: play_births(c, RandomSource(3), by=gm), gm)
    return Character.objects.filter(campaign=campaign, birth_year=campaign.current_year).first()


def test_the_character_page_shows_the_trail_names_to_the_gm_and_roles_to_the_others(client, campaign, gm, alice, bob):
    child = _births(campaign, gm)
    client.force_login(gm)
    entries = client.get(page("character", campaign, child.pk)).context["trail"].entries
    assert entries[0].who == "gm" and entries[0].action == "Roll all births" and entries[0].what == "created"
    assert entries[0].year == campaign.current_year and entries[0].step == "Births"
    client.force_login(bob)
    response = client.get(page("character", campaign, child.pk))
    entries = response.context["trail"].entries
    assert entries[0].who == "the GM" and entries[0].action == ""  # the label may name private matters
    assert "Changes to the record" in response.content.decode()
    # a player's own change is "you" to him and "the player of <house>" to the others
    at_step(campaign, Step.SURVIVAL)
    act(campaign, "Alice's", lambda c: services.character_die(campaign=c, character_ids=[child.pk], cause="fever"), alice)
    assert client.get(page("character", campaign, child.pk)).context["trail"].entries[0].who == (
        f"the player of {house(campaign, 'England').name}"
    )
    client.force_login(alice)
    first = client.get(page("character", campaign, child.pk)).context["trail"].entries[0]
    assert first.who == "you" and first.what == "changed"
    assert {ch.label for ch in first.changes} >= {"Status", "Death year", "Death cause"}


def test_an_observer_sees_the_trail_of_a_character(client, campaign, gm, outsider):
    Membership.objects.create(campaign=campaign, user=outsider, role=Role.OBSERVER)
    child = _births(campaign, gm)
    client.force_login(outsider)
    assert client.get(page("character", campaign, child.pk)).context["trail"].entries[0].who == "the GM"


def test_the_character_page_shows_marriage_changes_and_a_link_to_the_desk_for_the_gm(client, campaign, gm, alice):
    m = Marriage.objects.filter(campaign=campaign).first()
    with audit.acting(gm, year=campaign.current_year, step=campaign.step, label="terms"):
        m.dowry = "100 ducats"
        m.save()
    client.force_login(gm)
    trail = client.get(page("character", campaign, m.husband_id)).context["trail"]
    assert trail.entries[0].subject == f"Marriage to {m.wife.display_name}"
    assert trail.admin_url == reverse("admin:dynasties_character_history", args=[m.husband_id])  # staff or not: his desk
    alice.is_staff = True
    alice.save()
    client.force_login(alice)  # a player, staff or not, has no desk: no link
    assert client.get(page("character", campaign, m.husband_id)).context["trail"].admin_url == ""


def test_the_character_page_is_capped_and_runs_a_fixed_number_of_queries(client, campaign, gm, alice):
    c = Character.objects.filter(campaign=campaign).first()
    client.force_login(alice)

    def count():
        with CaptureQueriesContext(connection) as queries:
            response = client.get(page("character", campaign, c.pk))
        return len(queries), response.context["trail"]

    few, trail = count()
    assert not trail.more
    with audit.acting(gm, year=1300, step="births", label="churn"):
        for i in range(30):
            c.given_name = f"Name {i}"
            c.save()
    many, trail = count()
    assert many == few
    assert trail.more and len(trail.entries) == 20
    assert trail.entries[0].changes == [audit_change("Christian name", "Name 28", "Name 29")]


def audit_change(label, old, new):
    from pages.trail import Change

    return Change(label, old, new)


def test_the_contract_page_shows_its_trail_to_its_parties_only(client, campaign, gm, alice, bob):
    pact = act(
        campaign,
        "Draft 'Secret'",
        lambda c: contract_draft(
            campaign=c,
            kind="agreement",
            title="Secret",
            parties=[house(campaign, "England").pk, house(campaign, "Spain").pk],
            clauses=[{"kind": "non_aggression"}],
            by=gm,
        ),
        gm,
    )
    client.force_login(alice)
    address = page("contract", campaign, pact.pk)
    response = client.get(address)
    subjects = {e.subject for e in response.context["trail"].entries}
    assert subjects == {"", "Clause 1 (Non-aggression)"}
    client.post(page("contract_sign_party", campaign, pact.pk, house(campaign, "England").pk), {"action_key": new_action_key()})
    entries = client.get(address).context["trail"].entries
    assert entries[0].subject == f"Signature of {house(campaign, 'England').name}" and entries[0].who == "you"
    client.force_login(bob)  # France is no party: no page, no trail
    assert client.get(address).status_code == 404


def test_the_contract_page_runs_a_fixed_number_of_queries_whatever_its_history(client, campaign, alice):
    pact = contract_draft(
        campaign=campaign,
        kind="agreement",
        title="Dover",
        parties=[house(campaign, "England").pk, house(campaign, "France").pk],
        clauses=[{"kind": "non_aggression"}],
        by=SYSTEM_ACTOR,
    )
    client.force_login(alice)

    def count():
        with CaptureQueriesContext(connection) as queries:
            client.get(page("contract", campaign, pact.pk))
        return len(queries)

    few = count()
    with audit.acting(alice, year=1300, step="births", label="edits"):
        for i in range(25):
            pact.text = f"version {i}"
            pact.save()
    assert count() == few


# undo ------------------------------------------------------------------------------------------------


def test_undo_keeps_the_trail_and_marks_what_it_changed(campaign, gm):
    act(campaign, "Roll all births", lambda c: play_births(c, RandomSource(3), by=gm), gm)
    born = list(Character.objects.filter(campaign=campaign, birth_year=campaign.current_year).values_list("pk", flat=True))
    assert born
    kept = H.objects.count()
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert not Character.objects.filter(pk__in=born).exists()
    assert H.objects.filter(id__in=born, history_type="+").count() == len(born)  # the undone births stay
    removed = H.objects.filter(id__in=born, history_type="-")
    assert removed.count() == len(born) and H.objects.count() >= kept + len(born)
    for row in removed:
        assert row.history_user == gm and row.history_change_reason.startswith("Undo the step: back to the start of Births")
    # nothing else changed in the step, so the undo marks nothing else (no noise in the trail)
    assert not H.objects.filter(history_change_reason__startswith="Undo", history_type="~").exists()
    # each living record's latest historical row is the row as it now is
    for c in Character.objects.filter(campaign=campaign):
        latest = H.objects.filter(id=c.pk).latest("history_date", "history_id")
        assert (latest.status, latest.prince_piece, latest.controlled_by_id) == (c.status, c.prince_piece, c.controlled_by_id)


def test_the_trail_is_outside_the_undo_snapshot_and_the_exports(campaign, gm):
    act(campaign, "Roll all births", lambda c: play_births(c, RandomSource(3), by=gm), gm)
    labels = set(snapshot(campaign))
    assert not any("Historical" in label for label in labels)
    exported = json.dumps(campaign_export(Campaign.objects.get(pk=campaign.pk)), default=str)
    assert "history_date" not in exported and "history_user" not in exported


def test_an_undone_page_shows_the_undo_to_players(client, campaign, gm, bob):
    child = _births(campaign, gm)
    m = Marriage.objects.get(pk=Marriage.objects.filter(campaign=campaign).first().pk)
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    client.force_login(bob)
    response = client.get(page("character", campaign, m.husband_id))
    assert response.status_code == 200
    assert not Character.objects.filter(pk=child.pk).exists()
    # the undone child's record is gone from the pages but kept in the trail with the undo marked
    last = H.objects.filter(id=child.pk).latest("history_date", "history_id")
    assert last.history_type == "-" and last.history_change_reason.startswith("Undo the step")


def test_a_wedding_undone_shows_the_change_back(client, campaign, gm, bob):
    at_step(campaign, Step.MARRIAGES, 1320)
    groom = person(campaign, house(campaign, "England"), "Edmund", "M", 1300)
    bride = person(campaign, house(campaign, "France"), "Blanche", "F", 1301)
    wed(campaign, groom, bride, 1319)  # an older marriage to be kept as is
    suitor = person(campaign, house(campaign, "Spain"), "Pedro", "M", 1300)
    lady = person(campaign, house(campaign, "Italy"), "Bianca", "F", 1301)
    act(
        campaign,
        "Wed",
        lambda c: services.marriage_arrange_many(campaign=c, matches=[services.Match(suitor.pk, lady.pk)], wed=True, by=gm),
        gm,
    )
    assert Character.objects.get(pk=lady.pk).controlled_by_id == house(campaign, "Spain").pk
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    client.force_login(bob)
    first = client.get(page("character", campaign, lady.pk)).context["trail"].entries[0]
    assert first.action.startswith("Undo the step") and first.who == "the GM" and first.what == "changed"
    assert [(ch.label, ch.new) for ch in first.changes] == [("Controlled by", house(campaign, "Italy").name)]


def test_users_are_kept_as_ids_when_an_account_is_deleted(campaign, gm):
    extra = get_user_model().objects.create_user("temp", password="temp-password-1")
    c = Character.objects.filter(campaign=campaign).first()
    with audit.acting(extra, year=1, step="births", label="temp"):
        c.save()
    extra.delete()  # the trail keeps the row (its user is then unknown)
    assert H.objects.filter(id=c.pk, history_change_reason="temp").exists()


def test_an_imported_campaign_starts_its_trail_with_the_file(campaign, gm, alice, bob):
    from operations.exchange import campaign_import

    parties = [house(campaign, "England").pk, house(campaign, "France").pk]
    act(
        campaign,
        "Draft",
        lambda c: contract_draft(
            campaign=c, kind="agreement", title="The Pact", parties=parties, clauses=[{"kind": "non_aggression"}], by=alice
        ),
        alice,
    )
    from contracts.services import contract_sign_party

    pact = Contract.objects.get(campaign=campaign)
    act(campaign, "Sign", lambda c: contract_sign_party(campaign=c, contract=pact, dynasty=parties[1], by=bob), bob)
    document = campaign_export(campaign)
    copy = campaign_import(document, by=gm, slug="copy")
    for model, where in (
        (Character, {"campaign": copy}),
        (Marriage, {"campaign": copy}),
        (Contract, {"campaign": copy}),
        (Clause, {"contract__campaign": copy}),
        (ContractSignature, {"contract__campaign": copy}),
    ):
        objects = list(model.objects.filter(**where))
        assert objects, model
        history = model.history.model.objects.filter(id__in=[o.pk for o in objects])
        assert history.count() == len(objects), model  # one record each, no more
        for record in history:
            assert (record.history_type, record.history_user, record.history_change_reason) == ("+", gm, audit.IMPORT_REASON)
            assert record.history_year == copy.current_year
        # the record is the object as imported, parents included
        for obj in objects:
            record = history.get(id=obj.pk)
            for field in model.history.model.tracked_fields:
                assert getattr(record, field.attname) == getattr(obj, field.attname), (model, field.name)
    assert Character.objects.filter(campaign=copy, father__isnull=False).exists()


# the trail beside undo's change log (docs/architecture.md, "Two records of change") ---------------


def test_the_trail_and_undo_log_cover_what_architecture_says(campaign, gm):
    """Two records, each its own scope, written down once: the docs' table names the trail's models
    (the registry's, exactly); the triggers log every one of them too, and neither logs the trail's
    own tables; a step action's write is in both (the row before in the log, the row after with who
    in the trail), a write outside an action in the trail only."""
    from pathlib import Path

    from simple_history.utils import get_history_manager_for_model

    from campaign import changelog, registry
    from campaign.models import UndoChange

    doc = (Path(__file__).resolve().parent.parent / "docs" / "architecture.md").read_text()
    section = doc.split("## Two records of change", 1)[1].split("\n## ", 1)[0]
    models_row = next(line for line in section.splitlines() if line.startswith("| models |")).split("|")
    assert re.findall(r"`(\w+\.\w+)`", models_row[2]) == [e.label for e in registry.audited_models()]
    logged = changelog.tables()
    for e in registry.audited_models():
        assert e.model._meta.db_table in logged  # undo takes back what the trail records
        history = get_history_manager_for_model(e.model).model
        assert history._meta.db_table not in logged and registry.entry(history).exempt  # undo never rewrites the trail

    c = Character.objects.filter(campaign=campaign).order_by("pk").first()
    old = c.given_name
    act(campaign, "Rename", lambda _: audit.update(Character.objects.filter(pk=c.pk), given_name="Renamed", by=gm), gm)
    change = UndoChange.objects.get(table=Character._meta.db_table, row_id=c.pk)
    assert json.loads(change.old)["given_name"] == old  # the log: the row as it was
    latest = H.objects.filter(id=c.pk).latest("history_date", "history_id")
    assert (latest.given_name, latest.history_user, latest.history_change_reason) == ("Renamed", gm, "Rename")  # the trail

    logs = UndoChange.objects.count()
    audit.update(Character.objects.filter(pk=c.pk), given_name="Again", by=gm)  # outside an action (a command, an import)
    assert UndoChange.objects.count() == logs and H.objects.filter(id=c.pk, given_name="Again", history_user=gm).exists()
