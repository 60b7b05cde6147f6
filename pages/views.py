"""Read-only pages of a campaign (issue 7, first slice): dashboard, dynasty, character, roll log.

Every page goes through ``campaign.permissions`` (role_of, can_view_exchequer, visible): a
non-member gets 404; a player sees only his own exchequer and the contracts his dynasty is party
to. Each page runs a fixed number of queries whatever the size of the campaign."""

from __future__ import annotations

from typing import Any

from csp.constants import SELF
from csp.decorators import csp_replace
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count, Max, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from campaign.models import Campaign, ChronicleEntry, DiceEntry, Membership, Role, Roll, RollSource
from campaign.permissions import (
    can_view_exchequer,
    exchequers_listed,
    links_to_the_desk,
    may_correct_rolls,
    may_play,
    visible,
)
from campaign.services import dice_entry_for
from campaign.steps import STEP_WAITS
from contracts.models import Contract, ContractState
from dynasties.figures import figures_of
from dynasties.models import Character, Dynasty, Marriage, Reign, Status
from dynasties.selectors import label, status_lines
from dynasties.services.play_registry import plays
from dynasties.services.regnal import crowned_name
from dynasties.services.succession_view import heirs_now, succession_line, succession_what_if
from dynasties.treasury import balances, currency, ledger
from dynasties.trees.dot import ORIENTATIONS, PAPERS
from pages.common import context, may_act_for, member, shown_with
from pages.debts import debts_for
from pages.notes import subject_context
from pages.sequence import step_page
from pages.trail import Source, Trail, trail
from rules.errors import RuleError

ROLLS_PER_PAGE = 50


def _open_reigns(campaign: Campaign) -> dict[str, Reign]:
    reigns = Reign.objects.filter(campaign=campaign, end_year__isnull=True).select_related("holder", "regent")
    return {r.crown: r for r in reigns.order_by("start_year", "pk")}


def _line(campaign: Campaign, crown: str, limit: int) -> Any:
    if not crown:
        return None
    try:
        return succession_line(campaign=campaign, crown=crown, limit=limit)
    except RuleError:
        return None


def _contracts(request: HttpRequest, campaign: Campaign, queryset: Any) -> list[Contract]:
    return list(visible(request.user, campaign, queryset).prefetch_related("parties").order_by("start_year", "pk"))


def _exchequers(request: HttpRequest, role: str, mine: int | None, dynasties: list[Dynasty]) -> set[int]:
    """The dynasties whose exchequer the viewer may see, asked of the permission layer once for the
    page (not once per dynasty): the GM sees them all, anyone else at most his own."""
    return exchequers_listed(role, mine, (d.pk for d in dynasties))


@require_GET
@login_required
def dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    dynasties = list(Dynasty.objects.filter(campaign=campaign).order_by("seat", "name"))
    for d in dynasties:
        d.campaign = campaign  # already loaded: the permission layer reads it
    exchequers = _exchequers(request, role, mine, dynasties)
    players: dict[int, list[str]] = {}
    for dynasty_id, username in (
        Membership.objects.filter(campaign=campaign, role=Role.PLAYER)
        .order_by("user__username")
        .values_list("seat__house", "user__username")
    ):
        players.setdefault(dynasty_id, []).append(username)
    living = dict(
        Character.objects.filter(campaign=campaign, controlled_by__isnull=False)
        .exclude(status=Status.DEAD)
        .values("controlled_by")
        .annotate(n=Count("pk"))
        .values_list("controlled_by", "n")
    )
    reigns = _open_reigns(campaign)
    label(campaign, [c for r in reigns.values() for c in (r.holder, r.regent) if c is not None])  # Edward III
    heirs = heirs_now(campaign=campaign) if reigns else {}  # one World for every crown
    money = balances(campaign)
    in_force = _contracts(request, campaign, Contract.objects.filter(state=ContractState.IN_FORCE))
    debts = debts_for(campaign, role, mine)  # a debt shows on both houses' rows, to them and the GM
    rows: list[dict[str, Any]] = []
    for d in dynasties:
        reign = reigns.get(d.crown) if d.crown else None
        rows.append(
            {
                "dynasty": d,
                "reign": reign,
                "regent": reign.regent if reign and reign.regency_end_year is None else None,
                "monarch_age": reign.holder.age(campaign.current_year) if reign else None,
                "heir": heirs.get(d.crown) if reign else None,
                "values": _eu_values(campaign, reign),
                "players": players.get(d.pk, []),
                "living": living.get(d.pk, 0),
                "exchequer": d.pk in exchequers,
                "balance": money.get(d.pk, 0),
                "debts": [x for x in debts if d.pk in (x["payer_id"], x["payee_id"])],
                "contracts": [c for c in in_force if any(p.pk == d.pk for p in c.parties.all())],
            }
        )
    rows.sort(key=lambda r: r["dynasty"].pk != mine)  # a player's own house first, the others round the table
    announced = ChronicleEntry.objects.filter(campaign=campaign, kind="announcements").aggregate(y=Max("year"))["y"]
    return render(
        request,
        "pages/dashboard.html",
        context(  # the campaign, the role, his house (the live table counts what it sees) and the policy's is_gm
            campaign,
            role,
            mine,
            rows=rows,
            waits=STEP_WAITS.get(campaign.step, ""),
            next_url=step_page(campaign),
            tree=_tree_links(campaign),
            announced=announced,
            currency=currency(campaign),
            monarch_table=plays(campaign, "monarchs"),  # EU monarchs: values shown, no heir (rolled at a death)
            choose_dice=campaign.dice_entry == DiceEntry.PLAYER and may_play(role),
            my_dice=dice_entry_for(campaign, request.user),
            dice_choices=[(DiceEntry.FACES.value, DiceEntry.FACES.label), (DiceEntry.TOTALS.value, DiceEntry.TOTALS.label)],
            **subject_context(request, campaign, role, mine),  # the campaign's notes
        ),
    )


