"""Team-chosen gate owners: who owns the claim and the submission, from what the build phase
recorded and what the task hinges on (``coordination.chosen_owners``,
:mod:`collabsim.core.coordination`).

The routing rule (a transactive-memory rule: route each decision to the member whose
recorded expertise covers it; Wegner 1987, Moreland & Myaskovsky 2000):

1. **Who knows what.** The areas each teammate claimed in the memory's ``expertise``
   section (:func:`recorded_areas`: "computation" for the data analysis - variable mapping,
   column variants, windows, recomputing; "semantics" for the query's meaning).
2. **What the task hinges on.** The decision points the query leaves to judgement, counted
   per area (:func:`hinge_area`): on a time-series task, semantics holds the occurrence asked
   (a second or later one), peak vs sustained values, a bounded period and a relation with a
   commonly misread counterpart; computation holds the column variants to choose between
   (raw vs gap-filled) and every further series the computation must combine. On a
   statistical task, semantics holds the population filters, the direction asked and
   several candidate predictors; computation holds the controls, a model choice (a binary
   outcome) and an interaction. The area with more points is the one the task hinges on
   (ties: semantics, the claim's wording being what the judge reads).
3. **Owners.** ``EDITOR_UPDATE`` (the claim) goes to the teammate whose recorded area is
   the hinge area; ``FINISH`` (the last check before submission) to a teammate of the other
   area. With one teammate, it owns both; a teammate that recorded no area is never chosen
   over one that did; without any recorded expertise the proposal falls back to the
   agent's configured one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from collabsim.core.observation import Observation
from collabsim.domain.stats.model import StatPlan
from collabsim.participants.plan import MISREAD_RELATIONS

__all__ = ["choose_owners", "hinge_area", "recorded_areas"]

# words of an expertise entry that claim an area (collaborator_memory writes them)
_AREA_WORDS: Mapping[str, tuple[str, ...]] = {
    "computation": ("variable mapping", "recomput", "statistics", "column variant",
                    "model choice"),
    "semantics": ("query semantics", "question's meaning", "ordinal", "wording"),
}


def recorded_areas(obs: Observation) -> dict[str, str]:
    """Teammate -> the area its entries in the memory's ``expertise`` section claim (the
    first area whose words an entry by it uses; entries name their author as
    ``Expertise <name> (...)``)."""
    if obs.memory is None:
        return {}
    out: dict[str, str] = {}
    for text in obs.memory.sections.get("expertise", ()):
        lowered = text.lower()
        for name in obs.teammates:
            if f"expertise {name.lower()} " in lowered and name not in out:
                for area, words in _AREA_WORDS.items():
                    if any(w in lowered for w in words):
                        out[name] = area
                        break
    return out


def hinge_area(semantics: Any, plan: Any) -> str:
    """The area whose decisions the task hinges on (module docstring, rule 2)."""
    if isinstance(plan, StatPlan):
        sem = len(plan.filters) + (1 if len(plan.predictors) > 1 else 0) + 1
        comp = len(plan.controls) + (1 if plan.analysis == "logit" else 0) + (
            1 if plan.interaction else 0)
    else:
        sem = sum((semantics.ordinal >= 2,
                   semantics.relation in ("peak", "plateau"),
                   semantics.window is not None,
                   semantics.relation in MISREAD_RELATIONS))
        comp = len(plan.raw_columns) + max(0, len(plan.columns) - 1)
    return "computation" if comp > sem else "semantics"


def choose_owners(obs: Observation, semantics: Any, plan: Any,
                  fallback: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The ``(action, owner)`` lines the agent proposes for the memory's gates section.

    Args:
        obs: The agent's build-phase observation (the memory as recorded so far).
        semantics: The agent's reading of the query.
        plan: The agent's plan.
        fallback: The configured proposal, used when no teammate recorded an area.
    """
    areas = recorded_areas(obs)
    present = [n for n in obs.teammates if n in areas]
    if not present:
        return tuple((a, o) for a, o in fallback if o in obs.teammates or o == obs.me)
    hinge = hinge_area(semantics, plan)
    claim = next((n for n in present if areas[n] == hinge), present[0])
    check = next((n for n in present if n != claim and areas[n] != areas[claim]), claim)
    return (("EDITOR_UPDATE", claim), ("FINISH", check))
