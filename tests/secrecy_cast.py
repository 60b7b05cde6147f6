"""The cast and the planted secrets of the generated secrecy matrix (``tests/test_secrecy_matrix.py``).

One Blood Royale campaign of five houses (optional rule G, Governing Provinces, in force): the GM;
Alice plays England, Bob France, Carol Spain; an observer; and three non-members: an outsider (the GM
of another campaign of his own), a staff user who is neither this campaign's GM nor a superuser (with
the admin's view permissions), and the anonymous visitor. The secrets are planted through the
services, so what is planted is exactly what the real code writes; each carries a unique marker (a
word or an odd amount) that the matrix looks for in every answer of the site.

Between England and Spain: a transfer, an agreement whose one-off payment England cannot pay (left
unpaid, its chronicle line telling England's balance), a breach of it, a betrothal sealed by a
marriage contract with a dowry, and a draft. Between France and Spain: a draft, and the ransom of
Spain's King, taken by France and bought back (a ransom's money and terms are the payer's and the
captor's). The Treasury grants England and France a purse each (their exchequers' secrets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from api.models import ApiToken
from api.services import token_create
from campaign.models import Campaign, ChronicleEntry, Membership, Role, Roll
from contracts import services as contracts
from contracts.models import Breach, Claim, Contract, ContractPayment, Obligation, PaymentStatus
from dynasties import treasury
from dynasties.models import BirthAttempt, Character, Dynasty, Marriage, Posting, Reign, Title, TitleHolding
from dynasties.services import births_attempt, campaign_create
from dynasties.services.events import character_capture, character_release
from dynasties.services.marriages import marriage_arrange, marriage_check
from dynasties.services.notes import note_write
from rules.dice import RandomSource
from tests.factories import seat_member

ROLES = ("gm", "alice", "bob", "carol", "observer", "outsider", "staff", "anonymous")
MEMBERS = frozenset({"gm", "alice", "bob", "carol", "observer"})
NON_MEMBERS = frozenset({"outsider", "staff", "anonymous"})
PLAYS = {"alice": "England", "bob": "France", "carol": "Spain"}

NAME = "Campaign Nine Secrets"  # public to members, unknown to everyone else
OTHER_NAME = "The Outsider's Own"
FAKE_SLUG = "no-such-campaign-zq"  # a campaign that does not exist
FAKE_ID = 987654

# markers (words nobody writes by chance) and amounts (odd numbers no rule produces)
ENGLAND_PURSE = "PURSE-ENGLAND-KQ3"  # the Treasury grants England 7358
ENGLAND_PURSE_AMOUNT = 7358
FRANCE_PURSE = "PURSE-FRANCE-JW8"  # the Treasury grants France 3361
FRANCE_PURSE_AMOUNT = 3361
TRANSFER = "TRANSFER-TO-SPAIN-QX7"  # England pays Spain 4729
TRANSFER_AMOUNT = 4729
ENGLAND_HOLDS = ENGLAND_PURSE_AMOUNT - TRANSFER_AMOUNT  # 2629: England's balance from then on
PACT = "PACT-OF-SECRETS-M4"  # England owes Spain 5813 under it and cannot pay
PACT_PAYMENT = 5813
BREACH = "BREACH-WORDS-V6"  # Spain accuses England of breaking the pact
WEDDING = "WEDDING-TERMS-R2"  # the marriage contract of the England-Spain betrothal
DOWRY = 1877  # its dowry, Spain to England
DRAFT = "DRAFT-ENGLAND-SPAIN-Z9"  # a draft between England and Spain
FRANCE_DRAFT = "DRAFT-FRANCE-SPAIN-W5"  # a draft between France and Spain
TOKEN = "ALICE-TOKEN-NB4"  # the name of Alice's API token: hers alone
GM_NOTE = "GM-NOTE-HX5"  # the GM's note on the groom: the GM's alone
ENGLAND_NOTE = "ENGLAND-NOTE-T8"  # the note for England's player on the house of England: Alice's and the GM's
RANSOM = "RANSOM-TERMS-P7"  # the terms of Spain's ransom of its King, taken by France
RANSOM_AMOUNT = 1163  # what Spain pays France for him


@dataclass
class Cast:
    campaign: Campaign
    other: Campaign  # the outsider's own campaign (he is its GM)
    users: dict[str, Any]  # role -> user (None: anonymous)
    house: dict[str, Dynasty]  # crown -> dynasty
    monarch: dict[str, Character]  # crown -> the reigning monarch
    reign: Reign  # England's
    couple: Marriage  # England's wed couple (the monarchs), for the births
    attempt: BirthAttempt  # England's birth roll, a child waiting for its sex roll
    roll: Roll  # that birth roll
    groom: Character  # the betrothed of England and Spain
    bride: Character
    match: Marriage  # their betrothal
    pact: Contract
    wedding: Contract
    draft: Contract
    france_draft: Contract
    unpaid: ContractPayment
    breach: Breach
    title: Title  # a governorship of England's, for the title actions (Blood Royale: they refuse it)
    claim: Claim  # England's claim to Calais, recorded by the GM
    obligation: Obligation  # England must return Kent to Spain (a parley on England's conquest)
    postings: dict[str, Posting] = field(default_factory=dict)
    lines: dict[str, ChronicleEntry] = field(default_factory=dict)
    membership: Membership | None = None  # Alice's
    token: ApiToken | None = None  # Alice's

    @property
    def slug(self) -> str:
        return self.campaign.slug

    def pk(self, crown: str) -> int:
        return self.house[crown].pk


def _user(username: str, **extra: Any) -> Any:
    return get_user_model().objects.create_user(username, password=f"{username}-password-1", **extra)


def _betrothable(campaign: Campaign, one: Dynasty, other: Dynasty) -> tuple[Character, Character]:
    """A groom of one house and a bride of the other (or the reverse) whom nothing forbids to betroth."""
    first = list(Character.objects.filter(campaign=campaign, controlled_by=one).order_by("pk"))
    second = list(Character.objects.filter(campaign=campaign, controlled_by=other).order_by("pk"))
    for a in first:
        for b in second:
            if a.sex == b.sex:
                continue
            husband, wife = (a, b) if a.sex == "M" else (b, a)
            if not marriage_check(campaign, husband, wife, wedding=False):
                return husband, wife
    raise AssertionError(f"No legal betrothal between {one} and {other}: change the seed in tests/secrecy_cast.py.")


def build_cast(seed: int = 1) -> Cast:
    """The campaign with every secret planted (through the services)."""
    gm = _user("matrix-gm")
    users: dict[str, Any] = {
        "gm": gm,
        "alice": _user("matrix-alice"),
        "bob": _user("matrix-bob"),
        "carol": _user("matrix-carol"),
        "observer": _user("matrix-observer"),
        "outsider": _user("matrix-outsider"),
        "staff": _user("matrix-staff", is_staff=True),
        "anonymous": None,
    }
    # the staff user may read every campaign model in the admin (the most a non-superuser is given)
    users["staff"].user_permissions.set(
        Permission.objects.filter(
            codename__startswith="view_", content_type__app_label__in=["campaign", "dynasties", "contracts"]
        )
    )
    campaign = campaign_create(  # with optional rules D, E and G, so that their events are sent too
        name=NAME,
        players=5,
        source=RandomSource(seed),
        optional_rules={"governing_provinces": True, "event_cards": True, "trade_item_movement": True},
        by=gm,
    )
    other = campaign_create(name=OTHER_NAME, players=3, source=RandomSource(seed + 1), by=users["outsider"])
    house = {d.crown: d for d in Dynasty.objects.filter(campaign=campaign)}
    england, france, spain = house["England"], house["France"], house["Spain"]
    for role, crown in PLAYS.items():
        seat_member(campaign=campaign, user=users[role], role=Role.PLAYER, dynasty=house[crown])
    Membership.objects.create(campaign=campaign, user=users["observer"], role=Role.OBSERVER)
    assert Membership.objects.filter(campaign=campaign, user=gm, role=Role.GM).exists(), "the GM is the creator"
    assert Membership.objects.filter(campaign=other, user=users["outsider"], role=Role.GM).exists()

    postings = {
        "england purse": treasury.treasury_transfer(
            campaign=campaign, payer=None, payee=england, amount=ENGLAND_PURSE_AMOUNT, reason=ENGLAND_PURSE, kind="other", by=gm
        ),
        "france purse": treasury.treasury_transfer(
            campaign=campaign, payer=None, payee=france, amount=FRANCE_PURSE_AMOUNT, reason=FRANCE_PURSE, kind="other", by=gm
        ),
        "transfer": treasury.treasury_transfer(
            campaign=campaign, payer=england, payee=spain, amount=TRANSFER_AMOUNT, reason=TRANSFER, by=users["alice"]
        ),
    }
    assert treasury.balance(campaign, england) == ENGLAND_HOLDS
    spanish_king = Reign.objects.get(campaign=campaign, crown="Spain", end_year__isnull=True).holder
    character_capture(campaign=campaign, characters=[spanish_king.pk], captor=france, reason="taken at sea", by=gm)
    character_release(campaign=campaign, characters=[spanish_king.pk], ransom=RANSOM_AMOUNT, paid_by=spain, terms=RANSOM, by=gm)
    postings["ransom"] = Posting.objects.get(campaign=campaign, kind="ransom")

    pact = contracts.contract_draft(
        campaign=campaign,
        kind="agreement",
        title=PACT,
        parties=[england, spain],
        clauses=[
            {"kind": "payment", "params": {"payer": england.pk, "payee": spain.pk, "amount": PACT_PAYMENT}},
            {"kind": "non_aggression"},
        ],
        by=gm,
    )
    contracts.contract_sign(campaign=campaign, contract=pact, by=gm)  # in force: the payment falls due, unpaid
    unpaid = ContractPayment.objects.get(contract=pact)
    assert unpaid.status == PaymentStatus.UNPAID, "England holds less than the pact's payment: it stays unpaid"
    breach = contracts.breach_record(
        campaign=campaign, contract=pact, by_dynasty=england, raised_by=spain, text=BREACH, by=users["carol"]
    )

    groom, bride = _betrothable(campaign, england, spain)
    match = marriage_arrange(campaign=campaign, husband=groom, wife=bride, by=gm)
    wedding = contracts.contract_draft(
        campaign=campaign,
        kind="marriage",
        title=WEDDING,
        parties=[england, spain],
        marriage=match,
        clauses=[{"kind": "dowry", "params": {"payer": spain.pk, "payee": england.pk, "amount": DOWRY}}],
        by=gm,
    )
    contracts.contract_sign(campaign=campaign, contract=wedding, by=gm)  # signed: its terms are written on the match
    match.refresh_from_db()
    assert str(DOWRY) in match.dowry, match.dowry

    draft = contracts.contract_draft(
        campaign=campaign, kind="agreement", title=DRAFT, parties=[england, spain], by=users["alice"]
    )
    france_draft = contracts.contract_draft(
        campaign=campaign, kind="agreement", title=FRANCE_DRAFT, parties=[france, spain], by=users["bob"]
    )

    reigns = {r.crown: r for r in Reign.objects.filter(campaign=campaign, end_year__isnull=True).select_related("holder")}
    couple = (
        Marriage.objects.get(campaign=campaign, husband=reigns["England"].holder)
        if reigns["England"].holder.sex == "M"
        else Marriage.objects.get(campaign=campaign, wife=reigns["England"].holder)
    )
    attempt = births_attempt(campaign=campaign, marriage=couple, faces=[6, 6], by=users["alice"])
    assert attempt.success and attempt.roll is not None
    _, _key = token_create(user=users["alice"], name=TOKEN)
    note_write(campaign, audience="gm", text=f"{GM_NOTE}: the true heir", character=groom, by=gm)
    note_write(campaign, audience="player", text=f"{ENGLAND_NOTE}: wed Spain", dynasty=house["England"], by=users["alice"])
    title = Title.objects.create(
        campaign=campaign,
        name="Duke of Kent",
        province="Kent",
        crown="England",
        holder=groom,
        granted_year=campaign.current_year,
        granted_to=groom,
    )
    TitleHolding.objects.create(title=title, holder=groom, start_year=campaign.current_year, how="granted by the crown")

    claim = contracts.area_claim_record(campaign=campaign, dynasty=england, area="Calais", by=gm)
    contest = contracts.parley_run(
        campaign=campaign,
        kind="conquest",
        caller=spain,
        opponent=england,
        area="Kent",
        votes=[{"dynasty": spain.pk, "stature": 5, "choice": "for"}],
        by=gm,
    )
    obligation = Obligation.objects.get(parley=contest)

    lines = {
        "england purse": ChronicleEntry.objects.get(campaign=campaign, kind="payment", text__contains=ENGLAND_PURSE),
        "france purse": ChronicleEntry.objects.get(campaign=campaign, kind="payment", text__contains=FRANCE_PURSE),
        "transfer": ChronicleEntry.objects.get(campaign=campaign, kind="payment", text__contains=TRANSFER),
        "ransom": ChronicleEntry.objects.filter(campaign=campaign, kind="payment_owed", text__contains=RANSOM).first(),
        "unpaid": ChronicleEntry.objects.get(campaign=campaign, kind="contract_unpaid"),
        "breach": ChronicleEntry.objects.get(campaign=campaign, kind="contract_breach"),
        "draft": ChronicleEntry.objects.get(campaign=campaign, kind="contract_draft", text__contains=DRAFT),
        "france draft": ChronicleEntry.objects.get(campaign=campaign, kind="contract_draft", text__contains=FRANCE_DRAFT),
        "wedding signed": ChronicleEntry.objects.filter(
            campaign=campaign, kind="contract_signed", text__contains=WEDDING
        ).first(),
        "betrothal": ChronicleEntry.objects.filter(campaign=campaign, kind="betrothal").first(),
    }
    return Cast(
        campaign=campaign,
        other=other,
        users=users,
        house=house,
        monarch={crown: r.holder for crown, r in reigns.items()},
        reign=reigns["England"],
        couple=couple,
        attempt=attempt,
        roll=attempt.roll,
        groom=groom,
        bride=bride,
        match=match,
        pact=pact,
        wedding=wedding,
        draft=draft,
        france_draft=france_draft,
        unpaid=unpaid,
        breach=breach,
        title=title,
        claim=claim,
        obligation=obligation,
        postings=postings,
        lines={k: v for k, v in lines.items() if v is not None},
        membership=Membership.objects.get(campaign=campaign, user=users["alice"]),
        token=ApiToken.objects.get(user=users["alice"], name=TOKEN),
    )
