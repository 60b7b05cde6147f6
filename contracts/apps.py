from django.apps import AppConfig


class ContractsConfig(AppConfig):
    name = "contracts"
    verbose_name = "Contracts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from contracts import subscribers

        self.register_models()
        subscribers.subscribe()  # the dynasties' events that end, start or pay contracts (campaign.events)

    def register_models(self) -> None:
        """The contracts' models in the kernel's registry (campaign.registry): a contract and what
        hangs on it are seen by its parties and the GM; a parley, what it made due, an excommunication
        and a claim to an area by every member."""
        from campaign import registry as r
        from contracts import models as m

        parties = r.HOUSES
        r.register(m.Contract, "campaign", audit=True, sees=parties, houses=("parties",))
        r.register(m.Contract.parties.through, "contract__campaign", sees=parties, houses=("contract__parties",))
        r.register(m.Clause, "contract__campaign", audit=True, sees=parties, houses=("contract__parties",))
        r.register(m.ContractSignature, "contract__campaign", audit=True, sees=parties, houses=("contract__parties",))
        r.register(m.ContractPayment, "campaign", sees=parties, houses=("contract__parties",))
        r.register(m.ContractPosting, "campaign", sees=r.HOUSES, houses=("posting__payer", "posting__payee"))  # as its posting
        r.register(m.Breach, "campaign", sees=parties, houses=("contract__parties",))
        r.register(m.Dispute, "campaign", sees=parties, houses=("breach__contract__parties",))
        r.register(m.DisputeTerm, "dispute__campaign", sees=parties, houses=("dispute__breach__contract__parties",))
        r.register(m.DisputeVote, "dispute__campaign", sees=parties, houses=("dispute__breach__contract__parties",))
        r.register(m.Parley, "campaign", sees=r.MEMBERS)
        r.register(m.ParleyVote, "parley__campaign", sees=r.MEMBERS)
        r.register(m.Excommunication, "campaign", sees=r.MEMBERS)
        r.register(m.Claim, "campaign", sees=r.MEMBERS)  # public at the table: the board shows claims
        r.register(m.Obligation, "campaign", sees=r.MEMBERS)  # a parley's decision, public as the parley
