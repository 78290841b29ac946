"""Seeded statistical tasks with planted effects and one decisive fact each.

The statistical counterpart of :mod:`collabsim.tasks.generator`, in the spirit of
DiscoveryBench's synthetic split: each task is one folder ``synth/gen/stats_<i>/`` with
``metadata_0.json`` (one query, DiscoveryBench format: datasets with column descriptions,
``domain_knowledge``, ``workflow_tags``, the query's ``facts``) and ``data.csv``, a survey
table of one study domain (:mod:`collabsim.tasks.stats_vocabulary`) with one planted effect
(:mod:`collabsim.tasks.stats_generator_tables`: a confounded linear effect, a logistic
effect, a subgroup-only effect, a null effect, a group difference, an interaction, a
proportion, a correlation-or-slope convention, a confounded logistic effect). The gold
hypothesis goes to ``eval/answer_key_synth.csv`` (never into the metadata a participant
reads) and a reference workflow graph to ``reference_workflows/stats_<i>/0/0.json``; its
``completion`` records the right plan, its effect and the decoy plans of the typical
mistakes with theirs.

Every task has exactly one decisive fact (:mod:`collabsim.tasks.stats_generator_wording`)
whose absence leaves the query's best reading right only by chance. The same seed gives
byte-identical files; :func:`default_stats_suite_root` caches a suite per generator code
like :func:`collabsim.tasks.generator.default_suite_root`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from collabsim.core.knowledge import Fact
from collabsim.domain.stats.model import Effect, StatPlan, format_filters
from collabsim.tasks.stats_generator_fit import formula_of
from collabsim.tasks.stats_generator_tables import (
    DATA_FILE,
    FACT_TOPIC,
    SHAPES,
    PlantedStat,
    plant_stat_task,
)
from collabsim.tasks.stats_generator_wording import (
    QUESTION_TYPE,
    WORKFLOW_TAGS,
    number,
    word_stat_task,
)
from collabsim.tasks.suite_cache import (
    SuiteTask,
    cached_suite,
    code_fingerprint,
    write_suite,
)

STATS_GENERATOR = "collabsim.tasks.stats_generator"
STATS_GENERATOR_VERSION = "1"
STATS_N_TASKS = 36
SPLIT = "gen"
ANSWER_KEY = "answer_key_synth.csv"

__all__ = [
    "STATS_N_TASKS",
    "FACT_TOPIC",
    "SHAPES",
    "STATS_GENERATOR",
    "STATS_GENERATOR_VERSION",
    "GeneratedStatTask",
    "build_stats_task",
    "default_stats_suite_root",
    "generate_stats_suite",
    "stats_generator_fingerprint",
]


@dataclass(frozen=True)
class GeneratedStatTask:
    """One generated statistical task before it is written to disk."""

    dataset: str
    planted: PlantedStat
    metadata: dict[str, Any]
    gold: str
    reference: dict[str, Any]
    fact: Fact


def generate_stats_suite(root: Path, n_tasks: int = STATS_N_TASKS, seed: int = 0) -> Path:
    """Write a generated statistical suite in the DiscoveryBench synth layout.

    Args:
        root: Output folder (created; existing generated files are overwritten).
        n_tasks: Number of tasks (the shapes cycle, so 9 or more covers every shape).
        seed: Seed; the same seed gives byte-identical files.

    Returns:
        ``root``.
    """
    width = max(3, len(str(max(n_tasks - 1, 0))))
    tasks = (build_stats_task(index, seed, f"stats_{index:0{width}d}")
             for index in range(n_tasks))
    return write_suite(
        root,
        (SuiteTask(t.dataset, DATA_FILE, t.planted.csv_text, t.metadata, t.reference, t.gold)
         for t in tasks),
        ("synth", SPLIT), ANSWER_KEY,
        {"generator": STATS_GENERATOR, "generator_version": STATS_GENERATOR_VERSION,
         "seed": seed, "n_tasks": n_tasks},
    )


def build_stats_task(index: int, seed: int, dataset: str) -> GeneratedStatTask:
    """Build task ``index`` of the suite with ``seed`` (independent of the suite size).

    The shape cycles through :data:`SHAPES` with ``index + seed``; everything else is drawn
    from the task's own generator.
    """
    rng = np.random.default_rng([seed, index, 20261202])
    shape = SHAPES[(index + seed) % len(SHAPES)]
    planted = plant_stat_task(rng, shape)
    query, gold, fact = word_stat_task(rng, planted)
    metadata = _metadata(planted, query, fact)
    reference = _reference(f"{dataset}/0/0", planted, fact)
    return GeneratedStatTask(dataset, planted, metadata, gold, reference, fact)


def stats_generator_fingerprint() -> str:
    """The first 10 hex digits of the SHA-256 of the code that writes a statistical suite:
    its modules, the shared plan record and the fact record."""
    package = Path(__file__).resolve().parents[1]
    sources = [*sorted((package / "tasks").glob("stats_*.py")),
               package / "tasks" / "suite_cache.py",
               package / "domain" / "stats" / "model.py", package / "core" / "knowledge.py"]
    return code_fingerprint(sources)


def default_stats_suite_root(n_tasks: int = STATS_N_TASKS, seed: int = 0) -> Path:
    """Return the cached statistical suite, generating it once (atomically) when absent.

    The cache lives under ``$COLLABSIM_CACHE_DIR`` (default ``~/.cache/collabsim``) in
    ``generated_stats/v<version>-<code>-n<n>-s<seed>``, ``<code>`` being
    :func:`stats_generator_fingerprint`.
    """
    name = f"v{STATS_GENERATOR_VERSION}-{stats_generator_fingerprint()}-n{n_tasks}-s{seed}"
    return cached_suite("generated_stats", name,
                        lambda folder: generate_stats_suite(folder, n_tasks=n_tasks, seed=seed))


# ---------------------------------------------------------------------------------- writers


def _metadata(task: PlantedStat, query: str, fact: Fact) -> dict[str, Any]:
    domain = task.domain
    return {
        "id": 0,
        "domain": domain.name,
        "workflow_tags": WORKFLOW_TAGS[task.shape],
        "domain_knowledge": domain.knowledge,
        "datasets": [{
            "name": DATA_FILE, "description": domain.description,
            "columns": {"raw": [{"name": m.name, "description": m.description}
                                for m in task.measures]},
        }],
        "intermediate": [],
        "hypotheses": {"main": [{}], "intermediate": []},
        "queries": [[{"qid": 0, "question_type": QUESTION_TYPE.get(task.shape, "relationship"),
                      "question": query, "facts": [fact.to_json()]}]],
    }


def _effect_json(effect: Effect) -> dict[str, Any]:
    def rounded(v: float | None) -> float | None:
        return None if v is None else float(f"{v:.6g}")

    return {"variable": effect.variable, "estimate": rounded(effect.estimate),
            "p_value": rounded(effect.p_value), "ci_low": rounded(effect.ci_low),
            "ci_high": rounded(effect.ci_high), "direction": effect.direction,
            "significant": effect.significant()}


def _plan_json(plan: StatPlan) -> dict[str, Any]:
    return {**plan.fix(), "interaction": plan.interaction, "key": plan.key()}


def _evidence_code(plan: StatPlan) -> str:
    """Self-contained code printing the plan's main effect as the gold states it."""
    lines = ["import pandas as pd", f"df = pd.read_csv({DATA_FILE!r})"]
    for column, op, value in plan.filters:
        lines.append(f"df = df[df[{column!r}] {op} {value}]")
    if plan.analysis in ("ols", "logit"):
        term = (f"{plan.predictors[0]}:{plan.interaction}" if plan.interaction
                else plan.predictors[0])
        fit = ".fit()" if plan.analysis == "ols" else ".fit(disp=0)"
        lines += ["import statsmodels.formula.api as smf",
                  f"m = smf.{plan.analysis}({formula_of(plan)!r}, df){fit}",
                  f"print('estimate', m.params[{term!r}], 'p', m.pvalues[{term!r}])"]
    elif plan.analysis == "ttest":
        g, y = plan.predictors[0], plan.target
        lines += ["from scipy import stats",
                  f"a, b = df.loc[df[{g!r}] == 1, {y!r}], df.loc[df[{g!r}] == 0, {y!r}]",
                  "print('estimate', a.mean() - b.mean(), 'p', stats.ttest_ind(a, b).pvalue)"]
    elif plan.analysis == "correlation":
        lines += ["from scipy import stats",
                  f"r, p = stats.pearsonr(df[{plan.predictors[0]!r}], df[{plan.target!r}])",
                  "print('estimate', r, 'p', p)"]
    else:
        lines += [f"print('estimate', df[{plan.target!r}].mean(), 'n', len(df))"]
    return "\n".join(lines) + "\n"


