"""The address the players open, for a QR code a phone scans (the table screen's)."""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from django import template
from django.conf import settings
from django.urls import reverse

register = template.Library()


@register.simple_tag(takes_context=True)
def campaign_address(context: dict[str, Any], campaign: Any) -> str:
    """The campaign's dashboard at the site's address: ``REGNAL_SITE_URL`` (``make lan`` sets it to
    the laptop's address on the local network), else the address this page was opened at."""
    path = reverse("pages:dashboard", args=[campaign.slug])
    base = str(getattr(settings, "REGNAL_SITE_URL", "") or "").rstrip("/")
    return base + path if base else context["request"].build_absolute_uri(path)


@register.filter
def only_here(link: str) -> bool:
    """Whether ``link`` names this machine's loopback (127.0.0.1, ::1, localhost), so that no phone
    reaches it, and nobody chose it (``REGNAL_SITE_URL``, which ``make lan`` sets, is meant)."""
    if getattr(settings, "REGNAL_SITE_URL", ""):
        return False
    host = urlsplit(str(link)).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
