"""``collabsim/TeamAnalysis-v0``: train an AI agent against simulated collaborators.

The learner plays the team's AI agent in a real collabsim session (shared workspace, sandbox,
structures, virtual clock); the collaborators are the scripted D/R policies. One episode is
one session on one task:

* **observation** – the agent's view rendered as text (the same turn prompt an LLM agent
  gets: task, data description, chat, code cells with outputs, editor, memory, gates,
  history, feedback, available actions);
* **action** – the text of one action in the action language, e.g.
  ``EXECUTE_CODE(code="print(df.head())")``; prose around it is tolerated, a malformed or
  illegal action becomes an error the agent sees next turn;
* **reward** – 0 per step; at the end the deterministic judge's Performance of the
  submitted hypothesis against the task's gold (context × variable F1 × relation) when the
  task has a gold, else 0;
* **terminated** when the agent's ``FINISH`` takes effect; **truncated** when the session
  hits its turn or virtual-time limit.

The environment steps the session's :class:`~collabsim.session.orchestrator.Orchestrator`
directly, in the caller's thread: ``step`` submits the learner's action (code runs then),
then plays the scripted collaborators' turns until it is the agent's turn again or the
session has ended. No threads, queues or event loops are involved.
"""

from __future__ import annotations

import string
import time
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from collabsim.core.errors import SessionAbort
from collabsim.core.observation import Participant
from collabsim.metrics.judge_rules import RuleJudge
from collabsim.participants.llm_policy import PromptRenderer
from collabsim.participants.scripted import build_scripted
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import session_result
from collabsim.session.orchestrator import Orchestrator, Turn
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import default_suite_root
from collabsim.tasks.model import Task

# Characters the text spaces accept; anything else in an observation is replaced by "?".
CHARSET = string.printable + "".join(chr(c) for c in range(0xA0, 0x180)) + "–—‘’“”…×→≥≤±·"
MAX_OBSERVATION_CHARS = 60_000
MAX_ACTION_CHARS = 8_000
T = TypeVar("T")


