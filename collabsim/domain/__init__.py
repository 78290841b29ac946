"""The archaeology-style analysis domain, defined once for every part of collabsim.

* :mod:`~collabsim.domain.time_expr` - years, centuries, millennia, BCE/CE, ranges, named
  periods, query windows and the years a claim names;
* :mod:`~collabsim.domain.variables` - the variable vocabulary (column stems, phrases,
  descriptions, synonyms, capital groups) and the lexicon that finds variables in text;
* :mod:`~collabsim.domain.relations` - relation words (increase, decrease, peak, ...),
  ordinals and per-variable directions;
* :mod:`~collabsim.domain.thresholds` - what counts as a significant change, a sustained
  plateau and a matching year;
* :mod:`~collabsim.domain.tables` - the CSV reader (decimal commas, ``;`` separators,
  cp1252);
* :mod:`~collabsim.domain.words` - English function words and the word stemmer every
  reader of free text uses (columns, judge, initiative classifier);
* :mod:`~collabsim.domain.analysis_helpers` - the table helpers analysis cells import in the
  sandbox.

The task generator, the scripted participants, the collaborators' claim checks, the judge,
the process metrics and the sandbox warm-up all read these modules. Nothing here imports
another collabsim package (this ``__init__`` imports nothing at all, so the sandbox can
import the helpers cheaply).
"""
