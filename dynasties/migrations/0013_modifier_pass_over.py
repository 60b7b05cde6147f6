# The kind of a BloodLine pass-over is a field, no longer read off the modifier's reason.

from django.db import migrations, models


KINDS = {"prisoner": "prisoner", "married away": "married_away", "voluntary": "voluntary"}


def kinds_from_reasons(apps, schema_editor):
    """Existing combat maluses were written as '<claimant> passed over for <crown> (<kind>)'."""
    Modifier = apps.get_model("dynasties", "Modifier")
    for modifier in Modifier.objects.filter(kind="combat_malus", pass_over=""):
        for text, kind in KINDS.items():
            if modifier.reason.endswith(f"({text})"):
                modifier.pass_over = kind
                modifier.save(update_fields=["pass_over"])
                break


class Migration(migrations.Migration):

    dependencies = [
        ('dynasties', '0012_births_within_lives'),
    ]

    operations = [
        migrations.AddField(
            model_name='modifier',
            name='pass_over',
            field=models.CharField(blank=True, choices=[('prisoner', 'a prisoner of another country'), ('married_away', 'a woman married away'), ('voluntary', 'passed over by choice')], help_text='How the claimant was passed over (BloodLine); blank for a modifier of another cause.', max_length=20),
        ),
        migrations.RunPython(kinds_from_reasons, migrations.RunPython.noop),
    ]
