"""The data analysis scripted participants perform, as code cells they really execute.

Pipeline: :func:`~collabsim.participants.query.parse_query` reads the query's semantics
(variables via the domain's synonyms, relation, ordinal, bounded period) ->
:func:`~collabsim.participants.plan.resolve_plan` picks the dataset and columns ->
:class:`~collabsim.participants.plan.MistakeModel` may corrupt the plan (seeded, per
session) -> :func:`~collabsim.participants.cells.compute_cell` renders a pandas cell that
imports its table helpers from :mod:`collabsim.domain.analysis_helpers` and **prints** a
machine-readable ``RESULT`` line -> :func:`~collabsim.participants.cells.parse_result`
reads the printed output back -> :func:`~collabsim.participants.wording.draft_hypothesis`
words the answer in archaeology style. Answers are earned from the data: nothing here reads
gold hypotheses or reference graphs.

Unknown query kinds (PCA, relationships, other domains) get the ``describe`` relation: a cell
printing per-column extremes and a cautious descriptive hypothesis - never a crash.

This module gathers the four steps' public names in one place.
"""

from __future__ import annotations

from collabsim.domain.relations import ORDINAL_WORDS
from collabsim.domain.thresholds import PLATEAU_TOLERANCE, SUSTAIN_BINS, THRESHOLD
from collabsim.domain.time_expr import format_window, parse_window
from collabsim.participants.cells import (
    COMPUTE_MARK,
    INSPECT_MARK,
    AnalysisResult,
    compute_cell,
    inspect_cell,
    parse_result,
)
from collabsim.participants.plan import (
    MISTAKE_KINDS,
    RELATIONS,
    AnalysisPlan,
    MistakeModel,
    apply_mistakes,
    resolve_plan,
    stable_hash,
)
from collabsim.participants.query import QuerySemantics, parse_query
from collabsim.participants.wording import (
    draft_hypothesis,
    fallback_hypothesis,
    variable_phrase,
)

__all__ = [
    "COMPUTE_MARK", "INSPECT_MARK", "MISTAKE_KINDS", "ORDINAL_WORDS", "PLATEAU_TOLERANCE",
    "RELATIONS", "SUSTAIN_BINS", "THRESHOLD", "AnalysisPlan", "AnalysisResult", "MistakeModel",
    "QuerySemantics", "apply_mistakes", "compute_cell", "draft_hypothesis",
    "fallback_hypothesis", "format_window", "inspect_cell", "parse_query", "parse_result",
    "parse_window", "resolve_plan", "stable_hash", "variable_phrase",
]
