"""BloodLine: minor houses run themselves (RULES.md B, "Minor houses"): players' offers for their
children, the minor's priorities and minimum dowry, elder children first, the 50% marriage into
the nobility, and the monarch rolled when a minor monarch leaves no heir."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.dice import DiceBox
from campaign.models import ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty, Marriage, MarriageOffer, OfferStatus, Reign, Status
from dynasties.selectors import settled_by_offer
from dynasties.services import DynastySpec, campaign_create, marriage_wed
from dynasties.services import marriages as marriage_services
from dynasties.services.common import World
from dynasties.services.minor_crowns import is_minor_crown, minor_monarch_replaced
from dynasties.services.minor_houses import (
    heir_apparent,
    offer_make,
    offer_withdraw,
    offers_resolve,
    royal_marriage_box_set,
)
from rules import bloodline as bl
from rules.dice import FixedSource, RandomSource
from rules.errors import IllegalMarriage, IllegalOption, RuleError, StepOrderError
from tests.factories import at_step, person
from tests.profiles import examples

_names = itertools.count()


def minor_campaign():
    """France and England (players) and the minor house of Savoia (Savoy), whose set-up children
    are put out of the way so each test brings its own."""
    c = campaign_create(
        name=f"Minors {next(_names)}",
        ruleset="eu-bloodline",
        dynasties=[DynastySpec("Valois", "France"), DynastySpec("Tudor", "England"), DynastySpec("Savoia", "Savoy", "minor")],
        source=RandomSource(4),
    )
    savoy = house(c, "Savoy")
    Character.objects.filter(campaign=c, controlled_by=savoy, father__isnull=False).update(
        status=Status.DEAD, death_year=c.current_year, death_cause="out of the way"
    )
    return c


@pytest.fixture
def eu(db):
    return minor_campaign()


def house(c, crown):
    return Dynasty.objects.get(campaign=c, crown=crown)


def savoy_king(c):
    return Reign.objects.get(campaign=c, crown="Savoy", end_year__isnull=True).holder


def savoy_queen(c):
    return Marriage.objects.get(campaign=c, husband=savoy_king(c), ended_year__isnull=True).wife


def child(c, name, sex, born, order=1):
    king = savoy_king(c)
    return person(c, house(c, "Savoy"), name, sex, born, father=king, mother=savoy_queen(c), order=order, adm=5, dip=5, mil=5)


def suitor(c, name, sex, born=1470, crown="France"):
    """A player's character outside any line of succession (no derived dowry factors)."""
    return person(c, house(c, crown), name, sex, born)


# --- the priorities ------------------------------------------------------------------------------


def test_offer_classes_follow_the_rulebook_letters():
    assert [bl.OFFER_CLASS_LETTERS[bl.offer_class(stays_in_minor=s, with_title=t)] for s, t in bl.OFFER_PRIORITY] == list("abcd")
    assert bl.offer_class(stays_in_minor=True, with_title=True) == 0
    assert bl.offer_class(stays_in_minor=False, with_title=False) == 3


offer_st = st.tuples(st.booleans(), st.booleans(), st.integers(0, 50), st.integers(1492, 1500))


@given(offers=st.lists(offer_st, min_size=1, max_size=8))
def test_the_best_offer_is_the_best_class_then_dowry_then_earliest(offers):
    keyed = [
        (bl.offer_sort_key(stays_in_minor=s, with_title=t, dowry=d, made_year=y, order=n), (s, t, d, y, n))
        for n, (s, t, d, y) in enumerate(offers)
    ]
    _, (s, t, d, y, n) = min(keyed)
    best_class = min(bl.OFFER_PRIORITY.index((o[0], o[1])) for o in offers)
    assert bl.OFFER_PRIORITY.index((s, t)) == best_class
    same_class = [o for o in offers if bl.OFFER_PRIORITY.index((o[0], o[1])) == best_class]
    assert d == max(o[2] for o in same_class)
    assert (y, n) == min((o[3], i) for i, o in enumerate(offers) if o in same_class and o[2] == d)


