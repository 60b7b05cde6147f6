"""What a desk page's form would send back unchanged, for tests that post to the desk as a browser does."""

from __future__ import annotations

from typing import Any


def form_values(form: Any) -> dict[str, Any]:
    """A form's fields as a browser would post them (a box not ticked is not sent)."""
    data: dict[str, Any] = {}
    for bound in (form[n] for n in form.fields):
        value = bound.field.prepare_value(bound.value())
        if value is None or value is False:
            continue
        data[bound.html_name] = [str(v) for v in value] if isinstance(value, list | tuple) else value
    return data


def context_data(response: Any) -> dict[str, Any]:
    """What a desk change or add page would send back unchanged: its form and its inlines' formsets."""
    context = response.context
    if context is None or "adminform" not in context:
        return {}
    data = form_values(context["adminform"].form)
    for inline in context.get("inline_admin_formsets", []):
        formset = inline.formset
        data |= form_values(formset.management_form)
        for form in formset.forms:
            data |= form_values(form)
    return data
