"""Who may see what: the one permission layer the admin, the pages and the API all use.

Secrecy is a feature (Blood Royale chapter 24; RULES.md E7): characteristics and the family
record are public to every member of a campaign; a player sees only his own exchequer, its
postings, and the contracts his dynasty is party to; the GM sees everything; outsiders nothing."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from campaign.models import Campaign, ChronicleEntry, Membership, Posting, Role

MONEY_KINDS = {"payment_owed", "payment"}  # chronicle lines that tell of money: private like the ledger
# chronicle lines about a contract: private to its parties (their ``data["parties"]``) and the GM
CONTRACT_KINDS = {
    "contract_breach",
    "contract_cession",
    "contract_draft",
    "contract_end",
    "contract_in_force",
    "contract_note",
    "contract_payment",
    "contract_signed",
    "contract_unpaid",
}


def role_of(user: Any, campaign: Campaign) -> tuple[str | None, int | None]:
    """(role, dynasty id) of the user in the campaign; a superuser is a GM everywhere."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None, None
    if getattr(user, "is_superuser", False):
        return Role.GM, None
    membership = Membership.objects.filter(campaign=campaign, user=user).only("role", "dynasty_id").first()
    if membership is None:
        return None, None
    return membership.role, membership.dynasty_id


def can_view(user: Any, obj: Any) -> bool:
    """May this user see this object? (Campaign, Dynasty's exchequer, Character, Posting, Contract,
    ChronicleEntry, anything with a ``campaign``.)"""
    from contracts.models import Contract

    campaign = obj if isinstance(obj, Campaign) else obj.campaign
    role, dynasty = role_of(user, campaign)
    if role is None:
        return False
    if role == Role.GM:
        return True
    if isinstance(obj, Posting):
        return dynasty is not None and dynasty in (obj.payer_id, obj.payee_id)
    if isinstance(obj, Contract):
        return dynasty is not None and obj.parties.filter(pk=dynasty).exists()
    if isinstance(obj, ChronicleEntry) and obj.kind in MONEY_KINDS:
        return dynasty is not None and obj.data.get("dynasty") == dynasty
    if isinstance(obj, ChronicleEntry) and obj.kind in CONTRACT_KINDS:
        return dynasty is not None and dynasty in (obj.data.get("parties") or [])
    return True  # characters, families, rolls, the rest of the chronicle: public to members


def can_view_exchequer(user: Any, dynasty: Any) -> bool:
    role, mine = role_of(user, dynasty.campaign)
    return role == Role.GM or (role is not None and mine == dynasty.pk)


def visible(user: Any, campaign: Campaign, queryset: QuerySet[Any]) -> QuerySet[Any]:
    """The part of a queryset of this campaign the user may see (one rule, as ``can_view``)."""
    from contracts.models import Contract

    role, dynasty = role_of(user, campaign)
    queryset = queryset.filter(campaign=campaign)
    if role is None:
        return queryset.none()
    if role == Role.GM:
        return queryset
    model = queryset.model
    if model is Posting:
        return queryset.filter(Q(payer_id=dynasty) | Q(payee_id=dynasty)) if dynasty else queryset.none()
    if model is Contract:
        return queryset.filter(parties=dynasty).distinct() if dynasty else queryset.none()
    if model is ChronicleEntry:
        hidden = queryset.filter(Q(kind__in=MONEY_KINDS) & ~Q(data__dynasty=dynasty))
        secret = [
            pk
            for pk, data in queryset.filter(kind__in=CONTRACT_KINDS).values_list("pk", "data")
            if dynasty is None or dynasty not in ((data or {}).get("parties") or [])
        ]  # one query, whatever the number of contract lines (JSON containment is not portable)
        return queryset.exclude(pk__in=hidden.values("pk")).exclude(pk__in=secret)
    return queryset
