# The kernel knows no game (issue 35): the ledger's postings move to the dynasties
# (dynasties 0026_posting_from_the_kernel), their table and rows kept as they are. The contract a
# posting paid under is kept by the contracts now (contracts 0007_contract_postings_from_the_ledger,
# which copies the column first), so the column goes; then the kernel's state forgets the model.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0026_membership_seat_kept_by_a_player"),
        ("contracts", "0007_contract_postings_from_the_ledger"),
    ]

    operations = [
        migrations.RemoveField(model_name="posting", name="contract"),
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="Posting")], database_operations=[]),
    ]
