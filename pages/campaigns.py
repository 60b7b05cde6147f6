"""Pages: creating a campaign (issue 7).

Any logged-in user may create a campaign and becomes its game master. The form takes the name,
the ruleset, the start year, the ruleset's optional rules, the number of player dynasties (the
default houses of ``default_dynasties``), a player by username for any of their crowns, observers,
and the set-up: the standard starting families, or a prehistory of N turns played by the automatic
player (``operations.simulation.simulate``). The form checks everything and says what to fix next to
the field; ``campaign.services.campaign_start`` then makes it all in one transaction (a refused
member leaves no half-made campaign) and the one-time form key makes a second submit harmless.

Without JavaScript every crown and every ruleset's options are in the page; a few CSS ``:has()``
rules (made here from the same data) hide the crowns and options the chosen ruleset does not use.
"""

from __future__ import annotations

import re
from functools import reduce
from operator import or_
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_http_methods

from campaign.jobs import job_check
from campaign.models import Campaign, DiceEntry, Job, JobKind, JobState
from dynasties.models import DynastyKind
from dynasties.services.eu_setup import eu_check
from dynasties.services.setup import default_dynasties
from operations.services import MAX_PREHISTORY_TURNS, CampaignAlreadyCreated, campaign_start, prehistory_job
from pages import eu_setup
from pages.common import signed_in
from rules import RULESET_LABELS, default_ruleset, get_ruleset
from rules.errors import RuleError
from rules.names import BLOOD_ROYALE_CROWNS

MIN_YEAR, MAX_YEAR = 1000, 1900
SETUPS = [
    ("standard", "The standard starting families"),
    ("prehistory", "A generated prehistory: the automatic player plays some turns first"),
]


def _seating() -> dict[str, dict[int, list[str]]]:
    """For each ruleset, the numbers of players it takes and the player crowns of each (asked of
    ``default_dynasties`` itself, so the form never disagrees with the set-up)."""
    out: dict[str, dict[int, list[str]]] = {}
    for ruleset in RULESET_LABELS:
        counts: dict[int, list[str]] = {}
        for n in range(1, 13):
            try:
                specs = default_dynasties(n, ruleset)
            except RuleError:
                continue
            counts[n] = [s.crown for s in specs if s.crown and s.kind == DynastyKind.PLAYER]
        out[ruleset] = counts
    return out


SEATING = _seating()
PLAYER_COUNTS = sorted({n for counts in SEATING.values() for n in counts})
CROWNS = list(dict.fromkeys(c for counts in SEATING.values() for crowns in counts.values() for c in crowns))
CROWNS += [c for c in eu_setup.majors() if c not in CROWNS]  # an EU campaign seats a player for any major ticked


CHOOSING = [r for r in RULESET_LABELS if not get_ruleset(r).europa_crowns]  # the table chooses its countries
COUNTRIES_HELP = (
    "Leave empty for the rulebook's: five players play all five; four, all but England ('England becomes a "
    "non-player country'); three, England, France and Germany. Or tick the countries the players choose, one "
    "each: three players 'Allow a free selection from all five countries'; four may choose the odd country out."
)


def _crowns_of(ruleset: str) -> list[str]:
    counts = SEATING.get(ruleset) or {}
    return counts[max(counts)] if counts else []


def _option_choices() -> list[tuple[str, list[tuple[str, str]]]]:
    groups = []
    for ruleset, label in RULESET_LABELS.items():
        known = get_ruleset(ruleset).OPTIONAL_RULES
        groups.append((label, [(f"{ruleset}:{key}", text) for key, text in known.items()]))
    return groups


