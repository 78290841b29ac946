"""SessionEnv.close(): ends the running session, its sandbox and the event loop, once."""

from __future__ import annotations

import os
import time

import pytest

from collabsim.core.actions import format_action
from collabsim.core.observation import Observation
from collabsim.envs.discovery_team import DiscoveryTeamEnv
from collabsim.sandbox import SandboxPool

CODE = format_action("EXECUTE_CODE", code="print('hello')")
WAIT = "WAIT_TEAMMATE_CONTINUE()"


class AsyncWaiter:
    """An opponent decided through ``act`` (as LLM policies are): always waits."""

    role = "collaborator"

    def __init__(self, name: str) -> None:
        self.name = name

    async def act(self, observation: Observation) -> str:
        return WAIT


def _alive(pid: int, wait: float = 0.0) -> bool:
    """Whether process ``pid`` exists (waiting up to ``wait`` s for it to be gone)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.05)


def _running_env(monkeypatch) -> tuple[DiscoveryTeamEnv, list]:
    restores: list = []
    monkeypatch.setattr(SandboxPool, "_restore", staticmethod(restores.append))
    env = DiscoveryTeamEnv(team="D", max_turns=10, opponents={"D": AsyncWaiter("D")})
    env.reset(seed=0)
    env.step(CODE)  # the session now holds a sandbox worker
    assert env._loop is not None, "the async opponent ran on the env's loop"
    return env, restores


def test_close_mid_episode_ends_the_sandbox_without_resetting_it_and_is_idempotent(
    monkeypatch,
) -> None:
    env, restores = _running_env(monkeypatch)
    sandbox = env._orch.runner.executor.sandbox
    pid, workdir = sandbox.pid, sandbox.workdir
    assert pid is not None and _alive(pid) and workdir.exists()
    loop = env._loop
    env.close()
    assert sandbox.closed and not workdir.exists()
    assert not _alive(pid, wait=10.0), "the worker is killed (and reaped by its fork server)"
    # the pool was closed before the session handed its sandbox back: no reset was
    # started for an episode that never comes, and nothing is left idle
    assert restores == []
    assert env._sandboxes._closed and not env._sandboxes._idle
    assert loop.is_closed() and env._loop is None
    env.close()  # a second close is a no-op
    with pytest.raises(RuntimeError, match="reset"):
        env.step(WAIT)


def test_close_releases_the_sandbox_and_loop_even_when_aborting_the_session_fails(
    monkeypatch,
) -> None:
    env, _ = _running_env(monkeypatch)
    sandbox, loop = env._orch.runner.executor.sandbox, env._loop

    def broken_abort(*args, **kwargs):
        raise RuntimeError("abort failed")

    monkeypatch.setattr(env._orch, "abort", broken_abort)
    with pytest.raises(RuntimeError, match="abort failed"):
        env.close()
    assert sandbox.closed and not sandbox.workdir.exists()
    assert env._sandboxes._closed and not env._sandboxes._idle
    assert loop.is_closed() and env._orch is None
    env.close()


def test_close_after_a_finished_episode_and_before_any_reset() -> None:
    never_reset = DiscoveryTeamEnv(team="D", max_turns=2)
    never_reset.close()
    never_reset.close()
    env = DiscoveryTeamEnv(team="D", max_turns=2)
    env.reset(seed=1)
    done = False
    while not done:
        done = any(env.step(CODE)[2:4])
    pool = env._sandboxes
    assert len(pool._idle) == 1, "the finished episode's sandbox waits for the next one"
    idle = pool._idle[0]
    env.close()
    assert idle.closed and not pool._idle


def test_close_cancels_what_an_opponent_left_running_on_the_envs_loop(monkeypatch) -> None:
    """A background task an LLM client starts on the env's loop (litellm's logging worker)
    is cancelled and awaited before the loop closes, as ``asyncio.run`` does: a task left
    pending on a closed loop is reported whenever it is garbage-collected, into whatever the
    process prints then."""
    import asyncio

    env, _ = _running_env(monkeypatch)
    forever = env._loop.create_task(asyncio.Event().wait())
    env.close()
    assert forever.cancelled()
