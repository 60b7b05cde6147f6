"""Issue 34: "Tree PDFs on paper: A4 or A3 (and Letter), landscape or portrait, scaled to fit,
chosen on the tree page."

A tree's PDF is one sheet of the paper asked, lying as asked, the tree scaled to fit it within its
margin (up or down) and centred: read back by pypdf (the page's size, the drawing's placement) and
by poppler's ``pdfinfo`` (as a printer driver would see it). The page and the API ask for it with
``paper=a4|a3|letter`` and ``orientation=portrait|landscape``; anything else is a 400 saying what to
write."""

from __future__ import annotations

import io
import re
import shutil
import subprocess

import pytest
from pypdf import PdfReader

from dynasties.trees.render import SHEET_MARGIN, TreeRequest, on_sheet, render_dot, render_tree
from tests.test_trees import family  # noqa: F401  (the fixture: a house of seven)

pytestmark = pytest.mark.django_db

# points (1/72 inch): width, height of the sheet lying as asked
SHEETS = {
    ("a4", "portrait"): (595.28, 841.89),  # 210 x 297 mm
    ("a4", "landscape"): (841.89, 595.28),
    ("a3", "portrait"): (841.89, 1190.55),  # 297 x 420 mm
    ("a3", "landscape"): (1190.55, 841.89),
    ("letter", "portrait"): (612.0, 792.0),
    ("letter", "landscape"): (792.0, 612.0),
}


def pdfinfo(pdf: bytes, tmp_path) -> tuple[int, float, float]:
    """Pages, width and height (points) as poppler's pdfinfo reads them."""
    path = tmp_path / "tree.pdf"
    path.write_bytes(pdf)
    out = subprocess.run([shutil.which("pdfinfo") or "pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", out, re.M).group(1))
    size = re.search(r"^Page size:\s+([\d.]+) x ([\d.]+) pts", out, re.M)
    return pages, float(size.group(1)), float(size.group(2))


def drawn_box(pdf: bytes) -> tuple[float, float, float, float]:
    """Where the drawing lies on the sheet: the transformation the sheet's content applies to it
    (scale, x, y) and the scale's effect on the drawing's own width."""
    page = PdfReader(io.BytesIO(pdf)).pages[0]
    content = page.get_contents().get_data().decode("latin-1")
    cm = re.search(r"([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) cm", content)
    assert cm, content[:200]
    a, b, c, d, e, f = (float(x) for x in cm.groups())
    assert b == c == 0 and a == d  # scaled alike both ways, not turned or stretched
    return a, e, f, float(page.mediabox.width)


@pytest.mark.parametrize(("paper", "orientation"), list(SHEETS))
def test_a_tree_pdf_is_one_sheet_of_the_paper_asked_the_tree_scaled_to_fit(campaign, family, paper, orientation, tmp_path):  # noqa: F811
    request = TreeRequest(kind="dynasty", dynasty=family["house"].pk, fmt="pdf", paper=paper, orientation=orientation)
    pdf = render_tree(campaign, request).content
    pages, width, height = pdfinfo(pdf, tmp_path)
    want_w, want_h = SHEETS[paper, orientation]
    assert pages == 1
    assert (width, height) == (want_w, want_h)
    assert "/Annots" not in PdfReader(io.BytesIO(pdf)).pages[0]  # dot's links (relative addresses) are not printed
    # the drawing (dot's own, at its natural size) fills the sheet within the margin on one side at least
    natural = PdfReader(io.BytesIO(render_dot_of(campaign, request))).pages[0].mediabox
    scale, x, y, _ = drawn_box(pdf)
    drawn_w, drawn_h = float(natural.width) * scale, float(natural.height) * scale
    assert drawn_w <= want_w - 2 * SHEET_MARGIN + 0.5 and drawn_h <= want_h - 2 * SHEET_MARGIN + 0.5
    assert max(drawn_w - (want_w - 2 * SHEET_MARGIN), drawn_h - (want_h - 2 * SHEET_MARGIN)) > -0.5  # fills it
    assert abs(x - (want_w - drawn_w) / 2) < 0.5 and abs(y - (want_h - drawn_h) / 2) < 0.5  # centred


def render_dot_of(campaign, request: TreeRequest) -> bytes:
    from dynasties.trees.render import tree_dot

    return render_dot(tree_dot(campaign, request), "pdf")


def test_a_large_drawing_is_scaled_down_to_the_sheet():
    big = render_dot('digraph { graph [size="40,30!"]; ' + " ".join(f"n{i} -> n{i + 1};" for i in range(60)) + "}", "pdf")
    natural = PdfReader(io.BytesIO(big)).pages[0].mediabox
    assert float(natural.height) > 2000
    pdf = on_sheet(big, (595.28, 841.89), title="Long")
    scale, _, _, width = drawn_box(pdf)
    assert scale < 1 and round(width) == 595
    assert float(natural.height) * scale <= 11.69 * 72 - 2 * SHEET_MARGIN + 0.5
    assert PdfReader(io.BytesIO(pdf)).metadata.title == "Long"


def test_a_small_drawing_is_scaled_up_to_the_sheet():
    small = render_dot("digraph { a -> b; }", "pdf")
    scale, _, _, width = drawn_box(on_sheet(small, (841.89, 595.28)))
    assert scale > 2 and round(width) == 842


def test_the_tree_page_and_the_api_take_the_paper_and_say_what_is_wrong(client, campaign, family, alice, tmp_path):  # noqa: F811
    client.force_login(alice)
    url = f"/trees/{campaign.slug}/dynasty/"
    house = family["house"].pk
    pdf = client.get(url, {"dynasty": house, "format": "pdf", "paper": "letter", "orientation": "portrait"})
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert pdfinfo(pdf.content, tmp_path) == (1, 612.0, 792.0)
    a3 = client.get(url, {"dynasty": house, "format": "pdf", "paper": "A3"})  # any case; landscape by default
    assert pdfinfo(a3.content, tmp_path)[1:] == (1190.55, 841.89)
    wrong = client.get(url, {"dynasty": house, "format": "pdf", "paper": "a5"})
    assert wrong.status_code == 400
    assert "Unknown paper 'a5'; choose A4, A3 or Letter" in wrong.content.decode()
    sideways = client.get(url, {"dynasty": house, "format": "pdf", "orientation": "sideways"})
    assert sideways.status_code == 400
    assert "Unknown orientation 'sideways'; choose landscape or portrait." in sideways.content.decode()


def test_the_tree_page_offers_the_paper_and_the_orientation(client, campaign, family, alice):  # noqa: F811
    client.force_login(alice)
    html = client.get(f"/c/{campaign.slug}/dynasty/{family['house'].pk}/").content.decode()
    form = html[html.index('<form class="tree-print"') :]
    form = form[: form.index("</form>")]
    assert f'action="/trees/{campaign.slug}/dynasty/"' in form and 'name="format" value="pdf"' in form
    assert re.findall(r'<option value="(\w+)">', form) == ["auto", "a4", "a3", "letter", "landscape", "portrait"]
    assert '<label>Paper <select name="paper">' in form and '<label>Orientation <select name="orientation">' in form
