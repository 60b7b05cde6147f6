"""Dynasties, characters, marriages, reigns and the birth attempts of the current turn."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from campaign.audit import AuditedRecords
from campaign.invariants import Invariants, check, unique
from campaign.models import Role
from rules.people import Person


class DynastyKind(models.TextChoices):
    PLAYER = "player", "Player dynasty"
    ARISTOCRATIC = "aristocratic", "Aristocratic family (3-player game)"
    MINOR = "minor", "Minor house"


class Dynasty(Invariants, models.Model):
    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="dynasties")
    name = models.CharField("dynastic name", max_length=80)
    crown = models.CharField("crown / country", max_length=80, blank=True)
    kind = models.CharField(max_length=20, choices=DynastyKind.choices, default=DynastyKind.PLAYER)
    color = models.CharField(max_length=7, default="#888888")
    seat = models.PositiveSmallIntegerField(
        default=0, help_text="Order around the table: the player on the left sits at the next seat."
    )

    class Meta:
        ordering = ["campaign", "id"]
        verbose_name_plural = "dynasties"
        constraints = [
            unique(
                ["campaign", "name"],
                name="dynasty_name_unique_in_campaign",
                field="name",
                message="This campaign already has a dynasty called {name}; choose another name.",
            ),
            unique(
                ["campaign", "crown"],
                condition=~Q(crown=""),
                name="dynasty_crown_unique_in_campaign",
                field="crown",
                message="Another dynasty of this campaign already rules {crown}; choose another crown or leave it empty.",
            ),
            check(
                Q(kind__in=[k.value for k in DynastyKind]),
                name="dynasty_kind_valid",
                field="kind",
                message="A dynasty is a player dynasty, an aristocratic family or a minor house; choose one of those.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} of {self.crown}" if self.crown else self.name

    @property
    def is_player(self) -> bool:
        """A royal house a player may hold (the kernel's seats ask this, not the kind's name)."""
        return self.kind == DynastyKind.PLAYER


class Sex(models.TextChoices):
    MALE = "M", "Male"
    FEMALE = "F", "Female"


class Status(models.TextChoices):
    ALIVE = "alive", "Alive"
    DEAD = "dead", "Dead"
    RETIRED = "retired", "Retired from the game"


class Origin(models.TextChoices):
    SETUP = "setup", "Starting character"
    BORN = "born", "Born in play"
    RELATIVE = "relative", "Created relative (no heir)"
    BARON = "baron", "Created baron or cousin (regent)"
    CREATED = "created", "Created by the GM"


PIECES = ["", "K", "1", "2", "3", "4", "5"]

FREE = Q(prisoner_of__isnull=True, held_by_neutrals=False)
"""The characters nobody holds prisoner (neither a house nor the neutrals): ``filter(FREE)``."""


def seat_freed_or_kept(collector: Any, field: Any, sub_objs: models.QuerySet[Any], using: str) -> None:
    """A house deleted frees an observer's or the GM's link to it (the seat row goes); a player's seat
    keeps it (RESTRICT: "a player plays a house"): the GM gives the seat another house, or makes the
    player an observer, first. A player's seat deleted with the house (the whole campaign) does not
    hold it."""
    players = sub_objs.filter(membership__role=Role.PLAYER)
    if players.exists():
        models.RESTRICT(collector, field, players, using)
    models.CASCADE(collector, field, sub_objs.exclude(membership__role=Role.PLAYER), using)


class Seat(models.Model):
    """A member's house (issue 35, item 4: the kernel's membership knows no house): one row per seated
    membership, keyed by it. A player's seat always has one (``dynasties.seats.seat_check``, the
    services; on PostgreSQL also a deferred trigger); a GM's or an observer's may."""

    membership = models.OneToOneField("campaign.Membership", primary_key=True, on_delete=models.CASCADE, related_name="seat")
    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="+")
    house = models.ForeignKey(Dynasty, on_delete=seat_freed_or_kept, related_name="seats")

    def __str__(self) -> str:
        return str(self.membership)


def house_of(membership: Any) -> Dynasty | None:
    """The house of a membership read with ``select_related("seat__house")`` (None: no house)."""
    try:
        return membership.seat.house  # type: ignore[no-any-return]
    except Seat.DoesNotExist:
        return None


def free_seats(memberships: models.QuerySet[Any]) -> None:
    """Take the house away from the memberships given (an observer's or the GM's link to a house an
    undo took away): the kernel asks this (``campaign.registry.Seats``), as a member's house is the
    game's."""
    Seat.objects.filter(membership__in=memberships.values("pk")).delete()


def seat_write(membership: Any, house: Dynasty | None) -> None:
    """Give ``membership`` its house, or none: the seat row written, moved or deleted (the services
    check the rule first, ``campaign.services.membership_check``)."""
    if house is None:
        Seat.objects.filter(membership_id=membership.pk).delete()
    else:
        seated = {"campaign_id": membership.campaign_id, "house": house}
        Seat.objects.update_or_create(membership_id=membership.pk, defaults=seated)


