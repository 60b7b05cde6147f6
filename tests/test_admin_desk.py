"""The admin's shape for a GM (issue 20): scoped to a campaign he chose (kept in the session, named in
the header, switched from the index), his campaigns only, newest first, searchable, and the site's
plumbing out of his way (superusers only, in a section of its own)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from campaign.models import ChronicleEntry, Membership, Role, Roll, RuleTable
from desk.choice import CHOSEN, PLUMBING
from dynasties import treasury
from dynasties.models import Character, Posting, PostingKind
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.desk_forms import context_data
from tests.factories import member_house_id, seat_member

GAME_APPS = ["campaign", "dynasties", "contracts"]


def staff(django_user_model: Any, username: str, apps: list[str] = GAME_APPS) -> Any:
    """A staff user holding every permission of ``apps`` (the admin's model permissions)."""
    user = django_user_model.objects.create_user(username, password=f"{username}-password-1", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label__in=apps))
    return user


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def names(response: Any) -> list[str]:
    return [c.display_name for c in response.context["cl"].result_list]


@pytest.fixture
def desk(campaign, gm, django_user_model):
    """Campaign A (the test campaign, run by ``gm`` made staff) and campaign B of another staff GM."""
    gm.is_staff = True
    gm.save()
    gm.user_permissions.set(Permission.objects.filter(content_type__app_label__in=GAME_APPS))
    other_gm = staff(django_user_model, "other")
    other = campaign_create(name="Other Campaign", players=3, source=RandomSource(3), by=other_gm)
    return {"a": campaign, "b": other, "gm": gm, "other_gm": other_gm}


CHARACTERS = reverse("admin:dynasties_character_changelist")


# Only his campaigns ------------------------------------------------------------------------------


def test_a_gm_lists_only_his_campaigns_rows(desk):
    response = logged_in(desk["gm"]).get(CHARACTERS)
    campaigns = {c.campaign_id for c in response.context["cl"].result_list}
    assert campaigns == {desk["a"].pk}
    assert response.context["cl"].result_count == Character.objects.filter(campaign=desk["a"]).count()


def test_a_gm_cannot_open_or_change_another_campaigns_row_by_its_url(desk):
    theirs = Character.objects.filter(campaign=desk["b"]).order_by("pk").first()
    client = logged_in(desk["gm"])
    change = reverse("admin:dynasties_character_change", args=[theirs.pk])
    assert client.get(change).status_code == 302  # "does not exist": back to the index
    client.post(change, {"given_name": "Renamed", "campaign": desk["a"].pk})
    theirs.refresh_from_db()
    assert theirs.given_name != "Renamed"
    assert client.get(reverse("admin:dynasties_character_history", args=[theirs.pk])).status_code in (302, 403, 404)


def test_a_gm_cannot_run_a_list_action_on_another_campaigns_rows(desk):
    table = RuleTable.objects.filter(campaign=desk["b"]).order_by("pk").first()
    RuleTable.objects.filter(pk=table.pk).update(data={"edited": "by B's GM"})
    logged_in(desk["gm"]).post(
        reverse("admin:campaign_ruletable_changelist"),
        {"action": "restore_defaults", admin.helpers.ACTION_CHECKBOX_NAME: [table.pk]},
    )
    table.refresh_from_db()
    assert table.data == {"edited": "by B's GM"}


def test_a_gm_cannot_choose_a_campaign_he_does_not_run(desk):
    client = logged_in(desk["gm"])
    response = client.get(reverse("admin:desk_choose", args=[desk["b"].pk]), follow=True)
    assert CHOSEN not in client.session
    assert "You are not the game master of that campaign" in response.content.decode()
    assert {c.campaign_id for c in client.get(CHARACTERS).context["cl"].result_list} == {desk["a"].pk}


# One campaign at a time --------------------------------------------------------------------------


def test_the_index_offers_the_gms_campaigns_and_a_superuser_all(desk, admin_client):
    body = logged_in(desk["gm"]).get(reverse("admin:index")).content.decode()
    assert reverse("admin:desk_choose", args=[desk["a"].pk]) in body
    assert reverse("admin:desk_choose", args=[desk["b"].pk]) not in body and "Other Campaign" not in body
    body = admin_client.get(reverse("admin:index")).content.decode()
    assert all(reverse("admin:desk_choose", args=[desk[c].pk]) in body for c in "ab")


