"""Issue 8: the renders through the API, each with its media type and magic bytes: a tree as SVG,
PNG or PDF, a character sheet, a contract and a turn's announcements as PDF, GEDCOM. Who may have
which follows the pages (members for trees, announcements and GEDCOM; the GM or the controlling
player for a sheet; the contract's parties and the GM for a contract, the secrecy matrix's rows);
every error is still the JSON error shape, whatever ``Accept`` asked for."""

from __future__ import annotations

import pytest

from dynasties.models import Character, Dynasty
from tests.api.conftest import assert_error, url
from tests.api.matrix import MATRIX, ROLES, build_secrets

pytestmark = pytest.mark.django_db

MAGIC = {"svg": b"<svg", "png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-"}
TYPES = {"svg": "image/svg+xml", "png": "image/png", "pdf": "application/pdf"}


def england(campaign) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown="England")


def member_of(campaign, crown) -> Character:
    return Character.objects.filter(campaign=campaign, controlled_by__crown=crown).order_by("pk").first()


# trees -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["svg", "png", "pdf"])
def test_a_tree_in_each_format(campaign, observer, client_for, fmt):
    response = client_for(observer).get(url(campaign, "trees/dynasty"), {"format": fmt, "dynasty": england(campaign).pk})
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == TYPES[fmt]
    head = response.content[:400]
    assert head.startswith(MAGIC[fmt]) if fmt != "svg" else MAGIC["svg"] in head


def test_a_focused_tree_with_a_cap_on_generations(campaign, alice, client_for):
    king = member_of(campaign, "England")
    response = client_for(alice).get(url(campaign, "trees/descendants"), {"focus": king.pk, "generations": 1})
    assert response.status_code == 200 and response["Content-Type"] == TYPES["svg"]
    svg = response.content.decode()
    assert king.given_name in svg and "1 generations" in svg
    assert f"/c/{campaign.slug}/character/{king.pk}/" in svg  # people link to their pages


def test_tree_refusals_keep_the_json_error_shape(campaign, alice, outsider, client_for):
    client = client_for(alice)
    assert_error(client.get(url(campaign, "trees/dynasty"), {"format": "gif"}), 400, "invalid")
    assert_error(client.get(url(campaign, "trees/ancestors"), HTTP_ACCEPT="image/png"), 400, "invalid_tree")  # no focus
    no_one = assert_error(client.get(url(campaign, "trees/ancestors"), {"focus": 999999}, HTTP_ACCEPT="application/pdf"), 400)
    assert "no character #999999" in no_one["message"]
    assert_error(client.get(url(campaign, "trees/forest")), 404, "not_found")
    assert_error(client_for(outsider).get(url(campaign, "trees/campaign")), 404, "not_found")
    assert_error(client_for(None).get(url(campaign, "trees/campaign")), 401)


@pytest.mark.django_db(transaction=True)
def test_a_large_tree_is_queued_and_fetched_from_its_job(campaign, observer, outsider, client_for, settings):
    """Above ``TREE_INLINE_PEOPLE`` (lowered here: the test campaign has 15 characters) the tree is a
    job, as on the pages: 202 with the job, followed until the worker has drawn it, then its file."""
    from tests.test_jobs import QUEUE, work

    settings.TASKS = QUEUE
    settings.TREE_INLINE_PEOPLE = 5
    client = client_for(observer)
    address = url(campaign, "trees/campaign")
    queued = client.get(address, {"format": "png"})
    assert queued.status_code == 202, queued.content[:300]
    job = queued.json()
    assert job["state"] == "queued" and job["file"] is None and job["error"] == ""
    assert queued["Location"] == job["url"] == url(campaign, f"trees/jobs/{job['id']}")
    assert job["tree"] == f"{address}?format=png"
    assert client.get(address, {"format": "png"}).json()["id"] == job["id"]  # asked again: the same job
    waiting = assert_error(client.get(job["url"] + "file/"), 409, "not_ready")
    assert "waiting for a worker" in waiting["message"]
    assert_error(client_for(outsider).get(job["url"]), 404, "not_found")
    assert_error(client.get(url(campaign, "trees/jobs/not-a-job")), 404, "not_found")

    work()

    done = client.get(job["url"]).json()
    assert done["state"] == "done" and done["file"] == job["url"] + "file/"
    served = client.get(done["file"])
    assert served.status_code == 200 and served["Content-Type"] == TYPES["png"]
    assert served.content.startswith(MAGIC["png"])
    again = client.get(address, {"format": "png"})  # drawn: in the cache, served at once
    assert again.status_code == 200 and again.content == served.content
    small = client.get(url(campaign, "trees/descendants"), {"focus": member_of(campaign, "England").pk, "generations": 0})
    assert small.status_code == 200 and small["Content-Type"] == TYPES["svg"]  # a tree of few people is drawn at once


