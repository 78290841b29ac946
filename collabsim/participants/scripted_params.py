"""Typed, frozen parameters of the scripted policies, built from config mappings.

:class:`AgentParams` are the scripted agent's (``policy.agent``; its defaults are
:data:`AGENT_DEFAULTS`, the one place of their values, which Hydra composes as the policy
config), and
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
from collabsim.session.config import MAX_TURNS

__all__ = ["AGENT_DEFAULTS", "COLLABORATOR_DEFAULTS", "AgentParams", "CollaboratorParams",
           "ScriptedParamsError"]


class ScriptedParamsError(HumanConfigError):
    """A scripted policy's parameters are malformed; the message names the key."""


#: The scripted agent's parameters as the run config's ``policy.agent`` holds them (Hydra
#: composes this mapping as ``configs/policy/scripted.yaml``'s content, see
#: :mod:`collabsim.cli.typed_defaults`; ``policy=llm`` composes it too, for the offline
#: provider ``collabsim/scripted``). This is the one place of their values: the
#: :class:`AgentParams` defaults are read from it. A rate with a documented prior is written
#: ``{"value": ..., "source": ...}``; none is fitted to a Performance table.
AGENT_DEFAULTS: dict[str, Any] = {
    # Probabilities of the scripted agent's realistic mistakes (0 = off).
    "mistakes": {
        "wrong_column_variant": 0.15,
        "wrong_ordinal": 0.15,
        "peak_vs_plateau": 0.15,
        "wrong_window": 0.1,
        "ignore_teammate": 0.2,
        # The statistical family's kinds (collabsim.participants.stat_mistakes; drawn from a
        # stream of their own, so time-series sessions are unchanged). Areas: computation =
        # omitted_control, linear_for_binary, significance_ignored; semantics =
        # wrong_variable, wrong_subgroup, direction_misread (collabsim.participants.expertise).
        "wrong_variable": {
            "value": 0.15,
            "source": ("prior:as wrong_column_variant (0.15) - choosing among similarly named or described columns is the same act; picking the wrong variable/column is the most frequent LLM failure in data-analysis benchmarks' error analyses (Majumder et al. 2024, DiscoveryBench, sec. 6; Hu et al. 2024, InfiAgent-DABench)"),
        },
        "omitted_control": {
            "value": 0.15,
            "source": ("prior:as wrong_ordinal (0.15), the agent's other per-session rate for a part of the query it must carry into the computation; omitted covariates are a common error of novice analysts (Panko 2008 ~1-5 % per step, a handful of steps per model)"),
        },
        "wrong_subgroup": {
            "value": 0.1,
            "source": ('prior:as wrong_window (0.1) - restricting the rows to the asked population is the stats analogue of restricting the period'),
        },
        "linear_for_binary": {
            "value": 0.1,
            "source": ('prior:assumption - LLMs choose an inappropriate statistical method in a minority of cases (Liu et al. 2024, QRData: statistical-reasoning errors incl. method choice); the linear probability model is also a defensible default many analysts use, so a low rate'),
        },
        "direction_misread": {
            "value": 0.05,
            "source": ("prior:assumption - sign errors are rarer than choice errors; a third of the agent's other semantic rates (0.15)"),
        },
        "significance_ignored": {
            "value": 0.15,
            "source": ("prior:LLM and human reports overstate non-significant effects often (spin in ~40 % of abstracts with non-significant primary outcomes, Boutron et al. 2010, JAMA); a per-session rate of 0.15, as the agent's other computation kinds"),
        },
    },
    # How the agent weighs a teammate's objection it is not bound to follow: in `default` it
    # follows with this fixed propensity whoever is right; with team memory it follows the
    # teammate recorded as trusted for the area, otherwise this propensity; gate
    # owners' decisions always bind. prior: LLMs abandon an answer when challenged in ~46 %
    # of cases (Laban et al. 2023, "Are you sure? Challenging LLMs leads to performance drops").
    "deference": 0.5,
    # Virtual seconds the agent waits for teammates' checks of a draft before finishing
    # without them. prior: a little more than one median gap between human events in the
    # Kolab sessions (exp(tempo_mean) ~ 94 s in the calibrated profiles).
    "patience_seconds": 120,
    # Virtual seconds the agent waits, after each output of its own (a cell, a message, a
    # memory entry, an editor update), for every teammate to react before it goes on (Kolab's
    # AI waits for the person: 2 of 668 human-AI edges run AI -> AI). prior: about twice the
    # upper quartile (307 s) of the sessions' 90 % quantile of human response times in the
    # Kolab graphs (`collabsim fidelity`).
    "reaction_patience_seconds": 600,
    # The agent leaves the opening of the work phase to its teammates (in all 31 Kolab
    # sessions a human acts before the AI): it waits at most this long for a teammate's first
    # action, and for a teammate who said it looks at the data first to ask it to start.
    # prior: the longest solo lead-in in the Kolab graphs (1,830 s before the first AI node);
    # 0 = start at once.
    "lead_patience_seconds": 1830,
    # The agent stops waiting for teammates (a lead's go, checks of its draft) and finishes
    # from decision run.max_turns - finish_margin_turns on (70 of the default 80), leaving
    # this many decisions for a gated FINISH to be decided before the budget ends
    # (collabsim.experiment.agent_turns).
    "finish_margin_turns": 10,
    # The agent does not FINISH while a teammate's action is under way (a message being
    # written, a cell running, an edit being made: the workspace shows who is at work, not
    # what), so the session does not end on the teammate's reaction cut off. data: in 30 of
    # the 31 Kolab sessions the human responds to the AI's last output. finish_margin_turns
    # bounds it.
    "wait_for_working_teammates": True,
    # The agent asks a teammate about a topic the query leaves open for it and no fact it
    # holds settles (`[ask topic=... to=...]`: the teammate whose area covers it, R for
    # readings, D for data conventions), with this probability per session and topic, and
    # waits for the answer up to patience_seconds (collabsim.participants.asking).
    "ask_propensity": {
        "value": 0.32,
        "source": ("prior:LLMs seldom notice that a request is ambiguous - GPT-4 produced a correct disambiguation for 32 % of AMBIENT's ambiguous sentences vs 90 % for humans (Liu et al. 2023, We're Afraid Language Models Aren't Modeling Ambiguity, EMNLP); unprompted clarifying questions are rarer still (Zhang et al. 2024, CLAMBER)"),
    },
}

