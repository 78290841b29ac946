"""The statistical-analysis family: tabular questions answered with a statistical test.

Beside the archaeology-style time series (:mod:`collabsim.domain.time_expr` and friends),
most DiscoveryBench tasks ask whether and how variables of a table are related: a regression
with controls, a group comparison, a correlation, a proportion. This package defines that
family once for every part of collabsim:

* :mod:`~collabsim.domain.stats.model` - the plan (:class:`StatPlan`: target, predictors,
  controls, filters, analysis) and the printed result (:class:`StatResult`) every part shares.

Like :mod:`collabsim.domain`, nothing here imports another collabsim package, so the sandbox
can import it cheaply.
"""
