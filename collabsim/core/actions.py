"""The action language's vocabulary: action names, their signatures, and exact formatting.

Participants answer with the text of one action, Collaborative-Gym style::

    EXECUTE_CODE(code="df = pd.read_csv('data.csv')\\nprint(df.head())")

:class:`ActionName` lists the actions; :data:`ACTION_SPECS` gives each one's signature and
prompt text (the session engine keys its legality rules and effect handlers by it);
:func:`format_action` writes ``NAME(arg="...")`` with ``\\`` ``"`` and carriage returns escaped
and newlines kept literal; its output parses back (:func:`collabsim.core.action_parser.parse_action`)
to exactly the same :class:`Action` for arbitrary strings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class ActionName(StrEnum):
    """Every action of the action language (values are the names written in actions)."""

    SEND_TEAMMATE_MESSAGE = "SEND_TEAMMATE_MESSAGE"
    EXECUTE_CODE = "EXECUTE_CODE"
    EDITOR_UPDATE = "EDITOR_UPDATE"
    WAIT_TEAMMATE_CONTINUE = "WAIT_TEAMMATE_CONTINUE"
    FINISH = "FINISH"
    APPROVE = "APPROVE"
    REJECT = "REJECT"
    MEMORY_ADD = "MEMORY_ADD"
    MEMORY_AGREE = "MEMORY_AGREE"


@dataclass(frozen=True)
class ActionSpec:
    """Signature and documentation of one action.

    Attributes:
        name: Action name (upper case).
        required: Required argument names, in positional order.
        optional: Optional argument names (after the required ones).
        description: One-line description for prompts.
        example: A well-formed example call.
    """

    name: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    description: str
    example: str

    @property
    def arg_names(self) -> tuple[str, ...]:
        """All argument names in positional order."""
        return self.required + self.optional

    def syntax(self) -> str:
        """Return the call syntax, e.g. ``REJECT(request_id="...", reason="...")``."""
        parts = [f'{a}="..."' for a in self.required] + [f'[{a}="..."]' for a in self.optional]
        return f"{self.name}({', '.join(parts)})"


WAIT_MAX_SECONDS = "max_seconds"
"""``WAIT_TEAMMATE_CONTINUE``'s optional argument: wake at the latest this many virtual
seconds after the wait (see :func:`wait_bound`)."""


_SPECS: tuple[ActionSpec, ...] = (
    ActionSpec(
        "SEND_TEAMMATE_MESSAGE",
        ("message",),
        (),
        "Post a message to the team chat.",
        'SEND_TEAMMATE_MESSAGE(message="I will compute the first rise of Dagger.")',
    ),
    ActionSpec(
        "EXECUTE_CODE",
        ("code",),
        (),
        "Run Python in the shared sandbox (pd, np pre-imported; task files in the working "
        "directory); the output joins the shared code history.",
        "EXECUTE_CODE(code=\"df = pd.read_csv('data.csv')\\nprint(df.head())\")",
    ),
    ActionSpec(
        "EDITOR_UPDATE",
        ("text",),
        (),
        "Replace the result editor's text (the hypothesis the team submits).",
        'EDITOR_UPDATE(text="Dagger first rises around 2300 BCE.")',
    ),
    ActionSpec(
        "WAIT_TEAMMATE_CONTINUE",
        (),
        (WAIT_MAX_SECONDS,),
        "Do nothing now; continue when something new happens, or at the latest after "
        f"{WAIT_MAX_SECONDS} seconds (a positive number; omit it to wait for something new).",
        f'WAIT_TEAMMATE_CONTINUE({WAIT_MAX_SECONDS}="30")',
    ),
    ActionSpec(
        "FINISH",
        (),
        (),
        "Submit the result editor's text and end the session.",
        "FINISH()",
    ),
    ActionSpec(
        "APPROVE",
        ("request_id",),
        ("comment",),
        "Approve a pending gated action you own; it takes effect.",
        'APPROVE(request_id="g1")',
    ),
    ActionSpec(
        "REJECT",
        ("request_id", "reason"),
        (),
        "Reject a pending gated action you own; the reason goes to its author.",
        'REJECT(request_id="g1", reason="The query asks for the second rise, not the first.")',
    ),
    ActionSpec(
        "MEMORY_ADD",
        ("section", "text"),
        (),
        "Build phase only: add an entry to a group-memory section (expertise, trust, plan, "
        "evidence_criteria; in the scaffolded structure also gates, lines 'ACTION: owner').",
        'MEMORY_ADD(section="plan", text="D computes the series; R checks the wording.")',
    ),
    ActionSpec(
        "MEMORY_AGREE",
        (),
        (),
        "Build phase only: agree to the group memory as it stands.",
        "MEMORY_AGREE()",
    ),
)

ACTION_SPECS: Mapping[str, ActionSpec] = {spec.name: spec for spec in _SPECS}
"""Action name -> :class:`ActionSpec` for every action of the action language."""

GENERIC_SYNTAX = 'NAME(arg="value", ...), e.g. EXECUTE_CODE(code="print(df.head())")'


@dataclass(frozen=True)
class Action:
    """One parsed action: its upper-case name and string arguments (in signature order)."""

    name: str
    args: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", dict(self.args))


def quote_value(value: str) -> str:
    """Quote one argument value so that :func:`parse_action` reads it back exactly."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "\\r")
    return f'"{escaped}"'


