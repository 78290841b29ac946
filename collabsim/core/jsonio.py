"""Reading JSON that comes from outside: every way a file can fail is one clean error.

``json.loads`` fails on hostile input in more ways than ``JSONDecodeError``: nesting deeper
than the interpreter's recursion limit raises ``RecursionError``, an integer of more than
4,300 digits raises a plain ``ValueError``, and ``1e400`` silently becomes ``inf``.
:func:`loads` turns each into :class:`JSONInputError` (a ``ValueError``) whose message says
what is wrong, so a reader of task metadata or session files reports the file as a problem
instead of crashing with a traceback. :func:`as_int` reads an integer field strictly.

Writing, :func:`dumps` keeps text readable (``ensure_ascii=False``) but escapes the two kinds
of character that break a JSON-lines file: a lone surrogate (from undecodable bytes in a
cell's output) cannot be encoded as UTF-8 at all, and U+2028 / U+2029 are line breaks to
``str.splitlines`` and to JavaScript (as is NEL, U+0085). Escaped, all read back as the same
string.

This module imports nothing from collabsim, so every layer may use it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_INT_DIGITS = 100
"""Digits of the longest integer an identifier field (a query id) may have."""


_UNSAFE_IN_JSONL = re.compile("[\x85\ud800-\udfff\u2028\u2029]")


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **kwargs)`` that any UTF-8 file and line
    reader takes: lone surrogates and U+2028 / U+2029 written as ``\\uXXXX`` escapes.

    Args:
        value: A JSON-able value.
        **kwargs: More arguments of :func:`json.dumps` (``indent``, ``sort_keys``, ...).

    Returns:
        The JSON text (``json.loads`` of it equals ``value``).
    """
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    return _UNSAFE_IN_JSONL.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


class JSONInputError(ValueError):
    """A JSON text that cannot be read; the message says why."""


def loads(text: str | bytes) -> Any:
    """Decode JSON text, mapping every failure to :class:`JSONInputError`.

    Args:
        text: The JSON text.

    Returns:
        The decoded value.

    Raises:
        JSONInputError: Invalid JSON, nesting too deep to decode, or a number too long.
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise JSONInputError("invalid JSON: nested too deeply to read") from None
    except json.JSONDecodeError as err:
        raise JSONInputError(f"invalid JSON: {err}") from err
    except ValueError as err:  # e.g. an integer of more digits than int() converts
        raise JSONInputError(f"invalid JSON: {err}") from err


def as_int(value: Any) -> int:
    """``value`` as an integer: an int, an integral finite float, or a string of digits.

    Raises:
        ValueError: ``value`` is a bool, a fraction, infinite, NaN, longer than
            ``MAX_INT_DIGITS`` digits, or not a number.
    """
    if isinstance(value, bool):
        raise ValueError(f"not an integer: {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise ValueError(f"not an integer: {value!r}")
        value = int(value)
    if isinstance(value, str):
        text = value.strip()
        digits = text.lstrip("+-")
        if not digits.isdigit() or len(digits) > MAX_INT_DIGITS:
            raise ValueError(f"not an integer: {value[:40]!r}")
        value = int(text)
    if not isinstance(value, int):
        raise ValueError(f"not an integer: {value!r}")
    if len(str(abs(value))) > MAX_INT_DIGITS:
        raise ValueError(f"integer longer than {MAX_INT_DIGITS} digits")
    return value