def test_a_chosen_campaign_is_the_only_one_listed_and_named_in_the_header(desk, admin_client):
    both = admin_client.get(CHARACTERS)
    assert {c.campaign_id for c in both.context["cl"].result_list} == {desk["a"].pk, desk["b"].pk}
    assert "campaign" in both.context["cl"].list_display
    response = admin_client.get(reverse("admin:desk_choose", args=[desk["b"].pk]) + f"?next={CHARACTERS}")
    assert response.status_code == 302 and response["Location"] == CHARACTERS
    one = admin_client.get(CHARACTERS)
    assert {c.campaign_id for c in one.context["cl"].result_list} == {desk["b"].pk}
    assert "campaign" not in one.context["cl"].list_display  # one campaign's list needs no campaign column
    body = one.content.decode()
    assert "Campaign: <strong>Other Campaign</strong>" in body
    assert reverse("admin:desk_all") in body  # a way back to every campaign
    assert admin_client.get(reverse("admin:campaign_roll_changelist")).context["cl"].result_count == (
        Roll.objects.filter(campaign=desk["b"]).count()
    )
    admin_client.get(reverse("admin:desk_all"))
    assert admin_client.get(CHARACTERS).context["cl"].result_count == Character.objects.count()


def test_a_change_page_of_another_of_his_campaigns_still_opens(desk):
    """The choice narrows the lists; a link to a row of another campaign he runs still works."""
    third = campaign_create(name="Third Campaign", players=3, source=RandomSource(5), by=desk["gm"])
    client = logged_in(desk["gm"])
    client.get(reverse("admin:desk_choose", args=[desk["a"].pk]))
    row = Character.objects.filter(campaign=third).order_by("pk").first()
    assert client.get(reverse("admin:dynasties_character_change", args=[row.pk])).status_code == 200


def test_a_list_action_acts_on_the_chosen_campaigns_rows_only(desk):
    """Rows of another campaign of his that are not on the list are not acted on either."""
    third = campaign_create(name="Third Campaign", players=3, source=RandomSource(5), by=desk["gm"])
    table = RuleTable.objects.filter(campaign=third).order_by("pk").first()
    RuleTable.objects.filter(pk=table.pk).update(data={"edited": "yes"})
    client = logged_in(desk["gm"])
    client.get(reverse("admin:desk_choose", args=[desk["a"].pk]))
    client.post(
        reverse("admin:campaign_ruletable_changelist"),
        {"action": "restore_defaults", admin.helpers.ACTION_CHECKBOX_NAME: [table.pk]},
    )
    table.refresh_from_db()
    assert table.data == {"edited": "yes"}


def test_the_campaign_menus_admin_link_lands_with_that_campaign_chosen(desk):
    client = logged_in(desk["gm"])
    page = client.get(reverse("pages:dashboard", args=[desk["a"].slug])).content.decode()
    link = reverse("admin:desk_choose", args=[desk["a"].pk])
    assert f'href="{link}"' in page
    client.get(link)
    assert client.session[CHOSEN] == desk["a"].pk
    assert "Campaign: <strong>Test Campaign</strong>" in client.get(reverse("admin:index")).content.decode()


def test_a_choice_he_no_longer_runs_is_dropped(desk):
    client = logged_in(desk["gm"])
    client.get(reverse("admin:desk_choose", args=[desk["a"].pk]))
    Membership.objects.filter(campaign=desk["a"], user=desk["gm"]).update(role=Role.OBSERVER)
    response = client.get(CHARACTERS, follow=True)  # GM of no campaign now: no desk at all, staff or not
    assert response.status_code == 403
    assert "not the GM of any campaign" in response.content.decode()
    assert "Campaign: <strong>" not in response.content.decode()