def resolve_now(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends (a scripted policy's ``act``) to its value.

    Raises:
        RuntimeError: The coroutine waited for real I/O; it needs an event loop.
    """
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError(
        "a collaborator policy suspended in act(); TeamAnalysisEnv steps sessions without an "
        "event loop, so its collaborators must decide synchronously (scripted policies do)"
    )


def _sanitise(text: str, limit: int) -> str:
    allowed = _CHARSET_SET
    clean = "".join(ch if ch in allowed else "?" for ch in text)
    return clean if len(clean) <= limit else clean[: limit - 20] + "\n...[truncated]"


_CHARSET_SET = frozenset(CHARSET)


class TeamAnalysisEnv(gym.Env[str, str]):
    """A collabsim session with the learner as the AI agent.

    Args:
        tasks_root: DiscoveryBench-layout root to draw tasks from (None: the built-in
            generated suite).
        task_ids: Restrict episodes to these task ids (default: all tasks found).
        team: Collaborators: ``"single"``, ``"D"``, ``"R"`` or ``"DR"``.
        structure: Collaboration structure (``single`` is implied for ``team="single"``).
        max_turns: Decisions per participant before the episode is truncated.
        collaborator_params: Parameters of the scripted collaborators.
        render_mode: ``"ansi"`` to return the observation text from :meth:`render`.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        tasks_root: str | Path | None = None,
        task_ids: list[str] | None = None,
        team: str = "DR",
        structure: str = "default",
        max_turns: int = 30,
        collaborator_params: dict[str, Any] | None = None,
        render_mode: str | None = None,
    ) -> None:
        root = Path(tasks_root) if tasks_root is not None else default_suite_root()
        tasks = list(load_tasks(root).tasks)
        if task_ids:
            wanted = set(task_ids)
            tasks = [t for t in tasks if t.task_id in wanted]
        if not tasks:
            raise ValueError(f"no tasks found under {root} (task_ids={task_ids})")
        self.tasks: list[Task] = tasks
        self.team = team_from_dict("single" if team == "single" else team)
        self.structure = builtin_structure("single" if team == "single" else structure)
        self.max_turns = int(max_turns)
        self.collaborator_params = dict(collaborator_params or {})
        self.render_mode = render_mode
        self.observation_space = spaces.Text(
            max_length=MAX_OBSERVATION_CHARS, min_length=0, charset=CHARSET
        )
        self.action_space = spaces.Text(max_length=MAX_ACTION_CHARS, min_length=0, charset=CHARSET)
        self._renderer = PromptRenderer()
        self._judge = RuleJudge()
        self._orch: Orchestrator | None = None
        self._collaborators: Mapping[str, Participant] = {}
        self._wall_start = 0.0
        self._last_text = ""
        self._task: Task | None = None
        self._done = True

    # -- episode plumbing -------------------------------------------------------------
    def _start(self, task: Task, seed: int) -> None:
        self._collaborators = {
            profile.key: build_scripted(
                profile.key, "collaborator", profile, seed=seed, params=self.collaborator_params
            )
            for profile in self.team.collaborators
        }
        config = SessionConfig(
            task=task,
            team=self.team,
            structure=self.structure,
            seed=seed,
            max_turns=self.max_turns,
            policy="gym",
        )
        self._wall_start = time.perf_counter()
        self._orch = Orchestrator(config)
        self._orch.start()

    def _stop(self) -> None:
        """Abandon the running session (status ``aborted``) and release its sandbox."""
        if self._orch is not None:
            if not self._orch.done:
                self._orch.abort("aborted", "agent: episode abandoned by the environment")
            self._orch.close()
        self._orch = None

    def _advance(self, orch: Orchestrator) -> Turn | None:
        """Play collaborator turns until the agent's turn (None: the session ended)."""
        agent = self.team.agent
        try:
            while (turn := orch.next_turn()) is not None:
                if turn.member == agent:
                    return turn
                try:
                    text = resolve_now(self._collaborators[turn.member].act(turn.observation))
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

    def _next(self) -> tuple[str, float, bool, bool, dict[str, Any]]:
        orch = self._orch
        assert orch is not None and self._task is not None
        turn = self._advance(orch)
        if turn is not None:
            obs = turn.observation
            text = _sanitise(self._renderer.turn(obs, "", None), MAX_OBSERVATION_CHARS)
            self._last_text = text
            info = {
                "task_id": obs.task.task_id,
                "time": obs.time,
                "phase": obs.phase,
                "turn": obs.turn,
                "available_actions": obs.available_actions,
                "feedback": obs.feedback,
            }
            return text, 0.0, False, False, info
        orch.close()
        result = session_result(orch, "gym", time.perf_counter() - self._wall_start, None)
        self._done = True
        self._orch = None
        reward = 0.0
        score = None
        if self._task.gold_hypothesis:
            score = self._judge.score(
                result.submitted_hypothesis, self._task.gold_hypothesis, self._task
            )
            reward = float(score.performance)
        info = {
            "task_id": result.task_id,
            "status": result.status,
            "submitted_hypothesis": result.submitted_hypothesis,
            "virtual_seconds": result.virtual_seconds,
            "score": score,
        }
        terminated = result.status == "finished"
        return self._last_text, reward, terminated, not terminated, info

    # -- gymnasium API ------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start a new session; ``options={"task_id": ...}`` picks the task."""
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
        self._task = task
        self._done = False
        self._start(task, session_seed)
        text, _, terminated, truncated, info = self._next()
        info["session_seed"] = session_seed
        if terminated or truncated:
            raise RuntimeError(f"session for {task.task_id} ended before the agent's first turn")
        return text, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one agent action; returns the agent's next observation (or the end)."""
        if self._done or self._orch is None:
            raise RuntimeError("step() called on a finished episode; call reset()")
        try:
            self._orch.submit(str(action))
        except Exception as exc:  # noqa: BLE001 - an engine failure ends the episode
            self._orch.abort(
                "error", f"engine error {type(exc).__name__}: {exc}", at=self._orch.state.end_time
            )
        return self._next()

    def render(self) -> str | None:
        """The last observation text (``render_mode="ansi"``)."""
        return self._last_text if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Abandon a running session and release its sandbox."""
        self._stop()
        super().close()


def observation_array(text: str) -> np.ndarray:
    """Bytes of an observation as a uint8 array (for learners that want numbers)."""
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
