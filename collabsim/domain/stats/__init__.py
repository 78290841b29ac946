"""The statistical-analysis family: tabular questions answered with a statistical test.

Beside the archaeology-style time series (:mod:`collabsim.domain.time_expr` and friends),
most DiscoveryBench tasks ask whether and how variables of a table are related: a regression
with controls, a group comparison, a correlation, a proportion. This package defines that
family once for every part of collabsim:

* :mod:`~collabsim.domain.stats.model` - the plan (:class:`StatPlan`: target, predictors,
  controls, filters, analysis) and the printed result (:class:`StatResult`) every part shares;
* :mod:`~collabsim.domain.stats.family` - ``family_of(brief)``: time series or statistics;
* :mod:`~collabsim.domain.stats.columns` - query words <-> columns (names, descriptions),
  similar-sounding alternatives, the long form of wide year tables;
* :mod:`~collabsim.domain.stats.reading` - ``read_query(brief)``: target, predictors,
  controls, population filters, moderators, proxies of the domain knowledge, what is asked
  (memoised per brief and facts held);
* :mod:`~collabsim.domain.stats.held` - the facts a participant holds, applied by the
  reading before the analysis is chosen;
* :mod:`~collabsim.domain.stats.choice` - ``plan_for(brief)``: the analysis by variable
  kinds, question and ``workflow_tags``;
* :mod:`~collabsim.domain.stats.cell` - ``stats_cell(plan)`` (the sandbox cell printing
  ``RESULT-STATS``), ``parse_stats_result(output)``, ``plan_of_cell(code)``;
* :mod:`~collabsim.domain.stats.wording` - ``word_hypothesis(result, ...)`` in
  DiscoveryBench gold style.

The scripted participants reach these through
:mod:`collabsim.participants.stats_reading` and the family dispatch of
``scripted_common.task_context``, ``cells.compute_cell`` / ``parse_cell_result`` and
``wording.draft_hypothesis``.

Like :mod:`collabsim.domain`, nothing here imports another collabsim package, so the sandbox
can import it cheaply.
"""
