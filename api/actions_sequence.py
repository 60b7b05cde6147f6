"""API action routes: actions_sequence (issue 8)."""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
