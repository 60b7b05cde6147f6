"""The family record, public to every member: dynasties, characters with their family links,
marriages and betrothals, reigns and titles. ``?year=`` gives who was alive / who reigned then."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from django.db import connection
from django.db.models import Field, Model, Prefetch, Q, QuerySet
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.common import CampaignReadViewSet
from api.filters import INT_MAX, FilterSet, IntegerFilter
from api.serializers import LinkField, LinkSerializer, SelfUrlField, link, list_url
from campaign.permissions import sees_marriage_money
from dynasties.figures import Figures, figures_of
from dynasties.models import Character, Dynasty, Marriage, ModifierKind, PassedOver, Reign, Title, TitleHolding
from rules import combat as cb


def marriage_state(m: Marriage) -> str:
    if m.ended_year is not None:
        return "ended"
    return "wed" if m.wedding_year is not None else "betrothed"


MARRIAGE_STATES = [("betrothed", "Betrothed"), ("wed", "Wed"), ("ended", "Ended")]


# Dynasties -------------------------------------------------------------------------------------


class DynastyOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    url = SelfUrlField("dynasties")

    class Meta:
        model = Dynasty
        fields = ["id", "url", "name", "crown", "kind", "color", "seat"]
        ref_name = "Dynasty"


class DynastyFilter(FilterSet):
    class Meta:
        model = Dynasty
        fields = ["kind"]


class DynastyViewSet(CampaignReadViewSet):
    """The campaign's dynasties (player houses, aristocratic families, minor houses). Their
    exchequers are under ``balances`` and ``ledger``."""

    api_tag = "families"
    queryset = Dynasty.objects.order_by("seat", "name", "pk")
    serializer_class = DynastyOut
    filterset_class = DynastyFilter


# Characters ------------------------------------------------------------------------------------


class SpouseSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(max_value=INT_MAX, help_text="The spouse (or betrothed).")
    url = serializers.URLField()
    marriage = LinkSerializer()
    state = serializers.ChoiceField(choices=MARRIAGE_STATES)
    arranged_year = serializers.IntegerField()
    wedding_year = serializers.IntegerField(allow_null=True)
    ended_year = serializers.IntegerField(allow_null=True)

    class Meta:
        ref_name = "Spouse"


CHARACTER_COLUMNS = [
    "given_name",
    "dynastic_name",
    "sex",
    "birth_year",
    "birth_order",
    "status",
    "death_year",
    "death_cause",
    "retired_year",
    "origin",
    "legitimate",
    "prince_piece",
    "effective_age_offset",
    "held_by_neutrals",
]
CHARACTER_LINKS = ["birth_dynasty", "controlled_by", "prisoner_of", "pretender_of"]
# What the list reads of a character, in this order (``CharacterOut.to_representation`` unpacks it).
CHARACTER_ROW = (
    "id",
    *CHARACTER_COLUMNS,
    *(f"{name}_id" for name in CHARACTER_LINKS),
    "characteristics",
    "father_id",
    "mother_id",
)
_row_of = attrgetter(*CHARACTER_ROW)


@dataclass
class Family:
    """The children and the matches of a page of characters, read in two queries."""

    children: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    matches: dict[int, list[tuple[int, int, int, int | None, int | None]]] = field(default_factory=lambda: defaultdict(list))


def _rows_about(model: type[Model], columns: str, either: tuple[str, str], order: str, wanted: set[int]) -> list[Any]:
    """The rows of ``model`` whose ``either`` column is one of ``wanted`` (``columns`` and
    ``order``: field names, comma-separated). Written out as one SELECT (names from ``_meta``,
    values bound, as ``dynasties/trees/data.py`` reads its rows): no ORM query to build for every
    page of the API's hottest list. A page is a run of close ids, asked as the run's range when
    that is at most twice the page; the callers keep only the rows about ``wanted``."""
    meta, quote = model._meta, connection.ops.quote_name

    def column(name: str) -> str:
        field = meta.get_field(name)
        assert isinstance(field, Field) and field.column, f"{name} is not a column"
        return quote(field.column)

    def names(text: str) -> str:
        return ", ".join(column(name.strip()) for name in text.split(","))

    a, b = (names(name) for name in either)
    lo, hi = min(wanted), max(wanted)
    if hi - lo < 2 * len(wanted):
        where, params = f"{a} BETWEEN %s AND %s OR {b} BETWEEN %s AND %s", [lo, hi, lo, hi]
    else:
        marks = ", ".join(["%s"] * len(wanted))
        where, params = f"{a} IN ({marks}) OR {b} IN ({marks})", [*wanted, *wanted]
    sql = f"SELECT {names(columns)} FROM {quote(meta.db_table)} WHERE {where} ORDER BY {names(order)}"  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def family_of(ids: list[int]) -> Family:
    """The children (in birth order) and the matches (in the order arranged) of these characters:
    two SELECTs, whatever their number."""
    family = Family()
    wanted = set(ids)
    if not wanted:
        return family
    children = family.children
    kids = _rows_about(Character, "id, father, mother", ("father", "mother"), "birth_year, birth_order, id", wanted)
    for pk, father, mother in kids:
        if father in wanted:
            children[father].append(pk)
        if mother in wanted and mother != father:
            children[mother].append(pk)
    matches = _rows_about(
        Marriage, "id, husband, wife, arranged_year, wedding_year, ended_year", ("husband", "wife"), "arranged_year, id", wanted
    )
    for pk, husband, wife, arranged, wedding, ended in matches:
        if husband in wanted:
            family.matches[husband].append((pk, wife, arranged, wedding, ended))
        if wife in wanted:
            family.matches[wife].append((pk, husband, arranged, wedding, ended))
    return family


class CharacterOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    """A character with its family as links. Written out by hand (the fields below document it):
    a page of a hundred characters is the API's hottest answer. The view puts the page's
    ``Family`` in the context."""

    url = SelfUrlField("characters")
    display_name = serializers.CharField()
    father = LinkField("characters", source="father_id")
    mother = LinkField("characters", source="mother_id")
    # to_representation fills these two from the page's family (two queries for the whole page)
    spouses = SpouseSerializer(many=True, read_only=True, help_text="Every match, betrothals and ended marriages included.")
    children = LinkSerializer(many=True, read_only=True)
    characteristics = serializers.DictField(child=serializers.IntegerField())

    class Meta:
        model = Character
        fields = [
            "id",
            "url",
            *CHARACTER_COLUMNS[:2],
            "display_name",
            *CHARACTER_COLUMNS[2:],
            *CHARACTER_LINKS,
            "characteristics",
            "father",
            "mother",
            "spouses",
            "children",
        ]
        ref_name = "Character"

    def to_representation(self, instance: Character | tuple[Any, ...]) -> dict[str, Any]:
        """``instance``: a Character, or its ``CHARACTER_ROW`` tuple (the list reads tuples: no
        model instances to build for a page of a hundred)."""
        urls = self.__dict__.get("_urls")
        if urls is None:  # once per serializer, not per row (a list's rows share the child serializer)
            urls = self.__dict__["_urls"] = (list_url(self.context, "characters"), list_url(self.context, "marriages"))
        people, unions = urls
        family: Family = self.context["family"]
        (
            pk,
            given,
            dynastic,
            sex,
            born,
            order,
            status,
            died,
            cause,
            retired,
            origin,
            legitimate,
            piece,
            offset,
            held,
            birth_dynasty,
            controlled_by,
            prisoner_of,
            pretender_of,
            traits,
            father,
            mother,
        ) = instance if isinstance(instance, tuple) else _row_of(instance)
        return {
            "id": pk,
            "url": f"{people}{pk}/",
            "given_name": given,
            "dynastic_name": dynastic,
            "display_name": f"{given} {dynastic}",
            "sex": sex,
            "birth_year": born,
            "birth_order": order,
            "status": status,
            "death_year": died,
            "death_cause": cause,
            "retired_year": retired,
            "origin": origin,
            "legitimate": legitimate,
            "prince_piece": piece,
            "effective_age_offset": offset,
            "held_by_neutrals": held,
            "birth_dynasty": birth_dynasty,
            "controlled_by": controlled_by,
            "prisoner_of": prisoner_of,
            "pretender_of": pretender_of,
            "characteristics": traits,
            "father": {"id": father, "url": f"{people}{father}/"} if father else None,
            "mother": {"id": mother, "url": f"{people}{mother}/"} if mother else None,
            "spouses": [
                {
                    "id": other,
                    "url": f"{people}{other}/",
                    "marriage": {"id": match, "url": f"{unions}{match}/"},
                    "state": "ended" if ended is not None else ("wed" if wedding is not None else "betrothed"),
                    "arranged_year": arranged,
                    "wedding_year": wedding,
                    "ended_year": ended,
                }
                for match, other, arranged, wedding, ended in family.matches.get(pk, ())
            ],
            "children": [{"id": child, "url": f"{people}{child}/"} for child in family.children.get(pk, ())],
        }


# A character's figure in battle and lasting modifiers (the detail only: dynasties.figures) -------

TERM_KEYS = [
    ("strength", "His own Strength"),
    ("governor", "A Governor's +1 (rule G)"),
    ("wife", "His wife's Guile, held to -2..+2"),
    ("usurper", "His house's -1 for a crown it usurps"),
    ("rival", "+1 against the usurper, held to -2..+2"),
    ("malus", "BloodLine: his country's -1"),
    ("title", "BloodLine: +1 in his title lands"),
]


class CombatTermOut(serializers.Serializer[Any]):
    key = serializers.ChoiceField(choices=TERM_KEYS)
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field "label", not the base class's
    value = serializers.IntegerField(help_text="What it adds to the total.")
    given = serializers.IntegerField(help_text="What the rule gives before -2..+2 holds it back (else = value).")
    held = serializers.BooleanField(help_text="True when only part of what is given counts.")
    why = serializers.CharField(help_text="The record it comes from (a title, a passed-over claim); may be empty.")
    rule = serializers.CharField(help_text="The rulebook's words, with where they are written.")

    class Meta:
        ref_name = "CombatTerm"


class CombatCaseOut(serializers.Serializer[Any]):
    when = serializers.CharField(help_text='"against the house of Valois", "within his title lands of ..."')
    total = serializers.IntegerField()
    terms = CombatTermOut(many=True, help_text="Added to the general total in this case.")

    class Meta:
        ref_name = "CombatCase"


class CombatOut(serializers.Serializer[Any]):
    leads = serializers.BooleanField(help_text="Only royals who lead have a figure (docs/rulings.md).")
    role = serializers.CharField(help_text='As what he leads: "King of England (the King piece)", "Prince (piece 2)".')
    note = serializers.CharField(help_text="Why he has no figure (empty when he leads).")
    measure = serializers.ChoiceField(
        choices=[(cb.STRENGTH, "Strength (Blood Royale)"), (cb.BATTLE_ROLLS, "a modifier on battle rolls (BloodLine)")],
        allow_null=True,
    )
    total = serializers.IntegerField(allow_null=True, help_text="The sum of the terms; null when he does not lead.")
    terms = CombatTermOut(many=True)
    cases = CombatCaseOut(many=True, help_text="The figure against a given house, or within given lands.")

    class Meta:
        ref_name = "Combat"


class ModifierOut(serializers.Serializer[Any]):
    id = serializers.IntegerField(max_value=INT_MAX)
    kind = serializers.ChoiceField(choices=ModifierKind.choices)
    value = serializers.IntegerField()
    what = serializers.CharField(help_text='"-1 Strength", "+1 Strength against the house of Valois".')
    applies = serializers.CharField(help_text='For whom: "him", "the men of the house of Plantagenet", "the forces of England".')
    why = serializers.CharField()
    since = serializers.IntegerField()
    until = serializers.CharField(help_text="Until when it lasts; for an ended one, when and why it ended.")
    active = serializers.BooleanField()
    end_year = serializers.IntegerField(allow_null=True)
    end_reason = serializers.CharField()
    claimant = LinkSerializer(allow_null=True, help_text="The passed-over heir whose claim keeps it alive.")
    against = serializers.IntegerField(allow_null=True, help_text="The dynasty it counts against (a rival's +1).")
    rule = serializers.CharField()

    class Meta:
        ref_name = "Modifier"


def _terms(terms: tuple[cb.Term, ...]) -> list[dict[str, Any]]:
    return [
        {"key": t.key, "label": t.label, "value": t.value, "given": t.given, "held": t.held, "why": t.why, "rule": t.rule}
        for t in terms
    ]


def figures_json(found: Figures, context: Mapping[str, Any]) -> dict[str, Any]:
    """``combat`` and ``modifiers`` of the character detail, from ``dynasties.figures``."""
    combat, f = found.combat, found.combat.figure
    return {
        "combat": {
            "leads": combat.leads,
            "role": combat.role,
            "note": combat.note,
            "measure": f.measure if f is not None else None,
            "total": f.total if f is not None else None,
            "terms": _terms(f.terms) if f is not None else [],
            "cases": [{"when": c.when, "total": c.total, "terms": _terms(c.terms)} for c in f.cases] if f is not None else [],
        },
        "modifiers": [
            {
                "id": m.id,
                "kind": m.kind,
                "value": m.value,
                "what": m.what,
                "applies": m.applies,
                "why": m.why,
                "since": m.since,
                "until": m.until,
                "active": m.active,
                "end_year": m.end_year,
                "end_reason": m.end_reason,
                "claimant": link(context, "characters", m.claimant),
                "against": m.against,
                "rule": m.rule,
            }
            for m in found.modifiers
        ],
    }


class CharacterDetailOut(CharacterOut):
    """One character: the list's fields, his figure in battle and every lasting modifier on him. The
    view puts his ``Figures`` (``dynasties.figures``) in the context."""

    combat = CombatOut(read_only=True, help_text="His figure in battle, term by term, with the rules (issue 31).")
    modifiers = ModifierOut(many=True, read_only=True, help_text="Every lasting modifier on him, in force or ended.")

    class Meta(CharacterOut.Meta):
        fields = [*CharacterOut.Meta.fields, "combat", "modifiers"]
        ref_name = "CharacterDetail"

    def to_representation(self, instance: Character | tuple[Any, ...]) -> dict[str, Any]:
        return {**super().to_representation(instance), **figures_json(self.context["figures"], self.context)}


def alive_in(queryset: QuerySet[Character], year: int) -> QuerySet[Character]:
    """Born by ``year`` and not dead before it (who dies in ``year`` was alive that year)."""
    return queryset.filter(Q(death_year__isnull=True) | Q(death_year__gte=year), birth_year__lte=year)


class CharacterFilter(FilterSet):
    year = IntegerFilter(method="filter_year", help_text="Who was alive that year: born by then and not dead before it.")
    dynasty = IntegerFilter(field_name="controlled_by_id", help_text="Controlled by this dynasty now.")
    birth_dynasty = IntegerFilter(field_name="birth_dynasty_id")
    father = IntegerFilter(field_name="father_id")
    mother = IntegerFilter(field_name="mother_id")
    name = filters.CharFilter(method="filter_name", max_length=80, help_text="Part of the Christian or dynastic name.")

    class Meta:
        model = Character
        fields = ["status", "sex", "origin", "legitimate"]

    def filter_year(self, queryset: QuerySet[Character], name: str, value: int) -> QuerySet[Character]:
        return alive_in(queryset, int(value))

    def filter_name(self, queryset: QuerySet[Character], name: str, value: str) -> QuerySet[Character]:
        return queryset.filter(Q(given_name__icontains=value) | Q(dynastic_name__icontains=value))


class CharacterViewSet(CampaignReadViewSet):
    """Every character of the campaign, in the order they entered the record, with father, mother,
    spouses and children as links. ``?year=1310`` lists who was alive in 1310. One character's
    detail adds ``combat`` (his figure in battle, term by term, with the rules) and ``modifiers``
    (every lasting modifier on him)."""

    api_tag = "families"
    queryset = Character.objects.order_by("pk").values_list(*CHARACTER_ROW)  # rows as tuples: see CharacterOut
    serializer_class = CharacterOut
    filterset_class = CharacterFilter
    filter_params = frozenset(CharacterFilter.base_filters)

    def filter_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.filter_params.isdisjoint(self.request.query_params):
            return queryset  # no filter asked for: the filter set (a form built per request) would change nothing
        return super().filter_queryset(queryset)

    def get_serializer_class(self) -> type[serializers.BaseSerializer]:  # type: ignore[type-arg]
        return CharacterDetailOut if self.action == "retrieve" else CharacterOut

    def get_serializer(self, *args: Any, **kwargs: Any) -> serializers.BaseSerializer:  # type: ignore[type-arg]
        if args and not self.fake:
            rows = args[0] if kwargs.get("many") else [args[0]]
            ids = [row[0] if isinstance(row, tuple) else row.pk for row in rows]
            kwargs["context"] = {**self.get_serializer_context(), "family": family_of(ids)}
            if self.action == "retrieve":  # one character: his figure in battle and modifiers
                campaign = self.viewer.campaign
                character = Character.objects.get(campaign=campaign, pk=ids[0])
                kwargs["context"]["figures"] = figures_of(campaign, character)
        return super().get_serializer(*args, **kwargs)


# Marriages -------------------------------------------------------------------------------------


class MarriageOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    url = SelfUrlField("marriages")
    husband = LinkField("characters", source="husband_id")
    wife = LinkField("characters", source="wife_id")
    state = serializers.SerializerMethodField()
    dowry = serializers.SerializerMethodField(
        help_text="The dowry (money terms are private): null unless the caller's house is one of the match's or he is the GM."
    )

    class Meta:
        model = Marriage
        fields = [
            "id",
            "url",
            "state",
            "husband",
            "wife",
            "arranged_year",
            "wedding_year",
            "ended_year",
            "end_cause",
            "husband_joins_wife",
            "dowry",
            "alliance_title",
            "children_raised_by",
        ]
        ref_name = "Marriage"

    @extend_schema_field(serializers.ChoiceField(choices=MARRIAGE_STATES))
    def get_state(self, obj: Marriage) -> str:
        return marriage_state(obj)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_dowry(self, obj: Marriage) -> str | None:
        viewer = self.context.get("viewer")
        if viewer is None or not sees_marriage_money(viewer.role, viewer.dynasty, obj):
            return None
        return obj.dowry


class MarriageFilter(FilterSet):
    state = filters.ChoiceFilter(choices=MARRIAGE_STATES, method="filter_state", help_text="betrothed, wed or ended.")
    year = IntegerFilter(method="filter_year", help_text="Matches standing that year: arranged by then, not ended before.")
    character = IntegerFilter(method="filter_character", help_text="Matches of this character (as husband or wife).")
    dynasty = IntegerFilter(method="filter_dynasty", help_text="Matches with a spouse controlled by this dynasty.")

    class Meta:
        model = Marriage
        fields = ["husband_joins_wife"]

    def filter_state(self, queryset: QuerySet[Marriage], name: str, value: str) -> QuerySet[Marriage]:
        if value == "ended":
            return queryset.filter(ended_year__isnull=False)
        return queryset.filter(ended_year__isnull=True, wedding_year__isnull=(value == "betrothed"))

    def filter_year(self, queryset: QuerySet[Marriage], name: str, value: int) -> QuerySet[Marriage]:
        return queryset.filter(Q(ended_year__isnull=True) | Q(ended_year__gte=value), arranged_year__lte=value)

    def filter_character(self, queryset: QuerySet[Marriage], name: str, value: int) -> QuerySet[Marriage]:
        return queryset.filter(Q(husband_id=value) | Q(wife_id=value))

    def filter_dynasty(self, queryset: QuerySet[Marriage], name: str, value: int) -> QuerySet[Marriage]:
        return queryset.filter(Q(husband__controlled_by_id=value) | Q(wife__controlled_by_id=value))


class MarriageViewSet(CampaignReadViewSet):
    """Marriages and betrothals (a betrothal has no wedding year yet). ``?state=betrothed``."""

    api_tag = "families"
    queryset = Marriage.objects.order_by("arranged_year", "pk")
    serializer_class = MarriageOut
    filterset_class = MarriageFilter


# Reigns ----------------------------------------------------------------------------------------


class PassedOverOut(serializers.Serializer[Any]):
    character = LinkField("characters", source="character_id")
    reason = serializers.CharField()

    class Meta:
        ref_name = "PassedOver"


class ReignOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    url = SelfUrlField("reigns")
    holder = LinkField("characters", source="holder_id")
    regent = LinkField("characters", source="regent_id")
    interim_for = LinkField("characters", source="interim_for_id")
    passed_over = PassedOverOut(many=True, read_only=True)

    class Meta:
        model = Reign
        fields = [
            "id",
            "url",
            "crown",
            "holder",
            "start_year",
            "end_year",
            "regent",
            "regency_end_year",
            "planned_end_year",
            "interim_for",
            "numeral",
            "passed_over",
        ]
        ref_name = "Reign"


class ReignFilter(FilterSet):
    year = IntegerFilter(method="filter_year", help_text="Who reigned that year (a reign ending that year included).")
    holder = IntegerFilter(field_name="holder_id")
    current = filters.BooleanFilter(field_name="end_year", lookup_expr="isnull", help_text="Only the reigns going on now.")

    class Meta:
        model = Reign
        fields = ["crown"]

    def filter_year(self, queryset: QuerySet[Reign], name: str, value: int) -> QuerySet[Reign]:
        return reigned_in(queryset, int(value))


def reigned_in(queryset: QuerySet[Reign], year: int) -> QuerySet[Reign]:
    return queryset.filter(Q(end_year__isnull=True) | Q(end_year__gte=year), start_year__lte=year)


class ReignViewSet(CampaignReadViewSet):
    """Every reign, with its regent and the heirs passed over. ``?year=1310`` gives who reigned then."""

    api_tag = "families"
    queryset = Reign.objects.order_by("crown", "start_year", "pk").prefetch_related(
        Prefetch("passed_over", queryset=PassedOver.objects.order_by("pk"))
    )
    serializer_class = ReignOut
    filterset_class = ReignFilter


# Titles ----------------------------------------------------------------------------------------


class HoldingOut(serializers.Serializer[Any]):
    holder = LinkField("characters", source="holder_id")
    start_year = serializers.IntegerField()
    end_year = serializers.IntegerField(allow_null=True)
    how = serializers.CharField()
    disputed = serializers.BooleanField()

    class Meta:
        ref_name = "TitleHolding"


class LineUrlField(SelfUrlField):
    """A title's line of succession (``titles/{id}/line/``)."""

    def to_representation(self, value: Any) -> str:
        return f"{super().to_representation(value)}line/"


class TitleOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    url = SelfUrlField("titles")
    line = LineUrlField("titles", help_text="Its line of succession: GET it.")
    holder = LinkField("characters", source="holder_id")
    granted_to = LinkField("characters", source="granted_to_id")
    holdings = HoldingOut(many=True, read_only=True)

    class Meta:
        model = Title
        fields = [
            "id",
            "url",
            "name",
            "province",
            "crown",
            "holder",
            "granted_year",
            "granted_to",
            "granted_by",
            "provinces",
            "holdings",
            "line",
        ]
        ref_name = "Title"


class TitleFilter(FilterSet):
    holder = IntegerFilter(field_name="holder_id")

    class Meta:
        model = Title
        fields = ["crown"]


class TitleViewSet(CampaignReadViewSet):
    """Titles of nobility (optional rule G; BloodLine's granted titles) and who held them."""

    api_tag = "families"
    queryset = Title.objects.order_by("name", "pk").prefetch_related(
        Prefetch("holdings", queryset=TitleHolding.objects.order_by("start_year", "pk"))
    )
    serializer_class = TitleOut
    filterset_class = TitleFilter
