"""The coordination tags teammates put in chat, as format / parse pairs.

Scripted participants and the gym macro wrapper
(:mod:`collabsim.envs.macro`) talk about drafts through short machine-readable tags at the
end of a readable chat message; this module is the only place that spells them:

========================================  =================================================
``[lead]``                                a collaborator opens the session alone and will
                                          say when the agent starts (:func:`format_lead`)
``[kickoff]``                             ... and this is it asking the agent to start
``[draft=<fp>]``                          the agent announces the draft ``<fp>``
``[check draft=<fp>]``                    a teammate checked the draft ``<fp>``
``[issue kind=<kind> fix=<k:v,...>]``     one problem found, with the plan fix it suggests
``[edit draft=<fp>]``                     the sender writes the editor text ``<fp>``
``[keep draft=<fp>]``                     the agent keeps the draft ``<fp>`` despite issues
``[handover FINISH draft=<fp>]``          the agent leaves the submission to the owner
``[ask topic=<topic> to=<name>]``         the agent asks teammate ``<name>`` what the task
                                          means on ``<topic>`` (:func:`format_ask`)
``[fact topic=<topic> <key>=<value>]``    an answer or a volunteered fact: the plan setting
                                          it fixes (:func:`format_fact`)
``[fact topic=<topic> unknown]``          ... or "I don't know"
``[re=<ref> <label>]``                    a teammate's comment answers the AI output
                                          ``<ref>`` (a cell's or message's seq, ``m<fp>``
                                          for the memory entry with text ``<fp>``) with
                                          adopt / modify / reject (:func:`format_reply`)
``[please step=<step>]``                  ... and asks the agent for a step (delegation)
``[found cell=<seq>]``                    the agent shares what its cell ``<seq>`` found
``[done step=<step> for=<seq>]``          the agent did the step the message ``<seq>``
                                          asked for
========================================  =================================================

``<fp>`` is :func:`draft_fingerprint` of the text. A topic is one of
:data:`~collabsim.core.knowledge.FACT_TOPICS`; a fact's ``<key>=<value>`` pairs use the
encoding of an issue's fix (``ordinal=2``, ``relation=plateau``, ``window=-2300..-1800`` as
:func:`~collabsim.domain.time_expr.format_window` writes it, ``column=A_inter+B_inter``),
the statistical family's ``target=y``, ``predictors=a+b``, ``controls=none``,
``filters=sex%20==%201`` (a value's spaces, commas, brackets and ``%`` are percent-encoded
by the format functions and decoded by the parse functions, so a filter ``sex == 1`` or a
column ``BA degree`` travels whole; time-series values hold none of them and are written
as they are). Besides the tags, three English phrases are
read back: the proposal ``I would write instead: "..."`` (:func:`format_proposal`), a
collaborator's repeated objection ``I still disagree. ...`` (:func:`format_insist`) and the
team memory's trust line ``rely on <name> for <what>`` (:func:`format_trust`). A scripted
participant recognises its own earlier messages by these tags and phrases (what it said is
in the chat under its name), so its decisions need no memory of earlier turns.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

__all__ = [
    "MessageTags", "announced_drafts", "checked_drafts", "decode_value", "draft_fingerprint",
    "edited_drafts", "encode_value", "format_ask", "format_check", "format_draft",
    "format_edit", "format_fact", "format_handover", "format_insist", "format_issue",
    "format_keep", "format_kickoff", "format_lead", "format_proposal", "format_trust",
    "handed_over", "hands_over", "insists", "kept_drafts", "parse_asks", "parse_facts",
    "parse_issues", "parse_trust", "proposal", "raises_issues", "says_kickoff", "says_lead",
    "format_reply", "parse_replies", "memory_ref", "format_step_request", "requested_steps",
    "format_found", "found_cells", "format_done", "done_steps",
]

_LEAD = "[lead]"
_KICKOFF = "[kickoff]"
_HANDOVER = "[handover FINISH"
_ISSUE_RE = re.compile(r"\[issue kind=(\w+)(?: fix=([^\]\s]*))?\]")
# the start of an issue tag: what the metrics and graphs count as "raises an issue"
_ISSUE_START_RE = re.compile(r"\[issue kind=\w+")
_CHECK_RE = re.compile(r"\[check draft=([0-9a-f]{8})\]")
_DRAFT_RE = re.compile(r"\[draft=([0-9a-f]{8})\]")
_EDIT_RE = re.compile(r"\[edit draft=([0-9a-f]{8})\]")
_KEEP_RE = re.compile(r"\[keep draft=([0-9a-f]{8})\]")
_HANDOVER_RE = re.compile(r"\[handover FINISH draft=([0-9a-f]{8})\]")
_INSIST = "I still disagree. "
_PROPOSAL_RE = re.compile(r'I would write instead: "(.*?)" \[', re.S)
_TRUST_RE = re.compile(r"rely on (\w+) for (.*)", re.IGNORECASE)
_ASK_RE = re.compile(r"\[ask topic=(\w+) to=([\w.-]+)\]")
_FACT_RE = re.compile(r"\[fact topic=(\w+)((?: [\w.-]+(?:=[^\]\s]*)?)*)\]")
_UNKNOWN = "unknown"


# characters a tag's value cannot hold as they are: percent-encoded (``%`` first)
_ENCODE = (("%", "%25"), (" ", "%20"), (",", "%2C"), ("[", "%5B"), ("]", "%5D"),
           ("\n", "%0A"), ("\t", "%09"))


def encode_value(value: str) -> str:
    """A fix or fact value as a tag writes it (spaces, commas, brackets, ``%`` encoded)."""
    for char, code in _ENCODE:
        value = value.replace(char, code)
    return value


def decode_value(value: str) -> str:
    """Inverse of :func:`encode_value`."""
    if "%" not in value:
        return value
    for char, code in reversed(_ENCODE):
        value = value.replace(code, char)
    return value


def draft_fingerprint(text: str) -> str:
    """Stable 8-hex-digit fingerprint of a draft's text (whitespace-trimmed)."""
    return f"{zlib.crc32(text.strip().encode('utf-8')):08x}"


