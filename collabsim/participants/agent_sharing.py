"""The scripted agent interleaving with its teammates, as Kolab's AI does.

In the Kolab sessions two AI outputs almost never follow each other (2 of 668 edges between
the AI and the human run AI -> AI): the AI answers a request, shows what it did and waits for
the person's reaction. The scripted agent does the same:

* **shares results**: after its computation ran it says what it found (the cell's ``RESULT``
  line, ``[found cell=<seq>]``; with ``[done step=compute for=<seq>]`` when a teammate asked
  for the computation), before it drafts;
* **waits for reactions**: after each code cell, chat message, editor update or group-memory
  entry of its own it waits until a teammate has acted since that output landed (a comment,
  a step of its own, a check: a node that follows the output, so two AI nodes do not follow
  each other; waiting for every teammate would spend the agent's budgeted decisions, each
  landing waking it) and none is still at work on one begun after it, at most
  ``reaction_patience_seconds`` after it landed (the at-work clause only with
  ``wait_for_working_teammates``), and not from ``finish_by_turn`` on. The
  build phase's decisions are budgeted (``build_max_turns``): there it waits only within its
  first :data:`BUILD_WAIT_TURNS` decisions, and the teammates answer its entries later, in
  their first comment of the work phase;
* **announces a draft only to those who have not looked at it**: a draft every teammate
  already checked in chat is not announced again (:func:`draft_checked_by_all`);
* **does delegated steps**: a teammate's ``[please step=...]`` asks for its next step
  (compute, draft), which it then takes; the wait for reactions ends with the request.

Pure functions of the observation and the agent's params.
"""

from __future__ import annotations

import math
from typing import Any

from collabsim.core.observation import Observation
from collabsim.core.records import CodeCell
from collabsim.core.tags import (
    draft_fingerprint,
    format_done,
    format_found,
    found_cells,
    parse_replies,
    requested_steps,
)
from collabsim.participants.cells import COMPUTE_MARK
from collabsim.participants.scripted_common import allowed, say

# How much later the agent looks again when a teammate's action landed just as it decides
# (to finish, or to go on after a reaction): the time resolution of the Kolab graphs (1 s).
LOOK_AGAIN_SECONDS = 1.0

# In the build phase, whose decisions are budgeted in total (build_max_turns, 24 by default),
# the agent waits for a reaction (any teammate's, not every one's) only within its first this
# many decisions there, so that the teammates' entries (up to 4 each, facts included) still
# fit the budget (tests/participants/test_asking.py).
BUILD_WAIT_TURNS = 4

# Own actions whose landing is an output teammates react to.
_OUTPUTS = frozenset({"EXECUTE_CODE", "SEND_TEAMMATE_MESSAGE", "MEMORY_ADD", "EDITOR_UPDATE"})


def _latest_output(obs: Observation) -> tuple[int, float] | None:
    """``(seq, landing time)`` of my latest output (module docstring; None: no output yet)."""
    return max(((e.seq, e.time) for e in obs.history if e.actor == obs.me
                and e.action_type in _OUTPUTS and e.status in ("ok", "error")),
               key=lambda pair: pair[1], default=None)


def reaction_wait(agent: Any, obs: Observation) -> float | None:
    """How many more seconds I wait for my teammates' reactions to my latest output (None:
    not at all; ``inf``: until a teammate's work on it lands)."""
    build = obs.phase == "build"
    latest = _latest_output(obs)
    if (latest is None or not obs.teammates or not agent.params.announce
            or obs.turn >= agent.params.finish_by_turn
            or (build and obs.turn >= BUILD_WAIT_TURNS)):
        return None
    seq, landed = latest
    left = agent.params.reaction_patience_seconds - (obs.time - landed)
    if left <= 0:
        return None
    if (not build and agent.params.wait_for_working_teammates
            and any(a.actor != obs.me and a.since >= landed for a in obs.working)):
        return math.inf  # a reaction under way (a landing wakes me)
    acted = {e.actor for e in obs.history if e.actor != obs.me and e.time > landed}
    if not acted:
        return left
    named = any(m.sender != obs.me and m.time > landed and str(seq) in dict(parse_replies(m.text))
                for m in obs.chat)  # a comment naming my output: written after it was there
    # Another action of a teammate landed after my output, but it may have begun before: the
    # scheduler lets me decide first among members due at one instant, so I look again a
    # moment later, once the teammate has begun what it does next (a node after my output).
    again = not named and agent.log(obs).history.others_last == obs.time
    return LOOK_AGAIN_SECONDS if again else None


def _my_compute_cell(obs: Observation) -> CodeCell | None:
    return next((c for c in reversed(obs.code_cells)
                 if c.author == obs.me and c.ok and c.code.startswith(COMPUTE_MARK)), None)


def result_unshared(agent: Any, t: Any) -> bool:
    """My computation ran and I have not said what it found (with teammates to tell)."""
    obs = t.obs
    if (not obs.teammates or not agent.params.announce or not t.computed
            or not allowed(obs, "SEND_TEAMMATE_MESSAGE")):
        return False
    cell = _my_compute_cell(obs)
    return cell is not None and not any(
        cell.seq in found_cells(m.text) for m in obs.chat if m.sender == obs.me)


def share_result(agent: Any, t: Any) -> str:
    """Say what my computation found: its ``RESULT`` line, and that a requested computation
    is done."""
    obs = t.obs
    cell = _my_compute_cell(obs)
    assert cell is not None
    line = next((x for x in cell.output.splitlines() if x.startswith("RESULT ")),
                cell.output.strip().splitlines()[-1] if cell.output.strip() else "")
    asked = [m for m in obs.chat if m.sender != obs.me and "compute" in requested_steps(m.text)]
    done = f" {format_done('compute', asked[-1].seq)}" if asked else ""
    columns = "+".join(getattr(t.plan, "columns", ())) or "the data"
    return say(f"My computation on {columns} gives: {line.strip()}. I will draft the "
               f"hypothesis from it.{done} {format_found(cell.seq)}")


def draft_checked_by_all(t: Any) -> bool:
    """Every teammate already posted a check of the draft in the editor (it saw the draft
    there while I waited for reactions), so announcing it would ask for checks given."""
    checked = t.log.chat.checkers.get(draft_fingerprint(t.obs.editor_text), frozenset())
    return bool(t.obs.teammates) and all(m in checked for m in t.obs.teammates)
