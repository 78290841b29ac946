"""``policy=llm`` with the offline ``collabsim/scripted`` provider acts exactly like
``policy=scripted`` (same seed, mistake and behavioural models on) on real archaeology tasks."""

from __future__ import annotations

import json
from pathlib import Path

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import run

# 24/0 is an open ("describe") question
TASKS = "[archaeology/1/0,archaeology/13/0,archaeology/24/0,archaeology/27/0,archaeology/31/0]"


def _actions(store: Path) -> dict[str, list[tuple[object, ...]]]:
    out = {}
    for trace in sorted(store.rglob("trace.jsonl")):
        rows = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
        out[trace.parent.name.rsplit("__", 1)[0]] = [
            (r.get("actor"), r.get("action_type"), r.get("status"),
             json.dumps(r.get("args"), sort_keys=True), r.get("t_start"), r.get("t_end"))
            for r in rows]
    return out


def test_llm_scripted_provider_equals_scripted_session_by_session(
        tmp_path: Path, discoverybench_root: Path) -> None:
    common = [
        "tasks=discoverybench",
        f"tasks.root={discoverybench_root}",
        f"tasks.ids={TASKS}",
        "team=DR",
        "structure=default_and_scaffolded",
        "seeds=[0,1]",
        f"llm.cache_dir={tmp_path / 'llm'}",
        "run.progress=false",
        "run.show_sessions=false",
    ]
    tables = {}
    for name in ("scripted", "llm"):
        cfg = compose_config([*common, f"policy={name}", f"run.store={tmp_path / name}"])
        tables[name] = run(cfg, tmp_path / f"out-{name}").sessions
    keys = ["task_id", "team", "structure", "seed"]
    scripted = tables["scripted"].sort_values(keys).reset_index(drop=True)
    llm = tables["llm"].sort_values(keys).reset_index(drop=True)
    assert len(scripted) == 5 * 2 * 2
    for column in (*keys, "status", "turns", "hypothesis", "Performance"):
        assert list(llm[column]) == list(scripted[column]), column
    a, b = _actions(tmp_path / "scripted"), _actions(tmp_path / "llm")
    assert a.keys() == b.keys() and len(a) == len(scripted)
    for session in a:
        assert a[session] == b[session], session
    # the collaborators did something: some session has a collaborator's chat message
    assert any(row[0] in ("D", "R") and row[1] == "SEND_TEAMMATE_MESSAGE"
               for rows in a.values() for row in rows)
