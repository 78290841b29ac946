"""Independent seeds and byte-identical cached reruns of a whole job at concurrency 8."""

from __future__ import annotations

import pytest
from helpers import model_server as ms

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import run

SEEDS = [0, 1, 2, 3, 4, 5]


def reply(request: object, index: int) -> ms.Reply:
    """A model that drafts on odd requests and finishes on even ones (n: arrival order, 1-based)."""
    n = index + 1
    if n % 2:
        return ms.Reply(f'THOUGHT: draft {n}\nACTION: EDITOR_UPDATE(text="Hypothesis number {n}.")')
    return ms.Reply("THOUGHT: done\nACTION: FINISH()")


def job(tmp_path, server: ms.StandInServer, store: str):
    return compose_config([
        "policy=llm", "team.compositions=[single]", "structure=default",
        "tasks.n_tasks=1", "tasks.seed=3", f"tasks.root={tmp_path / 'suite'}",
        f"seeds=[{','.join(map(str, SEEDS))}]", "run.max_concurrency=8", "run.progress=false",
        f"run.store={tmp_path / store}", f"llm.cache_dir={tmp_path / 'llm-cache'}",
        "llm.agent.model=hosted_vllm/stub", f"+llm.agent.extra.api_base={server.url}",
        "llm.agent.temperature=0.7", "llm.max_retries=0",
    ])


@pytest.mark.slow
def test_seeds_draw_their_own_calls_and_a_cached_rerun_is_byte_identical(model_server, tmp_path):
    server = model_server(reply)
    first = run(job(tmp_path, server, "store-a"), tmp_path / "out-a")
    calls = len(server.requests)
    assert first.summary.ran == len(SEEDS)
    firsts = [r for r in server.requests if len(r.messages) and "seed" in r.params]
    assert sorted({r.params["seed"] for r in firsts}) == SEEDS, "every session sends its seed"
    assert calls >= 2 * len(SEEDS), "no seed reuses another seed's reply"
    second = run(job(tmp_path, server, "store-b"), tmp_path / "out-b")
    assert second.summary.ran == len(SEEDS)
    assert len(server.requests) == calls, "the rerun makes no provider call"
    traces = {
        store: sorted((tmp_path / store / "sessions").glob("*/trace.jsonl"))
        for store in ("store-a", "store-b")
    }
    assert len(traces["store-a"]) == len(SEEDS)
    for a, b in zip(traces["store-a"], traces["store-b"], strict=True):
        assert a.parent.name == b.parent.name and a.read_bytes() == b.read_bytes(), a.parent.name
    assert list(first.sessions["hypothesis"]) == list(second.sessions["hypothesis"])
