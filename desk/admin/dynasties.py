"""The game master's admin for dynasties, characters, marriages, reigns and birth attempts.

These pages are for GM corrections: they save with the plain ModelAdmin (the turn services are the
normal writers). Forms turn the models' check constraints into sentences a GM can act on, and every
foreign key is an autocomplete or a raw id so no page renders a select of every character.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from campaign.table_events import event
from desk.admin.audit import AuditedAdmin
from desk.admin.base import DeskAdmin, DeskTabularInline
from desk.admin.editing import HandEditAdmin
from desk.admin.events import character_event_actions
from desk.choice import chosen_campaign
from dynasties.forms import PREFIX, characteristic_fields, characteristic_initial, characteristics_changed
from dynasties.models import (
    BirthAttempt,
    Character,
    ControlChange,
    Crown,
    CrownEvent,
    Dynasty,
    Marriage,
    Modifier,
    PassedOver,
    Province,
    Reign,
    Renunciation,
    Title,
    TitleHolding,
)
from dynasties.services.bloodline_sequence import diplomacy_bonus
from dynasties.services.bloodline_titles import title_income
from dynasties.services.common import World
from dynasties.services.editing import (
    character_changes,
    character_edit,
    dynasty_changes,
    dynasty_edit,
    marriage_changes,
    marriage_edit,
)
from dynasties.services.play_registry import play_of, plays
from dynasties.services.regnal import renumber
from dynasties.services.succession_view import SuccessionLine, succession_line
from rules import get_ruleset
from rules.errors import RuleError

if TYPE_CHECKING:  # the stubs' names for a fieldset (no run-time class)
    from django.contrib.admin.options import _FieldOpts
    from django.utils.functional import _StrOrPromise

MARRIAGES_SHOWN = 200


FATE = (
    "The rules' own: what the table decides about him (a death, a capture, a release ...) is recorded on the "
    'campaign\'s "At the table" page (or the characters\' list actions "At the table: ..."); a die is corrected '
    "from the roll log (its Correct link)."
)


def characteristic_names(obj: Character) -> tuple[str, ...]:
    return obj.campaign.rules.characteristic_names(obj.sex)


# Characters -----------------------------------------------------------------------------------


class CharacterForm(forms.ModelForm):  # type: ignore[type-arg]  # not subscriptable at run time
    """The rules the database enforces speak through the model's constraints (campaign.invariants):
    each message stands beside its field."""

    class Meta:
        model = Character
        fields = [
            "campaign",
            "given_name",
            "dynastic_name",
            "sex",
            "birth_year",
            "birth_order",
            "origin",
            "father",
            "mother",
            "birth_dynasty",
            "controlled_by",
            "prince_piece",
            "prisoner_of",
            "held_by_neutrals",
            "status",
            "death_year",
            "death_cause",
            "retired_year",
        ]


class CharacterInline(DeskTabularInline):
    """The characters a dynasty controls now, for quick corrections (no foreign keys on the row:
    the full page, via the change link, has those)."""

    model = Character
    form = CharacterForm
    fk_name = "controlled_by"  # Character has three keys to Dynasty; this is the one a player plays
    fields = readonly_fields = (
        "given_name",
        "dynastic_name",
        "sex",
        "birth_year",
        "status",
        "death_year",
        "prince_piece",
        "origin",
    )  # edited on the character's own page, through the service
    extra = 0
    show_change_link = True

    # New characters need a campaign, parents and a birth dynasty: add them on the Character page.
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    # Characters are referenced by rolls, reigns and marriages (PROTECT): never deleted from here.
    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Character)
class CharacterAdmin(HandEditAdmin, AuditedAdmin):  # the History button: the audit trail
    """A character's page edits by hand his names, characteristics (one field each, named by the
    campaign's ruleset) and legitimacy, through ``character_edit``; what the rules own is shown
    read-only, and what the table decides about people (a death ...) is the list's actions, made from
    the table's events (``desk.admin.events``)."""

    form = CharacterForm
    hand_fields = ("given_name", "dynastic_name", "legitimate")
    list_display = ["name", "sex", "birth_year", "age", "status", "controlled_by", "prince_piece", "campaign"]
    list_filter = [
        "campaign",
        ("controlled_by", admin.RelatedOnlyFieldListFilter),  # the houses of the rows shown, not every campaign's
        ("birth_dynasty", admin.RelatedOnlyFieldListFilter),
        "status",
        "sex",
        "origin",
    ]
    list_select_related = ["controlled_by", "campaign"]
    search_fields = ["given_name", "dynastic_name"]
    autocomplete_fields = ["father", "mother", "birth_dynasty", "controlled_by", "prisoner_of"]
    fieldsets = [
        (None, {"fields": ["campaign", "given_name", "dynastic_name", "sex", "birth_year", "birth_order", "origin"]}),
        ("Family and house", {"fields": ["father", "mother", "birth_dynasty", "controlled_by"]}),
        (
            "Sheet",
            {
                "fields": [
                    "characteristics",
                    "prince_piece",
                    "prisoner_of",
                    "held_by_neutrals",
                    "effective_age_offset",
                    "legitimate",
                ]
            },
        ),
        ("Fate", {"fields": ["status", "death_year", "death_cause", "retired_year"]}),
        ("Trees", {"fields": ["trees"]}),
    ]

    @admin.display(description="name", ordering="given_name")
    def name(self, obj: Character) -> str:
        return obj.display_name

    readonly_fields = ["trees"]

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> list[tuple[_StrOrPromise | None, _FieldOpts]]:
        """The characteristics JSON becomes one field per characteristic (none on an added row:
        its ruleset is known once it is saved)."""
        names = [PREFIX + key for key in characteristic_names(obj)] if obj is not None else []
        fieldsets: list[tuple[_StrOrPromise | None, _FieldOpts]] = []
        for title, options in super().get_fieldsets(request, obj):
            shown: _FieldOpts = {
                **options,
                "fields": [n for f in options["fields"] for n in (names if f == "characteristics" else [f])],
            }
            if obj is not None and title == "Fate":
                shown["description"] = FATE
            fieldsets.append((title, shown))
        return fieldsets

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is not None:
            values = characteristic_initial(obj.characteristics)

            def __init__(form: Any, *args: Any, **kw: Any) -> None:
                CharacterForm.__init__(form, *args, **kw)
                for name, value in values.items():
                    form.initial.setdefault(name, value)

            attrs = {**characteristic_fields(obj.campaign, obj.sex, obj), "__init__": __init__}
            kwargs["form"] = type("CharacterForm", (self.form,), attrs)
        return super().get_form(request, obj, change, **kwargs)

    def hand_changes(self, form: forms.BaseForm, obj: Character) -> dict[str, Any]:
        changes = super().hand_changes(form, obj)
        values = characteristics_changed(form, obj.characteristics)
        if values is not None:
            changes["characteristics"] = values
        return changes

    hand_checker = staticmethod(character_changes)
    hand_editor = staticmethod(character_edit)
    hand_key = "character"

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        """Django's, and the table's events that happen to characters ticked on the list
        (``desk.admin.events``: "At the table: killed" ...), each through its service."""
        return {**super().get_actions(request), **character_event_actions()}

    @admin.display(description="sheet and trees")
    def trees(self, obj: Character) -> str:
        if obj.pk is None:
            return "-"
        base = f"?focus={obj.pk}&generations=3&format=svg"
        return format_html_join(
            " · ",
            '<a href="{}">{}</a>',
            [
                (reverse("print:character_sheet", args=[obj.pk]), "character sheet (PDF)"),
                (reverse("trees:tree", args=[obj.campaign.slug, "ancestors"]) + base, "ancestors"),
                (reverse("trees:tree", args=[obj.campaign.slug, "descendants"]) + base, "descendants"),
            ],
        )

    @admin.display(description="age (effective)")
    def age(self, obj: Character) -> str:
        """The age this turn (or at death); BloodLine shows the effective age beside the real one."""
        year = obj.death_year if obj.death_year is not None else obj.campaign.current_year
        real = obj.age(year)
        if play_of(obj.campaign).survival.effective_ages():
            return f"{real} ({obj.effective_age(year)})"
        return str(real)


