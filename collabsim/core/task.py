"""The participant-visible task records: data files, their columns, the task brief.

The full :class:`collabsim.tasks.model.Task` (with the gold hypothesis and the reference
workflow) stays in :mod:`collabsim.tasks`; observations carry only a :class:`TaskBrief`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from collabsim.core.knowledge import Fact


@dataclass(frozen=True)
class ColumnInfo:
    """One column of a dataset as described in the task metadata."""

    name: str
    description: str


@dataclass(frozen=True)
class DatasetInfo:
    """One data file of a task: its name, description, columns and location on disk."""

    name: str
    description: str
    columns: tuple[ColumnInfo, ...]
    path: Path


@dataclass(frozen=True)
class TaskBrief:
    """What a participant may see of a task: everything except gold and reference graph.

    ``facts`` are the task's facts this participant holds (see
    :mod:`collabsim.core.knowledge`); ``domain_knowledge`` is empty for a participant who
    does not hold domain knowledge. ``knowledge`` names the session's knowledge split
    (``everyone``, ``by_profile`` or ``custom``): whether teammates may hold facts this
    participant does not see (never which facts or what they say).
    """

    task_id: str
    query: str
    question_type: str
    domain: str
    domain_knowledge: str
    workflow_tags: str
    datasets: tuple[DatasetInfo, ...]
    facts: tuple[Fact, ...] = ()
    knowledge: str = "everyone"