@pytest.mark.django_db
def test_stays_with_a_title_beats_every_richer_offer(eu):
    at_step(eu, Step.MARRIAGES)
    daughter = child(eu, "Bianca", "F", 1470)
    child(eu, "Carlo", "M", 1480)  # the son is heir apparent: Bianca is not
    d = offer_make(campaign=eu, minor_character=daughter, suitor=suitor(eu, "Dan", "M"), dowry=50, by=SYSTEM_ACTOR)
    c_ = offer_make(
        campaign=eu, minor_character=daughter, suitor=suitor(eu, "Cal", "M"), dowry=40, with_title=True, by=SYSTEM_ACTOR
    )
    b = offer_make(
        campaign=eu, minor_character=daughter, suitor=suitor(eu, "Ben", "M"), dowry=30, stays_in_minor=True, by=SYSTEM_ACTOR
    )
    a = offer_make(
        campaign=eu,
        minor_character=daughter,
        suitor=suitor(eu, "Abe", "M", crown="England"),
        dowry=10,
        stays_in_minor=True,
        with_title=True,
        by=SYSTEM_ACTOR,
    )
    [result] = offers_resolve(campaign=eu, source=FixedSource([]), by=SYSTEM_ACTOR)
    assert (result.character, result.outcome, result.offer.pk) == (daughter, "betrothed", a.pk)
    statuses = {o.pk: (o.status, o.note) for o in MarriageOffer.objects.filter(campaign=eu)}
    assert statuses[a.pk][0] == OfferStatus.ACCEPTED
    for o in (b, c_, d):
        assert statuses[o.pk] == (OfferStatus.REJECTED, "Bianca Savoia accepted a better offer")
    match = result.marriage
    assert match.is_betrothal and (match.husband_id, match.wife_id) == (a.suitor_id, daughter.pk)
    # "stays in the minor dynasty": the player's man joins her house, which raises the children
    assert match.husband_joins_wife and match.children_raised_by == house(eu, "Savoy")
    assert match.dowry == "10 ducats" and match.alliance_title == "a title for Bianca Savoia"
    assert not Roll.objects.filter(campaign=eu, purpose="minor_nobility").exists()  # an offer was accepted


@pytest.mark.parametrize(
    ("winner", "losers"),
    [
        ((True, False), [(False, True), (False, False)]),  # b over c and d
        ((False, True), [(False, False)]),  # c over d
    ],
)
@pytest.mark.django_db
def test_each_class_beats_the_lower_ones(eu, winner, losers):
    at_step(eu, Step.MARRIAGES)
    son = child(eu, "Carlo", "M", 1470)  # heir apparent: x2, minimum 2 ducats
    offers = [
        offer_make(
            campaign=eu,
            minor_character=son,
            suitor=suitor(eu, f"L{n}", "F"),
            dowry=90,
            stays_in_minor=s,
            with_title=t,
            by=SYSTEM_ACTOR,
        )
        for n, (s, t) in enumerate(losers)
    ]
    best = offer_make(
        campaign=eu,
        minor_character=son,
        suitor=suitor(eu, "W", "F"),
        dowry=2,
        stays_in_minor=winner[0],
        with_title=winner[1],
        by=SYSTEM_ACTOR,
    )
    [result] = offers_resolve(campaign=eu, source=FixedSource([]), by=SYSTEM_ACTOR)
    assert result.offer.pk == best.pk
    assert {o.pk for o in result.rejected} == {o.pk for o in offers}
    # a man who goes to the player's house joins his wife's; one who stays keeps her with him
    assert result.marriage.husband_joins_wife == (not winner[0])
    raised_by = house(eu, "Savoy") if winner[0] else house(eu, "France")
    assert result.marriage.children_raised_by == raised_by


@pytest.mark.django_db
def test_within_a_class_the_best_dowry_then_the_earliest_offer(eu):
    at_step(eu, Step.MARRIAGES)
    daughter = child(eu, "Bianca", "F", 1470)
    first = offer_make(campaign=eu, minor_character=daughter, suitor=suitor(eu, "One", "M"), dowry=20, by=SYSTEM_ACTOR)
    second = offer_make(campaign=eu, minor_character=daughter, suitor=suitor(eu, "Two", "M"), dowry=20, by=SYSTEM_ACTOR)
    offer_make(campaign=eu, minor_character=daughter, suitor=suitor(eu, "Three", "M"), dowry=15, by=SYSTEM_ACTOR)
    [result] = offers_resolve(campaign=eu, source=FixedSource([]), by=SYSTEM_ACTOR)
    assert result.offer.pk == first.pk
    second.refresh_from_db()
    assert second.status == OfferStatus.REJECTED


