# The kernel knows no game (issue 35): the ledger's postings name the houses, their marriages and
# characters, so the model is the dynasties' now, on the table the kernel held it in
# (campaign_posting: rows, keys, index and constraints unchanged); only the state moves, and the
# content type follows it. The contract a posting paid under is the contracts' to keep
# (contracts 0007_contract_postings_from_the_ledger); campaign 0027 drops the kernel's column.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import campaign.invariants


def _move_content_type(apps, schema_editor, source="campaign", target="dynasties"):
    content_types = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not content_types.objects.using(db).filter(app_label=target, model="posting").exists():
        content_types.objects.using(db).filter(app_label=source, model="posting").update(app_label=target)


def _move_back(apps, schema_editor):
    _move_content_type(apps, schema_editor, source="dynasties", target="campaign")


KINDS = [
    ("wedding", "Bride's Charisma at a wedding"),
    ("monarch_match", "A match with a monarch"),
    ("dowry", "Dowry"),
    ("ransom", "Ransom"),
    ("buy_back", "Buying back a Pretender"),
    ("auction", "Aristocratic auction"),
    ("tax", "Taxation"),
    ("maintenance", "Maintenance of forces"),
    ("raising", "Raising forces"),
    ("rebellion", "Rebellions bought off or a capital's rebellion"),
    ("cash_in", "Resource sets cashed in"),
    ("title_income", "Title income (BloodLine)"),
    ("contract", "Contract payment"),
    ("damages", "Damages for breach"),
    ("transfer", "Gift or transfer"),
    ("loan", "Loan"),
    ("correction", "Correction (reversal)"),
    ("other", "Other"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0026_membership_seat_kept_by_a_player"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("dynasties", "0025_invitation_from_the_kernel"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Posting",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("year", models.IntegerField()),
                        ("step", models.CharField(max_length=20)),
                        ("amount", models.PositiveIntegerField()),
                        ("kind", models.CharField(choices=KINDS, max_length=20)),
                        ("reason", models.CharField(max_length=200)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="postings", to="campaign.campaign"
                            ),
                        ),
                        (
                            "character",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="dynasties.character",
                            ),
                        ),
                        (
                            "entered_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "marriage",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="dynasties.marriage",
                            ),
                        ),
                        (
                            "payee",
                            models.ForeignKey(
                                blank=True,
                                help_text="Empty: the Treasury receives.",
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="payments_received",
                                to="dynasties.dynasty",
                            ),
                        ),
                        (
                            "payer",
                            models.ForeignKey(
                                blank=True,
                                help_text="Empty: the Treasury pays.",
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="payments_made",
                                to="dynasties.dynasty",
                            ),
                        ),
                        (
                            "reverses",
                            models.OneToOneField(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="reversed_by",
                                to="dynasties.posting",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "campaign_posting",
                        "ordering": ["campaign", "id"],
                        "indexes": [models.Index(fields=["campaign", "year"], name="campaign_po_campaig_2c4ff2_idx")],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(("amount__gt", 0)),
                                name="posting_amount_positive",
                                violation_error_code="posting_amount_positive",
                                violation_error_message="An amount is more than 0, not {amount}.",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("payer__isnull", True), ("payee__isnull", True), _negated=True),
                                name="posting_not_treasury_to_itself",
                                violation_error_code="posting_not_treasury_to_itself",
                                violation_error_message="A posting has a house on one side at least: the treasury does not pay itself.",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("payer", models.F("payee")), _negated=True),
                                name="posting_two_accounts",
                                violation_error_code="posting_two_accounts",
                                violation_error_message="The payer and the payee are the same house: a posting is between two accounts.",
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