#: ``policy.collaborator``: what a run changes in every scripted collaborator's profile
#: ``params`` (nothing by default).
COLLABORATOR_DEFAULTS: dict[str, Any] = {}


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
            that of the default ``run.max_turns``).
        wait_for_working_teammates: It does not FINISH while a teammate's action is under way.
        max_rejections: How often a rejected request is asked again.
        announce: It posts its drafts for checking.
        gates: Under ``scaffolded``, the ``(action, owner)`` lines it proposes for the memory's
            gates section (those of owners present in the team).
        ask_propensity: Probability (drawn once per session and topic) that it asks a
            teammate about a topic the query leaves open for it (written as
            ``{value, source}`` or a number).
    """

    mistakes: MistakeModel = field(
        default_factory=lambda: MistakeModel.from_mapping(AGENT_DEFAULTS["mistakes"]))
    deference: float = float(AGENT_DEFAULTS["deference"])
    patience_seconds: float = float(AGENT_DEFAULTS["patience_seconds"])
    reaction_patience_seconds: float = float(AGENT_DEFAULTS["reaction_patience_seconds"])
    lead_patience_seconds: float = float(AGENT_DEFAULTS["lead_patience_seconds"])
    finish_by_turn: int = MAX_TURNS - AGENT_DEFAULTS["finish_margin_turns"]
    wait_for_working_teammates: bool = AGENT_DEFAULTS["wait_for_working_teammates"]
    max_rejections: int = 3
    announce: bool = True
    gates: tuple[tuple[str, str], ...] = (("EDITOR_UPDATE", "R"), ("FINISH", "D"))
    ask_propensity: float = param_value(AGENT_DEFAULTS, "ask_propensity")

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
