# The kernel knows no game (issue 35): whom a roll was rolled for moves to the dynasties
# (dynasties 0024_rollsubject_from_the_kernel), its table and rows kept as they are.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0022_invariants_carry_their_messages"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(model_name="roll", name="characters"),
                migrations.DeleteModel(name="RollSubject"),
            ],
            database_operations=[],
        ),
    ]
