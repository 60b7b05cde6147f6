"""The game master's admin for campaigns, members, rule tables and the (read-only) roll log.

The admin stays thin: creating a campaign, adding a member, editing and restoring a rule table all
go through ``campaign.services`` / ``dynasties.services``; the forms only show the services' rule
errors next to the right field.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html_join

from campaign.models import ActionKey, Campaign, Checkpoint, ChronicleEntry, Membership, Roll, RuleTable
from campaign.services import copy_saved, membership_add, membership_check, table_restore_defaults, table_update
from desk.admin.base import DeskAdmin, DeskTabularInline, form_campaign
from desk.forms_tables import TableGrid
from dynasties.models import Dynasty, Posting, RollSubject, Seat, house_of, seat_write
from dynasties.services import campaign_create
from dynasties.services.setup import default_dynasties
from rules import get_ruleset
from rules import rulesets as rulesets_all
from rules.errors import RuleError
from rules.names import BLOOD_ROYALE_CROWNS
from rules.tables import TABLE_TITLES, VALIDATORS, defaults_for, validate_table


class ReadOnlyAdminMixin:
    """For the roll log and the chronicle: nothing is rolled that is not logged, and nothing logged
    is changed afterwards. Superusers may view; nobody may add, change or delete."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        model = self.model  # type: ignore[attr-defined]
        return [f.name for f in model._meta.concrete_fields] + [f.name for f in model._meta.many_to_many]


# Campaigns ------------------------------------------------------------------------------------


class OptionsField(forms.MultipleChoiceField):
    """The optional rules as one box each (no JSON); the ruleset's ``clean_options`` judges them, so
    a rule of another ruleset is refused in its words."""

    widget = forms.CheckboxSelectMultiple

    def __init__(self, *args: Any, rulesets: Any = None, **kwargs: Any) -> None:
        chosen = list(rulesets) if rulesets is not None else rulesets_all()
        many = len(chosen) > 1
        choices = {
            key: f"{text} ({r.label})" if many else text for r in reversed(chosen) for key, text in r.optional_rules.items()
        }
        kwargs.setdefault("required", False)
        kwargs.setdefault("label", "Optional rules")
        ordered = sorted(choices.items(), key=lambda c: c[1])
        super().__init__(*args, choices=ordered, **kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, dict):
            return [key for key, on in value.items() if on]
        return value

    def validate(self, value: Any) -> None:  # the ruleset's check names an unknown rule
        if self.required and not value:
            raise forms.ValidationError(self.error_messages["required"], code="required")

    def clean(self, value: Any) -> dict[str, bool]:
        return {str(key): True for key in super().clean(value) or []}


class CampaignCreateForm(forms.ModelForm):  # type: ignore[type-arg]  # not subscriptable at run time
    """Adding a campaign in the admin runs ``campaign_create`` (dynasties, starting families, tables)."""

    players = forms.IntegerField(min_value=2, max_value=5, initial=5, help_text="Blood Royale: 3 to 5 players.")
    countries = forms.MultipleChoiceField(
        required=False,
        choices=[(c, c) for c in BLOOD_ROYALE_CROWNS],
        widget=forms.CheckboxSelectMultiple,
        help_text="Blood Royale: leave empty for the rulebook's default (four players: England is the "
        "non-player country), or tick one country per player (three players choose freely).",
    )
    optional_rules = OptionsField(help_text="Each applies to the ruleset it names.")

    class Meta:
        model = Campaign
        fields = ["name", "slug", "ruleset", "optional_rules"]

    def clean_ruleset(self) -> str:
        ruleset: str = self.cleaned_data["ruleset"]
        try:
            get_ruleset(ruleset)
        except RuleError as exc:
            raise forms.ValidationError(exc.message) from exc
        return ruleset

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        check_options(self, cleaned.get("ruleset"))
        ruleset, players = cleaned.get("ruleset"), cleaned.get("players")
        if ruleset and players is not None:
            try:  # the set-up's own choice of houses, so the form never disagrees with it
                cleaned["dynasties"] = default_dynasties(players, ruleset, cleaned.get("countries") or None)
            except RuleError as exc:
                self.add_error("countries" if "countries" in exc.fields else "players", exc.message)
        return cleaned