def _eu_values(campaign: Campaign, reign: Any) -> str:
    """An EU monarch's values as rolled ("ADM 8 · DIP 7 · MIL 9"); other rulesets show none here."""
    if reign is None or not plays(campaign, "monarchs"):
        return ""
    values = reign.holder.characteristics or {}
    return " · ".join(f"{k.upper()} {values[k]}" for k in ("adm", "dip", "mil") if k in values)


def _what_if(request: HttpRequest, campaign: Campaign, crown: str) -> tuple[Any, list[int], str]:
    """The line as if the characters named by ``?dies=`` died now (read-only), the ids asked,
    and what is wrong with them (shown next to the what-if form)."""
    raw = [v for v in request.GET.getlist("dies") if v.strip()]
    if not raw:
        return None, [], ""
    dies = [_int(v) for v in raw]
    if any(pk is None for pk in dies):
        return None, [], "Choose a character from the list."
    chosen = [pk for pk in dies if pk is not None]
    try:
        return succession_what_if(campaign=campaign, crown=crown, dies=chosen, limit=10), chosen, ""
    except RuleError as exc:
        return None, chosen, exc.message


TREE_PAPERS = [("auto", "A4 or A3, by its size"), *((name.lower(), name) for name in PAPERS)]
"""The sheets a tree's PDF is printed on (the tree page's choice; issue 34)."""


def _tree_links(campaign: Campaign, d: Dynasty | None = None) -> dict[str, Any]:
    """A house's tree (or, without one, the whole campaign's) as SVG, PNG and PDF; ``base`` and the
    choices of paper and orientation for the form that asks for its PDF on a given sheet."""
    base = reverse("trees:tree", args=[campaign.slug, "dynasty" if d is not None else "campaign"])
    query = f"?dynasty={d.pk}&links=pages" if d is not None else "?links=pages"
    return {
        "svg": base + query,
        "png": base + query + "&format=png",
        "pdf": base + query + "&format=pdf",
        "base": base,
        "papers": TREE_PAPERS,
        "orientations": ORIENTATIONS,
    }


