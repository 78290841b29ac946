"""Scripted policies: an agent that really analyses the data and D/R collaborators that check it.

Every decision is a deterministic function of (task brief, observation, seed, params)
alone: what the policy itself did earlier is read back from the observation, not remembered
- its messages are in the chat under its name with their tags
(:mod:`collabsim.core.tags`: the drafts it announced, checked, kept or handed over,
its answers, lead-in, proposals and repeated objections), its cells in the code history
(by their marks), its editor updates and gate decisions in its action history (the text it
wrote, the type of each request it decided), and when it first saw the draft in the editor
in ``observation.editor_seen``. So a fresh instance asked at any turn decides as the one
that answered the turns before (the offline LLM provider relies on it: a turn served from
the LLM cache never reaches it). Per-instance state is a cache only (readings of the brief,
the incremental session log and plan). What teammates said and did
(issue tags, check tags, gate decisions), the editor text, the printed results of code
cells, memory and gates are read from the observation. Randomness comes from generators
seeded with stable hashes of (seed, participant name, task id / draft fingerprint), never
Python's ``hash``.

Each policy's work-phase decision is an ordered table of named (guard, action) rules
(``ScriptedAgent.RULES``, ``ScriptedCollaborator.RULES``; ``rule_for`` names the one that
decides): the observation is read once into a small record (what the draft is, which plan
stands, which request waits) and the first rule whose guard holds acts. Parameters are typed
(:mod:`collabsim.participants.scripted_params`); the chat tags they read and write are those
of :mod:`collabsim.core.tags`. What chat, code cells and action history showed is kept
in a small log updated from the events new since the policy's last decision
(:mod:`collabsim.participants.session_log`), not re-read from the whole history.

Agent: (leave teammates the opening: wait until one has acted, and for a leading teammate's
``[kickoff]``, see ``lead_patience_seconds``) inspect cell -> compute cell -> ``EDITOR_UPDATE``
(draft) -> announce the draft to teammates and wait (bounded by ``patience_seconds`` of virtual
time) for their checks, for an edit a teammate announced of the draft in the editor until it
lands and for a teammate at work (both bounded by ``finish_by_turn``) -> ``FINISH``. A
teammate's issue tag (in chat, or in the reason of a gate ``REJECT``) changes its plan (redo
with the suggested fix) when the agent defers: with the fixed propensity ``deference`` whoever
is right, always for the teammate the team memory records as trusted for the issue's area,
never while the ``ignore_teammate`` mistake is active - except under gates, where issues from
gate owners bind. A teammate's edit of the draft (announced with ``[edit draft=...]``) is kept,
merged or reverted by the same rule: merged when the agent redid its analysis with the
teammate's fixes (its new draft wins), else kept by a gate owner's authority, the memory's
trust record or the deference propensity, else reverted to the agent's own draft. After a
rejected ``FINISH`` it asks again only once the editor has changed (it redid the analysis with
the owner's fix, or a teammate edited); when it cannot change it, it hands the submission to
the ``FINISH`` owner (``[handover FINISH draft=...]``), who then submits its own version. In
build phases it adds plan / evidence criteria / expertise (and in ``scaffolded`` gate lines)
and agrees.

Asking (:mod:`collabsim.participants.asking`): after inspecting the data and before computing,
the agent asks about each topic its ``open_topics`` reader finds left open by the query and
by the facts it holds (``[ask topic=... to=...]``, with probability ``ask_propensity`` per
session and topic) the teammate whose area covers it, waits for the answer up to
``patience_seconds`` and computes with it; facts recorded in the team memory are applied as
they stand, a fact a teammate volunteers is weighed like an objection.

Collaborators: ``D`` (``recompute_claims``) recomputes the answer with its own ``EXECUTE_CODE``
once there is a draft (or a request) to check and compares years; ``R`` (``check_wording``)
compares the draft's wording with the query. Both are fallible people
(:mod:`collabsim.participants.human`): their own computation / reading carries their own
per-session mistakes, they check every draft and, by what they found, adopt it (sometimes
despite disagreeing), edit it with their own version (modify) or propose it and insist
(reject; a reject whose check finds no issue puts its own version in place), take a think
time before reacting and act with calibrated durations (:class:`~collabsim.participants.human.SessionTiming`). Both
post concrete issues in chat, decide pending gate requests they own (``REJECT`` with reasons),
contribute to memory in build phases (one entry per fact they hold) and otherwise wait. A
question put to them is answered after their think time from the facts of their brief
(``[fact topic=... <key>=<value>]``; wrong at their error rate for the fact's area) or with
"I don't know"; an objection whose fix sets what a fact they hold fixes quotes the fact. The first collaborator by name may
open the work phase alone (its calibrated lead-in: ``[lead]``, one look at the data,
``[kickoff]``).

On a statistical task (:func:`~collabsim.participants.stats_reading.is_statistical`) the same
rules run on a :class:`~collabsim.domain.stats.model.StatPlan`: the agent's and each
collaborator's plan carry the family's own mistakes
(:mod:`collabsim.participants.stat_mistakes`), D and R check the plan behind the draft and
what it states (:mod:`collabsim.participants.stat_collaborator`), and the topics asked about
are the family's (:func:`~collabsim.participants.stat_facts.stat_open_topics`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from collabsim.core.observation import Role
from collabsim.core.records import Profile
from collabsim.participants.scripted_agent import ScriptedAgent
from collabsim.participants.scripted_collaborator import ScriptedCollaborator
from collabsim.participants.scripted_common import WAIT

__all__ = ["WAIT", "ScriptedAgent", "ScriptedCollaborator", "build_scripted"]


def build_scripted(
    name: str,
    role: Role,
    profile: Profile | None = None,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
) -> ScriptedAgent | ScriptedCollaborator:
    """Construct the scripted policy for one participant (used by teams and the offline
    LLM provider)."""
    if role == "agent":
        return ScriptedAgent(seed=seed, params=params, name=name)
    if profile is None:
        raise ValueError(f"collaborator {name!r} needs a profile")
    return ScriptedCollaborator(profile, seed=seed, params=params)
