"""What the whole-campaign operations play of each ruleset (issue 35): its demo and the automatic
player's law after the Dynastic Sequence (``operations.simulation.play_law``, the parts its summary
counts). One module per ruleset, registered by ``OperationsConfig.ready()``: the only modules of
``operations`` that import a ruleset's own module (``.importlinter``, "play packages"). What every
ruleset's turn shares (the Dynastic Sequence, the law's building blocks) stays in
``operations.simulation``; what the rules and the dynasties' plays answer is asked of them there."""
