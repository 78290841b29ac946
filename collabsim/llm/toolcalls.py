"""Native tool calls: what a provider's reply asks to call, as plain frozen records.

litellm returns OpenAI-style tool calls (``choices[0].message.tool_calls``, each with
``function.name`` and ``function.arguments``); :func:`read_tool_calls` turns them into
:class:`ToolCall` records, which the disk cache stores and replays with the reply text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """One tool call of a reply.

    Attributes:
        name: The tool (function) name the model called.
        arguments: The arguments as the JSON text the provider sent (not parsed: a model may
            send invalid JSON, and the caller decides what that means).
    """

    name: str
    arguments: str

    def to_dict(self) -> dict[str, str]:
        """``{"name": ..., "arguments": ...}`` (for the cache and the call log)."""
        return {"name": self.name, "arguments": self.arguments}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCall:
        """Inverse of :meth:`to_dict`."""
        return cls(name=str(data["name"]), arguments=str(data["arguments"]))


def _field(item: Any, name: str) -> Any:
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


def read_tool_calls(raw: Iterable[Any] | None) -> tuple[ToolCall, ...]:
    """The tool calls of a litellm message (``message.tool_calls``; None -> none).

    Args:
        raw: litellm's tool-call objects or dicts (``{"function": {"name", "arguments"}}``).

    Returns:
        The calls in the provider's order; calls without a function name are dropped.
        Arguments that are not text (some providers send an object) become compact JSON.
    """
    calls = []
    for item in raw or ():
        function = _field(item, "function")
        name = _field(function, "name") if function is not None else None
        if not name:
            continue
        arguments = _field(function, "arguments")
        if arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
        calls.append(ToolCall(name=str(name), arguments=arguments))
    return tuple(calls)
