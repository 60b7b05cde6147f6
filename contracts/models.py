"""Contracts between dynasties: marriage contracts, binding agreements and treaties, their clauses,
breaches and the votes that settle disputes."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from campaign.audit import AuditedRecords
from campaign.invariants import Invariants, check, unique


class ContractKind(models.TextChoices):
    MARRIAGE = "marriage", "Marriage contract"
    AGREEMENT = "agreement", "Binding agreement"
    TREATY = "treaty", "Treaty"


class ContractState(models.TextChoices):
    DRAFT = "draft", "Draft"
    SIGNED = "signed", "Signed (awaiting the wedding or start)"
    IN_FORCE = "in_force", "In force"
    ENDED = "ended", "Ended"


class EndKind(models.TextChoices):
    """Why a contract ended (the reason in words is ``Contract.end_reason``)."""

    DEATH = "death", "A spouse died"
    BETROTHAL_VOID = "betrothal_void", "The betrothal ended before the wedding"
    HEIRLESS = "heirless", "A leader party to it died heirless"
    CONSENT = "consent", "Mutual consent"
    TERM = "term", "The fixed term expired"
    ESCAPE = "escape", "Escape clause invoked"


class Contract(Invariants, models.Model):
    """A written contract between dynasties. A marriage contract binds from the wedding and lasts
    while both spouses live (A6); a binding agreement lasts until mutual consent or a leader party
    to it dies heirless (D); a fixed term expires at the turn advance."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="contracts")
    kind = models.CharField(max_length=20, choices=ContractKind.choices)
    title = models.CharField(max_length=200)
    parties = models.ManyToManyField("dynasties.Dynasty", related_name="contracts")
    marriage = models.ForeignKey("dynasties.Marriage", null=True, blank=True, on_delete=models.SET_NULL, related_name="contracts")
    start_year = models.IntegerField()
    term_years = models.PositiveIntegerField(null=True, blank=True, help_text="A fixed term; empty: open-ended.")
    state = models.CharField(max_length=10, choices=ContractState.choices, default=ContractState.DRAFT)
    signed_year = models.IntegerField(null=True, blank=True)
    in_force_year = models.IntegerField(
        null=True, blank=True, help_text="When it came into force (a marriage contract: the wedding)."
    )
    ended_year = models.IntegerField(null=True, blank=True)
    end_kind = models.CharField(max_length=20, blank=True, choices=EndKind.choices)
    end_reason = models.CharField(max_length=200, blank=True)
    text = models.TextField(blank=True, help_text="Free text read with the clauses.")
    history = AuditedRecords()  # the audit trail (campaign.audit); the parties are set once, at the draft

    class Meta:
        ordering = ["campaign", "start_year", "id"]
        constraints = [
            check(
                (Q(state="ended") & Q(ended_year__isnull=False)) | (~Q(state="ended") & Q(ended_year__isnull=True)),
                name="contract_ended_iff_year",
                field="ended_year",
                message="An ended contract has the year it ended, and only an ended one "
                "(the state is {state}, the year it ended {ended_year}).",
            ),
            check(
                Q(ended_year__isnull=True) | Q(in_force_year__isnull=True) | Q(ended_year__gte=F("in_force_year")),
                name="contract_ends_after_coming_into_force",
                field="ended_year",
                message="The contract's end ({ended_year}) cannot come before it came into force ({in_force_year}).",
            ),
            check(
                Q(in_force_year__isnull=True) | Q(signed_year__isnull=False),
                name="contract_in_force_once_signed",
                field="in_force_year",
                message="A contract comes into force once signed: set the year it was signed first.",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "state"])]

    def __str__(self) -> str:
        return f"{self.title} ({self.get_kind_display()}, {self.get_state_display().lower()})"


