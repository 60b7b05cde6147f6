"""Correcting a die (issues 19, 34): from the roll log, a step's grid or the turn page, the GM types
the faces the dice really showed, for any roll of the current turn; the service writes the
correction, derives again forward what the roll decided (or refuses, naming what depends on it)
and the roll log keeps both entries. The form is a dice grid (``regnal-grid.js``: a digit that
completes a die moves on, a refused die comes back selected so one digit replaces it) and the page
goes back where it came from (``next``, this site's own pages only; the turn page by default).
Who may correct is the policy's: the page asks it only to show the form (``may_correct_rolls``);
the service refuses anyone else (403)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_http_methods

from campaign.dice import PURPOSE_LABELS
from campaign.models import Roll
from campaign.permissions import may_correct_rolls
from dynasties.services.corrections import correct_roll, dice_text, refusal
from pages.common import ActionFailed, already_done, context, member, run_action
from pages.sequence import DiceForm
from rules.dice import DiceSpec


class CorrectForm(DiceForm):
    """The faces the dice really showed, or (more than one die) their total."""

    def __init__(self, *args: Any, spec: DiceSpec, who: str = "", shown: Sequence[int] = (), **kwargs: Any) -> None:
        super().__init__(*args, spec=spec, typed=False, **kwargs)
        self.fields["d1"].widget.attrs["autofocus"] = True  # the GM types at once
        for i in range(1, spec.count + 1):  # "Anna Welf, survival roll, die 1", the logged face as a hint
            field = self.fields[f"d{i}"]
            field.label = f"{who}, die {i}" if who else f"Die {i}"
            if len(shown) >= i:
                field.widget.attrs["placeholder"] = str(shown[i - 1])
        if spec.count > 1:
            low, high = spec.count, spec.count * spec.sides
            self.fields["total"] = forms.IntegerField(
                label="Or the total",
                required=False,
                min_value=low,
                max_value=high,
                error_messages={"min_value": f"{spec} totals {low} to {high}.", "max_value": f"{spec} totals {low} to {high}."},
                widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": low, "max": high, "class": "die"}),
            )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.errors:  # a die out of range says so on its field
            return data
        given = [data.get(f"d{i}") is not None for i in range(1, self.spec.count + 1)]
        total = data.get("total") is not None
        if total and any(given):
            raise forms.ValidationError("Type the dice or their total, not both.")
        if not total and not all(given):
            raise forms.ValidationError(
                f"Type what each of the {self.spec.count} dice showed, or their total."
                if self.spec.count > 1
                else "Type what the die showed."
            )
        return data


def _log(roll: Roll) -> str:
    """The roll log at the roll's step, where the correction is seen."""
    query: dict[str, str | int] = {"year": roll.year, "step": roll.step}
    return reverse("pages:rolls", args=[roll.campaign.slug]) + "?" + urlencode(query)


def back_to(request: HttpRequest, slug: str) -> str:
    """Where the page goes back to: ``next``, else the page the link was on (the referrer), if it is a
    page of this site; else the turn page."""
    wanted = request.POST.get("next") or request.GET.get("next") or request.META.get("HTTP_REFERER") or ""
    if wanted and url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return wanted
    return reverse("pages:turn", args=[slug])


def _who(roll: Roll) -> str:
    names = " and ".join(s.character.display_name for s in roll.subjects.all())
    label = PURPOSE_LABELS.get(roll.purpose, roll.purpose)
    return f"{names}, {label}" if names else label[:1].upper() + label[1:]


@require_http_methods(["GET", "POST"])
@login_required
def correct(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    roll = get_object_or_404(
        Roll.objects.select_related("entered_by", "campaign").prefetch_related("corrections", "subjects__character"),
        campaign=campaign,
        pk=pk,
    )
    back = back_to(request, slug)
    form = CorrectForm(
        request.POST or None,
        spec=DiceSpec.parse(roll.dice),
        who=_who(roll),
        shown=roll.faces if roll.source != "total" else (),
        prefix="new",
    )
    failure = ""
    if request.method == "POST":
        if already_done(request, campaign):
            return redirect(back)
        if form.is_valid():
            faces, total = form.faces(), form.cleaned_data.get("total")
            try:
                done = run_action(
                    request,
                    campaign,
                    f"Correct roll #{roll.pk}",
                    lambda c: correct_roll(campaign=c, roll=roll.pk, faces=faces, total=total, by=request.user),  # type: ignore[arg-type]
                )
            except ActionFailed as exc:
                failure = exc.message
            else:
                if done is not None:
                    messages.success(request, done.message)
                return redirect(back)
    refused = refusal(campaign, roll)
    return render(
        request,
        "pages/correct.html",
        context(
            campaign,
            role,
            mine,
            roll=roll,
            shown=dice_text(roll),
            form=form,
            failure=failure,
            refused=refused.message if refused is not None else "",
            newest=max(roll.corrections.all(), key=lambda r: r.pk, default=None),
            may_correct=may_correct_rolls(role),
            log=_log(roll),
            back=back,
        ),
        status=400 if failure or form.errors else 200,
    )


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/rolls/<int:pk>/correct/", correct, name="roll_correct"),
]