# Dynasties ------------------------------------------------------------------------------------


@admin.register(Dynasty)
class DynastyAdmin(HandEditAdmin, DeskAdmin):
    """A house's page edits by hand its dynastic name and colour, through ``dynasty_edit``."""

    hand_fields = ("name", "color")

    hand_checker = staticmethod(dynasty_changes)
    hand_editor = staticmethod(dynasty_edit)
    hand_key = "dynasty"

    list_display = ["name", "crown", "kind", "campaign", "color"]
    list_filter = ["campaign", "kind", "crown"]
    list_select_related = ["campaign"]
    search_fields = ["name", "crown"]
    inlines = [CharacterInline]
    readonly_fields = ["marriages"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = [*super().get_readonly_fields(request, obj), "renders", "line_of_succession"]
        if obj is not None and obj.kind == "minor" and plays(obj.campaign, "minor_houses"):
            fields.append("diplomacy_bonuses")
        return fields

    @admin.display(description="tree and exports")
    def renders(self, obj: Dynasty) -> str:
        if obj.pk is None:
            return "-"
        tree = reverse("trees:tree", args=[obj.campaign.slug, "dynasty"]) + f"?dynasty={obj.pk}"
        sheets = reverse("print:dynasty_sheets", args=[obj.pk])
        links = [
            (sheets, "character sheets (PDF)"),
            (sheets + "?two_up=1", "sheets, two per page"),
            (tree + "&format=svg", "family tree (SVG)"),
            (tree + "&format=pdf", "family tree (PDF)"),
            (reverse("trees:tree", args=[obj.campaign.slug, "campaign"]) + "?format=svg", "the whole campaign's tree"),
            (reverse("gedcom-dynasty", args=[obj.campaign.slug, obj.pk]), "GEDCOM"),
        ]
        if obj.crown:
            links.append(
                (
                    reverse("trees:tree", args=[obj.campaign.slug, "succession"]) + f"?crown={obj.crown}&format=svg",
                    f"line of succession of {obj.crown} (tree)",
                )
            )
        return format_html_join(" · ", '<a href="{}">{}</a>', links)

    @admin.display(description="diplomacy bonus of each player (BloodLine)")
    def diplomacy_bonuses(self, obj: Dynasty) -> str:
        """The best bonus each player has on this minor from marriages into its royal house."""
        world = World(obj.campaign)
        rows = []
        for player in world.dynasties.values():
            if player.kind != "player":
                continue
            bonus, why = diplomacy_bonus(world, player, obj)
            rows.append((player.name, f"+{bonus}" if bonus else "0", why))
        return format_html("<ul>{}</ul>", format_html_join("", "<li>{}: {} ({})</li>", rows))

    @admin.display(description="line of succession of its crown")
    def line_of_succession(self, obj: Dynasty) -> str:
        if obj.pk is None or not obj.crown:
            return "-"
        try:
            return succession_table(succession_line(campaign=obj.campaign, crown=obj.crown), obj.campaign.ruleset)
        except RuleError as exc:
            return exc.message

    # Marriages are not a plain inline: Marriage has no foreign key to Dynasty that means "this
    # house's marriages" (its only one, children_raised_by, is something else), and an inline
    # formset always filters and saves through such a key. Overriding its queryset to
    # husband__controlled_by would still have new rows written with children_raised_by = this
    # dynasty. So the page shows a read-only list of the marriages whose husband the dynasty
    # controls, each linking to its Marriage page for editing.
    @admin.display(description="marriages (husband controlled by this dynasty)")
    def marriages(self, obj: Dynasty) -> str:
        if obj.pk is None:
            return "-"
        matches = list(
            Marriage.objects.filter(husband__controlled_by=obj)
            .select_related("husband", "wife")
            .order_by("arranged_year", "pk")[:MARRIAGES_SHOWN]
        )
        if not matches:
            return "None yet."
        rows = format_html_join(
            "",
            '<li><a href="{}">{} &amp; {}</a>: {}</li>',
            (
                (
                    reverse("admin:dynasties_marriage_change", args=[m.pk]),
                    m.husband.display_name,
                    m.wife.display_name,
                    marriage_state(m),
                )
                for m in matches
            ),
        )
        return format_html("<ul>{}</ul>", rows)


# Marriages ------------------------------------------------------------------------------------


def marriage_state(m: Marriage) -> str:
    if m.ended_year is not None:
        return f"arranged {m.arranged_year}, ended {m.ended_year} ({m.end_cause})"
    if m.wedding_year is not None:
        return f"wed {m.wedding_year}"
    return f"betrothed {m.arranged_year}"


class MarriageStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("betrothed", "Betrothed"), ("wed", "Wed"), ("ended", "Ended")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Marriage]) -> QuerySet[Marriage]:
        value = self.value()
        if value == "betrothed":
            return queryset.filter(wedding_year__isnull=True, ended_year__isnull=True)
        if value == "wed":
            return queryset.filter(wedding_year__isnull=False, ended_year__isnull=True)
        if value == "ended":
            return queryset.filter(ended_year__isnull=False)
        return queryset


