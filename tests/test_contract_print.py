"""The printable contract: a plain A4 with parties, clauses in words, dates and signature lines."""

from __future__ import annotations

import io
import shutil
import subprocess

import pytest
from pypdf import PdfReader

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
    )
    pdf = contract_pdf(contract)
    assert pdf.startswith(b"%PDF")
    reader = PdfReader(io.BytesIO(pdf))
    text = " ".join(page.extract_text() for page in reader.pages)
    for words in (
        "The Peace of Calais",
        "the house of Plantagenet",
        "the house of Anjou",
        "Non-aggression",
        "Neither shall attack the other.",
        "20 Crowns",
        "from year: 1305",
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
    )
    response = admin_client.post(
        reverse("admin:contracts_contract_changelist"), {"action": "print_pdf", "_selected_action": [contract.pk]}
    )
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
