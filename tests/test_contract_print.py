"""The printable contract: a plain A4 with parties, clauses in words, dates and signature lines."""

from __future__ import annotations

import io
import shutil
import subprocess

import pytest
from pypdf import PdfReader

from campaign.permissions import SYSTEM_ACTOR
from contracts.printing import contract_pdf
from contracts.services import contract_draft
from dynasties.models import Dynasty


@pytest.mark.django_db
def test_a_contract_prints_with_its_parties_clauses_and_signature_lines(campaign, tmp_path):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    contract = contract_draft(
        campaign=campaign,
        kind="agreement",
        title="The Peace of Calais",
        parties=[england.pk, france.pk],
        clauses=[
            {"kind": "non_aggression", "params": {}, "text": "Neither shall attack the other."},
            {
                "kind": "recurring_payment",
                "params": {"payer": england.pk, "payee": france.pk, "amount": 20, "from_year": 1305, "turns": 3},
            },
        ],
        text="Sealed at Calais.",
        by=SYSTEM_ACTOR,
    )
    pdf = contract_pdf(contract)
    assert pdf.startswith(b"%PDF")
    reader = PdfReader(io.BytesIO(pdf))
    text = " ".join(" ".join(page.extract_text() for page in reader.pages).split())  # lines wrapped as on paper
    for words in (
        "The Peace of Calais",
        "the house of Plantagenet",
        "the house of Anjou",
        "Non-aggression",
        "Neither shall attack the other.",
        "The parties do not attack one another.",
        "The house of Plantagenet pays the house of Anjou 20 Crowns each turn for 3 turns from 1305.",
        "Sealed at Calais.",
        "For the house of Plantagenet",
        "For the house of Anjou",
    ):
        assert words in text, words
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842)  # A4 in points
    # the page as a picture, as a person sees it (poppler-utils is installed by the Makefile)
    (tmp_path / "contract.pdf").write_bytes(pdf)
    pdftoppm = shutil.which("pdftoppm") or "/usr/bin/pdftoppm"
    subprocess.run([pdftoppm, "-png", "-r", "40", str(tmp_path / "contract.pdf"), str(tmp_path / "page")], check=True)
    assert list(tmp_path.glob("page*.png"))


@pytest.mark.django_db
def test_the_admin_prints_a_contract(campaign, admin_client):
    from django.urls import reverse

    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    contract = contract_draft(
        campaign=campaign,
        kind="treaty",
        title="A Truce",
        parties=[england.pk, france.pk],
        clauses=[{"kind": "non_aggression", "params": {}, "text": ""}],
        by=SYSTEM_ACTOR,
    )
    response = admin_client.post(
        reverse("admin:contracts_contract_changelist"), {"action": "print_pdf", "_selected_action": [contract.pk]}
    )
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")


@pytest.mark.django_db
def test_every_clause_reads_as_a_sentence(campaign):
    """Issue 19: "Clause text reads as a sentence", not "payer: ...; payee: ...; amount: ..."."""
    from contracts.models import Clause
    from contracts.printing import describe
    from dynasties.models import Character

    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    edward = Character.objects.filter(campaign=campaign, controlled_by=england).order_by("pk").first()
    houses, people = {england.pk: england, france.pk: france}, {edward.pk: edward}
    e, f = "the house of Plantagenet", "the house of Anjou"
    cases = [
        ("payment", {"payer": england.pk, "payee": france.pk, "amount": 50}, f"{e} pays {f} 50 Crowns."),
        (
            "recurring_payment",
            {"payer": england.pk, "payee": france.pk, "amount": 5, "from_year": 1305, "turns": 1},
            f"{e} pays {f} 5 Crowns each turn for 1 turn from 1305.",
        ),
        (
            "trade_item",
            {"from": france.pk, "to": england.pk, "item": "wine", "turns": None},
            f"{f} delivers wine to {e} each turn, with no end set.",
        ),
        ("non_aggression", {"between": [england.pk, france.pk]}, f"{e} and {f} do not attack one another."),
        ("safe_passage", {}, "the parties let one another's armies pass freely."),
        (
            "military_support",
            {"by": england.pk, "exclusions": ["the Pope", "Castile"]},
            f"{e} supports the others in war, except: the Pope and Castile.",
        ),
        ("cession", {"province": "Gascony", "from": england.pk, "to": france.pk}, f"{e} cedes Gascony to {f}."),
        (
            "renunciation",
            {"character": edward.pk, "crown": "France"},
            f"{edward.display_name} renounces any claim to the crown of France.",
        ),
        ("children_raised_by", {"dynasty": france.pk}, f"the children of the marriage are raised by {f}."),
        ("husband_joins_wife", {}, "the husband joins his wife's house."),
        (
            "dowry",
            {"payer": france.pk, "payee": england.pk, "amount": 100, "province": "Anjou"},
            f"{f} gives {e} a dowry of 100 Crowns and Anjou.",
        ),
        ("escape", {"condition": "the Pope forbids it"}, "a party may leave the contract if the Pope forbids it."),
        ("damages", {"amount": 30}, "a party in breach pays 30 Crowns in damages."),
    ]
    assert {kind for kind, _, _ in cases} == {k for k, _ in Clause._meta.get_field("kind").choices}
    for kind, params, sentence in cases:
        words = describe(Clause(kind=kind, params=params), houses, people, "Crowns")
        assert words.terms == sentence[:1].upper() + sentence[1:], kind
        assert ": " not in words.terms.replace("except: ", ""), kind  # no "key: value" left