# Newest first, search ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "newest"),
    [
        (Roll, ["-pk"]),
        (ChronicleEntry, ["-year", "-pk"]),
        (Posting, ["-pk"]),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_the_logs_list_the_newest_first(desk, admin_client, model, newest):
    for amount in (5, 7):
        treasury.post(
            desk["a"], payer=None, payee=desk["a"].dynasties.first(), amount=amount, kind=PostingKind.OTHER, reason="funds"
        )
    changelist = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    rows = admin_client.get(changelist).context["cl"].result_list
    expected = list(model.objects.order_by(*newest)[: len(rows)])
    assert len(rows) > 1
    assert list(rows) == expected
    if model is Roll:
        assert rows[0].pk == Roll.objects.latest("pk").pk


def test_every_list_a_gm_may_open_has_a_search_box():
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label in GAME_APPS:
            assert model_admin.search_fields, f"{model.__name__}: no search_fields"


def test_the_roll_list_has_few_enough_columns_for_a_laptop(desk, admin_client):
    response = admin_client.get(reverse("admin:campaign_roll_changelist"))
    assert len(response.context["cl"].list_display) <= 10  # the action box and 9 short columns
    roll = Roll.objects.filter(campaign=desk["a"]).order_by("-pk").first()
    assert f"{roll.dice} [" in response.content.decode()  # dice, faces, modifier and target in one cell


# Plumbing ----------------------------------------------------------------------------------------

PLUMBING_APPS = ["auth", "axes", "django_tasks_database", "api", *GAME_APPS]


def test_plumbing_is_out_of_a_gms_way_even_with_every_permission(desk, django_user_model):
    gm = staff(django_user_model, "keen", PLUMBING_APPS)
    Membership.objects.create(campaign=desk["a"], user=gm, role=Role.GM)
    client = logged_in(gm)
    body = client.get(reverse("admin:index")).content.decode()
    assert "Site plumbing" not in body
    for model in admin.site._registry:
        if model._meta.label_lower in PLUMBING:
            opts = model._meta
            assert reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist") not in body
            assert client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")).status_code == 403
    assert client.get(CHARACTERS).status_code == 200  # the game's records stay his


def test_a_superuser_sees_the_plumbing_in_its_own_section(admin_client, db):
    response = admin_client.get(reverse("admin:index"))
    game = {m["model"]._meta.label_lower for app in response.context["app_list"] for m in app["models"]}
    plumbing = {m["model"]._meta.label_lower for app in response.context["plumbing_list"] for m in app["models"]}
    registered = {m._meta.label_lower for m in admin.site._registry}
    assert plumbing == PLUMBING & registered and {"campaign.checkpoint", "api.apitoken", "auth.user"} <= plumbing
    assert not game & plumbing and "campaign.roll" in game
    body = response.content.decode()
    assert body.index("Site plumbing") > body.index(reverse("admin:campaign_roll_changelist"))
    assert admin_client.get(reverse("admin:campaign_checkpoint_changelist")).status_code == 200


def test_the_admins_system_checks_pass():
    """The desk's changes to the model admins keep Django's checks of them working (``manage.py check``)."""
    from django.core import checks

    assert checks.run_checks(tags=[checks.Tags.admin]) == []


# Issue 30: nothing of another campaign through the desk --------------------------------------------


def _undo_history(campaign: Any) -> list[Any]:
    from campaign.models import Checkpoint

    return list(Checkpoint.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "undone_in"))


def test_a_gm_cannot_seat_himself_in_another_campaign_through_the_membership_form(desk):
    """Hole 1: POST membership/add with campaign=<B> user=<himself> role=gm seated him as B's GM."""
    client = logged_in(desk["gm"])
    client.get(reverse("admin:desk_choose", args=[desk["a"].pk]))
    for data in (
        {"campaign": desk["b"].pk, "user": desk["gm"].pk, "username": "gm", "role": "gm", "desk_campaign": desk["b"].pk},
        {"campaign": desk["b"].pk, "user": desk["gm"].pk, "username": "gm", "role": "gm", "desk_campaign": desk["a"].pk},
    ):
        client.post(reverse("admin:campaign_membership_add"), data)
    assert not Membership.objects.filter(campaign=desk["b"], user=desk["gm"]).exists()


def test_editing_a_membership_cannot_move_it_into_another_campaign(desk, alice):
    """Hole 1: editing one of A's memberships with campaign=<B> moved that member into B, as GM."""
    mine = Membership.objects.get(campaign=desk["a"], user=alice)
    client = logged_in(desk["gm"])
    change = reverse("admin:campaign_membership_change", args=[mine.pk])
    client.post(change, context_data(client.get(change)) | {"campaign": desk["b"].pk, "role": "gm", "dynasty": ""})
    mine.refresh_from_db()
    assert mine.campaign_id == desk["a"].pk
    assert not Membership.objects.filter(campaign=desk["b"], user=alice).exists()


@pytest.mark.parametrize(
    ("model", "data"),
    [
        (
            "dynasties_character",
            {"given_name": "Cuckoo", "dynastic_name": "Nest", "sex": "M", "birth_year": 1300, "status": "alive"},
        ),
        ("dynasties_dynasty", {"name": "Cuckoos", "crown": "", "kind": "minor", "color": "#123456", "seat": 9}),
        ("dynasties_crown", {"name": "Cuckooland"}),
    ],
)
def test_an_add_form_writes_nothing_into_another_campaign(desk, model, data):
    """Hole 1: the add pages of character, dynasty and crown took campaign=<B> and wrote into B (a desk
    change set in B's undo history, dropping B's redo)."""
    client = logged_in(desk["gm"])
    client.get(reverse("admin:desk_choose", args=[desk["a"].pk]))
    before = _undo_history(desk["b"])
    app, name = model.split("_")
    counted = admin.site._registry
    (m,) = [m for m in counted if m._meta.app_label == app and m._meta.model_name == name]
    rows = m.objects.filter(campaign=desk["b"]).count()
    add = reverse(f"admin:{model}_add")
    form = context_data(client.get(add)) | data
    client.post(add, {**form, "campaign": desk["b"].pk, "desk_campaign": desk["b"].pk})
    client.post(add, {**form, "campaign": desk["b"].pk, "desk_campaign": desk["a"].pk})
    assert m.objects.filter(campaign=desk["b"]).count() == rows
    assert _undo_history(desk["b"]) == before


