"""Drafting a contract with structured clauses."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from campaign.models import Campaign
from campaign.permissions import Forbidden, own_house, require_play
from contracts import services
from contracts.models import ClauseKind, ContractKind
from dynasties.models import Marriage
from pages.common import ActionFailed, context, member, run_action
from pages.contracts.forms import CLAUSE_FIELDS, Choices, ClauseForm, ContractForm

MAX_CLAUSES = 20
CLAUSE_LINE = re.compile(r"^Clause (\d+) ")


# drafting --------------------------------------------------------------------------------------


def _initial(form: forms.Form) -> dict[str, Any]:
    """What was typed into a form, as the initial values of a fresh one (no errors shown)."""
    return {name: form[name].data for name in form.fields}


def _posted_kinds(post: Any) -> list[tuple[int, str]]:
    try:
        count = int(post.get("rows", 0))
    except (TypeError, ValueError):
        count = 0
    out = []
    for i in range(max(0, min(count, MAX_CLAUSES))):
        kind = post.get(f"c{i}-kind", "")
        if kind in CLAUSE_FIELDS:
            out.append((i, kind))
    return out


def _ticked(post: Any, choices: Choices) -> list[int]:
    """The parties ticked so far (known houses only, in the order of the table)."""
    ticked = {v for v in post.getlist("parties") if v.isdigit()}
    return [d.pk for d in choices.houses if str(d.pk) in ticked]


def _between(kind: str, parties: list[int], mine: int | None) -> dict[str, Any]:
    """A new clause's houses, filled in when there is only one way to read them: with two parties
    ticked, a clause between two houses (a payment's payer and payee, a giver and a receiver) runs
    from the drafter's house (the first ticked, for the GM) to the other; the drafter changes it if not."""
    houses = [name for name, _, typ in CLAUSE_FIELDS[kind] if typ == "party"]
    if len(parties) != 2 or len(houses) != 2:
        return {}
    first = mine if mine in parties else parties[0]
    other = next(p for p in parties if p != first)
    return {houses[0]: first, houses[1]: other}


def _focus(row: ClauseForm) -> None:
    """The cursor on the new clause's first term still to fill (htmx honours ``autofocus``)."""
    for field in row.terms():
        if field.value() in (None, "", []):
            field.field.widget.attrs["autofocus"] = True
            return


def _clauses_context(rows: list[ClauseForm], total: int) -> dict[str, Any]:
    return {
        "rows": rows,
        "total": total,
        "clause_kinds": ClauseKind.choices,
        "full": len(rows) >= MAX_CLAUSES,
    }


def _draft_page(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    head: ContractForm,
    rows: list[ClauseForm],
    total: int,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "pages/contracts/new.html",
        context(
            campaign,
            role,
            mine,
            form=head,
            invalid=status == 400,
            **_clauses_context(rows, total),
        ),
        status=status,
    )


@require_http_methods(["GET", "POST"])
@login_required
def contract_new(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    require_play(role)
    choices = Choices(campaign)
    matches = list(
        Marriage.objects.filter(campaign=campaign, ended_year__isnull=True)
        .select_related("husband", "wife")
        .order_by("arranged_year", "pk")
    )
    if request.method == "GET":
        own = own_house(role, mine)  # a player's draft names his house first; the GM names whom he likes
        initial: dict[str, Any] = {"start_year": campaign.current_year, "parties": [own] if own is not None else []}
        match = next((m for m in matches if str(m.pk) == request.GET.get("marriage")), None)
        if match is not None:
            houses = [
                h for s in (match.husband, match.wife) for h in (s.controlled_by_id or s.birth_dynasty_id,) if h is not None
            ]
            initial.update(
                kind=ContractKind.MARRIAGE,
                marriage=match.pk,
                parties=list(dict.fromkeys(initial["parties"] + houses)),
                title=f"The marriage of {match.husband.display_name} and {match.wife.display_name}",
            )
        head = ContractForm(choices, matches, role, mine, initial=initial)
        return _draft_page(request, campaign, role, mine, head, [], 0)

    post = request.POST
    op = post.get("op", "draft")
    kinds = _posted_kinds(post)
    head = ContractForm(choices, matches, role, mine, post)
    rows = [ClauseForm(kind, choices, post, prefix=f"c{i}") for i, kind in kinds]
    if op == "add" or op.startswith("remove-"):
        indices = [i for i, _ in kinds]
        kept = [(row.clause_kind, _initial(row)) for i, row in zip(indices, rows, strict=True) if op != f"remove-{i}"]
        added = post.get("add_kind", "")
        fresh = op == "add" and added in CLAUSE_FIELDS and len(kept) < MAX_CLAUSES
        if fresh:
            kept.append((added, _between(added, _ticked(post, choices), mine)))
        head = ContractForm(choices, matches, role, mine, initial=_initial(head))
        rows = [ClauseForm(kind, choices, initial=values, prefix=f"c{n}") for n, (kind, values) in enumerate(kept)]
        for n, row in enumerate(rows, 1):
            row.number = n
        if fresh:
            _focus(rows[-1])
        if getattr(request, "htmx", False):  # the clauses only, swapped in place: the form keeps its scroll
            return render(request, "pages/contracts/_clauses.html", {"campaign": campaign, **_clauses_context(rows, len(rows))})
        return _draft_page(request, campaign, role, mine, head, rows, len(rows))

    total = kinds[-1][0] + 1 if kinds else 0
    head_ok = head.is_valid()
    parties = set(head.cleaned_data.get("parties") or []) if head_ok else None
    for n, row in enumerate(rows, 1):
        row.parties, row.number = parties, n
    rows_ok = all([row.is_valid() for row in rows])  # every row checked, all errors shown at once
    if head_ok and rows_ok:
        data = head.cleaned_data
        spec = [{"kind": r.clause_kind, "params": r.params(), "text": r.cleaned_data.get("text", "")} for r in rows]
        try:
            contract = run_action(
                request,
                campaign,
                f"Draft '{data['title']}'",
                lambda c: services.contract_draft(
                    campaign=c,
                    kind=data["kind"],
                    title=data["title"],
                    parties=data["parties"],
                    marriage=data["marriage"],
                    start_year=data["start_year"],
                    term_years=data["term_years"],
                    clauses=spec,
                    text=data["text"],
                    by=request.user,
                ),
            )
        except ActionFailed as exc:
            _place_draft(exc, head, rows)
        except Forbidden as exc:  # the policy's refusal of these parties goes next to them, not a 403 page
            if "parties" not in exc.fields:
                raise
            head.add_error("parties", exc.message)
        else:
            if contract is None:
                return redirect("pages:contracts", campaign.slug)
            messages.success(
                request, f"'{contract.title}' is drafted. Each party signs it here; it binds once every party has signed."
            )
            return redirect("pages:contract", campaign.slug, contract.pk)
    return _draft_page(request, campaign, role, mine, head, rows, total, status=400)


def _place_draft(exc: ActionFailed, head: ContractForm, rows: list[ClauseForm]) -> None:
    """A refusal of the draft: next to the field it names, else on the clause it numbers, else on top."""
    named = [f for f in exc.fields if f in head.fields]
    if named:
        head.add_error(named[0], exc.message)
        return
    found = CLAUSE_LINE.match(exc.message)
    if found and 1 <= int(found.group(1)) <= len(rows):
        rows[int(found.group(1)) - 1].add_error(None, exc.message)
        return
    head.add_error(None, exc.message)
