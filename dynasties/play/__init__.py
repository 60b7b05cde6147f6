"""The rulesets' play packages (issue 35): one sub-package per ruleset, a module per step, each
module implementing that step's protocol of ``dynasties.services.play_registry``. Every package's
``register()`` is called once by ``DynastiesConfig.ready()``, which holds the one list of them. Only
these packages import the rulesets' own modules (``rules.blood_royale``, ``rules.bloodline``,
``rules.eu_monarchs``); the public services ask ``play_of(campaign)``."""
