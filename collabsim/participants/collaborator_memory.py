"""What a scripted collaborator writes into the team memory in the build phase.

:func:`memory_entries`: its expertise, whom to trust for what and its evidence criteria (or
the profile's own ``memory_entries``); :func:`knowledge_entries`: the facts of its brief as
it believes them, with their fact tags (:mod:`collabsim.participants.asking`).
"""

from __future__ import annotations

from typing import Any

from collabsim.core.observation import Observation
from collabsim.core.tags import format_trust, parse_facts

__all__ = ["knowledge_entries", "memory_entries"]


def knowledge_entries(collab: Any, obs: Observation) -> list[tuple[str, str]]:
    """One memory entry per fact of my brief, as I believe it, with its fact tag: in the
    ``knowledge`` section where the memory has one, else under ``expertise``; none when
    everyone holds every fact, and none for a fact a teammate recorded as I believe it."""
    if obs.task.knowledge == "everyone":
        return []  # every teammate holds every fact: nothing to record for them
    sections = obs.memory.sections if obs.memory is not None else {}
    section = "knowledge" if "knowledge" in sections else "expertise"
    # a fact a teammate already recorded as I believe it is not written twice (under
    # tasks.knowledge=everyone every collaborator holds it)
    recorded = {(topic, tuple(sorted((setting or {}).items())))
                for texts in sections.values() for text in texts
                for topic, setting in parse_facts(text)}
    beliefs = dict(collab.believed_facts(obs.task))
    return [(section, f"Knowledge ({collab.name}): {collab.statement(obs.task, fact.topic)}")
            for fact in obs.task.facts
            if (fact.topic, tuple(sorted(beliefs[fact]))) not in recorded]


def memory_entries(collab: Any, stats: bool = False) -> list[tuple[str, str]]:
    """The profile's ``memory_entries``, else what it checks: expertise, trust and
    evidence criteria (``stats``: worded for a statistical task)."""
    if collab.params.memory_entries:
        return list(collab.params.memory_entries)
    who = f"{collab.name} ({collab.profile.title})"
    entries: list[tuple[str, str]] = []
    for role in ("numbers", "wording"):  # what D checks, what R checks
        if getattr(collab, role):
            expertise, trusted_for, criteria = _CHECKS[(stats, role)]
            entries += [
                ("expertise", f"Expertise {who}: {expertise}"),
                ("trust", format_trust(collab.name, trusted_for)),
                ("evidence_criteria", f"Evidence criteria ({collab.name}): {criteria}"),
            ]
    return entries


# (expertise, what teammates may trust it for, evidence criteria) by (statistical task, role)
_CHECKS: dict[tuple[bool, str], tuple[str, str, str]] = {
    (False, "numbers"): (
        "variable mapping, raw vs interpolated column variants, windows, extremes and n-th "
        "events; validates numbers by recomputing them.",
        "years and numbers",
        "every claimed year is recomputed independently on the *_inter columns."),
    (False, "wording"): (
        "query semantics - first vs second, peak vs highest sustained values, increase vs "
        "decrease, bounded periods.",
        "whether the wording answers the question",
        "the hypothesis states exactly the asked ordinal, direction and period."),
    (True, "numbers"): (
        "the statistics - model choice (linear vs logistic), controls, significance; "
        "validates numbers by recomputing them.",
        "the model and the numbers",
        "every stated effect is recomputed with the asked controls; a non-significant effect "
        "is not stated as one."),
    (True, "wording"): (
        "the question's meaning - which variable means what, which population, the "
        "direction asked.",
        "whether the wording answers the question",
        "the hypothesis names the asked variables and population and the direction the "
        "result shows."),
}