class Character(Invariants, models.Model):
    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="characters")
    given_name = models.CharField("Christian name", max_length=60)
    sex = models.CharField(max_length=1, choices=Sex.choices)
    birth_year = models.IntegerField()
    birth_order = models.PositiveSmallIntegerField(default=1, help_text="Order among children born the same year.")
    father = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children_fathered")
    mother = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children_borne")
    dynastic_name = models.CharField(max_length=80)
    birth_dynasty = models.ForeignKey(
        Dynasty,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="born_members",
        help_text="The dynasty the character came from (returned to when widowed); empty for created nobility.",
    )
    controlled_by = models.ForeignKey(
        Dynasty,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="members",
        help_text="The dynasty whose player controls the character now.",
    )
    characteristics = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ALIVE)
    death_year = models.IntegerField(null=True, blank=True)
    death_cause = models.CharField(max_length=120, blank=True)
    retired_year = models.IntegerField(null=True, blank=True)
    prisoner_of = models.ForeignKey(Dynasty, null=True, blank=True, on_delete=models.SET_NULL, related_name="prisoners")
    prince_piece = models.CharField(max_length=1, blank=True, choices=[(p, p or "none") for p in PIECES])
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.BORN)
    effective_age_offset = models.IntegerField(
        default=0, help_text="BloodLine: effective age minus real age (ill health, good health, birth attempts)."
    )
    legitimate = models.BooleanField(
        default=True, help_text="A bastard (event cards) never inherits, nor does anyone through him."
    )
    pretender_of = models.ForeignKey(
        Dynasty,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="pretenders",
        help_text="Set while the character is a Pretender passed to another player; his house may buy him back.",
    )
    held_by_neutrals = models.BooleanField(
        default=False,
        help_text="A prisoner of the neutrals (a country no player controls), until ransomed or released; "
        "a prisoner of a house is prisoner_of.",
    )
    rolls = models.ManyToManyField("campaign.Roll", through="RollSubject", related_name="characters")
    history = AuditedRecords()  # the audit trail (campaign.audit)

    class Meta:
        ordering = ["campaign", "birth_year", "birth_order", "id"]
        indexes = [models.Index(fields=["campaign", "status"])]
        constraints = [
            check(Q(sex__in=["M", "F"]), name="character_sex_valid", field="sex", message="The sex is M or F; choose one."),
            check(
                Q(status__in=[s.value for s in Status]),
                name="character_status_valid",
                field="status",
                message="A character is alive, dead or retired; choose one of those.",
            ),
            check(
                ~Q(status="dead") | Q(death_year__isnull=False),
                name="character_dead_has_death_year",
                field="death_year",
                message="A dead character needs a year of death.",
            ),
            check(
                Q(status="dead") | Q(death_year__isnull=True),
                name="character_only_dead_has_death_year",
                field="death_year",
                message="Only a dead character has a year of death ({death_year}; the status is {status}): "
                "clear it or set the status to Dead.",
            ),
            check(
                Q(death_year__isnull=True) | Q(death_year__gte=F("birth_year")),
                name="character_dies_after_birth",
                field="death_year",
                message="The year of death ({death_year}) is before the year of birth ({birth_year}).",
            ),
            check(
                Q(birth_order__gte=1),
                name="character_birth_order_positive",
                field="birth_order",
                message="The birth order counts from 1 (the first child born that year), not {birth_order}.",
            ),
            check(
                ~Q(father=F("id")),
                name="character_not_own_father",
                field="father",
                message="A character cannot be their own parent.",
            ),
            check(
                ~Q(mother=F("id")),
                name="character_not_own_mother",
                field="mother",
                message="A character cannot be their own parent.",
            ),
            check(
                Q(prince_piece__in=PIECES),
                name="character_piece_valid",
                field="prince_piece",
                message="The piece is the King (K), a prince 1 to 5, or none; not {prince_piece!r}.",
            ),
            check(
                Q(prisoner_of__isnull=True) | Q(held_by_neutrals=False),
                name="character_one_captor",
                field="held_by_neutrals",
                message="A prisoner of a house (prisoner of) is not held by the neutrals too: clear one of the two.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.given_name} {self.dynastic_name} ({self.birth_year})"

    label: str | None = None  # set by dynasties.selectors.label: the regnal number or a namesake's birth year

    @property
    def display_name(self) -> str:
        """The name lists show: the label a selector gave it, else the Christian and dynastic names."""
        return self.label or f"{self.given_name} {self.dynastic_name}"

    def age(self, year: int) -> int:
        return year - self.birth_year

    @property
    def is_prisoner(self) -> bool:
        """Held by a house (``prisoner_of``) or by the neutrals (``held_by_neutrals``)."""
        return self.prisoner_of_id is not None or self.held_by_neutrals

    def effective_age(self, year: int) -> int:
        """BloodLine: the age ill health, good health and birth attempts have made of him."""
        return max(0, self.age(year) + self.effective_age_offset)

    def as_person(self) -> Person:
        return Person(
            id=self.pk,
            sex=self.sex,
            birth_year=self.birth_year,
            birth_order=self.birth_order,
            father=self.father_id,
            mother=self.mother_id,
            dynastic_name=self.dynastic_name,
            alive=self.status != Status.DEAD,
            retired=self.status == Status.RETIRED,
            prisoner=self.is_prisoner,
            characteristics=dict(self.characteristics or {}),
            legitimate=self.legitimate,
            effective_age_offset=self.effective_age_offset,
        )


class RollSubject(Invariants, models.Model):
    """Whom a roll of the kernel's log was rolled for, in order (the kernel's dice box writes them
    through ``record_roll_subjects``, registered in ``DynastiesConfig.ready``). Its table is the one
    the kernel held it in before (issue 35: the kernel knows no game)."""

    roll = models.ForeignKey("campaign.Roll", on_delete=models.CASCADE, related_name="subjects")
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="roll_subjects")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        db_table = "campaign_rollsubject"
        ordering = ["roll", "position"]
        constraints = [
            unique(
                ["roll", "character"],
                name="rollsubject_once",
                field="character",
                message="This character is already a subject of this roll.",
            )
        ]

    def __str__(self) -> str:
        return f"roll {self.roll_id}: character {self.character_id}"


def record_roll_subjects(rolls: Iterable[tuple[Any, Sequence[Character | int]]]) -> list[RollSubject]:
    """Write the subjects of rolls just written (each roll with its characters or their ids, in
    order) in one statement: the kernel's dice box asks this (``campaign.registry``)."""
    subjects = [
        RollSubject(roll=roll, character_id=c if isinstance(c, int) else c.pk, position=pos)
        for roll, characters in rolls
        for pos, c in enumerate(characters)
    ]
    if subjects:
        RollSubject.objects.bulk_create(subjects)
    return subjects


class Marriage(Invariants, models.Model):
    """A match: a betrothal until the wedding year is set, a marriage until it ends."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="marriages")
    husband = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="marriages_as_husband")
    wife = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="marriages_as_wife")
    arranged_year = models.IntegerField()
    wedding_year = models.IntegerField(null=True, blank=True)
    ended_year = models.IntegerField(null=True, blank=True)
    end_cause = models.CharField(max_length=120, blank=True)
    husband_joins_wife = models.BooleanField(default=False)
    dowry = models.CharField(
        max_length=120, blank=True, help_text="BloodLine: '100 ducats' or 'province: <name>' (a monarch's family's match)."
    )
    money_readers = models.TextField(
        blank=True,
        default="",
        help_text="Who may read the dowry (money terms are private): the houses as ',3,17,', written with the dowry.",
    )
    alliance_title = models.CharField(
        max_length=120, blank=True, help_text="BloodLine: the title given to the giving dynasty (a monarch's family's match)."
    )
    children_raised_by = models.ForeignKey(
        Dynasty,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Empty: the husband's dynasty raises the children (or the wife's if he joins hers).",
    )
    history = AuditedRecords()  # the audit trail (campaign.audit)

    class Meta:
        ordering = ["campaign", "arranged_year", "id"]
        constraints = [
            check(
                ~Q(husband=F("wife")),
                name="marriage_two_people",
                field="wife",
                message="A marriage needs two different people.",
            ),
            check(
                Q(wedding_year__isnull=True) | Q(wedding_year__gte=F("arranged_year")),
                name="marriage_wed_after_arranged",
                field="wedding_year",
                message="The wedding ({wedding_year}) cannot come before the match was arranged ({arranged_year}).",
            ),
            check(
                Q(ended_year__isnull=True) | Q(ended_year__gte=F("arranged_year")),
                name="marriage_ends_after_arranged",
                field="ended_year",
                message="The end ({ended_year}) cannot come before the match was arranged ({arranged_year}).",
            ),
            check(
                Q(ended_year__isnull=True) | ~Q(end_cause=""),
                name="marriage_end_has_cause",
                field="end_cause",
                message="Say why the marriage ended (e.g. 'death of the husband').",
            ),
            unique(
                ["husband"],
                condition=Q(ended_year__isnull=True),
                name="marriage_one_open_per_husband",
                field="husband",
                message="The husband already has a marriage or betrothal that has not ended; end it first.",
            ),
            unique(
                ["wife"],
                condition=Q(ended_year__isnull=True),
                name="marriage_one_open_per_wife",
                field="wife",
                message="The wife already has a marriage or betrothal that has not ended; end it first.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.husband.display_name} & {self.wife.display_name}"

    @property
    def is_betrothal(self) -> bool:
        return self.wedding_year is None and self.ended_year is None

    @property
    def is_wed(self) -> bool:
        return self.wedding_year is not None and self.ended_year is None


class Reign(Invariants, models.Model):
    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="reigns")
    crown = models.CharField(max_length=80)
    holder = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="reigns")
    start_year = models.IntegerField()
    end_year = models.IntegerField(null=True, blank=True)
    regent = models.ForeignKey(Character, null=True, blank=True, on_delete=models.PROTECT, related_name="regencies")
    regency_end_year = models.IntegerField(null=True, blank=True)
    planned_end_year = models.IntegerField(null=True, blank=True, help_text="EU monarchs: the end of the rolled reign length.")
    interim_for = models.ForeignKey(
        Character,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="interim_reigns",
        help_text="BloodLine: this monarch runs the dynasty until the imprisoned heir dies or is released.",
    )
    numeral = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="The regnal number in this crown (3 for Edward III), written when the monarch is crowned.",
    )

    class Meta:
        ordering = ["campaign", "crown", "start_year", "id"]
        constraints = [
            unique(
                ["campaign", "crown"],
                condition=Q(end_year__isnull=True),
                name="reign_one_open_per_crown",
                field="crown",
                message="{crown} already has a reign that has not ended; end it first.",
            ),
            check(
                Q(end_year__isnull=True) | Q(end_year__gte=F("start_year")),
                name="reign_ends_after_start",
                field="end_year",
                message="The reign's end ({end_year}) cannot come before its start ({start_year}).",
            ),
            check(
                ~Q(regent=F("holder")),
                name="reign_regent_not_holder",
                field="regent",
                message="A monarch cannot be their own regent.",
            ),
            check(
                ~Q(interim_for=F("holder")),
                name="reign_interim_not_holder",
                field="interim_for",
                message="A monarch cannot reign in the interim for themselves.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.holder.display_name}, {self.crown} {self.start_year}-{self.end_year or ''}"


class PassedOver(Invariants, models.Model):
    reign = models.ForeignKey(Reign, on_delete=models.CASCADE, related_name="passed_over")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="passed_over_in")
    reason = models.CharField(max_length=200)

    class Meta:
        verbose_name_plural = "heirs passed over"
        constraints = [
            unique(
                ["reign", "character"],
                name="passedover_once",
                field="character",
                message="This character is already passed over in this reign.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.character} passed over: {self.reason}"


class BirthAttempt(Invariants, models.Model):
    """One birth roll of a couple in a turn; a success waits for its sex roll to become a child."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="birth_attempts")
    marriage = models.ForeignKey(Marriage, on_delete=models.CASCADE, related_name="birth_attempts")
    year = models.IntegerField()
    attempt = models.PositiveSmallIntegerField()
    success = models.BooleanField()
    child_birth_year = models.IntegerField(null=True, blank=True)
    child = models.OneToOneField(Character, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    roll = models.ForeignKey("campaign.Roll", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["year", "marriage", "attempt"]
        constraints = [
            unique(
                ["marriage", "year", "attempt"],
                name="birthattempt_once",
                field="attempt",
                message="This marriage already has birth attempt {attempt} in {year}.",
            ),
            check(
                Q(attempt__gte=1) & Q(attempt__lte=3),
                name="birthattempt_at_most_three",
                field="attempt",
                message="A marriage has at most three birth attempts a year: the attempt is 1, 2 or 3, not {attempt}.",
            ),
            check(
                Q(success=True) | Q(child__isnull=True),
                name="birthattempt_child_only_on_success",
                field="child",
                message="Only a successful birth attempt has a child: clear the child or mark the attempt a success.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.year} attempt {self.attempt}: {'child' if self.success else 'no child'}"


class Crown(Invariants, models.Model):
    """A country's throne: whose it is, who controls it now, and any Dynastic Union."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="crowns")
    name = models.CharField(max_length=80)
    home_dynasty = models.ForeignKey(
        Dynasty,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="home_crowns",
        help_text="The player dynasty whose country this is.",
    )
    controlled_by = models.ForeignKey(
        Dynasty,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="controlled_crowns",
        help_text="The dynasty whose player controls the country now (another in a Dynastic Union).",
    )
    union_with = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The crown this one is joined to in a Dynastic Union.",
    )
    union_since = models.IntegerField(null=True, blank=True)
    stability = models.IntegerField(default=0, help_text="BloodLine and EU monarchs: the country's Stability.")
    state = models.JSONField(
        default=dict,
        blank=True,
        help_text="Ruleset-specific state of the crown (EU monarchs: base column, fragile health, crisis turns ...).",
    )
    numerals = models.JSONField(
        "pre-campaign numerals",
        default=dict,
        blank=True,
        help_text='The numeral of the last pre-campaign monarch of each name, e.g. {"Edward": 2}: '
        "the campaign's first Edward is then Edward III.",
    )

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [
            unique(
                ["campaign", "name"],
                name="crown_unique_in_campaign",
                field="name",
                message="This campaign already has a crown called {name}.",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def annexed(self) -> bool:
        return self.controlled_by_id is not None and self.controlled_by_id != self.home_dynasty_id


class ModifierKind(models.TextChoices):
    USURPER_STRENGTH = "usurper_strength", "-1 Strength for the usurping dynasty's men"
    RIVAL_STRENGTH = "rival_strength", "+1 Strength against the usurper"
    CHARISMA_LOSS = "charisma_loss", "Charisma loss of a monarch who passed over an imprisoned heir"
    GOVERNOR = "governor", "Governor's +1 Strength/Guile"
    COMBAT_MALUS = "combat_malus", "-1 on the country's combat rolls (BloodLine)"
    ONGOING_DISPUTE = "ongoing_dispute", "Each turn, 50%: -1 Stability or a revolt (BloodLine)"
    CAPITAL_LOST = "capital_lost", "-1 Charisma of a ruler whose capital is lost, until it is retaken"
    FOREIGN_INTERVENTION = "foreign_intervention", "-1 Charisma of a monarch who enlisted foreign military aid"


class PassOverKind(models.TextChoices):
    """How a BloodLine claimant was passed over (RULES.md B, Disputed Succession)."""

    PRISONER = "prisoner", "a prisoner of another country"
    MARRIED_AWAY = "married_away", "a woman married away"
    VOLUNTARY = "voluntary", "passed over by choice"


class Modifier(Invariants, models.Model):
    """An active modifier with the condition that keeps it alive (e.g. while a passed-over heir's
    line lives and has not renounced). Ended modifiers stay on record with why they ended."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="modifiers")
    kind = models.CharField(max_length=30, choices=ModifierKind.choices)
    value = models.IntegerField()
    crown = models.CharField(max_length=80, blank=True)
    dynasty = models.ForeignKey(Dynasty, null=True, blank=True, on_delete=models.CASCADE, related_name="modifiers")
    against = models.ForeignKey(Dynasty, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    character = models.ForeignKey(Character, null=True, blank=True, on_delete=models.CASCADE, related_name="modifiers")
    claimant = models.ForeignKey(
        Character,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="claims",
        help_text="Lasts while this passed-over heir or her heirs live and have not renounced.",
    )
    reason = models.CharField(max_length=200)
    pass_over = models.CharField(
        max_length=20,
        blank=True,
        choices=PassOverKind.choices,
        help_text="How the claimant was passed over (a BloodLine combat malus); blank for other modifiers.",
    )
    start_year = models.IntegerField()
    end_year = models.IntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["campaign", "start_year", "id"]
        constraints = [
            check(
                Q(kind__in=[k.value for k in ModifierKind]),
                name="modifier_kind_valid",
                field="kind",
                message="{kind!r} is not a kind of modifier; choose one from the list.",
            ),
            check(
                Q(end_year__isnull=True) | Q(end_year__gte=F("start_year")),
                name="modifier_ends_after_start",
                field="end_year",
                message="The end ({end_year}) cannot come before the start ({start_year}).",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.value:+d} {self.get_kind_display()} ({self.reason})"

    @property
    def active(self) -> bool:
        return self.end_year is None


class Renunciation(Invariants, models.Model):
    """A claim to a crown renounced (usually by contract); it outlives the contract (A6)."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="renunciations")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="renunciations")
    crown = models.CharField(max_length=80)
    year = models.IntegerField()
    source = models.CharField(max_length=200, blank=True, help_text="e.g. the marriage contract that contains it.")

    class Meta:
        ordering = ["campaign", "year", "id"]
        constraints = [
            unique(
                ["character", "crown"],
                name="renunciation_once",
                field="crown",
                message="This character has already renounced this crown.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.character} renounces {self.crown} ({self.year})"


class Title(Invariants, models.Model):
    """Optional rule G: a governorship ("Duke of Liguria"), inherited like the crown."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="titles")
    name = models.CharField(max_length=120)
    province = models.CharField(max_length=80)
    crown = models.CharField(max_length=80, help_text="The country the province belongs to.")
    holder = models.ForeignKey(Character, null=True, blank=True, on_delete=models.PROTECT, related_name="titles")
    granted_year = models.IntegerField()
    granted_to = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    granted_by = models.ForeignKey(
        Dynasty,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="titles_granted",
        help_text="BloodLine: the dynasty that gave the title.",
    )
    provinces = models.JSONField(
        default=list,
        blank=True,
        help_text='BloodLine: [{"name": ..., "value": land value, "controller": dynasty id}] - at least one.',
    )

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [
            unique(
                ["campaign", "province"],
                name="title_one_per_province",
                field="province",
                message="{province} already has a title in this campaign.",
            )
        ]

    def __str__(self) -> str:
        return self.name


class TitleHolding(Invariants, models.Model):
    title = models.ForeignKey(Title, on_delete=models.CASCADE, related_name="holdings")
    holder = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="title_holdings")
    start_year = models.IntegerField()
    end_year = models.IntegerField(null=True, blank=True)
    how = models.CharField(max_length=200)
    disputed = models.BooleanField(default=False, help_text="The King disputed this inheritance.")

    class Meta:
        ordering = ["title", "start_year", "id"]
        constraints = [
            check(
                Q(end_year__isnull=True) | Q(end_year__gte=F("start_year")),
                name="titleholding_ends_after_start",
                field="end_year",
                message="The title's holding cannot end ({end_year}) before it began ({start_year}).",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.holder} holds {self.title} from {self.start_year}"


class CrownEventKind(models.TextChoices):
    STABILITY = "stability", "Stability change"
    REVOLT = "revolt", "Revolt"


class CrownEvent(Invariants, models.Model):
    """BloodLine: a country's Stability changes and revolts, with why (its Stability history)."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="crown_events")
    crown = models.ForeignKey(Crown, on_delete=models.CASCADE, related_name="events")
    year = models.IntegerField()
    kind = models.CharField(max_length=10, choices=CrownEventKind.choices)
    delta = models.IntegerField(help_text="Stability levels gained or lost; for a revolt, the number of revolts.")
    stability_after = models.IntegerField()
    reason = models.CharField(max_length=200)
    cause = models.CharField(
        max_length=30, blank=True, help_text="Why, as a code (docs/export-format.md): e.g. minor_monarch, pass_over."
    )
    reign = models.ForeignKey(
        Reign,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="crown_events",
        help_text="The reign the change belongs to (the minor's, the disputed succession's, the union Queen's ...).",
    )

    class Meta:
        ordering = ["campaign", "year", "id"]
        constraints = [
            check(
                Q(kind__in=["stability", "revolt"]),
                name="crownevent_kind_valid",
                field="kind",
                message="A crown's event is a change of Stability or a revolt, not {kind!r}.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.year} {self.crown}: {self.get_kind_display()} {self.delta:+d} ({self.reason})"


class ControlChange(Invariants, models.Model):
    """Who controls a character or a crown, over time: one row each time ``controlled_by`` changes
    (``dynasties.services.control.move``). The first controller is the first change's ``from_dynasty``
    (or, with no change, the present one)."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="control_changes")
    year = models.IntegerField()
    step = models.CharField(max_length=20)
    character = models.ForeignKey(Character, null=True, blank=True, on_delete=models.CASCADE, related_name="control_changes")
    crown = models.ForeignKey(Crown, null=True, blank=True, on_delete=models.CASCADE, related_name="control_changes")
    from_dynasty = models.ForeignKey(Dynasty, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    to_dynasty = models.ForeignKey(Dynasty, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    cause = models.CharField(max_length=30)

    class Meta:
        ordering = ["campaign", "year", "id"]
        constraints = [
            check(
                (Q(character__isnull=False) & Q(crown__isnull=True)) | (Q(character__isnull=True) & Q(crown__isnull=False)),
                name="controlchange_character_or_crown",
                field="character",
                message="A change of control is of a character or of a crown: exactly one of the two.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.year} {self.character or self.crown}: {self.from_dynasty} -> {self.to_dynasty} ({self.cause})"


class OfferStatus(models.TextChoices):
    OPEN = "open", "Open"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class MarriageOffer(Invariants, models.Model):
    """BloodLine: a player's offer for a minor house's child; the service resolves a turn's offers,
    elder children first, by the minor's priorities and the minimum dowry."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="marriage_offers")
    year = models.IntegerField()
    minor_character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="offers_received")
    suitor = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="offers_made")
    dowry = models.PositiveIntegerField(help_text="Ducats offered.")
    with_title = models.BooleanField(default=False, help_text="The minor character also gets a title.")
    stays_in_minor = models.BooleanField(default=False, help_text="The minor character stays in the minor dynasty.")
    factors = models.JSONField(default=list, blank=True, help_text="Dowry multipliers that apply to this match.")
    status = models.CharField(max_length=10, choices=OfferStatus.choices, default=OfferStatus.OPEN)
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["campaign", "year", "id"]

    def __str__(self) -> str:
        return f"{self.suitor} for {self.minor_character}: {self.dowry} ducats ({self.status})"


class TreeRender(Invariants, models.Model):
    """A family tree rendered by ``dot`` and kept in the artifact storage: the cache's index, in the
    database so that every server sees the same renders and the same order of last use
    (:mod:`dynasties.trees.cache`)."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200, unique=True, help_text="The campaign, the data's version and the request.")
    version = models.CharField(max_length=64, help_text="The version of the campaign's data it was drawn from.")
    name = models.CharField(max_length=255, help_text="The file's name in the artifact storage.")
    size = models.PositiveBigIntegerField()
    used = models.DateTimeField(db_index=True, help_text="Last served or written: the least recently used go first.")

    def __str__(self) -> str:
        return self.name


class NoteAudience(models.TextChoices):
    """Who reads a note (campaign.permissions.may_read_note): everyone, its player, the GM."""

    PUBLIC = "public", "Public"
    PLAYER = "player", "For its player"
    GM = "gm", "GM only"


class Note(Invariants, models.Model):
    """A note in Markdown on a character, a dynasty or (neither set) the campaign, one per audience:
    the public note, its player's and the GM's (dynasties.services.notes writes them). Its HTML is
    rendered once, when it is written, and kept beside the text (issue 30): pages and the API show
    ``html`` and never render."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="notes")
    character = models.ForeignKey(Character, null=True, blank=True, on_delete=models.CASCADE, related_name="notes")
    dynasty = models.ForeignKey(Dynasty, null=True, blank=True, on_delete=models.CASCADE, related_name="notes")
    audience = models.CharField(max_length=10, choices=NoteAudience.choices)
    text = models.TextField(blank=True, help_text="Markdown; shown sanitized (no script, no event attributes).")
    html = models.TextField(
        blank=True,
        editable=False,
        help_text="The text rendered and sanitized when it was written (dynasties.notes.render): what is shown.",
    )
    history = AuditedRecords()  # the audit trail (campaign.audit)

    class Meta:
        ordering = ["campaign", "id"]
        constraints = [
            check(
                Q(audience__in=[a.value for a in NoteAudience]),
                name="note_audience_valid",
                field="audience",
                message="{audience!r} is not one of the notes' readers; choose one from the list.",
            ),
            check(
                Q(character__isnull=True) | Q(dynasty__isnull=True),
                name="note_one_subject",
                field="dynasty",
                message="A note is about a character or a dynasty (or the campaign), not both: clear one of the two.",
            ),
            unique(
                ["character", "audience"],
                condition=Q(character__isnull=False),
                name="note_once_per_character",
                field="audience",
                message="This character already has a note for these readers; edit that one.",
            ),
            unique(
                ["dynasty", "audience"],
                condition=Q(dynasty__isnull=False),
                name="note_once_per_dynasty",
                field="audience",
                message="This dynasty already has a note for these readers; edit that one.",
            ),
            unique(
                ["campaign", "audience"],
                condition=Q(character__isnull=True, dynasty__isnull=True),
                name="note_once_per_campaign",
                field="audience",
                message="The campaign already has a note for these readers; edit that one.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_audience_display()} note on {self.character or self.dynasty or 'the campaign'}"


class Portrait(Invariants, models.Model):
    """A character's portrait or a dynasty's coat of arms: an image, resized, in Django's storage
    (``name``), served to the campaign's members (dynasties.services.portraits stores it)."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="portraits")
    character = models.OneToOneField(Character, null=True, blank=True, on_delete=models.CASCADE, related_name="portrait")
    dynasty = models.OneToOneField(Dynasty, null=True, blank=True, on_delete=models.CASCADE, related_name="arms")
    name = models.CharField(max_length=255, help_text="The image's name in the storage (a PNG or a JPEG).")
    width = models.PositiveSmallIntegerField()
    height = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["campaign", "id"]
        constraints = [
            check(
                (Q(character__isnull=False) & Q(dynasty__isnull=True)) | (Q(character__isnull=True) & Q(dynasty__isnull=False)),
                name="portrait_character_or_dynasty",
                field="character",
                message="A portrait is of a character or of a dynasty: exactly one of the two.",
            ),
        ]

    def __str__(self) -> str:
        return f"Portrait of {self.character or self.dynasty}"

    @property
    def version(self) -> str:
        """Changes with each new image (its name's last part): the pages' links ask for the new one."""
        return self.name.rsplit("-", 1)[-1].split(".")[0]


class ResourceKind(models.TextChoices):
    NONE = "", "None"
    METALS = "metals", "Metals"
    CLOTH = "cloth", "Cloth"
    FOOD = "food", "Food"
    SEMI_LUXURY = "semi_luxury", "Semi-luxury"
    LUXURY = "luxury", "Luxury"


class Province(Invariants, models.Model):
    """Blood Royale: one province of the map as the table keeps it between turns (the province
    register; ``dynasties.services.provinces``): its original country, who controls it now (a
    house, or nobody: neutral under rule F, or of a country no player plays), its capital and
    Resource Area, and the Famine and Rebellion markers on it. A Home Province is derived: a
    province of one of its controller's countries."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="provinces")
    name = models.CharField(max_length=80)
    country = models.CharField(
        max_length=80, blank=True, help_text="The crown it belongs to in the Basic Game (blank: none, e.g. Denmark)."
    )
    controlled_by = models.ForeignKey(
        Dynasty, null=True, blank=True, on_delete=models.SET_NULL, related_name="provinces", help_text="Blank: no player."
    )
    neutral = models.BooleanField(default=False, help_text="A Neutral Province (optional rule F): no player controls it.")
    original_capital = models.BooleanField(default=False, help_text="Its country's capital at the start of the game.")
    capital_of = models.CharField(
        max_length=80, blank=True, help_text="The crown whose Capital Marker stands here now (blank: none)."
    )
    castle = models.BooleanField(default=False, help_text="The capital's castle stands (once destroyed, never rebuilt).")
    resource = models.CharField(max_length=20, blank=True, choices=ResourceKind.choices, default=ResourceKind.NONE)
    famine_year = models.IntegerField(null=True, blank=True, help_text="The year a Famine marker was placed (blank: none).")
    rebellion_year = models.IntegerField(null=True, blank=True, help_text="The year a Rebellion marker was placed (blank: none).")

    class Meta:
        ordering = ["campaign", "country", "name"]
        constraints = [
            unique(
                ["campaign", "name"],
                name="province_name_unique_in_campaign",
                field="name",
                message="This campaign already has a province called {name}.",
            ),
            check(
                Q(neutral=False) | Q(controlled_by__isnull=True),
                name="province_neutral_uncontrolled",
                field="controlled_by",
                message="A neutral province is controlled by no house: clear the controller or untick neutral.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.country})" if self.country else self.name


class Invitation(Invariants, models.Model):
    """A link the GM hands to someone (``dynasties.invitations``): opened while logged in, it seats
    him at the campaign as the player of a house or as an observer, once, before it expires. Only
    the SHA-256 of its secret is kept: the link is shown once, when it is made. It names a house, so
    it is the game's (issue 35: the kernel knows no game), on the table the kernel held it in."""

    SEATS = [(Role.PLAYER.value, Role.PLAYER.label), (Role.OBSERVER.value, Role.OBSERVER.label)]

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=10, choices=SEATS)
    dynasty = models.ForeignKey(Dynasty, null=True, blank=True, on_delete=models.CASCADE, related_name="invitations")
    token_hash = models.CharField(max_length=64, unique=True, editable=False, help_text="SHA-256 of the link's secret, hex.")
    expires_at = models.DateTimeField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    used_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "campaign_invitation"
        ordering = ["campaign", "-created_at", "-id"]
        constraints = [
            check(
                Q(role__in=["player", "observer"]),
                name="invitation_seat_valid",
                field="role",
                message="An invitation is to a player's or an observer's seat, not {role!r}.",
            ),
            check(
                (Q(role="player") & Q(dynasty__isnull=False)) | (Q(role="observer") & Q(dynasty__isnull=True)),
                name="invitation_player_has_dynasty",
                field="dynasty",
                message="A player's invitation names the dynasty to play; an observer's names none.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.seat} in {self.campaign}"

    @property
    def seat(self) -> str:
        return f"the player of {self.dynasty}" if self.dynasty_id else "an observer"


class PostingKind(models.TextChoices):
    WEDDING = "wedding", "Bride's Charisma at a wedding"
    MONARCH_MATCH = "monarch_match", "A match with a monarch"
    DOWRY = "dowry", "Dowry"
    RANSOM = "ransom", "Ransom"
    BUY_BACK = "buy_back", "Buying back a Pretender"
    AUCTION = "auction", "Aristocratic auction"
    TAX = "tax", "Taxation"
    MAINTENANCE = "maintenance", "Maintenance of forces"
    RAISING = "raising", "Raising forces"
    REBELLION = "rebellion", "Rebellions bought off or a capital's rebellion"
    CASH_IN = "cash_in", "Resource sets cashed in"
    TITLE_INCOME = "title_income", "Title income (BloodLine)"
    CONTRACT = "contract", "Contract payment"
    DAMAGES = "damages", "Damages for breach"
    TRANSFER = "transfer", "Gift or transfer"
    LOAN = "loan", "Loan"
    CORRECTION = "correction", "Correction (reversal)"
    OTHER = "other", "Other"


class Posting(Invariants, models.Model):
    """One movement of money between two accounts: a dynasty's exchequer or the bank ("the
    Treasury", when the dynasty is empty). Balances are derived from postings; a correction is a
    new, reversing posting - nothing is edited or deleted. The contract a posting paid under is the
    contracts' to know (``contracts.models.ContractPosting``)."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="postings")
    year = models.IntegerField()
    step = models.CharField(max_length=20)
    payer = models.ForeignKey(
        Dynasty,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="payments_made",
        help_text="Empty: the Treasury pays.",
    )
    payee = models.ForeignKey(
        Dynasty,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="payments_received",
        help_text="Empty: the Treasury receives.",
    )
    amount = models.PositiveIntegerField()
    kind = models.CharField(max_length=20, choices=PostingKind.choices)
    reason = models.CharField(max_length=200)
    marriage = models.ForeignKey("Marriage", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    character = models.ForeignKey("Character", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reverses = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by")
    entered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "campaign_posting"  # the table the kernel held it in (issue 35): rows and keys kept
        ordering = ["campaign", "id"]
        indexes = [models.Index(fields=["campaign", "year"])]
        constraints = [
            check(
                Q(amount__gt=0),
                name="posting_amount_positive",
                field="amount",
                message="An amount is more than 0, not {amount}.",
            ),
            check(
                ~(Q(payer__isnull=True) & Q(payee__isnull=True)),
                name="posting_not_treasury_to_itself",
                field="payee",
                message="A posting has a house on one side at least: the treasury does not pay itself.",
            ),
            check(
                ~Q(payer=models.F("payee")),
                name="posting_two_accounts",
                field="payee",
                message="The payer and the payee are the same house: a posting is between two accounts.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.year}: {self.amount} from {self.payer or 'the Treasury'} to {self.payee or 'the Treasury'} ({self.reason})"