class MarriageForm(forms.ModelForm):  # type: ignore[type-arg]  # not subscriptable at run time
    class Meta:
        model = Marriage
        fields = [
            "campaign",
            "husband",
            "wife",
            "arranged_year",
            "wedding_year",
            "ended_year",
            "end_cause",
            "husband_joins_wife",
            "children_raised_by",
        ]


@admin.register(Marriage)
class MarriageAdmin(HandEditAdmin, AuditedAdmin):
    """A match's page edits by hand the year it was arranged, through ``marriage_edit``; the
    wedding, its end and its terms are the rules'."""

    form = MarriageForm
    hand_fields = ("arranged_year",)

    hand_checker = staticmethod(marriage_changes)
    hand_editor = staticmethod(marriage_edit)
    hand_key = "marriage"

    list_display = ["__str__", "arranged_year", "wedding_year", "ended_year", "end_cause", "campaign"]
    list_filter = [
        "campaign",
        MarriageStateFilter,
        ("husband__controlled_by", admin.RelatedOnlyFieldListFilter),
        "husband_joins_wife",
    ]
    list_select_related = ["husband", "wife", "campaign"]
    search_fields = ["husband__given_name", "husband__dynastic_name", "wife__given_name", "wife__dynastic_name"]
    ordering = ["-arranged_year", "-pk"]  # the last matches first
    autocomplete_fields = ["husband", "wife", "children_raised_by"]


