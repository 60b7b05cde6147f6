from django.apps import AppConfig


class DynastiesConfig(AppConfig):
    name = "dynasties"
    verbose_name = "Dynasties"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        self.register_plays()  # first: the table events' fields read the plays (the monarch tables' dice)
        from campaign.undo import count_losses_with
        from dynasties import table_events  # noqa: F401 (declares what the table records: campaign.table_events)
        from dynasties.trees import cache  # noqa: F401 (a render's file goes with its row)
        from dynasties.undo_losses import dynastic_losses

        self.register_models()
        count_losses_with(dynastic_losses)  # undo plans name the births, deaths and successions they take back

    def register_plays(self) -> None:
        """The one list of the rulesets' play packages (dynasties/play/): a fourth ruleset is one
        new package there and one entry here."""
        from dynasties.play import blood_royale, bloodline, eu_monarchs

        for package in (blood_royale, bloodline, eu_monarchs):
            package.register()

    def register_models(self) -> None:
        """The dynasties' models in the kernel's registry (campaign.registry): all public to members but
        the notes, each read by its own audience."""
        from django.db.models.signals import post_delete, post_save

        from campaign import registry as r
        from campaign.live import seat_changed
        from campaign.permissions import forget_seats
        from dynasties import models as m

        for model, path, audit in [
            (m.Dynasty, "campaign", False),
            (m.Character, "campaign", True),
            (m.Marriage, "campaign", True),
            (m.Reign, "campaign", False),
            (m.PassedOver, "reign__campaign", False),
            (m.BirthAttempt, "campaign", False),
            (m.Crown, "campaign", False),
            (m.Modifier, "campaign", False),
            (m.Renunciation, "campaign", False),
            (m.Title, "campaign", False),
            (m.TitleHolding, "title__campaign", False),
            (m.CrownEvent, "campaign", False),
            (m.ControlChange, "campaign", False),
            (m.MarriageOffer, "campaign", False),
            (m.Province, "campaign", False),  # the map is public at the table
        ]:
            r.register(model, path, audit=audit, sees=r.MEMBERS)
        r.register(m.Posting, "campaign", sees=r.HOUSES, houses=("payer", "payee"))  # an exchequer's: its house's
        r.register_ledger(m.Posting)  # the postings undo counts (campaign.undo)
        r.register(m.RollSubject, "roll__campaign", sees=r.MEMBERS)  # whom a roll of the kernel's log was for
        r.register_roll_subjects(m.record_roll_subjects)
        r.register(m.Portrait, "campaign", sees=r.MEMBERS)
        r.register(m.Note, "campaign", audit=True, sees=r.NOTES)  # public, its player's, the GM's
        r.register_houses(m.Dynasty)  # the kernel's houses (the ledger's accounts, a player's seat)
        r.register_seats(r.Seats(house="seat__house", free=m.free_seats, write=m.seat_write))  # a member's house
        for signal in (post_save, post_delete):  # a house given or taken is a seat written, as a membership is
            signal.connect(forget_seats, sender=m.Seat, dispatch_uid=f"dynasties.seat.forget.{signal is post_save}")
            signal.connect(seat_changed, sender=m.Seat, dispatch_uid=f"dynasties.seat.live.{signal is post_save}")
        r.exempt(
            m.Seat,
            "a member's house (who plays whom): the table, not the game, as the membership it keys; undo keeps it",
            campaign_path="campaign",
            sees=r.MEMBERS,
        )
        r.exempt(
            m.Invitation,
            "a link that seats someone at the table (dynasties.invitations): not the game, and its secret's hash must "
            "not leave in an export nor come back in an import; undo keeps it",
            campaign_path="campaign",
        )
        r.exempt(m.TreeRender, "the tree cache's index: renders redrawn from the rows at will, not campaign state")
