"""Rebuild the scripted policy a state block describes (for the offline provider).

A scripted policy's decision is a function of (observation, seed, params) only: what it
said, wrote and decided earlier it reads back from the observation (its messages in the
chat with their tags, its actions in its history), never from memory of earlier calls. So
any instance built for the member answers any turn of any run as the instance that answered
the turns before would: a turn whose reply came from the LLM disk cache (a resumed or
partly cached run), a repair call, the same session run twice in one process (a benchmark's
serial and concurrent passes, a gym environment reset to the same seed) need no run
continuity.

Instances are kept only as a cache of what they fold incrementally (the session log, the
agent's plan): in an LRU keyed by the session as the observation identifies it (task and
what the member knows of it, structure, teammates) with the member (name, role, profile),
seed and params, so that sessions run side by side do not make each other's folds start
afresh.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from collabsim.core.observation import Observation
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator, build_scripted

_MAX_INSTANCES = 1024
_lock = threading.Lock()
# key -> the instance and the lock its (incremental) caches are updated under
_instances: OrderedDict[str, tuple[ScriptedAgent | ScriptedCollaborator, threading.Lock]] = (
    OrderedDict())


def _key(observation: Observation, seed: int, params: Mapping[str, Any]) -> str:
    profile = observation.profile
    payload = {
        "task": observation.task.task_id,
        # what this member knows of the task: sessions that differ only in the knowledge
        # split (run side by side in a sweep) fold different observations
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


def _cached(observation: Observation, policy: Mapping[str, Any]
            ) -> tuple[ScriptedAgent | ScriptedCollaborator, threading.Lock]:
    seed = int(policy.get("seed", 0))
    params = dict(policy.get("params") or {})
    key = _key(observation, seed, params)
    with _lock:
        found = _instances.get(key)
        if found is None:
            found = (build_scripted(observation.me, observation.role, observation.profile,
                                    seed=seed, params=params), threading.Lock())
            _instances[key] = found
            while len(_instances) > _MAX_INSTANCES:
                _instances.popitem(last=False)
        _instances.move_to_end(key)
    return found


def scripted_policy_for(observation: Observation, policy: Mapping[str, Any]
                        ) -> ScriptedAgent | ScriptedCollaborator:
    """The scripted participant for the observation's member, seed and params (cached).

    Args:
        observation: The decoded observation (its ``me``, ``role`` and ``profile`` are used).
        policy: ``{"kind": "scripted", "seed": int, "params": {...}}``.

    Returns:
        The :class:`ScriptedAgent` or :class:`ScriptedCollaborator`.
    """
    return _cached(observation, policy)[0]


def scripted_answer(observation: Observation, policy: Mapping[str, Any]) -> str:
    """The action text the scripted policy described by ``policy`` takes on
    ``observation`` (one caller at a time per cached instance: its folds are updated as it
    decides)."""
    participant, lock = _cached(observation, policy)
    with lock:
        return participant.decide(observation)
