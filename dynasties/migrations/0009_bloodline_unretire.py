"""BloodLine has no retirement ("If her husband dies first, the wife is returned to her original
family", and she keeps rolling survival): the widows retired before that was fixed come back into
play in their birth house, and a retired Queen's reign goes on until she dies (issue 15)."""

from django.db import migrations


def unretire(apps, schema_editor):
    Character = apps.get_model("dynasties", "Character")
    changed = []
    for c in Character.objects.filter(status="retired", campaign__ruleset="eu-bloodline").order_by("pk"):
        c.status = "alive"
        if c.birth_dynasty_id is not None:
            c.controlled_by_id = c.birth_dynasty_id
        changed.append(c)
    Character.objects.bulk_update(changed, ["status", "controlled_by"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("dynasties", "0008_audience")]

    operations = [migrations.RunPython(unretire, migrations.RunPython.noop)]
