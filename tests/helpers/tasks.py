"""Task builders for tests: a tiny one-file task and the DiscoveryBench archaeology tasks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.model import ColumnInfo, DatasetInfo, Task


def make_task(root: Path) -> Task:
    """A one-file task: a short time series in ``series.csv``."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / "series.csv"
    rows = ["year,dagger"] + [
        f"{y},{v}"
        for y, v in zip(range(-3000, -2000, 100), [1, 1, 2, 5, 3, 3, 8, 2, 1, 1], strict=True)
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return Task(
        task_id="tiny/0/0",
        dataset="tiny",
        metadata_id=0,
        query_id=0,
        query="When does dagger first rise?",
        question_type="context",
        domain="archaeology",
        domain_knowledge="",
        workflow_tags="",
        datasets=(
            DatasetInfo(
                name="series.csv",
                description="dagger counts per century",
                columns=(ColumnInfo("year", "year"), ColumnInfo("dagger", "count")),
                path=path,
            ),
        ),
        source="generated",
        gold_hypothesis="SECRET-GOLD dagger first rises around -2700.",
    )


def archaeology_tasks(discoverybench_root: Path) -> dict[str, Task]:
    """The DiscoveryBench archaeology tasks by task id."""
    report = load_tasks(discoverybench_root)
    return {t.task_id: t for t in report.tasks if t.dataset == "archaeology"}


# Small real-session grids (run overrides) that tests replay decision by decision: the
# DiscoveryBench archaeology tasks, the generated suite with the facts split by profile or
# shared, and the generated statistical suite.
SESSION_GRIDS: dict[str, list[str]] = {
    "archaeology": ["tasks=discoverybench", "tasks.datasets=[archaeology]", "tasks.limit=2"],
    "by_profile": ["tasks.knowledge=by_profile", "policy.agent.ask_propensity.value=1.0",
                   "tasks.n_tasks=3"],
    "everyone": ["tasks.knowledge=everyone", "policy.agent.ask_propensity.value=1.0",
                 "tasks.n_tasks=3"],
    "generated_stats": ["tasks=generated_stats", "tasks.n_tasks=3"],
}


def run_session_grid(grid: str, tmp_path: Path, discoverybench_root: Path) -> Any:
    """Run :data:`SESSION_GRIDS` ``grid`` with every team and structure, one seed, into
    ``tmp_path`` (the archaeology grid on ``discoverybench_root``); returns the job outcome."""
    from collabsim.cli.run_app import compose_config
    from collabsim.experiment.job import run

    root = discoverybench_root if grid == "archaeology" else tmp_path / "suite"
    cfg = compose_config([*SESSION_GRIDS[grid], f"tasks.root={root}", "team=all",
                          "structure=all", "seeds=[0]", f"run.store={tmp_path / 'store'}",
                          "run.progress=false", "run.show_sessions=false"])
    return run(cfg, tmp_path / "out")


def write_clone(tmp_path: Path, key: bool) -> Path:
    """A tiny DiscoveryBench clone: ``<clone>/discoverybench/real/test/farming/`` (one
    statistical query) with, when ``key``, its answer key in ``<clone>/eval/`` beside it, as
    the repository keeps it. Returns the ``discoverybench`` folder (a ``tasks.root``)."""
    import json

    folder = tmp_path / "clone" / "discoverybench" / "real" / "test" / "farming"
    folder.mkdir(parents=True)
    rows = [f"{r},{2 * r + (r % 3)}" for r in range(1, 41)]
    (folder / "data.csv").write_text("rain,yield\n" + "\n".join(rows) + "\n", encoding="utf-8")
    meta = {"id": 0, "domain": "farming", "datasets": [
        {"name": "data.csv", "description": "crops",
         "columns": [{"name": "rain", "description": "Rainfall"},
                     {"name": "yield", "description": "Crop yield"}]}],
        "queries": [[{"qid": 0, "question": "How is rain related to yield?"}]]}
    (folder / "metadata_0.json").write_text(json.dumps(meta), encoding="utf-8")
    if key:
        (tmp_path / "clone" / "eval").mkdir()
        (tmp_path / "clone" / "eval" / "answer_key_real.csv").write_text(
            'dataset,metadataid,query_id,gold_hypo\nfarming,0,0,"Rain raises yield."\n',
            encoding="utf-8")
    return tmp_path / "clone" / "discoverybench"