@require_GET
@login_required
# the family tree's <object> (an SVG of this site); 'none' elsewhere (django-csp types a view as taking the request alone)
@csp_replace({"object-src": [SELF]})  # type: ignore[arg-type]
def dynasty(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    d = get_object_or_404(Dynasty, campaign=campaign, pk=pk)
    members = list(
        Character.objects.filter(campaign=campaign, controlled_by=d).order_by("status", "birth_year", "birth_order", "pk")
    )
    for m in members:
        shown_with(m, age_now=m.age(campaign.current_year))
    reign = _open_reigns(campaign).get(d.crown) if d.crown else None
    line = _line(campaign, d.crown, 10) if reign else None
    what_if, dies, what_if_error = _what_if(request, campaign, d.crown) if line else (None, [], "")
    candidates: list[Any] = []
    if line:  # who may die in the what-if: the monarch, his line, the living of the house
        seen: set[int] = set()
        pool = [line.monarch, *(e.character for e in line.entries), *(m for m in members if m.status != Status.DEAD)]
        for c in pool:
            if c is not None and c.pk not in seen and c.status != Status.DEAD:
                seen.add(c.pk)
                candidates.append(c)
    dead = []
    if what_if:
        known = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=what_if.dead)}
        dead = [known[pk] for pk in what_if.dead if pk in known]
    monarchs = [c for c in (reign.holder, reign.regent) if c is not None] if reign else []
    label(campaign, [*members, *dead, *monarchs])  # regnal numbers, namesakes' birth years
    exchequer = can_view_exchequer(request.user, d)
    postings, balance = [], 0
    if exchequer:
        postings = list(ledger(campaign, d))
        for p in postings:
            signed = p.amount if p.payee_id == d.pk else -p.amount
            balance += signed
            shown_with(p, signed=signed, running=balance)
    contracts = _contracts(request, campaign, Contract.objects.filter(parties=d))
    status = 400 if what_if_error else 200
    return render(
        request,
        "pages/dynasty.html",
        {
            "campaign": campaign,
            "dynasty": d,
            "members": members,
            "reign": reign,
            "line": line,
            "exchequer": exchequer,
            "postings": postings,
            "balance": balance,
            "currency": currency(campaign),
            "contracts": contracts,
            "may_print": may_act_for(role, mine, d.pk),
            "year": campaign.current_year,
            "tree": _tree_links(campaign, d),
            "what_if": what_if,
            "dies": dies,
            "what_if_error": what_if_error,
            "dead": dead,
            "candidates": candidates,
            "dies_query": "&".join(f"dies={pk}" for pk in (what_if.dead if what_if else ())),
            "role": role,
            **subject_context(request, campaign, role, mine, dynasty=d),
        },
        status=status,
    )