def seat_css() -> SafeString:
    """CSS that hides, for the ruleset and the number of players chosen, the crowns nobody can
    play and the other rulesets' options (a field with an error or a ticked box stays shown)."""
    rules = []
    for ruleset in RULESET_LABELS:
        chosen = f'form.create:has(input[name="ruleset"][value="{ruleset}"]:checked)'
        crowns = _crowns_of(ruleset)
        if _ticks_countries(ruleset):  # its countries are ticked, not counted: the players' number is not asked
            rules += [f"{chosen} .seat-{c}:not(.invalid)" for c in CROWNS if c not in eu_setup.majors()]
            rules += [*eu_setup.seat_css(chosen), f"{chosen} .players:not(.invalid)"]
            rules.append(f"{chosen} .options-group:not(.rules-{ruleset}):not(:has(input:checked))")
            continue
        choosing = ruleset in CHOOSING
        ticked = ':has(input[name="countries"]:checked)'
        by_number = f"{chosen}:not({ticked})" if choosing else chosen  # the rulebook's default for the number
        for crown in CROWNS:
            if crown not in crowns:
                rules.append(f"{chosen} .seat-{crown}:not(.invalid)")
                continue
            for n in PLAYER_COUNTS:
                if crown not in SEATING[ruleset].get(n, crowns):
                    number = f'select[name="players"] option[value="{n}"]:checked'
                    rules.append(f"{by_number}:has({number}) .seat-{crown}:not(.invalid)")
            if choosing:  # countries ticked: the seats of those ticked
                rules.append(
                    f'{chosen}{ticked}:not(:has(input[name="countries"][value="{crown}"]:checked)) .seat-{crown}:not(.invalid)'
                )
        if not choosing:
            rules.append(f"{chosen} .countries:not(.invalid):not(:has(input:checked))")
        rules.append(f"{chosen} .options-group:not(.rules-{ruleset}):not(:has(input:checked))")
    rules.append('form.create:has(input[name="setup"][value="standard"]:checked) .prehistory:not(.invalid)')
    ticking = ", ".join(f'input[name="ruleset"][value="{r}"]:checked' for r in RULESET_LABELS if _ticks_countries(r))
    rules.append(f"form.create:not(:has({ticking})) .eu-setup:not(.invalid)")
    return mark_safe(",\n".join(rules) + " { display: none; }")  # noqa: S308 - built from constants only


