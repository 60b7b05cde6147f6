"""Contracts between dynasties: marriage contracts, binding agreements and treaties, their clauses,
breaches and the votes that settle disputes."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q


class ContractKind(models.TextChoices):
    MARRIAGE = "marriage", "Marriage contract"
    AGREEMENT = "agreement", "Binding agreement"
    TREATY = "treaty", "Treaty"


class ContractState(models.TextChoices):
    DRAFT = "draft", "Draft"
    SIGNED = "signed", "Signed (awaiting the wedding or start)"
    IN_FORCE = "in_force", "In force"
    ENDED = "ended", "Ended"


class Contract(models.Model):
    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="contracts")
    kind = models.CharField(max_length=20, choices=ContractKind.choices)
    title = models.CharField(max_length=200)
    parties = models.ManyToManyField("dynasties.Dynasty", related_name="contracts")
    marriage = models.ForeignKey(
        "dynasties.Marriage", null=True, blank=True, on_delete=models.SET_NULL, related_name="contracts"
    )
    start_year = models.IntegerField()
    term_years = models.PositiveIntegerField(null=True, blank=True, help_text="A fixed term; empty: open-ended.")
    state = models.CharField(max_length=10, choices=ContractState.choices, default=ContractState.DRAFT)
    ended_year = models.IntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=200, blank=True)
    text = models.TextField(blank=True, help_text="Free text read with the clauses.")

    class Meta:
        ordering = ["campaign", "start_year", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(state="ended") & Q(ended_year__isnull=False)) | (~Q(state="ended") & Q(ended_year__isnull=True)),
                name="contract_ended_iff_year",
            ),
            models.CheckConstraint(
                condition=Q(ended_year__isnull=True) | Q(ended_year__gte=F("start_year")), name="contract_ends_after_start"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.get_kind_display()}, {self.get_state_display().lower()})"


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


class Clause(models.Model):
    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="clauses")
    position = models.PositiveSmallIntegerField(default=0)
    kind = models.CharField(max_length=30, choices=ClauseKind.choices)
    params = models.JSONField(default=dict, blank=True)
    text = models.TextField(blank=True)

    class Meta:
        ordering = ["contract", "position", "id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.params}"
