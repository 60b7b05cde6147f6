"""System checks for misconfiguration a GM would otherwise discover on game night."""

from __future__ import annotations

import shutil
from typing import Any

from django.core import checks


@checks.register(checks.Tags.compatibility)
def graphviz_installed(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if shutil.which("dot") is None:
        return [
            checks.Warning(
                "Graphviz 'dot' is not on PATH; family trees cannot be drawn.",
                hint="apt-get install graphviz (make run installs it for you).",
                id="regnal.W001",
            )
        ]
    return []