def test_a_crown_or_a_reign_cannot_link_to_another_campaigns_people(desk):
    """Hole 2: A's crown took B's house as its home dynasty; A's reigns took B's characters as holder
    and interim (and A's API then listed a reign whose holder was B's)."""
    from dynasties.models import Crown, Dynasty, Reign

    client = logged_in(desk["gm"])
    crown = Crown.objects.filter(campaign=desk["a"]).order_by("pk").first()
    theirs = Dynasty.objects.filter(campaign=desk["b"]).order_by("pk").first()
    page = client.get(reverse("admin:dynasties_crown_change", args=[crown.pk]))
    assert page.status_code == 200
    change = reverse("admin:dynasties_crown_change", args=[crown.pk])
    client.post(change, context_data(page) | {"home_dynasty": theirs.pk})
    crown.refresh_from_db()
    assert crown.home_dynasty is None or crown.home_dynasty.campaign_id == desk["a"].pk
    reign = Reign.objects.filter(campaign=desk["a"]).order_by("pk").first()
    stranger = Character.objects.filter(campaign=desk["b"]).order_by("pk").first()
    change = reverse("admin:dynasties_reign_change", args=[reign.pk])
    form = context_data(client.get(change))
    client.post(change, form | {"holder": stranger.pk, "interim_for": stranger.pk})
    reign.refresh_from_db()
    assert reign.holder.campaign_id == desk["a"].pk
    assert reign.interim_for_id is None or reign.interim_for.campaign_id == desk["a"].pk


def test_no_desk_page_names_another_campaign_whatever_the_query_string(desk):
    """Hole 3: the crown form listed every campaign and every house; the reign form's interim_for every
    character of every campaign; ?campaign=, ?father=, ?user= printed those names; ?roll= another
    campaign's roll."""
    from dynasties.models import Dynasty

    client = logged_in(desk["gm"])
    client.get(reverse("admin:desk_choose", args=[desk["a"].pk]))
    theirs = Character.objects.filter(campaign=desk["b"]).order_by("pk").first()
    Character.objects.filter(pk=theirs.pk).update(given_name="Zeblinda")
    house = Dynasty.objects.filter(campaign=desk["b"]).order_by("pk").first()
    Dynasty.objects.filter(pk=house.pk).update(name="Zeblindor")
    roll = Roll.objects.filter(campaign=desk["b"]).order_by("pk").first()
    pages = [
        reverse("admin:dynasties_crown_add") + f"?campaign={desk['b'].pk}&home_dynasty={house.pk}",
        reverse("admin:dynasties_reign_add") + f"?interim_for={theirs.pk}&holder={theirs.pk}",
        reverse("admin:dynasties_character_add") + f"?campaign={desk['b'].pk}&father={theirs.pk}",
        reverse("admin:campaign_membership_add") + f"?user={desk['other_gm'].pk}&campaign={desk['b'].pk}",
        reverse("admin:dynasties_birthattempt_add") + f"?roll={roll.pk}",
    ]
    for url in pages:
        body = client.get(url).content.decode()
        for secret in ("Other Campaign", "Zeblinda", "Zeblindor", ">other<", 'value="other"'):
            assert secret not in body, f"{url} shows {secret!r}"
        assert str(roll) not in body


def test_view_on_site_answers_404_not_500(desk):
    """Hole 6: /admin/r/<ct>/<uuid>/ for the models with UUID keys answered 500."""
    from django.apps import apps
    from django.contrib.contenttypes.models import ContentType

    from campaign.models import Job

    DBTaskResult = apps.get_model("django_tasks_database", "DBTaskResult")

    client = logged_in(desk["gm"])
    for model in (Job, DBTaskResult):
        ct = ContentType.objects.get_for_model(model)
        for key in ("not-a-uuid", "00000000-0000-0000-0000-000000000000"):
            assert client.get(f"/admin/r/{ct.pk}/{key}/").status_code == 404
    theirs = Character.objects.filter(campaign=desk["b"]).order_by("pk").first()
    ct = ContentType.objects.get_for_model(Character)
    assert client.get(f"/admin/r/{ct.pk}/{theirs.pk}/").status_code == 404


