# The kernel knows no game (issue 35, item 4): a member's house is the dynasties' Seat now (dynasties
# 0027 made it and copied every campaign_membership.dynasty_id into it). The check "a player plays a
# dynasty" spanned this one row; across two tables it is the services' (docs/rulings.md, "Seating the table
# and accounts"), with a deferred trigger on PostgreSQL (dynasties 0027). Undone, the column comes back and
# the seats are copied into it before the check is restored.

from django.db import migrations
from django.db.models import OuterRef, Subquery



def _seats_back(apps, schema_editor):
    db = schema_editor.connection.alias
    seats = apps.get_model("dynasties", "Seat").objects.using(db)
    memberships = apps.get_model("campaign", "Membership").objects.using(db)
    house = seats.filter(membership_id=OuterRef("pk")).values("house_id")[:1]
    memberships.filter(pk__in=seats.values("membership_id")).update(dynasty_id=Subquery(house))


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0027_posting_moves_to_dynasties"),
        ("dynasties", "0027_seat_from_the_membership"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="membership", name="membership_player_has_dynasty"),
        migrations.RunPython(migrations.RunPython.noop, _seats_back),
        migrations.RemoveField(model_name="membership", name="dynasty"),
    ]
