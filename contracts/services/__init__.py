"""Contracts between dynasties (RULES.md A6, B Marriage/Betrothal, D; issue 5 "Contracts"), one module
per stage of a contract's life: ``drafting``, ``signing``, ``in_force`` (what coming into force applies,
payments), ``ending``, ``breaches`` (and disputes), ``parleys`` (and excommunication), and
``consequences`` (a death, a wedding, a marriage ended, the turn advanced); ``common`` is shared.
The public services are re-exported here.

Public services are keyword-only transactions on the locked campaign; each writes a chronicle line
for what it did. The ``contracts_on_*`` and ``contracts_turn_advance`` hooks are not transactions:
the dynastic services call them inside theirs, with their chronicle.

- A contract is drafted with its parties and structured clauses, then signed: each party signs its
  side (``contract_sign_party``), or the GM records every party's signature at once
  (``contract_sign``); both take one path, and the contract is signed when the last party signs.
  A marriage contract signed before the wedding waits and comes into force at the wedding (A6:
  "the contract binds only from the wedding"); other contracts come into force when signed, or at
  their start year.
- Coming into force applies the clauses the companion can apply: one-off payments and dowries are
  posted to the ledger, a renunciation is recorded (it outlives the contract), who raises the
  children and whether the husband joins the wife's house are written on the match.
- Recurring payments are posted at each turn advance while the contract is in force. A payment the
  payer cannot cover is kept as unpaid (``ContractPayment``), in the chronicle for both parties
  and the GM, until ``payment_settle`` makes it good.
- A marriage contract ends by itself when a spouse dies (a betrothal's contract dies without
  penalty); a binding agreement by mutual consent or when a leader party to it dies heirless; any
  contract when its fixed term expires or a party invokes its escape clause.
- Breaches: BloodLine's ruling by a majority of the other players, term by term; the medieval
  parley, whose tie excommunicates the breaker of a binding agreement; excommunication ends when
  the leader dies heirless or a readmission parley (once per round) readmits the player.
- Diplomacy's consequences (``claims``): the claims register (a claim parley that carries grants
  the claim; houses exchange claims; the GM records the board's); a contested conquest's or
  inheritance's decision makes the loser return or relinquish the area (``Obligation``), or refuse
  and be excommunicated; one still open at the next turn's advance is flouted (22.1).
"""

from __future__ import annotations

from contracts.services.breaches import breach_record, dispute_majority
from contracts.services.claims import area_claim_exchange, area_claim_record, area_claim_renounce, obligation_resolve
from contracts.services.common import BINDING, LIVE, died_heirless, excommunicated, leader_of, unpaid_payments
from contracts.services.consequences import (
    contracts_on_deaths,
    contracts_on_marriage_end,
    contracts_on_wedding,
    contracts_on_weddings,
    contracts_turn_advance,
)
from contracts.services.drafting import contract_draft
from contracts.services.ending import contract_end_by_consent, contract_escape
from contracts.services.in_force import payment_settle
from contracts.services.parleys import parley_hold, parley_run, readmission_parley
from contracts.services.signing import AlreadySigned, NotADraft, NotAParty, contract_sign, contract_sign_party, signatures

__all__ = [
    "BINDING",
    "LIVE",
    "AlreadySigned",
    "NotADraft",
    "NotAParty",
    "area_claim_exchange",
    "area_claim_record",
    "area_claim_renounce",
    "breach_record",
    "contract_draft",
    "contract_end_by_consent",
    "contract_escape",
    "contract_sign",
    "contract_sign_party",
    "contracts_on_deaths",
    "contracts_on_marriage_end",
    "contracts_on_wedding",
    "contracts_on_weddings",
    "contracts_turn_advance",
    "died_heirless",
    "dispute_majority",
    "excommunicated",
    "leader_of",
    "obligation_resolve",
    "parley_hold",
    "parley_run",
    "payment_settle",
    "readmission_parley",
    "signatures",
    "unpaid_payments",
]
