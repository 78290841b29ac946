"""The scripted agent's asking: which question it puts next, and what chat and memory tell.

:func:`next_question` picks the agent's next ``(topic, teammate)`` from the topics its
``open_topics`` reader finds open (:mod:`collabsim.participants.reading`; on a statistical
task :func:`~collabsim.participants.stat_facts.stat_open_topics`), :func:`my_asks`,
:func:`told` and :func:`memory_facts` read what was asked and told, :func:`answer_wait` how
long the agent still waits for an answer.
"""

from __future__ import annotations

from typing import Any

from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage
from collabsim.core.tags import parse_facts
from collabsim.participants.asking import whom_to_ask
from collabsim.participants.plan import seeded_rng
from collabsim.participants.scripted_common import allowed
from collabsim.participants.session_log import ChatState

__all__ = ["answer_wait", "memory_facts", "my_asks", "next_question", "told"]


def next_question(agent: Any, obs: Observation) -> tuple[str, str] | None:
    """``(topic, teammate)`` of the agent's next question, None: none to ask.

    For each topic :attr:`open_topics` reads from my brief that no fact in the memory or
    in chat settles, I ask - with probability ``ask_propensity``, drawn once per session
    and topic - the teammate whose area covers it (:func:`~collabsim.participants.asking.
    whom_to_ask`); after an "I don't know" the next teammate (one open question per
    topic at a time)."""
    if (not obs.teammates or not allowed(obs, "SEND_TEAMMATE_MESSAGE")
            or obs.turn >= agent._finish_by_turn or agent.params.ask_propensity <= 0):
        return None
    task_id = obs.task.task_id
    if task_id not in agent._open:
        ctx = agent.context(obs.task)
        agent._open[task_id] = tuple(agent.open_topics(obs.task, ctx.semantics, ctx.plan))
    topics = agent._open[task_id]
    if not topics:
        return None
    chat = agent.log(obs).chat
    asks = my_asks(chat)
    settled = {topic for topic, _ in memory_facts(obs)} | {
        topic for _, topic, setting in told(chat) if setting is not None}
    for topic in topics:
        if topic in settled or any(a[1] == topic and a[3] is None for a in asks):
            continue  # known, or a question on it is still open
        u = seeded_rng(agent.seed, agent.name, task_id, topic, "ask").random()
        if u >= agent.params.ask_propensity:
            continue
        asked = {a[2] for a in asks if a[1] == topic}
        whom = next((w for w in whom_to_ask(topic, obs.teammates) if w not in asked), None)
        if whom is not None:
            return topic, whom
    return None


def my_asks(chat: ChatState) -> list[tuple[ChatMessage, str, str, ChatMessage | None]]:
    """My questions in chat (as read into ``chat``): (message, topic, teammate, its answer -
    the teammate's first later message with a fact tag on the topic - or None)."""
    return [(a.message, a.topic, a.whom, a.answer) for a in chat.asks]


def told(chat: ChatState) -> list[tuple[ChatMessage, str, dict[str, str] | None]]:
    """Teammates' fact tags in chat (as read into ``chat``): (message, topic, setting or
    None: unknown)."""
    return list(chat.told)


def memory_facts(obs: Observation) -> list[tuple[str, dict[str, str]]]:
    """The facts recorded in the team memory (fact tags of its entries, any section)."""
    if obs.memory is None:
        return []
    return [(topic, setting) for lines in obs.memory.sections.values() for line in lines
            for topic, setting in parse_facts(line) if setting]


def answer_wait(agent: Any, obs: Observation) -> float | None:
    """How many more seconds I (the agent) wait for the answer to a question of mine (None: not at
    all): up to ``patience_seconds`` after the latest unanswered one."""
    if obs.turn >= agent._finish_by_turn:
        return None
    open_asks = [a.message.time for a in agent.log(obs).chat.asks if a.answer is None]
    if not open_asks:
        return None
    left = agent.params.patience_seconds - (obs.time - max(open_asks))
    return left if left > 0 else None
