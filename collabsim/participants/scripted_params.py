"""Typed, frozen parameters of the scripted policies, built from config mappings.

:class:`AgentParams` are the scripted agent's (``policy.agent`` in
``configs/policy/scripted.yaml``; its defaults are that file's values), and
:class:`CollaboratorParams` a scripted collaborator's (its profile's ``params`` updated by
the run's ``policy.collaborator``). Both are read once, when the policy is built: an
unknown key or a value of the wrong type is refused with a :class:`ScriptedParamsError`
naming it, so a parameter nobody reads cannot be written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from collabsim.participants.human import (
    SCALARS,
    HumanConfigError,
    HumanModel,
    param_value,
)
from collabsim.participants.plan import MistakeModel

__all__ = ["AgentParams", "CollaboratorParams", "ScriptedParamsError"]


class ScriptedParamsError(HumanConfigError):
    """A scripted policy's parameters are malformed; the message names the key."""


def _yaml_mistakes() -> MistakeModel:
    return MistakeModel(wrong_column_variant=0.15, wrong_ordinal=0.15, peak_vs_plateau=0.15,
                        wrong_window=0.1, ignore_teammate=0.2, wrong_variable=0.15,
                        omitted_control=0.15, wrong_subgroup=0.1, linear_for_binary=0.1,
                        direction_misread=0.05, significance_ignored=0.15)


def _refuse_unknown(data: Mapping[str, Any], known: set[str] | frozenset[str],
                    where: str) -> None:
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ScriptedParamsError(f"{where}: unknown parameter {unknown[0]!r} "
                                  f"(known: {', '.join(sorted(known))})")


@dataclass(frozen=True)
class AgentParams:
    """The scripted agent's behaviour (see :mod:`collabsim.participants.scripted`).

    Attributes:
        mistakes: Probabilities of its realistic mistakes, drawn once per session.
        deference: Propensity to follow a non-binding objection (or keep a teammate's edit)
            when the team memory names nobody to trust for it.
        patience_seconds: Virtual seconds it waits for teammates' checks of an announced
            draft (an announced edit of the draft is waited for until it lands).
        reaction_patience_seconds: How long after its latest output (a cell, a message, a
            memory entry, an editor update) it waits for every teammate to react before it
            goes on (:mod:`collabsim.participants.agent_sharing`).
        lead_patience_seconds: How long it leaves the opening to its teammates (0: it starts
            at once).
        finish_by_turn: From this decision on it stops waiting for teammates and finishes
            (where the agent is built, the run's ``max_turns`` less the config's
            ``finish_margin_turns``: :mod:`collabsim.experiment.agent_turns`; the default is
            that of the default ``run.max_turns`` 80).
        wait_for_working_teammates: It does not FINISH while a teammate's action is under way.
        max_rejections: How often a rejected request is asked again.
        announce: It posts its drafts for checking.
        gates: Under ``scaffolded``, the ``(action, owner)`` lines it proposes for the memory's
            gates section (those of owners present in the team).
        ask_propensity: Probability (drawn once per session and topic) that it asks a
            teammate about a topic the query leaves open for it (written as
            ``{value, source}`` or a number).
    """

    mistakes: MistakeModel = field(default_factory=_yaml_mistakes)
    deference: float = 0.5
    patience_seconds: float = 120.0
    reaction_patience_seconds: float = 600.0
    lead_patience_seconds: float = 1830.0
    finish_by_turn: int = 70
    wait_for_working_teammates: bool = True
    max_rejections: int = 3
    announce: bool = True
    gates: tuple[tuple[str, str], ...] = (("EDITOR_UPDATE", "R"), ("FINISH", "D"))
    ask_propensity: float = 0.32

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | AgentParams | None,
                     where: str = "policy.agent") -> AgentParams:
        """Build from a config mapping (missing keys take the defaults).

        Raises:
            ScriptedParamsError: An unknown key or a malformed value (the message names it).
        """
        if isinstance(data, AgentParams):
            return data
        data = dict(data or {})
        _refuse_unknown(data, {f.name for f in fields(cls)}, where)
        try:
            values = _agent_values(data)
        except (TypeError, ValueError) as err:
            raise ScriptedParamsError(f"{where}: {err}") from None
        return cls(**values)


def _probability(key: str) -> Callable[[Any], float]:
    """A cast of a probability written as ``{value, source}`` or a number, in [0, 1]."""
    def cast(raw: Any) -> float:
        value = param_value({key: raw}, key)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{key}: must lie in [0, 1], got {value}")
        return value
    return cast


def _agent_values(data: Mapping[str, Any]) -> dict[str, Any]:
    """The typed values of the keys an agent's config mapping sets."""
    casts: dict[str, Callable[[Any], Any]] = {
        "mistakes": MistakeModel.from_mapping, "deference": _probability("deference"),
        "patience_seconds": float, "reaction_patience_seconds": float,
        "lead_patience_seconds": float, "finish_by_turn": int, "max_rejections": int,
        "wait_for_working_teammates": bool, "announce": bool,
        "gates": lambda gates: tuple((str(a), str(o)) for a, o in dict(gates).items()),
        "ask_propensity": _probability("ask_propensity"),
    }
    return {key: casts[key](value) for key, value in data.items()
            if not (key == "gates" and value is None)}


# Keys of a collaborator's params besides the HumanModel's.
_POLICY_KEYS = frozenset({"recompute_claims", "check_wording", "review_code", "escalate_after",
                          "confirm_propensity", "memory_entries"})
KNOWN_KEYS: frozenset[str] = frozenset({*SCALARS, "expertise", "behaviour", *_POLICY_KEYS})


@dataclass(frozen=True)
class CollaboratorParams:
    """A scripted collaborator's behaviour: its profile's ``params``.

    Attributes:
        human: The behavioural model (``expertise``, the scalar rates and the calibrated
            ``behaviour`` block; :class:`~collabsim.participants.human.HumanModel`).
        recompute_claims: D-style check: it recomputes the answer and compares the numbers.
        check_wording: R-style check: it compares the draft's wording with the query.
        review_code: It decides gated code by its columns (default: ``recompute_claims``).
        escalate_after: After this many rejections of the agent's FINISH the FINISH owner
            decides (submits its own version) instead of blocking on.
        confirm_propensity: Probability of saying so when a checked draft has no issue.
        memory_entries: ``(section, text)`` lines for the build phase (empty: derived from
            what it checks).
    """

    human: HumanModel
    recompute_claims: bool = False
    check_wording: bool = False
    review_code: bool = False
    escalate_after: float = 3.0
    confirm_propensity: float = 1.0
    memory_entries: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], where: str = "profile params"
                     ) -> CollaboratorParams:
        """Build from a profile's (merged) params.

        Raises:
            ScriptedParamsError: An unknown key or a malformed value (the message names it).
        """
        _refuse_unknown(data, KNOWN_KEYS, where)
        numbers = bool(data.get("recompute_claims", False))
        entries = data.get("memory_entries") or ()
        try:
            memory = tuple((str(s), str(t)) for s, t in entries)
        except (TypeError, ValueError):
            raise ScriptedParamsError(
                f"{where}.memory_entries: expected a list of [section, text]") from None
        return cls(
            human=HumanModel.from_params(data),
            recompute_claims=numbers,
            check_wording=bool(data.get("check_wording", False)),
            review_code=bool(data.get("review_code", numbers)),
            escalate_after=param_value(data, "escalate_after", 3.0),
            confirm_propensity=float(data.get("confirm_propensity", 1.0)),
            memory_entries=memory,
        )
