"""The secrecy matrix, generated from the URL resolver (issue 14): every URL of the site, as every role.

- Every URL pattern Django knows (pages, trees, prints, GEDCOM, the API, the admin) must have an
  entry in ``FILL``: how to build its concrete URLs for the planted campaign, or why it is not
  campaign data. A new pattern without one fails ``test_every_url_pattern_is_classified``; the
  API's OpenAPI schema is cross-checked the same way (``test_the_schema_and_the_table_agree``).
- ``tests/secrecy_cast.py`` plants secrets with unique markers through the services; ``SECRETS``
  says, for each marker, which roles may see it. Every filled URL is fetched as every role: a
  marker must not be in the answer of a role that may not see it (PDFs are read with pypdf, a PNG
  is not searchable and its SVG twin is fetched instead); a non-member (the outsider, a staff user
  who is not the GM, the anonymous visitor) gets exactly what a campaign that does not exist gets:
  404 (anonymous: 404, the API's 401 or the login redirect, the same for a made-up slug). The
  outsider also asks for this campaign's ids under his own campaign's slug.
- Every write endpoint (``ACTIONS``: the schema's POSTs and the pages' forms) is sent, by every role
  that may not act, a request that would act: it is refused (a non-member: 404) and nothing is
  written (a fingerprint of the campaign before and after); the same request from a role that may
  act gets past the permission checks (so the refusals are about permission, not a bad body).
- Read-only patterns are checked to be read-only: a POST answers 405, or (views that ignore the
  method) exactly what a GET answers, and writes nothing.

The campaign is built once for the module inside a transaction rolled back at the end; every read
is done once (``sweep``) and each pattern's test looks at its own answers.

The admin is covered modestly here: its changelists and a few change pages of the campaign apps'
models are read by every role (the staff user, who is no GM, holds the admin's view permissions on
those models and gets no desk); every desk page, form, autocomplete and action aimed at another
campaign is ``tests/test_secrecy_desk.py``'s."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.contrib import admin
from django.db import transaction
from django.db.models import Count
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from api.models import ApiToken
from campaign.models import ActionKey, Campaign, Checkpoint, ChronicleEntry, Job, Membership, Roll
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import new_action_key
from contracts.models import Breach, Contract, ContractPayment, ContractSignature
from dynasties.invitations import invitation_create
from dynasties.models import BirthAttempt, Character, Invitation, Marriage, Posting, Reign
from tests import secrecy_cast as sc
from tests.secrecy_cast import FAKE_ID, FAKE_SLUG, MEMBERS, NON_MEMBERS, ROLES, Cast
from tests.secrecy_events import samples as event_samples

EVENT_SAMPLES = event_samples()

# The sweep (every URL as every role) is built once per worker that runs a test of this module: keep
# the module on one worker (make test runs pytest-xdist with --dist loadgroup).
pytestmark = pytest.mark.xdist_group("secrecy_matrix")

# --- who may see what ------------------------------------------------------------------------------


def _word(text: str) -> re.Pattern[str]:
    return re.compile(re.escape(text))


def _amount(n: int) -> re.Pattern[str]:
    """An amount as a whole number (also written 4,729 or 4 729), not a part of a longer number,
    a word or a decimal (an SVG coordinate)."""
    digits = str(n)
    grouped = digits[:-3] + r"[,\u00a0\u202f ]?" + digits[-3:] if len(digits) > 3 else digits
    return re.compile(rf"(?<![\w.\-]){grouped}(?!\w|\.\d)")


ENGLAND = frozenset({"gm", "alice"})
FRANCE = frozenset({"gm", "bob"})
ENGLAND_SPAIN = frozenset({"gm", "alice", "carol"})  # the parties of the England-Spain secrets, and the GM
FRANCE_SPAIN = frozenset({"gm", "bob", "carol"})

SECRETS: dict[str, tuple[re.Pattern[str], frozenset[str]]] = {
    # marker                                  what is looked for                   who may see it
    "the campaign's name": (_word(sc.NAME), MEMBERS),
    "England's purse (reason)": (_word(sc.ENGLAND_PURSE), ENGLAND),
    "England's purse (7358)": (_amount(sc.ENGLAND_PURSE_AMOUNT), ENGLAND),
    "France's purse (reason)": (_word(sc.FRANCE_PURSE), FRANCE),
    "France's purse (3361)": (_amount(sc.FRANCE_PURSE_AMOUNT), FRANCE),
    "England->Spain transfer (reason)": (_word(sc.TRANSFER), ENGLAND_SPAIN),
    "England->Spain transfer (4729)": (_amount(sc.TRANSFER_AMOUNT), ENGLAND_SPAIN),
    "England's balance (2629)": (_amount(sc.ENGLAND_HOLDS), ENGLAND),
    "the pact (title)": (_word(sc.PACT), ENGLAND_SPAIN),
    "the pact's unpaid payment (5813)": (_amount(sc.PACT_PAYMENT), ENGLAND_SPAIN),
    "the breach of the pact (words)": (_word(sc.BREACH), ENGLAND_SPAIN),
    "the marriage contract (title)": (_word(sc.WEDDING), ENGLAND_SPAIN),
    "the marriage contract's dowry (1877)": (_amount(sc.DOWRY), ENGLAND_SPAIN),
    "the England-Spain draft (title)": (_word(sc.DRAFT), ENGLAND_SPAIN),
    "the France-Spain draft (title)": (_word(sc.FRANCE_DRAFT), FRANCE_SPAIN),
    "Alice's API token (name)": (_word(sc.TOKEN), frozenset({"alice"})),
    "the GM's note on the groom": (_word(sc.GM_NOTE), frozenset({"gm"})),
    "the note for England's player": (_word(sc.ENGLAND_NOTE), ENGLAND),
    "Spain's ransom to France (terms)": (_word(sc.RANSOM), FRANCE_SPAIN),
    "Spain's ransom to France (1163)": (_amount(sc.RANSOM_AMOUNT), FRANCE_SPAIN),
}
"""Marker -> (pattern, the roles that may see it). The policy: the family record is public to the
members; a player sees his own exchequer (its postings and balance) and the contracts his house is
party to (their lines, payments, breaches and money terms: the dowry too, wherever the match is
shown); a payment between houses is seen by payer, payee and the GM; the GM sees all; observers see
what is public; non-members see nothing of the campaign, not even its name."""


def leaks(role: str, text: str) -> list[str]:
    """The markers in ``text`` that ``role`` may not see."""
    return [name for name, (pattern, seen_by) in SECRETS.items() if role not in seen_by and pattern.search(text)]


# --- how to fill in every URL pattern --------------------------------------------------------------

CAMPAIGN, OBJECT, SITE, NOT_FETCHED = "campaign", "object", "site", "not fetched"
"""Scopes: a campaign's URL (its slug in the path: a made-up slug is its twin); an object's URL with
no slug (a made-up id is its twin); a URL of the site (no 404 rule, markers still looked for); a
URL not fetched (the reason is given)."""

POST_405, POST_SAME, POST_ACTION, POST_NONE = "405", "same as GET", "action", "not posted"
"""What a POST does: 405 (a read-only view); the same as a GET (a read-only view that ignores the
method); an action (``ACTIONS`` has its requests); not posted (the reason is given)."""


def u(name: str, *args: Any, query: str = "") -> str:
    return reverse(name, args=args) + (f"?{query}" if query else "")


@dataclass(frozen=True)
class Fill:
    scope: str
    urls: Callable[[Cast], list[str]] | None  # None: nothing to GET (a POST-only endpoint)
    post: str = POST_405
    why: str = ""  # for NOT_FETCHED / POST_NONE
    fake: Callable[[Cast, str], str] | None = None  # OBJECT scope: the made-up twin of a URL
    roles: tuple[str, ...] = ROLES  # who fetches it (fewer only for a document that is the same for everyone)


def C(urls: Callable[[Cast], list[str]] | None, post: str = POST_405, why: str = "") -> Fill:
    return Fill(CAMPAIGN, urls, post, why)


def S(urls: Callable[[Cast], list[str]] | None, post: str = POST_405, why: str = "") -> Fill:
    return Fill(SITE, urls, post, why)


def _api(c: Cast, resource: str = "", *rest: Any, query: str = "") -> str:
    path = f"/api/v1/campaigns/{c.slug}/" + "".join(f"{part}/" for part in (resource, *rest) if part != "")
    return path + (f"?{query}" if query else "")


def _admin_urls(c: Cast) -> list[str]:
    """The admin's changelists of the campaign apps' models, and the change pages of the planted secrets."""
    urls = [
        reverse(f"admin:{m._meta.app_label}_{m._meta.model_name}_changelist")
        for m in admin.site._registry
        if m._meta.app_label in ("campaign", "dynasties", "contracts")
    ]
    for obj in (c.pact, c.wedding, c.postings["transfer"], c.lines["unpaid"], c.match, c.unpaid, c.campaign):
        urls.append(reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk]))
    return sorted(set(urls))


ADMIN = "admin/*"
TREE_KINDS = ("campaign", "dynasty", "ancestors", "descendants", "succession")


def _trees(c: Cast, base: str) -> list[str]:
    """Every kind of tree as SVG (text), and the campaign's as PDF and PNG (a PNG cannot be searched:
    its SVG twin, same parameters, is in the list)."""
    params = {
        "campaign": "",
        "dynasty": f"dynasty={c.pk('England')}",
        "ancestors": f"focus={c.groom.pk}",
        "descendants": f"focus={c.monarch['England'].pk}",
        "succession": "crown=England",
    }
    urls = [base.format(kind=k) + "?" + "&".join(filter(None, ["format=svg", params[k]])) for k in TREE_KINDS]
    return [*urls, base.format(kind="campaign") + "?format=pdf", base.format(kind="campaign") + "?format=png"]


def _contracts(c: Cast) -> list[Contract]:
    return [c.pact, c.wedding, c.draft, c.france_draft]


FILL: dict[str, Fill] = {
    # the site -------------------------------------------------------------------------------------
    "home": S(lambda c: ["/"], POST_SAME),
    "login": S(lambda c: ["/login/"], POST_NONE, "authentication (tests/test_security.py)"),
    "logout": Fill(NOT_FETCHED, None, POST_NONE, "a POST ends the session; nothing of a campaign is shown"),
    "campaigns:new": S(lambda c: [u("campaigns:new")], POST_ACTION),
    "account:tokens": S(lambda c: [u("account:tokens")], POST_ACTION),
    "account:token-revoke": S(None, POST_ACTION),
    # the schema and its UI are one document for everyone: fetched by the anonymous visitor and a player
    "api:schema": Fill(SITE, lambda c: [u("api:schema")], roles=("anonymous", "alice")),
    "api:docs": Fill(SITE, lambda c: [u("api:docs")], roles=("anonymous", "alice")),
    "api/^": S(lambda c: ["/api/no-such-endpoint/"], POST_SAME),
    "api:token-list": S(lambda c: [u("api:token-list")], POST_ACTION),
    "api:token-detail": S(lambda c: [u("api:token-detail", c.token.pk)]),
    "api:token-revoke": S(None, POST_ACTION),
    "api:campaign-list": S(lambda c: ["/api/v1/campaigns/"]),
    "api:campaign-import": S(None, POST_ACTION),
    ADMIN: S(_admin_urls, POST_NONE, "the desk's forms, autocompletes and actions: tests/test_secrecy_desk.py"),
    # GEDCOM, trees, prints ---------------------------------------------------------------------------
    "gedcom-campaign": C(lambda c: [u("gedcom-campaign", c.slug)], POST_SAME),
    "gedcom-dynasty": C(
        lambda c: [u("gedcom-dynasty", c.slug, c.pk("England")), u("gedcom-dynasty", c.slug, c.pk("Spain"))], POST_SAME
    ),
    "trees:tree": C(lambda c: _trees(c, f"/trees/{c.slug}/{{kind}}/")),
    # no large tree is being drawn: a made-up job (404 for members too)
    "trees:job": C(lambda c: [u("trees:job", c.slug, "nosuchjob")]),
    # a sheet of England's (its player and the GM print it; Carol, of the other house, may not)
    "print:character_sheet": Fill(
        OBJECT,
        lambda c: [u("print:character_sheet", c.groom.pk)],
        POST_SAME,
        fake=lambda c, url: re.sub(r"/\d+\.pdf$", f"/{FAKE_ID}.pdf", url),
    ),
    "print:dynasty_sheets": Fill(
        OBJECT,
        lambda c: [u("print:dynasty_sheets", c.pk("England"))],
        POST_SAME,
        fake=lambda c, url: re.sub(r"/dynasty/\d+/", f"/dynasty/{FAKE_ID}/", url),
    ),
    "print:campaign_sheets": C(lambda c: [u("print:campaign_sheets", c.slug)], POST_SAME),
    "print:announcements": C(lambda c: [u("print:announcements", c.slug, c.campaign.current_year)], POST_SAME),
    # no print job is running: a made-up token (404 for members too)
    "print:job": C(lambda c: [u("print:job", c.slug, "nosuchjob")], POST_SAME),
    # the pages ---------------------------------------------------------------------------------------
    "pages:dashboard": C(lambda c: [u("pages:dashboard", c.slug)]),
    "pages:backups": C(lambda c: [u("pages:backups", c.slug)]),  # the GM's only: 404 for everyone else
    "pages:backup_new": C(None, POST_ACTION),
    "pages:players": C(lambda c: [u("pages:players", c.slug)], POST_ACTION),  # the GM's only: 404 for everyone else
    "pages:setup": C(None, POST_ACTION),  # a failed set-up's Retry and Delete: the GM's only, 404 for everyone else
    # an invitation's page: a made-up link shows nothing (tests/test_invitations.py opens real ones)
    "join": S(lambda c: [u("join", "no-such-secret")], POST_ACTION),
    # an account of one's own (issue 34): whoever may make one may (the site setting), so nobody is "refused"
    "signup": S(lambda c: [u("signup")], POST_NONE, "anyone makes an account where the site allows it: tests/test_seating.py"),
    # a made-up reset link shows nothing (tests/test_seating.py opens real ones)
    "password_reset_confirm": S(
        lambda c: [u("password_reset_confirm", "MQ", "made-up-token")], POST_NONE, "a made-up link: tests/test_seating.py"
    ),
    "pages:backup": C(lambda c: [u("pages:backup", c.slug, "nosuchjob")]),
    "pages:dynasty": C(lambda c: [u("pages:dynasty", c.slug, c.pk(k)) for k in ("England", "France", "Spain")]),
    "pages:character": C(
        lambda c: [u("pages:character", c.slug, x.pk) for x in (c.groom, c.bride, c.monarch["England"], c.monarch["Spain"])]
    ),
    "pages:rolls": C(lambda c: [u("pages:rolls", c.slug)]),
    "pages:live": C(lambda c: [u("pages:live", c.slug, query="v=0")]),  # the poll: {"version": n} to members
    "pages:table": C(lambda c: [u("pages:table", c.slug)]),  # the table screen: public lines only
    "pages:roll_correct": C(lambda c: [u("pages:roll_correct", c.slug, c.roll.pk)], POST_ACTION),
    # hand edits (issue 20): the GM's form; a contract's page only for those who see the contract
    "pages:character_edit": C(lambda c: [u("pages:character_edit", c.slug, c.groom.pk)], POST_ACTION),
    "pages:dynasty_edit": C(lambda c: [u("pages:dynasty_edit", c.slug, c.pk(k)) for k in ("England", "Spain")], POST_ACTION),
    "pages:marriage_edit": C(lambda c: [u("pages:marriage_edit", c.slug, c.match.pk)], POST_ACTION),
    "pages:contract_edit": C(lambda c: [u("pages:contract_edit", c.slug, k.pk) for k in _contracts(c)], POST_ACTION),
    "pages:turn": C(lambda c: [u("pages:turn", c.slug)]),
    "pages:births": C(lambda c: [u("pages:births", c.slug)], POST_ACTION),
    "pages:survival": C(lambda c: [u("pages:survival", c.slug)], POST_ACTION),
    "pages:undo": C(lambda c: [u("pages:undo", c.slug)], POST_ACTION),
    "pages:redo": C(None, POST_ACTION),
    "pages:dice_entry": C(None, POST_ACTION),
    "pages:marriages": C(lambda c: [u("pages:marriages", c.slug)], POST_ACTION),
    "pages:announcements": C(
        lambda c: [u("pages:announcements", c.slug), u("pages:announcements", c.slug, query=f"year={c.campaign.current_year}")],
        POST_ACTION,
    ),
    "pages:contracts": C(lambda c: [u("pages:contracts", c.slug)]),
    "pages:contract_new": C(lambda c: [u("pages:contract_new", c.slug)], POST_ACTION),
    "pages:parley": C(
        lambda c: [u("pages:parley", c.slug), u("pages:parley", c.slug, query=f"breach={c.breach.pk}")], POST_ACTION
    ),
    "pages:contract": C(lambda c: [u("pages:contract", c.slug, k.pk) for k in _contracts(c)]),
    "pages:contract_pdf": C(lambda c: [u("pages:contract_pdf", c.slug, k.pk) for k in _contracts(c)]),
    "pages:contract_sign": C(None, POST_ACTION),
    "pages:contract_sign_party": C(None, POST_ACTION),
    "pages:contract_end": C(None, POST_ACTION),
    "pages:breach_new": C(None, POST_ACTION),
    "pages:dispute": C(lambda c: [u("pages:dispute", c.slug, c.pact.pk, c.breach.pk)], POST_ACTION),
    "pages:payment_settle": C(None, POST_ACTION),
    # diplomacy's consequences (issue 33): a parley's page, the claims register, public to members
    "pages:parley_detail": C(lambda c: [u("pages:parley_detail", c.slug, c.obligation.parley_id)]),
    "pages:obligation_resolve": C(None, POST_ACTION),
    "pages:claims": C(lambda c: [u("pages:claims", c.slug)]),
    "pages:claim_record": C(None, POST_ACTION),
    "pages:claim_exchange": C(None, POST_ACTION),
    "pages:claim_renounce": C(None, POST_ACTION),
    "pages:treasury": C(lambda c: [u("pages:treasury", c.slug)]),
    "pages:titles": C(lambda c: [u("pages:titles", c.slug)], POST_ACTION),
    # a title's page is public record, as the title is (the cast's one title, and a made-up id)
    "pages:title": C(lambda c: [u("pages:title", c.slug, c.title.pk), u("pages:title", c.slug, FAKE_ID)]),
    "pages:exchequer": C(lambda c: [u("pages:exchequer", c.slug, c.pk(k)) for k in ("England", "France", "Spain")], POST_ACTION),
    "pages:interphase": C(lambda c: [u("pages:interphase", c.slug, c.pk(k)) for k in ("England", "Spain")], POST_ACTION),
    "pages:note_save": C(None, POST_ACTION),
    # no portrait is planted: 404 for members too (tests/test_notes.py serves one)
    "pages:portrait": C(lambda c: [u("pages:portrait", c.slug, "dynasty", c.pk("England"))]),
    "pages:portrait_upload": C(None, POST_ACTION),
    # the search, asked for every planted word (not an amount: the page repeats what was typed)
    "pages:search": C(
        lambda c: [
            u("pages:search", c.slug, query=f"q={q}")
            for q in ("PURSE", "TRANSFER", "PACT", "BREACH", "WEDDING", "DRAFT", "NOTE", "Secrets")
        ]
    ),
    # the API: reads ----------------------------------------------------------------------------------
    "api:campaign-detail": C(lambda c: [_api(c)]),
    "api:campaign-export": C(lambda c: [_api(c, "export")]),
    "api:backups": C(None, POST_ACTION),
    # no backup is running: a made-up job (403 for members who are not the GM, 404 for the GM)
    "api:backup": C(lambda c: [_api(c, "backups", "nosuchjob")]),
    "api:backup-file": C(lambda c: [_api(c, "backups", "nosuchjob", "file")]),
    "api:memberships-list": C(lambda c: [_api(c, "memberships")]),
    "api:memberships-detail": C(lambda c: [_api(c, "memberships", c.membership.pk)]),
    "api:membership-password-reset": C(None, POST_ACTION),
    "api:dynasties-list": C(lambda c: [_api(c, "dynasties")]),
    "api:dynasties-detail": C(lambda c: [_api(c, "dynasties", c.pk(k)) for k in ("England", "Spain")]),
    "api:characters-list": C(lambda c: [_api(c, "characters", query="page_size=100")]),
    "api:characters-detail": C(lambda c: [_api(c, "characters", x.pk) for x in (c.groom, c.bride)]),
    "api:marriages-list": C(lambda c: [_api(c, "marriages", query="page_size=100")]),
    "api:marriages-detail": C(lambda c: [_api(c, "marriages", c.match.pk), _api(c, "marriages", c.couple.pk)]),
    "api:reigns-list": C(lambda c: [_api(c, "reigns")]),
    "api:reigns-detail": C(lambda c: [_api(c, "reigns", c.reign.pk)]),
    "api:titles-list": C(lambda c: [_api(c, "titles")]),
    # the cast's one title, and a made-up id (the 404 rule still holds)
    "api:titles-detail": C(lambda c: [_api(c, "titles", c.title.pk), _api(c, "titles", FAKE_ID)]),
    "api:title-line": C(lambda c: [_api(c, "titles", c.title.pk, "line"), _api(c, "titles", FAKE_ID, "line")]),
    # shadowed: api:contracts-draft answers the same path (GET lists, POST drafts)
    "api:contracts-list": C(lambda c: [_api(c, "contracts", query="page_size=100")], POST_NONE, "api:contracts-draft's path"),
    "api:contracts-draft": C(lambda c: [_api(c, "contracts")], POST_ACTION),  # the same path: GET lists, POST drafts
    "api:contracts-detail": C(lambda c: [_api(c, "contracts", k.pk) for k in _contracts(c)]),
    "api:ledger-list": C(lambda c: [_api(c, "ledger", query="page_size=500")]),
    "api:ledger-detail": C(lambda c: [_api(c, "ledger", p.pk) for p in c.postings.values()]),
    "api:balances-list": C(lambda c: [_api(c, "balances")]),
    "api:balances-detail": C(lambda c: [_api(c, "balances", c.pk(k)) for k in ("England", "France", "Spain")]),
    "api:rolls-list": C(lambda c: [_api(c, "rolls", query="page_size=500")]),
    "api:rolls-detail": C(lambda c: [_api(c, "rolls", c.roll.pk)]),
    "api:chronicle-list": C(
        lambda c: [
            _api(c, "chronicle", query=q)
            for q in (
                "page_size=500",
                "kind=payment",
                "kind=contract_unpaid",
                "kind=contract_breach",
                f"year={c.campaign.current_year}&page_size=500",
            )
        ]
    ),
    "api:chronicle-detail": C(lambda c: [_api(c, "chronicle", line.pk) for line in c.lines.values()]),
    "api:search": C(
        lambda c: [_api(c, "search", query=f"q={q}") for q in ("PURSE", "TRANSFER", "PACT", "BREACH", "WEDDING", "DRAFT", "NOTE")]
    ),
    # every note (GM-only and each house's player note among them), by list, subject and id
    "api:notes-list": C(
        lambda c: [_api(c, "notes", query=q) for q in ("page_size=500", f"character={c.groom.pk}", f"dynasty={c.pk('England')}")],
        POST_ACTION,
    ),
    "api:notes-detail": C(lambda c: [_api(c, "notes", n.pk) for n in c.campaign.notes.order_by("pk")]),
    "api:turn": C(lambda c: [_api(c, "turn")]),
    "api:births": C(lambda c: [_api(c, "births")]),
    "api:survival": C(lambda c: [_api(c, "survival")]),
    "api:succession": C(lambda c: [_api(c, "succession", k) for k in ("England", "Spain")]),
    "api:succession-what-if": C(lambda c: [_api(c, "succession", "England", "what-if", query=f"dies={c.monarch['England'].pk}")]),
    "api:announcements": C(
        lambda c: [_api(c, "announcements"), _api(c, "announcements", query=f"year={c.campaign.current_year}")]
    ),
    "api:contract-pdf": C(lambda c: [_api(c, "contracts", k.pk, "pdf") for k in _contracts(c)]),
    "api:tree": C(lambda c: _trees(c, f"/api/v1/campaigns/{c.slug}/trees/{{kind}}/")),
    # no large tree is being drawn: a made-up job (404 for members too)
    "api:tree-job": C(lambda c: [_api(c, "trees/jobs", "nosuchjob")]),
    "api:tree-job-file": C(lambda c: [_api(c, "trees/jobs", "nosuchjob", "file")]),
    "api:character-sheet": C(lambda c: [_api(c, "characters", c.groom.pk) + "sheet.pdf"]),
    "api:announcements-pdf": C(lambda c: [_api(c, "announcements", c.campaign.current_year, "pdf")]),
    "api:gedcom": C(lambda c: [_api(c, "gedcom"), _api(c, "gedcom", query=f"dynasty={c.pk('Spain')}")]),
    # the API: actions (POST only; ACTIONS sends them) -----------------------------------------------
    **{
        f"api:{name}": C(None, POST_ACTION)
        for name in (
            "turn-advance",
            "births-attempts",
            "births-sex",
            "births-roll-all",
            "births-finish",
            "survival-rolls",
            "survival-finish",
            "succession-pass-over",
            "marriages-check",
            "marriages-arrange",
            "marriages-finish",
            "marriages-wed",
            "marriages-cancel",
            "announcements-publish",
            "undo",
            "redo",
            "rolls-correct",
            "treasury-transfers",
            "ledger-reverse",
            "interphase-preview",
            "interphase-run",
            "cash-in-preview",
            "cash-in-run",
            "contract-sign",
            "contract-end",
            "contract-breaches",
            "contract-payment-settle",
            "breach-dispute",
            "parleys",
            "claims-record",
            "claims-exchange",
            "claim-renounce",
            "obligation-resolve",
            "title-reclaim",
            "title-bequeath",
            "title-crisis-claim",
            "title-crisis-waive",
            "title-dispute",
        )
    },
}
"""Every URL pattern of the site -> how to fill it in. Keys: the pattern's name (namespaced), or its
route when it has none; the admin's patterns are the one entry ``admin/*``."""

