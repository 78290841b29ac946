"""The observation builder: what one member sees when it is its turn.

Everyone sees the landed chat, code cells, editor text (and when they first saw it), group
memory, the gates in force, the requests they must decide or are waiting for, and which
teammates are at work on what now (actions started whose effect has not landed: presence,
not content). The agent's history is the team-level action history (every member's landed actions, except other
members' ``INVALID`` attempts); a collaborator's history is its own actions only. Feedback
(errors, approvals, rejections with reasons, requests to decide) reaches only its addressee
and is consumed when shown. Tasks are shown through ``Task.brief()`` only.
"""

from __future__ import annotations

from dataclasses import dataclass

from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage
from collabsim.session.rules import available_actions
from collabsim.session.state import SessionState
from collabsim.session.workspace import visible_history


@dataclass(frozen=True)
class Turn:
    """Whose turn it is and what they see.

    Attributes:
        member: The participant to act (``"agent"``, ``"D"``, ``"R"``).
        observation: Its observation; answer with :meth:`Orchestrator.submit
            <collabsim.session.orchestrator.Orchestrator.submit>`.
    """

    member: str
    observation: Observation

    @property
    def time(self) -> float:
        """Virtual time of the decision."""
        return self.observation.time


def attended_chat(s: SessionState, name: str) -> tuple[ChatMessage, ...]:
    """The chat as ``name`` has taken it in.

    A collaborator sees every landed message. The agent takes in at most
    ``coordination.attention_messages`` (k) teammate messages per decision: of the teammates'
    messages that landed since its previous decision, the latest k; the earlier ones are
    buried and never shown to it (0: no bound). It applies to every agent, scripted or
    language model, as a property of the environment (:mod:`collabsim.core.coordination`).
    """
    chat = s.ws.chat
    k = s.cfg.coordination.attention_messages
    if name != s.team.agent or k <= 0:
        return tuple(chat)
    new = [m for m in chat[s.chat_taken:] if m.sender != name]
    s.buried.update(m.seq for m in new[:-k])
    s.chat_taken = len(chat)
    if not s.buried:
        return tuple(chat)
    return tuple(m for m in chat if m.seq not in s.buried)


def observe(s: SessionState, name: str, t: float) -> Observation:
    """Build ``name``'s observation at virtual time ``t`` (consumes its due feedback)."""
    due = [text for (ft, text) in s.feedback[name] if ft <= t]
    s.feedback[name] = [(ft, text) for (ft, text) in s.feedback[name] if ft > t]
    draft = s.ws.editor_text.strip()
    # when the member first saw the editor's text (it reads a draft from then, however
    # many decisions later that is)
    seen = s.editor_seen[name].setdefault(draft, t) if draft and s.phase == "work" else None
    return Observation(
        me=name,
        role=s.team.role(name),
        profile=s.team.profile(name),
        teammates=tuple(m for m in s.members if m != name),
        time=t,
        structure=s.structure.name,
        phase=s.phase,  # type: ignore[arg-type]
        task=s.briefs[name],
        chat=attended_chat(s, name),
        code_cells=tuple(s.ws.cells),
        editor_text=s.ws.editor_text,
        memory=s.ws.memory_view(),
        gates=dict(s.gates) if s.phase == "work" else {},
        pending_for_me=s.ws.pending_for(name),
        my_pending=s.ws.pending_by(name),
        history=visible_history(s.events, name, name == s.team.agent, t, s.history_entries,
                                s.ws.requests),
        feedback=tuple(due),
        available_actions=available_actions(s, name),
        turn=s.turns[name],
        working=s.working(t, name),
        max_turns=s.cfg.max_turns,
        max_time=s.cfg.max_time,
        editor_seen=seen,
        coordination=s.cfg.coordination,
    )
