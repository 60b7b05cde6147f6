"""Undo's change log no longer writes a flag row per action: the triggers ask the connection which
checkpoint it records into (SQLite: its function ``regnal_undo_checkpoint()``; PostgreSQL: the
transaction's setting ``regnal.undo_checkpoint``). The triggers are made again before the flag's
table goes (``post_migrate`` makes them again too)."""

from django.db import migrations


def triggers_again(apps, schema_editor):
    from campaign.changelog import install_triggers

    install_triggers(schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0024_invitation_moves_to_dynasties"),
    ]

    operations = [
        migrations.RunPython(triggers_again, migrations.RunPython.noop),
        migrations.DeleteModel(name="UndoRecording"),
    ]