# The table's events (issue 31): their list and one page and one API endpoint per declared event, made
# from the declarations (campaign.table_events); their requests are tests/secrecy_events' samples.
FILL["pages:events"] = C(lambda c: [u("pages:events", c.slug)])
FILL["pages:event"] = C(lambda c: [u("pages:event", c.slug, key) for key in sorted(EVENT_SAMPLES)], POST_ACTION)
FILL["api:events"] = C(lambda c: [_api(c, "events")])
for _key in EVENT_SAMPLES:
    FILL[f"api:event-{_key}"] = C(None, POST_ACTION)

# The crowns (issue 31): a crown's page and the API's crowns and their history, public to members.
FILL["pages:crown"] = C(lambda c: [u("pages:crown", c.slug, crown) for crown in ("England", "Spain")])
FILL["api:crowns-list"] = C(lambda c: [_api(c, "crowns")])
FILL["api:crowns-detail"] = C(
    lambda c: [_api(c, "crowns", pk) for pk in c.campaign.crowns.order_by("pk").values_list("pk", flat=True)[:2]]
)
FILL["api:claims-list"] = C(lambda c: [_api(c, "claims")])
FILL["api:claims-detail"] = C(lambda c: [_api(c, "claims", c.claim.pk)])
FILL["api:obligations-list"] = C(lambda c: [_api(c, "obligations")])
FILL["api:obligations-detail"] = C(lambda c: [_api(c, "obligations", c.obligation.pk)])
FILL["api:crown-events-list"] = C(lambda c: [_api(c, "crown-events")])
FILL["api:crown-events-detail"] = C(lambda c: [_api(c, "crown-events", FAKE_ID)])  # none planted: a made-up id

