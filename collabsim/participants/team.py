"""Team composition: one AI agent plus 0-2 simulated collaborators with profiles.

Profiles are data: the defaults ``D`` (data analysis) and ``R`` (researcher) ship as YAML
under ``collabsim/participants/profiles/``. A team is built from plain dicts (the Hydra
configs resolve to those); this module never imports Hydra.

Accepted dict forms (all keys optional)::

    {"collaborators": ["D", "R"]}
    {"name": "DR", "agent": "agent",
     "collaborators": [{"key": "D", "guidance": "...", "params": {"recompute_claims": false}}]}

A collaborator given as a string, or as a dict whose ``key`` has a packaged profile, starts
from that packaged profile; ``title``, ``guidance`` replace and ``params`` update its fields
(nested mappings such as the calibrated ``behaviour`` block key by key).
A collaborator key without a packaged profile must provide ``guidance``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml

from collabsim.core.records import Profile
from collabsim.core.team import AGENT_NAME, MAX_COLLABORATORS, TeamConfigError, TeamSpec
from collabsim.participants.behaviour.params import BehaviourConfigError
from collabsim.participants.behaviour.profile import BEHAVIOUR_FILE, resolve_behaviour
from collabsim.participants.scripted_params import CollaboratorParams

__all__ = [
    "AGENT_NAME",
    "MAX_COLLABORATORS",
    "TeamConfigError",
    "TeamSpec",
    "load_profile",
    "packaged_profile_keys",
    "profile_from_dict",
    "team_from_dict",
    "team_to_dict",
]

_PROFILES = "collabsim.participants.profiles"


def packaged_profile_keys() -> tuple[str, ...]:
    """Keys of the profiles shipped with the package (``("D", "R")``; their shared
    ``behaviour.yaml`` is not a profile)."""
    root = resources.files(_PROFILES)
    return tuple(sorted(p.name[:-5] for p in root.iterdir()
                        if p.name.endswith(".yaml") and p.name != BEHAVIOUR_FILE))


@lru_cache(maxsize=16)
def load_profile(key: str) -> Profile:
    """Load a packaged profile by key.

    Raises:
        TeamConfigError: No packaged profile has that key, or the file is malformed.
    """
    if key not in packaged_profile_keys():
        raise TeamConfigError(
            f"no packaged profile {key!r} (available: {', '.join(packaged_profile_keys())})"
        )
    folder = resources.files(_PROFILES)
    data = yaml.safe_load(folder.joinpath(f"{key}.yaml").read_text(encoding="utf-8"))
    return profile_from_dict(data, where=f"packaged profile {key}.yaml", folder=folder)


def profile_from_dict(
    data: Mapping[str, Any], where: str = "profile", folder: Path | Traversable | None = None
) -> Profile:
    """Build a :class:`Profile` from ``{key, title, guidance, params, behaviour}``.

    Args:
        data: The profile's fields.
        where: Names the profile in error messages.
        folder: The folder of the profile's file: a ``behaviour:`` naming a file (the shared
            ``behaviour.yaml``) is read from there.

    Raises:
        TeamConfigError: A field is missing or has the wrong type.
    """
    if not isinstance(data, Mapping):
        raise TeamConfigError(f"{where}: expected a mapping, got {type(data).__name__}")
    for name in ("key", "guidance"):
        if not isinstance(data.get(name), str) or not data[name].strip():
            raise TeamConfigError(f"{where}: field {name!r} must be a non-empty string")
    params = data.get("params") or {}
    if not isinstance(params, Mapping):
        raise TeamConfigError(f"{where}: field 'params' must be a mapping")
    params = dict(params)
    if data.get("behaviour") is not None:
        # the calibrated block (``collabsim calibrate``) travels with the params the policies read
        try:
            behaviour = resolve_behaviour(data["behaviour"], folder, f"{where}: behaviour")
        except BehaviourConfigError as err:
            raise TeamConfigError(str(err)) from None
        params.setdefault("behaviour", behaviour)
    return Profile(
        key=data["key"],
        title=str(data.get("title") or data["key"]),
        guidance=data["guidance"].strip(),
        params=params,
    )


def _collaborator(entry: Any, index: int) -> Profile:
    where = f"team.collaborators[{index}]"
    if isinstance(entry, str):
        return load_profile(entry)
    if isinstance(entry, Profile):
        return entry
    if not isinstance(entry, Mapping):
        raise TeamConfigError(f"{where}: expected a profile key or a mapping")
    key = entry.get("key")
    if not isinstance(key, str):
        raise TeamConfigError(f"{where}: field 'key' must be a string")
    if key in packaged_profile_keys():
        base = load_profile(key)
        extra = entry.get("params") or {}
        if not isinstance(extra, Mapping):
            raise TeamConfigError(f"{where}: field 'params' must be a mapping")
        params = _merged(base.params, extra)
        try:
            CollaboratorParams.from_mapping(params)  # a bad override: a user error, named here
        except ValueError as err:
            raise TeamConfigError(f"{where} ({key}): {err}") from None
        return Profile(
            key=key,
            title=str(entry.get("title") or base.title),
            guidance=str(entry.get("guidance") or base.guidance).strip(),
            params=params,
        )
    return profile_from_dict(entry, where=where)


def _merged(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``extra``, nested mappings merged key by key, so that an override
    such as ``+team.profiles.D.params.behaviour.check.agree_adopt.value=0.8`` changes that one
    value of the calibrated block (a non-mapping value, e.g. ``behaviour: null``, replaces)."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


def team_from_dict(data: Mapping[str, Any] | Sequence[str] | str | None) -> TeamSpec:
    """Build a :class:`TeamSpec` from plain config data.

    Args:
        data: A mapping (see module docstring), a list of collaborator keys, a label such as
            ``"DR"`` / ``"D"`` / ``"solo"``, or None (agent alone).

    Raises:
        TeamConfigError: The data does not describe a valid team.
    """
    if data is None:
        return TeamSpec()
    if isinstance(data, str):
        if data in ("solo", "single", "none", ""):
            return TeamSpec()
        if data in packaged_profile_keys():
            return TeamSpec(collaborators=(load_profile(data),))
        return TeamSpec(collaborators=tuple(load_profile(k) for k in data))
    if isinstance(data, Sequence):
        return TeamSpec(collaborators=tuple(_collaborator(e, i) for i, e in enumerate(data)))
    if not isinstance(data, Mapping):
        raise TeamConfigError(f"team: expected a mapping, got {type(data).__name__}")
    agent = data.get("agent", AGENT_NAME)
    if isinstance(agent, Mapping):
        agent = agent.get("name", AGENT_NAME)
    if not isinstance(agent, str):
        raise TeamConfigError("team.agent must be a string")
    entries = data.get("collaborators") or ()
    if isinstance(entries, str) or not isinstance(entries, Sequence):
        raise TeamConfigError("team.collaborators must be a list")
    return TeamSpec(
        agent=agent, collaborators=tuple(_collaborator(e, i) for i, e in enumerate(entries))
    )


def team_to_dict(team: TeamSpec) -> dict[str, Any]:
    """Plain-data form of a team (round-trips through :func:`team_from_dict`)."""
    return {
        "agent": team.agent,
        "collaborators": [
            {"key": p.key, "title": p.title, "guidance": p.guidance, "params": dict(p.params)}
            for p in team.collaborators
        ],
    }
