"""Run session plans concurrently, skipping what the store already holds."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from collabsim.core.observation import Participant
from collabsim.experiment.plan import SessionPlan
from collabsim.experiment.store import ResultStore
from collabsim.session.config import ExecutorFactory, SessionConfig
from collabsim.session.engine import run_session
from collabsim.session.results import INFRA_ERROR, UNSCORED_STATUSES, SessionResult

ParticipantFactory = Callable[[SessionPlan, SessionConfig, Path], Mapping[str, Participant]]
ConfigFactory = Callable[[SessionPlan], SessionConfig]
ResultCallback = Callable[[int, SessionResult], None]
LOCK_POLL_SECONDS = 0.05
INFRA_ATTEMPTS = 2
"""Runs of a session whose sandbox failed (status ``infra_error``): the first and one retry.
The other unscored statuses (``provider_error``, ``budget_exceeded``) are not retried within
the job: the provider or the budget would most likely fail the same way again at once."""
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunSummary:
    """What a batch of plans produced.

    Attributes:
        results: One result per plan, in plan order.
        ran: Sessions run now by this job.
        reused: Sessions whose result came from the store (finished earlier or by another
            job running concurrently on the same store).
        retried: Sessions run a second time because the sandbox failed in the first run.
    """

    results: tuple[SessionResult, ...]
    ran: int
    reused: int
    retried: int = 0

    @property
    def infra_errors(self) -> int:
        """Sessions whose sandbox failed in both runs (status ``infra_error``, never scored)."""
        return sum(r.status == INFRA_ERROR for r in self.results)

    @property
    def unscored(self) -> dict[str, int]:
        """Unscored status -> sessions that ended with it (sorted by status; none: empty).

        These sessions (:data:`~collabsim.session.results.UNSCORED_STATUSES`) are stored but
        left out of every table, and a rerun on the same store runs them again.
        """
        counts: dict[str, int] = {}
        for result in self.results:
            if result.status in UNSCORED_STATUSES:
                counts[result.status] = counts.get(result.status, 0) + 1
        return dict(sorted(counts.items()))

    def status_note(self) -> str | None:
        """``"9 sessions: 2 scored, 7 provider_error (not scored; rerun on resume)"``, or
        None when every session was scored."""
        unscored = self.unscored
        if not unscored:
            return None
        scored = len(self.results) - sum(unscored.values())
        counts = ", ".join(f"{n} {status}" for status, n in unscored.items())
        return (f"{len(self.results)} sessions: {scored} scored, {counts} (not scored, left "
                "out of every table; rerun on resume)")


async def _run_once_more_on_infra_error(
    plan: SessionPlan,
    store: ResultStore,
    config: SessionConfig,
    make_participants: ParticipantFactory,
    executor_factory: ExecutorFactory | None,
) -> tuple[SessionResult, int]:
    """Run one session; run it again from the start while its sandbox failed (status
    ``infra_error``), up to :data:`INFRA_ATTEMPTS` runs. Returns the last result and the
    number of reruns."""
    retries = 0
    while True:
        trace = store.prepare(plan)
        participants = make_participants(plan, config, trace.parent)
        result = await run_session(config, participants, trace, executor_factory=executor_factory)
        if result.status != INFRA_ERROR or retries + 1 >= INFRA_ATTEMPTS:
            return result, retries
        retries += 1
        log.warning("%s: %s; running the session again", plan.slug, result.error)


async def _all_or_first_error(coros: Sequence[Awaitable[None]]) -> None:
    """Await every coroutine; on the first failure cancel the rest, wait for them to end and
    raise that failure alone (a full disk fails every session at once: one error, reported
    once, not one unhandled exception per session at shutdown)."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def run_plans(
    plans: Sequence[SessionPlan],
    store: ResultStore,
    make_config: ConfigFactory,
    make_participants: ParticipantFactory,
    *,
    max_concurrency: int = 4,
    progress: bool = True,
    on_result: ResultCallback | None = None,
    executor_factory: ExecutorFactory | None = None,
) -> RunSummary:
    """Run every plan whose result is not yet stored, at most ``max_concurrency`` at once.

    A session that fails is recorded with status ``error`` by the engine; it never stops the
    others. A session during which the sandbox itself failed (status ``infra_error``) runs
    once more from the start; if that fails too it is stored with ``infra_error``. A
    session ending with any unscored status (``infra_error``, ``provider_error``,
    ``budget_exceeded``) is logged once, with its status and reason, and stored: the store
    runs it again next time and the tables leave it out. Results are written atomically as
    each session ends, so an interrupted job resumes where it stopped. A session runs only under its store lock: jobs sharing a
    store skip what another job is running and reuse its result when it is done.

    Args:
        plans: Sessions to run.
        store: Result store (reads finished sessions, writes new ones).
        make_config: Builds the engine's session config for a plan.
        make_participants: Builds the participants for a plan, given its session folder.
        max_concurrency: Sessions in flight at once.
        progress: Show a progress bar.
        on_result: Called with ``(plan index, result)`` as each session handled here ends,
            outside the concurrency limit, so work on a finished session (its metrics)
            overlaps the sessions still waiting on their sandboxes.
        executor_factory: Code executors of the sessions (default: a new sandbox each; a
            :class:`~collabsim.sandbox.SandboxPool` reuses them, reset, across sessions).
    """
    if max_concurrency < 1:
        raise ValueError("run.max_concurrency must be >= 1")
    results: list[SessionResult | None] = [store.load(p) for p in plans]
    todo = [i for i, r in enumerate(results) if r is None]
    semaphore = asyncio.Semaphore(max_concurrency)
    # Sessions another job on the same store holds right now: come back to them at the end.
    busy: list[int] = []
    ran = retried = 0
    bar = tqdm(
        total=len(todo),
        desc="sessions",
        unit="session",
        disable=not progress or not todo,
        dynamic_ncols=True,
    )

    async def one(index: int, wait: bool) -> None:
        nonlocal ran, retried
        plan = plans[index]
        async with semaphore:
            lock = store.try_lock(plan)
            # Polling rather than a blocking flock in a thread keeps Ctrl-C prompt.
            while lock is None and wait:
                await asyncio.sleep(LOCK_POLL_SECONDS)
                lock = store.try_lock(plan)
            if lock is None:
                busy.append(index)
                return
            with lock:
                done = store.load(plan, warn=False)  # finished by another job meanwhile?
                if done is None:
                    result, retries = await _run_once_more_on_infra_error(
                        plan, store, make_config(plan), make_participants, executor_factory)
                    retried += retries
                    done = store.save(plan, result)
                    ran += 1
                    if done.status in UNSCORED_STATUSES:
                        log.warning("%s: status %s (%s); not scored, left out of every "
                                    "table, rerun on resume", plan.slug, done.status, done.error)
            results[index] = done
            bar.update(1)
            bar.set_postfix_str(f"{plan.variant} {done.status}", refresh=False)
        if on_result is not None:
            on_result(index, done)

    try:
        await _all_or_first_error([one(i, wait=False) for i in todo])
        await _all_or_first_error([one(i, wait=True) for i in busy])
    finally:
        bar.close()
    final = tuple(r for r in results if r is not None)
    return RunSummary(results=final, ran=ran, reused=len(plans) - ran, retried=retried)