# The province register (issue 33): public to members, as the map is on the table.
FILL["pages:provinces"] = C(lambda c: [u("pages:provinces", c.slug)])
FILL["api:provinces-list"] = C(lambda c: [_api(c, "provinces")])
FILL["api:provinces-detail"] = C(
    lambda c: (
        [_api(c, "provinces", pk) for pk in c.campaign.provinces.order_by("pk").values_list("pk", flat=True)[:1]]
        + [_api(c, "provinces", FAKE_ID)]
    )
)

# The EU monarch tables (issue 32): the monarchs' history and the monarch cards, public to members. The planted
# campaign plays Blood Royale: its monarchs list is empty, a made-up id is 404, the cards are 404 to everyone.
FILL["api:monarchs-list"] = C(lambda c: [_api(c, "monarchs")])
FILL["api:monarchs-detail"] = C(lambda c: [_api(c, "monarchs", FAKE_ID)])
FILL["print:monarch_cards"] = C(lambda c: [u("print:monarch_cards", c.slug)], POST_SAME)
FILL["print:monarch_card"] = C(lambda c: [u("print:monarch_card", c.slug, "England")], POST_SAME)

# The EU monarchs' phase (issue 32): the board and its two rolls. The planted campaign plays Blood
# Royale: members read a 400 (not its ruleset), the GM's rolls are refused the same way (past the
# policy), every other role is refused by the policy first.
FILL["api:monarchs"] = C(lambda c: [_api(c, "survival/monarchs")])
FILL["api:monarchs-survival"] = C(None, POST_ACTION)
FILL["api:monarchs-succession"] = C(None, POST_ACTION)

# The end of the game (issue 33): the closing page and the standings, each house's money as the policy
# shows it (before the end: a player his own, the GM all); the printable final table the GM's before the end.
FILL["pages:closing"] = C(lambda c: [u("pages:closing", c.slug)], POST_ACTION)
FILL["pages:final_table_pdf"] = C(lambda c: [u("pages:final_table_pdf", c.slug)], POST_405)
FILL["api:standings"] = C(lambda c: [_api(c, "standings")])
FILL["api:standings-pdf"] = C(lambda c: [_api(c, "standings", "pdf")])
FILL["api:game-end"] = C(None, POST_ACTION)
FILL["api:game-end-settings"] = C(None, POST_ACTION)
FILL["api:game-reopen"] = C(None, POST_ACTION)


