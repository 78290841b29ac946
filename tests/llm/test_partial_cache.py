"""A ``policy=llm`` offline job whose LLM cache holds only some of its calls (left by a run
killed part-way, or any earlier partial run) gives the traces of a clean run: the offline
provider's scripted policies decide from the observation alone, so a turn served from the
cache changes nothing it answers later (issue 38, item 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import run


def _job(tmp_path: Path, store: str, cache: Path):
    return compose_config([
        "policy=llm", "llm.agent.model=collabsim/scripted",
        "llm.collaborator.model=collabsim/scripted", "team=all",
        "structure=[default,scaffolded]", "tasks.n_tasks=1", f"tasks.root={tmp_path / 'suite'}",
        "seeds=[0,1]", "run.progress=false", "run.show_sessions=false",
        f"run.store={tmp_path / store}", f"llm.cache_dir={cache}",
    ])


def _traces(store: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in (store / "sessions").glob("*/trace.jsonl")}


@pytest.mark.slow
def test_a_job_resumed_from_a_partial_llm_cache_gives_the_clean_runs_traces(tmp_path) -> None:
    cache = tmp_path / "llm-cache"
    clean = run(_job(tmp_path, "clean", cache), tmp_path / "out-clean")
    assert set(clean.sessions["status"]) == {"finished"}
    entries = sorted(p for p in cache.rglob("*.json") if p.is_file())
    assert len(entries) > 100
    dropped = entries[::2]  # every other call must be asked again, the rest are replayed
    for entry in dropped:
        entry.unlink()
    partial = run(_job(tmp_path, "partial", cache), tmp_path / "out-partial")
    clean_traces, partial_traces = _traces(tmp_path / "clean"), _traces(tmp_path / "partial")
    assert len(clean_traces) == len(clean.sessions) == len(partial.sessions)
    differ = sorted(name for name, trace in clean_traces.items()
                    if partial_traces.get(name) != trace)
    assert differ == []
    assert list(partial.sessions["hypothesis"]) == list(clean.sessions["hypothesis"])
    assert sorted(p for p in cache.rglob("*.json") if p.is_file()) == entries, (
        "the dropped calls were asked again (and cached), the others replayed")
