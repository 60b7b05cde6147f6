"""Campaigns, members and roles, rule tables, the roll log and the chronicle."""

from __future__ import annotations

import uuid
from typing import Any, Protocol

from django.conf import settings
from django.db import models
from django.db.models import Q

from campaign.invariants import Invariants, check, unique
from rules import RULESET_LABELS, Ruleset, default_ruleset, get_ruleset


class House(Protocol):
    """A house's row (the game's ``dynasties.models.Dynasty``) as the kernel reads it: the kernel
    names no model above it, only what it reads of one."""

    pk: Any
    campaign_id: int
    name: str

    @property
    def is_player(self) -> bool: ...

    def get_kind_display(self) -> str: ...


class Step(models.TextChoices):
    """Where the current turn stands. The Dynastic Sequence, then the rest of the turn."""

    BIRTHS = "births", "Births"
    SURVIVAL = "survival", "Survival"
    MARRIAGES = "marriages", "Marriages"
    ANNOUNCEMENTS = "announcements", "Announcements"
    INTERPHASE = "interphase", "Interphase and movement (sequence done)"


STEP_ORDER = [Step.BIRTHS, Step.SURVIVAL, Step.MARRIAGES, Step.ANNOUNCEMENTS, Step.INTERPHASE]


class DiceEntry(models.TextChoices):
    """How dice are typed in from the table."""

    FACES = "faces", "Each die's face"
    TOTALS = "totals", "The total of each roll"
    PLAYER = "player", "Each player chooses for his own rolls"


class Setup(models.TextChoices):
    """Whether a campaign is open for play (``campaign.steps.lock_campaign`` refuses every write to
    one that is not): its set-up may still be played by a background job (a prehistory), or have
    failed, for its GM to retry or delete (``operations.services``)."""

    READY = "ready", "Ready"
    BUILDING = "building", "Being built"
    FAILED = "failed", "Its set-up failed"


