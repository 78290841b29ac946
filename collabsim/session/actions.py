"""The action language, as the engine and its tests use it.

The vocabulary and formatting live in :mod:`collabsim.core.actions`, the lenient reader in
:mod:`collabsim.core.action_parser` (shared with the participants); this module re-exports
both under their historical names.
"""

from collabsim.core.action_parser import ParseResult, parse_action
from collabsim.core.actions import (
    ACTION_SPECS,
    GENERIC_SYNTAX,
    WAIT_MAX_SECONDS,
    Action,
    ActionName,
    ActionSpec,
    describe_actions,
    format_action,
    format_wait,
    quote_value,
    wait_bound,
)

__all__ = [
    "ACTION_SPECS",
    "GENERIC_SYNTAX",
    "WAIT_MAX_SECONDS",
    "Action",
    "ActionName",
    "ActionSpec",
    "ParseResult",
    "describe_actions",
    "format_action",
    "format_wait",
    "parse_action",
    "quote_value",
    "wait_bound",
]