# --- the resolver's patterns -------------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    key: str
    route: str
    name: str


def site_patterns() -> list[Pattern]:
    """Every URL pattern of the site, walked from the root resolver (the admin's as one)."""
    found: list[Pattern] = []

    def walk(resolver: URLResolver, prefix: str, namespace: str) -> None:
        for p in resolver.url_patterns:
            if isinstance(p, URLResolver):
                inner = ":".join(filter(None, [namespace, p.namespace]))
                walk(p, prefix + str(p.pattern), inner)
            elif isinstance(p, URLPattern):
                route = prefix + str(p.pattern)
                name = f"{namespace}:{p.name}" if namespace and p.name else (p.name or "")
                found.append(Pattern(key=ADMIN if route.startswith("admin/") else (name or route), route=route, name=name))

    walk(get_resolver(), "", "")
    return found


PATTERNS = site_patterns()
KEYS = sorted({p.key for p in PATTERNS})


def test_every_url_pattern_is_classified() -> None:
    unnamed_twins = [k for k in KEYS if sum(p.key == k for p in PATTERNS) > 1 and k != ADMIN]
    assert not unnamed_twins, f"these keys name more than one URL pattern, give them distinct names: {unnamed_twins}"
    missing = [f"{p.key} ({p.route})" for p in PATTERNS if p.key not in FILL]
    assert not missing, (
        "URL patterns the secrecy matrix does not know how to fill in; classify this URL in "
        f"tests/test_secrecy_matrix.py (FILL, and ACTIONS if it writes): {missing}"
    )
    stale = sorted(set(FILL) - set(KEYS))
    assert not stale, f"FILL names URL patterns that no longer exist: {stale}"
    for key, fill in FILL.items():
        assert fill.scope != OBJECT or fill.fake is not None, f"{key}: an object's URL needs its made-up twin"
        assert fill.why or fill.post != POST_NONE, f"{key}: say why it is not posted to"
        assert fill.why or fill.scope != NOT_FETCHED, f"{key}: say why it is not fetched"


# --- the world: the campaign, built once, and every read done once ----------------------------------


@pytest.fixture(scope="module")
def world(django_db_setup: Any, django_db_blocker: Any) -> Iterator[Cast]:
    """The planted campaign, inside a transaction rolled back after the module's tests."""
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            yield sc.build_cast()
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


@pytest.fixture(scope="module")
def clients(world: Cast, django_db_blocker: Any) -> dict[str, APIClient]:
    out = {}
    with django_db_blocker.unblock():
        for role in ROLES:
            client = APIClient()
            if world.users[role] is not None:
                client.force_login(world.users[role])
            out[role] = client
    return out


@dataclass
class Answer:
    key: str
    url: str  # as asked
    role: str
    status: int
    location: str
    content_type: str
    text: str | None  # None: not searchable (a PNG)
    body: bytes = b""
    cache_control: str = ""  # the Cache-Control header as answered

    def where(self) -> str:
        return f"{self.role} GET {self.url} -> {self.status}"


def _text(content_type: str, body: bytes) -> str | None:
    if content_type.startswith("application/pdf"):
        from pypdf import PdfReader

        pages = PdfReader(io.BytesIO(body)).pages
        return "\n".join((page.extract_text() or "") for page in pages).replace("-\n", "-")
    if content_type.startswith("image/") and "svg" not in content_type:
        return None
    return body.decode("utf-8", errors="replace")


def ask(
    client: APIClient,
    key: str,
    url: str,
    role: str,
    method: str = "get",
    data: Any = None,
    *,
    api: bool = False,
    keep: bool = False,
) -> Answer:
    """One request. Unless ``keep``, in a savepoint rolled back afterwards (one request cannot change
    the next); with ``keep`` the caller looks at what it wrote and rolls it back himself."""
    with transaction.atomic():
        try:
            with transaction.atomic():  # an error inside rolls back to here, and is a finding
                if method == "get":
                    response = client.get(url)
                elif api:
                    response = client.post(url, data if data is not None else {}, format="json")
                else:
                    response = client.post(url, data or {}, format="multipart")
                body = b"".join(response.streaming_content) if response.streaming else response.content
            status, location, content_type = response.status_code, response.get("Location", ""), response.get("Content-Type", "")
            cache_control = response.get("Cache-Control", "")
        except Exception as exc:
            body, status, location, content_type, cache_control = repr(exc).encode(), 599, "", "text/plain", ""
        if not keep:
            transaction.set_rollback(True)
    text = _text(content_type, body) if status < 500 else None
    return Answer(key, url, role, status, location, content_type, text, body, cache_control)


@dataclass
class Sweep:
    answers: dict[str, list[Answer]] = field(default_factory=dict)  # key -> every answer
    fakes: dict[tuple[str, str], Answer] = field(default_factory=dict)  # (role, real url) -> the made-up twin's answer
    cross: list[Answer] = field(default_factory=list)  # the outsider's: this campaign's ids under his own slug


def twin(c: Cast, fill: Fill, url: str) -> str:
    if fill.scope == OBJECT:
        assert fill.fake is not None
        return fill.fake(c, url)
    assert url.count(f"/{c.slug}/") == 1, url
    return url.replace(f"/{c.slug}/", f"/{FAKE_SLUG}/")


class SameHtmlSamePdf:
    """``weasyprint.HTML`` for the sweep: the PDF of an HTML document already printed in it is the
    one printed then (WeasyPrint's output is a function of the document). The sheets a role gets
    through the pages and through the API, or that several roles get alike, are the same HTML: the
    sweep prints each once, and reads each answer's PDF as before."""

    real: Any = None  # weasyprint.HTML, while the sweep runs
    printed: dict[tuple[str, str], bytes] = {}

    def __init__(self, *, string: str, **options: Any) -> None:
        self.string, self.options = string, options

    def write_pdf(self, *args: Any, **options: Any) -> bytes:
        key = (self.string, repr((self.options, args, options)))
        if key not in self.printed:
            self.printed[key] = self.real(string=self.string, **self.options).write_pdf(*args, **options)
        return self.printed[key]


@pytest.fixture(scope="module")
def sweep(world: Cast, clients: dict[str, APIClient], django_db_blocker: Any) -> Sweep:
    """Every filled URL, GET as every role (non-members: its made-up twin too)."""
    import weasyprint

    SameHtmlSamePdf.real = weasyprint.HTML
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(weasyprint, "HTML", SameHtmlSamePdf)
        answers = _sweep(world, clients, django_db_blocker)
    SameHtmlSamePdf.printed.clear()
    return answers


def _sweep(world: Cast, clients: dict[str, APIClient], django_db_blocker: Any) -> Sweep:
    out = Sweep()
    with django_db_blocker.unblock():
        for key, fill in FILL.items():
            if fill.urls is None or fill.scope == NOT_FETCHED:
                continue
            answers = out.answers.setdefault(key, [])
            for url in fill.urls(world):
                for role in fill.roles:
                    answers.append(ask(clients[role], key, url, role))
                    if fill.scope in (CAMPAIGN, OBJECT) and role in NON_MEMBERS:
                        out.fakes[(role, url)] = ask(clients[role], key, twin(world, fill, url), role)
                    if fill.scope == CAMPAIGN and role == "outsider":
                        out.cross.append(ask(clients[role], key, url.replace(f"/{world.slug}/", f"/{world.other.slug}/"), role))
    return out


# --- the reads ---------------------------------------------------------------------------------------


def _login_redirect(answer: Answer) -> bool:
    return answer.status == 302 and "/login/" in answer.location


CSRF_TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+')


def _same(world: Cast, real: Answer, fake: Answer) -> bool:
    """The answer about a real thing is the answer about a made-up one (its address aside)."""
    path, fake_path = real.url.split("?")[0], fake.url.split("?")[0]

    def norm(text: str | bytes, mine: bool) -> str:
        s = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
        s = CSRF_TOKEN.sub(r"\1-", s)  # a form's token is new in every answer: it tells nothing
        return (s.replace(path, fake_path) if mine else s).replace(world.slug, FAKE_SLUG)

    return (real.status, norm(real.location, True), norm(real.body, True)) == (
        fake.status,
        norm(fake.location, False),
        norm(fake.body, False),
    )


def non_member_problems(world: Cast, answer: Answer, fake: Answer) -> list[str]:
    problems = []
    if answer.role == "anonymous":
        is_api = answer.url.startswith("/api/")
        allowed = answer.status == 404 or (is_api and answer.status == 401) or (not is_api and _login_redirect(answer))
        if not allowed:
            problems.append(f"{answer.where()}: anonymous gets 404{', 401' if is_api else ' or the login page'}")
    elif answer.status != 404:
        problems.append(f"{answer.where()}: a non-member gets 404")
    if not _same(world, answer, fake):
        said = f": {answer.body[:90]!r} vs {fake.body[:90]!r}" if answer.status == fake.status else ""
        problems.append(
            f"{answer.where()}: not what a made-up twin gets ({fake.url} -> {fake.status}"
            + (f", {fake.location}" if fake.location else "")
            + f"{said}): a non-member can tell it exists"
        )
    return problems


@pytest.mark.django_db
@pytest.mark.parametrize("key", [k for k in KEYS if k in FILL and FILL[k].urls is not None])
def test_no_role_reads_what_it_may_not(world: Cast, sweep: Sweep, key: str) -> None:
    fill = FILL[key]
    answers = sweep.answers[key]
    problems: list[str] = []
    for a in answers:
        if a.status >= 500:
            problems.append(f"{a.where()}: a server error ({a.body[:300]!r})")
        if a.text is None and a.status < 400:
            svg = re.sub(r"format=png", "format=svg", a.url)
            if svg == a.url or not any(b.url == svg and b.role == a.role for b in answers):
                problems.append(f"{a.where()}: {a.content_type} cannot be searched and its SVG twin is not fetched")
        elif a.text is not None and a.content_type.startswith("application/pdf") and a.status == 200 and not a.text.strip():
            problems.append(f"{a.where()}: a PDF with no text to search")
        for marker in leaks(a.role, a.text or ""):
            problems.append(f"{a.where()}: shows {marker}")
        if fill.scope in (CAMPAIGN, OBJECT) and a.role in NON_MEMBERS:
            problems += non_member_problems(world, a, sweep.fakes[(a.role, a.url)])
    for a in sweep.cross:
        if a.key == key:
            problems += [
                f"{a.where()} (the outsider's own campaign, this one's ids): shows {m}" for m in leaks("outsider", a.text or "")
            ]
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems)


