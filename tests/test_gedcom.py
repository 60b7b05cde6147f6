"""GEDCOM 5.5.1 export (issue 6, dynasties/gedcom.py and the ``export_gedcom`` command), read back
with an independent parser (python-gedcom) to prove every person, union and child link survives."""

from __future__ import annotations

import io
from collections import Counter

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from gedcom.element.family import FamilyElement
from gedcom.element.individual import IndividualElement
from gedcom.parser import Parser

from campaign.models import Campaign
from campaign.permissions import SYSTEM_ACTOR
from dynasties.gedcom import MAX_LINE, _line, export_gedcom
from dynasties.models import Character, Dynasty, Marriage, Reign, Sex, Status, Title, TitleHolding
from dynasties.services import campaign_create
from operations.simulation import simulate
from rules.dice import RandomSource
from rules.regnal import roman

pytestmark = pytest.mark.django_db


@pytest.fixture
def grown() -> Campaign:
    c = campaign_create(name="Gedcom Campaign", players=5, source=RandomSource(3))
    return simulate(c, turns=8, source=RandomSource(3), by=SYSTEM_ACTOR)


def parse(text: str) -> Parser:
    parser = Parser()
    parser.parse(io.BytesIO(text.encode("utf-8")), strict=True)
    return parser


def tag_values(element, tag: str) -> list[str]:
    return [child.get_value() for child in element.get_child_elements() if child.get_tag() == tag]


def sub_value(element, tag: str, sub: str) -> str | None:
    for child in element.get_child_elements():
        if child.get_tag() == tag:
            for grand in child.get_child_elements():
                if grand.get_tag() == sub:
                    return grand.get_value()
    return None


def full_value(element) -> str:
    """An element's value with its CONC/CONT lines put back (without the library's deprecated helper)."""
    text = element.get_value()
    for child in element.get_child_elements():
        if child.get_tag() == "CONC":
            text += child.get_value()
        elif child.get_tag() == "CONT":
            text += "\n" + child.get_value()
    return text


def records(parser: Parser) -> tuple[list[IndividualElement], list[FamilyElement]]:
    roots = parser.get_root_child_elements()
    return ([e for e in roots if isinstance(e, IndividualElement)], [e for e in roots if isinstance(e, FamilyElement)])


def by_id(parser: Parser, people) -> dict[int, IndividualElement]:
    """Character pk -> INDI, through the stable ids (@I1@, @I2@ ... in pk order)."""
    elements = parser.get_element_dictionary()
    return {c.pk: elements[f"@I{n}@"] for n, c in enumerate(sorted(people, key=lambda c: c.pk), 1)}


def parents_in_file(parser: Parser, indi: IndividualElement) -> set[str]:
    elements = parser.get_element_dictionary()
    found: set[str] = set()
    for fam in parser.get_families(indi, "FAMC"):
        for tag in ("HUSB", "WIFE"):
            found.update(tag_values(fam, tag))
    return {elements[x].get_pointer() for x in found}


def test_header_and_trailer_and_line_limit(grown):
    text = export_gedcom(grown)
    roots = parse(text).get_root_child_elements()
    head, trailer = roots[0], roots[-1]
    assert head.get_tag() == "HEAD" and trailer.get_tag() == "TRLR"
    assert tag_values(head, "SOUR") == ["Regnal"]
    assert sub_value(head, "GEDC", "VERS") == "5.5.1"
    assert sub_value(head, "GEDC", "FORM") == "LINEAGE-LINKED"
    assert tag_values(head, "CHAR") == ["UTF-8"]
    [subm] = tag_values(head, "SUBM")
    assert parse(text).get_element_dictionary()[subm].get_tag() == "SUBM"
    assert text.endswith("0 TRLR\n")
    assert max(len(line) for line in text.splitlines()) <= MAX_LINE
    assert export_gedcom(grown) == text  # stable: the same data gives the same file


