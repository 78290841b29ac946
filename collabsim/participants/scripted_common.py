"""State records and observation helpers shared by the scripted agent and collaborators
(:mod:`collabsim.participants.scripted` describes the policies)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from collabsim.core.actions import format_action
from collabsim.core.observation import Observation
from collabsim.core.tags import parse_trust
from collabsim.participants.plan import (
    AnalysisPlan,
    MistakeModel,
    apply_mistakes,
)
from collabsim.participants.query import QuerySemantics
from collabsim.participants.reading import read_brief
from collabsim.participants.stat_facts import rechoose_after_facts
from collabsim.participants.stat_mistakes import agent_stat_mistakes, apply_stat_mistakes
from collabsim.participants.stats_reading import is_statistical, read_stat_brief
from collabsim.tasks.model import TaskBrief

WAIT = "WAIT_TEAMMATE_CONTINUE"
T = TypeVar("T")


@dataclass(frozen=True)
class Rule(Generic[T]):
    """One rule of a scripted policy's decision table: when ``guard(policy, turn)`` holds
    (and no earlier rule's did), the policy takes ``act(policy, turn)``."""

    name: str
    guard: Callable[[Any, T], bool]
    act: Callable[[Any, T], str]


def allowed(obs: Observation, name: str) -> bool:
    return not obs.available_actions or name in obs.available_actions


def say(text: str) -> str:
    """The action posting ``text`` in the team chat."""
    return format_action("SEND_TEAMMATE_MESSAGE", message=text)


@dataclass(frozen=True)
class TaskContext:
    semantics: QuerySemantics
    plan: AnalysisPlan
    mistakes: frozenset[str]
    mistaken_plan: AnalysisPlan


@dataclass(frozen=True)
class Reading:
    """A collaborator's own reading of a task: semantics and plan after its own mistakes."""

    semantics: QuerySemantics
    plan: AnalysisPlan
    mistakes: frozenset[str]


def task_context(brief: TaskBrief, seed: int, mistakes: MistakeModel) -> TaskContext:
    """The agent's reading of a task: the query read with the facts of its brief
    (:func:`~collabsim.participants.reading.read_brief`), and this session's mistakes.

    A statistical task (:func:`~collabsim.participants.stats_reading.is_statistical`) is
    read by :func:`~collabsim.participants.stats_reading.read_stat_brief`: ``semantics`` is
    then a :class:`~collabsim.domain.stats.reading.StatQuery` and the plans are
    :class:`~collabsim.domain.stats.model.StatPlan`, corrupted by the family's mistakes
    (:func:`~collabsim.participants.stat_mistakes.apply_stat_mistakes`; the time-series
    kinds do not apply to them)."""
    if is_statistical(brief):
        query, stat_plan = read_stat_brief(brief)
        # held facts naming the variables: the analysis chosen for them
        stat_plan = rechoose_after_facts(stat_plan, brief, query)
        # the family's own mistakes, from a stream of their own (stat_mistakes.agent_stat_mistakes):
        # the plan kinds corrupt the plan, the wording kinds what the agent states
        drawn = mistakes.draw(seed, brief.task_id) | agent_stat_mistakes(mistakes, seed, brief.task_id)
        return TaskContext(query, stat_plan, drawn,  # type: ignore[arg-type]
                           apply_stat_mistakes(stat_plan, drawn, brief))
    semantics, plan = read_brief(brief)
    drawn = mistakes.draw(seed, brief.task_id)
    return TaskContext(semantics, plan, drawn, apply_mistakes(plan, drawn))


_TRUST_WORDS: dict[str, tuple[str, ...]] = {
    "computation": ("numbers", "years", "computation"),
    "semantics": ("wording", "semantics", "question"),
}


def trusted_areas(obs: Observation) -> dict[str, frozenset[str]]:
    """Teammate -> areas the team memory's ``trust`` section says to rely on them for."""
    if obs.memory is None:
        return {}
    out: dict[str, set[str]] = {}
    for line in obs.memory.sections.get("trust", ()):
        trust = parse_trust(line)
        if trust is None:
            continue
        name, what = trust
        for area, words in _TRUST_WORDS.items():
            if any(w in what for w in words):
                out.setdefault(name, set()).add(area)
    return {k: frozenset(v) for k, v in out.items()}


def transactive_memory(obs: Observation) -> bool:
    """Whether the team memory works as a transactive memory for this decision
    (``coordination.transactive_memory`` and the memory records who knows what: an
    ``expertise`` entry)."""
    return bool(obs.coordination.transactive_memory and obs.memory is not None
                and obs.memory.sections.get("expertise"))


def build_step(obs: Observation, entries: list[tuple[str, str]], agree: bool = True) -> str:
    """The next build-phase action: the first of ``entries`` not in the memory yet, else
    agree to the memory (``agree``; else wait), else wait."""
    memory = obs.memory
    if memory is None or memory.read_only:
        return format_action(WAIT)
    for section, text in entries:
        if (section in memory.sections and text not in memory.sections.get(section, ())
                and allowed(obs, "MEMORY_ADD")):
            return format_action("MEMORY_ADD", section=section, text=text)
    if agree and obs.me not in memory.agreed and allowed(obs, "MEMORY_AGREE"):
        return format_action("MEMORY_AGREE")
    return format_action(WAIT)