@pytest.mark.django_db
def test_an_accepted_offer_settles_the_terms_of_the_match(eu):
    at_step(eu, Step.MARRIAGES)
    daughter = child(eu, "Bianca", "F", 1470)
    dan = suitor(eu, "Dan", "M")
    offer_make(campaign=eu, minor_character=daughter, suitor=dan, dowry=5, stays_in_minor=True, by=SYSTEM_ACTOR)
    [result] = offers_resolve(campaign=eu, source=FixedSource([]), by=SYSTEM_ACTOR)
    assert settled_by_offer(eu, result.marriage)
    assert settled_by_offer(eu, marriage_services.Match(dan.pk, daughter.pk))
    assert not settled_by_offer(eu, marriage_services.Match(dan.pk, child(eu, "Berta", "F", 1471).pk))
    at_step(eu, Step.INTERPHASE)  # the wedding, in the Diplomacy phase: he joins her house
    marriage_wed(campaign=eu, marriage=result.marriage, by=SYSTEM_ACTOR)
    dan.refresh_from_db()
    assert dan.controlled_by == house(eu, "Savoy")


# --- the minimum dowry --------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_minimum_dowry_is_the_box_rating_times_the_factors(eu):
    son = child(eu, "Carlo", "M", 1470)  # the heir apparent of Savoy
    bride = suitor(eu, "Anne", "F")
    with pytest.raises(IllegalMarriage) as low:
        offer_make(campaign=eu, minor_character=son, suitor=bride, dowry=1, by=SYSTEM_ACTOR)
    assert low.value.code == "dowry_too_low"
    assert low.value.message == (
        "1 ducats is below the minimum dowry for Carlo Savoia: 2 ducats (Royal Marriage box rating 1 "
        "x2 (the minor character is heir apparent) = 2 ducats; BloodLine, Marriage action of minors: 'Minimum dowry "
        "is equal to Royal Marriage Box rating', times each factor)."
    )
    royal_marriage_box_set(campaign=eu, crown="Savoy", rating=3, by=SYSTEM_ACTOR)
    with pytest.raises(IllegalMarriage, match=r"minimum dowry for Carlo Savoia: 24 ducats .*x4 \(different religion\)"):
        offer_make(campaign=eu, minor_character=son, suitor=bride, dowry=23, factors=["different_religion"], by=SYSTEM_ACTOR)
    offer = offer_make(campaign=eu, minor_character=son, suitor=bride, dowry=24, factors=["different_religion"], by=SYSTEM_ACTOR)
    assert offer.factors == ["different_religion", "minor_heir_apparent"]  # the records add what they know