def test_every_person_union_and_child_link_survives(grown):
    people = list(Character.objects.filter(campaign=grown))
    matches = list(Marriage.objects.filter(campaign=grown).order_by("pk"))
    assert len(people) > 40 and len(matches) > 10  # the simulation grew real families
    parser = parse(export_gedcom(grown))
    indis, fams = records(parser)
    assert len(indis) == len(people)
    indi = by_id(parser, people)
    pointer_of = {pk: e.get_pointer() for pk, e in indi.items()}

    for c in people:
        e = indi[c.pk]
        assert e.get_name() == (c.given_name, c.dynastic_name)
        assert e.get_gender() == c.sex
        assert e.get_birth_year() == c.birth_year
        assert e.get_death_year() == (c.death_year if c.status == Status.DEAD else -1)
        expected = {pointer_of[p] for p in (c.father_id, c.mother_id) if p is not None}
        assert parents_in_file(parser, e) == expected, c

    # every match is a FAM with its husband, wife and wedding year, in marriage pk order (@F1@ ...)
    elements = parser.get_element_dictionary()
    for n, m in enumerate(matches, 1):
        fam = elements[f"@F{n}@"]
        assert tag_values(fam, "HUSB") == [pointer_of[m.husband_id]]
        assert tag_values(fam, "WIFE") == [pointer_of[m.wife_id]]
        if m.wedding_year is not None:
            assert sub_value(fam, "MARR", "DATE") == str(m.wedding_year)
        assert fam.get_pointer() in tag_values(indi[m.husband_id], "FAMS")
        assert fam.get_pointer() in tag_values(indi[m.wife_id], "FAMS")

    # child links: as many CHIL lines as recorded parentages, each answered by a FAMC
    with_parents = [c for c in people if c.father_id or c.mother_id]
    chil = [(f.get_pointer(), x) for f in fams for x in tag_values(f, "CHIL")]
    assert len(chil) == len(with_parents) > 0
    for fam_pointer, child in chil:
        assert fam_pointer in tag_values(elements[child], "FAMC")
    # ... and every family with children is a union of their own two parents
    for c in with_parents:
        [fam] = parser.get_families(indi[c.pk], "FAMC")
        assert set(tag_values(fam, "HUSB")) == ({pointer_of[c.father_id]} if c.father_id else set())
        assert set(tag_values(fam, "WIFE")) == ({pointer_of[c.mother_id]} if c.mother_id else set())
    # the library's own family walk agrees
    some_child = with_parents[0]
    assert {p.get_pointer() for p in parser.get_parents(indi[some_child.pk])} == parents_in_file(parser, indi[some_child.pk])


def test_dead_people_have_deat_and_the_living_none(grown):
    dead = Character.objects.filter(campaign=grown, status=Status.DEAD).order_by("pk").first()
    alive = Character.objects.filter(campaign=grown).exclude(status=Status.DEAD).order_by("pk").first()
    assert dead is not None and alive is not None
    parser = parse(export_gedcom(grown))
    indi = by_id(parser, Character.objects.filter(campaign=grown))
    assert sub_value(indi[dead.pk], "DEAT", "DATE") == str(dead.death_year)
    assert indi[dead.pk].is_deceased()
    assert tag_values(indi[alive.pk], "DEAT") == [] and not indi[alive.pk].is_deceased()


def test_titles_held_now_or_once_are_titl(grown):
    holder, former = Character.objects.filter(campaign=grown, sex=Sex.MALE).order_by("pk")[:2]
    title = Title.objects.create(
        campaign=grown,
        name="Duke of Liguria",
        province="Liguria",
        crown="Italy",
        holder=holder,
        granted_year=1300,
        granted_to=former,
    )
    TitleHolding.objects.create(title=title, holder=former, start_year=1300, end_year=1310, how="granted")
    TitleHolding.objects.create(title=title, holder=holder, start_year=1310, how="inherited")
    Title.objects.create(
        campaign=grown,
        name="Count of Provence",
        province="Provence",
        crown="France",
        holder=holder,
        granted_year=1312,
        granted_to=holder,
    )
    parser = parse(export_gedcom(grown))
    indi = by_id(parser, Character.objects.filter(campaign=grown))
    assert {"Duke of Liguria", "Count of Provence"} <= set(tag_values(indi[holder.pk], "TITL"))
    assert "Duke of Liguria" in tag_values(indi[former.pk], "TITL")
    # crowns reigned show as titles too
    kings = [e for e in indi.values() if any(t.startswith(("King of ", "Queen of ")) for t in tag_values(e, "TITL"))]
    assert kings


def test_a_dynasty_export_holds_its_members_and_their_families(grown):
    dynasty = Dynasty.objects.filter(campaign=grown).order_by("pk").first()
    members = set(Character.objects.filter(campaign=grown, birth_dynasty=dynasty).values_list("pk", flat=True)) | set(
        Character.objects.filter(campaign=grown, controlled_by=dynasty).values_list("pk", flat=True)
    )
    text = export_gedcom(grown, dynasty)
    parser = parse(text)
    indis, fams = records(parser)
    names = Counter(e.get_name() for e in indis)
    for c in Character.objects.filter(pk__in=members):
        assert names[(c.given_name, c.dynastic_name)] >= 1, c
    assert len(members) <= len(indis) < Character.objects.filter(campaign=grown).count()
    assert {e.get_name()[1] for e in indis} >= {dynasty.name}
    assert parser.get_root_child_elements()[0].get_tag() == "HEAD"
    assert parser.get_root_child_elements()[-1].get_tag() == "TRLR"
    # every link points at a record in the file, and each member's match is there
    elements = parser.get_element_dictionary()
    for e in indis:
        for tag in ("FAMC", "FAMS"):
            for x in tag_values(e, tag):
                assert isinstance(elements[x], FamilyElement)
    for f in fams:
        for tag in ("HUSB", "WIFE", "CHIL"):
            for x in tag_values(f, tag):
                assert isinstance(elements[x], IndividualElement)
    # a member's parents, matches and children are all linked, as in the whole-campaign export
    pointer_of = {e.get_pointer(): e for e in indis}
    for c in Character.objects.filter(pk__in=members):
        [e] = [
            x
            for x in indis
            if x.get_name() == (c.given_name, c.dynastic_name) and x.get_birth_year() == c.birth_year and x.get_gender() == c.sex
        ][:1] or [None]
        assert e is not None
        parents = {pointer_of[x].get_name() for x in parents_in_file(parser, e)}
        assert parents == {(p.given_name, p.dynastic_name) for p in (c.father, c.mother) if p is not None}, c
    member_matches = Marriage.objects.filter(campaign=grown, husband__in=members) | Marriage.objects.filter(
        campaign=grown, wife__in=members
    )
    couples = {
        (pointer_of[tag_values(f, "HUSB")[0]].get_name(), pointer_of[tag_values(f, "WIFE")[0]].get_name())
        for f in fams
        if tag_values(f, "MARR") or tag_values(f, "ENGA")
    }
    assert member_matches.count() > 0
    for m in member_matches:
        assert ((m.husband.given_name, m.husband.dynastic_name), (m.wife.given_name, m.wife.dynastic_name)) in couples