# Reigns ---------------------------------------------------------------------------------------


class PassedOverInline(DeskTabularInline):
    model = PassedOver
    extra = 0
    autocomplete_fields = ["character"]


@admin.register(Reign)
class ReignAdmin(DeskAdmin):
    list_display = ["holder", "numeral", "crown", "start_year", "end_year", "regent", "regency_end_year", "campaign"]
    list_filter = ["campaign", "crown"]
    list_select_related = ["holder", "regent", "campaign"]
    ordering = ["crown", "-start_year"]  # each crown's reigns, the present one first
    search_fields = ["crown", "holder__given_name", "holder__dynastic_name"]
    autocomplete_fields = ["holder", "regent", "interim_for"]
    inlines = [PassedOverInline]
    readonly_fields = ["line_of_succession"]

    @admin.display(description="line of succession")
    def line_of_succession(self, obj: Reign) -> str:
        """The open reign: the line now; an ended one: the line in its last full year."""
        if obj.pk is None:
            return "-"
        year = None
        if obj.end_year is not None:
            if obj.end_year <= obj.start_year:
                return f"This reign began and ended in {obj.start_year}."
            year = obj.end_year - 1
        try:
            return succession_table(succession_line(campaign=obj.campaign, crown=obj.crown, year=year), obj.campaign.ruleset)
        except RuleError as exc:
            return exc.message


def _age_text(e: Any, line: SuccessionLine, ruleset: str) -> str:
    age = f"{e.age}"
    if get_ruleset(ruleset).effective_ages:
        age += f" (effective {e.character.effective_age(line.year)})"
    return age + (" (a minor: a regent would rule)" if e.minor else "")


def succession_table(line: SuccessionLine, ruleset: str) -> str:
    """A read-only table of the line: position, name (to the character's page), age, the reason for
    the place, and whether the heir may be passed over and at what cost."""
    monarch = line.monarch
    shown = len(line.entries)
    head = f"Line of succession of {line.title or line.crown} in {line.year}"
    if monarch is not None:
        head += f": the heirs of {monarch.display_name}"
    head += f" ({shown} of {line.total} shown)." if line.total is not None and line.total > shown else "."
    refusals: list[str] = []  # the same rule repeated on every row reads badly: once, below the table

    def may_pass(e: Any) -> str:
        if e.pass_over is None:
            return "-"
        if e.pass_over.allowed:
            return str(e.pass_over.summary)
        if e.pass_over.text not in refusals:
            refusals.append(e.pass_over.text)
        return f"No ({chr(ord('a') + refusals.index(e.pass_over.text))})"

    rows = format_html_join(
        "",
        '<tr><td>{}</td><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>',
        (
            (
                e.position,
                reverse("admin:dynasties_character_change", args=[e.character.pk]),
                e.character.display_name,
                _age_text(e, line, ruleset),
                e.reason,
                may_pass(e),
            )
            for e in line.entries
        ),
    )
    footnotes = [f"({chr(ord('a') + i)}) {text}" for i, text in enumerate(refusals)]
    notes = format_html_join("", "<p>{}</p>", ((n,) for n in [*footnotes, *line.notes]))
    if not line.entries:
        return format_html("<p>{}</p><p>Nobody of the blood is in the line.</p>{}", head, notes)
    return format_html(
        "<p>{}</p><table><thead><tr><th>#</th><th>name</th><th>age</th><th>place in the line</th>"
        "<th>may be passed over now?</th></tr></thead><tbody>{}</tbody></table>{}",
        head,
        rows,
        notes,
    )


