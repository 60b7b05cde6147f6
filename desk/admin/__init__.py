"""The admin of every app, one module each (``campaign``, ``dynasties``, ``contracts``; the API's
tokens stay in ``api/admin.py``). The admin's autodiscovery imports this package, which registers
them; ``desk.apps`` then scopes every campaign model to its GMs (``scope``). ``audit`` is the
History button of the audited models. ``accounts`` is Django's user admin with the username checked
(``campaign.accounts``)."""

from desk.admin import accounts, campaign, contracts, dynasties

__all__ = ["accounts", "campaign", "contracts", "dynasties"]