class Campaign(Invariants, models.Model):
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=80, unique=True)
    ruleset = models.CharField(max_length=20, choices=list(RULESET_LABELS.items()), default=default_ruleset().name)
    start_year = models.IntegerField(default=1300)
    current_year = models.IntegerField(default=1300)
    turn_length = models.PositiveSmallIntegerField(default=5)
    optional_rules = models.JSONField(default=dict, blank=True)
    step = models.CharField(max_length=20, choices=Step.choices, default=Step.BIRTHS)
    allow_overdraft = models.BooleanField(
        default=False, help_text="Let a dynasty's gifts and loans take its exchequer below zero."
    )
    dice_entry = models.CharField(
        max_length=10,
        choices=DiceEntry.choices,
        default=DiceEntry.FACES,
        help_text="How typed dice are entered: each die, each roll's total (where only the sum counts) or each player's choice.",
    )
    auto_pass_certain = models.BooleanField(
        default=False,
        help_text="Pass a survival roll that cannot fail without rolling it (logged as certain) when Survival opens.",
    )
    live_version = models.PositiveBigIntegerField(
        default=0,
        editable=False,
        help_text="Counts every write to the campaign (the GM's live version): open pages poll it to update.",
    )
    live_seen = models.JSONField(
        default=dict,
        editable=False,
        help_text="Counts, by audience, the writes it sees: 'public' (every member), 'players' (every player) and each "
        "house's id (its players). A member's live version is the sum of those he sees (campaign.live).",
    )
    setup = models.CharField(
        max_length=10,
        choices=Setup.choices,
        default=Setup.READY,
        editable=False,
        help_text="Open for play (ready), its set-up still being played by a background job, or that job failed.",
    )
    end_year = models.IntegerField(
        null=True,
        blank=True,
        help_text="The agreed last turn (its year): the game ends once that turn and its cashing-in are over "
        "(Blood Royale 22). Empty: no agreed end.",
    )
    money_target = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="A monetary victory target (Blood Royale 22, eg 800 Crowns): a house with this sum or more after a "
        "turn's cashing-in wins. Empty: none.",
    )
    session_start = models.JSONField(
        default=dict,
        blank=True,
        help_text="A series of games (Blood Royale 3): each house's money at the start of this session, by house id; "
        "a house not listed started with its opening balance. Empty: not a series.",
    )
    ended_year = models.IntegerField(
        null=True, blank=True, editable=False, help_text="The year the game ended in (empty: it goes on)."
    )
    ended_reason = models.CharField(max_length=20, blank=True, default="", editable=False)
    ended_standings = models.JSONField(
        default=dict, blank=True, editable=False, help_text="The final table as it stood at the end (frozen)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            check(
                Q(setup__in=[s.value for s in Setup]),
                name="campaign_setup_valid",
                field="setup",
                message="{setup!r} is not a way to set a campaign up; choose one from the list.",
            ),
            check(
                Q(current_year__gte=models.F("start_year")),
                name="campaign_year_after_start",
                field="current_year",
                message="The current year ({current_year}) is before the start year ({start_year}).",
            ),
            check(
                Q(turn_length__gte=1),
                name="campaign_turn_length_positive",
                field="turn_length",
                message="A turn lasts a year or more, not {turn_length}.",
            ),
            check(
                Q(step__in=[s.value for s in Step]),
                name="campaign_step_valid",
                field="step",
                message="{step!r} is not a step of the Dynastic Sequence.",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def turn_number(self) -> int:
        return (self.current_year - self.start_year) // self.turn_length + 1

    def option(self, key: str) -> bool:
        return bool((self.optional_rules or {}).get(key, False))

    def option_name(self, key: str) -> str:
        """An optional rule as its ruleset names it ("Optional Rule D: Movement of Trade Items"), or its key."""
        return self.rules.optional_rules.get(key, key)

    @property
    def ended(self) -> bool:
        """Whether the game has ended (``dynasties.services.ending``): its books stay readable."""
        return self.ended_year is not None

    @property
    def rules(self) -> Ruleset:
        """The campaign's ruleset: ask it what the ruleset plays (never compare its name)."""
        return get_ruleset(self.ruleset)


class Role(models.TextChoices):
    GM = "gm", "Game master"
    PLAYER = "player", "Player"
    OBSERVER = "observer", "Observer"


class Membership(Invariants, models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices)
    dice_entry = models.CharField(
        max_length=10,
        choices=[(DiceEntry.FACES.value, DiceEntry.FACES.label), (DiceEntry.TOTALS.value, DiceEntry.TOTALS.label)],
        blank=True,
        default="",
        help_text="The player's own choice when the campaign lets each player choose (empty: each die's face).",
    )

    class Meta:
        constraints = [
            unique(
                ["campaign", "user"],
                name="membership_once_per_campaign",
                field="user",
                message="This person already has a seat at this campaign.",
            ),
            check(
                Q(role__in=[r.value for r in Role]),
                name="membership_role_valid",
                field="role",
                message="{role!r} is not a seat: a member is the GM, a player or an observer.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} as {self.get_role_display()} in {self.campaign}"


class RuleTable(Invariants, models.Model):
    """A campaign's own copy of a rule table: the GM may edit it and restore the defaults."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="tables")
    key = models.CharField(max_length=40)
    data = models.JSONField()

    class Meta:
        ordering = ["campaign", "key"]
        constraints = [
            unique(
                ["campaign", "key"],
                name="ruletable_once_per_campaign",
                field="key",
                message="This campaign already has the rule table {key!r}; edit that one.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.campaign})"


class RollSource(models.TextChoices):
    SERVER = "server", "Server dice"
    ENTERED = "entered", "Typed in from the table"
    TOTAL = "total", "Typed in as its total"  # faces: [the total]
    CERTAIN = "certain", "Certain: not rolled"  # faces: [] (a survival that cannot fail)


class Roll(Invariants, models.Model):
    """One roll of the dice, whatever it was for. Nothing is rolled that is not here. Whom it was
    rolled for is the game's (``dynasties.models.RollSubject``, ``roll.characters``)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="rolls")
    year = models.IntegerField()
    step = models.CharField(max_length=20)
    purpose = models.CharField(max_length=30)
    detail = models.CharField(max_length=60, blank=True)
    dice = models.CharField(max_length=10)
    faces: models.JSONField[list[int], list[int]] = models.JSONField()
    modifier = models.IntegerField(default=0)
    target = models.IntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=60, blank=True)
    source = models.CharField(max_length=10, choices=RollSource.choices)
    effective_age = models.IntegerField(
        null=True, blank=True, help_text="BloodLine: the effective age the roll was read at (its subject's)."
    )
    values_used = models.JSONField(
        default=dict,
        blank=True,
        help_text="EU monarchs: the monarch's values as used this turn (after crisis halving and minority penalty).",
    )
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="rolls_entered"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    corrects = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="corrections",
        help_text="The roll this one corrects (the GM changed its faces); the wrong roll stays in the log.",
    )

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["campaign", "year", "step"])]
        constraints = [
            check(
                Q(source__in=list(RollSource.values)),
                name="roll_source_valid",
                field="source",
                message="A roll is the server's or entered from the table's dice, not {source!r}.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.year} {self.purpose} {self.dice} {self.faces} -> {self.outcome}"

    @property
    def total(self) -> int:
        return sum(self.faces) + self.modifier


class Audience(models.TextChoices):
    """Who may read a chronicle line (``campaign.permissions`` reads it; anything else is the GM's)."""

    PUBLIC = "public", "Every member"
    PARTIES = "parties", "The houses named in its readers, and the GM"
    GM = "gm", "The GM only"


class ChronicleEntry(Invariants, models.Model):
    """One line of a turn's chronicle; the Announcements gather a year's public entries.

    Every line carries its audience, written when it is made (``campaign.permissions.line_audience``):
    public, the houses listed in ``readers`` (",3,17," so one portable ``contains`` finds a house), or
    the GM only, which is also what a line without a known audience gets."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="chronicle")
    year = models.IntegerField()
    step = models.CharField(max_length=20)
    kind = models.CharField(max_length=30)
    text = models.TextField()
    data = models.JSONField(default=dict, blank=True)
    audience = models.CharField(max_length=10, choices=Audience.choices, default=Audience.GM)
    readers = models.TextField(blank=True, default="", help_text="The houses who may read it (ids as ',3,17,').")

    class Meta:
        ordering = ["year", "id"]
        verbose_name_plural = "chronicle entries"
        indexes = [models.Index(fields=["campaign", "year"])]

    def __str__(self) -> str:
        return f"{self.year}: {self.text}"


class CheckpointKind(models.TextChoices):
    STEP = "step", "A step"
    DESK = "desk", "A desk correction"


class Checkpoint(Invariants, models.Model):
    """A change set: opened by the first action of a step made through the pages (or the API), or
    by a save at the desk (the admin); it holds the campaign's own columns as they were, and the
    rows changed since are logged against it (:class:`UndoChange`). Undo puts them back and keeps
    the change set for redo (``undone_in``, ``redo``) until something else is written
    (``campaign.undo``). An older checkpoint holds a whole copy of the campaign instead."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="checkpoints")
    year = models.IntegerField()
    step = models.CharField(max_length=20, choices=Step.choices)
    kind = models.CharField(max_length=10, choices=CheckpointKind.choices, default=CheckpointKind.STEP)
    label = models.CharField(max_length=200, help_text="The action (or desk save) that opened the change set.")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    data = models.BinaryField(
        help_text="zlib-compressed JSON: the campaign's own columns when the change set opened (the rows it "
        "changed are in the undo log); in an older checkpoint, every row of the campaign."
    )
    undone_in = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="Undone by the undo back to this checkpoint, and kept for redo; empty while in force.",
    )
    redo = models.BinaryField(
        null=True,
        blank=True,
        help_text="On the checkpoint an undo went back to: zlib-compressed JSON of the campaign's columns "
        "and of every row the undo put back, as they were before it (what a redo writes again).",
    )

    class Meta:
        ordering = ["campaign", "pk"]
        constraints = [
            check(
                Q(step__in=[s.value for s in Step]),
                name="checkpoint_step_valid",
                field="step",
                message="{step!r} is not a step of the Dynastic Sequence.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.campaign}: start of {self.get_step_display()} {self.year}"


class ActionKey(Invariants, models.Model):
    """A form's one-time key: the same submit arriving twice (a double click, the back button) is
    recognised and done once. An API key (``Idempotency-Key``) is bound to the request it was first
    sent with: ``request`` (its method and address, for the message) and ``fingerprint`` (a digest
    of the address and the body); the same key sent with another request is refused
    (``campaign.undo.KeyReused``). A page's key has neither: its form is drawn with a new key."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    label = models.CharField(max_length=200)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    request = models.CharField(max_length=200, blank=True, default="")
    fingerprint = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        constraints = [
            unique(
                ["campaign", "key"],
                name="action_key_once",
                field="key",
                message="This action has already been taken (its key is used).",
            )
        ]
        # a key is looked up across campaigns: sent to another campaign's address, it is refused too
        indexes = [models.Index(fields=["key"], name="action_key_key")]

    def __str__(self) -> str:
        return f"{self.key}: {self.label}"


class JobKind(models.TextChoices):
    PRINT = "print", "Character sheets"
    PREHISTORY = "prehistory", "Prehistory"
    TREE = "tree", "Family tree"
    BACKUP = "backup", "Backup"


class JobState(models.TextChoices):
    QUEUED = "queued", "Waiting for a worker"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class Job(Invariants, models.Model):
    """Background work on a campaign, run by the task queue (``campaign.jobs``): its state, progress
    (``done`` of ``total``) and error are here, so any server shows them; a file it made is kept in
    the artifact storage (``campaign.artifacts``) under ``artifact``. A job outlives its campaign (a
    GM deletes a campaign whose prehistory failed, and the job keeps saying why), hence no database
    constraint."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    kind = models.CharField(max_length=20, choices=JobKind.choices)
    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    params = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    artifact = models.CharField(max_length=255, blank=True, help_text="The file it made, in the artifact storage.")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    touched_at = models.DateTimeField(
        null=True, blank=True, help_text="Its worker's last sign of life: the job started or progressed."
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["campaign", "kind"], name="job_campaign_kind")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.pk}: {self.get_state_display()}"

    @property
    def finished(self) -> bool:
        return self.state in (JobState.DONE, JobState.FAILED)


class UndoChange(Invariants, models.Model):
    """One row a step changed, as it was before the step first touched it (``old``, JSON of its
    columns; null: the step inserted it). Written by database triggers (``campaign.changelog``)
    while the action is recording into the step's checkpoint (``changelog.recording``); undo puts
    the rows back."""

    checkpoint = models.ForeignKey(Checkpoint, on_delete=models.CASCADE, related_name="+")
    table = models.CharField(max_length=100)
    row_id = models.BigIntegerField()
    old = models.TextField(null=True, blank=True)  # noqa: DJ001 (null: the step inserted the row; "" is no row)

    class Meta:
        constraints = [
            unique(
                ["checkpoint", "table", "row_id"],
                name="undo_change_once",
                field="row_id",
                message="This checkpoint already keeps row {row_id} of {table}.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.row_id}"


class AccountName(Invariants, models.Model):
    """What an account's username is whatever its capitals, and what it looks like
    (``campaign.accounts``): SHA-256s, each unique, so no two accounts have names that pass for one
    another ("GMa" and "gmA", a Cyrillic "А" for a Latin "A"). Kept by the user model's save; not
    campaign state. Empty where an account from before the rule shares it with an older one."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="+")
    # null, not "": unique keys that two old accounts may both lack
    folded = models.CharField(  # noqa: DJ001
        max_length=64, unique=True, null=True, help_text="SHA-256 of the username case folded (NFKC), hex."
    )
    skeleton = models.CharField(  # noqa: DJ001
        max_length=64, unique=True, null=True, help_text="SHA-256 of the username's skeleton (UTS #39), hex."
    )

    def __str__(self) -> str:
        return f"the skeleton of {self.user}"
