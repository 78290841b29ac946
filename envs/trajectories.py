"""Per-seat trajectories of a run's sessions, for RL and SFT stacks outside collabsim.

A ``collabsim run`` folder stores each session's trace, which holds what changed, not what
each seat saw when it decided (waits are not events). The trajectories are therefore derived
by playing each stored session again, seat by seat, with the run's own settings, seed and
policies, in the caller's thread as :class:`~collabsim.envs.session_env.SessionEnv` steps it:
every decision gives the deciding seat's observation (the turn prompt the text interface
returns) and its action text. The replayed trace must hash to the stored ``trace_sha256``;
otherwise the session is refused (:class:`ExportError`), so an exported step is never one
the run did not take.

Rewards are those of the gym seats (:func:`collabsim.envs.rewards.terminal_reward`): 0 on
every step of a seat but its last, which carries the judge's Performance (collaborator
seats: plus ``alignment`` × A_profile, the ``Collaborator-v1`` default). Only
``policy=scripted`` runs can be replayed (an LLM run's replies are not deterministic).
The schema of the rows is in ``docs/export.md``.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from collabsim.envs.collaborator import DEFAULT_ALIGNMENT
from collabsim.envs.rewards import RewardConfig, terminal_reward
from collabsim.envs.session_env import JUDGED_ENDINGS, turn_text
from collabsim.experiment.integrity import TRACE_DIGEST_KEY
from collabsim.experiment.job import plan_job
from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.plan import SessionPlan
from collabsim.experiment.session_configs import SessionConfigs
from collabsim.experiment.store import ResultStore
from collabsim.metrics.pipeline import session_metrics
from collabsim.metrics.reference import load_reference
from collabsim.participants.llm_policy import PromptRenderer
from collabsim.session.engine import session_result
from collabsim.session.orchestrator import Orchestrator

SCHEMA_VERSION = 1
"""Version of the exported rows (``docs/export.md``); raised when a field changes meaning."""


class ExportError(ValueError):
    """A run folder that cannot be exported; the message is one line naming the file."""


def seat_reward_config(seat: str, agent: str) -> RewardConfig:
    """The reward weights of the gym env in which ``seat`` is the learner (defaults)."""
    return RewardConfig() if seat == agent else RewardConfig(alignment=DEFAULT_ALIGNMENT)


@dataclass
class SeatTrajectory:
    """One seat's decisions in one session (``steps``: rows of ``trajectories.jsonl``)."""

    session: str
    seat: str
    role: str
    steps: list[dict[str, Any]] = field(default_factory=list)

    def messages(self) -> list[dict[str, str]]:
        """The chat transcript: the turn prompt as ``user``, the action as ``assistant``."""
        out: list[dict[str, str]] = []
        for step in self.steps:
            out.append({"role": "user", "content": step["observation"]})
            out.append({"role": "assistant", "content": step["action"]})
        return out


def _job_settings(run_dir: Path) -> dict[str, Any]:
    config = run_dir / ".hydra" / "config.yaml"
    if not config.is_file():
        raise ExportError(f"{config}: not found; RUN must be a `collabsim run` job folder")
    try:
        data = yaml.safe_load(config.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise ExportError(f"{config}: cannot read it ({err})") from None
    if not isinstance(data, dict):
        raise ExportError(f"{config}: not a job configuration")
    return data


def replay_run(run_dir: Path | str) -> Iterator[SeatTrajectory]:
    """Every seat's trajectory of every stored session of a run folder.

    Args:
        run_dir: A ``collabsim run`` job folder (``.hydra/config.yaml``, ``sessions/``).

    Yields:
        One :class:`SeatTrajectory` per session and seat that decided at least once.

    Raises:
        ExportError: Not a job folder, not ``policy=scripted``, no stored session, or a
            session whose replay differs from its stored trace.
    """
    run_dir = Path(run_dir)
    try:
        job = plan_job(_job_settings(run_dir))
    except ExportError:
        raise
    except Exception as err:  # noqa: BLE001 - a settings or task error of the stored job
        raise ExportError(f"{run_dir / '.hydra' / 'config.yaml'}: {err}") from None
    settings = job.settings
    if settings.policy.name != "scripted":
        raise ExportError(f"{run_dir}: policy={settings.policy.name}; only policy=scripted "
                          "runs can be replayed into trajectories")
    store = ResultStore(Path(settings.run.store or run_dir).expanduser())
    stored = [p for p in job.plans if store.result_path(p).is_file()]
    if not stored:
        raise ExportError(f"{store.root / 'sessions'}: no stored session of this job")
    configs = SessionConfigs(settings)
    builder = ParticipantBuilder(settings)
    for plan in stored:
        yield from _replay_session(plan, configs, builder, store)


def _replay_session(plan: SessionPlan, configs: SessionConfigs, builder: ParticipantBuilder,
                    store: ResultStore) -> Iterator[SeatTrajectory]:
    task = plan.task
    result_path = store.result_path(plan)
    try:
        stored = yaml.safe_load(result_path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise ExportError(f"{result_path}: cannot read it ({err})") from None
    config = configs(plan)
    team = config.team
    with tempfile.TemporaryDirectory(prefix="collabsim-export-") as tmp:
        participants = builder.build(plan, config, Path(tmp))
        trace = Path(tmp) / "trace.jsonl"
        orch = Orchestrator(config, trace)
        orch.use_participant_durations(participants)
        seats = {m: SeatTrajectory(plan.slug, m, team.role(m)) for m in team.members}
        prompts = PromptRenderer()
        try:
            orch.start()
            while (turn := orch.next_turn()) is not None:
                obs = turn.observation
                action = participants[turn.member].decide(obs)  # type: ignore[attr-defined]
                seats[turn.member].steps.append({
                    "observation": turn_text(prompts, obs),
                    "action": str(action),
                    "info": {"task_id": obs.task.task_id, "time": obs.time, "phase": obs.phase,
                             "turn": obs.turn, "available_actions": list(obs.available_actions),
                             "feedback": obs.feedback},
                })
                orch.submit(action)
        finally:
            orch.close()
        digest = hashlib.sha256(trace.read_bytes()).hexdigest()
        if stored.get(TRACE_DIGEST_KEY) not in (None, digest):
            raise ExportError(f"{store.trace_path(plan)}: replaying the session gives another "
                              "trace (the code changed since the run); rerun the job to export it")
        result = session_result(orch, "scripted", 0.0, None)
        path = task.reference_workflow_path
        reference = load_reference(path) if path is not None and Path(path).exists() else None
        metrics = session_metrics(result, list(orch.state.events), task, reference, team=team)
    terminated = result.status in JUDGED_ENDINGS
    for member, seat in seats.items():
        for i, step in enumerate(seat.steps):
            last = i == len(seat.steps) - 1
            reward = terminal_reward(metrics, seat_reward_config(member, team.agent)) if last \
                else 0.0
            step.update({
                "schema_version": SCHEMA_VERSION, "session": plan.slug, "task_id": task.task_id,
                "team": plan.team, "structure": plan.structure, "seed": plan.seed,
                "seat": member, "role": seat.role, "step": i, "reward": reward,
                "terminated": last and terminated, "truncated": last and not terminated,
            })
            if last:
                step["info"] = {**step["info"], "status": result.status,
                                "performance": terminal_reward(metrics, RewardConfig())}
        if seat.steps:
            yield seat