# ---------------------------------------------------------------------------- lead-in
def format_lead() -> str:
    """The tag of a collaborator saying it looks at the data first."""
    return _LEAD


def says_lead(text: str) -> bool:
    """Whether a message announces a lead-in."""
    return _LEAD in text


def format_kickoff() -> str:
    """The tag of a leading collaborator asking the agent to start."""
    return _KICKOFF


def says_kickoff(text: str) -> bool:
    """Whether a message asks the agent to start."""
    return _KICKOFF in text


# ------------------------------------------------------------------- taking part
_REPLY_RE = re.compile(r"\[re=(\d+|m[0-9a-f]{8}) (adopt|modify|reject)\]")
_PLEASE_RE = re.compile(r"\[please step=(\w+)\]")
_FOUND_RE = re.compile(r"\[found cell=(\d+)\]")
_DONE_RE = re.compile(r"\[done step=(\w+) for=(\d+)\]")


def memory_ref(text: str) -> str:
    """The reference of the memory entry with text ``text`` in a reply tag."""
    return f"m{draft_fingerprint(text)}"


def format_reply(ref: str | int, label: str) -> str:
    """The tag saying the message answers the AI output ``ref`` with ``label``."""
    return f"[re={ref} {label}]"


def parse_replies(text: str) -> tuple[tuple[str, str], ...]:
    """``(ref, label)`` of the AI outputs a message answers (``[re=...]``)."""
    return tuple(_REPLY_RE.findall(text or ""))


def format_step_request(step: str) -> str:
    """The tag asking the agent for the step ``step``."""
    return f"[please step={step}]"


