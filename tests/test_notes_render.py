"""A note is rendered once, when it is written, by a parser whose work is linear in the text, within a
bound (issue 30: 20,000 ``[`` hung a worker for 60 s on every read of the page). The worst shapes are
stored, no read renders them again, the parser's work is counted (``Rendered.steps``: deterministic,
so linearity is shown by counting, never by timing), and what cannot be laid out within the bound is
refused saying what to change. Figures in milliseconds: bench/notes.py."""

from __future__ import annotations

import importlib
import json
import zlib
from collections.abc import Callable

import pytest
from django.apps import apps
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import Campaign, Checkpoint, UndoChange
from campaign.undo import new_action_key, step_action, undo_step
from dynasties import notes
from dynasties.models import Character, Dynasty, Note
from dynasties.notes import MAX_DEPTH, MAX_LENGTH, NoteRefused, render, steps_allowed
from dynasties.services.notes import note_write
from operations.exchange import campaign_export, campaign_import
from rules.errors import InvalidImport, RuleError


def nested_lists(n: int) -> str:
    """Lists nested MAX_DEPTH deep, again and again."""
    lines = []
    while sum(map(len, lines)) < n:
        lines += ["  " * depth + f"- item {depth}\n" for depth in range(MAX_DEPTH)]
    return "".join(lines)[:n]


SHAPES: dict[str, Callable[[int], str]] = {
    "[": lambda n: "[" * n,
    "[*": lambda n: "[*" * (n // 2),
    "![": lambda n: "![" * (n // 2),
    "[](": lambda n: "[](" * (n // 3),
    "nested >": lambda n: ((">" * MAX_DEPTH + " quoted\n") * n)[:n],
    "nested lists": nested_lists,
    "nested emphasis": lambda n: "*" * (n // 2) + "a" + "*" * (n // 2 - 1),
    "*a": lambda n: "*a" * (n // 2),
    "<": lambda n: "<" * n,
    "<a": lambda n: "<a" * (n // 2),
    "`": lambda n: "`" * n,
    "`a": lambda n: "`a" * (n // 2),
    "table": lambda n: ("|a|b|\n|-|-|\n" + "|c|d|\n" * n)[:n],
}
"""The worst shapes found (bench/notes.py times them), each as a note of ``n`` characters."""


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


@pytest.mark.long
@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_work_grows_linearly_with_the_text(shape):
    build = SHAPES[shape]
    steps = {n: render(build(n)).steps for n in (5_000, 10_000, MAX_LENGTH)}
    for n in (5_000, 10_000):
        assert steps[2 * n] <= 2 * steps[n] + 100, (shape, steps)  # twice the text, at most twice the work
    assert steps[MAX_LENGTH] <= steps_allowed(build(MAX_LENGTH)), (shape, steps)
    assert render(build(5_000)).steps == steps[5_000]  # counted, not timed: the same every time


def test_the_count_is_the_parser_s_real_work():
    """A flood of brackets is work (each ``[`` opens a link to look for), plain words of the same
    length next to none: the counter sees the difference."""
    brackets, words = render("[" * 10_000).steps, render("word " * 2_000).steps
    assert brackets >= 10 * 10_000 > 100 * words


# --- the worst shapes are stored, and no read renders them -----------------------------------------------


@pytest.fixture
def worst_notes(campaign, gm, alice) -> dict[str, Note]:
    """A 20,000-character note of each worst shape: the first written by England's player on his own
    house, the second by the GM on the campaign, the others by the GM on characters, one each."""
    england = house(campaign, "England")
    people = iter(Character.objects.filter(campaign=campaign).order_by("pk"))
    written = {}
    for i, (shape, build) in enumerate(SHAPES.items()):
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
        assert stored.text == SHAPES[shape](MAX_LENGTH).strip() and stored.html, shape
    assert worst_notes["["].html == "<p>" + "[" * MAX_LENGTH + "</p>"
    assert worst_notes["<"].html == "<p>" + "&lt;" * MAX_LENGTH + "</p>"
    england = house(campaign, "England")
    flood = worst_notes["["]
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
    note_write(campaign, audience="player", text="[" * MAX_LENGTH, dynasty=house(campaign, "England"), by=alice)
    note_write(campaign, audience="public", text="|a|b|\n|-|-|\n|*c*|d|", by=gm)
    document = campaign_export(campaign)
    assert document["notes"] and all(set(n) == {"character", "dynasty", "audience", "text"} for n in document["notes"])
    Note.objects.filter(campaign=campaign).update(html="")  # what the import makes is not copied from here
    copy = campaign_import(json.loads(json.dumps(document)), by=gm)
    assert sorted(Note.objects.filter(campaign=copy).values_list("text", "html")) == [
        ("[" * MAX_LENGTH, "<p>" + "[" * MAX_LENGTH + "</p>"),
        ("|a|b|\n|-|-|\n|*c*|d|", render("|a|b|\n|-|-|\n|*c*|d|").html),
    ]
    assert "<td><em>c</em></td>" in Note.objects.get(campaign=copy, audience="public").html


# --- the bound: what cannot be laid out is refused, saying what to change ------------------------------------


TABLE_TOO_WIDE = "|a" * 3_000 + "\n" + "|-" * 3_000 + "\n" + "|\n" * 3_999
"""3,000 columns, 4,000 rows of one character each: the parser would fill in 12 million empty cells
(markdown-it-py stops at 65,536: 200,000 tokens, 0.9 s, for 20,000 characters)."""


def test_a_table_wider_than_its_rows_is_refused(campaign, gm):
    assert len(TABLE_TOO_WIDE) <= MAX_LENGTH
    with pytest.raises(NoteRefused, match="A table in the note would have far more cells") as refused:
        render(TABLE_TOO_WIDE)
    assert refused.value.fields == {"text": "a table too wide for its rows"}
    with pytest.raises(RuleError, match="Give each row its cells"):
        note_write(campaign, audience="gm", text=TABLE_TOO_WIDE, by=gm)
    assert not Note.objects.exists()
    filled = "|a|b|\n|-|-|\n" + "|c|d|\n" * 3_000  # the same length, every cell written: stored
    assert note_write(campaign, audience="gm", text=filled[:MAX_LENGTH], by=gm).html.count("<td>") > 5_000


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


def test_a_note_over_its_steps_is_refused_naming_its_commonest_mark(monkeypatch):
    monkeypatch.setattr(notes, "STEPS_PER_CHARACTER", 5)  # the bound, lowered: the bracket flood is over it
    with pytest.raises(NoteRefused, match="It has 20,000 “\\[”") as refused:
        render("[" * MAX_LENGTH)
    assert refused.value.fields == {"text": "too intricate"} and "\\[" in refused.value.message
    assert render("plain words " * 1_000).html.startswith("<p>plain words")


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
    assert not Note.objects.exists()


def test_the_import_refuses_a_note_the_renderer_refuses(campaign, gm):
    note_write(campaign, audience="public", text="Fine", by=gm)
    document = campaign_export(campaign)
    for text, problem in (("> " * 12 + "deep", "nest 12 deep"), ("x" * (MAX_LENGTH + 1), "a note is at most 20000")):
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
