# The kernel knows no game (issue 35): the ledger (dynasties.Posting, on the kernel's old table)
# may not point at the contracts, so the contracts keep which posting paid under which contract
# (ContractPosting), filled here from campaign_posting.contract_id, which campaign
# 0027_posting_moves_to_dynasties then drops; backwards, the column is filled again from the links.
# A contract payment's posting is the dynasties' model now (its column and key unchanged).

import django.db.models.deletion
from django.db import migrations, models

import campaign.invariants


def _links_from_the_ledger(apps, schema_editor):
    db = schema_editor.connection.alias
    postings = apps.get_model("campaign", "Posting")  # the kernel's state still has the column here
    links = apps.get_model("contracts", "ContractPosting")
    rows = postings.objects.using(db).filter(contract__isnull=False).order_by("pk")
    batch = [links(campaign_id=c, posting_id=p, contract_id=k) for p, c, k in rows.values_list("pk", "campaign_id", "contract_id")]
    links.objects.using(db).bulk_create(batch, batch_size=500)


def _links_back_to_the_ledger(apps, schema_editor):
    db = schema_editor.connection.alias
    postings = apps.get_model("campaign", "Posting")
    links = apps.get_model("contracts", "ContractPosting")
    for posting, contract in links.objects.using(db).order_by("posting_id").values_list("posting_id", "contract_id"):
        postings.objects.using(db).filter(pk=posting).update(contract_id=contract)


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0026_membership_seat_kept_by_a_player"),
        ("contracts", "0006_invariants_carry_their_messages"),
        ("dynasties", "0026_posting_from_the_kernel"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="contractpayment",
                    name="posting",
                    field=models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="contract_payment",
                        to="dynasties.posting",
                    ),
                ),
            ],
            database_operations=[],
        ),
        migrations.CreateModel(
            name="ContractPosting",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "campaign",
                    models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="campaign.campaign"),
                ),
                (
                    "contract",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="posting_links", to="contracts.contract"
                    ),
                ),
                (
                    "posting",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE, related_name="contract_link", to="dynasties.posting"
                    ),
                ),
            ],
            options={
                "ordering": ["campaign", "posting"],
            },
            bases=(campaign.invariants.Invariants, models.Model),
        ),
        migrations.RunPython(_links_from_the_ledger, _links_back_to_the_ledger),
    ]
