"""Nothing of one campaign links into another, whatever door writes it (campaign.integrity, issue 30
hole 2): the check before every save and many-to-many addition, and on PostgreSQL the database's own
composite foreign keys."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from campaign.integrity import ForeignLink, install_guards, same_campaign_links
from campaign.models import Membership, Role
from contracts.models import Contract
from dynasties.models import Character, Crown, Dynasty, Posting, PostingKind, Reign
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.factories import seat_member


@pytest.fixture
def bravo(db, django_user_model):
    other = django_user_model.objects.create_user("bravo-gm", password="bravo-password-1")
    return campaign_create(name="Bravo", players=3, source=RandomSource(3), by=other)


def first(model, campaign, **lookups):
    return model.objects.filter(campaign=campaign, **lookups).order_by("pk").first()


def test_a_reign_cannot_take_a_holder_of_another_campaign(campaign, bravo):
    reign = first(Reign, campaign)
    theirs = first(Character, bravo)
    reign.holder = theirs  # loaded: judged without a query
    with pytest.raises(ForeignLink) as refused:
        reign.save()
    assert refused.value.fields == {"holder": "other_campaign"}
    assert "belongs to another campaign" in refused.value.message
    reign.refresh_from_db()
    assert reign.holder.campaign_id == campaign.pk


def test_a_link_named_by_its_id_is_judged_too(campaign, bravo):
    crown = Crown.objects.filter(campaign=campaign).order_by("pk").first()
    crown.home_dynasty_id = first(Dynasty, bravo).pk
    with pytest.raises(ForeignLink):
        crown.save()
    with pytest.raises(ForeignLink):
        Character.objects.create(
            campaign=campaign, given_name="Changeling", sex="M", birth_year=1300, father=first(Character, bravo)
        )


def test_a_member_cannot_be_seated_in_a_house_of_another_campaign(campaign, bravo, outsider):
    with pytest.raises(ForeignLink):
        seat_member(campaign=campaign, user=outsider, role=Role.PLAYER, dynasty=first(Dynasty, bravo))
    assert not Membership.objects.filter(user=outsider).exists()


def test_a_contract_cannot_take_a_party_of_another_campaign(campaign, bravo):
    contract = Contract.objects.create(campaign=campaign, kind="agreement", title="A pact", start_year=campaign.current_year)
    with pytest.raises(ForeignLink), transaction.atomic():
        contract.parties.add(first(Dynasty, campaign), first(Dynasty, bravo))
    assert not contract.parties.exists()


def test_links_within_the_campaign_still_save(campaign):
    reign = first(Reign, campaign)
    reign.regent_id = Character.objects.filter(campaign=campaign).exclude(pk=reign.holder_id).order_by("pk").first().pk
    reign.save()
    posting = Posting.objects.create(
        campaign=campaign, year=campaign.current_year, step=campaign.step, payer=None, payee=first(Dynasty, campaign),
        amount=5, kind=PostingKind.OTHER, reason="funds",
    )  # fmt: skip
    assert posting.pk is not None


def test_the_guard_covers_every_link_between_rows_of_a_campaign():
    links = {(link.table, link.column) for link in same_campaign_links()}
    assert ("dynasties_reign", "holder_id") in links
    assert ("dynasties_reign", "interim_for_id") in links
    assert ("dynasties_crown", "home_dynasty_id") in links
    assert ("dynasties_seat", "house_id") in links  # a member's house
    assert ("dynasties_seat", "membership_id") in links
    assert ("dynasties_portrait", "character_id") in links  # one-to-one keys too
    assert not any(table.startswith("dynasties_historical") for table, _ in links)  # the audit trail's copies: not the game


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_postgres_itself_refuses_a_link_into_another_campaign(django_user_model):
    """Even a raw UPDATE (no signal, no service) is refused by the composite foreign keys."""
    gm = django_user_model.objects.create_user("pg-gm", password="pg-password-1")
    alpha = campaign_create(name="Alpha", players=3, source=RandomSource(1), by=gm)
    bravo = campaign_create(name="Bravo", players=3, source=RandomSource(2), by=gm)
    with connection.cursor() as cursor:
        cursor.execute("SELECT conname FROM pg_constraint WHERE conname LIKE 'same_campaign_%%' AND convalidated")
        installed = {name for (name,) in cursor.fetchall()}
    assert {link.name for link in same_campaign_links()} <= installed
    reign, theirs = first(Reign, alpha), first(Character, bravo)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        with pytest.raises(IntegrityError), transaction.atomic():
            cursor.execute("UPDATE dynasties_reign SET holder_id = %s WHERE id = %s", [theirs.pk, reign.pk])
    ours = Character.objects.filter(campaign=alpha).exclude(pk=reign.holder_id).order_by("pk").first()
    with transaction.atomic(), connection.cursor() as cursor:  # within the campaign: accepted
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("UPDATE dynasties_reign SET regent_id = %s WHERE id = %s", [ours.pk, reign.pk])
    assert install_guards() == []  # idempotent: run again after every migrate, nothing to add or report
