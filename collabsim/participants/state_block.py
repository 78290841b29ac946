"""A machine-readable copy of an observation, embedded in a prompt.

The offline provider (:mod:`collabsim.participants.offline_provider`) answers prompts without a
network by rebuilding the scripted policy. It needs the participant's observation, which
is exactly what the prompt shows the participant; the prompt therefore carries it once more
as a fenced JSON block::

    ```collabsim-state
    {"observation": {...}, "policy": {"kind": "scripted", "seed": 0, "params": {...}}}
    ```

The block holds nothing a participant may not see (the observation has a TaskBrief, never
the gold hypothesis or a reference workflow) plus the scripted policy's seed and parameters.
The brief's ``facts`` are the ones this participant holds (its private knowledge, see
:mod:`collabsim.core.knowledge`), so a block never carries a teammate's facts.
:func:`encode_state` / :func:`decode_state` round-trip an
:class:`~collabsim.core.observation.Observation` exactly.

A brief without facts under the published ``everyone`` split is written without the
``facts`` and ``knowledge`` keys, so prompts of such tasks (and the LLM disk cache entries
keyed by them) are the same as before tasks could carry facts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from collabsim.core.coordination import CoordinationSpec
from collabsim.core.knowledge import Fact
from collabsim.core.observation import Observation
from collabsim.core.records import (
    Activity,
    ChatMessage,
    CodeCell,
    GateRequest,
    HistoryEntry,
    MemoryView,
    Profile,
)
from collabsim.core.task import ColumnInfo, DatasetInfo, TaskBrief

STATE_FENCE = "collabsim-state"


class StateBlockError(ValueError):
    """A prompt has no (valid) state block."""


_SCALARS = (str, int, float, bool, type(None))


# Field names per dataclass type: ``dataclasses.fields()`` rebuilds a tuple on every call,
# and an observation holds ~40 dataclass instances (a prompt is rendered per model call).
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}

# Plain copies of task briefs, keyed by id() (the brief is kept alive in the entry, so an id
# is never reused while cached). A session shows the same brief in every observation, and
# converting its datasets and columns was most of the per-call encoding cost.
_BRIEF_CACHE: dict[int, tuple[TaskBrief, dict[str, Any]]] = {}
_BRIEF_CACHE_MAX = 256
# Brief fields left out of a block when they have these values (the brief of a task without
# facts under the published split, which was encoded without them before they existed).
_BRIEF_DEFAULTS: dict[str, Any] = {"facts": [], "knowledge": "everyone"}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = tuple(f.name for f in fields(cls))
        _FIELD_NAMES[cls] = names
    return names


def _plain_brief(brief: TaskBrief) -> dict[str, Any]:
    """A TaskBrief as plain data, cached (callers never mutate the result)."""
    found = _BRIEF_CACHE.get(id(brief))
    if found is not None and found[0] is brief:
        return found[1]
    data = {name: _plain(getattr(brief, name)) for name in _field_names(type(brief))}
    for name, default in _BRIEF_DEFAULTS.items():
        if data.get(name) == default:
            del data[name]
    if len(_BRIEF_CACHE) >= _BRIEF_CACHE_MAX:
        _BRIEF_CACHE.clear()
    _BRIEF_CACHE[id(brief)] = (brief, data)
    return data


def _plain(value: Any) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if type(value) is TaskBrief:
        return _plain_brief(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {name: _plain(getattr(value, name)) for name in _field_names(type(value))}
    return _plain_container(value)


def _plain_container(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def observation_to_dict(observation: Observation) -> dict[str, Any]:
    """A JSON-able dict of an observation (tuples become lists, paths strings)."""
    data: dict[str, Any] = _plain(observation)
    # fields added later are left out while unset, so such prompts (and the LLM cache
    # entries keyed by them) stay as they were
    if data.get("editor_seen") is None:
        data.pop("editor_seen", None)
    if observation.coordination == CoordinationSpec():
        data.pop("coordination", None)
    for entry in data.get("history") or ():
        if entry.get("request_type") is None:
            entry.pop("request_type", None)
    return data


def _brief(data: Mapping[str, Any]) -> TaskBrief:
    datasets = tuple(
        DatasetInfo(
            name=d["name"],
            description=d["description"],
            columns=tuple(ColumnInfo(c["name"], c["description"]) for c in d["columns"]),
            path=Path(d["path"]),
        )
        for d in data["datasets"]
    )
    return TaskBrief(
        task_id=data["task_id"],
        query=data["query"],
        question_type=data["question_type"],
        domain=data["domain"],
        domain_knowledge=data["domain_knowledge"],
        workflow_tags=data["workflow_tags"],
        datasets=datasets,
        facts=tuple(_fact(f) for f in data.get("facts") or ()),
        knowledge=str(data.get("knowledge", _BRIEF_DEFAULTS["knowledge"])),
    )


def _fact(d: Mapping[str, Any]) -> Fact:
    return Fact(kind=d["kind"], topic=d["topic"], text=d["text"],
                setting=tuple((str(k), str(v)) for k, v in d.get("setting") or ()))


def _gate(d: Mapping[str, Any]) -> GateRequest:
    return GateRequest(
        request_id=d["request_id"],
        seq=d["seq"],
        time=d["time"],
        author=d["author"],
        owner=d["owner"],
        action_type=d["action_type"],
        args=dict(d.get("args") or {}),
    )


def observation_from_dict(data: Mapping[str, Any]) -> Observation:
    """Rebuild an :class:`Observation` from :func:`observation_to_dict` output."""
    profile = data.get("profile")
    memory = data.get("memory")
    return Observation(
        me=data["me"],
        role=data["role"],
        profile=(
            Profile(
                key=profile["key"],
                title=profile["title"],
                guidance=profile["guidance"],
                params=dict(profile.get("params") or {}),
            )
            if profile
            else None
        ),
        teammates=tuple(data.get("teammates") or ()),
        time=data["time"],
        structure=data["structure"],
        phase=data["phase"],
        task=_brief(data["task"]),
        chat=tuple(ChatMessage(**m) for m in data.get("chat") or ()),
        code_cells=tuple(CodeCell(**c) for c in data.get("code_cells") or ()),
        editor_text=data.get("editor_text", ""),
        memory=(
            MemoryView(
                sections={k: tuple(v) for k, v in (memory.get("sections") or {}).items()},
                read_only=bool(memory.get("read_only", False)),
                agreed=tuple(memory.get("agreed") or ()),
            )
            if memory is not None
            else None
        ),
        gates=dict(data.get("gates") or {}),
        pending_for_me=tuple(_gate(g) for g in data.get("pending_for_me") or ()),
        my_pending=tuple(_gate(g) for g in data.get("my_pending") or ()),
        history=tuple(HistoryEntry(**h) for h in data.get("history") or ()),
        feedback=tuple(data.get("feedback") or ()),
        available_actions=tuple(data.get("available_actions") or ()),
        turn=int(data.get("turn", 0)),
        working=tuple(Activity(**w) for w in data.get("working") or ()),
        max_turns=data.get("max_turns"),
        max_time=data.get("max_time"),
        editor_seen=data.get("editor_seen"),
        coordination=CoordinationSpec(**(data.get("coordination") or {})),
    )


def encode_state(observation: Observation, policy: Mapping[str, Any]) -> str:
    """Render the fenced state block for a prompt.

    Args:
        observation: What the participant sees now.
        policy: How the offline provider should answer (``{"kind": "scripted", "seed": ...,
            "params": {...}}``; see :mod:`collabsim.participants.offline_provider`).

    Returns:
        The block (canonical JSON, keys sorted), without a trailing newline.
    """
    payload = {"observation": observation_to_dict(observation), "policy": _plain(policy)}
    body = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"```{STATE_FENCE}\n{body}\n```"


def decode_state(messages: Sequence[Mapping[str, Any]]) -> tuple[Observation, dict[str, Any]]:
    """Find the last state block in chat messages and decode it.

    Args:
        messages: The chat messages of a request.

    Returns:
        ``(observation, policy spec)``.

    Raises:
        StateBlockError: No block, or it does not decode.
    """
    opening = "```" + STATE_FENCE
    for message in reversed(list(messages)):
        content = str(message.get("content") or "")
        start = content.rfind(opening)
        if start < 0:
            continue
        body_start = content.find("\n", start)
        end = content.find("\n```", body_start)
        if body_start < 0 or end < 0:
            raise StateBlockError(f"unterminated {STATE_FENCE} block")
        try:
            payload = json.loads(content[body_start + 1 : end])
            return observation_from_dict(payload["observation"]), dict(payload["policy"])
        except (ValueError, KeyError, TypeError) as exc:
            raise StateBlockError(f"invalid {STATE_FENCE} block: {exc}") from exc
    raise StateBlockError(f"no ```{STATE_FENCE} block in the prompt")
