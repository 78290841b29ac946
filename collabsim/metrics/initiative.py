"""Initiative: who drives the team's work, and how evenly (normalised initiative entropy).

An *initiative event* is a team action (see :mod:`collabsim.metrics.activity`) that directs
others' work, brings new information or asks a concrete question. The rule-based classifier
(:func:`is_initiative`) decides per action type:

* ``EXECUTE_CODE``: initiative when its code is new (not a re-run of an earlier cell) - it
  brings new output into the shared workspace;
* ``EDITOR_UPDATE``: initiative when it changes the hypothesis text;
* ``REJECT``: initiative (it redirects the author's work with a reason); ``APPROVE``: only
  when its comment is itself initiative by the message rules;
* ``MEMORY_ADD``: initiative (it adds to the plan/criteria); ``MEMORY_AGREE``, ``FINISH``:
  never;
* ``SEND_TEAMMATE_MESSAGE``: not initiative when it is an acknowledgement ("ok", "thanks",
  "sounds good", ...) or an echo (token Jaccard >= 0.7 with an earlier text of another
  member); otherwise initiative when it directs work ("can you", "please", "let's", an
  imperative such as "check"/"compute"/"use", "we should"), asks a concrete question (a "?"
  and at least three content words) or brings new information (a number or content word
  not seen in any earlier text or code output of the session).

An LLM option (:class:`LLMInitiativeClassifier`, prompt ``prompts/initiative_judge.txt``)
labels each team action through the LLM client instead.

**Which events are candidates** (``counted``, the run setting ``metrics.initiative_events``):

* ``actions`` (default; the measure of every earlier build): every team action is labelled
  by the rules above, so code cells, editor updates, gate rejections and memory entries
  count as well as messages;
* ``messages``: the study's measure - only team chat messages (``SEND_TEAMMATE_MESSAGE``)
  are candidates, and a message is initiative by its act: it directs work (proposing,
  requesting, instructing), asks a concrete question or brings new information; an
  acknowledgement or an echo is not.

**Over which phase** (``phase``): ``all`` events, or the ``work`` phase only - the events of
the group-memory build phase (:func:`collabsim.core.events.build_phase_seqs`: from
``PHASE_START(build)`` up to ``PHASE_START(work)``) are left out, so the memory entries and
the messages that set up the team's record do not count. Each event keeps the label it has
over the whole trace (its ``earlier`` events include the build phase: what the record already
says is not new information); a session without a build phase has the same value in both.

Normalised entropy over team members U (never the environment), p_u = share of initiative
events by u (among the candidates of the chosen phase):

    H_norm = -sum_u p_u log p_u / log |U|,   0 log 0 = 0.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from collabsim.core.events import TraceEvent, build_phase_seqs
from collabsim.domain.words import STOPWORDS
from collabsim.metrics.activity import as_events, is_team_action
from collabsim.metrics.judge_llm import ask_json, load_prompt

_ACK = re.compile(
    r"^(?:(?:ok(?:ay)?|k|thanks?(?: you)?|thx|great|good|nice|cool|sure|yes|yep|yeah|agreed?|"
    r"i agree|sounds good|looks good|lgtm|got it|noted|will do|perfect|fine|right|correct|"
    r"makes sense|done|on it|go ahead|approved?|👍)[\s!.,]*)+$",
    re.IGNORECASE,
)
_DIRECTIVE = re.compile(
    r"\b(?:can|could|would|will) you\b|\bplease\b|\blet'?s\b|\b(?:you|we) should\b|"
    r"\bshould (?:we|you)\b|\bi suggest\b|\bsuggest(?:ion)?\b|\bneeds? to\b|\bmust\b|"
    r"^\s*(?:@\w+[,:]?\s*)?(?:check|compute|recompute|calculate|use|try|look|run|verify|"
    r"plot|filter|restrict|compare|change|fix|rewrite|replace|add|remove|switch|focus|"
    r"group|bin|re-?check|make sure|double-check|don'?t|do not)\b|^\s*@\w+",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"-?\d+(?:[.,]\d+)?|[A-Za-z_][A-Za-z_0-9]+")


def action_text(event: TraceEvent) -> str:
    """The free text an action carries (message, code, editor text, reason, comment...)."""
    args = event.args
    for key in ("message", "code", "text", "reason", "comment"):
        value = args.get(key)
        if value:
            return str(value)
    return ""


# Each message is compared with every earlier event of its session, so the same texts are
# tokenised over and over.
@functools.lru_cache(maxsize=16384)
def _tokens(text: str) -> frozenset[str]:
    return frozenset(t.lower() for t in _TOKEN.findall(text) if t.lower() not in STOPWORDS)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def is_initiative(event: TraceEvent, earlier: Sequence[TraceEvent]) -> bool:
    """Rule-based initiative label of one team action given the events before it.

    Args:
        event: The action to label (a team action).
        earlier: All trace events before it (any actor), in order.

    Returns:
        True when the action directs work, brings new information or asks a concrete
        question (module docstring gives the rules per action type).
    """
    kind = event.action_type
    if kind in ("FINISH", "MEMORY_AGREE"):
        return False
    if kind in ("REJECT", "MEMORY_ADD"):
        return True
    text = action_text(event)
    if kind == "EXECUTE_CODE":
        code = re.sub(r"\s+", "", text)
        return bool(code) and all(
            re.sub(r"\s+", "", str(e.args.get("code", ""))) != code
            for e in earlier
            if e.action_type == "EXECUTE_CODE"
        )
    if kind == "EDITOR_UPDATE":
        previous = [str(e.args.get("text", "")) for e in earlier if e.action_type == kind]
        return bool(text.strip()) and (not previous or previous[-1].strip() != text.strip())
    if kind == "APPROVE" and not text:
        return False
    return _message_is_initiative(event, text, earlier)


def _message_is_initiative(event: TraceEvent, text: str, earlier: Sequence[TraceEvent]) -> bool:
    stripped = text.strip()
    if not stripped or _ACK.match(stripped):
        return False
    toks = _tokens(stripped)
    for e in earlier:
        if e.actor != event.actor and e.actor_type != "env":
            other = action_text(e)
            if other and _jaccard(toks, _tokens(other)) >= 0.7:
                return False
    if _DIRECTIVE.search(stripped):
        return True
    if "?" in stripped and len(toks) >= 3:
        return True
    seen: set[str] = set()
    for e in earlier:
        seen |= _tokens(action_text(e)) | _tokens(e.observation)
    return bool(toks - seen)


Classifier = Callable[[TraceEvent, Sequence[TraceEvent]], bool]

InitiativeEvents = Literal["actions", "messages"]
#: The values of ``counted`` / ``metrics.initiative_events`` (module docstring).
INITIATIVE_EVENTS: tuple[InitiativeEvents, ...] = ("actions", "messages")
#: Every team action is a candidate: the measure of the ``H_init_norm`` column so far.
DEFAULT_INITIATIVE_EVENTS: InitiativeEvents = "actions"
Phase = Literal["all", "work"]


def is_candidate(event: TraceEvent, counted: InitiativeEvents = DEFAULT_INITIATIVE_EVENTS) -> bool:
    """Whether an event is one the classifier labels: a team action, and under
    ``counted="messages"`` a chat message.

    Raises:
        ValueError: ``counted`` is not one of :data:`INITIATIVE_EVENTS`.
    """
    _check_counted(counted)
    return is_team_action(event) and (counted == "actions" or event.is_message)


def _check_counted(counted: str) -> None:
    if counted not in INITIATIVE_EVENTS:
        raise ValueError(f"initiative events must be one of {', '.join(INITIATIVE_EVENTS)}, "
                         f"not {counted!r}")


def initiative_events(
    events: Iterable[TraceEvent | Mapping[str, Any]],
    members: Sequence[str] | None = None,
    classifier: Classifier = is_initiative,
    *,
    counted: InitiativeEvents = DEFAULT_INITIATIVE_EVENTS,
) -> list[TraceEvent]:
    """The initiative events of a session, over all its phases.

    Args:
        events: A session's trace events.
        members: Team member names; actions of other actors are skipped. Default: every
            actor. Environment events never count.
        classifier: ``(event, earlier_events) -> bool``; :func:`is_initiative` by default
            (or an :class:`LLMInitiativeClassifier`).
        counted: Which events are candidates (:data:`INITIATIVE_EVENTS`).

    Returns:
        The candidates (:func:`is_candidate`) the classifier labels initiative, in order.

    Raises:
        ValueError: ``counted`` is not one of :data:`INITIATIVE_EVENTS`.
    """
    _check_counted(counted)
    evs = as_events(events)
    allowed = set(members) if members is not None else None
    return [e for i, e in enumerate(evs)
            if is_candidate(e, counted) and (allowed is None or e.actor in allowed)
            and classifier(e, evs[:i])]


def initiative_counts(
    events: Iterable[TraceEvent | Mapping[str, Any]],
    members: Sequence[str] | None = None,
    classifier: Classifier = is_initiative,
    *,
    counted: InitiativeEvents = DEFAULT_INITIATIVE_EVENTS,
    phase: Phase = "all",
) -> dict[str, int]:
    """Count initiative events per team member.

    Args:
        events: A session's trace events.
        members: Team member names; members without events get 0. Default: every actor
            with a team action (``ai``/``human``). Environment events never count.
        classifier: ``(event, earlier_events) -> bool``; :func:`is_initiative` by default
            (or an :class:`LLMInitiativeClassifier`).
        counted: Which events are candidates (:data:`INITIATIVE_EVENTS`).
        phase: ``all`` events, or ``work``: build-phase events left out (module docstring).

    Returns:
        Member -> number of initiative events.

    Raises:
        ValueError: ``counted`` or ``phase`` is not one of its values.
    """
    evs = as_events(events)
    counts: dict[str, int] = {m: 0 for m in members or ()}
    if members is None:
        counts.update((e.actor, 0) for e in evs if is_team_action(e))
    labelled = initiative_events(evs, members, classifier, counted=counted)
    counts.update(count_in_phase(labelled, evs, phase))
    return counts


def count_in_phase(labelled: Iterable[TraceEvent], events: Sequence[TraceEvent],
                   phase: Phase = "all") -> dict[str, int]:
    """Initiative events per actor in one phase of a session.

    Args:
        labelled: The session's initiative events (:func:`initiative_events`).
        events: All of the session's events, in order (they say where the build phase is).
        phase: ``all``, or ``work`` (events of the build phase left out).

    Returns:
        Actor -> number of its initiative events in that phase (actors with none left out).

    Raises:
        ValueError: ``phase`` is neither ``all`` nor ``work``.
    """
    if phase not in ("all", "work"):
        raise ValueError(f"phase must be all or work, not {phase!r}")
    build = build_phase_seqs(events) if phase == "work" else frozenset()
    return dict(Counter(e.actor for e in labelled if e.seq not in build))


def initiative_entropy(counts: Mapping[str, int], members: Sequence[str]) -> float:
    """Normalised initiative entropy H_norm over team members.

    H_norm = -sum_{u in U} p_u log p_u / log |U| with p_u = counts[u] / sum_U counts and
    0 log 0 = 0; members missing from ``counts`` have 0 initiative events. Counts of actors
    outside ``members`` (e.g. ``env``) are ignored.

    Undefined cases return NaN (documented contract):

    * ``|U| = 1`` (the ``single`` structure: one member, log |U| = 0);
    * nobody took initiative (all counts 0).

    Args:
        counts: Initiative events per actor.
        members: The team members U (distinct names; duplicates are ignored).

    Returns:
        H_norm in [0, 1] (1 = perfectly even, 0 = one member holds all initiative), or NaN.

    Raises:
        ValueError: A count is negative or ``members`` is empty.
    """
    team = list(dict.fromkeys(members))
    if not team:
        raise ValueError("initiative_entropy needs at least one team member")
    values = [int(counts.get(m, 0)) for m in team]
    if any(v < 0 for v in values):
        raise ValueError(f"negative initiative count in {dict(counts)}")
    total = sum(values)
    if len(team) == 1 or total == 0:
        return math.nan
    h = -sum((v / total) * math.log(v / total) for v in values if v > 0)
    return min(1.0, max(0.0, h / math.log(len(team))))


class LLMInitiativeClassifier:
    """Initiative labels from a language model (prompt ``prompts/initiative_judge.txt``).

    Callable like :func:`is_initiative`. Non-text actions are decided by the rules
    (``EXECUTE_CODE``, ``FINISH``, ``MEMORY_AGREE``); the model labels the rest.

    Args:
        settings: ``collabsim.llm.client.LLMSettings``.
        client: ``collabsim.llm.client.LLMClient`` (fresh one when None).
        context_events: How many earlier events the prompt shows.
    """

    def __init__(self, settings: Any, client: Any | None = None, context_events: int = 12):
        self.settings = settings
        self.client = client
        self.context_events = context_events

    def __call__(self, event: TraceEvent, earlier: Sequence[TraceEvent]) -> bool:
        """Label one action (see :func:`is_initiative` for the arguments)."""
        if event.action_type in ("EXECUTE_CODE", "FINISH", "MEMORY_AGREE"):
            return is_initiative(event, earlier)
        shown = [e for e in earlier if e.actor_type != "env"][-self.context_events :]
        context = "\n".join(
            f"[{e.seq}] {e.actor} {e.action_type}: {action_text(e)[:300]}" for e in shown
        )
        prompt = load_prompt("initiative_judge.txt").substitute(
            context=context or "(nothing yet)",
            actor=event.actor,
            action_type=event.action_type,
            text=action_text(event)[:1000],
        )
        obj = ask_json(prompt, self.settings, self.client, tag="initiative-judge")
        value = obj.get("initiative")
        return value is True or str(value).lower() == "true"
