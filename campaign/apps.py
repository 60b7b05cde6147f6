from django.apps import AppConfig


class CampaignConfig(AppConfig):
    name = "campaign"
    verbose_name = "Campaigns"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_migrate

        from campaign import accounts, changelog, checks, integrity  # noqa: F401

        self.register_models()
        accounts.connect()
        integrity.connect()  # nothing of one campaign links into another (campaign.integrity)
        connection_created.connect(changelog.connect_function, dispatch_uid="campaign.changelog.connect_function")
        post_migrate.connect(changelog.install_triggers, sender=self, dispatch_uid="campaign.changelog.install_triggers")
        post_migrate.connect(integrity.install_guards, sender=self, dispatch_uid="campaign.integrity.install_guards")

    def register_models(self) -> None:
        """The kernel's models in the registry (campaign.registry)."""
        from campaign import models as m
        from campaign import registry as r

        r.exempt(m.Campaign, "the campaign itself: undo restores a few of its columns (campaign.undo.CAMPAIGN_FIELDS)")
        r.exempt(m.Membership, "who plays whom: the table, not the game; undo keeps it", campaign_path="campaign", sees=r.MEMBERS)
        r.register(m.RuleTable, "campaign", sees=r.MEMBERS)
        r.register(m.Roll, "campaign", sees=r.MEMBERS)
        r.register(m.ChronicleEntry, "campaign", sees=r.AUDIENCE)
        r.exempt(m.Checkpoint, "undo's own copies of the campaign")
        r.exempt(m.UndoChange, "undo's change log: the rows a step changed, as they were")
        r.exempt(m.ActionKey, "the one-time keys of the forms already sent; an undo must not forget them")
        r.exempt(m.AccountName, "what an account's username looks like (campaign.accounts): the site's, not a campaign's")
        r.exempt(m.Job, "background work on the campaign (campaign.jobs): not the game", campaign_path="campaign")