def _names(text: str) -> list[str]:
    return list(dict.fromkeys(n for n in re.split(r"[\s,;]+", text.strip()) if n))


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=120, label="Name of the campaign", error_messages={"required": "Give the campaign a name."})
    ruleset = forms.ChoiceField(choices=list(RULESET_LABELS.items()), initial=default_ruleset().name, widget=forms.RadioSelect)
    players = forms.TypedChoiceField(
        coerce=int, choices=[(n, str(n)) for n in PLAYER_COUNTS], initial=5, label="Player dynasties"
    )
    countries = forms.MultipleChoiceField(
        required=False,
        choices=[(c, f"Play {c}") for c in BLOOD_ROYALE_CROWNS],  # "England" alone labels its seat
        widget=forms.CheckboxSelectMultiple,
        label="Countries played",
        help_text=COUNTRIES_HELP,
    )
    start_year = forms.IntegerField(
        required=False,
        min_value=MIN_YEAR,
        max_value=MAX_YEAR,
        label="Start year",
        help_text="Leave empty for the ruleset's own: "
        + ", ".join(f"{get_ruleset(r).START_YEAR} for {label}" for r, label in RULESET_LABELS.items())
        + ".",
    )
    end_year = forms.IntegerField(
        required=False,
        min_value=MIN_YEAR,
        max_value=MAX_YEAR,
        label="The agreed last turn (its year)",
        help_text="The game ends once this turn and its cashing-in are over; empty: no agreed end (the GM may set or "
        "change it on the closing page).",
    )
    money_target = forms.IntegerField(
        required=False,
        min_value=1,
        label="The money target",
        help_text="Blood Royale only: a house with this sum or more after a turn's cashing-in wins (the rulebook's "
        "example: 800 Crowns); empty: none.",
    )
    options = forms.MultipleChoiceField(
        required=False, choices=_option_choices(), widget=forms.CheckboxSelectMultiple, label="Optional rules"
    )
    observers = forms.CharField(
        required=False,
        max_length=1000,
        label="Observers",
        help_text="Usernames, separated by commas or spaces. Observers see the public pages, never money or contracts.",
    )
    setup = forms.ChoiceField(choices=SETUPS, initial="standard", widget=forms.RadioSelect, label="Set-up")
    turns = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_PREHISTORY_TURNS,
        label="Turns of prehistory",
        help_text=f"1 to {MAX_PREHISTORY_TURNS} turns of {default_ruleset().turn_length} years each "
        "(a few seconds per 10 turns).",
    )
    seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=2**31 - 1,
        label="Dice seed",
        help_text="Optional: the same seed plays the same prehistory. Empty: a random one (the chronicle records it).",
    )

    dice_entry = forms.ChoiceField(
        required=False,  # not chosen: each die's face
        choices=DiceEntry.choices,
        initial=DiceEntry.FACES,
        widget=forms.RadioSelect,
        label="Typed dice",
        help_text="How dice rolled at the table are typed in: a total is one number per roll (7 for 2d6).",
    )
    auto_pass_certain = forms.BooleanField(
        required=False,
        initial=True,
        label="Pass survival rolls that cannot fail without rolling them",
        help_text="Logged as certain; untick to roll them all.",
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self._near: dict[str, str] = {}  # unknown username -> the user of that name in another case
        for crown in CROWNS:
            self.fields[f"player_{crown}"] = forms.CharField(
                required=False, max_length=150, label=crown, widget=forms.TextInput(attrs={"autocomplete": "off"})
            )
        eu_setup.add_fields(self)

    def eu_rows(self) -> list[dict[str, Any]]:
        return eu_setup.rows(self)

    def eu_invalid(self) -> bool:
        return any(name.startswith("eu_") for name in self.errors)

    # the template shows the crowns and option groups in its own layout
    def seat_fields(self) -> list[tuple[str, forms.BoundField]]:
        return [(crown, self[f"player_{crown}"]) for crown in CROWNS]

    def option_groups(self) -> list[dict[str, Any]]:
        ticked = set(self["options"].value() or [])
        groups = []
        for ruleset, label in RULESET_LABELS.items():
            known = get_ruleset(ruleset).OPTIONAL_RULES
            groups.append(
                {
                    "ruleset": ruleset,
                    "label": label,
                    "options": [(f"{ruleset}:{key}", text, f"{ruleset}:{key}" in ticked) for key, text in known.items()],
                }
            )
        return groups

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        ruleset, players = data.get("ruleset"), data.get("players")
        if ruleset and not _ticks_countries(ruleset):  # the EU set-up's fields, hidden, are not read
            for name in [n for n in self.errors if n.startswith("eu_")]:
                del self.errors[name]
        crowns: list[str] | None = None
        if ruleset:
            label = RULESET_LABELS[ruleset]
            wrong = [v for v in data.get("options") or [] if not v.startswith(f"{ruleset}:")]
            if wrong:
                self.add_error(
                    "options",
                    (
                        f"{'These rules belong' if len(wrong) > 1 else 'This rule belongs'} to another ruleset, not to "
                        f"{label}: untick {', '.join(self._option_label(v) for v in wrong)}."
                    ),
                )
            data["optional_rules"] = {v.split(":", 1)[1]: True for v in data.get("options") or [] if v not in wrong}
            if _ticks_countries(ruleset):
                crowns = self._clean_eu(data)
            elif players is not None:
                try:
                    specs = default_dynasties(players, ruleset, data.get("countries") or None)
                    crowns = [s.crown for s in specs if s.crown and s.kind == DynastyKind.PLAYER]
                except RuleError as exc:
                    self.add_error("countries" if "countries" in exc.fields else "players", exc.message)
        if data.get("setup") == "prehistory" and data.get("turns") is None and "turns" not in self.errors:
            self.add_error("turns", f"How many turns of prehistory? Give 1 to {MAX_PREHISTORY_TURNS}.")
        self._clean_members(data, ruleset, players, crowns)
        return data

    def _clean_eu(self, data: dict[str, Any]) -> list[str]:
        """The EU set-up: the countries and first monarchs, every problem beside its field."""
        majors = eu_setup.clean(self, data)
        if not data["eu_countries"] and "eu_first_turn" not in self.errors:
            self.add_error(None, "Tick the countries of the campaign (at least two).")
            return majors
        try:
            eu_check(data["eu_countries"], first_turn=data["eu_first_turn"])
        except RuleError as exc:
            for name, problem in exc.fields.items():
                target = eu_setup.field_of(name)
                if target is None or target not in self.errors:
                    self.add_error(target, problem)
        return majors

    def _option_label(self, value: str) -> str:
        ruleset, key = value.split(":", 1)
        return f"“{get_ruleset(ruleset).OPTIONAL_RULES.get(key, key)}” ({RULESET_LABELS.get(ruleset, ruleset)})"

    def _clean_members(self, data: dict[str, Any], ruleset: str | None, players: int | None, crowns: list[str] | None) -> None:
        """Players by crown and observers, by username: each must exist, play one role, and not be
        the creator (he is the GM)."""
        wanted = {crown: (data.get(f"player_{crown}") or "").strip() for crown in CROWNS}
        observers = _names(data.get("observers") or "")
        users = self._users([n for n in wanted.values() if n] + observers)
        me = self.user.get_username()
        seats: dict[str, Any] = {}
        playing: dict[str, str] = {}
        for crown, username in wanted.items():
            if not username:
                continue
            field = f"player_{crown}"
            if crowns is not None and ruleset and crown not in crowns and _ticks_countries(ruleset):
                self.add_error(
                    field,
                    f"{crown} is not among the countries ticked above (a player plays a major's house): tick it, or "
                    "leave its player empty.",
                )
            elif crowns is not None and crown not in crowns:
                self.add_error(
                    field,
                    (
                        f"A {players}-player {RULESET_LABELS[ruleset or '']} campaign has no {crown} "
                        f"(its crowns: {', '.join(crowns)}): leave it empty, choose more players"
                        + (" or tick it among the countries played." if ruleset in CHOOSING else ".")
                    ),
                )
            elif username not in users:
                self.add_error(field, self._unknown(username))
            elif username == me:
                self.add_error(
                    field,
                    (
                        "You are creating the campaign, so you are its game master, and a game master cannot also "
                        "play a dynasty: leave it empty (you run it) or name another player."
                    ),
                )
            elif username in playing:
                self.add_error(field, f"{username} already plays {playing[username]}: a player plays one dynasty.")
            else:
                playing[username] = crown
                seats[crown] = users[username]
        problems = []
        for username in observers:
            if username not in users:
                problems.append(self._unknown(username))
            elif username == me:
                problems.append("You are the game master already; an observer is someone else.")
            elif username in playing:
                problems.append(f"{username} plays {playing[username]}; a member has one role, so not an observer too.")
        for problem in problems:
            self.add_error("observers", problem)
        data["seats"] = seats
        data["observer_users"] = [users[n] for n in observers if n in users]

    def _users(self, names: list[str]) -> dict[str, Any]:
        User = get_user_model()
        field = User.USERNAME_FIELD
        found = {u.get_username(): u for u in User.objects.filter(**{f"{field}__in": set(names)})}
        missing = [n for n in names if n not in found]
        if missing:
            query = reduce(or_, (Q(**{f"{field}__iexact": n}) for n in missing))
            for u in User.objects.filter(query):
                for n in missing:
                    if u.get_username().lower() == n.lower():
                        self._near[n] = u.get_username()
        return found

    def _unknown(self, username: str) -> str:
        near = self._near.get(username)
        if near:
            return f"There is no user called “{username}”; did you mean “{near}”? (Usernames are case-sensitive.)"
        return (
            f"There is no user called “{username}”: check the spelling, or leave it empty and invite them by a "
            "link from the Players page once the campaign is made."
        )


@require_http_methods(["GET", "POST"])
@login_required
def new(request: HttpRequest) -> HttpResponse:
    """Create a campaign: the creator is its game master."""
    if request.method == "POST":
        form = CampaignForm(request.POST, user=request.user)
        if form.is_valid():
            d = form.cleaned_data
            prehistory = d["setup"] == "prehistory"
            key = (request.POST.get("action_key") or "").strip()
            try:
                if not key:
                    raise RuleError("The form has no valid action key: reload the page and submit it again.")
                campaign = campaign_start(
                    name=d["name"],
                    gm=signed_in(request),
                    ruleset=d["ruleset"],
                    players=d["players"],
                    start_year=d.get("start_year"),
                    optional_rules=d["optional_rules"],
                    seats=d["seats"],
                    observers=d["observer_users"],
                    prehistory_turns=(d["turns"] or 0) if prehistory else 0,
                    seed=d.get("seed") if prehistory else None,
                    key=key,
                    dice_entry=d["dice_entry"] or DiceEntry.FACES,
                    auto_pass_certain=d["auto_pass_certain"],
                    end_year=d.get("end_year"),
                    money_target=d.get("money_target"),
                    countries=(d.get("countries") or None) if d["ruleset"] in CHOOSING else None,
                    **_eu_arguments(d),
                )
            except CampaignAlreadyCreated as exc:
                messages.info(request, exc.message)
                return redirect("pages:dashboard", exc.campaign.slug)
            except RuleError as exc:
                mapped = [eu_setup.field_of(f) if ":" in f or f == "first_turn" else f for f in exc.fields]
                field = next((f for f in mapped if f in form.fields), None)
                form.add_error(field, exc.message)
            else:
                job = prehistory_job(campaign)
                if job is None or job.state == JobState.DONE:
                    messages.success(request, f"{campaign.name} is created; you are its game master.")
                    return redirect("pages:dashboard", campaign.slug)
                if job.state != JobState.FAILED:  # a worker plays it: the page follows its progress
                    return redirect(f"{request.path}?job={job.pk}")
                messages.error(request, _failed(job))  # kept, marked: its page offers Retry and Delete
                return redirect("pages:dashboard", campaign.slug)
        return render(request, "pages/campaigns/new.html", _context(form), status=400)
    if request.GET.get("job"):
        return _progress(request, request.GET["job"])
    return render(request, "pages/campaigns/new.html", _context(CampaignForm(user=request.user)))


def _ticks_countries(ruleset: str) -> bool:
    """A campaign whose countries are ticked and their first monarchs chosen (the EU monarch tables)."""
    return get_ruleset(ruleset).monarch_table


def _eu_arguments(d: dict[str, Any]) -> dict[str, Any]:
    """An EU campaign's countries and starting turn for ``campaign_start`` (others: none)."""
    if not _ticks_countries(d["ruleset"]):
        return {}
    return {"eu_countries": d["eu_countries"], "eu_first_turn": d["eu_first_turn"]}


def _failed(job: Job) -> str:
    return (
        f"The prehistory failed: {job.error} The campaign is kept, not open for play: set it up again (Retry) "
        "or delete it, from its page."
    )


def _progress(request: HttpRequest, job_id: str) -> HttpResponse:
    """The prehistory being played (turn N of M, the page refreshes itself); once done, the new
    campaign; if it failed, why. Only its creator sees it."""
    try:
        job = Job.objects.filter(pk=job_id, kind=JobKind.PREHISTORY, by=signed_in(request)).first()
    except ValidationError:  # not a job's id
        job = None
    if job is None:
        raise Http404("No such campaign being created.")
    job = job_check(job)  # a lost one says so (its campaign marked: its page offers Retry and Delete)
    campaign = Campaign.objects.filter(pk=job.campaign_id).first() if job.campaign_id else None
    if job.state == JobState.DONE and campaign is not None:
        messages.success(request, f"{campaign.name} is created; you are its game master.")
        return redirect("pages:dashboard", campaign.slug)
    if job.state == JobState.FAILED and campaign is not None and prehistory_job(campaign) == job:
        messages.error(request, _failed(job))
        return redirect("pages:dashboard", campaign.slug)
    why = ""  # still going; else its campaign was deleted since, or set up again
    if job.state == JobState.FAILED:
        why = f"The prehistory failed: {job.error} Its campaign was deleted or set up again since: see your campaigns."
    elif job.state == JobState.DONE:
        why = "Its campaign was deleted since: see your campaigns."
    return render(request, "pages/campaigns/progress.html", {"job": job, "name": job.params.get("name", ""), "why": why})


def _context(form: CampaignForm) -> dict[str, Any]:
    return {"form": form, "seat_css": seat_css()}


urlpatterns: list[URLPattern] = [
    path("new/", new, name="new"),
]