def _reference(task_id: str, task: PlantedStat, fact: Fact) -> dict[str, Any]:
    plan, effect = task.plan, task.effect
    columns = [plan.target, *plan.predictors, *plan.controls,
               *([plan.interaction] if plan.interaction else []),
               *(c for c, _, _ in plan.filters)]
    load = f"import pandas as pd\ndf = pd.read_csv({DATA_FILE!r})\n"
    shown = (f"{100 * effect.estimate:.1f}%" if plan.analysis == "proportion"
             else number(effect.estimate))
    nodes = [
        {"id": "select", "kind": "evidence",
         "description": f"Load {DATA_FILE} and select the columns {', '.join(columns)}",
         "keywords": columns, "evidence_code": load + f"print(df[{columns!r}].describe())\n",
         "expected_output": list(dict.fromkeys(columns))},
        {"id": "compute", "kind": "evidence",
         "description": f"Fit the {plan.analysis} analysis: {plan.key()}",
         "keywords": [plan.target, *plan.predictors],
         "evidence_code": _evidence_code(plan), "expected_output": ["estimate"]},
        {"id": "check", "kind": "reasoning",
         "description": "Check the plan against the query and the study's conventions: "
                        "target, predictors, controls, population and analysis",
         "keywords": [], "evidence_code": None, "expected_output": []},
        {"id": "claim", "kind": "reasoning",
         "description": "State the hypothesis: variables, direction, magnitude, significance, "
                        "population and controls",
         "keywords": [shown.rstrip("%")], "evidence_code": None, "expected_output": []},
    ]
    return {
        "task_id": task_id,
        "category": task.shape,
        "nodes": nodes,
        "edges": [["select", "compute"], ["compute", "check"], ["check", "claim"],
                  ["compute", "claim"]],
        "paths": [["select", "compute", "check", "claim"], ["select", "compute", "claim"]],
        "completion": {
            "variables": [],
            "relation": "relationship",
            "family": "stats",
            "shape": task.shape,
            "plan": _plan_json(plan),
            "effect": _effect_json(effect),
            "filters": format_filters(plan.filters),
            "fact": fact.to_json(),
            "planted": {k: round(float(v), 6) for k, v in task.planted.items()},
            "decoys": [{"mistake": kind, "plan": _plan_json(p), "effect": _effect_json(e)}
                       for kind, p, e in task.decoys],
        },
    }
