"""Pages: the end of the game (Blood Royale sections 3 and 22). The closing page shows the standings
(once the game has ended, the final table, public to every member; before, the GM's table as it
stands and a player's own money), the reason the game ended, and the GM's forms: the agreed last
turn, the money target, a series' money at the session's start, ending by agreement and reopening.
The printable final table is a PDF (``campaign.printing.render_pdf``). Who sees what is the
policy's (``campaign.permissions.sees_final_table``, ``sees_house_money``); every write goes through
``pages.common.run_action`` (one step action: undo covers it) and ``dynasties.services.ending``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_GET, require_http_methods

from campaign.models import Campaign
from campaign.permissions import runs_the_turn, sees_final_table
from dynasties import printing
from dynasties.models import Dynasty, DynastyKind
from dynasties.services.ending import (
    final_table,
    game_end,
    game_end_settings,
    game_reopen,
    opening_balances,
    printable_final_table,
    settings_text,
)
from dynasties.services.play_registry import play_of
from dynasties.treasury import currency
from pages.common import ActionFailed, already_done, context, member, run_action
from rules.errors import NotFound

START_PREFIX = "start_"


class EndSettingsForm(forms.Form):
    end_year = forms.IntegerField(
        required=False,
        label="The agreed last turn (its year)",
        help_text="The game ends once this turn and its cashing-in are over. Empty: no agreed end.",
        error_messages={"invalid": "The agreed last turn is a year: a whole number, or empty."},
    )
    money_target = forms.IntegerField(
        required=False,
        label="The money target",
        error_messages={"invalid": "The money target is a whole number, or empty for none."},
    )
    series = forms.BooleanField(required=False, label="This game is a session of a series (won by the greatest increase)")

    def __init__(self, *args: Any, campaign: Campaign, houses: list[Dynasty], starts: dict[int, int], **kwargs: Any):
        super().__init__(*args, **kwargs)
        money = currency(campaign)
        if play_of(campaign).ending.money_wins():
            self.fields["money_target"].help_text = (
                f"A house with this sum or more after a turn's cashing-in wins (the rulebook's example: "
                f"{play_of(campaign).ending.money_target_example()} {money}). Empty: none."
            )
        else:
            del self.fields["money_target"]
        for h in houses:
            self.fields[f"{START_PREFIX}{h.pk}"] = forms.IntegerField(
                required=False,
                label=f"{h.name}{' (' + h.crown + ')' if h.crown else ''}: money at the session's start",
                initial=starts.get(h.pk, 0),
                error_messages={"invalid": f"{h.name}'s money at the session's start is a whole number of {money}."},
            )

    def starts(self, houses: list[Dynasty]) -> dict[int, int] | None:
        if not self.cleaned_data.get("series"):
            return {}
        out: dict[int, int] = {}
        for h in houses:
            value = self.cleaned_data.get(f"{START_PREFIX}{h.pk}")
            out[h.pk] = int(value) if value is not None else 0
        return out


def _houses(campaign: Campaign) -> list[Dynasty]:
    return list(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "id"))


def _settings_form(campaign: Campaign, houses: list[Dynasty], data: Any = None) -> EndSettingsForm:
    typed = {int(k): int(v) for k, v in (campaign.session_start or {}).items()}
    starts = {**opening_balances(campaign), **typed} if typed else opening_balances(campaign)
    initial = {"end_year": campaign.end_year, "money_target": campaign.money_target, "series": bool(typed)}
    return EndSettingsForm(data, initial=initial, campaign=campaign, houses=houses, starts=starts)


def _page(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    *,
    form: EndSettingsForm | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    gm_forms = runs_the_turn(role)
    houses = _houses(campaign) if gm_forms else []
    table = final_table(campaign, role=role, mine=mine)
    if gm_forms and form is None:
        form = _settings_form(campaign, houses)
    return render(
        request,
        "pages/ending.html",
        context(
            campaign,
            role,
            mine,
            table=table,
            currency=currency(campaign),
            settings=settings_text(campaign),
            form=form if gm_forms else None,
            start_fields=[form[f"{START_PREFIX}{h.pk}"] for h in houses] if gm_forms and form is not None else [],
            error=error,
            may_print=sees_final_table(role, ended=campaign.ended_year is not None),
            money_wins=play_of(campaign).ending.money_wins(),
        ),
        status=status,
    )


@require_http_methods(["GET", "POST"])
@login_required
def closing(request: HttpRequest, slug: str) -> HttpResponse:
    """The closing page: the standings and the reason the game ended; the GM's forms."""
    campaign, role, mine = member(request, slug)
    if request.method == "GET":
        return _page(request, campaign, role, mine)
    if not runs_the_turn(role):
        raise Http404("No such page.")  # the policy refuses it too; a player has no form here
    here = reverse("pages:closing", args=[campaign.slug])
    if already_done(request, campaign):
        return redirect(here)
    op = request.POST.get("op", "")
    try:
        if op == "settings":
            houses = _houses(campaign)
            form = _settings_form(campaign, houses, request.POST)
            if not form.is_valid():
                return _page(request, campaign, role, mine, form=form, status=400)
            data = form.cleaned_data
            try:
                run_action(
                    request,
                    campaign,
                    "Set the end of the game",
                    lambda c: game_end_settings(
                        campaign=c,
                        end_year=data.get("end_year"),
                        money_target=data.get("money_target") or None,
                        session_start=form.starts(houses),
                        by=request.user,
                    ),
                )
            except ActionFailed as exc:
                for name in exc.fields:
                    if name in form.fields:
                        form.add_error(name, exc.message)
                if not exc.fields or not any(n in form.fields for n in exc.fields):
                    return _page(request, campaign, role, mine, form=form, error=exc.message, status=400)
                return _page(request, campaign, role, mine, form=form, status=400)
            messages.success(request, "The end of the game is set.")
        elif op == "end":
            run_action(request, campaign, "End the game", lambda c: game_end(campaign=c, by=request.user))
            messages.success(request, "The game has ended: the final table stands below.")
        elif op == "reopen":
            run_action(request, campaign, "Reopen the game", lambda c: game_reopen(campaign=c, by=request.user))
            messages.success(request, "The game is reopened: play goes on.")
        else:
            return HttpResponse("Unknown action.", status=400)
    except ActionFailed as exc:
        return _page(request, campaign, role, mine, error=exc.message, status=400)
    return redirect(here)


@require_GET
@login_required
def final_table_pdf(request: HttpRequest, slug: str) -> HttpResponse:
    """The printable final table: every member once the game has ended; before, the GM's (the
    table as it stands); anyone else 404, as for what does not exist."""
    campaign, _, _ = member(request, slug)
    try:
        table = printable_final_table(campaign, by=request.user)
    except NotFound:
        raise Http404("No such printable.") from None
    response = HttpResponse(printing.final_table_pdf(campaign, table), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{campaign.slug}-final-table.pdf"'
    return response


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/end/", closing, name="closing"),
    path("<slug:slug>/end/final-table.pdf", final_table_pdf, name="final_table_pdf"),
]
