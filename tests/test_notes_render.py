"""A note is rendered once, when it is written, by a parser whose work is linear in the text, within a
bound (issue 30: 20,000 ``[`` hung a worker for 60 s on every read of the page). The worst shapes are
stored, no read renders them again, the parser's work is counted (``Rendered.steps``: deterministic,
so linearity is shown by counting, never by timing), and what cannot be laid out within the bound is
refused saying what to change. Figures in milliseconds: bench/notes.py."""

from __future__ import annotations

import importlib
import json
import re
import zlib
from collections import Counter

import pytest
from django.apps import apps
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import Campaign, Checkpoint, UndoChange
from campaign.undo import new_action_key, step_action, undo_step
from dynasties import notes
from dynasties.models import Character, Dynasty, Note
from dynasties.notes import MAX_DEPTH, MAX_LENGTH, STEPS_PER_CHARACTER, NoteRefused, plain, render, steps_allowed
from dynasties.services.notes import note_write
from operations.exchange import campaign_export, campaign_import
from rules.errors import InvalidImport, RuleError
from tests.notes_corpus import IN_TABLE, KEPT, REAL, REFUSED, short_italic_lines

LIFTED = 10**6
"""Steps a character that no note reaches: the bound lifted, to count a refused note's whole work."""


def house(campaign: Campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def boom(*args, **kwargs):
    raise AssertionError("a note was rendered on a read")


@pytest.fixture
def no_rendering(monkeypatch):
    """Any rendering from here on fails the test: the service's renderer, markdown-it-py, nh3, and
    Python-Markdown (the renderer before issue 30) if it is still installed."""
    monkeypatch.setattr(notes, "render", boom)
    monkeypatch.setattr("markdown_it.MarkdownIt.parse", boom)
    monkeypatch.setattr("markdown_it.MarkdownIt.render", boom)
    monkeypatch.setattr("nh3.clean", boom)
    try:
        importlib.import_module("markdown")
    except ImportError:
        pass
    else:
        monkeypatch.setattr("markdown.markdown", boom)


# --- the parser's work is linear, and within the bound ------------------------------------------------


LINEAR = {**KEPT, **{name: build for name, build in REFUSED.items() if name != "a table too wide for its rows"}}
"""Every worst shape but the table too wide for its rows (its 3,000 columns need 6,000 characters; the
parser makes at most 65,536 cells, and the bound refuses it long before: below)."""


@pytest.mark.long
@pytest.mark.parametrize("shape", list(LINEAR))
def test_the_work_grows_linearly_with_the_text(shape):
    build = LINEAR[shape]
    steps = {n: render(build(n), per_character=LIFTED).steps for n in (5_000, 10_000, MAX_LENGTH)}
    for n in (5_000, 10_000):
        assert steps[2 * n] <= 2.01 * steps[n], (shape, steps)  # twice the text, twice the work (a unit cut at the end)
    within = steps[MAX_LENGTH] <= steps_allowed(build(MAX_LENGTH))
    assert within == (shape in KEPT), (shape, steps)  # the kept shapes within the bound, the refused over it
    assert render(build(5_000), per_character=LIFTED).steps == steps[5_000]  # counted, not timed: the same every time


def test_the_count_is_the_parser_s_real_work():
    """A flood of brackets is work (each ``[`` opens a link to look for), plain words of the same
    length next to none: the counter sees the difference."""
    brackets, words = render("[" * 10_000, per_character=LIFTED).steps, render("word " * 2_000).steps
    assert brackets >= 10 * 10_000 > 100 * words


def test_the_tokens_passed_over_looking_for_a_link_s_end_are_counted():
    """At each ``[`` the parser looks ahead for its ``]``, token by token, through up to 20 nested
    brackets: most of a bracket flood's time (``[a`` x 10,000 took 11-17 ms a kilobyte while it counted
    10.7 steps a character, as cheap as 20,000 ``<``, 3 ms a kilobyte). Each token passed over is a step."""
    looked_ahead, angles = render("[a" * 5_000, per_character=LIFTED).steps, render("<" * 10_000, per_character=LIFTED).steps
    assert looked_ahead > 2.5 * angles  # 10,000 characters each: 30.8 steps a character against 10
    with pytest.raises(NoteRefused):
        render("[a" * (MAX_LENGTH // 2))


# --- real notes are kept with room to spare, the floods refused ---------------------------------------------


@pytest.mark.parametrize("kind", list(REAL))
def test_real_notes_are_kept_with_room_to_spare(kind):
    """Notes as a table writes them, a few kilobytes each and a 20,000-character chronicle: each
    within three quarters of its steps, so that the bound cannot be tightened enough to refuse one
    without this test saying so."""
    build, length = REAL[kind]
    text = build(length)
    assert length * 0.95 <= len(text) <= length
    rendered = render(text)
    assert len(text) / 10 < rendered.steps <= 0.75 * steps_allowed(text), (kind, rendered.steps / len(text))
    assert rendered.html.startswith("<") and "&lt;" not in rendered.html


def test_a_chronicle_at_the_length_limit_is_written(campaign, gm):
    build, length = REAL["a campaign's chronicle"]
    note = note_write(campaign, audience="public", text=build(length), by=gm)
    assert length == MAX_LENGTH and len(note.text) > MAX_LENGTH - 10
    html = Note.objects.get(pk=note.pk).html
    assert html.count("<h3>") > 20 and "<table>" in html and "<blockquote>" in html and '<a href="https://regnal' in html


@pytest.mark.long
@pytest.mark.parametrize("shape", list(REFUSED))
def test_the_floods_are_refused_saying_what_to_change(campaign, gm, shape):
    text = REFUSED[shape](MAX_LENGTH)
    with pytest.raises(NoteRefused) as refused:
        render(text)
    if shape in IN_TABLE:
        assert refused.value.fields == {"text": "a table with too many cells"}
        assert "Give each row its cells, or make the table smaller" in refused.value.message
    else:
        mark, count = Counter(c for c in text if c in "[]!*_^").most_common(1)[0]
        assert refused.value.fields == {"text": "too intricate"}
        assert f"more than {STEPS_PER_CHARACTER} steps" in refused.value.message
        assert f"It has {count:,} “{mark}”" in refused.value.message and "Close the brackets" in refused.value.message
    with pytest.raises(RuleError, match=re.escape(refused.value.message)):
        note_write(campaign, audience="gm", text=text, by=gm)
    assert not Note.objects.exists()


# --- the worst shapes are stored, and no read renders them -----------------------------------------------


@pytest.fixture
def worst_notes(campaign, gm, alice) -> dict[str, Note]:
    """A 20,000-character note of each worst shape the bound keeps: the first written by England's
    player on his own house, the second by the GM on the campaign, the others by the GM on characters."""
    england = house(campaign, "England")
    people = iter(Character.objects.filter(campaign=campaign).order_by("pk"))
    written = {}
    for i, (shape, build) in enumerate(KEPT.items()):
        text = build(MAX_LENGTH)
        if i == 0:
            written[shape] = note_write(campaign, audience="player", text=text, dynasty=england, by=alice)
        elif i == 1:
            written[shape] = note_write(campaign, audience="public", text=text, by=gm)
        else:
            written[shape] = note_write(campaign, audience="gm", text=text, character=next(people), by=gm)
    return written


@pytest.mark.long
def test_the_worst_shapes_are_stored_and_no_read_renders_them(campaign, gm, alice, client, worst_notes, no_rendering):
    for shape, note in worst_notes.items():
        stored = Note.objects.get(pk=note.pk)
        assert stored.text == KEPT[shape](MAX_LENGTH).strip() and stored.html, shape
    flood = worst_notes["[abc  x n/5"]  # the worst bracket flood kept, on the player's own house
    assert flood.html == "<p>" + KEPT["[abc  x n/5"](MAX_LENGTH).strip() + "</p>"
    assert worst_notes["< x n"].html == "<p>" + "&lt;" * MAX_LENGTH + "</p>"
    england = house(campaign, "England")
    for user in (alice, gm):  # his own house's page, and the GM's view of it
        client.force_login(user)
        page = client.get(reverse("pages:dynasty", args=[campaign.slug, england.pk]))
        assert page.status_code == 200 and flood.html in page.content.decode()
    for note in worst_notes.values():  # the GM's notes on characters, and the campaign's on the dashboard
        if note.character_id:
            page = client.get(reverse("pages:character", args=[campaign.slug, note.character_id]))
        elif note.dynasty_id is None:
            page = client.get(reverse("pages:dashboard", args=[campaign.slug]))
        else:
            continue
        assert page.status_code == 200 and note.html in page.content.decode()
    found = client.get(reverse("pages:search", args=[campaign.slug]), {"q": "item", "kind": "notes"})
    assert found.status_code == 200 and "note-found" in found.content.decode()
    for user in (alice, gm):  # the API's list and one note
        api = APIClient()
        api.force_login(user)
        listed = api.get(f"/api/v1/campaigns/{campaign.slug}/notes/")
        assert listed.status_code == 200
        by_id = {n["id"]: n for n in listed.json()["results"]}
        assert by_id[flood.pk]["html"] == flood.html and by_id[flood.pk]["text"] == flood.text
        one = api.get(f"/api/v1/campaigns/{campaign.slug}/notes/{flood.pk}/")
        assert one.status_code == 200 and one.json()["html"] == flood.html
    found = api.get(f"/api/v1/campaigns/{campaign.slug}/search/", {"q": "item", "kind": "notes"})
    assert found.status_code == 200 and found.json()["groups"]


def test_the_export_carries_no_html_and_the_import_renders_again(campaign, gm, alice):
    note_write(campaign, audience="player", text="<" * MAX_LENGTH, dynasty=house(campaign, "England"), by=alice)
    note_write(campaign, audience="public", text="|a|b|\n|-|-|\n|*c*|d|", by=gm)
    document = campaign_export(campaign)
    assert document["notes"] and all(set(n) == {"character", "dynasty", "audience", "text"} for n in document["notes"])
    Note.objects.filter(campaign=campaign).update(html="")  # what the import makes is not copied from here
    copy = campaign_import(json.loads(json.dumps(document)), by=gm)
    assert sorted(Note.objects.filter(campaign=copy).values_list("text", "html")) == [
        ("<" * MAX_LENGTH, "<p>" + "&lt;" * MAX_LENGTH + "</p>"),
        ("|a|b|\n|-|-|\n|*c*|d|", render("|a|b|\n|-|-|\n|*c*|d|").html),
    ]
    assert "<td><em>c</em></td>" in Note.objects.get(campaign=copy, audience="public").html


# --- the bound: what cannot be laid out is refused, saying what to change ------------------------------------


TABLE_TOO_WIDE = "|a" * 3_000 + "\n" + "|-" * 3_000 + "\n" + "|\n" * 3_999
"""3,000 columns, 4,000 rows of one character each: the parser would fill in 12 million empty cells
(markdown-it-py stops at 65,536: 200,000 tokens, 0.9 s, for 20,000 characters)."""


def test_a_table_wider_than_its_rows_is_refused(campaign, gm):
    assert len(TABLE_TOO_WIDE) <= MAX_LENGTH
    with pytest.raises(NoteRefused, match="A table in the note has too many cells for its length") as refused:
        render(TABLE_TOO_WIDE)
    assert refused.value.fields == {"text": "a table with too many cells"}
    with pytest.raises(RuleError, match="Give each row its cells"):
        note_write(campaign, audience="gm", text=TABLE_TOO_WIDE, by=gm)
    assert not Note.objects.exists()
    filled = "| year | gold |\n|---|---|\n" + "| 1320 | 15 |\n" * 2_000  # the same length, every cell written: stored
    assert note_write(campaign, audience="gm", text=filled[:MAX_LENGTH], by=gm).html.count("<td>") > 2_500


def test_what_nests_deeper_than_the_layout_is_refused(campaign, gm):
    deepest = ">" * MAX_DEPTH + " the deepest words"
    assert "the deepest words" in render(deepest).html  # at the limit nothing is lost
    lists = "".join("  " * d + f"- level {d}\n" for d in range(MAX_DEPTH))
    assert f"level {MAX_DEPTH - 1}" in render(lists).html
    for too_deep in (">" + deepest, lists + "  " * MAX_DEPTH + "- one more\n", "> " * 30 + "lost"):
        with pytest.raises(NoteRefused, match=f"nest \\d+ deep; at most {MAX_DEPTH}") as refused:
            render(too_deep)
        assert refused.value.fields == {"text": "nested too deep"}
    with pytest.raises(RuleError, match="Take some “>”"):
        note_write(campaign, audience="gm", text=">" * 20_000, by=gm)
    assert not Note.objects.exists()


def test_a_note_over_its_steps_is_refused_naming_its_commonest_mark():
    with pytest.raises(NoteRefused, match="It has 20,000 “\\[”") as refused:
        render("[" * MAX_LENGTH)
    assert refused.value.fields == {"text": "too intricate"} and "\\[" in refused.value.message
    assert render("plain words " * 1_000).html.startswith("<p>plain words")
    assert render("[" * 500).html == "<p>" + "[" * 500 + "</p>"  # a short one is kept: STEPS_BASE


def test_a_refused_note_is_not_saved_from_the_page_nor_the_api(campaign, gm, alice, client):
    england = house(campaign, "England")
    client.force_login(alice)
    answer = client.post(
        reverse("pages:note_save", args=[campaign.slug]),
        {"on": "dynasty", "id": england.pk, "audience": "player", "text": TABLE_TOO_WIDE},
        follow=True,
    )
    assert "The note was not saved: A table in the note" in answer.content.decode()
    api = APIClient()
    api.force_login(alice)
    body = {"dynasty": england.pk, "audience": "player", "text": "> " * 12 + "deep"}
    refused = api.post(f"/api/v1/campaigns/{campaign.slug}/notes/", body, format="json")
    assert refused.status_code == 400 and refused.json()["fields"] == {"text": "nested too deep"}
    flood = "[" * MAX_LENGTH  # issue 30's note
    answer = client.post(
        reverse("pages:note_save", args=[campaign.slug]),
        {"on": "dynasty", "id": england.pk, "audience": "player", "text": flood},
        follow=True,
    )
    assert "The note was not saved: The note is too intricate to show" in answer.content.decode()
    refused = api.post(f"/api/v1/campaigns/{campaign.slug}/notes/", {**body, "text": flood}, format="json")
    assert refused.status_code == 400 and refused.json()["fields"] == {"text": "too intricate"}
    assert refused.json()["code"] == "note_too_intricate" and "It has 20,000 “[”" in refused.json()["message"]
    assert not Note.objects.exists()


def test_the_import_refuses_a_note_the_renderer_refuses(campaign, gm):
    note_write(campaign, audience="public", text="Fine", by=gm)
    document = campaign_export(campaign)
    for text, problem in (
        ("> " * 12 + "deep", "nest 12 deep"),
        ("[" * MAX_LENGTH, "too intricate to show"),
        ("x" * (MAX_LENGTH + 1), "a note is at most 20000"),
    ):
        document["notes"][0]["text"] = text
        with pytest.raises(InvalidImport, match=f"notes\\[0\\]\\.text: .*{problem}"):
            campaign_import(json.loads(json.dumps(document)), by=gm)
    assert Campaign.objects.count() == 1


# --- undo puts a note back with its HTML ------------------------------------------------------------------------


def test_undo_puts_back_the_text_and_its_html_together(campaign, gm):
    note = note_write(campaign, audience="gm", text="**before**", by=gm)

    def overwrite(locked: Campaign) -> None:  # a step that changes the note (raw, as a restore would)
        Note.objects.filter(pk=note.pk).update(text="after", html="<p>after</p>")

    step_action(campaign=campaign, key=new_action_key(), label="Births", action=overwrite, by=gm)
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    back = Note.objects.get(pk=note.pk)
    assert (back.text, back.html) == ("**before**", "<p><strong>before</strong></p>")


# --- the migration renders the notes written before it ------------------------------------------------------


def test_the_migration_gives_the_notes_already_written_their_html(campaign, gm):
    """Notes written before 0017 get their HTML (the column came empty), and so do the rows undo would
    put back: an undo across the migration restores a note with its HTML, though the change log's
    images of it were taken without one. (The suite's SQLite tables are made from the models, so the
    migration's function runs here on today's tables, as the project's other data migrations do.)"""
    older = note_write(campaign, audience="public", text="old *words*", by=gm)
    step_action(  # a step that changed the note: its image, as it was, is in the change log
        campaign=campaign,
        key=new_action_key(),
        label="Births",
        action=lambda locked: Note.objects.filter(pk=older.pk).update(text="changed", html="<p>changed</p>"),
        by=gm,
    )
    written = Note.objects.create(campaign=campaign, audience="gm", text="> quoted\n\n- a list")
    deep = Note.objects.create(campaign=campaign, audience="player", text="> " * 30 + "kept <b>")
    change = UndoChange.objects.get(table=Note._meta.db_table, row_id=older.pk)
    image = json.loads(change.old)
    del image["html"]  # as the change log held it before the column existed
    UndoChange.objects.filter(pk=change.pk).update(old=json.dumps(image))
    Note.history.update(html="")  # the audit trail's rows got the empty column too
    point = Checkpoint.objects.get(campaign=campaign)
    copy = {"campaign": {}, "dynasties.Note": [[older.pk, campaign.pk, None, None, "public", "a *copy*"]]}
    Checkpoint.objects.filter(pk=point.pk).update(
        redo=zlib.compress(
            json.dumps({"campaign": {}, "rows": {Note._meta.db_table: {str(older.pk): json.dumps(image)}}}).encode()
        )
    )
    older_point = Checkpoint.objects.create(  # a checkpoint from before issue 18: a whole copy of the campaign
        campaign=campaign,
        year=campaign.current_year - 40,
        step="births",
        label="old",
        data=zlib.compress(json.dumps(copy).encode()),
    )

    importlib.import_module("dynasties.migrations.0017_note_html").fill_html(apps, None)

    assert Note.objects.get(pk=written.pk).html == render("> quoted\n\n- a list").html
    assert "<blockquote>" in Note.objects.get(pk=written.pk).html
    assert Note.objects.get(pk=deep.pk).html == "<p>" + "&gt; " * 30 + "kept &lt;b&gt;</p>"  # refused now: shown plain
    assert {h.html for h in Note.history.filter(id=older.pk)} == {"<p>old <em>words</em></p>"}  # the trail's rows too
    assert json.loads(UndoChange.objects.get(pk=change.pk).old)["html"] == "<p>old <em>words</em></p>"
    redo = json.loads(zlib.decompress(Checkpoint.objects.get(pk=point.pk).redo))["rows"][Note._meta.db_table]
    assert json.loads(redo[str(older.pk)])["html"] == "<p>old <em>words</em></p>"
    copied = json.loads(zlib.decompress(Checkpoint.objects.get(pk=older_point.pk).data))["dynasties.Note"]
    assert copied == [[older.pk, campaign.pk, None, None, "public", "a *copy*", "<p>a <em>copy</em></p>"]]
    Checkpoint.objects.filter(pk=older_point.pk).delete()
    Checkpoint.objects.filter(pk=point.pk).update(redo=None)
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    back = Note.objects.get(pk=older.pk)
    assert (back.text, back.html) == ("old *words*", "<p>old <em>words</em></p>")


def test_the_migration_keeps_the_bound_it_was_written_with(monkeypatch):
    """0017 renders with its own bound (12 steps a character and 20,000), frozen in it: a later change
    of the app's bound, either way, does not change which old notes it shows plain."""
    migration = importlib.import_module("dynasties.migrations.0017_note_html")
    assert (migration.STEPS_PER_CHARACTER, migration.STEPS_BASE) == (12, 20_000)
    flood, italics = "[" * 5_000, short_italic_lines(6_000)  # over the frozen bound, and well within it
    for per_character, base in ((1, 0), (LIFTED, LIFTED)):
        monkeypatch.setattr(notes, "STEPS_PER_CHARACTER", per_character)
        monkeypatch.setattr(notes, "STEPS_BASE", base)
        assert migration.html_of(flood) == plain(flood) == "<p>" + flood + "</p>"
        assert migration.html_of(italics) == render(italics, per_character=12, base=20_000).html
        assert migration.html_of(italics).count("<em>") > 1_000