@pytest.mark.django_db
def test_every_secret_is_planted_and_seen_by_those_who_may(world: Cast, sweep: Sweep) -> None:
    """Each marker shows to the GM (who sees all) and to a player who may see it, somewhere: the
    planting works, and a marker missing from every answer cannot pass for a kept secret. The
    PDFs are searched for real: the GM's PDF of the pact shows its title and its unpaid amount."""
    pact_pdf = next(a for a in sweep.answers["pages:contract_pdf"] if a.role == "gm" and f"/{world.pact.pk}/pdf/" in a.url)
    for name in ("the pact (title)", "the pact's unpaid payment (5813)"):
        assert SECRETS[name][0].search(pact_pdf.text or ""), f"{name} not found in the text of {pact_pdf.url}: {pact_pdf.text!r}"
    seen: dict[str, set[str]] = {name: set() for name in SECRETS}
    for answers in sweep.answers.values():
        for a in answers:
            if a.text is None or a.status >= 400:
                continue
            for name, (pattern, _) in SECRETS.items():
                if pattern.search(a.text):
                    seen[name].add(a.role)
    problems = []
    for name, (_, seen_by) in SECRETS.items():
        players = seen_by - {"gm"}
        if "gm" in seen_by and "gm" not in seen[name]:
            problems.append(f"{name}: the GM sees it nowhere")
        if players and not (players & seen[name]):
            problems.append(f"{name}: none of {sorted(players)} sees it anywhere")
    assert not problems, "\n".join(problems)


@pytest.mark.django_db
@pytest.mark.parametrize("key", [k for k in KEYS if k in FILL and FILL[k].urls is not None])
def test_no_answer_is_stored_by_a_browser_or_a_proxy(sweep: Sweep, key: str) -> None:
    """Every answer of every fetched URL (pages, prints, trees, GEDCOM, the export, the API, the
    admin), to every role, whatever its status, says ``Cache-Control: private, no-store``
    (``config/cache_control.py``): a campaign's pages and files are never kept on a shared
    computer's disk or in a proxy. The made-up twins' answers too (a 404 is an answer)."""
    answers = sweep.answers[key] + [a for a in sweep.fakes.values() if a.key == key]
    problems = [
        f"{a.where()}: Cache-Control {a.cache_control!r}"
        for a in answers
        if not {"private", "no-store"} <= {d.strip().split("=")[0] for d in a.cache_control.split(",")}
    ]
    assert answers, f"{key}: nothing fetched"
    assert not problems, f"{len(problems)} answer(s) a browser or proxy may keep:\n" + "\n".join(problems)


# --- the schema ---------------------------------------------------------------------------------------


def _normal(route: str) -> str:
    return "/" + re.sub(r"<[^>]+>|\{[^}]+\}", "{}", route.lstrip("/"))


