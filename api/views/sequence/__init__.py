"""Actions of the Dynastic Sequence (issue 8), one module each: the turn, Births, Survival and the
succession decisions, the line of succession with "what if" (``lines`` is how a line is shown), and
the GM's undo.

Who acts (as the pages, ``docs/pages.md``): the GM for everyone; a player for his own dynasty's
couples (his house controls the husband or the wife), his own characters' survival and the
succession of the crown his house controls; an observer only reads. Every write is one
``run_action`` (``api.views.actions.act``); typed faces are checked against the campaign's
dice before the services see them (``InvalidDice``, 400 naming the field) and the server rolls
whatever is not typed. Each answer carries the rolls the action made and the chronicle lines the
caller may see. The odds and eligibility come from ``dynasties.services.sequence_view``."""
