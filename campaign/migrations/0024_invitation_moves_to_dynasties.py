# The kernel knows no game (issue 35): an invitation names the house whose seat it offers, so it
# moves to the dynasties (dynasties 0025_invitation_from_the_kernel), its table and rows kept.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0023_rollsubject_moves_to_dynasties"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="Invitation")], database_operations=[]),
    ]
