"""The task record shared by every loader, the generator and the session engine.

A task is ``(datasets, query, gold)`` plus context. Participants only ever receive a
:class:`TaskBrief` (via :meth:`Task.brief`): it has no gold hypothesis and no reference
workflow graph, which only judges and metrics may read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from collabsim.core.knowledge import EVERYONE, Fact, KnowledgeSplit, facts_held
from collabsim.core.task import ColumnInfo, DatasetInfo, TaskBrief

__all__ = ["ColumnInfo", "DatasetInfo", "Task", "TaskBrief", "TaskSource", "make_task_id"]

TaskSource = Literal["discoverybench-real", "discoverybench-synth", "generated"]


@dataclass(frozen=True)
class Task:
    """A data-analysis task.

    Attributes:
        task_id: ``"<dataset>/<metadata n>/<query id>"``, e.g. ``"archaeology/27/0"``.
            Never derived from the ``id`` field inside metadata files.
        dataset: Dataset folder name (``"archaeology"``, ``"gen_000"``, ...).
        metadata_id: Number ``n`` of ``metadata_<n>.json``.
        query_id: ``qid`` of the query inside the metadata file.
        query: The question to answer.
        question_type: DiscoveryBench question type (``context``, ``relationship``, ...).
        domain: Domain name from the metadata.
        domain_knowledge: Free-text domain knowledge from the metadata.
        workflow_tags: Free-text workflow tags from the metadata.
        datasets: Data files with descriptions and columns.
        source: Where the task comes from.
        gold_hypothesis: The gold answer, when an answer key has one.
        reference_workflow_path: Path of the reference workflow graph JSON, when one exists.
        metadata_path: The metadata file the task was read from.
        facts: Facts that decide the answer (see :mod:`collabsim.core.knowledge`); who
            sees which is the session's knowledge split.
    """

    task_id: str
    dataset: str
    metadata_id: int
    query_id: int
    query: str
    question_type: str
    domain: str
    domain_knowledge: str
    workflow_tags: str
    datasets: tuple[DatasetInfo, ...]
    source: TaskSource
    gold_hypothesis: str | None = None
    reference_workflow_path: Path | None = None
    metadata_path: Path | None = None
    facts: tuple[Fact, ...] = ()

    def brief(self, participant: str = "agent",
              knowledge: KnowledgeSplit = EVERYONE) -> TaskBrief:
        """Return what ``participant`` sees of this task (no gold, no reference graph).

        Args:
            participant: ``agent`` or a collaborator's profile key (``D``, ``R``).
            knowledge: Who holds which kind of fact; the default shows everything.
        """
        return TaskBrief(
            task_id=self.task_id,
            query=self.query,
            question_type=self.question_type,
            domain=self.domain,
            domain_knowledge=(self.domain_knowledge if knowledge.holds(participant, "domain")
                              else ""),
            workflow_tags=self.workflow_tags,
            datasets=self.datasets,
            facts=facts_held(self.facts, knowledge, participant),
            knowledge="everyone" if knowledge.everyone_sees_everything else knowledge.name,
        )


def make_task_id(dataset: str, metadata_id: int, query_id: int) -> str:
    """Build the canonical task key ``"<dataset>/<metadata n>/<query id>"``."""
    return f"{dataset}/{metadata_id}/{query_id}"
