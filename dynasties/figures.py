"""Selectors: the figures a player looks for on a character — his figure in battle and every lasting
modifier on him (issue 31, "Effective figures where players look").

``figures(campaign, characters)`` gathers the plain values (his Strength, his wife's Guile, the
``Modifier`` rows of his house and of himself, his piece, his titles) and asks ``rules.combat`` for
the arithmetic of the measure the campaign's play keeps (``play_of(campaign).events.combat()``);
the character page, his printed sheet and the API show what it returns and decide nothing. A fixed
number of queries however many characters are asked about and however large their families: three
for Blood Royale (the modifiers, the matches, the open reigns; a fourth names the captors when one
of them is a prisoner), and for BloodLine the titles and one lean World for the royal leaders.

Who has a figure: only royals who lead. Blood Royale: the King (a reigning King of 15 or more) and
the Princes holding a piece (A2, "Using the Prince pieces"), while free. BloodLine: the royal leaders
(the heirs of 15 or more of the ruling house, in order of succession). Everyone else gets a note
saying why not (docs/rulings.md, "Figures in battle").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db.models import Q

from campaign.models import Campaign
from dynasties.models import Character, Dynasty, Marriage, Modifier, ModifierKind, Reign, Status, Title
from dynasties.services.play_registry import play_of
from dynasties.services.succession_view import royal_leaders_now
from rules import combat as cb
from rules.combat import Lasting
from rules.people import FEMALE, MALE

CHARISMA_RULE = (
    'Blood Royale, Succession (9): "the Monarch receives a penalty to his or her Charisma score ... This penalty '
    "cannot be inherited by any of the new monarch's heirs, but can reduce the monarch's Charisma below -2\""
)
ONGOING_RULE = (
    'BloodLine, Disputed Succession: "for as along as any of the skipped claimants [live], there is a 50% chance that '
    '1 stability level is lost or a new revolt is generated each Turn"'
)
RULES = {
    ModifierKind.USURPER_STRENGTH: cb.USURPER_RULE,
    ModifierKind.RIVAL_STRENGTH: cb.RIVAL_RULE,
    ModifierKind.GOVERNOR: cb.GOVERNOR_RULE,
    ModifierKind.CHARISMA_LOSS: CHARISMA_RULE,
    ModifierKind.COMBAT_MALUS: cb.MALUS_RULE,
    ModifierKind.ONGOING_DISPUTE: ONGOING_RULE,
}


@dataclass(frozen=True)
class ModifierView:
    """One lasting modifier as a player reads it: what, how much, on whom, why, since and until when."""

    id: int
    kind: str
    value: int
    what: str  # "-1 Strength", "+1 Strength against the house of Valois", "+1 Guile"
    applies: str  # for whom: "him", "the men of the house of Plantagenet", "the forces of Castile"
    why: str
    since: int
    until: str  # "while Isabelle Valois's claim lives ...", "for life"; an ended one: when and why it ended
    rule: str
    lasts: str = ""  # ``until`` in a few words, for paper: "while Isabelle Valois's claim lives", "for life"
    end_year: int | None = None
    end_reason: str = ""
    claimant: int | None = None
    against: int | None = None

    @property
    def active(self) -> bool:
        return self.end_year is None


@dataclass(frozen=True)
class CombatView:
    """His figure in battle (``figure``) if he leads (``role`` says as what), else ``note`` says why not."""

    leads: bool
    role: str = ""
    note: str = ""
    figure: cb.Figure | None = None

    @property
    def measure(self) -> str:
        return cb.MEASURES[self.figure.measure] if self.figure is not None else ""

    @property
    def headline(self) -> str:
        """ "Strength +2", "battle rolls -1"."""
        if self.figure is None:
            return ""
        return f"{self.measure} {cb.signed(self.figure.total)}"


@dataclass(frozen=True)
class Figures:
    combat: CombatView
    modifiers: list[ModifierView] = field(default_factory=list)

    @property
    def active_modifiers(self) -> list[ModifierView]:
        return [m for m in self.modifiers if m.active]

    @property
    def ended_modifiers(self) -> list[ModifierView]:
        return [m for m in self.modifiers if not m.active]


def _house(dynasty: Dynasty | None, fallback: str = "another house") -> str:
    return f"the house of {dynasty.name}" if dynasty is not None else fallback


def _until(m: Modifier) -> str:
    if m.end_year is not None:
        return f"ended {m.end_year}" + (f": {m.end_reason}" if m.end_reason else "")
    if m.kind == ModifierKind.GOVERNOR:
        return "for life (a Governor takes it once)"
    if m.kind == ModifierKind.CHARISMA_LOSS:
        return "for life; his heirs do not inherit it"
    if m.claimant is not None:
        name = m.claimant.display_name
        return f"while {name}'s claim lives: {name} or an heir of that line alive, and the claim not renounced"
    return "while its condition lasts"


def _lasts(m: Modifier) -> str:
    if m.end_year is not None:
        return f"ended {m.end_year}"
    if m.kind in (ModifierKind.GOVERNOR, ModifierKind.CHARISMA_LOSS):
        return "for life"
    if m.claimant is not None:
        return f"while {m.claimant.display_name}'s claim lives"
    return "while its condition lasts"


def _what(m: Modifier, sex: str, governor_characteristic: Callable[[str], str]) -> str:
    value = cb.signed(m.value)
    if m.kind == ModifierKind.USURPER_STRENGTH:
        return f"{value} Strength"
    if m.kind == ModifierKind.RIVAL_STRENGTH:
        return f"{value} Strength against {_house(m.against)}"
    if m.kind == ModifierKind.GOVERNOR:
        return f"{value} {governor_characteristic(sex).capitalize()}"
    if m.kind == ModifierKind.CHARISMA_LOSS:
        return f"{value} Charisma"
    if m.kind == ModifierKind.COMBAT_MALUS:
        return f"{value} on battle rolls"
    if m.kind == ModifierKind.ONGOING_DISPUTE:
        return "each turn, 50%: -1 Stability or a revolt"
    return f"{value} {m.get_kind_display()}"


def _applies(m: Modifier, c: Character) -> str | None:
    """Whom the row touches, in words, if it touches ``c`` (else None)."""
    if m.character_id is not None:
        return ("her" if c.sex == FEMALE else "him") if m.character_id == c.pk else None
    if m.dynasty_id is None or m.dynasty_id != c.controlled_by_id:
        return None
    if m.kind in (ModifierKind.USURPER_STRENGTH, ModifierKind.RIVAL_STRENGTH):
        return f"the men of {_house(m.dynasty)}" if c.sex == MALE else None
    if m.kind == ModifierKind.COMBAT_MALUS:
        return f"the forces of {m.crown}" if m.crown else f"the forces of {_house(m.dynasty)}"
    return None  # a crown's lasting roll: see ``figures`` (its monarch)


def _view(m: Modifier, c: Character, applies: str, governor_characteristic: Callable[[str], str]) -> ModifierView:
    return ModifierView(
        id=m.pk,
        kind=m.kind,
        value=m.value,
        what=_what(m, c.sex, governor_characteristic),
        applies=applies,
        why=m.reason,
        since=m.start_year,
        until=_until(m),
        lasts=_lasts(m),
        rule=RULES.get(ModifierKind(m.kind), ""),
        end_year=m.end_year,
        end_reason=m.end_reason,
        claimant=m.claimant_id,
        against=m.against_id,
    )


def _out_of_play(c: Character, captors: dict[int, str] | None = None) -> str:
    if c.status == Status.DEAD:
        return f"Died in {c.death_year}: he leads no more." if c.sex == MALE else f"Died in {c.death_year}."
    if c.status == Status.RETIRED:
        return "Retired from the game: leads no army."
    if c.prisoner_of_id is not None:
        captor = (captors or {}).get(c.prisoner_of_id)
        held_by = f"the house of {captor}" if captor else "another house"
        return f"A prisoner of {held_by}: leads no army while held."
    return ""


def figures(campaign: Campaign, characters: Iterable[Character]) -> dict[int, Figures]:
    """Each character's figure in battle and lasting modifiers (see the module), keyed by id."""
    people = {c.pk: c for c in characters}
    if not people:
        return {}
    year = campaign.current_year
    ids = list(people)
    houses = {c.controlled_by_id for c in people.values() if c.controlled_by_id is not None}
    rows = list(
        Modifier.objects.filter(Q(character_id__in=ids) | Q(dynasty_id__in=houses), campaign=campaign)
        .select_related("dynasty", "against", "claimant")
        .order_by("start_year", "pk")
    )
    spouse: dict[int, tuple[str, dict[str, int], int]] = {}  # id -> the spouse's name, characteristics, id
    for husband, wife, w_name, w_dyn, w_traits, h_name, h_dyn in Marriage.objects.filter(
        Q(husband_id__in=ids) | Q(wife_id__in=ids),
        campaign=campaign,
        wedding_year__isnull=False,
        ended_year__isnull=True,
    ).values_list(
        "husband_id",
        "wife_id",
        "wife__given_name",
        "wife__dynastic_name",
        "wife__characteristics",
        "husband__given_name",
        "husband__dynastic_name",
    ):
        spouse.setdefault(husband, (f"{w_name} {w_dyn}", dict(w_traits or {}), wife))
        spouse.setdefault(wife, (f"{h_name} {h_dyn}", {}, husband))
    held = {c.prisoner_of_id for c in people.values() if c.prisoner_of_id is not None and c.status == Status.ALIVE}
    captors = dict(Dynasty.objects.filter(pk__in=held).values_list("pk", "name")) if held else {}
    reigns: dict[int, list[Reign]] = {}
    for r in Reign.objects.filter(campaign=campaign, holder_id__in=ids, end_year__isnull=True).order_by("start_year"):
        reigns.setdefault(r.holder_id, []).append(r)

    play = play_of(campaign)
    measure = play.events.combat()
    governor_characteristic = play.succession.title_terms().governor_characteristic
    leaders: dict[int, tuple[str, int]] = {}
    titles: dict[int, list[Title]] = {}
    if measure == cb.BATTLE_ROLLS and any(not _out_of_play(c) and c.controlled_by_id for c in people.values()):
        for crown, line in royal_leaders_now(campaign=campaign).items():
            for n, pk in enumerate(line, 1):
                leaders.setdefault(pk, (crown, n))
        for t in Title.objects.filter(campaign=campaign, holder_id__in=ids).order_by("granted_year", "pk"):
            titles.setdefault(t.holder_id or 0, []).append(t)

    out: dict[int, Figures] = {}
    for pk, c in people.items():
        mods: list[ModifierView] = []
        own_crowns = {r.crown for r in reigns.get(pk, [])}
        for m in rows:
            applies = _applies(m, c)
            if applies is None and m.kind == ModifierKind.ONGOING_DISPUTE and m.crown in own_crowns:
                applies = f"the crown of {m.crown}"
            if applies is not None:
                mods.append(_view(m, c, applies, governor_characteristic))
        active = [m for m in rows if m.end_year is None and _applies(m, c) is not None]
        gone = _out_of_play(c, captors)
        if measure == cb.STRENGTH:
            combat = _blood_royale(
                c,
                year,
                active,
                spouse.get(pk),
                reigns.get(pk, []),
                gone,
                play.events.king_age(),
                play.announcements.prince_pieces(),
            )
        elif measure == cb.BATTLE_ROLLS:
            combat = _bloodline(
                c, year, active, leaders.get(pk), titles.get(pk, []), reigns.get(pk, []), gone, play.announcements.of_age()
            )
        else:
            combat = CombatView(False, note=f"No figure in battle is kept for characters under {campaign.get_ruleset_display()}.")
        out[pk] = Figures(combat, mods)
    return out