def format_action(name: str, **args: Any) -> str:
    """Write an action in canonical form: ``NAME(arg="...", ...)``.

    Args:
        name: Action name (case-insensitive).
        **args: Argument values (converted with ``str``).

    Returns:
        Text that :func:`parse_action` parses back to ``Action(NAME, args)`` exactly.

    Raises:
        ValueError: Unknown action, unknown argument or missing required argument.
    """
    spec = ACTION_SPECS.get(name.upper())
    if spec is None:
        raise ValueError(f"unknown action {name!r}; known: {', '.join(ACTION_SPECS)}")
    unknown = [a for a in args if a not in spec.arg_names]
    if unknown:
        raise ValueError(f"{spec.name} has no argument(s) {unknown}; expected {spec.syntax()}")
    missing = [a for a in spec.required if a not in args]
    if missing:
        raise ValueError(f"{spec.name} is missing {missing}; expected {spec.syntax()}")
    parts = [f"{a}={quote_value(str(args[a]))}" for a in spec.arg_names if a in args]
    return f"{spec.name}({', '.join(parts)})"


def describe_actions(names: tuple[str, ...] | None = None) -> str:
    """Render one help line per action (syntax - description), for prompts.

    Args:
        names: Actions to describe (default: all, in specification order).
    """
    chosen = names if names is not None else tuple(ACTION_SPECS)
    lines = []
    for n in chosen:
        spec = ACTION_SPECS[n]
        lines.append(f"- {spec.syntax()}: {spec.description}")
    return "\n".join(lines)


def wait_bound(action: Action) -> float | None:
    """The time bound of a ``WAIT_TEAMMATE_CONTINUE`` (None: wait for something new).

    Args:
        action: A parsed ``WAIT_TEAMMATE_CONTINUE``.

    Returns:
        Its ``max_seconds`` as a number of virtual seconds, or None without it.

    Raises:
        ValueError: The ``max_seconds`` value is not a positive, finite number (the message
            names the argument and the value).
    """
    raw = action.args.get(WAIT_MAX_SECONDS)
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise ValueError(
            f"{WAIT_MAX_SECONDS} must be a positive, finite number of seconds, got {raw!r}"
        )
    return value


def format_wait(seconds: float | None = None) -> str:
    """Write a ``WAIT_TEAMMATE_CONTINUE``, bounded by ``seconds`` when given (None or
    ``inf``: wait for something new).

    The bound is written in milliseconds, rounded up (and never below one millisecond), so
    that the wait never ends before the time its author meant: a deadline ``d`` passed as
    ``d - now`` wakes the author at ``d`` or at most a millisecond later, never just before.

    Args:
        seconds: The longest the wait may last, in virtual seconds.
    """
    if seconds is None or math.isinf(seconds):
        return format_action("WAIT_TEAMMATE_CONTINUE")
    millis = max(1, math.ceil(seconds * 1000.0 + 1e-6))
    return format_action("WAIT_TEAMMATE_CONTINUE", **{WAIT_MAX_SECONDS: f"{millis / 1000:.3f}"})


def tool_schemas(names: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """OpenAI-style function schemas of actions, for native tool calling.

    Each action is one function of the same name whose parameters are its arguments, all
    strings (the action language has string arguments only), the required ones required.

    Args:
        names: Actions to describe (default: all, in specification order).

    Returns:
        ``[{"type": "function", "function": {"name", "description", "parameters"}}, ...]``.
    """
    chosen = names if names is not None else tuple(ACTION_SPECS)
    out: list[dict[str, Any]] = []
    for n in chosen:
        spec = ACTION_SPECS[n]
        out.append(
            {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": {
                        "type": "object",
                        "properties": {a: {"type": "string"} for a in spec.arg_names},
                        "required": list(spec.required),
                        "additionalProperties": False,
                    },
                },
            }
        )
    return out
