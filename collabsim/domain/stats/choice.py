"""Choosing the analysis of a statistical query, and the plan for a task.

API (stable names):

* :func:`column_kind(column)` - ``binary``, ``categorical``, ``id`` or ``numeric``, from a
  column's name and description (what the metadata says; the cell re-checks the data);
* :func:`choose_analysis(...)` - one of :data:`~collabsim.domain.stats.model.ANALYSES` by
  the variables' kinds, what the query asks and the task's ``workflow_tags``;
* :func:`candidate_predictors(brief, target)` - the columns a "which factor matters most"
  query compares (numeric, not identifiers, not the target's own family);
* :func:`plan_for(brief)` - the :class:`~collabsim.domain.stats.model.StatPlan` of a task
  brief (None when no target column can be found);
* :func:`plan_from_query(brief, query)` - the same from an already read
  :class:`~collabsim.domain.stats.reading.StatQuery` (a reader with its own reading).

A ``variables`` question (``question_type``) naming a target but no predictor compares every
candidate predictor, as "which factors ...?" does.

Rules: a binary target gets a logistic regression (``logit``); a categorical target with
several levels a chi-square test against a categorical predictor, else an ANOVA of the
predictor across the target's groups; a single binary / categorical predictor of a numeric
target with no controls a t-test / ANOVA when the query asks for a difference and the tags
do not ask for a regression; "correlation" between two numeric columns a Pearson
correlation; a proportion question without predictors a proportion with a bootstrap
interval; no predictor at all: summary statistics; otherwise OLS.
"""

from __future__ import annotations

import re
from typing import Any

from collabsim.domain.stats.columns import is_wide, table_columns, tokens, wide_value_name
from collabsim.domain.stats.model import TABLE_SEPARATOR, StatPlan
from collabsim.domain.stats.reading import StatQuery, all_columns, held_fix, read_query

KINDS: tuple[str, ...] = ("numeric", "binary", "categorical", "id")

_BINARY_DESC = re.compile(
    r"\b(?:boolean|binary|dummy|indicator|flag|whether|true or false|true/false|yes or no|"
    r"yes/no|equals? 1 if|1 if|0 or 1|1 or 0|presence or absence)\b"
    r"|\b[01]\s*=\s*[\w-]+\s*[,;/]\s*[01]\s*=\s*[\w-]+", re.I)
_BINARY_NAME = re.compile(r"^(?:is|has|was|had|uses|did|does)_|_(?:present|occurred|flag|"
                          r"majority|available|indicator|dummy|yn|bool)$", re.I)
_CATEGORICAL_DESC = re.compile(
    r"\b(?:categor\w*|type of|types of|classification|class of|genre|one of|values include|"
    r"labels?|name of|group of|style of|level \((?:low|high))\b|\([A-Z]+ or [A-Z]+\)"
    r"|\bcodes? \d+(?:, \d+)+,? or \d+\b", re.I)
_CATEGORICAL_NAME = re.compile(r"(?:_type|_name|_group|_category|_genre|_style|_zone|_slot|"
                               r"^gender|^sex|^race|day_of_week|_origin|_preference)$", re.I)
_ID_NAME = re.compile(r"(?:^id$|_id$|^id_|^ID#|identifier)", re.I)
_ID_DESC = re.compile(r"\b(?:identifier|unique id|id number|code for the|sample identification)\b",
                      re.I)
_COORD = re.compile(r"^(?:lat|long|lon|latitude|longitude)$", re.I)
_REGRESSION_TAG = re.compile(r"regression", re.I)


def column_kind(column: Any) -> str:
    """A column's kind from its name and description (see :data:`KINDS`)."""
    name, desc = column.name, column.description or ""
    if _ID_NAME.search(name) or _ID_DESC.search(desc) or _COORD.match(name):
        return "id"
    if _BINARY_NAME.search(name) or _BINARY_DESC.search(desc):
        return "binary"
    if _CATEGORICAL_NAME.search(name) or _CATEGORICAL_DESC.search(desc):
        return "categorical"
    return "numeric"


def choose_analysis(target_kind: str, predictor_kinds: tuple[str, ...], asks: frozenset[str],
                    workflow_tags: str = "", has_controls: bool = False) -> str:
    """The analysis for a target / predictors of these kinds and this question."""
    regression = bool(_REGRESSION_TAG.search(workflow_tags or ""))
    if not predictor_kinds:
        return "proportion" if target_kind == "binary" else "summary"
    single = predictor_kinds[0] if len(predictor_kinds) == 1 and not has_controls else ""
    if target_kind == "categorical":
        return "chi2" if single in ("categorical", "binary") else "anova"
    if target_kind == "binary":
        return "chi2" if single == "categorical" and not regression else "logit"
    analysis = "ols"
    if single and not regression:
        if "difference" in asks and single in ("binary", "categorical"):
            analysis = "ttest" if single == "binary" else "anova"
        elif "correlation" in asks and single == "numeric":
            analysis = "correlation"
    return analysis


def _kinds(brief: Any) -> dict[str, str]:
    return {c.name: column_kind(c) for c in all_columns(brief)}


