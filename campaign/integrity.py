"""Nothing of one campaign points into another: the check in one place, whatever door a write comes from.

A row of a campaign (``campaign.registry``: its lookup to the campaign) may link only to rows of the
same campaign: a reign's holder, a crown's home dynasty, a member's house, a contract's parties.
:func:`check_links` is asked before every save of such a row (``pre_save``, connected once for every
model) and before rows are added to a many-to-many field (``m2m_changed``): a link into another
campaign is refused with a :class:`ForeignLink` naming the field, so the desk, the pages, the API and
the commands cannot write one. A linked row already loaded is judged without a query; one named by
its id costs one query.

The services' bulk writes (``campaign.audit.bulk_create``/``bulk_update``) send no signals: they
write rows the rules built from the campaign's own state. Behind them all, on PostgreSQL, every such
link is also a composite foreign key ``(link, campaign) -> (id, campaign)``
(:func:`same_campaign_links`, installed after every migrate by :func:`install_guards`), so the
database itself refuses a link into another campaign, whoever writes it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, models, transaction
from django.db.models.signals import m2m_changed, pre_save

from campaign import registry
from rules.errors import RuleError

logger = logging.getLogger(__name__)


class ForeignLink(RuleError):
    """A row of one campaign linked to a row of another."""

    code = "other_campaign"


def campaign_lookup(model: type[models.Model]) -> str | None:
    """How a row reaches its campaign: the registry's lookup (``campaign``, ``contract__campaign``);
    ``campaign`` for a model with a campaign key the registry does not scope; ``pk`` for the campaign
    itself; None for a model outside every campaign (users, tokens)."""
    if model._meta.label == "campaign.Campaign":
        return "pk"
    entry = registry.entry(model)
    if entry is not None and entry.campaign_path:
        return entry.campaign_path
    try:
        field = model._meta.get_field("campaign")
    except FieldDoesNotExist:
        return None
    return "campaign" if field.is_relation else None


def campaign_of(obj: models.Model) -> int | None:
    """The id of the campaign a row belongs to, along its lookup, from the rows already loaded where
    they are (a hop not loaded costs a query); None if it has none (yet)."""
    path = campaign_lookup(type(obj))
    if path is None:
        return None
    if path == "pk":
        pk: int | None = obj.pk
        return pk
    *hops, last = path.split("__")
    current: Any = obj
    for hop in hops:
        current = getattr(current, hop, None)
        if current is None:
            return None
    return getattr(current, f"{last}_id", None)


def _links(model: type[models.Model]) -> Iterator[models.ForeignKey[Any, Any]]:
    """The model's foreign keys to rows of a campaign (not the campaign key itself)."""
    for field in model._meta.concrete_fields:
        if not (field.many_to_one or field.one_to_one) or field.name == "campaign":
            continue
        if campaign_lookup(registry.related(field)) not in (None, "pk"):
            yield field  # type: ignore[misc]


def _refused(obj: models.Model, field: Any, target: str) -> ForeignLink:
    what = obj._meta.verbose_name
    return ForeignLink(
        f"The {field.verbose_name} of this {what} ({target}) belongs to another campaign: choose one of this campaign's.",
        fields={field.name: "other_campaign"},
    )


def check_links(obj: models.Model) -> None:
    """Refuse (:class:`ForeignLink`) a row of a campaign whose links point into another campaign:
    the linked rows already loaded are judged in memory, the others in one query per linked model."""
    campaign = campaign_of(obj)
    if campaign is None:
        return
    by_model: dict[type[models.Model], dict[Any, Any]] = {}
    for field in _links(type(obj)):
        value = getattr(obj, field.attname)
        if value is None:
            continue
        if field.is_cached(obj):
            target = field.get_cached_value(obj)
            if target is not None and campaign_of(target) not in (campaign, None):
                raise _refused(obj, field, str(target))
            continue
        by_model.setdefault(field.related_model, {})[value] = field
    for target_model, fields in by_model.items():
        path = campaign_lookup(target_model)
        assert path is not None  # _links keeps the keys to rows of a campaign
        foreign = target_model._base_manager.filter(pk__in=list(fields)).exclude(**{path: campaign}).values_list("pk", flat=True)
        for pk in foreign[:1]:
            raise _refused(obj, fields[pk], f"#{pk}")


def _checked(model: type[models.Model]) -> bool:
    """A model the registry places in a campaign (not the campaign itself, not an audit trail's
    copies of rows already checked)."""
    entry = registry.entry(model)
    return entry is not None and bool(entry.campaign_path)


def _before_save(sender: type[models.Model], instance: models.Model, raw: bool = False, **kwargs: Any) -> None:
    if raw:  # loaddata: a fixture is written as it is
        return
    if _checked(sender):
        check_links(instance)