# Birth attempts -------------------------------------------------------------------------------


@admin.register(BirthAttempt)
class BirthAttemptAdmin(DeskAdmin):
    list_display = ["year", "couple", "attempt", "success", "child_birth_year", "child", "campaign"]
    list_filter = ["campaign", "year", "success"]
    list_select_related = ["marriage__husband", "marriage__wife", "child", "campaign"]
    ordering = ["-year", "-pk"]
    search_fields = [
        "marriage__husband__given_name",
        "marriage__husband__dynastic_name",
        "marriage__wife__given_name",
        "marriage__wife__dynastic_name",
    ]
    autocomplete_fields = ["marriage", "child"]
    raw_id_fields = ["roll"]  # the roll log is read-only; a raw id links to it without a select of every roll

    @admin.display(description="couple")
    def couple(self, obj: BirthAttempt) -> str:
        return str(obj.marriage)


class CrownEventInline(DeskTabularInline):
    model = CrownEvent
    extra = 0
    can_delete = False
    fields = readonly_fields = ("year", "kind", "delta", "stability_after", "reason", "cause", "reign")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


NUMERAL = re.compile(r"^(\S.*?)\s+(\d+)$")


class NumeralsField(forms.CharField):
    """The pre-campaign numerals typed as words, "Edward 2, Mary 1" (no JSON): a name and the
    numeral of the crown's last pre-campaign monarch of it."""

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, str) and value.startswith("{"):
            try:
                value = json.loads(value)
            except ValueError:
                return value
        if isinstance(value, dict):
            return ", ".join(f"{name} {number}" for name, number in value.items())
        return value

    def to_python(self, value: Any) -> dict[str, int]:  # type: ignore[override]
        text = super().to_python(value)
        out: dict[str, int] = {}
        for item in filter(None, (part.strip() for part in re.split(r"[,\n;]", text or ""))):
            found = NUMERAL.match(item)
            if found is None or not 0 <= int(found[2]) <= 100:
                raise forms.ValidationError(
                    f"{item!r} is not a name and a numeral. Write each name with the number of the last king or "
                    "queen of that name before the campaign (0 to 100), separated by commas, e.g. Edward 2, Mary 1."
                )
            out[found[1].strip()] = int(found[2])
        return out


class CrownForm(forms.ModelForm):  # type: ignore[type-arg]  # not subscriptable at run time
    numerals = NumeralsField(
        label="Pre-campaign numerals",
        required=False,
        help_text="e.g. Edward 2, Mary 1: the campaign's first Edward is then Edward III.",
    )

    class Meta:
        model = Crown
        fields = ["campaign", "name", "home_dynasty", "numerals"]  # the admin adds the rest; its state is the rules'