class ContractSignature(Invariants, models.Model):
    """One party's signature of a contract. Each house signs its side (its player, or the GM for
    it); when every party has signed, the contract is signed and comes into force as due
    (``contracts.services.contract_sign_party``; ``contract_sign`` signs for every party at once)."""

    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="signatures")
    dynasty = models.ForeignKey("dynasties.Dynasty", on_delete=models.PROTECT, related_name="contract_signatures")
    year = models.IntegerField(help_text="The turn the house signed.")
    signed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Who recorded the signature (the house's player or the GM).",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)  # not auto_now_add: undo restores it as it was
    history = AuditedRecords()

    class Meta:
        ordering = ["contract", "pk"]
        constraints = [
            unique(
                ["contract", "dynasty"],
                name="contractsignature_once_per_party",
                field="dynasty",
                message="This house is already a party to this contract.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.dynasty} signed {self.contract.title} in {self.year}"


class ClauseKind(models.TextChoices):
    PAYMENT = "payment", "One-off payment"
    RECURRING_PAYMENT = "recurring_payment", "Recurring payment per turn"
    TRADE_ITEM = "trade_item", "Delivery of a trade item per turn"
    NON_AGGRESSION = "non_aggression", "Non-aggression"
    SAFE_PASSAGE = "safe_passage", "Safe passage / free movement"
    MILITARY_SUPPORT = "military_support", "Military support"
    CESSION = "cession", "Cession of a province"
    RENUNCIATION = "renunciation", "Renunciation of a claim"
    CHILDREN_RAISED_BY = "children_raised_by", "Which dynasty raises the children"
    HUSBAND_JOINS_WIFE = "husband_joins_wife", "The husband joins the wife's dynasty"
    DOWRY = "dowry", "Dowry"
    ESCAPE = "escape", "Escape clause"
    DAMAGES = "damages", "Damages for breach"


class Clause(Invariants, models.Model):
    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="clauses")
    position = models.PositiveSmallIntegerField(default=0)
    kind = models.CharField(max_length=30, choices=ClauseKind.choices)
    params = models.JSONField(default=dict, blank=True)
    text = models.TextField(blank=True)
    history = AuditedRecords()

    class Meta:
        ordering = ["contract", "position", "id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.params}"


class PaymentStatus(models.TextChoices):
    PAID = "paid", "Paid"
    UNPAID = "unpaid", "Unpaid (the payer could not cover it)"


class ContractPayment(Invariants, models.Model):
    """Every payment a contract made due: a one-off payment or dowry when it came into force, each
    turn's instalment of a recurring payment, damages for a breach. A payment the payer cannot
    cover is kept as unpaid (never skipped) until ``payment_settle`` posts it."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="contract_payments")
    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="payments")
    clause = models.ForeignKey(Clause, null=True, blank=True, on_delete=models.SET_NULL, related_name="payments")
    breach = models.ForeignKey("Breach", null=True, blank=True, on_delete=models.SET_NULL, related_name="payments")
    year = models.IntegerField(help_text="The turn the payment fell due.")
    payer = models.ForeignKey("dynasties.Dynasty", on_delete=models.PROTECT, related_name="contract_payments_due")
    payee = models.ForeignKey("dynasties.Dynasty", on_delete=models.PROTECT, related_name="contract_payments_owed")
    amount = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=PaymentStatus.choices)
    posting = models.OneToOneField(
        "dynasties.Posting", null=True, blank=True, on_delete=models.PROTECT, related_name="contract_payment"
    )
    settled_year = models.IntegerField(null=True, blank=True, help_text="When an unpaid payment was made good.")
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["campaign", "year", "id"]
        constraints = [
            check(
                Q(amount__gt=0),
                name="contractpayment_amount_positive",
                field="amount",
                message="An amount is more than 0, not {amount}.",
            ),
            check(
                ~Q(payer=F("payee")),
                name="contractpayment_two_houses",
                field="payee",
                message="A payment is between two houses: the payer and the payee are the same.",
            ),
            check(
                (Q(status="paid") & Q(posting__isnull=False)) | (Q(status="unpaid") & Q(posting__isnull=True)),
                name="contractpayment_paid_iff_posted",
                field="posting",
                message="A paid payment has its posting in the treasury, and an unpaid one none (the status is {status}).",
            ),
            unique(
                ["clause", "year"],
                condition=Q(breach__isnull=True),
                name="contractpayment_once_per_turn",
                field="year",
                message="This clause already has its payment of {year}.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.year}: {self.amount} from {self.payer} to {self.payee} ({self.get_status_display().lower()})"


class ContractPosting(Invariants, models.Model):
    """Which contract a posting of the ledger paid under (a payment, damages): the contracts keep it,
    as the ledger (``dynasties.models.Posting``) knows no contract. At most one per posting; gone
    with the contract (the posting stays, under no contract), as with the posting."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="+")
    posting = models.OneToOneField("dynasties.Posting", on_delete=models.CASCADE, related_name="contract_link")
    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="posting_links")

    class Meta:
        ordering = ["campaign", "posting"]

    def __str__(self) -> str:
        return f"posting #{self.posting_id} under contract #{self.contract_id}"


class Breach(Invariants, models.Model):
    """A party's breach of a contract, as another party recorded it, and how it was settled."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="breaches")
    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="breaches")
    clause = models.ForeignKey(Clause, null=True, blank=True, on_delete=models.SET_NULL, related_name="breaches")
    by_dynasty = models.ForeignKey(
        "dynasties.Dynasty", on_delete=models.PROTECT, related_name="breaches_committed", help_text="The party in breach."
    )
    raised_by = models.ForeignKey(
        "dynasties.Dynasty", on_delete=models.PROTECT, related_name="breaches_raised", help_text="The injured party."
    )
    year = models.IntegerField()
    text = models.TextField()
    resolution = models.CharField(max_length=300, blank=True)
    resolved_year = models.IntegerField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "year", "id"]
        verbose_name_plural = "breaches"
        constraints = [
            check(
                ~Q(by_dynasty=F("raised_by")),
                name="breach_two_parties",
                field="raised_by",
                message="A house does not raise a breach against itself.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.year}: breach of {self.contract.title} by {self.by_dynasty}"


class Dispute(Invariants, models.Model):
    """BloodLine: a dispute ruled by a majority of the other players, term by term."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="disputes")
    breach = models.OneToOneField(Breach, on_delete=models.CASCADE, related_name="dispute")
    year = models.IntegerField()
    voters = models.JSONField(default=list, help_text="The other players entitled to rule (dynasty ids).")
    outcome = models.TextField(blank=True)

    class Meta:
        ordering = ["campaign", "year", "id"]

    def __str__(self) -> str:
        return f"{self.year}: ruling on {self.breach}"


class DisputeTerm(Invariants, models.Model):
    dispute = models.ForeignKey(Dispute, on_delete=models.CASCADE, related_name="terms")
    clause = models.ForeignKey(Clause, on_delete=models.CASCADE, related_name="rulings")
    upheld_by = models.PositiveSmallIntegerField()
    rejected_by = models.PositiveSmallIntegerField()
    upheld = models.BooleanField(help_text="A majority of the other players upheld it: it is enforced.")
    enforcement = models.CharField(max_length=200, blank=True, help_text="What the companion did to enforce it.")

    class Meta:
        ordering = ["dispute", "clause__position", "clause_id"]
        constraints = [
            unique(
                ["dispute", "clause"],
                name="disputeterm_once",
                field="clause",
                message="This clause is already a term of this dispute.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.clause}: {'upheld' if self.upheld else 'ignored'} ({self.upheld_by}-{self.rejected_by})"


class DisputeVote(Invariants, models.Model):
    dispute = models.ForeignKey(Dispute, on_delete=models.CASCADE, related_name="votes")
    dynasty = models.ForeignKey("dynasties.Dynasty", on_delete=models.PROTECT, related_name="dispute_votes")
    clause = models.ForeignKey(Clause, on_delete=models.CASCADE, related_name="dispute_votes")
    upholds = models.BooleanField()

    class Meta:
        ordering = ["dispute", "clause_id", "dynasty_id"]
        constraints = [
            unique(
                ["dispute", "dynasty", "clause"],
                name="disputevote_once",
                field="clause",
                message="This house has already voted on this clause of the dispute.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.dynasty} {'upholds' if self.upholds else 'rejects'} {self.clause}"


class ParleyKind(models.TextChoices):
    """The medieval game's parleys (sections 20.41-20.46)."""

    BREACH = "breach", "A broken binding agreement (20.44)"
    READMISSION = "readmission", "Readmission of an excommunicated player (20.45)"
    CONQUEST = "conquest", "Contesting a diplomatic conquest (20.41)"
    CLAIM = "claim", "Obtaining a claim (20.42)"
    INHERITANCE = "inheritance", "Contesting a dynastic inheritance (20.43)"
    CRUSADE = "crusade", "Calling a crusade (20.46)"


class Parley(Invariants, models.Model):
    """An open vote: each Christian player casts his leader's diplomatic stature (+5 per church
    card) in one block, most votes first. The caller's motion carries on a tie."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="parleys")
    year = models.IntegerField()
    step = models.CharField(max_length=20)
    kind = models.CharField(max_length=20, choices=ParleyKind.choices)
    subject = models.CharField(max_length=200)
    caller = models.ForeignKey("dynasties.Dynasty", on_delete=models.PROTECT, related_name="parleys_called")
    breach = models.OneToOneField(Breach, null=True, blank=True, on_delete=models.SET_NULL, related_name="parley")
    excommunication = models.ForeignKey(
        "Excommunication",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="readmission_parleys",
        help_text="Readmission: the excommunication the parley considered.",
    )
    opponent = models.ForeignKey(
        "dynasties.Dynasty",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="parleys_contested",
        help_text="A conquest or inheritance contested: the conqueror, or the player who played the card.",
    )
    area = models.CharField(max_length=100, blank=True, help_text="A claim, conquest or inheritance: the area decided.")
    votes_for = models.PositiveIntegerField(default=0)
    votes_against = models.PositiveIntegerField(default=0)
    carried = models.BooleanField(help_text="The caller's motion carried (a tie counts for the caller).")
    outcome = models.CharField(max_length=300)

    class Meta:
        ordering = ["campaign", "year", "id"]

    def __str__(self) -> str:
        return f"{self.year}: parley on {self.subject} ({self.votes_for}-{self.votes_against})"

    @property
    def tie(self) -> bool:
        return self.votes_for == self.votes_against


class VoteChoice(models.TextChoices):
    FOR = "for", "For the motion"
    AGAINST = "against", "Against"
    ABSTAIN = "abstain", "Abstains"


class ParleyVote(Invariants, models.Model):
    parley = models.ForeignKey(Parley, on_delete=models.CASCADE, related_name="votes")
    dynasty = models.ForeignKey("dynasties.Dynasty", on_delete=models.PROTECT, related_name="parley_votes")
    stature = models.PositiveSmallIntegerField(help_text="The leader's diplomatic stature.")
    church_cards = models.PositiveSmallIntegerField(default=0, help_text="Influence in Church Hierarchy cards played (+5 each).")
    christian = models.BooleanField()
    votes = models.PositiveSmallIntegerField(help_text="Votes cast (0 when the player may not vote).")
    choice = models.CharField(max_length=10, choices=VoteChoice.choices)
    position = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Order of casting; empty: did not vote.")
    excluded = models.CharField(max_length=200, blank=True, help_text="Why the player could not vote.")

    class Meta:
        ordering = ["parley", "position", "id"]
        constraints = [
            unique(
                ["parley", "dynasty"],
                name="parleyvote_once",
                field="dynasty",
                message="This house has already voted at this parley.",
            )
        ]

    def __str__(self) -> str:
        if self.position is None:
            return f"{self.dynasty}: no vote ({self.excluded})"
        return f"{self.position}. {self.dynasty}: {self.votes} {self.get_choice_display().lower()}"


class Excommunication(Invariants, models.Model):
    """A player excommunicated (medieval game 22): his leader counts as pagan, he may not vote in a
    parley except on his own readmission nor call one except for it. Ends when his leader dies
    heirless or a readmission parley readmits him."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="excommunications")
    dynasty = models.ForeignKey("dynasties.Dynasty", on_delete=models.PROTECT, related_name="excommunications")
    leader = models.ForeignKey(
        "dynasties.Character",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The house's reigning monarch when excommunicated.",
    )
    breach = models.ForeignKey(Breach, null=True, blank=True, on_delete=models.SET_NULL, related_name="excommunications")
    parley = models.ForeignKey(Parley, null=True, blank=True, on_delete=models.SET_NULL, related_name="excommunications")
    start_year = models.IntegerField()
    reason = models.CharField(max_length=200)
    ended_year = models.IntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["campaign", "start_year", "id"]
        constraints = [
            unique(
                ["dynasty"],
                condition=Q(ended_year__isnull=True),
                name="excommunication_one_open_per_house",
                field="dynasty",
                message="This house is already excommunicated.",
            ),
            check(
                Q(ended_year__isnull=True) | Q(ended_year__gte=F("start_year")),
                name="excommunication_ends_after_start",
                field="ended_year",
                message="The excommunication's end ({ended_year}) cannot come before its start ({start_year}).",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dynasty} excommunicated {self.start_year}-{self.ended_year or ''}"

    @property
    def active(self) -> bool:
        return self.ended_year is None


class ClaimHow(models.TextChoices):
    PARLEY = "parley", "Granted by a claim parley (20.42)"
    EXCHANGE = "exchange", "Exchanged from another house (20.1)"
    RECORDED = "recorded", "Recorded by the GM from the board"


class ClaimEnd(models.TextChoices):
    GIVEN = "given", "Given to another house (20.1)"
    RENOUNCED = "renounced", "Renounced"


class Claim(Invariants, models.Model):
    """A house's claim to an area (the medieval game 18, 20.1, 20.42): how it came (a claim parley,
    an exchange with another house, the GM's record of the board), until it is given away or
    renounced. A house in exile keeps its claims (21)."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="claims")
    dynasty = models.ForeignKey("dynasties.Dynasty", on_delete=models.PROTECT, related_name="area_claims")
    area = models.CharField(max_length=100, help_text="The area as the board names it.")
    area_key = models.CharField(max_length=100, editable=False, help_text="The name, case and spacing ignored.")
    since_year = models.IntegerField()
    how = models.CharField(max_length=10, choices=ClaimHow.choices)
    parley = models.OneToOneField(Parley, null=True, blank=True, on_delete=models.SET_NULL, related_name="claim")
    came_from = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="passed_to",
        help_text="Exchanged: the claim the other house gave.",
    )
    ended_year = models.IntegerField(null=True, blank=True)
    end = models.CharField(max_length=10, blank=True, choices=ClaimEnd.choices)
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["campaign", "area_key", "since_year", "id"]
        constraints = [
            unique(
                ["dynasty", "area_key"],
                condition=Q(ended_year__isnull=True),
                name="claim_one_open_per_house_and_area",
                field="area_key",
                message="This house already has an open claim on {area_key}.",
            ),
            check(
                (Q(ended_year__isnull=True) & Q(end="")) | (Q(ended_year__isnull=False) & ~Q(end="")),
                name="claim_ended_iff_how",
                field="end",
                message="A claim that ended says how, and only one that ended (the year it ended: {ended_year}).",
            ),
            check(
                Q(ended_year__isnull=True) | Q(ended_year__gte=F("since_year")),
                name="claim_ends_after_start",
                field="ended_year",
                message="The claim's end ({ended_year}) cannot come before it was made ({since_year}).",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "ended_year"])]

    def __str__(self) -> str:
        return f"{self.dynasty}'s claim to {self.area} ({self.since_year}-{self.ended_year or ''})"

    @property
    def active(self) -> bool:
        return self.ended_year is None


class ObligationState(models.TextChoices):
    OPEN = "open", "Open: the decision awaits compliance"
    COMPLIED = "complied", "Complied with"
    REFUSED = "refused", "Refused: excommunicated"
    FLOUTED = "flouted", "Flouted (not complied with by the end of the turn): excommunicated"


class Obligation(Invariants, models.Model):
    """What a parley's decision made due (20.41, 20.43): the loser returns (a conquest) or
    relinquishes (an inheritance) the area to the winner, or is excommunicated (22.1)."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="obligations")
    parley = models.OneToOneField(Parley, on_delete=models.CASCADE, related_name="obligation")
    obliged = models.ForeignKey("dynasties.Dynasty", on_delete=models.PROTECT, related_name="obligations")
    owed_to = models.ForeignKey("dynasties.Dynasty", on_delete=models.PROTECT, related_name="obligations_owed")
    area = models.CharField(max_length=100)
    action = models.CharField(max_length=10, choices=[("return", "return"), ("relinquish", "relinquish")])
    due_year = models.IntegerField(help_text="Complied with by the end of this turn, or flouted (22.1).")
    state = models.CharField(max_length=10, choices=ObligationState.choices, default=ObligationState.OPEN)
    resolved_year = models.IntegerField(null=True, blank=True)
    excommunication = models.ForeignKey(
        Excommunication, null=True, blank=True, on_delete=models.SET_NULL, related_name="obligations"
    )

    class Meta:
        ordering = ["campaign", "due_year", "id"]
        constraints = [
            check(
                ~Q(obliged=F("owed_to")),
                name="obligation_two_houses",
                field="owed_to",
                message="A house does not owe itself: the obliged house and the one owed are the same.",
            ),
            check(
                (Q(state="open") & Q(resolved_year__isnull=True)) | (~Q(state="open") & Q(resolved_year__isnull=False)),
                name="obligation_resolved_iff_year",
                field="resolved_year",
                message="A resolved obligation has the year it was resolved, and an open one none (the state is {state}).",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "state"])]

    def __str__(self) -> str:
        return f"{self.obliged} must {self.action} {self.area} to {self.owed_to} ({self.get_state_display().lower()})"

    @property
    def words(self) -> str:
        verb = "return" if self.action == "return" else "relinquish"
        return f"{self.obliged.name} must {verb} {self.area} to {self.owed_to.name}"