def _before_adding(sender: Any, instance: Any, action: str, reverse: bool, model: Any, pk_set: Any, **kwargs: Any) -> None:
    """Rows added to a many-to-many field of a campaign's row (a contract's parties) are that campaign's."""
    if action != "pre_add" or not pk_set:
        return
    owner_campaign = campaign_of(instance)
    path = campaign_lookup(model)
    if owner_campaign is None or path in (None, "pk"):
        return
    foreign = model._base_manager.filter(pk__in=pk_set).exclude(**{path: owner_campaign})
    if foreign.exists():
        raise ForeignLink(
            f"A {model._meta.verbose_name} of another campaign cannot be linked to this {instance._meta.verbose_name}: "
            "choose one of this campaign's.",
            fields={model._meta.model_name: "other_campaign"},
        )


def connect() -> None:
    """Ask :func:`check_links` before every save and many-to-many addition (``CampaignConfig.ready``)."""
    pre_save.connect(_before_save, dispatch_uid="campaign.integrity.before_save")
    m2m_changed.connect(_before_adding, dispatch_uid="campaign.integrity.before_adding")


# --- the database's guard (PostgreSQL) --------------------------------------------------------------


@dataclass(frozen=True)
class Link:
    """A foreign key between two tables that both carry the campaign: (table.column, campaign_id) must
    match (target.id, campaign_id)."""

    table: str
    column: str
    target: str

    @property
    def name(self) -> str:
        return f"same_campaign_{self.table}_{self.column}"[:63]


def _scoped_directly(model: type[models.Model]) -> bool:
    """A model the registry places in a campaign by its own campaign key."""
    entry = registry.entry(model)
    return entry is not None and entry.campaign_path == "campaign"


def same_campaign_links() -> list[Link]:
    """Every foreign key between two models the registry places in a campaign by their own campaign
    key, in a fixed order (table, column): what the database's guard covers."""
    links = []
    for entry in registry.entries():
        model = entry.model
        if not _scoped_directly(model) or model._meta.proxy or not model._meta.managed:
            continue
        for field in _links(model):
            target = field.related_model
            if _scoped_directly(target) and field.db_constraint:  # type: ignore[attr-defined]  # set by ForeignKey.__init__, not in django-stubs
                links.append(Link(model._meta.db_table, registry.column(field), target._meta.db_table))
    return sorted(set(links), key=lambda link: (link.table, link.column))


def guard_index(target: str) -> str:
    return f"same_campaign_{target}_key"[:63]


def install_guards(using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> list[str]:
    """On PostgreSQL, make every :func:`same_campaign_links` a composite foreign key
    ``(column, campaign_id) -> target (id, campaign_id)``, deferred like Django's own (undo restores
    rows raw in any order), over a unique index ``(id, campaign_id)`` of each target (``post_migrate``;
    idempotent, so a new model is covered at the next migrate). A constraint is added ``NOT VALID``
    (new rows are checked at once), then validated against the rows already there; rows that already
    link into another campaign leave it not validated, and are named in the returned warnings. Other
    databases get none (SQLite: the check before saving stands alone; docs/rulings.md)."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return []
    existing = set(connection.introspection.table_names())
    links = [link for link in same_campaign_links() if link.table in existing and link.target in existing]
    warnings = []
    with connection.cursor() as cursor:
        cursor.execute("SELECT conname, convalidated FROM pg_constraint WHERE conname LIKE 'same_campaign_%%'")
        known = dict(cursor.fetchall())
        for target in sorted({link.target for link in links}):
            cursor.execute(f'CREATE UNIQUE INDEX IF NOT EXISTS "{guard_index(target)}" ON "{target}" ("id", "campaign_id")')
        for link in links:
            if link.name not in known:
                cursor.execute(
                    f'ALTER TABLE "{link.table}" ADD CONSTRAINT "{link.name}" FOREIGN KEY ("{link.column}", "campaign_id") '
                    f'REFERENCES "{link.target}" ("id", "campaign_id") DEFERRABLE INITIALLY DEFERRED NOT VALID'
                )
            if known.get(link.name) is not True:
                try:
                    with transaction.atomic(using=using):
                        cursor.execute(f'ALTER TABLE "{link.table}" VALIDATE CONSTRAINT "{link.name}"')
                except DatabaseError:
                    warnings.append(
                        f"{link.table}.{link.column}: some rows already link into another campaign of {link.target} "
                        f"(new ones are refused); correct them at the desk, then migrate again to validate {link.name}."
                    )
    for text in warnings:
        logger.warning("Regnal's same-campaign guard: %s", text)
    return warnings
