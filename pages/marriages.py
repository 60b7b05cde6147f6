"""Pages: the Marriages step (arrange, betroth, wed, break off) and the Announcements (the chronicle
of the turn per viewer, publishing it, starting the next turn). Issue 7.

A player records the matches of his own house's characters: either side's player (or the GM)
records a match agreed at the table, and either side or the GM may wed or break off a betrothal.
Legality is explained before anything is written (the services' ``match_problems``), and the
money a wedding posts is shown only to whom may see the payer's or the payee's exchequer (the
rule of ``campaign.permissions``). Every write goes through ``pages.common.run_action``; every
GET runs a fixed number of queries."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_http_methods

from campaign.models import STEP_ORDER, Audience, Campaign, ChronicleEntry, Step
from campaign.permissions import may_act_for_any, may_play, runs_the_turn, sees_marriage_money, sees_money, visible
from contracts.models import Contract
from contracts.services import LIVE
from dynasties.models import Character, Dynasty, Marriage, Origin, Posting, Sex, Status
from dynasties.printing import announcement_sections
from dynasties.selectors import label
from dynasties.services.announcements import announcements_make, turn_advance
from dynasties.services.marriages import (
    WeddingMoney,
    marriage_arrange,
    marriage_cancel,
    marriage_terms_set,
    marriage_wed,
    marriages_finish,
    match_problems,
    wedding_money,
    wedding_step,
)
from dynasties.services.play_registry import play_of
from dynasties.treasury import currency
from pages.common import ActionFailed, already_done, context, member, require_gm, run_action, set_choices, shown_with
from pages.debts import debts_for
from pages.sequence import step_page
from rules.families import HUSBAND, TERMS, WIFE, problem_about

STEP_LABELS = dict(Step.choices)


# --- who sees and does what ------------------------------------------------------------------


def _money_line(line: WeddingMoney | Posting, unit: str) -> dict[str, Any]:
    return {
        "amount": line.amount,
        "unit": unit,
        "payer": f"the house of {line.payer.name}" if line.payer else "the Treasury",
        "payee": f"the house of {line.payee.name}" if line.payee else "the Treasury",
        "reason": line.reason,
    }


# --- the Marriages page ------------------------------------------------------------------------


def _free(campaign: Campaign) -> list[Character]:
    """The unmarried, unbetrothed characters in play who may marry, by house (public data)."""
    taken = Marriage.objects.filter(campaign=campaign, ended_year__isnull=True)
    people = list(
        Character.objects.filter(campaign=campaign, status=Status.ALIVE)
        .exclude(origin=Origin.BARON)
        .exclude(pk__in=taken.values("husband_id"))
        .exclude(pk__in=taken.values("wife_id"))
        .select_related("controlled_by", "birth_dynasty")
        .order_by("controlled_by__seat", "controlled_by__name", "-sex", "birth_year", "birth_order", "pk")
    )
    label(campaign, people)  # namesakes told apart: "Jean Valois (b. 1301)"
    return people


def _label(campaign: Campaign, c: Character) -> str:
    charisma = (c.characteristics or {}).get("charisma")
    extra = f", Charisma {int(charisma):+d}" if c.sex == Sex.FEMALE and charisma else ""
    return f"{c.display_name} ({c.age(campaign.current_year)}{extra})"


def _grouped(campaign: Campaign, people: Iterable[Character]) -> list[tuple[str, list[tuple[int, str]]]]:
    groups: dict[str, list[tuple[int, str]]] = {}
    for c in people:
        house = c.controlled_by.name if c.controlled_by else "No house"
        groups.setdefault(house, []).append((c.pk, _label(campaign, c)))
    return list(groups.items())


class ArrangeForm(forms.Form):
    husband = forms.TypedChoiceField(
        label="Groom",
        coerce=int,
        error_messages={"required": "Choose the groom.", "invalid_choice": "Choose an unmarried man from the list."},
    )
    wife = forms.TypedChoiceField(
        label="Bride",
        coerce=int,
        error_messages={"required": "Choose the bride.", "invalid_choice": "Choose an unmarried woman from the list."},
    )
    wed = forms.BooleanField(label="Wed now", required=False)
    husband_joins_wife = forms.BooleanField(label="He joins her house (their children are raised in it)", required=False)
    dowry = forms.CharField(
        label="Dowry",
        required=False,
        max_length=120,
    )
    alliance_title = forms.CharField(
        label="Title for the giving dynasty", required=False, max_length=120, help_text="e.g. 'Duke of Brabant'."
    )

    def __init__(self, data: Any, *, campaign: Campaign, free: list[Character], wedding_open: bool) -> None:
        super().__init__(data)
        self.people = {c.pk: c for c in free}
        men = [c for c in free if c.sex == Sex.MALE]
        women = [c for c in free if c.sex == Sex.FEMALE]
        set_choices(self, "husband", choices=[("", "— choose the groom —"), *_grouped(campaign, men)])
        set_choices(self, "wife", choices=[("", "— choose the bride —"), *_grouped(campaign, women)])
        self.wedding_open = wedding_open
        self.wedding_step = STEP_LABELS[wedding_step(campaign)]
        self.step = STEP_LABELS[campaign.step]
        play = play_of(campaign).marriages
        self.fields["wed"].label = f"Wed now (both must be {play.adult_age()} or older)"
        terms = play.terms_help()
        if terms is None:
            del self.fields["dowry"]
            del self.fields["alliance_title"]
        else:
            self.fields["dowry"].help_text = terms

    def clean_wed(self) -> bool:
        wed = bool(self.cleaned_data.get("wed"))
        if wed and not self.wedding_open:
            raise forms.ValidationError(
                f"Weddings are held in the {self.wedding_step} step and the campaign is at {self.step}: "
                "untick “Wed now” to arrange the betrothal."
            )
        return wed

    def match(self, campaign: Campaign) -> Marriage:
        """The pair as an unsaved match, for the legality check and the money preview."""
        data = self.cleaned_data
        return Marriage(
            campaign=campaign,
            husband=self.people[data["husband"]],
            wife=self.people[data["wife"]],
            arranged_year=campaign.current_year,
            husband_joins_wife=data.get("husband_joins_wife", False),
            dowry=data.get("dowry", "").strip(),
            alliance_title=data.get("alliance_title", "").strip(),
        )


def _place(form: forms.Form, problems: list[str]) -> None:
    """Each problem next to the field it is about: the groom's, the bride's, the terms; the pair's
    own problems (the same dynastic name ...) at the top of the form."""
    for problem in problems:
        about = problem_about(problem)
        if about in (HUSBAND, WIFE):
            form.add_error(about, problem)
        elif about == TERMS and "dowry" in form.fields:
            form.add_error("dowry", problem)
        else:
            form.add_error(None, problem)


class BetrothalForm(forms.Form):
    marriage = forms.IntegerField()
    reason = forms.CharField(required=False, max_length=100)
    dowry = forms.CharField(required=False, max_length=120)
    alliance_title = forms.CharField(required=False, max_length=120)


def _marriages_page(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    *,
    form: ArrangeForm | None = None,
    free: list[Character] | None = None,
    check: dict[str, Any] | None = None,
    row: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    year = campaign.current_year
    unit = currency(campaign)
    wedding_open = campaign.step == wedding_step(campaign)
    if free is None:
        free = _free(campaign)
    acts = may_play(role)
    if form is None and acts:
        form = ArrangeForm(None, campaign=campaign, free=free, wedding_open=wedding_open)
    houses: dict[int | None, dict[str, Any]] = {}
    play = play_of(campaign).marriages
    for c in free:
        age = play.wedding_age(campaign, c)
        shown_with(
            c,
            wedding_age=age,
            may_wed=age >= play.adult_age() and not c.is_prisoner,
            charisma=int((c.characteristics or {}).get("charisma", 0)),
        )
        group = houses.setdefault(c.controlled_by_id, {"house": c.controlled_by, "men": [], "women": []})
        group["men" if c.sex == Sex.MALE else "women"].append(c)
    related = ("husband__controlled_by", "husband__birth_dynasty", "wife__controlled_by", "wife__birth_dynasty")
    betrothals = list(
        Marriage.objects.filter(campaign=campaign, wedding_year__isnull=True, ended_year__isnull=True)
        .select_related(*related)
        .order_by("arranged_year", "pk")
    )
    for m, problems, money in zip(
        betrothals,
        match_problems(campaign, betrothals, wedding=True),
        wedding_money(campaign, betrothals),
        strict=True,
    ):
        shown_with(
            m,
            problems=problems,
            husband_age=m.husband.age(year),
            wife_age=m.wife.age(year),
            money=[_money_line(x, unit) for x in money if sees_money(role, mine, _pk(x.payer), _pk(x.payee))],
            may_act=may_act_for_any(role, mine, (m.husband.controlled_by_id, m.wife.controlled_by_id)),
        )
        if not sees_marriage_money(role, mine, m):
            m.dowry = ""  # shown, never saved: the dowry is for the match's houses and the GM
    weddings = list(Marriage.objects.filter(campaign=campaign, wedding_year=year).select_related(*related).order_by("pk"))
    ids = [m.pk for m in weddings]
    posted: dict[int, list[dict[str, Any]]] = {}
    if ids:
        postings = visible(
            request.user,
            campaign,
            Posting.objects.filter(Q(marriage_id__in=ids) | Q(contract_link__contract__marriage_id__in=ids)),
        ).select_related("payer", "payee", "contract_link__contract")
        for p in postings.order_by("pk"):
            link = getattr(p, "contract_link", None)  # the contract it paid under, as the contracts keep it
            match_id = p.marriage_id or (link.contract.marriage_id if link else None)
            if match_id is not None:
                posted.setdefault(match_id, []).append(_money_line(p, unit))
    label(campaign, [c for m in (*betrothals, *weddings) for c in (m.husband, m.wife)])  # numerals, namesakes
    matches = [m.pk for m in (*betrothals, *weddings)]
    sealed = _sealed_by(request, campaign, matches)
    debts: dict[int, list[dict[str, Any]]] = {}
    for d in debts_for(campaign, role, mine, marriages=ids) if ids else []:
        debts.setdefault(d["marriage_id"], []).append(d)
    for m in betrothals:
        shown_with(m, sealed=sealed.get(m.pk))
    for m in weddings:
        shown_with(
            m,
            posted=posted.get(m.pk, []),
            debts=debts.get(m.pk, []),
            sealed=sealed.get(m.pk),
            may_act=may_act_for_any(role, mine, (m.husband.controlled_by_id, m.wife.controlled_by_id)),
        )
    return render(
        request,
        "pages/marriages/marriages.html",
        context(
            campaign,
            role,
            mine,
            form=form,
            check=check,
            row=row or {},
            houses=list(houses.values()),
            betrothals=betrothals,
            weddings=weddings,
            wedding_open=wedding_open,
            wedding_step_label=STEP_LABELS[wedding_step(campaign)],
            at_marriages=campaign.step == Step.MARRIAGES,
            bloodline=play.has_terms(),
            adult_age=play.adult_age(),
            acts=acts,
            unit=unit,
            step_label=STEP_LABELS[campaign.step],
        ),
        status=status,
    )


def _sealed_by(request: HttpRequest, campaign: Campaign, matches: list[int]) -> dict[int, Contract]:
    """The live contract (drafted, signed or in force) the viewer may see that seals each of these
    matches, in one query: "Draft the contract" is not offered again for it, the card links it."""
    if not matches:
        return {}
    found = visible(request.user, campaign, Contract.objects.filter(marriage_id__in=matches, state__in=LIVE))
    sealed: dict[int, Contract] = {}
    for c in found.order_by("pk"):
        sealed.setdefault(c.marriage_id, c)
    return sealed


def _pk(house: Dynasty | None) -> int | None:
    return house.pk if house is not None else None


@require_http_methods(["GET", "POST"])
@login_required
def marriages(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    if request.method == "GET":
        return _marriages_page(request, campaign, role, mine)
    if not may_play(role):
        raise PermissionDenied("Observers watch; only the GM and the players record marriages.")
    op = request.POST.get("op", "")
    if op != "check" and already_done(request, campaign):
        return redirect("pages:marriages", slug=campaign.slug)
    if op in ("check", "arrange"):
        return _arrange(request, campaign, role, mine, write=op == "arrange")
    if op in ("wed", "cancel", "terms"):
        return _betrothal(request, campaign, role, mine, op)
    if op == "finish":
        require_gm(role)
        try:
            done = run_action(request, campaign, "Finish Marriages", lambda c: marriages_finish(campaign=c, by=request.user))
        except ActionFailed as exc:  # out of step (sent twice from two tabs, say): say so where it was asked
            messages.error(request, exc.message)
            return redirect(reverse("pages:marriages", args=[campaign.slug]) + "#top")
        if done is not None:
            messages.success(request, "The Marriages step is closed; the announcements come next.")
        return redirect(reverse("pages:announcements", args=[campaign.slug]) + "#top")
    return HttpResponse("Unknown action.", status=400)


def _arrange(request: HttpRequest, campaign: Campaign, role: str, mine: int | None, *, write: bool) -> HttpResponse:
    free = _free(campaign)
    wedding_open = campaign.step == wedding_step(campaign)
    form = ArrangeForm(request.POST, campaign=campaign, free=free, wedding_open=wedding_open)

    def page(status: int, check: dict[str, Any] | None = None) -> HttpResponse:
        return _marriages_page(request, campaign, role, mine, form=form, free=free, check=check, status=status)

    if not form.is_valid():
        return page(400)
    groom, bride = form.people[form.cleaned_data["husband"]], form.people[form.cleaned_data["wife"]]
    if not may_act_for_any(role, mine, (groom.controlled_by_id, bride.controlled_by_id)):
        form.add_error(
            None,
            f"Neither {groom.display_name} nor {bride.display_name} is of your house: a player records the matches of "
            "his own house's characters (the other side's player or the GM records theirs).",
        )
        return page(403)
    wed = bool(form.cleaned_data.get("wed"))
    match = form.match(campaign)
    problems = match_problems(campaign, [match], wedding=wed)[0]
    _place(form, problems)
    if not write:
        unit = currency(campaign)
        money = wedding_money(campaign, [match])[0]
        return page(
            200,
            {
                "ok": not problems,
                "wed": wed,
                "money": [_money_line(x, unit) for x in money if sees_money(role, mine, _pk(x.payer), _pk(x.payee))],
            },
        )
    if problems:
        return page(400)
    what = "Wedding" if wed else "Betrothal"
    try:
        done = run_action(
            request,
            campaign,
            f"{what} of {groom.display_name} and {bride.display_name}",
            lambda c: marriage_arrange(
                campaign=c,
                husband=groom.pk,
                wife=bride.pk,
                wed=wed,
                husband_joins_wife=match.husband_joins_wife,
                dowry=match.dowry,
                alliance_title=match.alliance_title,
                by=request.user,
            ),
        )
    except ActionFailed as exc:
        _failed(form, exc)
        return page(400)
    if done is None:
        return redirect("pages:marriages", slug=campaign.slug)
    verb = "are wed" if wed else "are betrothed"
    messages.success(request, f"{groom.display_name} and {bride.display_name} {verb}.")
    return redirect(reverse("pages:marriages", args=[campaign.slug]) + f"#match-{done.pk}")


def _failed(form: forms.Form, exc: ActionFailed) -> None:
    placed = False
    for field in exc.fields:
        if field in form.fields:
            form.add_error(field, exc.message)
            placed = True
            break
    if not placed:
        form.add_error(None, exc.message)


def _betrothal(request: HttpRequest, campaign: Campaign, role: str, mine: int | None, op: str) -> HttpResponse:
    form = BetrothalForm(request.POST)
    if not form.is_valid():
        return HttpResponse("Name the betrothal.", status=400)
    data = form.cleaned_data
    match = get_object_or_404(Marriage.objects.select_related("husband", "wife"), campaign=campaign, pk=data["marriage"])
    if not may_act_for_any(role, mine, (match.husband.controlled_by_id, match.wife.controlled_by_id)):
        raise PermissionDenied("Only the GM or the player of one of the betrothed may do this.")
    couple = f"{match.husband.display_name} and {match.wife.display_name}"
    row = {"pk": match.pk, "op": op, "reason": data["reason"], "dowry": data["dowry"], "title": data["alliance_title"]}
    action: Callable[[Campaign], Any]
    if op == "wed":
        label, done_text = f"Wedding of {couple}", f"{couple} are wed."
        action = lambda c: marriage_wed(campaign=c, marriage=match.pk, by=request.user)  # noqa: E731
    elif op == "cancel":
        if not data["reason"].strip():
            row["error"], row["field"] = "Say why the betrothal is broken off.", "reason"
            return _marriages_page(request, campaign, role, mine, row=row, status=400)
        label, done_text = f"Betrothal of {couple} broken off", f"The betrothal of {couple} is broken off."
        action = lambda c: marriage_cancel(campaign=c, marriage=match.pk, reason=data["reason"], by=request.user)  # noqa: E731
    else:
        label, done_text = f"Terms of the match of {couple}", f"The terms of the match of {couple} are recorded."
        action = lambda c: marriage_terms_set(  # noqa: E731
            campaign=c, marriage=match.pk, dowry=data["dowry"], alliance_title=data["alliance_title"], by=request.user
        )
    try:
        done = run_action(request, campaign, label, action)
    except ActionFailed as exc:
        row["error"], row["field"] = exc.message, next(iter(exc.fields), "")
        return _marriages_page(request, campaign, role, mine, row=row, status=400)
    if done is not None:
        messages.success(request, done_text)
    return redirect(reverse("pages:marriages", args=[campaign.slug]) + f"#match-{match.pk}")


# --- the Announcements page --------------------------------------------------------------------


class NextTurnForm(forms.Form):
    to_year = forms.IntegerField(
        label="Year of the next turn",
        required=False,
        help_text="BloodLine turns are as long as the GM says; the characters age by the difference.",
        error_messages={"invalid": "Give the year as a number, e.g. 1305."},
    )


def _chronicle(request: HttpRequest, campaign: Campaign, year: int) -> list[ChronicleEntry]:
    """The year's chronicle lines this viewer may see (``campaign.permissions.visible``)."""
    lines = ChronicleEntry.objects.filter(year=year).exclude(kind="announcements")
    return list(visible(request.user, campaign, lines).order_by("pk"))