# Issue 30: the desk for every GM ------------------------------------------------------------------


@pytest.fixture
def plain_gm(django_user_model):
    """A GM who created his campaign on the site: no staff flag, no model permission."""
    user = django_user_model.objects.create_user("plain", password="plain-password-1")
    campaign = campaign_create(name="Plain Campaign", players=3, source=RandomSource(11), by=user)
    return user, campaign


def test_a_gm_who_is_not_staff_keeps_his_campaign_at_the_desk(plain_gm):
    user, campaign = plain_gm
    assert not user.is_staff and not user.user_permissions.exists()
    client = logged_in(user)
    index = client.get(reverse("admin:index"))
    assert index.status_code == 200 and "Plain Campaign" in index.content.decode()
    listing = client.get(CHARACTERS)
    assert listing.status_code == 200
    assert {c.campaign_id for c in listing.context["cl"].result_list} == {campaign.pk}
    row = Character.objects.filter(campaign=campaign).order_by("pk").first()
    assert client.get(reverse("admin:dynasties_character_change", args=[row.pk])).status_code == 200
    table = RuleTable.objects.filter(campaign=campaign).order_by("pk").first()
    assert client.get(reverse("admin:campaign_ruletable_change", args=[table.pk])).status_code == 200
    # a death recorded at the table, the desk-only action
    response = client.post(CHARACTERS, {"action": "event_killed", admin.helpers.ACTION_CHECKBOX_NAME: [row.pk]}, follow=True)
    assert response.status_code == 200
    row.refresh_from_db()
    assert row.status == "dead"
    # a new row goes to his campaign (the only one he keeps: chosen for him)
    add = client.get(reverse("admin:campaign_membership_add"))
    assert add.status_code == 200 and "Adding to <strong>Plain Campaign</strong>" in add.content.decode()


def test_a_member_who_is_gm_of_nothing_gets_no_desk_and_is_told_why(client, campaign, alice):
    client.force_login(alice)
    response = client.get(reverse("admin:index"), follow=True)
    assert response.status_code == 403
    assert "not the GM of any campaign" in response.content.decode()


def test_the_desks_login_is_the_sites(client):
    response = client.get(reverse("admin:index"), follow=True)
    assert response.redirect_chain[-1][0].startswith(reverse("login") + "?next=")


def test_a_gm_of_several_campaigns_chooses_one_before_adding(desk):
    campaign_create(name="Third Campaign", players=3, source=RandomSource(5), by=desk["gm"])
    client = logged_in(desk["gm"])
    client.get(reverse("admin:desk_all"))
    response = client.get(reverse("admin:dynasties_character_add"), follow=True)
    assert "Choose the campaign to add a character to" in response.content.decode()


# A house a player plays ----------------------------------------------------------------------------


def test_a_house_a_player_plays_is_not_deleted_and_the_desk_says_why(desk, django_user_model):
    """Deleting a house frees an observer's link to it, but a player's seat keeps it: the desk's
    delete page names the seat to move first (it was a database error before), and nothing goes."""
    from campaign.services import membership_add
    from dynasties.models import Dynasty

    campaign, gm = desk["a"], desk["gm"]
    house = Dynasty.objects.create(campaign=campaign, name="Anjou-Sicily", kind="player")
    player = django_user_model.objects.create_user("anjou_player", password="a-long-password-1")
    membership_add(campaign=campaign, user=player, role=Role.PLAYER, dynasty=house, by=gm)
    client = logged_in(gm)
    page = client.get(reverse("admin:dynasties_dynasty_delete", args=[house.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "anjou_player" in text and "protected" in text.lower()
    client.post(reverse("admin:dynasties_dynasty_delete", args=[house.pk]), {"post": "yes"})
    assert Dynasty.objects.filter(pk=house.pk).exists()
    assert member_house_id(Membership.objects.get(user=player)) == house.pk


def test_deleting_a_house_frees_an_observer_s_link(desk, django_user_model):
    from dynasties.models import Dynasty

    campaign = desk["a"]
    house = Dynasty.objects.create(campaign=campaign, name="Anjou-Sicily", kind="player")
    watcher = django_user_model.objects.create_user("watcher", password="a-long-password-1")
    seat = seat_member(campaign=campaign, user=watcher, role=Role.OBSERVER, dynasty=house)
    house.delete()
    seat.refresh_from_db()
    assert member_house_id(seat) is None