class CampaignChangeForm(forms.ModelForm):  # type: ignore[type-arg]  # not subscriptable at run time
    """A GM's correction of a running campaign (year, step, optional rules); the ruleset is fixed."""

    class Meta:
        model = Campaign
        fields = ["name", "slug", "current_year", "step", "optional_rules"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["optional_rules"] = OptionsField(rulesets=[get_ruleset(self.instance.ruleset)])

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        check_options(self, self.instance.ruleset)
        return cleaned


def check_options(form: forms.ModelForm[Campaign], ruleset: str | None) -> None:
    """The ruleset's own check of the optional rules, shown on the optional_rules field."""
    if not ruleset or "optional_rules" not in form.cleaned_data:
        return
    options = form.cleaned_data.get("optional_rules") or {}
    if not isinstance(options, dict):
        form.add_error("optional_rules", "Tick the optional rules that apply.")
        return
    try:
        form.cleaned_data["optional_rules"] = get_ruleset(ruleset).clean_options(options)
    except RuleError as exc:
        form.add_error("optional_rules", exc.message)


class MembershipForm(forms.ModelForm):  # type: ignore[type-arg]  # not subscriptable at run time
    """A member of the campaign the desk works on: a new one named by his username (no list of the
    site's accounts, no id to look one up by); an existing one keeps his account and campaign, and
    changes role or house."""

    username = forms.CharField(
        max_length=150,
        help_text="The account's username, as he logs in. A newcomer joins by an invitation link (the Players page).",
    )

    dynasty = forms.ModelChoiceField(
        queryset=Dynasty.objects.none(),
        required=False,
        help_text="The house he plays (a player) or is tied to (a GM or an observer may have none).",
    )
    campaign_id: int | None = None  # the campaign the desk works on (MembershipAdmin.get_form): its houses are offered

    class Meta:
        model = Membership
        fields = ["campaign", "user", "role"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:  # an existing member keeps his account
            self.fields.pop("username", None)
        field = self.fields["dynasty"]
        assert isinstance(field, forms.ModelChoiceField)
        houses = Dynasty.objects.order_by("pk")
        field.queryset = houses.none() if self.campaign_id is None else houses.filter(campaign_id=self.campaign_id)
        if self.instance.pk is not None and "dynasty" not in self.initial:
            self.initial["dynasty"] = Seat.objects.filter(membership_id=self.instance.pk).values_list("house", flat=True).first()

    def clean_username(self) -> Any:
        name = self.cleaned_data["username"].strip()
        User = get_user_model()
        user = User._default_manager.filter(**{User.USERNAME_FIELD: name}).first()
        if user is None:
            raise forms.ValidationError(
                f"No account is called “{name}”: check the spelling, or invite the player from the campaign's Players page."
            )
        self.instance.user = user
        return name

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        user = self.instance.user if self.instance.user_id is not None else None
        campaign, role = self.instance.campaign if self.instance.campaign_id else None, cleaned.get("role")
        if campaign is not None and role and user is not None:
            try:
                membership_check(campaign=campaign, user=user, role=role, dynasty=cleaned.get("dynasty"))
            except RuleError as exc:
                field = next(iter(exc.fields), None)
                self.add_error(field if field in self.fields else None, exc.message)
            others = Membership.objects.filter(campaign=campaign, user=user).exclude(pk=self.instance.pk)
            if self.instance.pk is None and others.exists():
                self.add_error("username", f"{user} is already a member of {campaign.name}: change that membership instead.")
        return cleaned


class MembershipInline(DeskTabularInline):
    """Shown on the campaign page for reading; members are added on the Membership page, which goes
    through ``membership_add``."""

    model = Membership
    fields = readonly_fields = ("user", "role", "dynasty")
    extra = 0
    show_change_link = True

    @admin.display(description="dynasty")
    def dynasty(self, obj: Membership) -> Any:
        return house_of(obj) or "-"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Membership]:
        return super().get_queryset(request).select_related("user", "seat__house")


@admin.register(Campaign)
class CampaignAdmin(DeskAdmin):
    list_display = ["name", "ruleset", "current_year", "step", "slug"]
    list_filter = ["ruleset", "step"]
    search_fields = ["name", "slug"]
    inlines = [MembershipInline]
    actions = ["restore_all_tables"]

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        kwargs["form"] = CampaignCreateForm if obj is None else CampaignChangeForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        if obj is None:
            return ("name", "slug", "ruleset", "players", "countries", "optional_rules")
        return (
            "name",
            "slug",
            "ruleset",
            "start_year",
            "turn_length",
            "current_year",
            "step",
            "allow_overdraft",
            "dice_entry",
            "auto_pass_certain",
            "optional_rules",
            "created_at",
            "printables",
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # The ruleset, start and turn length shape every record already kept; a GM corrects the
        # current year and step, not the ruleset.
        return ["ruleset", "start_year", "turn_length", "created_at", "printables"] if obj is not None else []

    @admin.display(description="print and export")
    def printables(self, obj: Campaign) -> str:
        """Every sheet, each turn's announcements, the campaign's tree and GEDCOM."""
        years = sorted(set(ChronicleEntry.objects.filter(campaign=obj, kind="announcements").values_list("year", flat=True)))
        links = [
            (reverse("print:campaign_sheets", args=[obj.slug]), "all character sheets (PDF)"),
            (reverse("trees:tree", args=[obj.slug, "campaign"]) + "?format=pdf", "the campaign's tree (PDF)"),
            (reverse("gedcom-campaign", args=[obj.slug]), "GEDCOM"),
        ] + [(reverse("print:announcements", args=[obj.slug, y]), f"announcements {y}") for y in years[-6:]]
        return format_html_join(" · ", '<a href="{}">{}</a>', links)

    def get_inline_instances(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        return super().get_inline_instances(request, obj) if obj is not None else []

    def save_model(self, request: HttpRequest, obj: Campaign, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        created = campaign_create(
            name=form.cleaned_data["name"],
            slug=form.cleaned_data.get("slug") or None,
            ruleset=form.cleaned_data["ruleset"],
            players=form.cleaned_data["players"],
            dynasties=form.cleaned_data["dynasties"],
            optional_rules=form.cleaned_data.get("optional_rules") or {},
            by=request.user,
        )
        copy_saved(obj, created)

    @admin.action(description="Restore the shipped defaults of all rule tables")
    def restore_all_tables(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        for campaign in queryset:
            try:
                tables = table_restore_defaults(campaign=campaign, by=request.user)
            except RuleError as exc:
                self.message_user(request, f"{campaign.name}: {exc.message}", messages.ERROR)
                continue
            self.message_user(request, f"{campaign.name}: restored the shipped defaults of {', '.join(t.key for t in tables)}.")


@admin.register(Membership)
class MembershipAdmin(DeskAdmin):
    form = MembershipForm
    list_display = ["user", "campaign", "role", "dynasty"]
    list_filter = ["role", "campaign"]
    list_select_related = ["user", "campaign", "seat__house"]
    search_fields = ["user__username", "campaign__name", "seat__house__name", "seat__house__crown"]

    @admin.display(description="dynasty", ordering="seat__house__name")
    def dynasty(self, obj: Membership) -> Any:
        return house_of(obj) or "-"

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("campaign", "username", "role", "dynasty") if obj is None else ("campaign", "user", "role", "dynasty")

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        campaign = obj.campaign_id if obj is not None else form_campaign(request)
        return type(form.__name__, (form,), {"campaign_id": campaign})  # the house offered: that campaign's

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = super().get_readonly_fields(request, obj)
        return fields if obj is None else [*fields, "user"]  # a seat moves to another account on the Players page

    def save_model(self, request: HttpRequest, obj: Membership, form: Any, change: bool) -> None:
        house = form.cleaned_data.get("dynasty")
        if change:  # the form has checked the membership rules; a change is a plain correction
            super().save_model(request, obj, form, change)
            seat_write(obj, house)
            return
        saved = membership_add(campaign=obj.campaign, user=obj.user, role=obj.role, dynasty=house, by=request.user)
        copy_saved(obj, saved)


# Rule tables ----------------------------------------------------------------------------------


class RuleTableForm(forms.ModelForm):  # type: ignore[type-arg]  # not subscriptable at run time
    """A table's cells as typed fields (``desk.forms_tables``), never its JSON. ``clean`` puts the
    cells back into the table and runs the table's validator, so a bad value is a form error in the
    validator's words; a new table starts as the ruleset's shipped default."""

    key = forms.ChoiceField(
        choices=[(k, TABLE_TITLES.get(k, k)) for k in VALIDATORS],
        help_text="The new table starts as the ruleset's shipped default; you edit its cells on the next page.",
    )

    class Meta:
        model = RuleTable
        fields = ["campaign", "key"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        key = self.instance.key
        self.grid = TableGrid(key, self.instance.data, TABLE_TITLES.get(key, key)) if self.instance.pk else None
        if self.grid is not None:
            self.fields.update(self.grid.fields)
            self.initial.update(self.grid.initial)

    @property
    def sections(self) -> list[dict[str, Any]]:
        """The grid's sections with bound fields, for the template."""
        if self.grid is None:
            return []
        return [
            {
                "title": s.title,
                "grid": s.grid,
                "head": [{"text": h.text, "field": self[h.name] if h.name else None} for h in s.head],
                "rows": [(label, [self[n] if n else None for n in names]) for label, names in s.rows],
                "fields": [self[n] for n in s.names],
            }
            for s in self.grid.sections
        ]

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        key = cleaned.get("key") or self.instance.key
        campaign = cleaned.get("campaign") or (self.instance.campaign if self.instance.campaign_id else None)
        if campaign is None or not key:
            return cleaned
        tables = get_ruleset(campaign.ruleset).DEFAULT_TABLES
        if key not in tables:
            self.add_error(
                "key" if "key" in self.fields else None,
                f"The {campaign.get_ruleset_display()} ruleset has no table called {key!r}; known: {', '.join(tables)}.",
            )
            return cleaned
        if self.grid is None:  # a new table: the shipped default
            if RuleTable.objects.filter(campaign=campaign, key=key).exists():
                self.add_error("key", f"{campaign.name} has this table already: open it from the list to edit it.")
            cleaned["data"] = defaults_for({key: tables[key]})[key]
            return cleaned
        if any(name in self.errors for name in self.grid.fields):
            return cleaned
        data, blanks = self.grid.assemble(cleaned)
        for name, message in blanks.items():
            self.add_error(name, message)
        if blanks:
            return cleaned
        try:
            cleaned["data"] = validate_table(key, data)
        except RuleError as exc:
            self.add_error(None, f"Not saved: {exc.message}")
        return cleaned


@admin.register(RuleTable)
class RuleTableAdmin(DeskAdmin):
    form = RuleTableForm
    list_display = ["key", "campaign", "title"]
    list_filter = ["key", "campaign"]
    list_select_related = ["campaign"]
    search_fields = ["key", "campaign__name", "campaign__slug"]
    actions = ["restore_defaults"]

    @admin.display(description="table")
    def title(self, obj: RuleTable) -> str:
        return TABLE_TITLES.get(obj.key, obj.key)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("campaign", "key")  # the table's title heads its grid

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = super().get_readonly_fields(request, obj)  # the campaign: the one the desk works on
        return [*fields, "key"] if obj is not None else fields

    def save_model(self, request: HttpRequest, obj: RuleTable, form: Any, change: bool) -> None:
        # RuleTableForm.clean ran the same checks, so the service accepts what the form let through.
        saved = table_update(campaign=obj.campaign, key=obj.key, data=form.cleaned_data["data"], by=request.user)
        copy_saved(obj, saved)

    def response_add(self, request: HttpRequest, obj: RuleTable, post_url_continue: str | None = None) -> Any:
        """A new table opens at once as its grid, to edit the shipped default."""
        messages.info(request, "The table starts as the ruleset's shipped default: change its cells below.")
        return HttpResponseRedirect(reverse("admin:campaign_ruletable_change", args=[obj.pk], current_app=self.admin_site.name))

    def changeform_view(
        self, request: HttpRequest, object_id: str | None = None, form_url: str = "", extra_context: Any = None
    ) -> Any:
        """The grid's "Restore the shipped defaults" button: this table only, through the service."""
        if request.method != "POST" or "_restore" not in request.POST or object_id is None:
            return super().changeform_view(request, object_id, form_url, extra_context)
        table = self.get_object(request, object_id)
        if table is None or not self.has_change_permission(request, table):
            return super().changeform_view(request, object_id, form_url, extra_context)
        try:
            table_restore_defaults(campaign=table.campaign, keys=[table.key], by=request.user)
        except RuleError as exc:
            self.message_user(request, f"Not restored: {exc.message}", messages.ERROR)
        else:
            self.message_user(request, "Restored the shipped defaults of this table.")
        return HttpResponseRedirect(request.get_full_path())

    @admin.action(description="Restore the shipped defaults")
    def restore_defaults(self, request: HttpRequest, queryset: QuerySet[RuleTable]) -> None:
        by_campaign: dict[Campaign, list[str]] = defaultdict(list)
        for table in queryset.select_related("campaign"):
            by_campaign[table.campaign].append(table.key)
        for campaign, keys in by_campaign.items():
            try:
                tables = table_restore_defaults(campaign=campaign, keys=keys, by=request.user)
            except RuleError as exc:
                self.message_user(request, f"{campaign.name}: {exc.message}", messages.ERROR)
                continue
            self.message_user(request, f"{campaign.name}: restored the shipped defaults of {', '.join(t.key for t in tables)}.")


# The roll log and the chronicle (read-only) ---------------------------------------------------


class RollSubjectInline(ReadOnlyAdminMixin, DeskTabularInline):
    model = RollSubject
    extra = 0
    fields = ["position", "character"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[RollSubject]:
        return super().get_queryset(request).select_related("character")


@admin.register(Roll)
class RollAdmin(ReadOnlyAdminMixin, DeskAdmin):
    list_display = ["id", "when", "who", "purpose", "detail", "throw", "outcome", "source", "campaign"]  # fits 1280 px
    list_filter = ["campaign", "year", "step", "purpose", "source"]
    ordering = ["-pk"]  # the last roll first
    list_select_related = ["campaign", "entered_by"]
    search_fields = ["purpose", "detail", "outcome", "characters__given_name", "characters__dynastic_name"]
    inlines = [RollSubjectInline]
    exclude = ["characters"]  # shown by the inline, with positions

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f for f in super().get_readonly_fields(request, obj) if f != "characters"] + ["correct"]

    @admin.display(description="correct")
    def correct(self, obj: Roll) -> str:
        """A die typed wrong is corrected through the service, from the roll log's form (issue 20)."""
        if obj.pk is None:
            return "-"
        link = reverse("pages:roll_correct", args=[obj.campaign.slug, obj.pk])
        return format_html_join(
            "", '<a href="{}">{}</a>', [(link, "Correct this die (a birth, sex, characteristic or survival roll of this step)")]
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Roll]:
        return super().get_queryset(request).prefetch_related("characters")

    @admin.display(description="when", ordering="year")
    def when(self, obj: Roll) -> str:
        return f"{obj.year} {obj.step}"

    @admin.display(description="who")
    def who(self, obj: Roll) -> str:
        return ", ".join(c.display_name for c in obj.characters.all()) or "-"

    @admin.display(description="dice")
    def throw(self, obj: Roll) -> str:
        """The dice, their faces, the modifier and the target in one cell: '2d6 [3, 5] +1 vs 7'."""
        faces = ", ".join(map(str, obj.faces)) if isinstance(obj.faces, list) else str(obj.faces)
        text = f"{obj.dice} [{faces}]" + (f" {obj.modifier:+d}" if obj.modifier else "")
        return text + (f" vs {obj.target}" if obj.target is not None else "")


@admin.register(ChronicleEntry)
class ChronicleEntryAdmin(ReadOnlyAdminMixin, DeskAdmin):
    list_display = ["year", "step", "kind", "text", "campaign"]
    list_filter = ["campaign", "year", "step", "kind"]
    ordering = ["-year", "-pk"]  # the last year's lines first
    list_select_related = ["campaign"]
    search_fields = ["text", "kind"]


@admin.register(Checkpoint)
class CheckpointAdmin(ReadOnlyAdminMixin, DeskAdmin):
    """The undo history: a change set per step played through the pages or the API and per desk
    save; one an undo took back stays (``undone_in``) until anything else is written, for redo.
    Undo and redo are done from the campaign's turn page; here they can only be looked at."""

    list_display = ["campaign", "year", "step", "kind", "label", "by", "created_at", "undone_in", "size"]
    list_filter = ["campaign", "year", "step", "kind"]
    list_select_related = ["campaign", "by"]
    search_fields = ["label"]
    ordering = ["-pk"]
    exclude = ["data", "redo"]

    @admin.display(description="Size (bytes)")
    def size(self, obj: Checkpoint) -> int:
        return len(obj.data or b"")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f for f in super().get_readonly_fields(request, obj) if f not in ("data", "redo")] + ["size"]


@admin.register(ActionKey)
class ActionKeyAdmin(ReadOnlyAdminMixin, DeskAdmin):
    """The one-time keys of the forms submitted on the pages: who did what, and when."""

    list_display = ["campaign", "label", "by", "created_at"]
    list_filter = ["campaign"]
    list_select_related = ["campaign", "by"]
    search_fields = ["label", "key"]
    ordering = ["-pk"]


@admin.register(Posting)
class PostingAdmin(DeskAdmin):
    """The ledger, read-only: postings are made by the services; a mistake is undone by a reversing
    posting (``dynasties.treasury.posting_reverse``), never by an edit."""

    list_display = ["id", "year", "step", "payer_name", "payee_name", "amount", "kind", "reason", "campaign"]
    list_filter = ["campaign", "kind", "year"]
    ordering = ["-pk"]  # the last posting first
    search_fields = ["reason", "payer__name", "payee__name"]
    list_select_related = ["campaign", "payer", "payee"]

    @admin.display(description="from")
    def payer_name(self, obj: Posting) -> str:
        return obj.payer.name if obj.payer else "the Treasury"

    @admin.display(description="to")
    def payee_name(self, obj: Posting) -> str:
        return obj.payee.name if obj.payee else "the Treasury"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
