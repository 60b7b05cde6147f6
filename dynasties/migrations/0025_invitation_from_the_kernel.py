# The kernel knows no game (issue 35): an invitation names the house whose seat it offers, so it is
# the dynasties' model now, on the table the kernel held it in (campaign_invitation: rows, keys,
# indexes and constraints unchanged); only the state moves, and the content type follows it.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import campaign.invariants


def _move_content_type(apps, schema_editor, source="campaign", target="dynasties"):
    content_types = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not content_types.objects.using(db).filter(app_label=target, model="invitation").exists():
        content_types.objects.using(db).filter(app_label=source, model="invitation").update(app_label=target)


def _move_back(apps, schema_editor):
    _move_content_type(apps, schema_editor, source="dynasties", target="campaign")


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0024_invitation_moves_to_dynasties"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("dynasties", "0024_rollsubject_from_the_kernel"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Invitation",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("role", models.CharField(choices=[("player", "Player"), ("observer", "Observer")], max_length=10)),
                        (
                            "token_hash",
                            models.CharField(
                                editable=False, help_text="SHA-256 of the link's secret, hex.", max_length=64, unique=True
                            ),
                        ),
                        ("expires_at", models.DateTimeField()),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("used_at", models.DateTimeField(blank=True, null=True)),
                        ("revoked_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="invitations", to="campaign.campaign"
                            ),
                        ),
                        (
                            "created_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "dynasty",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="invitations",
                                to="dynasties.dynasty",
                            ),
                        ),
                        (
                            "used_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "campaign_invitation",
                        "ordering": ["campaign", "-created_at", "-id"],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(("role__in", ["player", "observer"])),
                                name="invitation_seat_valid",
                                violation_error_code="invitation_seat_valid",
                                violation_error_message="An invitation is to a player's or an observer's seat, not {role!r}.",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    models.Q(("role", "player"), ("dynasty__isnull", False)),
                                    models.Q(("role", "observer"), ("dynasty__isnull", True)),
                                    _connector="OR",
                                ),
                                name="invitation_player_has_dynasty",
                                violation_error_code="invitation_player_has_dynasty",
                                violation_error_message="A player's invitation names the dynasty to play; an observer's names none.",
                            ),
                        ],
                    },
                    bases=(campaign.invariants.Invariants, models.Model),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(_move_content_type, _move_back, elidable=True),
    ]
