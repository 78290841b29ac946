"""The engine behind every collabsim environment: one session, one learner seat.

:class:`SessionEnv` steps a :class:`~collabsim.session.orchestrator.Orchestrator` in the
caller's thread. The learner occupies one seat (the AI ``agent`` or a collaborator ``D`` /
``R``); every other member is played by an opponent policy that decides synchronously (the
scripted policies decide directly; any other :class:`~collabsim.core.observation.Participant`,
e.g. an LLM policy, runs its ``act`` on the env's private event loop). ``step`` submits the
learner's action, then plays the opponents' turns until it is the learner's turn again or the
session has ended.

Observations are what the learner's seat may see (the engine's
:class:`~collabsim.core.observation.Observation`: a task brief, never the gold hypothesis or
the reference workflow), rendered as the turn prompt an LLM participant gets. Rewards:
:mod:`collabsim.envs.rewards`.

Tasks: ``tasks="generated"`` (the built-in generated suite), ``"generated_stats"`` (the
built-in generated statistical suite) or a DiscoveryBench-layout folder (real and/or synth);
``split="train"`` / ``"test"`` / ``"all"`` picks a deterministic partition (``test_fraction``
of the tasks, chosen by ``split_seed``), so a policy trained on ``train`` is evaluated on
tasks it never saw.

Version history (what changed for every env built on this engine; each env's docstring
lists its own changes):

* v1 (issue 39, same id): the turn budget and the virtual-time budget default to a job's
  (``collabsim.session.config.MAX_TURNS`` and ``MAX_VIRTUAL_SECONDS``, as ``run.max_turns``
  and ``run.max_virtual_seconds``), so an env and ``collabsim run`` with the same settings
  play the same session; an episode of the earlier default is ``max_turns=30``. Code-cell
  outputs are cut once, by the sandbox (``sandbox.output_chars``); the text observation
  shows them as the sandbox kept them (it cut them again at 3,000 characters).
* v1 (issue 35, same id and spaces): ``coordination=`` sets the coordination costs and
  structural remedies (a :class:`~collabsim.core.coordination.CoordinationSpec` or a mapping
  of fields to change; default the spec's defaults, as ``collabsim run`` uses them); the
  default episodes now carry those costs, so their dynamics differ from earlier builds'.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import string
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from collabsim.core.coordination import CoordinationSpec
from collabsim.core.errors import SessionAbort
from collabsim.core.events import TraceEvent
from collabsim.core.knowledge import KnowledgeSplit, knowledge_split
from collabsim.core.observation import Observation, Participant
from collabsim.envs.cell_cache import CachingExecutorFactory
from collabsim.envs.rewards import RewardConfig, finite, terminal_reward
from collabsim.envs.text_space import SharedText
from collabsim.experiment.agent_turns import agent_params
from collabsim.metrics.pipeline import session_metrics
from collabsim.metrics.process import workflow_coverage
from collabsim.metrics.reference import ReferenceWorkflow, load_reference
from collabsim.participants.llm_policy import PromptRenderer
from collabsim.participants.scripted import build_scripted
from collabsim.participants.team import team_from_dict
from collabsim.sandbox import SandboxError, SandboxPool, add_preload_files
from collabsim.session.config import MAX_TURNS, MAX_VIRTUAL_SECONDS, SessionConfig
from collabsim.session.engine import session_result
from collabsim.session.observations import Turn
from collabsim.session.orchestrator import Orchestrator
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import default_suite_root
from collabsim.tasks.model import Task
from collabsim.tasks.stats_generator import default_stats_suite_root

# Characters the text spaces accept; anything else in an observation is replaced by "?".
CHARSET = string.printable + "".join(chr(c) for c in range(0xA0, 0x180)) + "–—‘’“”…×→≥≤±·"
MAX_OBSERVATION_CHARS = 60_000
MAX_ACTION_CHARS = 8_000
SPLITS = ("train", "test", "all")
JUDGED_ENDINGS = ("finished", "max_turns", "timeout")
"""Session statuses that end an episode as ``terminated`` (the others are ``truncated``)."""
_OUTSIDE_CHARSET = re.compile("[^" + re.escape(CHARSET) + "]")
_ASCII_IN_CHARSET = "".join(c for c in CHARSET if ord(c) < 128).encode("ascii")


def sanitise(text: str, limit: int = MAX_OBSERVATION_CHARS) -> str:
    """``text`` restricted to :data:`CHARSET` (others -> ``?``) and cut to ``limit``."""
    # Fast path (every step renders a prompt): ASCII text made only of allowed bytes is
    # kept as it is; deleting the allowed bytes is ~15x faster than the regex scan.
    if text.isascii() and not text.encode("ascii").translate(None, _ASCII_IN_CHARSET):
        clean = text
    else:
        clean = _OUTSIDE_CHARSET.sub("?", text)
    return clean if len(clean) <= limit else clean[: limit - 20] + "\n...[truncated]"


def turn_text(renderer: PromptRenderer, obs: Observation) -> str:
    """The text observation of a seat: its turn prompt as the packaged templates render it
    for an LLM participant (no scratchpad, no offline state block), sanitised."""
    return sanitise(renderer.turn(obs, "", None))


def select_tasks(
    tasks: str | Path | None = "generated",
    split: str = "all",
    task_ids: list[str] | None = None,
    test_fraction: float = 0.25,
    split_seed: int = 0,
) -> list[Task]:
    """The tasks of one split of a task source.

    Args:
        tasks: ``"generated"`` / None (the built-in generated suite), ``"generated_stats"``
            (the built-in generated statistical suite) or a DiscoveryBench layout folder.
        split: ``"train"``, ``"test"`` or ``"all"``.
        task_ids: Keep only these ids (after splitting).
        test_fraction: Share of tasks held out as ``test``.
        split_seed: Seed of the partition.

    Raises:
        ValueError: Unknown split, or no task left.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    if tasks in (None, "generated"):
        root = default_suite_root()
    elif tasks == "generated_stats":
        root = default_stats_suite_root()
    else:
        root = Path(tasks)
    found = sorted(load_tasks(root).tasks, key=lambda t: t.task_id)
    if split != "all":
        order = np.random.default_rng(split_seed).permutation(len(found))
        n_test = max(1, round(test_fraction * len(found)))
        held = {int(i) for i in order[:n_test]}
        found = [t for i, t in enumerate(found) if (i in held) == (split == "test")]
    if task_ids:
        wanted = set(task_ids)
        found = [t for t in found if t.task_id in wanted]
    if not found:
        raise ValueError(f"no tasks in {root} for split={split!r}, task_ids={task_ids}")
    return found


