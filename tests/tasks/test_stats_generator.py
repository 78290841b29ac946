"""The generated statistical suite: determinism, layout, planted effects a plain statsmodels
fit recovers, decoys that answer otherwise, one decisive fact per task, tasks=generated_stats."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import stats

from collabsim.core.knowledge import STAT_TOPIC_KIND
from collabsim.domain.stats.model import StatPlan
from collabsim.experiment.settings import GeneratedStatsTasks, SettingsError, validate_job
from collabsim.experiment.tasksource import TaskSelectionError, resolve_tasks
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite
from collabsim.tasks.stats_generator import (
    FACT_TOPIC,
    SHAPES,
    STATS_GENERATOR,
    STATS_GENERATOR_VERSION,
    default_stats_suite_root,
    generate_stats_suite,
)
from collabsim.tasks.stats_generator_wording import number
from collabsim.tasks.stats_vocabulary import DOMAINS
from collabsim.tasks.suite_cache import MARKER_NAME

N = len(SHAPES)  # one task per shape
SD = {m.name: m.sd for d in DOMAINS
      for m in (*d.measures, *d.outcomes, *d.confounders, *d.predictor_pair.members,
                *d.outcome_pair.members)}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_stats_suite(tmp_path_factory.mktemp("stats") / "suite", N, seed=0)


def _digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _completion(root: Path, dataset: str) -> dict:
    ref = json.loads((root / "reference_workflows" / dataset / "0" / "0.json").read_text())
    return ref["completion"]


def _frame(root: Path, dataset: str) -> pd.DataFrame:
    return pd.read_csv(root / "synth" / "gen" / dataset / "data.csv")


def test_same_seed_gives_byte_identical_files(suite: Path, tmp_path: Path) -> None:
    again = _digest(generate_stats_suite(tmp_path / "again", N, seed=0))
    other = _digest(generate_stats_suite(tmp_path / "other", N, seed=1))
    assert _digest(suite) == again
    assert again != other
    assert {"synth/gen/stats_000/metadata_0.json", "synth/gen/stats_008/data.csv",
            "reference_workflows/stats_004/0/0.json", "eval/answer_key_synth.csv"} <= set(again)
    assert json.loads((suite / MARKER_NAME).read_text()) == {
        "generator": STATS_GENERATOR, "generator_version": STATS_GENERATOR_VERSION,
        "seed": 0, "n_tasks": N}


def test_another_process_writes_the_same_bytes(suite: Path, tmp_path: Path) -> None:
    """No hash-order or process state leaks into a suite (another hash seed, same files)."""
    import os
    import subprocess
    import sys

    code = ("import sys; from collabsim.tasks.stats_generator import generate_stats_suite; "
            f"generate_stats_suite(sys.argv[1], {N}, seed=0)")
    env = {**os.environ, "PYTHONHASHSEED": "123"}
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "p")], check=True, env=env,
                   timeout=300)
    assert _digest(tmp_path / "p") == _digest(suite)


def test_suite_loads_with_gold_reference_and_one_decisive_fact(suite: Path) -> None:
    report = load_tasks(suite)
    assert report.problems == ()
    assert [t.task_id for t in report.tasks] == [f"stats_{i:03d}/0/0" for i in range(N)]
    shapes = []
    for task in report.tasks:
        completion = _completion(suite, task.dataset)
        shapes.append(completion["shape"])
        assert task.source == "generated" and task.query.endswith("?")
        assert task.gold_hypothesis and task.reference_workflow_path is not None
        # participants read the metadata: the gold is in the answer key only
        assert task.gold_hypothesis not in task.metadata_path.read_text()
        (fact,) = task.facts
        topic = FACT_TOPIC[completion["shape"]]
        assert fact.topic == topic and fact.kind == STAT_TOPIC_KIND[topic]
        assert [name for name, _ in fact.setting] == [topic]
        # the fact's setting, applied to any plan, gives the right plan's value of its topic
        plan = completion["plan"]
        blank = StatPlan("data.csv", "?", ("?",))
        assert blank.with_fix(fact.fix).fix()[topic] == plan[topic]
        (info,) = task.datasets
        columns = {c.name for c in info.columns}
        assert all(c.description for c in info.columns)
        assert {plan["target"], *plan["predictors"].split("+")} - {"none"} <= columns
        # the gold states the fitted number
        effect = completion["effect"]
        shown = (f"{100 * effect['estimate']:.1f}%" if plan["analysis"] == "proportion"
                 else f"{effect['estimate']:.2f}" if plan["analysis"] == "correlation"
                 else number(abs(effect["estimate"])) if plan["analysis"] == "ttest"
                 else number(effect["estimate"]))
        assert shown in task.gold_hypothesis, (shown, task.gold_hypothesis)
    assert shapes == list(SHAPES)


def _ols(df: pd.DataFrame, formula: str, term: str) -> tuple[float, float]:
    fit = smf.ols(formula, df).fit()
    return float(fit.params[term]), float(fit.pvalues[term])


def _logit(df: pd.DataFrame, formula: str, term: str) -> tuple[float, float]:
    fit = smf.logit(formula, df).fit(disp=0)
    return float(fit.params[term]), float(fit.pvalues[term])


@pytest.mark.parametrize("index", range(N), ids=list(SHAPES))
def test_each_planted_effect_is_recovered_by_a_plain_statsmodels_fit(suite: Path,
                                                                     index: int) -> None:
    """Hand-checked magnitudes: the planted standardised effect, in the columns' units, is
    what an ordinary fit on the CSV finds (within sampling error), and the gold says so."""
    dataset = f"stats_{index:03d}"
    c = _completion(suite, dataset)
    df, plan, planted = _frame(suite, dataset), c["plan"], c["planted"]
    gold = load_tasks(suite).tasks[index].gold_hypothesis
    _RECOVER[SHAPES[index]](df, plan, planted, gold)


def _recover_confounded(df: pd.DataFrame, plan: dict, planted: dict, gold: str) -> None:
    y, x = plan["target"], plan["predictors"]
    est, p = _ols(df, f"{y} ~ {x} + {plan['controls']}", x)
    assert abs(est - planted["beta"] * SD[y] / SD[x]) < 0.2 * SD[y] / SD[x]
    assert p < 0.001 and gold.startswith("Controlling for")


def _recover_binary_confounded(df: pd.DataFrame, plan: dict, planted: dict, gold: str) -> None:
    y, x = plan["target"], plan["predictors"]
    est, p = _logit(df, f"{y} ~ {x} + {plan['controls']}", x)
    assert abs(est - planted["beta"] / SD[x]) < 0.35 / SD[x]
    assert p < 0.001 and "odds" in gold and gold.startswith("Controlling for")


def _recover_binary(df: pd.DataFrame, plan: dict, planted: dict, gold: str) -> None:
    y, x = plan["target"], plan["predictors"]
    est, p = _logit(df, f"{y} ~ {x}", x)
    assert abs(est - planted["beta"] / SD[x]) < 0.3 / SD[x] and p < 0.001
    assert ("higher odds" if est > 0 else "lower odds") in gold


def _recover_subgroup(df: pd.DataFrame, plan: dict, planted: dict, gold: str) -> None:
    y, x = plan["target"], plan["predictors"]
    column, _, code = plan["filters"].split()
    est, p = _ols(df[df[column] == int(code)], f"{y} ~ {x}", x)
    assert abs(est - planted["beta"] * SD[y] / SD[x]) < 0.2 * SD[y] / SD[x]
    assert p < 0.001 and gold.startswith("Among ")


def _recover_null(df: pd.DataFrame, plan: dict, planted: dict, gold: str) -> None:
    y, x = plan["target"], plan["predictors"]
    est, p = _ols(df, f"{y} ~ {x}", x)
    assert abs(est) < 0.15 * SD[y] / SD[x] and p > 0.2
    assert "no significant association" in gold


def _recover_group_difference(df: pd.DataFrame, plan: dict, planted: dict, gold: str) -> None:
    y, x = plan["target"], plan["predictors"]
    a, b = df.loc[df[x] == 1, y], df.loc[df[x] == 0, y]
    diff, p = a.mean() - b.mean(), stats.ttest_ind(a, b).pvalue
    assert abs(diff - planted["difference"] * SD[y]) < 0.25 * SD[y] and p < 0.001
    assert ("higher" if diff > 0 else "lower") in gold


def _recover_interaction(df: pd.DataFrame, plan: dict, planted: dict, gold: str) -> None:
    y, x, z = plan["target"], plan["predictors"], plan["interaction"]
    est, p = _ols(df, f"{y} ~ {x} * {z}", f"{x}:{z}")
    assert abs(est - planted["interaction"] * SD[y] / SD[x]) < 0.25 * SD[y] / SD[x]
    assert p < 0.001 and "interaction coefficient" in gold


def _recover_proportion(df: pd.DataFrame, plan: dict, planted: dict, gold: str) -> None:
    column, _, code = plan["filters"].split()
    share = df.loc[df[column] == int(code), plan["target"]].mean()
    assert abs(share - planted["rate"]) < 0.1
    assert f"{100 * share:.1f}%" in gold


def _recover_correlation(df: pd.DataFrame, plan: dict, planted: dict, gold: str) -> None:
    y, x = plan["target"], plan["predictors"]
    r, p = stats.pearsonr(df[x], df[y])
    assert abs(r - planted["rho"]) < 0.12 and p < 0.001
    slope, _ = _ols(df, f"{y} ~ {x}", x)
    shown = f"r = {r:.2f}" if plan["analysis"] == "correlation" else number(slope)
    assert shown in gold


_RECOVER = {
    "confounded": _recover_confounded, "binary_confounded": _recover_binary_confounded,
    "binary": _recover_binary, "subgroup": _recover_subgroup, "null": _recover_null,
    "group_difference": _recover_group_difference, "interaction": _recover_interaction,
    "proportion": _recover_proportion, "correlation": _recover_correlation,
}


def test_decoys_answer_otherwise(suite: Path) -> None:
    """Each typical mistake's plan, fitted plainly, gives another direction, significance or
    number than the right plan (so a mistake shows in the hypothesis)."""
    kinds = set()
    for i, shape in enumerate(SHAPES):
        dataset = f"stats_{i:03d}"
        c = _completion(suite, dataset)
        df, right = _frame(suite, dataset), c["effect"]
        assert c["decoys"], shape
        for decoy in c["decoys"]:
            kinds.add(decoy["mistake"])
            d = decoy["plan"]
            y, x = d["target"], d["predictors"].split("+")[0]
            rows = df
            if d["filters"] != "none":
                column, _, code = d["filters"].split()
                rows = df[df[column] == int(code)]
            controls = "" if d["controls"] == "none" else f" + {d['controls']}"
            if d["analysis"] == "proportion":
                assert abs(rows[y].mean() - right["estimate"]) > 0.08, (shape, decoy)
                continue
            if d["analysis"] == "ttest":
                a, b = rows.loc[rows[x] == 1, y], rows.loc[rows[x] == 0, y]
                est, p = a.mean() - b.mean(), stats.ttest_ind(a, b).pvalue
            elif d["analysis"] == "correlation":
                est, p = stats.pearsonr(rows[x], rows[y])
            elif d["interaction"]:
                est, p = _ols(rows, f"{y} ~ {x} * {d['interaction']}",
                              f"{x}:{d['interaction']}")
            elif d["analysis"] == "logit":
                est, p = _logit(rows, f"{y} ~ {x}{controls}", x)
            else:
                est, p = _ols(rows, f"{y} ~ {x}{controls}", x)
            same_direction = np.sign(est) == np.sign(right["estimate"])
            same_significance = (p < 0.05) == (right["p_value"] < 0.05)
            close = abs(est - right["estimate"]) <= abs(right["estimate"]) / 3
            assert not (same_direction and same_significance and close), (shape, decoy, est, p)
    assert {"omitted_control", "wrong_variable", "wrong_subgroup", "linear_for_binary",
            "no_filter", "wrong_analysis"} <= kinds


def test_answer_key_and_metadata_follow_the_discoverybench_layout(suite: Path) -> None:
    with (suite / "eval" / "answer_key_synth.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["dataset"] for r in rows] == [f"stats_{i:03d}" for i in range(N)]
    meta = json.loads((suite / "synth" / "gen" / "stats_000" / "metadata_0.json").read_text())
    assert {"domain", "domain_knowledge", "workflow_tags", "datasets", "queries"} <= set(meta)
    assert meta["datasets"][0]["name"] == "data.csv"


# ------------------------------------------------------------------ tasks=generated_stats


def test_tasks_generated_stats_writes_only_into_a_new_or_empty_root(tmp_path: Path) -> None:
    spec = {"kind": "generated_stats", "n_tasks": 3, "seed": 0, "root": str(tmp_path / "new")}
    tasks, report = resolve_tasks(spec)
    assert [t.task_id for t in tasks] == ["stats_000/0/0", "stats_001/0/0", "stats_002/0/0"]
    assert report.problems == ()
    # reused as it is
    assert [t.task_id for t in resolve_tasks({**spec, "limit": 1})[0]] == ["stats_000/0/0"]
    # other settings: refused, not regenerated
    with pytest.raises(TaskSelectionError, match="n_tasks=3, seed=1"):
        resolve_tasks({**spec, "seed": 1})
    # a user's folder: refused, untouched
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with pytest.raises(TaskSelectionError, match="not an empty folder"):
        resolve_tasks({**spec, "root": str(tmp_path / "mine")})
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_each_generated_kind_refuses_the_other_generators_suite(tmp_path: Path) -> None:
    generate_suite(tmp_path / "series", 3, seed=0)
    generate_stats_suite(tmp_path / "stats", 3, seed=0)
    with pytest.raises(TaskSelectionError, match="collabsim.tasks.generator"):
        resolve_tasks({"kind": "generated_stats", "n_tasks": 3, "seed": 0,
                       "root": str(tmp_path / "series")})
    with pytest.raises(TaskSelectionError, match=STATS_GENERATOR):
        resolve_tasks({"kind": "generated", "n_tasks": 3, "seed": 0,
                       "root": str(tmp_path / "stats")})


def test_default_stats_suite_is_cached_per_generator_code(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLLABSIM_CACHE_DIR", str(tmp_path))
    root = default_stats_suite_root(2, seed=0)
    assert root.parent == tmp_path / "generated_stats"
    assert root.name.startswith(f"v{STATS_GENERATOR_VERSION}-") and root.name.endswith("-n2-s0")
    assert default_stats_suite_root(2, seed=0) == root
    tasks, _ = resolve_tasks({"kind": "generated_stats", "n_tasks": 2, "seed": 0, "root": None})
    assert len(tasks) == 2
    assert tasks[0].metadata_path.is_relative_to(root)


def test_settings_validate_the_generated_stats_section() -> None:
    base = {"team": {"compositions": ["single"]}, "structure": {"names": ["default"]},
            "policy": {"name": "scripted"}, "seeds": [0]}
    settings = validate_job({**base, "tasks": {"kind": "generated_stats"}})
    assert isinstance(settings.tasks, GeneratedStatsTasks)
    assert settings.tasks.n_tasks == 36 and settings.tasks.root is None
    with pytest.raises(SettingsError, match="tasks.n_tasks"):
        validate_job({**base, "tasks": {"kind": "generated_stats", "n_tasks": 0}})
    with pytest.raises(SettingsError, match="tasks.ordinal: unknown setting"):
        validate_job({**base, "tasks": {"kind": "generated_stats", "ordinal": 2}})


def test_a_stats_fact_naming_a_missing_column_is_a_listed_problem(suite: Path,
                                                                  tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(suite, copy)
    path = copy / "synth" / "gen" / "stats_000" / "metadata_0.json"
    meta = json.loads(path.read_text())
    meta["queries"][0][0]["facts"][0]["setting"] = {"controls": "no_such_column"}
    path.write_text(json.dumps(meta))
    report = load_tasks(copy)
    assert "stats_000/0/0" not in {t.task_id for t in report.tasks}
    (problem,) = report.problems
    assert problem.field == "queries[0][0].facts[0].setting"
    assert "no_such_column" in problem.message


def test_reference_workflows_validate_and_their_evidence_code_runs(suite: Path) -> None:
    """Schema, structure and the evidence code (run in the sandbox, printing its expected
    outputs) of every reference graph."""
    from collabsim.metrics.reference import validate_reference

    for task in load_tasks(suite).tasks:
        assert validate_reference(task.reference_workflow_path, task) == [], task.task_id