@admin.register(Crown)
class CrownAdmin(DeskAdmin):
    """A country's throne: whose it is, who controls it, any Dynastic Union and (BloodLine) its
    Stability history. Unions are made and undone by the succession services. Changing the
    pre-campaign numerals counts the crown's regnal numbers again from them."""

    form = CrownForm

    list_display = [
        "name",
        "campaign",
        "home_dynasty",
        "controlled_by",
        "union_with",
        "union_since",
        "stability",
        "annexed",
        "numerals",
    ]
    list_filter = ["campaign", ("union_with", admin.EmptyFieldListFilter)]
    search_fields = ["name"]
    list_select_related = ["campaign", "home_dynasty", "controlled_by", "union_with"]
    readonly_fields = ["controlled_by", "union_with", "union_since", "stability", "state"]
    inlines = [CrownEventInline]

    @admin.display(boolean=True, description="annexed (landless home house)")
    def annexed(self, obj: Crown) -> bool:
        return obj.annexed

    def save_model(self, request: HttpRequest, obj: Crown, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if "numerals" in form.changed_data:
            changed = renumber(obj.campaign, obj.name)
            reigns = "1 reign" if changed == 1 else f"{changed} reigns"
            self.message_user(request, f"{obj.name}: counted again from the pre-campaign numerals, {reigns} renumbered.")


@admin.register(ControlChange)
class ControlChangeAdmin(DeskAdmin):
    """Who controlled each character and crown over time (read-only: written by the services)."""

    list_display = ["year", "step", "character", "crown", "from_dynasty", "to_dynasty", "cause", "campaign"]
    list_filter = ["campaign", "cause", "year"]
    list_select_related = ["character", "crown", "from_dynasty", "to_dynasty", "campaign"]
    search_fields = ["character__given_name", "character__dynastic_name", "crown__name", "from_dynasty__name", "to_dynasty__name"]
    ordering = ["-year", "-pk"]
    readonly_fields = ["campaign", "year", "step", "character", "crown", "from_dynasty", "to_dynasty", "cause"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Modifier)
class ModifierAdmin(DeskAdmin):
    """Active and ended modifiers with the condition that keeps them alive (read-only: the
    succession services create them and end them)."""

    list_display = ["__str__", "kind", "value", "crown", "dynasty", "against", "claimant", "start_year", "end_year", "end_reason"]
    list_filter = ["campaign", "kind", ("end_year", admin.EmptyFieldListFilter)]
    ordering = ["-start_year", "-pk"]
    search_fields = ["reason", "crown", "claimant__given_name"]
    list_select_related = ["dynasty", "against", "claimant", "character"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Province)
class ProvinceAdmin(DeskAdmin):
    """Blood Royale's province register (read-only here: the GM records it at the table, on the Provinces
    page, through its events: a province added or corrected, changing hands, a marker, a new capital)."""

    list_display = readonly_fields = (
        "name",
        "country",
        "controlled_by",
        "neutral",
        "capital_of",
        "castle",
        "resource",
        "famine_year",
        "rebellion_year",
        "campaign",
    )
    list_filter = ["campaign", "country", "neutral", "resource"]
    search_fields = ["name", "country"]
    ordering = ["country", "name"]
    list_select_related = ["controlled_by", "campaign"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # the event province_record

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Renunciation)
class RenunciationAdmin(DeskAdmin):
    list_display = ["character", "crown", "year", "source", "campaign"]
    list_filter = ["campaign", "crown"]
    search_fields = ["character__given_name", "character__dynastic_name", "crown"]
    ordering = ["-year", "-pk"]
    list_select_related = ["character", "campaign"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # through the claim_renounce service (contracts will call it)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class TitleHoldingInline(DeskTabularInline):
    model = TitleHolding
    extra = 0
    can_delete = False
    fields = readonly_fields = ("holder", "start_year", "end_year", "how", "disputed")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


TITLE_GRANTS = ("title_grant", "bloodline_title_grant")
"""The table's events that grant a title (``dynasties.table_events.titles``): the desk's Titles list links to them."""


@admin.register(Title)
class TitleAdmin(DeskAdmin):
    list_display = ["name", "province", "crown", "holder", "granted_year", "income", "campaign"]
    list_filter = ["campaign", "crown"]
    search_fields = ["name", "province", "holder__given_name"]
    list_select_related = ["holder", "campaign"]
    readonly_fields = ["holder", "granted_year", "granted_to", "provinces"]  # provinces: the title's grant
    inlines = [TitleHoldingInline]

    change_list_template = "admin/dynasties/title/change_list.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # granted at the table: the events title_grant (optional rule G) and bloodline_title_grant

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        """The list points to where titles are granted: the table's events of the campaign being kept."""
        chosen = chosen_campaign(request)
        grants = [event(key) for key in TITLE_GRANTS]
        links = (
            [(e.label, reverse("pages:event", args=[chosen.slug, e.key])) for e in grants if e is not None and e.applies(chosen)]
            if chosen is not None
            else []
        )
        return super().changelist_view(request, {**(extra_context or {}), "title_grants": links, "desk_chosen": chosen})

    @admin.display(description="income (controller's share)")
    def income(self, obj: Title) -> str:
        """BloodLine: the land values plus again the largest; at least half to the controller."""
        if not obj.provinces:
            return "-"
        income = title_income(obj)
        return f"{income.total} ({income.controller_share})"