def test_a_child_of_one_known_parent_gets_a_family_of_that_parent(grown):
    mother = Character.objects.filter(campaign=grown, sex=Sex.FEMALE).order_by("pk").first()
    child = Character.objects.create(
        campaign=grown,
        given_name="Bastard",
        dynastic_name=mother.dynastic_name,
        sex=Sex.MALE,
        birth_year=mother.birth_year + 20,
        mother=mother,
        legitimate=False,
    )
    parser = parse(export_gedcom(grown))
    indi = by_id(parser, Character.objects.filter(campaign=grown))
    [fam] = parser.get_families(indi[child.pk], "FAMC")
    assert tag_values(fam, "HUSB") == [] and tag_values(fam, "WIFE") == [indi[mother.pk].get_pointer()]
    assert tag_values(fam, "CHIL") == [indi[child.pk].get_pointer()]
    assert fam.get_pointer() in tag_values(indi[mother.pk], "FAMS")


def test_long_values_are_cut_into_conc_and_cont_lines():
    value = "Duke of " + "Very Long Province " * 30 + "with an @ sign\nand a second line"
    lines = list(_line(1, "TITL", value))
    assert len(lines) > 2 and all(len(line) <= MAX_LINE for line in lines)
    assert any(line.startswith("2 CONC ") for line in lines) and any(line.startswith("2 CONT ") for line in lines)
    assert all(not line.endswith(" ") for line in lines if line.startswith("1 TITL") or " CONC " in line)
    text = "0 @I1@ INDI\n" + "\n".join(lines) + "\n"
    [titl] = parse(text).get_root_child_elements()[0].get_child_elements()
    assert full_value(titl).replace("@@", "@") == value


def test_the_command_writes_a_file_and_a_dynasty(grown, tmp_path):
    out = io.StringIO()
    target = tmp_path / "all.ged"
    call_command("export_gedcom", "--campaign", grown.slug, "--output", str(target), stdout=out)
    assert target.read_text(encoding="utf-8") == export_gedcom(grown)
    assert f"{Character.objects.filter(campaign=grown).count()} people" in out.getvalue()

    dynasty = Dynasty.objects.filter(campaign=grown).order_by("pk").first()
    out = io.StringIO()
    call_command("export_gedcom", "--campaign", grown.slug, "--dynasty", dynasty.name.upper(), stdout=out)
    assert out.getvalue() == export_gedcom(grown, dynasty)

    with pytest.raises(CommandError, match="No campaign"):
        call_command("export_gedcom", "--campaign", "no-such-campaign")
    with pytest.raises(CommandError, match="No dynasty"):
        call_command("export_gedcom", "--campaign", grown.slug, "--dynasty", "Nobody")


@pytest.mark.django_db
def test_the_gedcom_download_is_for_members_only(client, campaign, alice, outsider):
    from django.urls import reverse

    url = reverse("gedcom-campaign", args=[campaign.slug])
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    client.force_login(alice)
    response = client.get(url)
    assert response.status_code == 200
    assert response.content.decode().startswith("0 HEAD")


def test_a_monarch_carries_his_regnal_numbers_as_the_names_suffix(grown):
    reigns = Reign.objects.filter(campaign=grown, numeral__isnull=False).select_related("holder")
    reign = reigns.order_by("-numeral", "pk").first()
    assert reign is not None and reign.numeral
    numeral = roman(reign.numeral)
    parser = parse(export_gedcom(grown))
    indi = by_id(parser, Character.objects.filter(campaign=grown))
    king = indi[reign.holder_id]
    assert sub_value(king, "NAME", "NSFX") == numeral
    assert tag_values(king, "NAME")[0].endswith(f"/{reign.holder.dynastic_name}/ {numeral}")
    never = Character.objects.filter(campaign=grown).exclude(reigns__isnull=False).first()
    assert (
        never is not None and sub_value(by_id(parser, Character.objects.filter(campaign=grown))[never.pk], "NAME", "NSFX") is None
    )
