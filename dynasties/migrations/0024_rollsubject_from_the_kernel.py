# The kernel knows no game (issue 35): whom a roll was rolled for is the dynasties' model now, on the
# table the kernel held it in (campaign_rollsubject: rows, keys, indexes and constraint unchanged);
# only the state moves, and the content type follows it (its permissions with it).

import django.db.models.deletion
from django.db import migrations, models

import campaign.invariants


def _move_content_type(apps, schema_editor, source="campaign", target="dynasties"):
    content_types = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not content_types.objects.using(db).filter(app_label=target, model="rollsubject").exists():
        content_types.objects.using(db).filter(app_label=source, model="rollsubject").update(app_label=target)


def _move_back(apps, schema_editor):
    _move_content_type(apps, schema_editor, source="dynasties", target="campaign")


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0023_rollsubject_moves_to_dynasties"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("dynasties", "0023_reign_interim_titleholding_end_constraints"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="RollSubject",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("position", models.PositiveSmallIntegerField(default=0)),
                        (
                            "character",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="roll_subjects",
                                to="dynasties.character",
                            ),
                        ),
                        (
                            "roll",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="subjects", to="campaign.roll"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "campaign_rollsubject",
                        "ordering": ["roll", "position"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("roll", "character"),
                                name="rollsubject_once",
                                violation_error_code="rollsubject_once",
                                violation_error_message="This character is already a subject of this roll.",
                            )
                        ],
                    },
                    bases=(campaign.invariants.Invariants, models.Model),
                ),
                migrations.AddField(
                    model_name="character",
                    name="rolls",
                    field=models.ManyToManyField(
                        related_name="characters", through="dynasties.RollSubject", to="campaign.roll"
                    ),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(_move_content_type, _move_back, elidable=True),
    ]
