"""Benchmark: many LLM sessions in flight in one process (issue #3, acceptance 4).

Runs ``--sessions`` sessions (default: the agent and collaborator D under the ``default``
structure; ``--team solo`` for the agent alone) whose participants are LLM participants on
the offline latency model ``collabsim/scripted-latency`` (``--latency-ms`` per call, default
100) - the whole LLM path: prompt rendering, the litellm call, parsing, accounting - once
with ``max_concurrency=1`` and once with ``max_concurrency=--concurrency`` (default 32), and
prints both wall times and their ratio. The disk cache is off, so every call reaches the
provider.

The sessions' code cells are served by a replaying executor filled in a warm-up pass that
runs the same sessions with the real sandbox: the benchmark measures how well model calls
overlap, not how fast pandas runs. Exit status 1 when the ratio is below ``--target``.

Usage::

    python benchmarks/bench_llm_concurrency.py [--sessions 32] [--latency-ms 100]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collabsim.llm import LLMClient, LLMSettings, gather_bounded
from collabsim.llm.backend import get_litellm
from collabsim.participants.llm_policy import build_llm_participants
from collabsim.participants.scripted import build_scripted
from collabsim.participants.team import TeamSpec, team_from_dict
from collabsim.session.config import SessionConfig, default_executor_factory
from collabsim.session.engine import run_session
from collabsim.session.results import SessionResult
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite
from collabsim.tasks.model import Task


@dataclass(frozen=True)
class _Replayed:
    output: str
    error: str | None
    status: str


class Recorder:
    """Executors that run the real sandbox and remember every (files, code) -> result."""

    def __init__(self) -> None:
        self.results: dict[tuple[tuple[str, ...], str], _Replayed] = {}

    def factory(self, files: Sequence[Path], limits: Any) -> Any:
        real = default_executor_factory(files, limits)
        key = tuple(str(f) for f in files)
        recorder = self

        class Recording:
            def execute(self, code: str) -> Any:
                result = real.execute(code)
                recorder.results[(key, code)] = _Replayed(result.output, result.error, result.status)
                return result

            def close(self) -> None:
                real.close()

        return Recording()

    def replay_factory(self, files: Sequence[Path], limits: Any) -> Any:
        key = tuple(str(f) for f in files)
        results = self.results

        class Replaying:
            def execute(self, code: str) -> Any:
                found = results.get((key, code))
                if found is None:
                    return _Replayed("", "code not seen in the warm-up pass", "error")
                return found

            def close(self) -> None:
                return None

        return Replaying()


def _configs(
    tasks: Sequence[Task], n: int, max_turns: int, team: TeamSpec, structure: str
) -> list[SessionConfig]:
    return [
        SessionConfig(
            task=tasks[i % len(tasks)],
            team=team,
            structure=builtin_structure(structure),
            seed=i,
            max_turns=max_turns,
        )
        for i in range(n)
    ]


async def _warm_up(configs: Sequence[SessionConfig], recorder: Recorder) -> None:
    for cfg in configs:
        team = cfg.team
        participants = {
            name: build_scripted(name, team.role(name), team.profile(name), seed=cfg.seed)
            for name in team.members
        }
        await run_session(cfg, participants, None, executor_factory=recorder.factory)


async def _run_all(
    configs: Sequence[SessionConfig],
    recorder: Recorder,
    settings: LLMSettings,
    max_concurrency: int,
) -> tuple[float, list[SessionResult], LLMClient]:
    root = LLMClient(max_concurrency=max_concurrency)

    async def one(cfg: SessionConfig) -> SessionResult:
        client = root.for_session()
        participants = build_llm_participants(
            cfg.team, {"agent": settings, "collaborator": settings}, client, cfg.seed
        )
        return await run_session(cfg, participants, None, executor_factory=recorder.replay_factory)

    started = time.perf_counter()
    results = await gather_bounded([lambda c=c: one(c) for c in configs], max_concurrency)
    return time.perf_counter() - started, results, root


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--tasks", type=int, default=8, help="generated tasks to cycle through")
    parser.add_argument("--max-turns", type=int, default=12)
    parser.add_argument("--team", default="D", help="team label: solo, D, R or DR")
    parser.add_argument("--structure", default=None, help="default: single (solo), else default")
    parser.add_argument("--target", type=float, default=20.0, help="minimum speed-up ratio")
    args = parser.parse_args(argv)

    get_litellm()  # import once, outside the timed runs
    settings = LLMSettings(
        model="collabsim/scripted-latency", extra={"latency_ms": args.latency_ms}
    )
    with tempfile.TemporaryDirectory(prefix="collabsim-bench-") as tmp:
        tasks = load_tasks(generate_suite(Path(tmp) / "suite", n_tasks=args.tasks, seed=0)).tasks
        team = team_from_dict(args.team)
        structure = args.structure or ("single" if not team.collaborators else "default")
        configs = _configs(tasks, args.sessions, args.max_turns, team, structure)
        recorder = Recorder()
        asyncio.run(_warm_up(configs, recorder))
        asyncio.run(_run_all(configs[:2], recorder, settings, 2))  # one-time costs, untimed
        serial, serial_results, serial_root = asyncio.run(
            _run_all(configs, recorder, settings, 1)
        )
        parallel, parallel_results, _ = asyncio.run(
            _run_all(configs, recorder, settings, args.concurrency)
        )
    calls = serial_root.usage.total.provider_calls
    statuses = sorted({r.status for r in serial_results + parallel_results})
    same = [r.submitted_hypothesis for r in serial_results] == [
        r.submitted_hypothesis for r in parallel_results
    ]
    ratio = serial / parallel if parallel > 0 else float("inf")
    print(f"sessions: {args.sessions} (team {team.label}, {structure}), model calls per run: {calls}, "
          f"latency: {args.latency_ms:.0f} ms/call, statuses: {statuses}, "
          f"identical results: {same}")
    print(f"max_concurrency=1:  {serial:8.2f} s")
    print(f"max_concurrency={args.concurrency}: {parallel:8.2f} s")
    print(f"speed-up: {ratio:.1f}x (target >= {args.target:.0f}x)")
    return 0 if ratio >= args.target and same else 1


if __name__ == "__main__":
    sys.exit(main())
