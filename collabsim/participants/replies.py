"""Reading a model's reply: which action it takes, if any, and its private notes.

:func:`parse_reply` decides the action of one reply of an LLM participant. An action comes
only from the reply's *action part*, never from its reasoning or other prose, by these rules
(in order):

1. **Native tool calls** (``reply.tool_calls``): exactly one tool call is the action (its
   name and JSON arguments); more than one is an error (two actions). The reply's text is
   then read for its ``SCRATCHPAD:`` only.
2. **Cut replies** (``finish_reason == "length"``): the reply stopped at ``max_tokens``, so
   whatever it holds is never executed; the error asks for a shorter reply.
3. **An ``ACTION:`` marker** (at the start of a line; ``**ACTION:**`` and the like too): two
   markers are an error. The action part is the text after the marker; it must hold exactly
   one action: its first action-like call (a known action name, or any upper-case name such
   as ``SUBMIT(``) must be a known action and well-formed, and no second action-like call may
   follow it (prose around it is ignored). A JSON action (rule 4) or a bare argument-less
   name (``ACTION: FINISH``) is accepted there too.
4. **JSON actions** (no marker): the reply, or its only fenced block (```` ```json ````), is a
   JSON object ``{"action": NAME, "args": {...}}`` or ``{"name": NAME, "arguments": {...}}``
   (``arguments`` may be JSON text, as in tool calls); a list of several is an error.
5. **A bare action** (no marker): the whole reply, apart from a surrounding markdown fence,
   is exactly one known action call and nothing else (the offline provider's style,
   ``EXECUTE_CODE(code="...")``). A call after a ``THOUGHT:`` or in any other prose without
   the marker is not read: the error asks for ``ACTION:``.

Everything else (an empty reply, prose only) is an error. The error says what is wrong; the
LLM participant quotes it in its repair turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from collabsim.core.action_parser import ParseResult, action_from_mapping, parse_one_action
from collabsim.core.actions import Action
from collabsim.llm.client import ToolCall

_SCRATCHPAD = re.compile(
    r"^[ \t>*_#]*SCRATCHPAD[*_]*\s*:[ \t]*(.*?)(?=^[ \t>*_#]*(?:ACTION|THOUGHT)[*_]*\s*:|\Z)",
    re.MULTILINE | re.DOTALL | re.IGNORECASE,
)
_ACTION_MARK = re.compile(r"^[ \t>*_#]*ACTION[*_]*\s*:[*_]*", re.MULTILINE | re.IGNORECASE)
_FENCE = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```$", re.DOTALL)
_FENCED_BLOCK = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)\n?```", re.DOTALL)
_NAME_KEYS = ("action", "name", "tool", "function")
_ARGS_KEYS = ("args", "arguments", "parameters", "input")
MAX_SCRATCHPAD_CHARS = 4000
"""Private notes longer than this are cut."""

CUT_REPLY_ERROR = (
    "Your reply was cut off at the token limit before it ended, so it was not used. Answer "
    "again with a much shorter reply: a one-line THOUGHT and one action (split long code "
    "into smaller cells)."
)


@dataclass(frozen=True)
class ParsedReply:
    """A model reply split into its parts.

    Attributes:
        action: The parsed action, or None.
        error: Why no action was found (None when ``action`` is set).
        scratchpad: New private notes, when the reply has a ``SCRATCHPAD:`` section.
    """

    action: Action | None
    error: str | None
    scratchpad: str | None = None


def _unfenced(text: str) -> str:
    """``text`` without one markdown fence around all of it."""
    stripped = text.strip()
    match = _FENCE.match(stripped)
    return match.group(1).strip() if match else stripped


def _json_body(text: str) -> object | None:
    """The JSON value of a reply that is JSON, or whose only fenced block is (else None)."""
    body = _unfenced(text)
    if not body.startswith(("{", "[")):
        blocks = [b for b in _FENCED_BLOCK.findall(text) if b.strip().startswith(("{", "["))]
        if len(blocks) != 1:
            return None
        body = blocks[0].strip()
    try:
        return json.loads(body)
    except ValueError:
        return None


def _json_action(text: str) -> ParseResult | None:
    """The action of a JSON reply (None: ``text`` is no JSON action)."""
    data = _json_body(text)
    if isinstance(data, list):
        if len(data) != 1:
            return ParseResult(None, f"{len(data)} actions in one reply: write exactly one.")
        data = data[0]
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("function"), dict):  # {"type": "function", "function": {...}}
        data = data["function"]
    name = next((data[k] for k in _NAME_KEYS if k in data), None)
    if name is None:
        return None
    args = next((data[k] for k in _ARGS_KEYS if k in data), None)
    if isinstance(args, str):
        return tool_call_action([ToolCall(str(name), args)])
    return action_from_mapping(name, args)


def tool_call_action(calls: Sequence[ToolCall]) -> ParseResult:
    """The action of a reply's native tool calls (exactly one is expected)."""
    if len(calls) > 1:
        names = " and ".join(c.name for c in calls[:2])
        return ParseResult(
            None, f"{len(calls)} tool calls ({names}): call exactly one action per turn."
        )
    call = calls[0]
    try:
        args = json.loads(call.arguments) if call.arguments.strip() else {}
    except ValueError:
        return ParseResult(None, f"The arguments of the {call.name} tool call are not valid JSON.")
    return action_from_mapping(call.name, args)


def _scratchpad(text: str) -> tuple[str | None, str]:
    """(the notes or None, the text without them)."""
    match = _SCRATCHPAD.search(text)
    if match is None:
        return None, text
    notes = match.group(1).strip()[:MAX_SCRATCHPAD_CHARS]
    return notes, text[: match.start()] + text[match.end() :]


def _text_action(text: str) -> ParseResult:
    marks = list(_ACTION_MARK.finditer(text))
    if len(marks) > 1:
        return ParseResult(
            None, f"{len(marks)} ACTION: lines: write exactly one ACTION: line per reply."
        )
    if marks:
        part = text[marks[0].end() :]
        found = _json_action(part)
        return found if found is not None else parse_one_action(_unfenced(part))
    found = _json_action(text)
    if found is not None:
        return found
    return parse_one_action(_unfenced(text), alone=True)


def parse_reply(
    text: str | None,
    *,
    tool_calls: Sequence[ToolCall] = (),
    finish_reason: str | None = None,
) -> ParsedReply:
    """Read one reply by the rules of the module docstring; never raises.

    Args:
        text: The reply's text.
        tool_calls: The reply's native tool calls.
        finish_reason: Why the model stopped (``"length"``: cut at ``max_tokens``).

    Returns:
        The action or the error, and the new scratchpad notes if the reply has them.
    """
    if finish_reason == "length":  # nothing of a cut reply is used, not even its notes
        return ParsedReply(None, CUT_REPLY_ERROR)
    text = text or ""
    notes, rest = _scratchpad(text)
    if tool_calls:
        result = tool_call_action(tool_calls)
    elif not text.strip():
        result = ParseResult(None, "The reply was empty. Write exactly one action.")
    else:
        result = _text_action(rest)
    return ParsedReply(result.action, None if result.action else result.error, notes)
