"""Optional rule E (Event Cards) is a campaign setting since issue 33: Pretenders and bastards come
with it. A campaign that already has a Pretender or a bastard played the cards, so rule E is turned
on for it (docs/rulings.md, "Rule E for the campaigns made before it was a setting"); the others keep
their settings, and the GM may turn rule E on in the campaign's settings (the desk)."""

from django.db import migrations
from django.db.models import Q


def rule_e_where_cards_were_played(apps, schema_editor):
    from rules.errors import RuleError
    from rules.registry import get_ruleset  # the registry says which option brings the Pretenders

    Campaign = apps.get_model("campaign", "Campaign")
    Character = apps.get_model("dynasties", "Character")
    for campaign in Campaign.objects.order_by("pk"):
        try:
            option = get_ruleset(campaign.ruleset).pretenders_option
        except RuleError:  # an unknown ruleset: nothing to decide
            continue
        options = dict(campaign.optional_rules or {})
        if not option or options.get(option):
            continue
        played = Character.objects.filter(campaign_id=campaign.pk).filter(
            Q(pretender_of__isnull=False) | Q(legitimate=False)
        )
        if played.exists():
            options[option] = True
            campaign.optional_rules = options
            campaign.save(update_fields=["optional_rules"])


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0020_title_income"),
        ("dynasties", "0020_province_register"),
    ]

    operations = [migrations.RunPython(rule_e_where_cards_were_played, migrations.RunPython.noop)]
