"""API action routes: actions_more (issue 8)."""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