def requested_steps(text: str) -> tuple[str, ...]:
    """Steps a message asks the agent for (``[please step=...]``)."""
    return tuple(_PLEASE_RE.findall(text or ""))


def format_found(seq: int) -> str:
    """The tag saying the agent's message shares what its cell ``seq`` found."""
    return f"[found cell={seq}]"


def found_cells(text: str) -> tuple[int, ...]:
    """Cells whose findings a message shares (``[found cell=...]``)."""
    return tuple(int(x) for x in _FOUND_RE.findall(text or ""))


def format_done(step: str, seq: int) -> str:
    """The tag saying the agent did the step ``step`` the message ``seq`` asked for."""
    return f"[done step={step} for={seq}]"


def done_steps(text: str) -> tuple[tuple[str, int], ...]:
    """``(step, request seq)`` of the requested steps a message says were done."""
    return tuple((step, int(seq)) for step, seq in _DONE_RE.findall(text or ""))


# ----------------------------------------------------------------------------- drafts
def format_draft(fp: str) -> str:
    """The tag announcing the draft ``fp``."""
    return f"[draft={fp}]"


def announced_drafts(text: str) -> tuple[str, ...]:
    """Draft fingerprints a message announces (``[draft=...]``)."""
    return tuple(_DRAFT_RE.findall(text or ""))


def format_check(fp: str) -> str:
    """The tag saying the message is a check of the draft ``fp``."""
    return f"[check draft={fp}]"


def checked_drafts(text: str) -> tuple[str, ...]:
    """Draft fingerprints a message says it checked."""
    return tuple(_CHECK_RE.findall(text or ""))


def format_edit(fp: str) -> str:
    """The tag saying the sender writes the editor text ``fp``."""
    return f"[edit draft={fp}]"


def edited_drafts(text: str) -> tuple[str, ...]:
    """Fingerprints of editor texts a message says its sender wrote (``[edit draft=...]``)."""
    return tuple(_EDIT_RE.findall(text or ""))


def format_keep(fp: str) -> str:
    """The tag of the agent keeping the draft ``fp`` although a teammate raised issues."""
    return f"[keep draft={fp}]"


def kept_drafts(text: str) -> tuple[str, ...]:
    """Draft fingerprints a message says the agent keeps (``[keep draft=...]``)."""
    return tuple(_KEEP_RE.findall(text or ""))


def format_handover(fp: str) -> str:
    """The tag of the agent handing the submission of the draft ``fp`` to the FINISH owner."""
    return f"{_HANDOVER} draft={fp}]"


def hands_over(text: str) -> bool:
    """Whether a message hands the submission over to the FINISH owner."""
    return _HANDOVER in text


def handed_over(text: str) -> tuple[str, ...]:
    """Draft fingerprints a message hands the submission of over to the FINISH owner."""
    return tuple(_HANDOVER_RE.findall(text or ""))


# ----------------------------------------------------------------------------- issues
def format_issue(kind: str, fix: tuple[tuple[str, str], ...] = ()) -> str:
    """The tag of one issue of ``kind`` with its suggested plan fix (``(key, value)`` pairs)."""
    pairs = ",".join(f"{k}:{encode_value(v)}" for k, v in fix)
    return f"[issue kind={kind}" + (f" fix={pairs}]" if pairs else "]")


def raises_issues(text: str) -> bool:
    """Whether a message raises an issue (has the start of an issue tag)."""
    return _ISSUE_START_RE.search(text or "") is not None


def parse_issues(text: str) -> tuple[tuple[str, dict[str, str]], ...]:
    """``(kind, fix)`` pairs from the issue tags in a chat message."""
    out: list[tuple[str, dict[str, str]]] = []
    for kind, fix in _ISSUE_RE.findall(text or ""):
        pairs = dict(p.split(":", 1) for p in fix.split(",") if ":" in p) if fix else {}
        out.append((kind, {k: decode_value(v) for k, v in pairs.items()}))
    return tuple(out)


