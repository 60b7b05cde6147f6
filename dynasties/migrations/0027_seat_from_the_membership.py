# The kernel knows no game (issue 35, item 4): a member's house leaves campaign.Membership for the
# dynasties' Seat (one row per seated membership, keyed by it). This makes the table and copies every
# campaign_membership.dynasty_id into it; campaign 0028 then drops the column (and, undone, copies the
# seats back before this one drops the table).

import django.db.models.deletion
from django.db import migrations, models

import dynasties.models


def _seats_from_memberships(apps, schema_editor):
    db = schema_editor.connection.alias
    memberships = apps.get_model("campaign", "Membership").objects.using(db)
    seat = apps.get_model("dynasties", "Seat")
    rows = memberships.filter(dynasty__isnull=False).values_list("pk", "campaign_id", "dynasty_id").order_by("pk")
    seat.objects.using(db).bulk_create(
        [seat(membership_id=pk, campaign_id=campaign, house_id=house) for pk, campaign, house in rows.iterator()],
        batch_size=500,
    )


# "A player plays a house" across the two tables, at commit (docs/rulings.md, "Seating the table and
# accounts"): PostgreSQL only; SQLite has no deferred triggers, and the services check it everywhere.
TRIGGER = """
CREATE OR REPLACE FUNCTION regnal_player_has_house() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    member bigint;
BEGIN
    IF TG_TABLE_NAME = 'campaign_membership' THEN member := NEW.id; ELSE member := OLD.membership_id; END IF;
    IF EXISTS (
        SELECT 1 FROM campaign_membership m
        WHERE m.id = member AND m.role = 'player'
          AND NOT EXISTS (SELECT 1 FROM dynasties_seat s WHERE s.membership_id = m.id)
    ) THEN
        RAISE EXCEPTION 'A player plays a dynasty: choose it (membership %).', member
            USING ERRCODE = 'check_violation', CONSTRAINT = 'membership_player_plays_a_house';
    END IF;
    RETURN NULL;
END;
$$;
CREATE CONSTRAINT TRIGGER membership_player_plays_a_house
    AFTER INSERT OR UPDATE OF role ON campaign_membership
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION regnal_player_has_house();
CREATE CONSTRAINT TRIGGER seat_of_a_player_kept
    AFTER DELETE OR UPDATE OF membership_id ON dynasties_seat
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION regnal_player_has_house();
"""

NO_TRIGGER = """
DROP TRIGGER IF EXISTS seat_of_a_player_kept ON dynasties_seat;
DROP TRIGGER IF EXISTS membership_player_plays_a_house ON campaign_membership;
DROP FUNCTION IF EXISTS regnal_player_has_house();
"""


def _trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRIGGER, params=None)


def _no_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(NO_TRIGGER, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0027_posting_moves_to_dynasties"),
        ("dynasties", "0026_posting_from_the_kernel"),
    ]

    operations = [
        migrations.CreateModel(
            name="Seat",
            fields=[
                (
                    "membership",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="seat",
                        serialize=False,
                        to="campaign.membership",
                    ),
                ),
                (
                    "campaign",
                    models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="campaign.campaign"),
                ),
                (
                    "house",
                    models.ForeignKey(
                        on_delete=dynasties.models.seat_freed_or_kept, related_name="seats", to="dynasties.dynasty"
                    ),
                ),
            ],
        ),
        # undone: campaign 0028 has copied the seats back already; the table goes with the model
        migrations.RunPython(_seats_from_memberships, migrations.RunPython.noop),
        migrations.RunPython(_trigger, _no_trigger),
    ]
