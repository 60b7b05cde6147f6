"""Accounts at the desk (site plumbing: superusers only). Django's own user admin, with its add and
change forms asking ``campaign.accounts`` of the username, as the join page does: no account may
take or be renamed to another's name up to case or look-alike letters (issue 30)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from campaign.accounts import username_problem

User = get_user_model()


class _UsernameChecked(forms.ModelForm):  # type: ignore[type-arg]
    def clean_username(self) -> Any:
        username = self.cleaned_data.get("username") or ""
        problem = username_problem(username, user=self.instance if self.instance.pk else None)
        if problem is not None:
            raise forms.ValidationError(problem.message, code=problem.code)
        return username


class AccountCreationForm(_UsernameChecked, AdminUserCreationForm):  # type: ignore[type-arg]  # not subscriptable at run time
    pass


class AccountChangeForm(_UsernameChecked, UserChangeForm):  # type: ignore[type-arg]  # not subscriptable at run time
    pass


class AccountAdmin(UserAdmin):  # type: ignore[type-arg]
    add_form = AccountCreationForm
    form = AccountChangeForm


if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, AccountAdmin)
