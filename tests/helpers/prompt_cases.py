"""Fact-free observations whose rendered prompts are pinned in ``prompts_without_facts.json``.

``python tests/helpers/prompt_cases.py`` rewrites the pinned file from the current
templates; do that only for an intended prompt change (LLM disk caches keyed by the old
prompts stop serving those calls).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from collabsim.core.observation import Observation
from collabsim.core.records import (
    Activity,
    ChatMessage,
    CodeCell,
    GateRequest,
    HistoryEntry,
    MemoryView,
)
from collabsim.core.task import ColumnInfo, DatasetInfo, TaskBrief
from collabsim.participants.llm_policy import PromptRenderer
from collabsim.participants.state_block import encode_state
from collabsim.participants.team import team_from_dict

GOLDEN = Path(__file__).with_name("prompts_without_facts.json")
POLICY = {"kind": "scripted", "seed": 2, "params": {"mistakes": {"wrong_ordinal": 0.5}}}
ACTIONS = ("SEND_TEAMMATE_MESSAGE", "EXECUTE_CODE", "EDITOR_UPDATE", "WAIT_TEAMMATE_CONTINUE",
           "FINISH")


def brief() -> TaskBrief:
    """A task without facts (the published setting shows everyone the whole brief)."""
    return TaskBrief(
        task_id="gen_000/0/0",
        query="When did the count of Dagger first rise?",
        question_type="context",
        domain="archaeology",
        domain_knowledge="Negative years are BCE.",
        workflow_tags="time series",
        datasets=(DatasetInfo("finds", "Artefact counts per period.",
                              (ColumnInfo("year", "Year"), ColumnInfo("Dagger", "Daggers")),
                              Path("finds.csv")),),
    )


def observations() -> dict[str, Observation]:
    """One observation per prompt layout: solo agent, team agent, collaborators."""
    team = team_from_dict("DR")
    task = brief()
    chat = (ChatMessage(0, 10.0, "D", "Check the second rise, not the first."),
            ChatMessage(1, 12.0, "agent", 'Looking: "Dagger" [draft=0badf00d]'))
    cells = (CodeCell(2, 20.0, "agent", "print(df.head())", "   year  Dagger\n0 -3000 1\n", True),)
    history = (HistoryEntry(2, 20.0, "agent", "EXECUTE_CODE", "ok", "ran print(df.head())"),)
    return {
        "agent_solo": Observation(
            me="agent", role="agent", profile=None, teammates=(), time=0.0, structure="single",
            phase="work", task=task, available_actions=ACTIONS[1:]),
        "agent_team": Observation(
            me="agent", role="agent", profile=None, teammates=("D", "R"), time=30.0,
            structure="scaffolded", phase="work", task=task, chat=chat, code_cells=cells,
            editor_text="Dagger first rises c. 2300 BCE.",
            memory=MemoryView({"plan": ("D checks numbers",), "gates": ("FINISH: D",)}, True),
            gates={"FINISH": "D"},
            my_pending=(GateRequest("g1", 5, 20.0, "agent", "D", "FINISH", {}),),
            history=history, feedback=("Your FINISH waits for D.",), available_actions=ACTIONS,
            turn=3, working=(Activity("R", "SEND_TEAMMATE_MESSAGE", 28.0),)),
        "collaborator_D": Observation(
            me="D", role="collaborator", profile=team.profile("D"), teammates=("agent", "R"),
            time=40.0, structure="preassigned_gates", phase="work", task=task, chat=chat,
            code_cells=cells, gates={"FINISH": "D"},
            pending_for_me=(GateRequest("g1", 5, 20.0, "agent", "D", "FINISH", {}),),
            history=history,
            available_actions=("SEND_TEAMMATE_MESSAGE", "APPROVE", "REJECT",
                               "WAIT_TEAMMATE_CONTINUE"), turn=2),
        "collaborator_R": Observation(
            me="R", role="collaborator", profile=team.profile("R"), teammates=("agent", "D"),
            time=5.0, structure="memory", phase="build", task=task,
            memory=MemoryView({"plan": (), "trust": ("rely on D for numbers",)}, False,
                              ("agent",)),
            available_actions=("SEND_TEAMMATE_MESSAGE", "WAIT_TEAMMATE_CONTINUE"), turn=0),
    }


def render_all() -> dict[str, list[str]]:
    """Name -> [system, turn with state block, repair] prompts of every observation."""
    renderer = PromptRenderer()
    out: dict[str, list[str]] = {}
    for name, obs in observations().items():
        block = encode_state(obs, POLICY)
        system, user = (m["content"] for m in renderer.messages(obs, "my notes", block))
        out[name] = [system, user, renderer.repair(obs, "hmm", "No action found.", block)]
    return out


def _write() -> None:
    prompts: dict[str, Any] = render_all()
    GOLDEN.write_text(json.dumps(prompts, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)


if __name__ == "__main__":
    _write()
