"""Text for a terminal: what task files say is shown, never obeyed by the terminal.

Task queries, descriptions and file names come from data folders a user downloaded. Printed
raw, an escape sequence in them (``ESC [ 2 J`` clears the screen, ``ESC ] 8`` writes a hidden
link, the one-byte CSI ``\\x9b``) or a bidirectional override is executed by the terminal.
:func:`printable` shows each such character as a visible escape instead.

This module imports nothing, so every layer may use it.
"""

from __future__ import annotations

import re

# C0 controls but tab, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
# What json.dumps leaves raw of those (it escapes C0 controls in strings itself, and the
# layout's own line breaks must stay).
_RAW_IN_JSON = re.compile(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """``text`` with every terminal control character shown as ``\\xNN`` / ``\\uNNNN``.

    Args:
        text: Any value (printed with ``str``).

    Returns:
        One line of text that a terminal displays as it is (line breaks are shown too).
    """
    return _CONTROL.sub(_visible, str(text))


def printable_json(text: str) -> str:
    """JSON text whose strings carry no raw terminal controls (the C1 and bidirectional
    characters ``json.dumps(..., ensure_ascii=False)`` leaves raw are ``\\uNNNN``-escaped).

    Args:
        text: JSON produced by ``json.dumps`` (C0 controls are already escaped there).

    Returns:
        The same JSON value, safe to print.
    """
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