@require_GET
@login_required
def character(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    c = (
        Character.objects.select_related("father", "mother", "controlled_by", "birth_dynasty", "prisoner_of")
        .filter(campaign=campaign, pk=pk)
        .first()
    )
    if c is None:  # never was, or an undo removed it (a birth rolled again): say so, with a way back
        return render(request, "pages/character_gone.html", {"campaign": campaign, "role": role, "pk": pk}, status=404)
    marriages = list(
        Marriage.objects.filter(Q(husband=c) | Q(wife=c), campaign=campaign)
        .select_related("husband", "wife")
        .order_by("arranged_year", "pk")
    )
    spouses = [m.wife if m.husband_id == c.pk else m.husband for m in marriages]
    for m, spouse in zip(marriages, spouses, strict=True):
        shown_with(m, spouse=spouse)
    children = list(
        Character.objects.filter(Q(father=c) | Q(mother=c), campaign=campaign).order_by("birth_year", "birth_order", "pk")
    )
    titles = list(c.titles.all().order_by("granted_year", "pk"))
    reigns = list(c.reigns.select_related("regent").order_by("start_year", "pk"))
    for r in reigns:
        shown_with(r, name=crowned_name(c, r))
    family = [c, *(p for p in (c.father, c.mother) if p is not None), *spouses, *children]
    label(campaign, family)  # regnal numbers, namesakes' birth years
    chronicle = list(visible(request.user, campaign, ChronicleEntry.objects.filter(data__character=c.pk)).order_by("year", "pk"))
    rolls = list(Roll.objects.filter(campaign=campaign, subjects__character=c).distinct().order_by("year", "pk"))
    found = figures_of(campaign, c)  # his figure in battle and lasting modifiers (dynasties.figures)
    return render(
        request,
        "pages/character.html",
        {
            "campaign": campaign,
            "c": c,
            "marriages": marriages,
            "children": children,
            "titles": titles,
            "reigns": reigns,
            "chronicle": chronicle,
            "rolls": rolls,
            "combat": found.combat,
            "modifiers": found.modifiers,
            "age": c.age(campaign.current_year),
            "may_print": may_act_for(role, mine, c.controlled_by_id),
            "role": role,
            "trail": _character_trail(request, campaign, role, mine, c),
            "status_line": status_lines(campaign, [c], _heirs(campaign))[c.pk],
            **subject_context(request, campaign, role, mine, character=c),
        },
    )


def _heirs(campaign: Campaign) -> dict[str, int | None]:
    """Each reigning crown's heir now (his id), for the status line."""
    return {crown: e.character.pk if e is not None else None for crown, e in heirs_now(campaign=campaign).items()}


def _character_trail(request: HttpRequest, campaign: Campaign, role: str, mine: int | None, c: Character) -> Trail:
    """The audit trail of the character and of his marriages (public, as the family record is)."""

    def spouse(record: Any) -> str:
        other = record.wife if record.husband_id == c.pk else record.husband
        return f"Marriage to {other.display_name if other is not None else 'a removed character'}"

    found = trail(
        request.user,
        campaign,
        role,
        mine=mine,
        sources=[
            Source(Character, Character.history.filter(id=c.pk)),
            Source(Marriage, Marriage.history.filter(Q(husband_id=c.pk) | Q(wife_id=c.pk), campaign_id=campaign.pk), spouse),
        ],
    )
    if links_to_the_desk(role):  # the GM keeps the books at the desk (campaign.permissions.may_use_desk)
        found.admin_url = reverse("admin:dynasties_character_history", args=[c.pk])
    return found


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


ALL_TURNS = "all"
"""The roll log's ``year`` for every turn (without one: this turn, or every turn of a character)."""


@require_GET
@login_required
def rolls(request: HttpRequest, slug: str) -> HttpResponse:
    """The roll log: this turn's rolls by default (``year=all``: every turn's, ``year=<y>``: one
    turn's; a character's rolls: all his turns), newest first, a compact row each, paged
    (``ROLLS_PER_PAGE``). A fixed number of queries whatever the length of the history."""
    campaign, role, mine = member(request, slug)
    qs = Roll.objects.filter(campaign=campaign)
    g = request.GET
    dynasty_id, character_id = _int(g.get("dynasty")), _int(g.get("character"))
    asked = g.get("year", "")
    year = _int(asked)
    if year is None and asked != ALL_TURNS and character_id is None:
        year = campaign.current_year
    if year is not None:
        qs = qs.filter(year=year)
    if g.get("step"):
        qs = qs.filter(step=g["step"])
    if g.get("purpose"):
        qs = qs.filter(purpose=g["purpose"])
    if g.get("source") in RollSource.values:
        qs = qs.filter(source=g["source"])
    if dynasty_id is not None:
        qs = qs.filter(pk__in=Roll.objects.filter(campaign=campaign, subjects__character__controlled_by=dynasty_id).values("pk"))
    if character_id is not None:
        qs = qs.filter(pk__in=Roll.objects.filter(campaign=campaign, subjects__character=character_id).values("pk"))
    qs = qs.order_by("-year", "-pk").select_related("entered_by", "corrects")
    qs = qs.prefetch_related("subjects__character", "corrections__entered_by")  # corrections: who fixed a die, when
    page = Paginator(qs, ROLLS_PER_PAGE).get_page(g.get("page"))
    character = Character.objects.filter(campaign=campaign, pk=character_id).first() if character_id else None
    named = [s.character for r in page for s in r.subjects.all()]
    label(campaign, [*named, character] if character is not None else named)  # "Edward III Plantagenet"
    base = Roll.objects.filter(campaign=campaign)
    params = g.copy()
    params.pop("page", None)
    this_turn, every_turn = params.copy(), params.copy()
    this_turn["year"], every_turn["year"] = str(campaign.current_year), ALL_TURNS
    years = list(base.values_list("year", flat=True).distinct().order_by("-year"))
    return render(
        request,
        "pages/rolls.html",
        {
            "campaign": campaign,
            "page": page,
            "query": params.urlencode(),
            "f": g,
            "role": role,
            "mine": mine,
            "year": year,
            "all_turns": year is None,
            "this_turn_query": this_turn.urlencode(),
            "all_turns_query": every_turn.urlencode(),
            "years": sorted({*years, campaign.current_year}, reverse=True),
            "earlier": next((y for y in years if y < campaign.current_year), None),
            "steps": list(base.values_list("step", flat=True).distinct().order_by("step")),
            "purposes": list(base.values_list("purpose", flat=True).distinct().order_by("purpose")),
            "dynasties": list(Dynasty.objects.filter(campaign=campaign).order_by("seat", "name")),
            "sources": RollSource.choices,
            "character": character,
            "filtered": any(g.get(k) for k in ("step", "purpose", "dynasty", "source")),
            "may_correct": may_correct_rolls(role),
        },
    )
