"""Game night on a local network (``make lan``, ``config/lan.py``): the production settings
(``DEBUG`` off, a strong ``SECRET_KEY``, WhiteNoise's compressed static files, the task queue in the
database) served over plain HTTP, since a laptop on a table's Wi-Fi has no certificate a phone would
trust. ``config/lan.py`` sets ``ALLOWED_HOSTS``, ``CSRF_TRUSTED_ORIGINS`` and ``REGNAL_SITE_URL`` for
the address it serves on. Passwords cross the Wi-Fi unencrypted: use a network the table trusts
(README.md, "Game night on a local network"); a public site runs ``config.settings_production``
behind HTTPS (docs/deployment.md)."""

from __future__ import annotations

from config.env import env_bool
from config.settings_production import *  # noqa: F403

# Plain HTTP: no redirect to https://, no HSTS (it would lock the phones out of this address), and
# cookies a browser sends over http:// (a Secure cookie never comes back from a plain-HTTP site).
SECURE_SSL_REDIRECT = False
SECURE_HSTS_SECONDS = 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = False
SECURE_HSTS_PRELOAD = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False

# A game night's server: anyone at the table may make an account (a new table's GM too) unless told
# otherwise (REGNAL_OPEN_SIGNUP=0); docs/rulings.md, "Seating the table and accounts".
REGNAL_OPEN_SIGNUP = env_bool("REGNAL_OPEN_SIGNUP", True)