def candidate_predictors(brief: Any, target: str, exclude: tuple[str, ...] = ()) -> list[str]:
    """Columns a "which factor matters most" query compares with each other: numeric or
    binary columns of the target's table that are not identifiers or coordinates and do not
    share the target's name prefix (``BAMM_speciation`` excludes ``BAMM_extinction``)."""
    kinds = _kinds(brief)
    info = next((d for d in brief.datasets
                 if any(c.name == target for c in table_columns(d))), None)
    if info is None:
        return []
    prefix = target.split("_")[0].lower() if "_" in target else ""
    target_stems = set(tokens(target))
    out = []
    for column in table_columns(info):
        name = column.name
        if name == target or name in exclude or kinds.get(name) in ("id", "categorical"):
            continue
        if prefix and name.lower().startswith(prefix + "_"):
            continue
        if target_stems and target_stems <= set(tokens(name)):
            continue
        out.append(name)
    return out


def _dataset_for(brief: Any, columns: list[str]) -> tuple[str, frozenset[str]]:
    """The tables holding the columns, and the columns they hold.

    Several tables are joined by :data:`TABLE_SEPARATOR` when the columns spread over them
    (the cell merges them on their shared columns), but only tables that share a column
    with the first column's table or with another table joined to it (directly or through
    a third table, in the order they link up: the order the cell merges them): rows of tables with
    no key in common are never paired by position, so a column only such a table holds is
    left out of the analysis (it is answered from the joined tables alone).
    """
    held = {info.name: {c.name for c in table_columns(info)} for info in brief.datasets}
    names: list[str] = []
    for column in columns:
        owner = next((name for name, cols in held.items() if column in cols), None)
        if owner is not None and owner not in names:
            names.append(owner)
    if not names and brief.datasets:
        names = [brief.datasets[0].name]
    joined, have = names[:1], set(held.get(names[0], set())) if names else set()
    pending = names[1:]
    grew = True
    while grew:  # a table may join through one joined after it: until nothing more joins
        grew = False
        for name in list(pending):
            if held.get(name, set()) & have:
                joined.append(name)
                have |= held[name]
                pending.remove(name)
                grew = True
    return TABLE_SEPARATOR.join(joined), frozenset(have)


def _group_controls(brief: Any, dataset: str, used: set[str]) -> list[str]:
    """For wide tables (a series per group and year, as the World Bank files): the group
    column as a control, unless the query already filters or compares by it - pooling the
    groups' series without it confounds levels with the relation."""
    names = dataset.split(TABLE_SEPARATOR)
    for info in brief.datasets:
        if info.name in names and is_wide(info):
            ids = [c.name for c in table_columns(info)
                   if c.name not in ("year", wide_value_name(info.name))]
            if ids and not set(ids) & used:
                return [ids[0]]
    return []


def plan_from_query(brief: Any, query: StatQuery) -> StatPlan | None:
    """The plan for a read query (None without a target column)."""
    if not query.target or not brief.datasets:
        return None
    kinds = _kinds(brief)
    predictors = list(query.predictors)
    held = held_fix(brief)
    question_type = (getattr(brief, "question_type", "") or "").lower()
    if "predictors" in held:
        pass  # a held fact names the predictors: no candidates are added
    elif "compare" in query.asks or not predictors and (
            "columns" in query.asks or question_type.startswith("variable")):
        # "which factors ...?" / a question about variables, or pointing at the data's
        # columns ("predicted using the provided dataset columns"), that names none: all
        for column in candidate_predictors(brief, query.target, exclude=query.controls):
            if column not in predictors:
                predictors.append(column)
    predictors = [p for p in predictors if kinds.get(p) != "id"]
    analysis = choose_analysis(kinds.get(query.target, "numeric"),
                               tuple(kinds.get(p, "numeric") for p in predictors), query.asks,
                               getattr(brief, "workflow_tags", "") or "",
                               bool(query.controls))
    analysis = held.get("analysis", analysis)  # a held fact on the analysis wins
    interaction = query.interaction if analysis in ("ols", "logit") else ""
    if interaction and (not predictors or interaction == predictors[0]
                        or interaction == query.target):
        interaction = ""  # an interaction needs a first predictor besides it
    if analysis in ("correlation", "ttest", "chi2", "anova") and "predictors" not in held:
        predictors = predictors[:1]
    controls = [c for c in query.controls if c not in predictors]
    used = [query.target, *predictors, *controls, *(f[0] for f in query.filters)]
    dataset, have = _dataset_for(brief, used)
    filters = query.filters
    if not set(used) <= have:  # columns of a table with no key in common: left out
        predictors = [p for p in predictors if p in have]
        controls = [c for c in controls if c in have]
        filters = tuple(f for f in filters if f[0] in have)
        interaction = interaction if interaction in have else ""
    if analysis in ("ols", "logit") and "controls" not in held:
        controls += _group_controls(brief, dataset, {*used, interaction})
    return StatPlan(dataset=dataset, target=query.target,
                    predictors=tuple(predictors),
                    controls=tuple(controls),
                    filters=filters, analysis=analysis, interaction=interaction)


def plan_for(brief: Any) -> StatPlan | None:
    """The statistical plan of a task brief: its query read (:func:`read_query`), the
    analysis chosen by the variables' kinds and the tags. None without a target column."""
    return plan_from_query(brief, read_query(brief))
