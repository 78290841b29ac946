"""Rebuild the scripted policy a state block describes (for the offline provider).

A scripted policy keeps per-run state (the messages it posted, the edits it made), so an
instance must serve exactly one run of one session. Instances are kept in an LRU keyed by
the session as the observation identifies it (task, structure, teammates) together with the
member (name, role, profile), seed and params, and each instance remembers the last turn it
was asked for (``observation.turn``, the member's own turn count); the session key includes
what the member knows of the task (its facts, domain knowledge and the knowledge split). A
call continues the run whose instance last answered the turn before; a call for turn 0 (a
run's first) starts a fresh instance. So the same session run twice in one process (a
benchmark's serial and concurrent passes, a gym environment reset to the same seed) decides
the same way both times, also when the two runs are interleaved. A repair call (``policy["repair"]``) goes to
the instance that answered that turn.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from collabsim.core.observation import Observation, Participant

_MAX_SESSIONS = 1024
_MAX_RUNS_PER_SESSION = 64
_lock = threading.Lock()


@dataclass
class _Run:
    """One run's scripted participant and the last turn it was asked for."""

    participant: Participant
    turn: int


_instances: OrderedDict[str, list[_Run]] = OrderedDict()


def _key(observation: Observation, seed: int, params: Mapping[str, Any]) -> str:
    profile = observation.profile
    payload = {
        "task": observation.task.task_id,
        # what this member knows of the task: sessions that differ only in the knowledge
        # split (run side by side in a sweep) must not share instances
        "knowledge": observation.task.knowledge,
        "facts": [[f.kind, f.topic, f.text, list(f.setting)] for f in observation.task.facts],
        "domain_knowledge": observation.task.domain_knowledge,
        "structure": observation.structure,
        "teammates": list(observation.teammates),
        "name": observation.me,
        "role": observation.role,
        "profile": None
        if profile is None
        else [profile.key, profile.title, profile.guidance, dict(profile.params)],
        "seed": seed,
        "params": dict(params),
    }
    return json.dumps(payload, sort_keys=True, default=str)


def _pick(runs: list[_Run], turn: int, repair: bool) -> _Run | None:
    """The run this call continues, or None when it starts a new one."""
    if repair:
        return next((r for r in reversed(runs) if r.turn == turn), None)
    if turn <= 0:
        return None
    # the most recently used first: a run abandoned mid-way is never preferred
    following = [r for r in runs if r.turn == turn - 1]
    if following:
        return following[-1]
    earlier = [r for r in runs if r.turn < turn]  # turns served from a cache were skipped
    return max(reversed(earlier), key=lambda r: r.turn) if earlier else None


def scripted_policy_for(observation: Observation, policy: Mapping[str, Any]) -> Participant:
    """The scripted participant for the observation's member, seed, params and run.

    Args:
        observation: The decoded observation (its ``me``, ``role``, ``profile`` and ``turn``
            are used).
        policy: ``{"kind": "scripted", "seed": int, "params": {...}}`` (``"repair": True``
            on a repair call).

    Returns:
        The :class:`ScriptedAgent` or :class:`ScriptedCollaborator` of this run (a new one
        at the run's first turn).
    """
    from collabsim.participants.scripted import build_scripted

    seed = int(policy.get("seed", 0))
    params = dict(policy.get("params") or {})
    key = _key(observation, seed, params)
    turn = int(observation.turn)
    with _lock:
        runs = _instances.get(key)
        found = _pick(runs, turn, bool(policy.get("repair"))) if runs else None
        if found is not None:
            found.turn = turn
            runs.remove(found)
            runs.append(found)
            _instances.move_to_end(key)
            return found.participant
    participant: Participant = build_scripted(
        observation.me, observation.role, observation.profile, seed=seed, params=params
    )
    with _lock:
        runs = _instances.setdefault(key, [])
        runs.append(_Run(participant, turn))
        del runs[:-_MAX_RUNS_PER_SESSION]
        _instances.move_to_end(key)
        while len(_instances) > _MAX_SESSIONS:
            _instances.popitem(last=False)
    return participant
