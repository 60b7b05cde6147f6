"""Large batches of sheets render in the background: the page says what is being printed and
refreshes itself until the PDF is ready, then links to it (issue 6: a batch over a few seconds)."""

from __future__ import annotations

import json
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import close_old_connections

INLINE_LIMIT = 20  # up to this many sheets (about 2-3 s) render in the request; more in the background


def jobs_dir() -> Path:
    path = Path(getattr(settings, "PRINT_JOBS_DIR", settings.BASE_DIR / "var" / "prints"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _status_path(token: str) -> Path:
    if not token.isalnum():
        raise ValueError("bad token")
    return jobs_dir() / f"{token}.json"


def pdf_path(token: str) -> Path:
    return _status_path(token).with_suffix(".pdf")


def status(token: str) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(_status_path(token).read_text())
    except (FileNotFoundError, ValueError):
        return None
    return data


def _write(token: str, **data: Any) -> None:
    path = _status_path(token)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(path)


def run(token: str, campaign_id: int, two_up: bool, total: int) -> None:
    """Render the campaign's sheets to the job's file (the background thread's body; tests call it)."""
    from campaign.models import Campaign
    from dynasties import printing

    started = time.time()
    try:
        campaign = Campaign.objects.get(pk=campaign_id)
        pdf = printing.campaign_sheets_pdf(campaign, two_up)
        pdf_path(token).write_bytes(pdf)
        _write(token, state="done", campaign=campaign_id, total=total, seconds=round(time.time() - started, 1))
    except Exception as exc:
        _write(token, state="failed", campaign=campaign_id, total=total, error=str(exc)[:200])


def start(campaign_id: int, two_up: bool, total: int, *, background: bool = True) -> str:
    token = secrets.token_hex(12)
    _write(token, state="running", campaign=campaign_id, total=total, started=time.time())

    def work() -> None:
        close_old_connections()
        try:
            run(token, campaign_id, two_up, total)
        finally:
            close_old_connections()

    if background:
        threading.Thread(target=work, name=f"print-{token}", daemon=True).start()
    else:
        run(token, campaign_id, two_up, total)
    return token