# ------------------------------------------------------------------ asking and telling
def format_ask(topic: str, to: str) -> str:
    """The tag of the agent asking teammate ``to`` what the task means on ``topic``."""
    return f"[ask topic={topic} to={to}]"


def parse_asks(text: str) -> tuple[tuple[str, str], ...]:
    """``(topic, teammate)`` pairs of the ask tags in a chat message."""
    return tuple(_ASK_RE.findall(text or ""))


def format_fact(topic: str, setting: tuple[tuple[str, str], ...] | None) -> str:
    """The tag of a fact on ``topic``: the plan setting it fixes (``(key, value)`` pairs;
    empty for a fact that fixes no parameter), or None: "I don't know"."""
    if setting is None:
        return f"[fact topic={topic} {_UNKNOWN}]"
    if any(not re.fullmatch(r"[\w.-]+", k) for k, _ in setting):
        raise ValueError(f"a fact's setting keys must be words: {setting}")
    pairs = "".join(f" {k}={encode_value(v)}" for k, v in setting)
    return f"[fact topic={topic}{pairs}]"


def parse_facts(text: str) -> tuple[tuple[str, dict[str, str] | None], ...]:
    """``(topic, setting)`` pairs of the fact tags in a chat message (setting None: the
    sender does not know)."""
    out: list[tuple[str, dict[str, str] | None]] = []
    for topic, rest in _FACT_RE.findall(text or ""):
        words = rest.split()
        if words == [_UNKNOWN]:
            out.append((topic, None))
            continue
        out.append((topic, {k: decode_value(v) for k, v in
                            (w.split("=", 1) for w in words if "=" in w)}))
    return tuple(out)


# ---------------------------------------------------------------------------- phrases
def format_proposal(version: str) -> str:
    """The phrase proposing ``version`` instead of a draft (tags must follow it)."""
    return f'I would write instead: "{version.strip()}"'


def proposal(text: str) -> str | None:
    """The alternative text a collaborator proposed in a message, if any."""
    match = _PROPOSAL_RE.search(text or "")
    return match.group(1) if match else None


def format_insist(check: str) -> str:
    """A check message (its issues and tags) repeated after the agent declined it."""
    return _INSIST + check


def insists(text: str) -> bool:
    """Whether a message repeats an objection (:func:`format_insist`)."""
    return text.startswith(_INSIST)


def format_trust(name: str, what: str) -> str:
    """The team memory's line recording that ``name`` is to be relied on for ``what``."""
    return f"Trust: rely on {name} for {what}."


def parse_trust(line: str) -> tuple[str, str] | None:
    """``(name, what)`` of a trust line (``what`` lower-cased), None for another line."""
    match = _TRUST_RE.search(line)
    if match is None:
        return None
    return match.group(1), match.group(2).lower()


# ---------------------------------------------------------------------- all at once
@dataclass(frozen=True)
class MessageTags:
    """Every tag of one chat message, parsed once (see the format / parse pairs above)."""

    issues: tuple[tuple[str, dict[str, str]], ...]
    checked: tuple[str, ...]
    announced: tuple[str, ...]
    edited: tuple[str, ...]
    kept: tuple[str, ...]
    handover: bool
    lead: bool
    kickoff: bool
    asks: tuple[tuple[str, str], ...] = ()
    facts: tuple[tuple[str, dict[str, str] | None], ...] = ()
    handed: tuple[str, ...] = ()
    proposed: str | None = None
    insist: bool = False

    @classmethod
    def of(cls, text: str) -> MessageTags:
        """The tags of a message's text."""
        return cls(parse_issues(text), checked_drafts(text), announced_drafts(text),
                   edited_drafts(text), kept_drafts(text), hands_over(text), says_lead(text),
                   says_kickoff(text), parse_asks(text), parse_facts(text), handed_over(text),
                   proposal(text), insists(text))
