"""Notes, portraits and the character's status line (issue 20): the sanitizer, the policy through
the services and the pages, the upload's refusals."""

from __future__ import annotations

from io import BytesIO

import pytest
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from PIL import Image, ImageFile

from campaign.models import Membership, Role
from campaign.permissions import Forbidden, can_view, visible
from dynasties.models import Character, Dynasty, Marriage, Note, Portrait, Reign, Status
from dynasties.notes import notes_shown, render
from dynasties.selectors import status_lines
from dynasties.services.notes import note_write
from dynasties.services.portraits import MAX_BYTES, portrait_set
from rules.errors import RuleError


@pytest.fixture
def observer(campaign):
    user = get_user_model().objects.create_user("olga", password="olga-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


def house(campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def someone_of(campaign, crown: str) -> Character:
    return Character.objects.filter(campaign=campaign, controlled_by=house(campaign, crown), status=Status.ALIVE).first()


def png(width: int = 800, height: int = 600, mode: str = "RGB") -> bytes:
    out = BytesIO()
    Image.new(mode, (width, height), "navy").save(out, "PNG")
    return out.getvalue()


# --- the sanitizer ------------------------------------------------------------------------------------


def test_markdown_is_rendered_and_no_script_gets_through():
    html = render("**bold** and *italics*\n\n- one\n- two\n\n[a link](https://example.org)").html
    assert "<strong>bold</strong>" in html and "<em>italics</em>" in html and "<li>one</li>" in html
    assert 'href="https://example.org"' in html and 'rel="noopener noreferrer nofollow"' in html
    hostile = render(
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[x](javascript:alert(3))\n\n"
        '<a href="javascript:alert(4)" onclick="alert(5)">y</a> <iframe src="https://evil.example"></iframe>'
        '\n\n<p style="color:red" onmouseover="alert(6)">z</p>'
    ).html
    assert "<script" not in hostile and "alert(1)" not in hostile
    assert "<img" not in hostile and "onerror" not in hostile
    assert "javascript:" not in hostile and "onclick" not in hostile and "onmouseover" not in hostile
    assert "<iframe" not in hostile and "style=" not in hostile
    assert ">x</a>" in hostile or ">x<" in hostile  # the link's words stay, its target goes


# --- the policy through the service ---------------------------------------------------------------------


def test_who_reads_which_note(campaign, gm, alice, bob, observer):
    england, france = house(campaign, "England"), house(campaign, "France")
    edward = someone_of(campaign, "England")
    note_write(campaign, audience="public", text="Known to all", character=edward, by=gm)
    note_write(campaign, audience="player", text="England's plan", character=edward, by=alice)
    note_write(campaign, audience="gm", text="A secret heir", character=edward, by=gm)
    note_write(campaign, audience="player", text="France's plan", dynasty=france, by=bob)
    note_write(campaign, audience="player", text="To every player", by=gm)
    note_write(campaign, audience="gm", text="The GM's campaign plans", by=gm)

    def read(user):
        return set(visible(user, campaign, Note.objects.all()).values_list("text", flat=True))

    everything = {
        "Known to all",
        "England's plan",
        "A secret heir",
        "France's plan",
        "To every player",
        "The GM's campaign plans",
    }
    assert read(gm) == everything
    assert read(alice) == {"Known to all", "England's plan", "To every player"}
    assert read(bob) == {"Known to all", "France's plan", "To every player"}
    assert read(observer) == {"Known to all"}
    outsider = get_user_model().objects.create_user("nobody", password="nobody-password-1")
    assert read(outsider) == set()
    for note in Note.objects.all():  # one rule for a row and for a queryset
        for user in (gm, alice, bob, observer, outsider):
            assert can_view(user, note) == (note.text in read(user)), (user, note.text)
    assert england.pk != france.pk


def test_a_player_note_follows_the_character_to_his_new_house(campaign, gm, alice, bob):
    edward = someone_of(campaign, "England")
    note_write(campaign, audience="player", text="England's plan", character=edward, by=alice)
    Character.objects.filter(pk=edward.pk).update(controlled_by=house(campaign, "France"))
    assert not visible(alice, campaign, Note.objects.all()).exists()
    assert visible(bob, campaign, Note.objects.all()).get().text == "England's plan"


def test_who_writes_which_note(campaign, gm, alice, bob, observer):
    edward, philip = someone_of(campaign, "England"), someone_of(campaign, "France")
    england = house(campaign, "England")
    note_write(campaign, audience="player", text="mine", character=edward, by=alice)
    note_write(campaign, audience="player", text="our house", dynasty=england, by=alice)
    refused = [
        dict(audience="gm", character=edward, by=alice),  # a GM note
        dict(audience="public", character=edward, by=alice),  # the public note is the GM's
        dict(audience="player", character=philip, by=alice),  # another house's character
        dict(audience="player", dynasty=house(campaign, "France"), by=alice),  # another house
        dict(audience="player", by=alice),  # the campaign's player note is the GM's message
        dict(audience="public", character=edward, by=observer),
    ]
    for terms in refused:
        with pytest.raises(Forbidden):
            note_write(campaign, text="not allowed", **terms)
    assert set(Note.objects.values_list("text", flat=True)) == {"mine", "our house"}
    with pytest.raises(RuleError, match="keep it under"):
        note_write(campaign, audience="gm", text="x" * 20_001, character=edward, by=gm)
    with pytest.raises(RuleError, match="Choose whose note"):
        note_write(campaign, audience="everyone", text="x", character=edward, by=gm)


def test_a_note_is_one_row_per_audience_and_keeps_its_history(campaign, gm):
    edward = someone_of(campaign, "England")
    first = note_write(campaign, audience="gm", text="first", character=edward, by=gm)
    again = note_write(campaign, audience="gm", text="second", character=edward, by=gm)
    assert first.pk == again.pk and Note.objects.get().text == "second"
    trail = list(Note.history.filter(id=first.pk).order_by("history_id").values_list("text", "history_user__username"))
    assert trail == [("first", "gm"), ("second", "gm")]


def test_notes_shown_lists_what_the_viewer_reads_and_writes(campaign, gm, alice, observer):
    edward = someone_of(campaign, "England")
    note_write(campaign, audience="gm", text="hidden **well**", character=edward, by=gm)
    gm_sees = {n.audience: n for n in notes_shown(gm, campaign, character=edward)}
    assert list(gm_sees) == ["public", "player", "gm"] and all(n.writable for n in gm_sees.values())
    assert "<strong>well</strong>" in gm_sees["gm"].html
    alice_sees = notes_shown(alice, campaign, character=edward)
    assert [(n.audience, n.writable) for n in alice_sees] == [("player", True)]  # nothing public written yet
    assert notes_shown(observer, campaign, character=edward) == []


# --- the pages -----------------------------------------------------------------------------------------


def test_the_character_page_shows_each_viewer_his_notes_only(client, campaign, gm, alice, bob):
    edward = someone_of(campaign, "England")
    note_write(campaign, audience="public", text="Known to all", character=edward, by=gm)
    note_write(campaign, audience="player", text="England's PLAN", character=edward, by=gm)
    note_write(campaign, audience="gm", text="GM-SECRET", character=edward, by=gm)
    url = reverse("pages:character", args=[campaign.slug, edward.pk])
    seen = {}
    for user in (gm, alice, bob):
        client.force_login(user)
        seen[user.username] = client.get(url).content.decode()
    assert "GM-SECRET" in seen["gm"] and "England&#x27;s PLAN" in seen["gm"]
    assert "GM-SECRET" not in seen["alice"] and "England&#x27;s PLAN" in seen["alice"]
    assert "GM-SECRET" not in seen["bob"] and "PLAN" not in seen["bob"] and "Known to all" in seen["bob"]
    assert 'name="audience" value="player"' in seen["alice"] and 'name="audience" value="gm"' not in seen["alice"]
    assert "pages:note_save" not in seen["bob"] and 'name="audience"' not in seen["bob"]


def test_saving_a_note_from_the_page(client, campaign, gm, alice, bob):
    edward = someone_of(campaign, "England")
    url = reverse("pages:note_save", args=[campaign.slug])
    client.force_login(alice)
    answer = client.post(url, {"on": "character", "id": edward.pk, "audience": "player", "text": "Marry him *well*"})
    assert answer.status_code == 302 and answer["Location"].endswith(f"/character/{edward.pk}/#notes")
    page = client.get(answer["Location"]).content.decode()
    assert "Marry him <em>well</em>" in page and "The note is saved." in page
    assert client.post(url, {"on": "character", "id": edward.pk, "audience": "gm", "text": "x"}).status_code == 403
    client.force_login(bob)
    assert client.post(url, {"on": "character", "id": edward.pk, "audience": "player", "text": "x"}).status_code == 403
    assert client.post(url, {"on": "character", "id": 999999, "audience": "player", "text": "x"}).status_code == 404
    client.force_login(gm)
    answer = client.post(url, {"on": "campaign", "audience": "gm", "text": "<script>alert(1)</script>Plans"}, follow=True)
    page = answer.content.decode()
    assert "Plans" in page and "<script>alert(1)" not in page
    assert list(Note.objects.order_by("pk").values_list("audience", "text")) == [
        ("player", "Marry him *well*"),
        ("gm", "<script>alert(1)</script>Plans"),
    ]


def test_the_dynasty_page_and_the_dashboard_show_their_notes(client, campaign, gm, alice):
    england = house(campaign, "England")
    note_write(campaign, audience="player", text="House plans", dynasty=england, by=alice)
    note_write(campaign, audience="public", text="Welcome to the table", by=gm)
    client.force_login(alice)
    assert "House plans" in client.get(reverse("pages:dynasty", args=[campaign.slug, england.pk])).content.decode()
    assert "Welcome to the table" in client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()


# --- the status line -------------------------------------------------------------------------------------


def test_the_status_line_says_what_each_person_is(campaign):
    reign = Reign.objects.filter(campaign=campaign, end_year__isnull=True, crown="England").select_related("holder").get()
    king = reign.holder
    queen = Marriage.objects.filter(campaign=campaign, husband=king, ended_year__isnull=True).get().wife
    from dynasties.services.succession_view import heirs_now

    heirs = {crown: e.character.pk if e else None for crown, e in heirs_now(campaign=campaign).items()}
    heir = Character.objects.get(pk=heirs["England"])
    prisoner = (
        Character.objects.filter(campaign=campaign, status=Status.ALIVE).exclude(pk__in=[king.pk, queen.pk, heir.pk]).last()
    )
    Character.objects.filter(pk=prisoner.pk).update(prisoner_of=house(campaign, "France"))
    dead = (
        Character.objects.filter(campaign=campaign, status=Status.ALIVE, reigns__isnull=True)
        .exclude(pk__in=[queen.pk, heir.pk, prisoner.pk])
        .first()
    )
    Character.objects.filter(pk=dead.pk).update(status=Status.DEAD, death_year=campaign.current_year, death_cause="a fall")
    people = list(Character.objects.filter(pk__in=[king.pk, queen.pk, heir.pk, prisoner.pk, dead.pk]))
    with CaptureQueriesContext(connection) as few:
        lines = status_lines(campaign, people, heirs)
    everyone = list(Character.objects.filter(campaign=campaign))
    with CaptureQueriesContext(connection) as many:
        status_lines(campaign, everyone, heirs)
    assert len(many) == len(few)  # no query per character
    numeral = f" {'I' * reign.numeral}" if reign.numeral and reign.numeral < 4 else ""
    assert (
        f"Reigning King of England since {reign.start_year}, as {king.given_name}{numeral} {king.dynastic_name}" in lines[king.pk]
    )
    assert f"Consort of {king.given_name}{numeral} {king.dynastic_name}, King of England" in lines[queen.pk]
    assert "Heir to the crown of England" in lines[heir.pk]
    assert "Prisoner of " + house(campaign, "France").name in lines[prisoner.pk]
    assert lines[dead.pk][0] == f"Died in {campaign.current_year}: a fall"


def test_the_character_page_shows_the_status_line(client, campaign, alice):
    king = Reign.objects.filter(campaign=campaign, end_year__isnull=True, crown="England").get().holder
    client.force_login(alice)
    page = client.get(reverse("pages:character", args=[campaign.slug, king.pk])).content.decode()
    assert 'class="status-line"' in page and "Reigning King of England since" in page


# --- portraits -------------------------------------------------------------------------------------------


def test_a_portrait_is_checked_resized_and_stored(campaign, gm, alice, django_capture_on_commit_callbacks):
    edward = someone_of(campaign, "England")
    found = portrait_set(campaign, BytesIO(png(1600, 800)), character=edward, by=alice)
    assert (found.width, found.height) == (400, 200)
    assert default_storage.exists(found.name) and found.name.endswith(".jpg")
    with default_storage.open(found.name, "rb") as stored:
        assert Image.open(stored).size == (400, 200)
    first = found.name
    with django_capture_on_commit_callbacks(execute=True):  # the old file goes once the new row is written
        again = portrait_set(campaign, BytesIO(png(300, 300, "RGBA")), character=edward, by=gm)
    assert again.pk == found.pk and again.name.endswith(".png") and (again.width, again.height) == (300, 300)
    assert not default_storage.exists(first)  # the image it replaced is gone
    assert Portrait.objects.count() == 1


def test_the_upload_refusals_say_what_to_do(campaign, gm, alice, bob, monkeypatch):
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)  # as WeasyPrint sets it for the process
    edward = someone_of(campaign, "England")
    with pytest.raises(RuleError, match="not an image Regnal can read"):
        portrait_set(campaign, BytesIO(b"<svg onload=alert(1)></svg>"), character=edward, by=gm)
    with pytest.raises(RuleError, match="not an image Regnal can read"):
        portrait_set(campaign, BytesIO(png()[:100]), character=edward, by=gm)  # cut short
    with pytest.raises(RuleError, match="larger than 5 MB"):
        portrait_set(campaign, BytesIO(b"\x89PNG" + b"0" * MAX_BYTES), character=edward, by=gm)
    with pytest.raises(RuleError, match="empty"):
        portrait_set(campaign, BytesIO(b""), character=edward, by=gm)
    bmp = BytesIO()
    Image.new("RGB", (10, 10)).save(bmp, "BMP")
    with pytest.raises(RuleError, match="PNG, JPEG, GIF or WebP"):
        portrait_set(campaign, BytesIO(bmp.getvalue()), character=edward, by=gm)
    with pytest.raises(Forbidden):
        portrait_set(campaign, BytesIO(png()), character=edward, by=bob)  # another house's
    with pytest.raises(Forbidden):
        portrait_set(campaign, BytesIO(png()), dynasty=house(campaign, "England"), by=bob)
    assert not Portrait.objects.exists()


def test_the_portrait_through_the_pages(client, campaign, gm, alice, bob, outsider):
    england = house(campaign, "England")
    upload_url = reverse("pages:portrait_upload", args=[campaign.slug, "dynasty", england.pk])
    client.force_login(bob)
    assert client.post(upload_url, {"image": SimpleUploadedFile("arms.png", png())}).status_code == 403
    client.force_login(alice)
    answer = client.post(upload_url, {"image": SimpleUploadedFile("arms.txt", b"not an image")}, follow=True)
    assert "The coat of arms was not saved: This file is not an image Regnal can read" in answer.content.decode()
    answer = client.post(upload_url, {"image": SimpleUploadedFile("arms.png", png(500, 1000))}, follow=True)
    page = answer.content.decode()
    arms = Portrait.objects.get(dynasty=england)
    image_url = reverse("pages:portrait", args=[campaign.slug, "dynasty", england.pk])
    assert f'src="{image_url}?v={arms.version}" width="200" height="400"' in page
    client.force_login(bob)  # a member of another house sees it, as he sees the family
    image = client.get(image_url)
    assert image.status_code == 200 and image["Content-Type"] == "image/jpeg"
    assert Image.open(BytesIO(b"".join(image.streaming_content))).size == (200, 400)
    client.force_login(outsider)
    assert client.get(image_url).status_code == 404
    client.force_login(gm)
    assert client.post(upload_url, {"remove": "1"}).status_code == 302
    assert not Portrait.objects.exists() and client.get(image_url).status_code == 404


def test_the_character_sheet_carries_the_portrait(campaign, alice):
    from dynasties.printing import sheets_html

    edward, other = someone_of(campaign, "England"), someone_of(campaign, "France")
    portrait_set(campaign, BytesIO(png(200, 300)), character=edward, by=alice)
    html = sheets_html([edward, other])
    assert html.count('<img class="portrait" src="data:image/jpeg;base64,') == 1
    assert f'alt="Portrait of {edward.given_name}' in html