def _blood_royale(
    c: Character,
    year: int,
    active: list[Modifier],
    spouse: tuple[str, dict[str, int], int] | None,
    reigns: list[Reign],
    gone: str,
    king_age: int,
    pieces: tuple[int, int],
) -> CombatView:
    """``king_age``: a reigning man of this age holds the King piece; ``pieces``: the age a prince
    takes a Prince piece and how many a house has (the play's)."""
    prince_age, prince_pieces = pieces
    if c.sex == FEMALE:
        note = "Women lead no army in Blood Royale: Strength is a man's, Guile a woman's (A2)."
        if spouse is not None and not gone:
            guile = int((c.characteristics or {}).get("guile", 0))
            note += f" Her Guile {cb.signed(guile)} is added to her husband {spouse[0]}'s Strength, held to -2..+2."
        return CombatView(False, note=gone or note)
    if gone:
        return CombatView(False, note=gone)
    king = next((r for r in reigns if c.age(year) >= king_age and not (r.regent_id and r.regency_end_year is None)), None)
    if c.prince_piece == "K" or (king is not None and not c.prince_piece):
        role = f"King of {king.crown}" if king is not None else "King"
        role += " (the King piece)" if c.prince_piece == "K" else " (the King piece from the Announcements)"
    elif c.prince_piece:
        role = f"Prince (piece {c.prince_piece})"
    elif reigns:
        return CombatView(False, note="A King under 15 leads no army: nobody holds the King piece during a regency (A2).")
    elif c.age(year) < prince_age:
        return CombatView(False, note=f"A prince takes a piece at {prince_age} (A2); until then he leads no army.")
    else:
        return CombatView(
            False,
            note=f"He holds no Prince piece (a house has {prince_pieces}, handed out at the Announcements; A2): "
            "he leads no army.",
        )
    traits = c.characteristics or {}
    governor = sum(m.value for m in active if m.kind == ModifierKind.GOVERNOR)
    governor_why = next((m.reason for m in active if m.kind == ModifierKind.GOVERNOR), "")
    figure = cb.blood_royale_strength(
        strength=int(traits.get("strength", 0)),
        governor=governor,
        governor_why=governor_why,
        wife=spouse[0] if spouse is not None else "",
        wife_guile=int(spouse[1].get("guile", 0)) if spouse is not None else None,
        usurper=[Lasting(m.value, m.reason) for m in active if m.kind == ModifierKind.USURPER_STRENGTH],
        rival=[Lasting(m.value, m.reason, _house(m.against)) for m in active if m.kind == ModifierKind.RIVAL_STRENGTH],
    )
    return CombatView(True, role=role, figure=figure)


