"""A collaborator's cells decide a score: nothing the agent ran may answer or change them."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from helpers.forgery import TAKE_OVER_REPLIES

from collabsim.core.actions import format_action
from collabsim.participants.team import team_from_dict
from collabsim.sandbox import Sandbox, SandboxLimits
from collabsim.session.config import SessionConfig
from collabsim.session.orchestrator import Orchestrator
from collabsim.tasks.model import Task

# The agent's cell takes the worker's own reply function over (found through its frames) and
# rewrites the task file (the working directory belongs to the worker).
FORGE = TAKE_OVER_REPLIES + textwrap.dedent(
    """
    import os
    os.unlink('series.csv')
    open('series.csv', 'w').write('year,dagger\\n1234,99\\n')
    print('done')
    """
)
RECOMPUTE = (
    "import pandas as pd\n"
    "df = pd.read_csv('series.csv')\n"
    "print('RESULT year=%d' % df.loc[df['dagger'].idxmax(), 'year'])"
)


def _real(files: Sequence[Path], limits: Any) -> Sandbox:
    return Sandbox(list(files), SandboxLimits(wall_seconds=20.0))


def _run(task: Task, tmp_path: Path) -> dict[str, list[dict[str, Any]]]:
    """The agent forges first, then D recomputes; the agent runs one more cell; then both wait until the session ends."""
    trace = tmp_path / "trace.jsonl"
    orch = Orchestrator(SessionConfig(task=task, team=team_from_dict("D")), trace,
                        executor_factory=_real)
    orch.start()
    script = {
        "agent": [format_action("EXECUTE_CODE", code=FORGE),
                  format_action("EXECUTE_CODE", code="print('agent again')")],
        "D": [format_action("EXECUTE_CODE", code=RECOMPUTE)],
    }
    wait = format_action("WAIT_TEAMMATE_CONTINUE", max_seconds="30")
    while (turn := orch.next_turn()) is not None:
        queue = script[turn.member]
        ready = turn.member == "agent" or len(script["agent"]) < 2  # D after the forgery
        orch.submit(queue.pop(0) if queue and ready else wait)
    orch.close()
    cells: dict[str, list[dict[str, Any]]] = {"agent": [], "D": []}
    for line in trace.read_text().splitlines():
        event = json.loads(line)
        if event["action_type"] == "EXECUTE_CODE":
            cells[event["actor"]].append(event)
    return cells


def test_a_collaborators_recomputation_cannot_be_forged_by_the_agents_code(
    task: Task, tmp_path: Path
) -> None:
    cells = _run(task, tmp_path)
    assert [c["observation"] for c in cells["agent"]][:1] == ["done"]
    (recompute,) = cells["D"]
    assert recompute["status"] == "ok", recompute
    assert "FORGED" not in recompute["observation"]
    # the task's own file, not the agent's rewrite
    assert recompute["observation"] == "RESULT year=-2400"
