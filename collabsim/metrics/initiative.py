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

Normalised entropy over team members U (never the environment), p_u = share of initiative
events by u:

    H_norm = -sum_u p_u log p_u / log |U|,   0 log 0 = 0.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from collabsim.core.events import TraceEvent
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
_STOP_WORDS = (
    "the a an and or of in on at to for is are was were be been it this that with as by "
    "from we you i they he she our your my its there here not no so do does did can could "
    "would should will have has had what which who when where how why than then also just "
    "about into over under between around"
)
_STOP = frozenset(_STOP_WORDS.split(" "))


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
    return frozenset(t.lower() for t in _TOKEN.findall(text) if t.lower() not in _STOP)


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


def initiative_counts(
    events: Iterable[TraceEvent | Mapping[str, Any]],
    members: Sequence[str] | None = None,
    classifier: Classifier = is_initiative,
) -> dict[str, int]:
    """Count initiative events per team member.

    Args:
        events: A session's trace events.
        members: Team member names; members without events get 0. Default: every actor
            with a team action (``ai``/``human``). Environment events never count.
        classifier: ``(event, earlier_events) -> bool``; :func:`is_initiative` by default
            (or an :class:`LLMInitiativeClassifier`).

    Returns:
        Member -> number of initiative events.
    """
    evs = as_events(events)
    counts: dict[str, int] = {m: 0 for m in members or ()}
    for i, e in enumerate(evs):
        if not is_team_action(e):
            continue
        if members is not None and e.actor not in counts:
            continue
        counts.setdefault(e.actor, 0)
        if classifier(e, evs[:i]):
            counts[e.actor] += 1
    return counts


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
