"""Children an older version dated after their mother's death, or more than a year after their
father's, are dated again within their parents' lives (issue 15, defect 7; docs/rulings.md,
Births): the year moves earlier, to the mother's death year at the latest and at most a year after
the father's, and the child comes after the elder children of that year. The turn's birth record
(``BirthAttempt.child_birth_year``) follows. The ruling is copied here, as migrations keep the
logic of their day."""

from django.db import migrations

POSTHUMOUS_YEARS = 1


def _latest(mother_death, father_death):
    limits = [y for y in (mother_death, None if father_death is None else father_death + POSTHUMOUS_YEARS) if y is not None]
    return min(limits) if limits else None


def within_lives(apps, schema_editor):
    Character = apps.get_model("dynasties", "Character")
    BirthAttempt = apps.get_model("dynasties", "BirthAttempt")
    campaigns = Character.objects.order_by().values_list("campaign_id", flat=True).distinct()
    for campaign_id in sorted(set(campaigns)):
        people = {
            c["id"]: c for c in Character.objects.filter(campaign_id=campaign_id).values(
                "id", "birth_year", "birth_order", "father_id", "mother_id", "death_year"
            )
        }

        def new_year(c):
            mother, father = people.get(c["mother_id"]), people.get(c["father_id"])
            latest = _latest(mother["death_year"] if mother else None, father["death_year"] if father else None)
            return c["birth_year"] if latest is None else min(c["birth_year"], latest)

        moving = sorted(
            (c for c in people.values() if new_year(c) < c["birth_year"]),
            key=lambda c: (c["birth_year"], c["birth_order"], c["id"]),
        )
        if not moving:
            continue
        ids = {c["id"] for c in moving}
        taken = {}
        for c in people.values():
            if c["id"] not in ids:
                for parent in (c["father_id"], c["mother_id"]):
                    if parent is not None:
                        key = (parent, c["birth_year"])
                        taken[key] = max(taken.get(key, 0), c["birth_order"])
        for c in moving:
            year = new_year(c)
            parents = [p for p in (c["father_id"], c["mother_id"]) if p is not None]
            order = max((taken.get((p, year), 0) for p in parents), default=0) + 1
            for p in parents:
                taken[(p, year)] = order
            Character.objects.filter(pk=c["id"]).update(birth_year=year, birth_order=order)
            BirthAttempt.objects.filter(child_id=c["id"]).update(child_birth_year=year)


class Migration(migrations.Migration):
    dependencies = [("dynasties", "0011_stability_on_track")]

    operations = [migrations.RunPython(within_lives, migrations.RunPython.noop)]