def _by_step(entries: list[ChronicleEntry]) -> list[dict[str, Any]]:
    order = ["setup", *(s.value for s in STEP_ORDER)]
    groups: dict[str, list[ChronicleEntry]] = {}
    for e in entries:
        shown_with(e, private=e.audience != Audience.PUBLIC)  # shown as private: not every member reads it
        groups.setdefault(e.step, []).append(e)
    steps = [s for s in order if s in groups] + sorted(s for s in groups if s not in order)
    return [{"step": s, "label": STEP_LABELS.get(s, s.replace("_", " ").capitalize()), "lines": groups[s]} for s in steps]


def _announcements_page(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    year: int,
    *,
    next_form: NextTurnForm | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    play = play_of(campaign)
    if next_form is None:
        next_form = NextTurnForm(initial={"to_year": campaign.current_year + campaign.turn_length})
    if not play.announcements.turn_year_given():
        next_form.fields.pop("to_year", None)
    years = set(ChronicleEntry.objects.filter(campaign=campaign).order_by().values_list("year", flat=True).distinct())
    years |= {campaign.current_year, year}
    published = ChronicleEntry.objects.filter(campaign=campaign, year=year, kind="announcements").exists()
    current = year == campaign.current_year
    return render(
        request,
        "pages/marriages/announcements.html",
        context(
            campaign,
            role,
            mine,
            year=year,
            years=sorted(years, reverse=True),
            sections=announcement_sections(campaign, year),
            published=published,
            steps=_by_step(_chronicle(request, campaign, year)),
            may_publish=runs_the_turn(role) and current and campaign.step == Step.ANNOUNCEMENTS,
            may_advance=runs_the_turn(role) and current and campaign.step == Step.INTERPHASE,
            weddings_now=current and campaign.step == wedding_step(campaign) == Step.INTERPHASE,  # BloodLine's
            next_form=next_form,
            next_year=campaign.current_year + campaign.turn_length,
            error=error,
            rules=campaign.rules,  # the ruleset's words: a King's widow retires, Prince pieces
            step_label=STEP_LABELS[campaign.step],
        ),
        status=status,
    )


@require_http_methods(["GET", "POST"])
@login_required
def announcements(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    if request.method == "GET":
        raw = request.GET.get("year", "")
        try:
            year = int(raw) if raw else campaign.current_year
        except ValueError:
            raise Http404("No such year.") from None
        if not campaign.start_year <= year <= campaign.current_year:
            raise Http404("No such year.")
        return _announcements_page(request, campaign, role, mine, year)
    require_gm(role)
    op = request.POST.get("op", "")
    if op == "publish":
        try:
            done = run_action(
                request, campaign, "Publish the announcements", lambda c: announcements_make(campaign=c, by=request.user)
            )
        except ActionFailed as exc:
            return _announcements_page(request, campaign, role, mine, campaign.current_year, error=exc.message, status=400)
        if done is not None:
            messages.success(request, f"The announcements of {campaign.current_year} are published.")
        return redirect("pages:announcements", slug=campaign.slug)
    if op == "next":
        form = NextTurnForm(request.POST)
        if not play_of(campaign).announcements.turn_year_given():
            form.fields.pop("to_year")
        if not form.is_valid():
            return _announcements_page(request, campaign, role, mine, campaign.current_year, next_form=form, status=400)
        to_year = form.cleaned_data.get("to_year")
        try:
            advanced = run_action(
                request, campaign, "Start the next turn", lambda c: turn_advance(campaign=c, to_year=to_year, by=request.user)
            )
        except ActionFailed as exc:
            if "to_year" in form.fields:
                form.add_error("to_year", exc.message)
                return _announcements_page(request, campaign, role, mine, campaign.current_year, next_form=form, status=400)
            return _announcements_page(request, campaign, role, mine, campaign.current_year, error=exc.message, status=400)
        if advanced is not None and advanced.ended_year is not None:  # the game's end came instead (dynasties.services.ending)
            messages.success(request, f"The game has ended in {advanced.ended_year}: the final table stands.")
            return redirect(reverse("pages:closing", args=[campaign.slug]))
        if advanced is None:
            return redirect(reverse("pages:dashboard", args=[campaign.slug]) + "#top")
        messages.success(request, f"The turn of {advanced.current_year} begins with the Births.")
        return redirect(step_page(advanced) + "#top")  # on to the new turn's first step (issue 34)
    return HttpResponse("Unknown action.", status=400)


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/turn/marriages/", marriages, name="marriages"),
    path("<slug:slug>/turn/announcements/", announcements, name="announcements"),
]