def _bloodline(
    c: Character,
    year: int,
    active: list[Modifier],
    leader: tuple[str, int] | None,
    titles: list[Title],
    reigns: list[Reign],
    gone: str,
    adult_age: int,
) -> CombatView:
    if gone:
        return CombatView(False, note=gone)
    if leader is None:
        if reigns:
            note = (
                "The monarch is no royal leader: the variant leaders are the heirs in line to the throne "
                "(BloodLine, Royal Characters in Battle)."
            )
        elif c.age(year) < adult_age:
            note = "Royal leaders are the heirs of 15 or more (BloodLine, Royal Characters in Battle); until then none."
        else:
            note = (
                "Not a royal leader: they are the heirs of 15 or more of a crown's ruling house, in order of "
                "succession (BloodLine, Royal Characters in Battle)."
            )
        return CombatView(False, note=note)
    crown, n = leader
    lands = []
    for t in titles:
        names = ", ".join(str(p.get("name", "")) for p in (t.provinces or []) if isinstance(p, dict)) or t.province
        lands.append(Lasting(1, t.name, f"his title lands of {t.name} ({names})"))
    figure = cb.bloodline_battle_rolls(
        maluses=[Lasting(m.value, m.reason) for m in active if m.kind == ModifierKind.COMBAT_MALUS], titles=lands
    )
    return CombatView(True, role=f"royal leader no. {n} of {crown} (its variant leader counters, in order)", figure=figure)


def figures_of(campaign: Campaign, character: Character) -> Figures:
    """One character's (the character page, his sheet, the API's detail)."""
    return figures(campaign, [character])[character.pk]
