"""Rebuild the scripted policy a state block describes (for the offline provider).

A scripted policy keeps per-session state (the messages it posted, the edits it made), so an
instance must serve exactly one session: instances are kept in an LRU keyed by the session
as the observation identifies it (task, structure, teammates) together with the member
(name, role, profile), seed and params. Two sessions share an instance only when they are
the same session run twice, whose decisions are identical.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from collabsim.core.observation import Observation, Participant

_MAX_INSTANCES = 1024
_lock = threading.Lock()
_instances: OrderedDict[str, Participant] = OrderedDict()


def _key(observation: Observation, seed: int, params: Mapping[str, Any]) -> str:
    profile = observation.profile
    payload = {
        "task": observation.task.task_id,
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


def scripted_policy_for(observation: Observation, policy: Mapping[str, Any]) -> Participant:
    """The scripted participant for the observation's member, seed and params.

    Args:
        observation: The decoded observation (its ``me``, ``role`` and ``profile`` are used).
        policy: ``{"kind": "scripted", "seed": int, "params": {...}}``.

    Returns:
        A (possibly reused) :class:`ScriptedAgent` or :class:`ScriptedCollaborator`.
    """
    from collabsim.participants.scripted import build_scripted

    seed = int(policy.get("seed", 0))
    params = dict(policy.get("params") or {})
    key = _key(observation, seed, params)
    with _lock:
        found = _instances.get(key)
        if found is not None:
            _instances.move_to_end(key)
            return found
    participant: Participant = build_scripted(
        observation.me, observation.role, observation.profile, seed=seed, params=params
    )
    with _lock:
        _instances[key] = participant
        while len(_instances) > _MAX_INSTANCES:
            _instances.popitem(last=False)
    return participant
