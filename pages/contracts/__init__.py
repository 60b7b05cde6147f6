"""Pages: contracts (issue 7), one module each: the list and the page of a contract, drafting with structured
clauses, signing, ending, breaches, BloodLine disputes and parleys, unpaid payments settled.

Secrecy: every contract is read through ``campaign.permissions.visible`` (the GM sees all, a player
the contracts his house is party to, an observer what the permission layer gives him); a contract
the viewer may not see is a 404, never a name or a count. Writing:

- a player drafts only contracts his house is party to, ends or breaks (records a breach of) only
  those, and acts for his own house only (his signature, his escape clause, his unpaid payments);
  the GM does everything;
- each party signs its side of a draft (``signing.contract_sign_party``): a player signs for his own house
  only, the GM for any party; the contract comes into force once every party has signed. The GM
  may also record every party's signature at once (``signing.contract_sign``: the printed contract signed
  at the table; the form asks to confirm it);
- disputes and parleys are votes of the whole table: the GM records every house's vote in one form.

Each write goes through :func:`pages.common.run_action` (one transaction, the undo checkpoint, the
one-time form key); a refusal by the services is shown next to the field or at the top of the form,
with status 400, and nothing is written."""