# sheets, contracts, announcements --------------------------------------------------------------


def test_a_character_sheet_for_the_gm_and_the_controlling_player(campaign, gm, alice, bob, observer, outsider, client_for):
    mine = member_of(campaign, "England")
    address = url(campaign, "characters", mine.pk) + "sheet.pdf"
    for user in (gm, alice):
        response = client_for(user).get(address)
        assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
        assert response.content.startswith(MAGIC["pdf"])
    for user in (bob, observer):
        assert_error(client_for(user).get(address, HTTP_ACCEPT="application/pdf"), 404, "not_found")  # as /print/ answers
    assert_error(client_for(outsider).get(address), 404, "not_found")
    assert_error(client_for(gm).get(url(campaign, "characters", 999999) + "sheet.pdf"), 404, "not_found")


def test_a_contract_pdf_follows_the_secrecy_matrix(campaign, gm, alice, bob, observer, outsider, client_for):
    cast = build_secrets(campaign, gm=gm, alice=alice, bob=bob, observer=observer, outsider=outsider)
    for name in ("england-spain contract", "france-spain contract"):
        contract = cast.objects[name]
        for role, sees in zip(ROLES, MATRIX[name], strict=True):
            response = client_for(cast.users[role]).get(url(campaign, "contracts", contract.pk) + "pdf/")
            if sees:
                assert response.status_code == 200 and response["Content-Type"] == "application/pdf", (name, role)
                assert response.content.startswith(MAGIC["pdf"])
            else:
                assert_error(response, 404, "not_found")


def test_the_announcements_of_a_year_for_every_member(campaign, observer, outsider, client_for):
    address = url(campaign, "announcements") + f"{campaign.current_year}/pdf/"
    response = client_for(observer).get(address)
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(MAGIC["pdf"])
    assert f"announcements-{campaign.slug}-{campaign.current_year}.pdf" in response["Content-Disposition"]
    later = url(campaign, "announcements") + f"{campaign.current_year + 1}/pdf/"
    assert "runs from" in assert_error(client_for(observer).get(later), 404, "not_found")["message"]
    assert_error(client_for(outsider).get(address), 404, "not_found")


# GEDCOM ----------------------------------------------------------------------------------------


def test_gedcom_of_the_campaign_and_of_one_dynasty(campaign, observer, client_for):
    client = client_for(observer)
    whole = client.get(url(campaign, "gedcom"))
    assert whole.status_code == 200 and whole["Content-Type"] == "text/plain; charset=utf-8"
    assert whole.content.startswith(b"0 HEAD") and whole.content.rstrip().endswith(b"0 TRLR")
    assert "attachment" in whole["Content-Disposition"]
    house = client.get(url(campaign, "gedcom"), {"dynasty": england(campaign).pk})
    assert house.status_code == 200 and house.content.startswith(b"0 HEAD")
    assert house.content.count(b"@ INDI") < whole.content.count(b"@ INDI")
    assert set(assert_error(client.get(url(campaign, "gedcom"), {"dynasty": 999999}), 400)["fields"]) == {"dynasty"}


def test_gedcom_is_for_members_only(campaign, outsider, client_for):
    assert_error(client_for(outsider).get(url(campaign, "gedcom")), 404, "not_found")
    assert_error(client_for(None).get(url(campaign, "gedcom")), 401)