class SessionEnv(gym.Env[str, str]):
    """A collabsim session with the learner in one seat (text interface).

    Args:
        learner: The learner's seat: ``"agent"`` or a collaborator key of the team.
        tasks: Task source (see :func:`select_tasks`).
        split: Task split.
        task_ids: Restrict to these task ids.
        test_fraction: Held-out share of the task source.
        split_seed: Seed of the train/test partition.
        team: Collaborators: ``"single"``, ``"D"``, ``"R"`` or ``"DR"`` (or a team mapping).
        structure: Collaboration structure (``single`` is implied for ``team="single"``).
        knowledge: Who holds which kind of the tasks' facts (the ``tasks.knowledge``
            setting: ``"everyone"``, ``"by_profile"`` or a mapping fact kind -> holders,
            :func:`~collabsim.core.knowledge.knowledge_split`); every seat's observation
            shows the facts it holds.
        max_turns: Decisions per participant before the session ends (``terminated``:
            the limit is part of the task); by default a job's (``run.max_turns``,
            :data:`collabsim.session.config.MAX_TURNS`).
        max_virtual_seconds: Virtual-time budget of a session (``terminated`` too); by
            default a job's (``run.max_virtual_seconds``).
        opponents: Member -> policy for the seats the learner does not hold: ``"scripted"``
            (default) or any :class:`~collabsim.core.observation.Participant` (an LLM
            policy's ``act`` runs on the env's private event loop, in the caller's thread).
        opponent_params: Member -> parameters of its scripted policy. The agent's
            ``finish_by_turn`` defaults to ``max_turns`` less its ``finish_margin_turns``
            (:mod:`collabsim.experiment.agent_turns`).
        reward: Reward weights (:class:`~collabsim.envs.rewards.RewardConfig` or mapping).
        text_observations: Render the prompt text (False: observations are ``""``; the
            macro wrapper reads :attr:`last_observation` instead).
        cell_cache: Reuse outputs of self-contained analysis cells across episodes
            (:mod:`collabsim.envs.cell_cache`; same outputs, less wall time).
        reuse_sandbox: Keep one sandbox worker for all episodes, reset between them
            (:class:`~collabsim.sandbox.SandboxPool`: each episode starts with only its
            task's files and an empty namespace; same outputs, less wall time). False gives
            every episode a freshly forked worker.
        render_mode: ``"ansi"`` to return the observation text from :meth:`render`.
        coordination: The coordination costs and structural remedies of every episode
            (the ``coordination`` setting of ``collabsim run``): a
            :class:`~collabsim.core.coordination.CoordinationSpec`, a mapping of the fields
            to change (``{"loafing": 0.0}``; an unknown name raises ``ValueError``), or None
            for the spec's defaults, as ``collabsim run`` uses them.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        learner: str = "agent",
        tasks: str | Path | None = "generated",
        split: str = "all",
        task_ids: list[str] | None = None,
        test_fraction: float = 0.25,
        split_seed: int = 0,
        team: str | Mapping[str, Any] = "DR",
        structure: str = "default",
        knowledge: str | Mapping[str, Any] | KnowledgeSplit | None = "everyone",
        max_turns: int = MAX_TURNS,
        max_virtual_seconds: float = MAX_VIRTUAL_SECONDS,
        opponents: Mapping[str, str | Participant] | None = None,
        opponent_params: Mapping[str, Mapping[str, Any]] | None = None,
        reward: RewardConfig | Mapping[str, float] | None = None,
        text_observations: bool = True,
        cell_cache: bool = False,
        reuse_sandbox: bool = True,
        render_mode: str | None = None,
        coordination: CoordinationSpec | Mapping[str, Any] | None = None,
    ) -> None:
        self.tasks: list[Task] = select_tasks(tasks, split, task_ids, test_fraction, split_seed)
        self.team = team_from_dict("single" if team == "single" else team)
        self.structure = builtin_structure("single" if team == "single" else structure)
        self.knowledge = knowledge_split(knowledge)
        self.coordination = (coordination if isinstance(coordination, CoordinationSpec)
                             else CoordinationSpec().with_values(dict(coordination or {})))
        if learner not in self.team.members:
            raise ValueError(f"learner {learner!r} is not a member of team {self.team.members}")
        self.learner = learner
        self.max_turns = int(max_turns)
        self.max_time = float(max_virtual_seconds)
        self.opponents = dict(opponents or {})
        self.opponent_params = {k: dict(v) for k, v in (opponent_params or {}).items()}
        self.reward_config = RewardConfig.from_any(reward)
        self.text_observations = bool(text_observations)
        # Every task file is parsed and binned once in the sandbox's fork server, so no
        # episode's first analysis cell reads and bins its table (outputs are the same).
        with contextlib.suppress(SandboxError):  # a broken sandbox shows in the cells
            add_preload_files([d.path for t in self.tasks for d in t.datasets if d.path])
        self._sandboxes = SandboxPool(max_idle=1) if reuse_sandbox else None
        self._executors: Any = (
            CachingExecutorFactory(self._sandboxes) if cell_cache else self._sandboxes
        )
        self.render_mode = render_mode
        self.observation_space = SharedText(
            max_length=MAX_OBSERVATION_CHARS, min_length=0, charset=CHARSET
        )
        self.action_space = SharedText(max_length=MAX_ACTION_CHARS, min_length=0, charset=CHARSET)
        self.last_observation: Observation | None = None
        #: The trace events of the last finished episode (what a job writes to trace.jsonl).
        self.last_events: tuple[TraceEvent, ...] = ()
        self._prompt = PromptRenderer()  # the packaged turn templates, as an LLM seat's
        self._references: dict[str, ReferenceWorkflow | None] = {}
        self._orch: Orchestrator | None = None
        self._policies: dict[str, Participant] = {}
        self._wall_start = 0.0
        self._last_text = ""
        self._task: Task | None = None
        self._done = True
        self._coverage = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- episode plumbing -------------------------------------------------------------
    def _policy(self, member: str, seed: int) -> Participant:
        chosen = self.opponents.get(member, "scripted")
        if not isinstance(chosen, str):
            return chosen
        if chosen != "scripted":
            raise ValueError(f"opponent policy for {member!r} must be 'scripted' or a "
                             f"Participant, got {chosen!r}")
        params = self.opponent_params.get(member)
        if member == self.team.agent:
            # its finish_by_turn follows this env's max_turns, as in `collabsim run`
            params = agent_params(params, self.max_turns)
            return build_scripted(member, "agent", seed=seed, params=params)
        profile = next(p for p in self.team.collaborators if p.key == member)
        return build_scripted(member, "collaborator", profile, seed=seed, params=params)

    def reference(self, task: Task) -> ReferenceWorkflow | None:
        """The task's reference workflow (for rewards only; never shown to the learner)."""
        if task.task_id not in self._references:
            path = task.reference_workflow_path
            self._references[task.task_id] = (
                load_reference(path) if path is not None and Path(path).exists() else None
            )
        return self._references[task.task_id]

    def _start(self, task: Task, seed: int) -> None:
        self._policies = {m: self._policy(m, seed) for m in self.team.members if m != self.learner}
        config = SessionConfig(
            task=task, team=self.team, structure=self.structure, seed=seed,
            max_turns=self.max_turns, max_time=self.max_time, policy="gym",
            knowledge=self.knowledge, coordination=self.coordination,
        )
        self._wall_start = time.perf_counter()
        self._orch = Orchestrator(config, executor_factory=self._executors)
        self._orch.use_participant_durations(self._policies)
        self._orch.start()
        self._coverage = 0.0

    def _stop(self) -> None:
        """Abandon the running session (status ``aborted``) and release its sandbox."""
        orch, self._orch = self._orch, None
        if orch is not None:
            try:
                if not orch.done:
                    orch.abort("aborted", "learner: episode abandoned by the environment")
            finally:
                orch.close()  # hands the sandbox back even if the abort failed

    def _advance(self, orch: Orchestrator) -> Turn | None:
        """Play opponents' turns until the learner's turn (None: the session ended)."""
        try:
            while (turn := orch.next_turn()) is not None:
                if turn.member == self.learner:
                    return turn
                try:
                    text = self._decide(turn.member, turn.observation)
                except SessionAbort as exc:
                    orch.abort(exc.status, f"{turn.member}: {exc.reason}")
                    continue
                except Exception as exc:  # noqa: BLE001 - ends the episode, as in run_session
                    orch.abort("error", f"{turn.member} raised {type(exc).__name__}: {exc}")
                    continue
                orch.submit(text)
        except Exception as exc:  # noqa: BLE001 - an engine failure ends the episode
            orch.abort("error", f"engine error {type(exc).__name__}: {exc}", at=orch.state.end_time)
        return None

    def _decide(self, member: str, obs: Observation) -> str:
        """An opponent's action: scripted policies decide directly; others (LLM policies)
        run their ``act`` on this env's private event loop."""
        policy = self._policies[member]
        decide = getattr(policy, "decide", None)
        if callable(decide):
            return decide(obs)
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(policy.act(obs))

    def _shaping(self, orch: Orchestrator) -> float:
        """Coverage progress since the learner's previous step (weighted)."""
        weight = self.reward_config.coverage
        ref = self.reference(self._task) if weight and self._task is not None else None
        if ref is None:
            return 0.0
        now = workflow_coverage(orch.state.events, ref)
        gain, self._coverage = now - self._coverage, now
        return weight * gain

    def _next(self) -> tuple[str, float, bool, bool, dict[str, Any]]:
        orch = self._orch
        assert orch is not None and self._task is not None
        turn = self._advance(orch)
        shaped = self._shaping(orch)
        if turn is not None:
            obs = turn.observation
            self.last_observation = obs
            if self.text_observations:
                self._last_text = turn_text(self._prompt, obs)
            info = {
                "task_id": obs.task.task_id, "time": obs.time, "phase": obs.phase,
                "turn": obs.turn, "available_actions": obs.available_actions,
                "feedback": obs.feedback,
            }
            return self._last_text, shaped, False, False, info
        return self._finish(orch, shaped)

    def _finish(self, orch: Orchestrator, shaped: float) -> tuple[str, float, bool, bool, dict]:
        orch.close()
        task = self._task
        assert task is not None
        result = session_result(orch, "gym", time.perf_counter() - self._wall_start, None)
        events = list(orch.state.events)
        self.last_events = tuple(events)
        self._done = True
        self._orch = None
        metrics = session_metrics(result, events, task, self.reference(task), team=self.team)
        reward = shaped + terminal_reward(metrics, self.reward_config)
        info = {
            "task_id": result.task_id, "status": result.status,
            "submitted_hypothesis": result.submitted_hypothesis,
            "virtual_seconds": result.virtual_seconds,
            "metrics": {k: v for k, v in metrics.items() if isinstance(v, float | int | str)},
            "performance": finite(metrics["Performance"]),
        }
        # The session's own limits (turns, virtual time) are part of the task: the episode's
        # final reward is paid here, so it is a terminal state. Marked "truncated", RL
        # libraries would add the value of a continuation on top (SB3 bootstraps truncated
        # steps), which rewards never finishing. Only a failed session is truncated.
        terminated = result.status in JUDGED_ENDINGS
        return self._last_text, reward, terminated, not terminated, info

    # -- gymnasium API ------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start a new session; ``options={"task_id": ..., "session_seed": ...}`` picks the
        task and the session's seed (default: drawn from ``seed``)."""
        super().reset(seed=seed)
        self._stop()
        options = options or {}
        if "task_id" in options:
            matches = [t for t in self.tasks if t.task_id == options["task_id"]]
            if not matches:
                raise ValueError(f"unknown task_id {options['task_id']!r}")
            task = matches[0]
        else:
            task = self.tasks[int(self.np_random.integers(len(self.tasks)))]
        session_seed = int(self.np_random.integers(2**31 - 1))
        if "session_seed" in options:  # replay a stored session (e.g. an exported one)
            session_seed = int(options["session_seed"])
        self._task = task
        self._done = False
        self._start(task, session_seed)
        text, _, terminated, truncated, info = self._next()
        info["session_seed"] = session_seed
        if terminated or truncated:
            raise RuntimeError(f"session for {task.task_id} ended before the learner's first turn")
        return text, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one learner action; returns the learner's next observation (or the end)."""
        if self._done or self._orch is None:
            raise RuntimeError("step() called on a finished episode; call reset()")
        text = str(action)
        cost = self.reward_config.turn_cost
        if self.reward_config.message_cost and text.lstrip().startswith("SEND_TEAMMATE_MESSAGE"):
            cost += self.reward_config.message_cost
        try:
            self._orch.submit(text)
        except Exception as exc:  # noqa: BLE001 - an engine failure ends the episode
            self._orch.abort(
                "error", f"engine error {type(exc).__name__}: {exc}", at=self._orch.state.end_time
            )
        obs, reward, terminated, truncated, info = self._next()
        return obs, reward - cost, terminated, truncated, info

    def render(self) -> str | None:
        """The last observation text (``render_mode="ansi"``)."""
        return self._last_text if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Abandon a running session; end the sandboxes and the event loop (idempotent).

        The pool closes first, so the running session's sandbox, handed back when the
        session closes, ends at once rather than being reset for a session that never
        comes. Every part is released even when an earlier one fails (the error is raised
        after the rest is closed).
        """
        with contextlib.ExitStack() as stack:  # callbacks run last-in first-out
            stack.callback(super().close)
            stack.callback(self._close_loop)
            stack.callback(self._stop)
            if self._sandboxes is not None:
                stack.callback(self._sandboxes.close)

    def _close_loop(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None:
            return
        # What asyncio.run does after its coroutine: tasks still pending (litellm's background
        # logging worker) are cancelled and awaited, then LLM clients' generators end. A task
        # left pending on a closed loop is reported ("Task was destroyed but it is pending!")
        # whenever the garbage collector finds it, in whatever the process does then.
        try:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()

    @property
    def task(self) -> Task | None:
        """The current episode's task (for evaluation code; the learner never sees it)."""
        return self._task