@pytest.mark.django_db
def test_the_factors_are_checked(eu):
    son = child(eu, "Carlo", "M", 1470)
    bride = suitor(eu, "Anne", "F")
    with pytest.raises(IllegalOption, match="Unknown dowry factor 'ugly'"):
        offer_make(campaign=eu, minor_character=son, suitor=bride, dowry=99, factors=["ugly"], by=SYSTEM_ACTOR)
    with pytest.raises(IllegalOption, match="listed twice"):
        offer_make(campaign=eu, minor_character=son, suitor=bride, dowry=99, factors=["different_religion"] * 2, by=SYSTEM_ACTOR)
    with pytest.raises(IllegalOption, match="the minor character is the monarch is not true"):
        offer_make(campaign=eu, minor_character=son, suitor=bride, dowry=99, factors=["minor_is_monarch"], by=SYSTEM_ACTOR)
    with pytest.raises(IllegalOption, match="the player's character is heir apparent is not true"):
        offer_make(campaign=eu, minor_character=son, suitor=bride, dowry=99, factors=["major_heir_apparent"], by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_a_reigning_minor_monarch_stays_and_costs_four_times(eu):
    king, queen = savoy_king(eu), savoy_queen(eu)
    Marriage.objects.filter(campaign=eu, husband=king).update(ended_year=eu.current_year, end_cause="widowed")
    Character.objects.filter(pk=queen.pk).update(status=Status.DEAD, death_year=eu.current_year)
    anne = suitor(eu, "Anne", "F")
    with pytest.raises(IllegalMarriage, match="reigns over Savoy and keeps the throne"):
        offer_make(campaign=eu, minor_character=king, suitor=anne, dowry=999, by=SYSTEM_ACTOR)
    monarch_x4 = r"4 ducats \(Royal Marriage box rating 1 x4 \(the minor character is the monarch\)"
    with pytest.raises(IllegalMarriage, match=monarch_x4):
        offer_make(campaign=eu, minor_character=king, suitor=anne, dowry=3, stays_in_minor=True, by=SYSTEM_ACTOR)
    assert offer_make(campaign=eu, minor_character=king, suitor=anne, dowry=4, stays_in_minor=True, by=SYSTEM_ACTOR).factors == [
        "minor_is_monarch"
    ]


@pytest.mark.django_db
def test_a_players_heir_apparent_doubles_the_minimum(eu):
    heir = World(eu).characters[heir_apparent(World(eu), "France")]
    child(eu, "Carlo", "M", 1468)  # the elder brother is Savoy's heir apparent
    minor = child(eu, "Bianca" if heir.sex == "M" else "Aldo", "F" if heir.sex == "M" else "M", 1470)
    with pytest.raises(IllegalMarriage, match=r"2 ducats \(Royal Marriage box rating 1 x2 \(the player's character is heir"):
        offer_make(campaign=eu, minor_character=minor, suitor=heir, dowry=1, by=SYSTEM_ACTOR)
    offer = offer_make(campaign=eu, minor_character=minor, suitor=heir, dowry=2, factors=["major_heir_apparent"], by=SYSTEM_ACTOR)
    assert offer.factors == ["major_heir_apparent"]


@pytest.mark.django_db
def test_who_may_offer_and_for_whom(eu):
    daughter = child(eu, "Bianca", "F", 1470)
    man = suitor(eu, "Dan", "M")
    with pytest.raises(IllegalMarriage, match="does not belong to a minor house"):
        offer_make(campaign=eu, minor_character=man, suitor=daughter, dowry=5, by=SYSTEM_ACTOR)
    savoyard = person(eu, house(eu, "Savoy"), "Guido", "M", 1470, dynastic_name="Nobile")
    with pytest.raises(IllegalMarriage, match="does not belong to a player's dynasty"):
        offer_make(campaign=eu, minor_character=daughter, suitor=savoyard, dowry=5, by=SYSTEM_ACTOR)
    consort = person(eu, house(eu, "France"), "Filippo", "M", 1470)
    Character.objects.filter(pk=consort.pk).update(controlled_by=house(eu, "Savoy"))
    with pytest.raises(IllegalMarriage, match="is not of its blood"):
        offer_make(campaign=eu, minor_character=consort, suitor=suitor(eu, "Eva", "F"), dowry=5, by=SYSTEM_ACTOR)
    with pytest.raises(IllegalMarriage, match="The husband must be a man"):
        offer_make(campaign=eu, minor_character=daughter, suitor=suitor(eu, "Eve", "F"), dowry=5, by=SYSTEM_ACTOR)
    offer_make(campaign=eu, minor_character=daughter, suitor=man, dowry=5, by=SYSTEM_ACTOR)
    with pytest.raises(IllegalMarriage, match="already has an open offer"):
        offer_make(campaign=eu, minor_character=daughter, suitor=man, dowry=6, by=SYSTEM_ACTOR)
    wife = suitor(eu, "Wilma", "F")
    Marriage.objects.create(campaign=eu, husband=suitor(eu, "Wed", "M"), wife=wife, arranged_year=1490, wedding_year=1490)
    married = Character.objects.get(given_name="Wed")
    with pytest.raises(IllegalMarriage, match="already married or betrothed"):
        offer_make(campaign=eu, minor_character=daughter, suitor=married, dowry=5, by=SYSTEM_ACTOR)
    blood_royale = campaign_create(name="BR", players=3, source=RandomSource(1))
    with pytest.raises(RuleError, match="BloodLine"):
        offer_make(campaign=blood_royale, minor_character=daughter, suitor=man, dowry=5, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_an_offer_is_withdrawn_and_a_stale_one_rejected(eu):
    at_step(eu, Step.MARRIAGES)
    daughter = child(eu, "Bianca", "F", 1470)
    offer = offer_make(campaign=eu, minor_character=daughter, suitor=suitor(eu, "Dan", "M"), dowry=5, by=SYSTEM_ACTOR)
    offer_withdraw(campaign=eu, offer=offer, reason="changed his mind", by=SYSTEM_ACTOR)
    offer.refresh_from_db()
    assert (offer.status, offer.note) == (OfferStatus.REJECTED, "withdrawn: changed his mind")
    with pytest.raises(RuleError, match="already rejected"):
        offer_withdraw(campaign=eu, offer=offer, by=SYSTEM_ACTOR)
    late = offer_make(campaign=eu, minor_character=daughter, suitor=suitor(eu, "Ed", "M"), dowry=5, by=SYSTEM_ACTOR)
    Character.objects.filter(pk=late.suitor_id).update(status=Status.DEAD, death_year=eu.current_year)
    [result] = offers_resolve(campaign=eu, source=FixedSource([[1]]), by=SYSTEM_ACTOR)
    late.refresh_from_db()
    assert (result.outcome, late.status, late.note) == ("unmarried", OfferStatus.REJECTED, "the suitor is no longer in play")


@pytest.mark.django_db
def test_the_minimum_is_checked_again_when_the_offers_are_answered(eu):
    at_step(eu, Step.MARRIAGES)
    daughter = child(eu, "Bianca", "F", 1470)
    offer = offer_make(campaign=eu, minor_character=daughter, suitor=suitor(eu, "Dan", "M"), dowry=2, by=SYSTEM_ACTOR)
    royal_marriage_box_set(campaign=eu, crown="Savoy", rating=2, by=SYSTEM_ACTOR)  # she is heir apparent: now 4
    [result] = offers_resolve(campaign=eu, source=FixedSource([[5]]), by=SYSTEM_ACTOR)
    offer.refresh_from_db()
    assert result.outcome == "unmarried" and offer.status == OfferStatus.REJECTED
    assert "now below the minimum dowry (Royal Marriage box rating 2 x2" in offer.note


# --- elder children first -----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_suitor_taken_by_the_elder_sister_is_not_there_for_the_younger(eu):
    """The variant's Savoy: the elder daughter (wart on nose) is spoken for before Miss Savoy 1492."""
    at_step(eu, Step.MARRIAGES)
    miss_savoy = child(eu, "Bella", "F", 1476)
    elder = child(eu, "Berta", "F", 1474)
    dan = suitor(eu, "Dan", "M")
    offer_make(
        campaign=eu, minor_character=miss_savoy, suitor=dan, dowry=40, stays_in_minor=True, with_title=True, by=SYSTEM_ACTOR
    )
    for_elder = offer_make(campaign=eu, minor_character=elder, suitor=dan, dowry=3, by=SYSTEM_ACTOR)
    results = offers_resolve(campaign=eu, source=FixedSource([[1]]), by=SYSTEM_ACTOR)
    assert [(r.character.given_name, r.outcome) for r in results] == [("Berta", "betrothed"), ("Bella", "unmarried")]
    assert results[0].offer.pk == for_elder.pk
    assert MarriageOffer.objects.get(minor_character=miss_savoy).note == "Dan Valois is already spoken for this turn"


child_st = st.tuples(st.integers(1470, 1480), st.sampled_from("MF"))
offer_pick_st = st.tuples(st.integers(0, 5), st.integers(0, 3), st.booleans(), st.booleans(), st.integers(1, 30))


@settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(children=st.lists(child_st, min_size=1, max_size=5), picks=st.lists(offer_pick_st, max_size=10), seed=st.integers(0, 99))
def test_a_younger_child_is_never_married_before_an_elder_is_resolved(db, children, picks, seed):
    c = minor_campaign()
    at_step(c, Step.MARRIAGES)
    royal_marriage_box_set(campaign=c, crown="Savoy", rating=1, by=SYSTEM_ACTOR)
    kids = [child(c, f"K{n}", sex, born, order=n + 1) for n, (born, sex) in enumerate(children)]
    suitors = {sex: [suitor(c, f"{sex}{n}", sex) for n in range(4)] for sex in "MF"}
    made = []
    for which, who, stays, title, dowry in picks:
        minor = kids[which % len(kids)]
        man = suitors["F" if minor.sex == "M" else "M"][who]
        if any(o.minor_character_id == minor.pk and o.suitor_id == man.pk for o in made):
            continue  # one open offer per pair
        made.append(
            offer_make(
                campaign=c,
                minor_character=minor,
                suitor=man,
                dowry=dowry * 4,
                stays_in_minor=stays,
                with_title=title,
                by=SYSTEM_ACTOR,
            )
        )
    results = offers_resolve(campaign=c, source=RandomSource(seed), by=SYSTEM_ACTOR)
    # every child of 15 or more is resolved once, eldest first
    grown = [k for k in kids if k.effective_age(c.current_year) >= 15]
    assert [r.character.pk for r in results] == [k.pk for k in sorted(grown, key=lambda k: (k.birth_year, k.birth_order))]
    # and the matches are exactly those of answering the eldest first, each suitor taken once
    taken: set[int] = set()
    for r in results:
        mine = sorted(
            (o for o in made if o.minor_character_id == r.character.pk and o.suitor_id not in taken),
            key=lambda o: bl.offer_sort_key(
                stays_in_minor=o.stays_in_minor, with_title=o.with_title, dowry=o.dowry, made_year=o.year, order=o.pk
            ),
        )
        if mine:
            assert r.outcome == "betrothed" and r.offer.pk == mine[0].pk
            taken.add(mine[0].suitor_id)
        else:
            assert r.outcome in ("nobility", "unmarried") and r.roll is not None
            assert (r.outcome == "nobility") == (r.roll.faces[0] >= 6)
    still_open = set(MarriageOffer.objects.filter(campaign=c, status=OfferStatus.OPEN).values_list("minor_character", flat=True))
    assert still_open <= {k.pk for k in kids if k not in grown}


def test_the_resolution_order_is_by_age_then_birth_order():
    assert bl.resolution_order([(1, 1480, 1), (2, 1470, 2), (3, 1470, 1), (4, 1475, 1)]) == [3, 2, 4, 1]


# --- the nobility -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_six_marries_into_the_nobility_at_once(eu):
    at_step(eu, Step.MARRIAGES)
    son = child(eu, "Carlo", "M", 1474)
    [result] = offers_resolve(campaign=eu, source=FixedSource([[6], [2], [10], [5]]), by=SYSTEM_ACTOR)
    assert result.outcome == "nobility"
    bride = result.spouse
    assert (bride.sex, bride.birth_year, bride.birth_dynasty, bride.controlled_by) == ("F", 1474, None, house(eu, "Savoy"))
    assert bride.characteristics == {"adm": 3, "dip": 9, "mil": 5}  # 1d10 unmodified, held to 3..9
    match = result.marriage
    assert (match.husband, match.wife, match.wedding_year, match.children_raised_by) == (
        son,
        bride,
        eu.current_year,
        house(eu, "Savoy"),
    )
    roll = Roll.objects.get(campaign=eu, purpose="minor_nobility")
    assert (roll.faces, roll.outcome, roll.target, list(roll.characters.all())) == ([6], "marries into the nobility", 6, [son])
    traits = Roll.objects.filter(campaign=eu, purpose="characteristic", characters=bride).order_by("pk")
    assert [(r.detail, r.faces, r.outcome) for r in traits] == [
        ("adm", [2], "adm 3"),
        ("dip", [10], "dip 9"),
        ("mil", [5], "mil 5"),
    ]
    assert ChronicleEntry.objects.filter(campaign=eu, kind="wedding", text__contains="marries into the nobility").exists()


@pytest.mark.django_db
def test_five_does_not_marry(eu):
    at_step(eu, Step.MARRIAGES)
    daughter = child(eu, "Bianca", "F", 1474)
    [result] = offers_resolve(campaign=eu, source=FixedSource([[5]]), by=SYSTEM_ACTOR)
    assert (result.outcome, result.marriage, result.spouse) == ("unmarried", None, None)
    assert not Marriage.objects.filter(campaign=eu, wife=daughter).exists()
    roll = Roll.objects.get(campaign=eu, purpose="minor_nobility")
    assert (roll.faces, roll.outcome) == ([5], "does not marry")
    assert ChronicleEntry.objects.filter(campaign=eu, kind="minor_offer", text__contains="does not marry this turn").exists()


@pytest.mark.django_db
def test_a_daughter_married_into_the_nobility_keeps_her_husband_in_the_house(eu):
    at_step(eu, Step.MARRIAGES)
    daughter = child(eu, "Bianca", "F", 1474)
    [result] = offers_resolve(campaign=eu, source=FixedSource([[10], [5], [5], [5]]), by=SYSTEM_ACTOR)
    assert (result.marriage.husband, result.marriage.wife) == (result.spouse, daughter)
    assert result.marriage.husband_joins_wife and result.spouse.controlled_by == house(eu, "Savoy")


@pytest.mark.django_db
def test_children_under_fifteen_wait_and_their_offers_stay_open(eu):
    at_step(eu, Step.MARRIAGES)
    young = child(eu, "Piccola", "F", 1480)  # 12
    offer = offer_make(campaign=eu, minor_character=young, suitor=suitor(eu, "Dan", "M"), dowry=5, by=SYSTEM_ACTOR)
    assert offers_resolve(campaign=eu, source=FixedSource([]), by=SYSTEM_ACTOR) == []
    offer.refresh_from_db()
    assert offer.status == OfferStatus.OPEN


@pytest.mark.django_db
def test_the_offers_are_answered_once_a_turn_in_the_marriages_step(eu):
    at_step(eu, Step.SURVIVAL)
    with pytest.raises(StepOrderError):
        offers_resolve(campaign=eu, by=SYSTEM_ACTOR)
    at_step(eu, Step.MARRIAGES)
    offers_resolve(campaign=eu, source=FixedSource([]), by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="already answered"):
        offers_resolve(campaign=eu, source=FixedSource([]), by=SYSTEM_ACTOR)


# --- a minor monarch without issue --------------------------------------------------------------


@pytest.mark.django_db
def test_a_monarch_five_years_younger_is_rolled(eu):
    world = World(eu)
    late = savoy_king(eu)
    assert is_minor_crown(world, "Savoy") and not is_minor_crown(world, "France")
    box = DiceBox(eu, source=FixedSource([[4], [1], [10]]))
    chronicle = Chronicle(eu)
    king = minor_monarch_replaced(world, "Savoy", late, box, chronicle)
    box.flush()
    chronicle.flush()
    assert (king.birth_year, king.sex, king.father, king.mother) == (late.birth_year + 5, "M", None, None)
    assert king.age(eu.current_year) == late.age(eu.current_year) - 5 or king.birth_year == eu.current_year
    assert (king.birth_dynasty, king.controlled_by, king.dynastic_name) == (house(eu, "Savoy"),) * 2 + ("Savoia",)
    assert king.characteristics == {"adm": 4, "dip": 3, "mil": 9}
    rolls = Roll.objects.filter(campaign=eu, purpose="characteristic", characters=king).order_by("pk")
    assert [(r.dice, r.faces, r.modifier, r.outcome) for r in rolls] == [
        ("1d10", [4], 0, "adm 4"),
        ("1d10", [1], 0, "dip 3"),
        ("1d10", [10], 0, "mil 9"),
    ]
    assert not Marriage.objects.filter(campaign=eu, husband=king).exists()  # no family
    assert ChronicleEntry.objects.filter(campaign=eu, kind="created", text__contains="leaves no heir").exists()
    with pytest.raises(RuleError, match="not a minor house"):
        minor_monarch_replaced(world, "France", late, box, chronicle)


def test_the_replacement_is_never_born_after_the_turn():
    assert bl.minor_replacement_birth_year(1450, 1492) == 1455
    assert bl.minor_replacement_birth_year(1490, 1492) == 1492


@pytest.mark.django_db
def test_a_childless_minor_king_dying_is_replaced_not_a_dynastic_crisis(eu):
    from campaign.steps import load_tables
    from dynasties.services import survival_finish, survival_roll
    from dynasties.services.survival import survival_due

    at_step(eu, Step.SURVIVAL)
    late = savoy_king(eu)
    due = [d.character.pk for d in survival_due(eu, World(eu), load_tables(eu))]
    survival_roll(campaign=eu, faces={pk: [1, 1] if pk == late.pk else [9, 9] for pk in due}, by=SYSTEM_ACTOR)
    survival_finish(campaign=eu, source=RandomSource(2), by=SYSTEM_ACTOR)
    new = Reign.objects.get(campaign=eu, crown="Savoy", end_year__isnull=True).holder
    assert new.birth_year == min(late.birth_year + 5, eu.current_year)
    assert (new.origin, new.controlled_by) == ("relative", house(eu, "Savoy"))
    assert not ChronicleEntry.objects.filter(campaign=eu, kind="created", text__contains="Dynastic Crisis").exists()
    assert ChronicleEntry.objects.filter(campaign=eu, kind="created", text__contains="leaves no heir").exists()
