"""Reading one call's argument list: strings, bare values, dict literals, binding to a spec.

The low-level half of :mod:`collabsim.core.action_parser` (which finds the calls in a reply
and decides which one wins). Errors are :class:`ArgsError` (the call is not well-formed) or
:class:`ArityError` (misplaced positional values; a lenient repair may still help).
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from collabsim.core.actions import Action, ActionSpec


class ArgsError(Exception):
    """Internal: a candidate call is not well-formed."""


class ArityError(ArgsError):
    """Internal: too many or misplaced positional values (a lenient repair may help)."""


KEYWORD_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}
_STOP_RE = {q: re.compile(r"[\\" + q + "]") for q in ("'", '"')}
_OPENERS_RE = re.compile(r"[(\[{]+")
_SPECIAL_RE = re.compile(r"[\"'()\[\]{},]")
_MAX_DICT_CHARS = 100_000


def _read_string(text: str, pos: int) -> tuple[str, int]:
    """Read a quoted string starting at ``text[pos]``; return (value, index after it)."""
    quote = text[pos : pos + 3] if text.startswith(('"""', "'''"), pos) else text[pos]
    stop = _STOP_RE[quote[0]]
    out: list[str] = []
    i = pos + len(quote)
    while True:
        m = stop.search(text, i)
        if m is None:
            raise ArgsError(f"unterminated string starting with {quote} at offset {pos}")
        j = m.start()
        out.append(text[i:j])
        if text[j] == "\\":
            if j + 1 >= len(text):
                raise ArgsError(f"unterminated string starting with {quote} at offset {pos}")
            nxt = text[j + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i = j + 2
        elif text.startswith(quote, j):
            return "".join(out), j + len(quote)
        else:
            out.append(text[j])
            i = j + 1


def unescape(raw: str) -> str:
    """Apply the string escapes to ``raw`` (quotes inside are literal)."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        j = raw.find("\\", i)
        if j < 0 or j + 1 >= len(raw):
            out.append(raw[i:])
            break
        out.append(raw[i:j])
        nxt = raw[j + 1]
        out.append(_ESCAPES.get(nxt, "\\" + nxt))
        i = j + 2
    return "".join(out)


def skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _read_unquoted(text: str, pos: int) -> tuple[str, int]:
    """Read a bare value up to the next top-level ``,`` or ``)``; brackets nest."""
    depth = 0
    i = pos
    closers = {")": "(", "]": "[", "}": "{"}
    while True:
        m = _SPECIAL_RE.search(text, i)
        if m is None:
            raise ArgsError("missing closing ')'")
        i = m.start()
        c = text[i]
        if c in "\"'":
            try:
                _, i = _read_string(text, i)
            except ArgsError:
                i += 1
            continue
        if c in "([{":
            run = _OPENERS_RE.match(text, i)
            depth += run.end() - i if run else 1
            i = run.end() if run else i + 1
            continue
        elif c in closers:
            if depth == 0:
                if c == ")":
                    break
                raise ArgsError(f"unbalanced {c!r} at offset {i}")
            depth -= 1
        elif depth == 0:  # a top-level comma
            break
        i += 1
    return text[pos:i].strip(), i


def _dict_args(raw: str) -> dict[str, str] | None:
    """Decode ``{...}`` as JSON or a Python literal dict; None when it is not one."""
    if len(raw) > _MAX_DICT_CHARS:
        return None
    value: Any = None
    try:
        value = json.loads(raw)
    except Exception:  # noqa: BLE001 - includes RecursionError on deep nesting
        try:
            value = ast.literal_eval(raw)
        except Exception:  # noqa: BLE001 - any failure means "not a dict literal"
            return None
    if not isinstance(value, dict):
        return None
    return {
        str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
        for k, v in value.items()
    }


def read_args(text: str, pos: int) -> tuple[list[tuple[str | None, str]], int, bool]:
    """Read an argument list after the ``(`` at ``pos - 1``.

    Returns:
        (arguments as (keyword or None, value), index after ``)``, whether the list was a
        single dict literal).
    """
    args: list[tuple[str | None, str]] = []
    i = skip_ws(text, pos)
    if i < len(text) and text[i] == ")":
        return args, i + 1, False
    while True:
        key, i = _read_keyword(text, i)
        if text[i] in "\"'":
            value, i = _read_string(text, i)
        else:
            value, i = _read_bare_value(text, i, key)
            if key is None and not args:
                whole = _whole_dict_call(text, i, value)
                if whole is not None:
                    return whole
        args.append((key, value))
        i, closed = _after_value(text, i)
        if closed:
            return args, i, False


def _read_keyword(text: str, i: int) -> tuple[str | None, int]:
    """Read an optional ``name=`` before a value.

    Returns:
        (the keyword or None, index of the value).

    Raises:
        ArgsError: The text ends before a value.
    """
    i = skip_ws(text, i)
    if i >= len(text):
        raise ArgsError("missing closing ')'")
    key: str | None = None
    m = KEYWORD_RE.match(text, i)
    if m:
        key = m.group(1)
        i = m.end()
    if i >= len(text):
        raise ArgsError("missing closing ')'")
    return key, i


def _read_bare_value(text: str, i: int, key: str | None) -> tuple[str, int]:
    """Read an unquoted value at ``i``; an empty one is an error naming ``key``."""
    value, end = _read_unquoted(text, i)
    if not value:
        what = f"argument {key!r}" if key else "an argument"
        raise ArgsError(f"empty value for {what} at offset {i}")
    return value, end


def _whole_dict_call(
    text: str, i: int, value: str
) -> tuple[list[tuple[str | None, str]], int, bool] | None:
    """The call's arguments when ``value`` is a dict literal that is the whole argument list.

    Returns:
        The result of :func:`read_args` for ``NAME({...})``, or None when ``value`` is not a
        dict literal or more arguments follow it.
    """
    if not value.startswith("{"):
        return None
    end = skip_ws(text, i)
    if end < len(text) and text[end] == ")":
        decoded = _dict_args(value)
        if decoded is not None:
            return list(decoded.items()), end + 1, True
    return None


def _after_value(text: str, i: int) -> tuple[int, bool]:
    """Read the ``,`` or ``)`` after a value (a trailing ``, )`` closes too).

    Returns:
        (index after what was read, whether the argument list is closed).

    Raises:
        ArgsError: The text ends, or something else follows the value.
    """
    i = skip_ws(text, i)
    if i >= len(text):
        raise ArgsError("missing closing ')'")
    if text[i] == ")":
        return i + 1, True
    if text[i] != ",":
        raise ArgsError(
            f"expected ',' or ')' after an argument value at offset {i}, found {text[i]!r} "
            '(quote values that contain quotes or parentheses, escaping inner quotes as \\")'
        )
    i = skip_ws(text, i + 1)
    if i < len(text) and text[i] == ")":  # trailing comma
        return i + 1, True
    return i, False


def bind(spec: ActionSpec, raw: list[tuple[str | None, str]]) -> Action:
    """Match raw arguments to ``spec``; raise ArgsError naming the problem."""
    bound: dict[str, str] = {}
    names = spec.arg_names
    n_positional = 0
    seen_keyword = False
    for key, value in raw:
        if key is None:
            if seen_keyword:
                raise ArityError("a positional argument follows a keyword argument")
            if n_positional >= len(names):
                raise ArgsError(f"{spec.name} takes {len(names)} argument(s) but more were given")
            bound[names[n_positional]] = value
            n_positional += 1
            continue
        seen_keyword = True
        name = key.lower()
        if name not in names:
            valid = ", ".join(names) if names else "no arguments"
            raise ArgsError(f"{spec.name} has no argument {key!r} (valid: {valid})")
        if name in bound:
            raise ArgsError(f"argument {name!r} given twice")
        bound[name] = value
    missing = [a for a in spec.required if a not in bound]
    if missing:
        raise ArgsError(
            f"{spec.name} is missing required argument(s) {', '.join(repr(a) for a in missing)}"
        )
    return Action(spec.name, {a: bound[a] for a in names if a in bound})
