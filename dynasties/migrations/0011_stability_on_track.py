"""Stability lives on the board game's track, -3..+3 (issue 15, defect 5; docs/rulings.md): a crown
an older version left beyond it is brought back to the track's end, with a line in its Stability
history saying so (cause ``track``), so the history still adds up."""

from django.db import migrations

LOW, HIGH = -3, 3
REASON = "the Stability track runs -3..+3: brought back to its end"


def on_track(apps, schema_editor):
    Crown = apps.get_model("dynasties", "Crown")
    CrownEvent = apps.get_model("dynasties", "CrownEvent")
    for crown in Crown.objects.exclude(stability__range=(LOW, HIGH)).select_related("campaign").order_by("pk"):
        level = max(LOW, min(HIGH, crown.stability))
        CrownEvent.objects.create(
            campaign_id=crown.campaign_id, crown=crown, year=crown.campaign.current_year, kind="stability",
            delta=level - crown.stability, stability_after=level, reason=REASON, cause="track",
        )
        crown.stability = level
        crown.save(update_fields=["stability"])


class Migration(migrations.Migration):
    dependencies = [("dynasties", "0010_rederive")]

    operations = [migrations.RunPython(on_track, migrations.RunPython.noop)]
