"""Observation builders for participant and LLM tests."""

from __future__ import annotations

from pathlib import Path

from collabsim.core.observation import Observation
from collabsim.core.task import ColumnInfo, DatasetInfo, TaskBrief


def sample_observation(turn: int = 0, role: str = "agent") -> Observation:
    """An agent observation on a one-file task."""
    brief = TaskBrief(
        task_id="gen_000/0/0",
        query="When does the count of Dagger first rise?",
        question_type="context",
        domain="archaeology",
        domain_knowledge="Negative years are BCE.",
        workflow_tags="",
        datasets=(
            DatasetInfo(
                name="finds",
                description="Artefact counts per period.",
                columns=(ColumnInfo("CE", "Year (CE)"), ColumnInfo("Dagger", "Daggers found")),
                path=Path("finds.csv"),
            ),
        ),
    )
    return Observation(
        me="agent",
        role=role,  # type: ignore[arg-type]
        profile=None,
        teammates=(),
        time=0.0,
        structure="single",
        phase="work",
        task=brief,
        available_actions=("EXECUTE_CODE", "EDITOR_UPDATE", "FINISH", "WAIT_TEAMMATE_CONTINUE"),
        turn=turn,
    )
