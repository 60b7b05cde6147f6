"""Edit in place (issue 20): the GM's Edit button on a character's, a house's, a match's and a
contract's page opens a form of what may be edited by hand, with the admin's fields and the
service's own check (``dynasties.forms``); the save runs the service (``dynasties.services.editing``,
``contracts.services.editing``) as one step action, and the page comes back with a message saying
what changed. Who may edit is the policy's: the page asks ``may_edit_by_hand`` only to show the
form; the service refuses anyone else (403)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_http_methods

from campaign.models import Campaign
from campaign.permissions import may_edit_by_hand, visible
from contracts.models import Contract, ContractState
from contracts.services.editing import contract_changes, contract_edit
from dynasties.forms import CharacterEditForm, DynastyEditForm, HandEditForm, MarriageEditForm, place_refusal
from dynasties.models import Character, Dynasty, Marriage
from dynasties.services.editing import character_edit, dynasty_edit, marriage_edit
from pages.common import ActionFailed, already_done, context, member, run_action


class ContractEditForm(HandEditForm):
    editable = ("title", "text", "term_years")
    title = forms.CharField(label="Title", max_length=200)
    text = forms.CharField(label="Text", required=False, widget=forms.Textarea(attrs={"rows": 6}))
    term_years = forms.IntegerField(label="Fixed term (years)", required=False, min_value=1, help_text="Empty: open-ended.")

    def __init__(self, *args: Any, record: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, record=record, campaign=campaign, **kwargs)
        if record.state != ContractState.DRAFT:  # what was signed stands: shown, not typed
            for name in ("text", "term_years"):
                self.fields[name].disabled = True
                self.fields[name].help_text = "As signed: it stands."

    check_changes = staticmethod(lambda campaign, contract, changes: contract_changes(contract, changes))


def _edit(
    request: HttpRequest,
    slug: str,
    *,
    find: Callable[[HttpRequest, Campaign], Model | None],
    form_class: type[HandEditForm],
    service: Callable[..., Any],
    what: str,
    name: Callable[[Any], str],
    back: Callable[[Campaign, Any], str],
) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    record = find(request, campaign)
    if record is None:
        raise Http404(f"No such {what}.")
    form = form_class(request.POST or None, record=record, campaign=campaign)
    page = back(campaign, record)
    failure = ""
    if request.method == "POST":
        if already_done(request, campaign):
            return redirect(page)
        if form.is_valid():
            changes = form.changes()
            try:
                done = run_action(
                    request,
                    campaign,
                    f"Edit {what} #{record.pk}",
                    lambda c: service(campaign=c, changes=changes, by=request.user),
                )
            except ActionFailed as exc:
                failure = exc.message
                place_refusal(form, exc)  # type: ignore[arg-type]
            else:
                if done is not None:
                    messages.success(request, done.message)
                return redirect(page)
    return render(
        request,
        "pages/editing/edit.html",
        context(
            campaign,
            role,
            mine,
            form=form,
            what=what,
            name=name(record),
            back=page,
            failure=failure,
            may_edit=may_edit_by_hand(role),
        ),
        status=400 if failure or form.errors else 200,
    )


def _row(model: type[Model], pk: int) -> Callable[[HttpRequest, Campaign], Model | None]:
    def find(request: HttpRequest, campaign: Campaign) -> Model | None:
        return visible(request.user, campaign, model._default_manager.all()).filter(pk=pk).first()

    return find


@require_http_methods(["GET", "POST"])
@login_required
def character(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _edit(
        request,
        slug,
        find=_row(Character, pk),
        form_class=CharacterEditForm,
        service=lambda **kw: character_edit(character=pk, **kw),
        what="character",
        name=lambda c: c.display_name,
        back=lambda campaign, c: reverse("pages:character", args=[campaign.slug, c.pk]),
    )


@require_http_methods(["GET", "POST"])
@login_required
def dynasty(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _edit(
        request,
        slug,
        find=_row(Dynasty, pk),
        form_class=DynastyEditForm,
        service=lambda **kw: dynasty_edit(dynasty=pk, **kw),
        what="house",
        name=lambda d: f"The house of {d.name}",
        back=lambda campaign, d: reverse("pages:dynasty", args=[campaign.slug, d.pk]),
    )


@require_http_methods(["GET", "POST"])
@login_required
def marriage(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    def find(request: HttpRequest, campaign: Campaign) -> Model | None:
        rows = visible(request.user, campaign, Marriage.objects.select_related("husband", "wife"))
        return rows.filter(pk=pk).first()

    return _edit(
        request,
        slug,
        find=find,
        form_class=MarriageEditForm,
        service=lambda **kw: marriage_edit(marriage=pk, **kw),
        what="match",
        name=lambda m: f"The match of {m.husband.display_name} and {m.wife.display_name}",
        back=lambda campaign, m: reverse("pages:character", args=[campaign.slug, m.husband_id]),
    )


@require_http_methods(["GET", "POST"])
@login_required
def contract(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _edit(
        request,
        slug,
        find=_row(Contract, pk),
        form_class=ContractEditForm,
        service=lambda **kw: contract_edit(contract=pk, **kw),
        what="contract",
        name=lambda k: k.title,
        back=lambda campaign, k: reverse("pages:contract", args=[campaign.slug, k.pk]),
    )


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/character/<int:pk>/edit/", character, name="character_edit"),
    path("<slug:slug>/dynasty/<int:pk>/edit/", dynasty, name="dynasty_edit"),
    path("<slug:slug>/marriage/<int:pk>/edit/", marriage, name="marriage_edit"),
    path("<slug:slug>/contracts/<int:pk>/edit/", contract, name="contract_edit"),
]