@pytest.mark.django_db
def test_the_schema_and_the_table_agree() -> None:
    """Every path of the OpenAPI schema is a pattern FILL knows, every write operation of it has its
    requests in ACTIONS, and every pattern of /api/v1/ is in the schema."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    routes: dict[str, list[str]] = {}
    for p in PATTERNS:
        routes.setdefault(_normal(p.route), []).append(p.key)
    problems = []
    written = {key for key, _ in ACTIONS}
    for path, operations in schema["paths"].items():
        keys = routes.get(_normal(path), [])
        if not keys:
            problems.append(f"{path}: in the schema, but no URL pattern has that path")
            continue
        for key in keys:
            if key not in FILL:
                problems.append(f"{path}: {key} is not in FILL; classify this URL in tests/test_secrecy_matrix.py")
        for method in operations:
            if method in ("post", "put", "patch", "delete") and not set(keys) & written:
                problems.append(f"{method.upper()} {path}: a write with no request in ACTIONS")
            if method in ("put", "patch", "delete"):
                problems.append(f"{method.upper()} {path}: ACTIONS sends POSTs only: teach it this method")
    in_schema = {_normal(path) for path in schema["paths"]}
    for p in PATTERNS:
        if p.route.startswith("api/v1/") and _normal(p.route) not in in_schema:
            problems.append(f"{p.route} ({p.key}): an API pattern missing from the schema")
    assert not problems, "\n".join(problems)


# --- the actions ----------------------------------------------------------------------------------------

PLAYERS = frozenset({"alice", "bob", "carol"})
NOT_GM = PLAYERS | {"observer"}


@dataclass(frozen=True)
class Act:
    url: Callable[[Cast], str]
    body: Callable[[Cast], dict[str, Any]]
    refused: frozenset[str]  # members who may not do it (non-members are always refused)
    allowed: str | None  # a role whom the same request gets past the permission checks
    api: bool
    scope: str = CAMPAIGN


def A(
    url: Callable[[Cast], str], body: Callable[[Cast], dict[str, Any]], refused: set[str] | frozenset[str], allowed: str | None
) -> Act:
    return Act(url, body, frozenset(refused) | {"observer"}, allowed, api=True)


def P(
    url: Callable[[Cast], str], body: Callable[[Cast], dict[str, Any]], refused: set[str] | frozenset[str], allowed: str | None
) -> Act:
    return Act(url, body, frozenset(refused) | {"observer"}, allowed, api=False)


def _gm_only_api(path: str, body: Callable[[Cast], dict[str, Any]] = lambda c: {}) -> Act:
    return A(lambda c: _api(c) + path, body, NOT_GM, "gm")


def _free_couple(c: Cast) -> dict[str, int]:
    """A free young man and woman of two houses nobody in the cast plays (Germany, Italy)."""
    groom = Character.objects.filter(
        campaign=c.campaign, controlled_by__crown__in=["Germany", "Italy"], sex="M", father__isnull=False
    ).first()
    bride = (
        Character.objects.filter(
            campaign=c.campaign, controlled_by__crown__in=["Germany", "Italy"], sex="F", father__isnull=False
        )
        .exclude(controlled_by=groom.controlled_by if groom else None)
        .first()
    )
    assert groom is not None and bride is not None, "Germany and Italy need a free son and a free daughter between them"
    return {"husband": groom.pk, "wife": bride.pk}


INTERPHASE = {"provinces": 3, "tax_rate": 5}
ENGLAND_INTERPHASE = {"provinces": "3", "tax_rate": "5", "armies_kept": "0", "fleets_kept": "0"}

ACTIONS: dict[tuple[str, str], Act] = {
    # the API's writes ------------------------------------------------------------------------------
    ("api:turn-advance", "next turn"): _gm_only_api("turn/advance/"),
    ("api:game-end", "end the game"): _gm_only_api("end/"),
    ("api:game-end-settings", "set the end of the game"): _gm_only_api(
        "end/settings/", lambda c: {"end_year": None, "money_target": None}
    ),
    ("api:game-reopen", "reopen the game"): _gm_only_api("end/reopen/"),
    ("api:backups", "back up the campaign"): _gm_only_api("backups/"),
    ("api:births-attempts", "a birth roll for England's couple"): A(
        lambda c: _api(c, "births", "attempts"), lambda c: {"marriage": c.couple.pk}, {"bob", "carol"}, "alice"
    ),
    ("api:births-sex", "the sex roll of England's child"): A(
        lambda c: _api(c, "births", "attempts", c.attempt.pk, "sex"), lambda c: {}, {"bob", "carol"}, "alice"
    ),
    ("api:births-roll-all", "roll all births"): _gm_only_api("births/roll-all/"),
    ("api:births-finish", "finish the births"): _gm_only_api("births/finish/"),
    ("api:survival-rolls", "England's king's survival roll"): A(
        lambda c: _api(c, "survival", "rolls"), lambda c: {"characters": [c.monarch["England"].pk]}, {"bob", "carol"}, "alice"
    ),
    ("api:survival-finish", "finish survival"): _gm_only_api("survival/finish/"),
    ("api:monarchs-survival", "England's monarch's survival roll (EU)"): _gm_only_api(
        "survival/monarchs/England/survival/", lambda c: {"faces": [5]}
    ),
    ("api:monarchs-succession", "England's succession roll (EU)"): _gm_only_api(
        "survival/monarchs/England/succession/", lambda c: {"faces": None}
    ),
    ("api:succession-pass-over", "England's succession"): A(
        lambda c: _api(c, "succession", "England", "pass-over"), lambda c: {"heirs": []}, {"bob", "carol"}, "alice"
    ),
    ("api:marriages-check", "check a match (observer)"): A(lambda c: _api(c, "marriages", "check"), _free_couple, set(), "gm"),
    ("api:marriages-arrange", "betroth Germany and Italy"): A(
        lambda c: _api(c, "marriages", "arrange"), _free_couple, PLAYERS, "gm"
    ),
    ("api:marriages-finish", "finish marriages"): _gm_only_api("marriages/finish/"),
    ("api:marriages-wed", "wed England and Spain's betrothed"): A(
        lambda c: _api(c, "marriages", c.match.pk, "wed"), lambda c: {}, {"bob"}, "alice"
    ),
    ("api:marriages-cancel", "break off England and Spain's betrothal"): A(
        lambda c: _api(c, "marriages", c.match.pk, "cancel"), lambda c: {"reason": "changed minds"}, {"bob"}, "carol"
    ),
    ("api:announcements-publish", "publish"): _gm_only_api("announcements/publish/"),
    ("api:undo", "undo the step"): _gm_only_api("undo/", lambda c: {"which": "step"}),
    ("api:redo", "redo the last undo"): _gm_only_api("redo/"),
    ("api:rolls-correct", "correct England's birth roll"): A(
        lambda c: _api(c, "rolls", c.roll.pk, "correct"), lambda c: {"faces": [1, 1]}, NOT_GM, "gm"
    ),
    ("api:treasury-transfers", "pay from England's exchequer"): A(
        lambda c: _api(c, "treasury", "transfers"),
        lambda c: {"payer": c.pk("England"), "payee": c.pk("France"), "amount": 1, "reason": "a gift"},
        {"bob", "carol"},
        "alice",
    ),
    ("api:ledger-reverse", "reverse the transfer"): A(
        lambda c: _api(c, "ledger", c.postings["transfer"].pk, "reverse"), lambda c: {"reason": "a mistake"}, NOT_GM, "gm"
    ),
    ("api:interphase-preview", "England's Interphase, previewed"): A(
        lambda c: _api(c, "interphase", c.pk("England"), "preview"), lambda c: dict(INTERPHASE), {"bob", "carol"}, "alice"
    ),
    ("api:interphase-run", "England's Interphase"): A(
        lambda c: _api(c, "interphase", c.pk("England"), "run"), lambda c: dict(INTERPHASE), {"bob", "carol"}, "alice"
    ),
    ("api:cash-in-preview", "England's cashing-in, previewed"): A(
        lambda c: _api(c, "cash-in", c.pk("England"), "preview"), lambda c: {"basic_sets": 1}, {"bob", "carol"}, "alice"
    ),
    ("api:cash-in-run", "England's cashing-in"): A(
        lambda c: _api(c, "cash-in", c.pk("England"), "run"), lambda c: {"basic_sets": 1}, {"bob", "carol"}, "alice"
    ),
    ("api:contracts-draft", "draft a contract for England and Spain"): A(
        lambda c: _api(c, "contracts"),
        lambda c: {"kind": "agreement", "title": "Another", "parties": [c.pk("England"), c.pk("Spain")]},
        {"bob"},
        "alice",
    ),
    ("api:contract-sign", "sign the draft for Spain"): A(
        lambda c: _api(c, "contracts", c.draft.pk, "sign"), lambda c: {"dynasty": c.pk("Spain")}, {"alice", "bob"}, "carol"
    ),
    ("api:contract-end", "end the pact"): A(
        lambda c: _api(c, "contracts", c.pact.pk, "end"), lambda c: {"how": "consent", "reason": "peace"}, {"bob"}, "alice"
    ),
    ("api:contract-breaches", "accuse England of breaking the pact"): A(
        lambda c: _api(c, "contracts", c.pact.pk, "breaches"),
        lambda c: {"by_dynasty": c.pk("England"), "raised_by": c.pk("Spain"), "text": "again"},
        {"alice", "bob"},
        "carol",
    ),
    ("api:contract-payment-settle", "settle England's unpaid payment"): A(
        lambda c: _api(c, "contracts", c.pact.pk, "payments", c.unpaid.pk, "settle"), lambda c: {}, {"bob", "carol"}, "alice"
    ),
    ("api:breach-dispute", "rule on the breach"): A(
        lambda c: _api(c, "breaches", c.breach.pk, "dispute"), lambda c: {"votes": []}, PLAYERS, "gm"
    ),
    ("api:parleys", "a parley on the breach"): A(
        lambda c: _api(c, "parleys"), lambda c: {"breach": c.breach.pk, "votes": []}, PLAYERS, "gm"
    ),
    ("api:claims-record", "record a claim of Spain's"): A(
        lambda c: _api(c, "claims", "record"), lambda c: {"dynasty": c.pk("Spain"), "area": "Aragon"}, PLAYERS, "gm"
    ),
    ("api:claims-exchange", "give England's claim to France"): A(
        lambda c: _api(c, "claims", "exchange"),
        lambda c: {"first": c.pk("England"), "second": c.pk("France"), "first_gives": [c.claim.pk]},
        PLAYERS,
        "gm",
    ),
    ("api:claim-renounce", "renounce England's claim"): A(
        lambda c: _api(c, "claims", c.claim.pk, "renounce"), lambda c: {}, {"bob", "carol"}, "alice"
    ),
    ("api:obligation-resolve", "England returns Kent"): A(
        lambda c: _api(c, "obligations", c.obligation.pk, "resolve"), lambda c: {"complied": True}, {"bob", "carol"}, "alice"
    ),
    # BloodLine's title actions on the cast's (Blood Royale) title: the GM gets past the checks to the
    # ruleset's 400; a player of another house is refused (403, or 400 where the rule is checked first)
    ("api:title-reclaim", "take back the Duke of Kent's title"): A(
        lambda c: _api(c, "titles", c.title.pk, "reclaim"), lambda c: {}, PLAYERS, "gm"
    ),
    ("api:title-bequeath", "bequeath the Duke of Kent's title"): A(
        lambda c: _api(c, "titles", c.title.pk, "bequeath"), lambda c: {"heir": c.bride.pk}, {"bob", "carol"}, "gm"
    ),
    ("api:title-crisis-claim", "claim Kent in a Dynastic Crisis"): A(
        lambda c: _api(c, "titles", c.title.pk, "crisis-claim"), lambda c: {"provinces": ["Kent"]}, {"bob", "carol"}, "gm"
    ),
    ("api:title-crisis-waive", "give up the claim to Kent"): A(
        lambda c: _api(c, "titles", c.title.pk, "crisis-waive"), lambda c: {}, {"bob", "carol"}, "gm"
    ),
    # Blood Royale rule G: the GM enters the King's dispute (a 400 here: the option is off in the cast)
    ("api:title-dispute", "dispute the inheritance of the Duke of Kent's title"): A(
        lambda c: _api(c, "titles", c.title.pk, "dispute"), lambda c: {"holder": c.bride.pk}, PLAYERS, "gm"
    ),
    # the site's own writes (not a campaign's): only the anonymous visitor, or another user, is refused
    ("api:campaign-import", "import a campaign"): Act(
        lambda c: "/api/v1/campaigns/import/", lambda c: {}, frozenset(), "alice", api=True, scope=SITE
    ),
    ("api:token-list", "make a token"): Act(
        lambda c: u("api:token-list"), lambda c: {"name": "a bot"}, frozenset(), "alice", api=True, scope=SITE
    ),
    ("api:token-revoke", "revoke Alice's token"): Act(
        lambda c: u("api:token-revoke", c.token.pk), lambda c: {}, frozenset(MEMBERS - {"alice"}), "alice", api=True, scope=SITE
    ),
    ("account:tokens", "make a token"): Act(
        lambda c: u("account:tokens"), lambda c: {"name": "a phone"}, frozenset(), "alice", api=False, scope=SITE
    ),
    ("account:token-revoke", "revoke Alice's token"): Act(
        lambda c: u("account:token-revoke", c.token.pk),
        lambda c: {},
        frozenset(MEMBERS - {"alice"}),
        "alice",
        api=False,
        scope=SITE,
    ),
    ("campaigns:new", "create a campaign"): Act(
        lambda c: u("campaigns:new"), lambda c: {}, frozenset(), "alice", api=False, scope=SITE
    ),
    # the pages' forms ----------------------------------------------------------------------------------
    ("pages:players", "invite an observer"): P(
        lambda c: u("pages:players", c.slug), lambda c: {"op": "invite", "seat": "observer", "days": "7"}, PLAYERS, "gm"
    ),
    ("pages:players", "revoke a link"): P(
        lambda c: u("pages:players", c.slug),
        lambda c: {"op": "revoke", "invitation": invitation_create(campaign=c.campaign, role="observer", by=SYSTEM_ACTOR)[0].pk},
        PLAYERS,
        "gm",
    ),
    # the GM's control gets past the policy to a refusal of the request itself (400): nothing is moved
    ("pages:players", "move Alice's seat to a made-up user"): P(
        lambda c: u("pages:players", c.slug),
        lambda c: {"op": "move", "membership": c.membership.pk, "username": "nobody"},
        PLAYERS,
        "gm",
    ),
    ("pages:players", "remove the GM"): P(
        lambda c: u("pages:players", c.slug),
        lambda c: {"op": "remove", "membership": Membership.objects.get(campaign=c.campaign, role="gm").pk},
        PLAYERS,
        "gm",
    ),
    ("pages:players", "a password-reset link for Alice"): P(
        lambda c: u("pages:players", c.slug), lambda c: {"op": "reset", "membership": c.membership.pk}, PLAYERS, "gm"
    ),
    ("api:membership-password-reset", "a password-reset link for Alice"): A(
        lambda c: _api(c, "memberships", c.membership.pk, "password-reset"), lambda c: {}, PLAYERS, "gm"
    ),
    # a made-up link: refused to everyone (a real one seats whoever holds it: tests/test_invitations.py)
    ("join", "join by a made-up link"): Act(
        lambda c: u("join", "no-such-secret"), lambda c: {"username": "newcomer"}, frozenset(), None, api=False, scope=SITE
    ),
    ("pages:backup_new", "back up the campaign"): P(lambda c: u("pages:backup_new", c.slug), lambda c: {}, PLAYERS, "gm"),
    # the cast's campaign is open for play: the GM gets past the policy to "nothing to retry or delete"
    ("pages:setup", "retry the set-up"): P(lambda c: u("pages:setup", c.slug), lambda c: {"op": "retry"}, PLAYERS, "gm"),
    ("pages:setup", "delete the campaign"): P(lambda c: u("pages:setup", c.slug), lambda c: {"op": "delete"}, PLAYERS, "gm"),
    ("api:notes-list", "the note for England's player"): A(
        lambda c: _api(c, "notes"),
        lambda c: {"dynasty": c.pk("England"), "audience": "player", "text": "a new plan"},
        {"bob", "carol"},
        "alice",
    ),
    ("api:notes-list", "a GM note"): A(
        lambda c: _api(c, "notes"),
        lambda c: {"character": c.groom.pk, "audience": "gm", "text": "a new secret"},
        PLAYERS,
        "gm",
    ),
    ("pages:note_save", "the note for England's player"): P(
        lambda c: u("pages:note_save", c.slug),
        lambda c: {"on": "dynasty", "id": c.pk("England"), "audience": "player", "text": "a new plan"},
        {"bob", "carol"},
        "alice",
    ),
    ("pages:note_save", "a GM note"): P(
        lambda c: u("pages:note_save", c.slug),
        lambda c: {"on": "character", "id": c.groom.pk, "audience": "gm", "text": "a new secret"},
        PLAYERS,
        "gm",
    ),
    ("pages:portrait_upload", "take England's arms away"): P(
        lambda c: u("pages:portrait_upload", c.slug, "dynasty", c.pk("England")),
        lambda c: {"remove": "1"},
        {"bob", "carol"},
        "alice",
    ),
    ("pages:births", "a birth roll for England's couple"): P(
        lambda c: u("pages:births", c.slug),
        lambda c: {"op": "grid", f"how-{c.couple.pk}": "server"},
        {"bob", "carol"},
        "alice",
    ),
    ("pages:births", "the sex roll of England's child"): P(
        lambda c: u("pages:births", c.slug),
        lambda c: {
            "op": "grid",
            f"how-{c.attempt.marriage_id}": "server",
            f"state-{c.attempt.marriage_id}": f"sex-{c.attempt.pk}",
        },
        {"bob", "carol"},
        "alice",
    ),
    ("pages:births", "roll all"): P(lambda c: u("pages:births", c.slug), lambda c: {"op": "roll_all"}, PLAYERS, "gm"),
    ("pages:births", "finish"): P(lambda c: u("pages:births", c.slug), lambda c: {"op": "finish"}, PLAYERS, "gm"),
    ("pages:survival", "England's king's roll"): P(
        lambda c: u("pages:survival", c.slug),
        lambda c: {"op": "grid", "rows": c.monarch["England"].pk, f"how-{c.monarch['England'].pk}": "server"},
        {"bob", "carol"},
        "alice",
    ),
    ("pages:survival", "roll all"): P(lambda c: u("pages:survival", c.slug), lambda c: {"op": "roll_all"}, PLAYERS, "gm"),
    ("pages:survival", "roll mine"): P(lambda c: u("pages:survival", c.slug), lambda c: {"op": "roll_mine"}, set(), "alice"),
    ("pages:survival", "England's succession"): P(
        lambda c: u("pages:survival", c.slug), lambda c: {"op": "pass_over", "crown": "England"}, {"bob", "carol"}, "alice"
    ),
    ("pages:survival", "finish"): P(lambda c: u("pages:survival", c.slug), lambda c: {"op": "finish"}, PLAYERS, "gm"),
    # BloodLine's title decisions on the cast's (Blood Royale) title: the GM gets past the checks to a 400
    ("pages:titles", "take back the Duke of Kent's title"): P(
        lambda c: u("pages:titles", c.slug), lambda c: {"op": "reclaim", "title": c.title.pk}, PLAYERS, "gm"
    ),
    ("pages:titles", "bequeath the Duke of Kent's title"): P(
        lambda c: u("pages:titles", c.slug),
        lambda c: {"op": "bequeath", "title": c.title.pk, "heir": c.bride.pk},
        {"bob", "carol"},
        "gm",
    ),
    ("pages:titles", "claim Kent in a Dynastic Crisis"): P(
        lambda c: u("pages:titles", c.slug),
        lambda c: {"op": "crisis_claim", "title": c.title.pk, "provinces": "Kent"},
        {"bob", "carol"},
        "gm",
    ),
    ("pages:titles", "give up the claim to Kent"): P(
        lambda c: u("pages:titles", c.slug), lambda c: {"op": "crisis_waive", "title": c.title.pk}, {"bob", "carol"}, "gm"
    ),
    ("pages:titles", "dispute the inheritance of the Duke of Kent's title"): P(
        lambda c: u("pages:titles", c.slug),
        lambda c: {"op": "dispute", "title": c.title.pk, "holder": c.bride.pk},
        PLAYERS,
        "gm",
    ),
    ("pages:undo", "undo the step"): P(lambda c: u("pages:undo", c.slug), lambda c: {"which": "step"}, PLAYERS, "gm"),
    ("pages:redo", "redo the last undo"): P(lambda c: u("pages:redo", c.slug), lambda c: {}, PLAYERS, "gm"),
    ("pages:dice_entry", "choose how to type my own dice"): P(
        lambda c: u("pages:dice_entry", c.slug), lambda c: {"dice_entry": "totals"}, set(), "alice"
    ),
    ("pages:character_edit", "rename England's groom by hand"): P(
        lambda c: u("pages:character_edit", c.slug, c.groom.pk),
        lambda c: {
            "given_name": "Renamed",
            "dynastic_name": c.groom.dynastic_name,
            "legitimate": "on",
            **{f"char_{key}": value for key, value in c.groom.characteristics.items()},
        },
        PLAYERS,
        "gm",
    ),
    ("pages:dynasty_edit", "rename England's house by hand"): P(
        lambda c: u("pages:dynasty_edit", c.slug, c.pk("England")),
        lambda c: {"name": "Renamed", "color": "#123456"},
        PLAYERS,
        "gm",
    ),
    ("pages:marriage_edit", "move England and Spain's betrothal a year back"): P(
        lambda c: u("pages:marriage_edit", c.slug, c.match.pk),
        lambda c: {"arranged_year": str(c.match.arranged_year - 1)},
        PLAYERS,
        "gm",
    ),
    ("pages:contract_edit", "retitle the England-Spain draft by hand"): P(
        lambda c: u("pages:contract_edit", c.slug, c.draft.pk),
        lambda c: {"title": "Retitled", "text": c.draft.text, "term_years": ""},
        PLAYERS,
        "gm",
    ),
    ("pages:roll_correct", "correct England's birth roll"): P(
        lambda c: u("pages:roll_correct", c.slug, c.roll.pk), lambda c: {"new-d1": "1", "new-d2": "1"}, PLAYERS, "gm"
    ),
    ("pages:marriages", "check a match of Germany and Italy"): P(
        lambda c: u("pages:marriages", c.slug), lambda c: {"op": "check", **_free_couple(c)}, PLAYERS, "gm"
    ),
    ("pages:marriages", "betroth Germany and Italy"): P(
        lambda c: u("pages:marriages", c.slug), lambda c: {"op": "arrange", **_free_couple(c)}, PLAYERS, "gm"
    ),
    ("pages:marriages", "wed England and Spain's betrothed"): P(
        lambda c: u("pages:marriages", c.slug), lambda c: {"op": "wed", "marriage": c.match.pk}, {"bob"}, "alice"
    ),
    ("pages:marriages", "break off England and Spain's betrothal"): P(
        lambda c: u("pages:marriages", c.slug),
        lambda c: {"op": "cancel", "marriage": c.match.pk, "reason": "changed minds"},
        {"bob"},
        "carol",
    ),
    ("pages:marriages", "the terms of England and Spain's match"): P(
        lambda c: u("pages:marriages", c.slug),
        lambda c: {"op": "terms", "marriage": c.match.pk, "dowry": "5 Crowns", "alliance_title": "Count"},
        {"bob"},
        "alice",
    ),
    ("pages:marriages", "finish"): P(lambda c: u("pages:marriages", c.slug), lambda c: {"op": "finish"}, PLAYERS, "gm"),
    ("pages:announcements", "publish"): P(lambda c: u("pages:announcements", c.slug), lambda c: {"op": "publish"}, PLAYERS, "gm"),
    ("pages:announcements", "next turn"): P(lambda c: u("pages:announcements", c.slug), lambda c: {"op": "next"}, PLAYERS, "gm"),
    ("pages:closing", "set the end of the game"): P(
        lambda c: u("pages:closing", c.slug), lambda c: {"op": "settings", "end_year": "", "money_target": ""}, PLAYERS, "gm"
    ),
    ("pages:closing", "end the game"): P(lambda c: u("pages:closing", c.slug), lambda c: {"op": "end"}, PLAYERS, "gm"),
    ("pages:closing", "reopen the game"): P(lambda c: u("pages:closing", c.slug), lambda c: {"op": "reopen"}, PLAYERS, "gm"),
    ("pages:contract_new", "draft a contract for England and Spain"): P(
        lambda c: u("pages:contract_new", c.slug),
        lambda c: {"kind": "agreement", "title": "Another", "parties": [c.pk("England"), c.pk("Spain")], "start_year": 1300},
        {"bob"},
        "alice",
    ),
    ("pages:parley", "a parley on the breach"): P(
        lambda c: u("pages:parley", c.slug), lambda c: {"kind": "breach", "breach": c.breach.pk}, PLAYERS, "gm"
    ),
    ("pages:claim_record", "record a claim of Spain's"): P(
        lambda c: u("pages:claim_record", c.slug),
        lambda c: {"record-dynasty": c.pk("Spain"), "record-area": "Aragon"},
        PLAYERS,
        "gm",
    ),
    ("pages:claim_exchange", "give England's claim to France"): P(
        lambda c: u("pages:claim_exchange", c.slug),
        lambda c: {"exchange-first": c.pk("England"), "exchange-second": c.pk("France"), "exchange-first_gives": c.claim.pk},
        PLAYERS,
        "gm",
    ),
    ("pages:claim_renounce", "renounce England's claim"): P(
        lambda c: u("pages:claim_renounce", c.slug, c.claim.pk), lambda c: {}, {"bob", "carol"}, "alice"
    ),
    ("pages:obligation_resolve", "England returns Kent"): P(
        lambda c: u("pages:obligation_resolve", c.slug, c.obligation.pk), lambda c: {"complied": "yes"}, {"bob", "carol"}, "alice"
    ),
    ("pages:contract_sign", "sign the draft for all"): P(
        lambda c: u("pages:contract_sign", c.slug, c.draft.pk), lambda c: {"signed": "on"}, PLAYERS, "gm"
    ),
    ("pages:contract_sign_party", "sign the draft for Spain"): P(
        lambda c: u("pages:contract_sign_party", c.slug, c.draft.pk, c.pk("Spain")), lambda c: {}, {"alice", "bob"}, "carol"
    ),
    ("pages:contract_end", "end the pact"): P(
        lambda c: u("pages:contract_end", c.slug, c.pact.pk),
        lambda c: {"how": "consent", "consent": "on", "reason": "peace"},
        {"bob"},
        "alice",
    ),
    ("pages:breach_new", "accuse England of breaking the pact"): P(
        lambda c: u("pages:breach_new", c.slug, c.pact.pk),
        lambda c: {"raised_by": c.pk("Spain"), "by_dynasty": c.pk("England"), "text": "again"},
        {"bob"},
        "carol",
    ),
    ("pages:dispute", "rule on the breach"): P(
        lambda c: u("pages:dispute", c.slug, c.pact.pk, c.breach.pk), lambda c: {}, PLAYERS, "gm"
    ),
    ("pages:payment_settle", "settle England's unpaid payment"): P(
        lambda c: u("pages:payment_settle", c.slug, c.pact.pk, c.unpaid.pk), lambda c: {}, {"bob", "carol"}, "alice"
    ),
    ("pages:exchequer", "pay from England's exchequer"): P(
        lambda c: u("pages:exchequer", c.slug, c.pk("England")),
        lambda c: {"form": "transfer", "payee": c.pk("France"), "kind": "transfer", "amount": 1, "reason": "a gift"},
        {"bob", "carol"},
        "alice",
    ),
    ("pages:exchequer", "reverse the transfer"): P(
        lambda c: u("pages:exchequer", c.slug, c.pk("England")),
        lambda c: {"form": "reverse", "posting": c.postings["transfer"].pk, "reason": "a mistake"},
        PLAYERS,
        "gm",
    ),
    ("pages:interphase", "England's Interphase, previewed"): P(
        lambda c: u("pages:interphase", c.slug, c.pk("England")), lambda c: dict(ENGLAND_INTERPHASE), {"bob", "carol"}, "alice"
    ),
    ("pages:interphase", "England's Interphase"): P(
        lambda c: u("pages:interphase", c.slug, c.pk("England")),
        lambda c: {**ENGLAND_INTERPHASE, "do": "run"},
        {"bob", "carol"},
        "alice",
    ),
}
"""(pattern key, what) -> a request that would act, who may not send it, and one who may."""

for _key, _sample in EVENT_SAMPLES.items():  # the table's events: each through the API and its page
    ACTIONS[(f"api:event-{_key}", _sample.what or _key)] = A(
        lambda c, k=_key: _api(c, "events", k), _sample.body, _sample.refused, _sample.allowed
    )
    ACTIONS[("pages:event", _sample.what or _key)] = P(
        lambda c, k=_key: u("pages:event", c.slug, k), _sample.body, _sample.refused, _sample.allowed
    )


def test_every_table_event_has_its_sample() -> None:
    from campaign.table_events import events

    missing = sorted(e.key for e in events() if e.key not in EVENT_SAMPLES)
    assert not missing, f"table events with no request for the secrecy matrix (tests/secrecy_events/): {missing}"


def test_every_write_endpoint_has_its_requests() -> None:
    keyed = {key for key, _ in ACTIONS}
    missing = [k for k, fill in FILL.items() if fill.post == POST_ACTION and k not in keyed]
    assert not missing, f"write endpoints with no request in ACTIONS (tests/test_secrecy_matrix.py): {missing}"
    stray = sorted(k for k in keyed if k not in FILL or FILL[k].post != POST_ACTION)
    assert not stray, f"ACTIONS names patterns FILL does not mark as writes (post=POST_ACTION): {stray}"


def _body(act: Act, c: Cast) -> dict[str, Any]:
    """The request's body; a page's form carries a fresh one-time key, as the page would give it."""
    return act.body(c) if act.api else {"action_key": new_action_key(), **act.body(c)}


def fingerprint(c: Cast) -> dict[str, Any]:
    """A cheap picture of everything an action could write: row counts and the fields actions change."""
    campaign = Campaign.objects.get(pk=c.campaign.pk)
    mine = {"campaign": campaign}
    return {
        "campaign": (campaign.step, campaign.current_year, Campaign.objects.count()),
        "chronicle": ChronicleEntry.objects.filter(**mine).count(),
        "postings": Posting.objects.filter(**mine).count(),
        "contracts": list(Contract.objects.filter(**mine).order_by("pk").values_list("pk", "state")),
        "signatures": ContractSignature.objects.filter(contract__campaign=campaign).count(),
        "payments": list(ContractPayment.objects.filter(**mine).order_by("pk").values_list("pk", "status")),
        "breaches": Breach.objects.filter(**mine).count(),
        "marriages": list(
            Marriage.objects.filter(**mine).order_by("pk").values_list("pk", "wedding_year", "ended_year", "dowry")
        ),
        "characters": list(Character.objects.filter(**mine).order_by("pk").values_list("pk", "status", "controlled_by")),
        "rolls": Roll.objects.filter(**mine).count(),
        "births": BirthAttempt.objects.filter(**mine).aggregate(n=Count("pk"), children=Count("child")),
        "reigns": Reign.objects.filter(**mine).count(),
        "keys": ActionKey.objects.filter(**mine).count(),
        "checkpoints": Checkpoint.objects.filter(**mine).count(),
        "members": Membership.objects.filter(**mine).count(),
        "invitations": list(Invitation.objects.filter(**mine).order_by("pk").values_list("pk", "used_at", "revoked_at")),
        "tokens": list(ApiToken.objects.order_by("pk").values_list("pk", "revoked_at")),
        "jobs": Job.objects.filter(**mine).count(),
    }


def refusal_problems(world: Cast, act: Act, answer: Answer, fake: Answer | None) -> list[str]:
    where = f"{answer.role} POST {answer.url} -> {answer.status}"
    if answer.role in NON_MEMBERS and act.scope == CAMPAIGN:
        problems = []
        if answer.role == "anonymous":
            ok = answer.status == 404 or (act.api and answer.status == 401) or (not act.api and _login_redirect(answer))
        else:
            ok = answer.status == 404
        if not ok:
            problems.append(f"{where}: a non-member is refused with 404")
        if fake is not None and (answer.status, answer.location.replace(world.slug, FAKE_SLUG)) != (fake.status, fake.location):
            problems.append(f"{where}: a made-up campaign answers {fake.status} {fake.location}: a non-member can tell")
        return problems
    if answer.role == "anonymous":
        ok = answer.status in (401, 403, 404) or _login_redirect(answer)
        return [] if ok else [f"{where}: the anonymous visitor is refused"]
    if act.scope == SITE and not act.api and answer.status == 302 and not _login_redirect(answer):
        return []  # a page of the user's own account refuses by sending him back with a message (nothing written)
    if answer.status not in (400, 403, 404):
        return [f"{where}: refused (400, 403 or 404) expected"]
    if answer.status == 400 and not (answer.text or "").strip():
        return [f"{where}: a 400 says what is wrong"]
    return []


@pytest.mark.django_db
@pytest.mark.parametrize("action", list(ACTIONS), ids=[f"{k}: {what}" for k, what in ACTIONS])
def test_no_role_acts_where_it_may_not(world: Cast, clients: dict[str, APIClient], action: tuple[str, str]) -> None:
    key, _ = action
    act = ACTIONS[action]
    url = act.url(world)
    problems: list[str] = []
    refused = sorted(act.refused | (NON_MEMBERS if act.scope == CAMPAIGN else {"anonymous"}), key=ROLES.index)
    for role in refused:
        body = _body(act, world)
        with transaction.atomic():
            before = fingerprint(world)
            answer = ask(clients[role], key, url, role, "post", body, api=act.api, keep=True)
            after = fingerprint(world)
            transaction.set_rollback(True)
        fake = None
        if act.scope == CAMPAIGN and role in NON_MEMBERS:
            fake = ask(clients[role], key, url.replace(f"/{world.slug}/", f"/{FAKE_SLUG}/"), role, "post", body, api=act.api)
        problems += refusal_problems(world, act, answer, fake)
        if answer.status >= 500:
            problems.append(f"{role} POST {url}: a server error ({answer.body[:300]!r})")
        if before != after:
            changed = sorted(k for k in before if before[k] != after[k])
            problems.append(f"{role} POST {url} -> {answer.status}: wrote {changed}")
        problems += [f"{role} POST {url} -> {answer.status}: the refusal shows {m}" for m in leaks(role, answer.text or "")]
    if act.allowed is not None:
        answer = ask(clients[act.allowed], key, url, act.allowed, "post", _body(act, world), api=act.api)
        if answer.status in (401, 403, 404) or _login_redirect(answer) or answer.status >= 500:
            problems.append(
                f"control: {act.allowed} POST {url} -> {answer.status} {answer.body[:300]!r}: the request itself is refused, "
                "so the refusals above prove nothing; fix the request in ACTIONS"
            )
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems)


@pytest.mark.django_db
@pytest.mark.parametrize("key", [k for k in KEYS if k in FILL and FILL[k].post in (POST_405, POST_SAME) and FILL[k].urls])
def test_read_only_patterns_write_nothing(world: Cast, clients: dict[str, APIClient], sweep: Sweep, key: str) -> None:
    """A pattern FILL calls read-only answers a POST with 405, or (a view that ignores the method)
    as it answers a GET; either way nothing is written. (Asked by a player: cheaper than the GM's
    PDFs of the whole campaign, and a player's POST is the one that must not write.)"""
    fill = FILL[key]
    assert fill.urls is not None
    url = fill.urls(world)[0]
    role = "alice" if "alice" in fill.roles else fill.roles[0]
    with transaction.atomic():
        before = fingerprint(world)
        posted = ask(clients[role], key, url, role, "post", {}, api=url.startswith("/api/"), keep=True)
        after = fingerprint(world)
        transaction.set_rollback(True)
    assert before == after, f"POST {url} wrote {sorted(k for k in before if before[k] != after[k])}"
    if fill.post == POST_405:
        assert posted.status == 405, f"POST {url} -> {posted.status}: a read-only pattern answers 405 (or mark it POST_ACTION)"
    else:
        got = next(a for a in sweep.answers[key] if a.url == url and a.role == role)
        assert posted.status == got.status, f"POST {url} -> {posted.status}, GET -> {got.status}: mark it POST_405 or POST_ACTION"
