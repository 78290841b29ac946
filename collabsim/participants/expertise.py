"""Expertise gaps as data: how often each participant errs, per area.

Two areas (:data:`collabsim.participants.human.AREAS`): **computation** - which column
variant, which window, the recomputed year; the area of data conventions - and
**semantics** - what the query means: which occurrence, peak vs sustained plateau, the
direction asked; the area of readings and domain knowledge. Each participant's rate per area
is set in one place per participant, and every value names its source (a documented prior,
never fitted to a Performance table):

===========  ============  =====================================================  =======
participant  area          setting (override)                                     default
===========  ============  =====================================================  =======
agent        computation   ``policy.agent.mistakes.wrong_column_variant``,        0.15,
                           ``...wrong_window``                                    0.10
agent        semantics     ``policy.agent.mistakes.wrong_ordinal``,               0.15,
                           ``...peak_vs_plateau``, ``...misread_query``           0.15, 0
D            computation   ``team.profiles.D.params.error_in_area`` (its area)    0.10
D            semantics     ``team.profiles.D.params.error_outside``               0.30
R            semantics     ``team.profiles.R.params.error_in_area`` (its area)    0.10
R            computation   ``team.profiles.R.params.error_outside``               0.30
===========  ============  =====================================================  =======

On the statistical family (:mod:`collabsim.participants.stat_mistakes`) the areas hold
other kinds - computation: ``omitted_control``, ``linear_for_binary``,
``significance_ignored`` (the model choice, controls and significance); semantics:
``wrong_variable``, ``wrong_subgroup``, ``direction_misread`` (which variable means what,
which population, the direction). The agent's rates are its own per-kind settings
(``policy.agent.mistakes.<kind>``: 0.15, 0.10, 0.15 and 0.15, 0.10, 0.05, each with its
``source``); a collaborator's are the same ``error_in_area`` / ``error_outside`` per area.

(the agent's in ``scripted_params.AGENT_DEFAULTS``, a collaborator's in its profile
``collabsim/participants/profiles/{D,R}.yaml``; override with ``policy.agent.mistakes.<kind>=``
or ``+team.profiles.<key>.params.error_in_area=``; ``policy.collaborator.<key>=`` sets both
collaborators.) A collaborator errs at its area's rate per mistake kind of its own analysis
and when it states a fact of that area (answering a question, recording it in memory:
:func:`collabsim.participants.asking.believed_setting`); the agent at its per-kind rates.

Whether a collaborator voices a disagreement outside its area at all is another setting,
``team.profiles.<key>.params.object_outside`` (:class:`~collabsim.participants.human.HumanModel`;
default 1, ``experiment=expertise_map`` sets 0: it defers outside its area).

:func:`area_rates` reports, for a resolved job config, each participant's rates per area
(:class:`AreaRate`): the mean per-kind rate, the chance of at least one mistake of the area
in a session and, for collaborators, the chance of stating a fact of the area wrongly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from collabsim.participants.human import AREAS, HUMAN_MISTAKES, HumanModel, area_of
from collabsim.participants.plan import MISTAKE_KINDS, MistakeModel
from collabsim.participants.scripted_params import AgentParams, CollaboratorParams
from collabsim.participants.stat_mistakes import STAT_MISTAKE_KINDS

__all__ = ["AreaRate", "agent_rates", "area_rates", "collaborator_rates", "format_rates"]

COLLABORATORS: tuple[str, ...] = ("D", "R")


@dataclass(frozen=True)
class AreaRate:
    """One participant's error rates in one area.

    Attributes:
        participant: ``agent`` or a collaborator's profile key.
        area: ``computation`` or ``semantics``.
        per_kind: Mean probability, over the area's mistake kinds, of making that mistake in
            a session.
        any_mistake: Probability of at least one mistake of the area in a session.
        fact_error: Probability of stating a fact of the area wrongly (collaborators; None
            for the agent, who holds no facts to state under ``by_profile``).
        setting: Where the rate is set (the config key to override).
        family: ``time_series`` (the archaeology-style kinds) or ``stats`` (the
            statistical family's kinds).
    """

    participant: str
    area: str
    per_kind: float
    any_mistake: float
    fact_error: float | None
    setting: str
    family: str = "time_series"


def _kinds(area: str, kinds: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(k for k in kinds if area_of(k) == area)


# The mistake kinds of each family: the agent's, a collaborator's.
_FAMILIES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "time_series": (MISTAKE_KINDS, HUMAN_MISTAKES),
    "stats": (STAT_MISTAKE_KINDS, STAT_MISTAKE_KINDS),
}


def _rate(participant: str, area: str, rates: list[float], fact_error: float | None,
          setting: str, family: str = "time_series") -> AreaRate:
    none = 1.0
    for p in rates:
        none *= 1.0 - p
    return AreaRate(participant, area, sum(rates) / len(rates) if rates else 0.0,
                    1.0 - none, fact_error, setting, family)


def agent_rates(mistakes: MistakeModel, family: str = "time_series") -> tuple[AreaRate, ...]:
    """The agent's rates per area, from its per-kind mistake probabilities of ``family``
    (``time_series`` or ``stats``)."""
    out = []
    for area in AREAS:
        kinds = _kinds(area, _FAMILIES[family][0])
        out.append(_rate("agent", area, [float(getattr(mistakes, k)) for k in kinds], None,
                         "policy.agent.mistakes." + "|".join(kinds), family))
    return tuple(out)


def collaborator_rates(key: str, human: HumanModel, family: str = "time_series"
                       ) -> tuple[AreaRate, ...]:
    """A collaborator's rates per area (``error_in_area`` in its expertise, else
    ``error_outside``) on the kinds of ``family``."""
    out = []
    for area in AREAS:
        kinds = _kinds(area, _FAMILIES[family][1])
        name = "error_in_area" if area == human.expertise else "error_outside"
        out.append(_rate(key, area, [human.error_rate(k) for k in kinds],
                         human.area_error(area), f"team.profiles.{key}.params.{name}", family))
    return tuple(out)


def area_rates(cfg: Mapping[str, Any]) -> tuple[AreaRate, ...]:
    """Every participant's per-area error rates under a resolved job config.

    Args:
        cfg: The composed config as plain containers (``policy.agent.mistakes``,
            ``team.profiles.<key>.params``, ``policy.collaborator``); missing parts take the
            defaults (the packaged profiles, the agent's default mistakes).

    Raises:
        ValueError: A malformed parameter (the message names it).
    """
    from collabsim.participants.team import team_from_dict

    policy = dict(cfg.get("policy") or {})
    agent = dict(policy.get("agent") or {})
    mistakes = (AgentParams.from_mapping({"mistakes": agent["mistakes"]}).mistakes
                if "mistakes" in agent else AgentParams().mistakes)
    profiles = dict((cfg.get("team") or {}).get("profiles") or {})
    entries = [{**dict(profiles[k]), "key": k} if profiles.get(k) else k for k in COLLABORATORS]
    team = team_from_dict({"collaborators": entries})
    extra = dict(policy.get("collaborator") or {})
    humans = [(profile.key, CollaboratorParams.from_mapping(
        {**dict(profile.params), **extra}, where=f"team.profiles.{profile.key}.params").human)
        for profile in team.collaborators]
    out: list[AreaRate] = []
    for family in _FAMILIES:
        out += agent_rates(mistakes, family)
        for key, human in humans:
            out += collaborator_rates(key, human, family)
    return tuple(out)


def format_rates(rates: tuple[AreaRate, ...]) -> str:
    """The rates as a small text table (one line per participant and area)."""
    lines = [f"{'participant':<11} {'area':<11} {'per kind':>8} {'any':>6} {'fact':>6}  "
             "family       setting"]
    for r in rates:
        fact = "-" if r.fact_error is None else f"{r.fact_error:.2f}"
        lines.append(f"{r.participant:<11} {r.area:<11} {r.per_kind:>8.3f} "
                     f"{r.any_mistake:>6.3f} {fact:>6}  {r.family:<12} {r.setting}")
    return "\n".join(lines)
