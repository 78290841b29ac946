"""Reading the action language: ``NAME(arg="...")`` texts, parsed leniently.

Participants answer with the text of one action, Collaborative-Gym style::

    EXECUTE_CODE(code="df = pd.read_csv('data.csv')\\nprint(df.head())")

:func:`parse_action` never raises. Parsing rules (in order):

* The text is scanned for calls ``IDENT(`` (identifier, optional spaces, opening
  parenthesis). Names are case-insensitive. Candidates with a known action name are tried
  in order of position; **the first well-formed one wins** - prose, markdown code fences and
  further actions around it are ignored. Only when no candidate is well-formed, a lenient
  repair is tried on the candidates whose argument list had a syntax error, in order, for
  actions taking exactly one argument: the value runs from the opening quote (or the ``=``)
  to the *last* matching ``quote)`` (or ``)``) of the text, which rescues code with
  unescaped inner quotes.
* Values: ``"..."``, ``'...'``, ``\"\"\"...\"\"\"`` and ``'''...'''`` strings with the
  escapes ``\\n \\t \\r \\\\ \\" \\'`` (any other backslash pair is kept verbatim, so
  regular expressions survive), or unquoted simple values read up to the next top-level
  ``,`` / ``)`` (``APPROVE(request_id=g1)``).
* Keyword arguments ``name=value``; positional values are matched to the action's
  arguments in order (``APPROVE(g1)``); a single ``{...}`` JSON/Python dict is read as the
  keyword arguments (``SEND_TEAMMATE_MESSAGE({"message": "hi"})``).
* A text that is nothing but the name of an action without required arguments
  (``FINISH``, `` `FINISH` ``) is accepted.
* Failures name what is wrong (unknown action, unknown or missing argument, unterminated
  string, ...) and show the expected syntax.

Writing actions (:func:`collabsim.core.actions.format_action`) is the exact inverse.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from collabsim.core.actions import ACTION_SPECS, GENERIC_SYNTAX, Action, ActionSpec


@dataclass(frozen=True)
class ParseResult:
    """Outcome of :func:`parse_action`: exactly one of ``action`` and ``error`` is set."""

    action: Action | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when an action was parsed."""
        return self.action is not None


class _ParseError(Exception):
    """Internal: a candidate call is not well-formed."""


class _ArityError(_ParseError):
    """Internal: too many or misplaced positional values (a lenient repair may help)."""


_CALL_RE = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")
_UNKNOWN_NAME_RE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_KEYWORD_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}
_STOP_RE = {q: re.compile(r"[\\" + q + "]") for q in ("'", '"')}
_MAX_CANDIDATES = 64
_CANDIDATE_CHAR_BUDGET = 4_000_000
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
            raise _ParseError(f"unterminated string starting with {quote} at offset {pos}")
        j = m.start()
        out.append(text[i:j])
        if text[j] == "\\":
            if j + 1 >= len(text):
                raise _ParseError(f"unterminated string starting with {quote} at offset {pos}")
            nxt = text[j + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i = j + 2
        elif text.startswith(quote, j):
            return "".join(out), j + len(quote)
        else:
            out.append(text[j])
            i = j + 1


def _unescape(raw: str) -> str:
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


def _skip_ws(text: str, pos: int) -> int:
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
            raise _ParseError("missing closing ')'")
        i = m.start()
        c = text[i]
        if c in "\"'":
            try:
                _, i = _read_string(text, i)
            except _ParseError:
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
                raise _ParseError(f"unbalanced {c!r} at offset {i}")
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


def _read_args(text: str, pos: int) -> tuple[list[tuple[str | None, str]], int, bool]:
    """Read an argument list after the ``(`` at ``pos - 1``.

    Returns:
        (arguments as (keyword or None, value), index after ``)``, whether the list was a
        single dict literal).
    """
    args: list[tuple[str | None, str]] = []
    i = _skip_ws(text, pos)
    if i < len(text) and text[i] == ")":
        return args, i + 1, False
    while True:
        i = _skip_ws(text, i)
        if i >= len(text):
            raise _ParseError("missing closing ')'")
        key: str | None = None
        m = _KEYWORD_RE.match(text, i)
        if m:
            key = m.group(1)
            i = m.end()
        if i >= len(text):
            raise _ParseError("missing closing ')'")
        if text[i] in "\"'":
            value, i = _read_string(text, i)
        else:
            start = i
            value, i = _read_unquoted(text, i)
            if not value:
                what = f"argument {key!r}" if key else "an argument"
                raise _ParseError(f"empty value for {what} at offset {start}")
            if key is None and not args and value.startswith("{"):
                end = _skip_ws(text, i)
                if end < len(text) and text[end] == ")":
                    decoded = _dict_args(value)
                    if decoded is not None:
                        return list(decoded.items()), end + 1, True
        args.append((key, value))
        i = _skip_ws(text, i)
        if i >= len(text):
            raise _ParseError("missing closing ')'")
        if text[i] == ")":
            return args, i + 1, False
        if text[i] != ",":
            raise _ParseError(
                f"expected ',' or ')' after an argument value at offset {i}, found {text[i]!r} "
                '(quote values that contain quotes or parentheses, escaping inner quotes as \\")'
            )
        i = _skip_ws(text, i + 1)
        if i < len(text) and text[i] == ")":  # trailing comma
            return args, i + 1, False


def _bind(spec: ActionSpec, raw: list[tuple[str | None, str]]) -> Action:
    """Match raw arguments to ``spec``; raise _ParseError naming the problem."""
    bound: dict[str, str] = {}
    names = spec.arg_names
    n_positional = 0
    seen_keyword = False
    for key, value in raw:
        if key is None:
            if seen_keyword:
                raise _ArityError("a positional argument follows a keyword argument")
            if n_positional >= len(names):
                raise _ParseError(f"{spec.name} takes {len(names)} argument(s) but more were given")
            bound[names[n_positional]] = value
            n_positional += 1
            continue
        seen_keyword = True
        name = key.lower()
        if name not in names:
            valid = ", ".join(names) if names else "no arguments"
            raise _ParseError(f"{spec.name} has no argument {key!r} (valid: {valid})")
        if name in bound:
            raise _ParseError(f"argument {name!r} given twice")
        bound[name] = value
    missing = [a for a in spec.required if a not in bound]
    if missing:
        raise _ParseError(
            f"{spec.name} is missing required argument(s) {', '.join(repr(a) for a in missing)}"
        )
    return Action(spec.name, {a: bound[a] for a in names if a in bound})


def _repair(spec: ActionSpec, text: str, pos: int) -> Action | None:
    """Lenient fallback for one-argument actions: take everything to the last close."""
    if len(spec.arg_names) != 1:
        return None
    i = _skip_ws(text, pos)
    m = _KEYWORD_RE.match(text, i)
    if m:
        if m.group(1).lower() != spec.arg_names[0]:
            return None
        i = m.end()
    if i >= len(text):
        return None
    if text[i] in "\"'":
        quote = text[i : i + 3] if text.startswith(('"""', "'''"), i) else text[i]
        closes = list(re.finditer(re.escape(quote) + r"\s*\)", text[i + len(quote) :]))
        if not closes:
            return None
        raw = text[i + len(quote) : i + len(quote) + closes[-1].start()]
        value = _unescape(raw)
    else:
        end = text.rfind(")")
        if end <= i or text[i] == ")":
            return None
        value = text[i:end].strip()
    if not value:
        return None
    return Action(spec.name, {spec.arg_names[0]: value})


def _expected(spec: ActionSpec) -> str:
    return f"Expected syntax: {spec.syntax()}, e.g. {spec.example}"


def _bare_name(text: str) -> Action | None:
    """Accept a text that is only the name of an argument-less action."""
    core = text.strip().strip("`").strip()
    core = re.sub(r"^(?:[A-Za-z]*\n)", "", core).strip().strip("`").strip()
    core = re.sub(r"^(?:action|next action)\s*:\s*", "", core, flags=re.I).strip().rstrip(".!")
    spec = ACTION_SPECS.get(core.upper())
    if spec is not None and not spec.required:
        return Action(spec.name, {})
    return None


def _parse(text: str) -> ParseResult:
    first_error: str | None = None
    unknown: list[str] = []
    syntax_failures: list[tuple[ActionSpec, int]] = []
    tried = 0
    max_tried = max(4, min(_MAX_CANDIDATES, _CANDIDATE_CHAR_BUDGET // (len(text) + 1)))
    for m in _CALL_RE.finditer(text):
        name = m.group(1)
        spec = ACTION_SPECS.get(name.upper())
        if spec is None:
            if _UNKNOWN_NAME_RE.fullmatch(name) and name not in unknown:
                unknown.append(name)
            continue
        tried += 1
        if tried > max_tried:
            break
        try:
            raw, _, _ = _read_args(text, m.end())
        except _ParseError as exc:
            syntax_failures.append((spec, m.end()))
            error = str(exc)
        else:
            try:
                return ParseResult(_bind(spec, raw))
            except _ArityError as exc:
                syntax_failures.append((spec, m.end()))
                error = str(exc)
            except _ParseError as exc:
                error = str(exc)
        if first_error is None:
            first_error = f"Could not parse {spec.name}: {error}. {_expected(spec)}"
    for spec, pos in syntax_failures:
        repaired = _repair(spec, text, pos)
        if repaired is not None:
            return ParseResult(repaired)
    if first_error is not None:
        return ParseResult(None, first_error)
    bare = _bare_name(text)
    if bare is not None:
        return ParseResult(bare)
    known = ", ".join(ACTION_SPECS)
    if unknown:
        return ParseResult(
            None,
            f"Unknown action {unknown[0]!r}. Known actions: {known}. "
            f"Expected syntax: {GENERIC_SYNTAX}",
        )
    mentioned = [n for n in ACTION_SPECS if n in text and re.search(rf"\b{n}\b", text)]
    hint = f" {_expected(ACTION_SPECS[mentioned[0]])}." if mentioned else ""
    return ParseResult(
        None,
        f"No action found: write exactly one action as {GENERIC_SYNTAX}. "
        f"Known actions: {known}.{hint}",
    )


def parse_action(text: str) -> ParseResult:
    """Parse the first well-formed known action in ``text``; never raises.

    Args:
        text: A participant's reply (may contain prose and markdown fences).

    Returns:
        A :class:`ParseResult` with the action, or with an error message that says what is
        wrong and shows the expected syntax.
    """
    try:
        if not isinstance(text, str):
            return ParseResult(None, f"An action must be text, got {type(text).__name__}.")
        return _parse(text)
    except Exception as exc:  # noqa: BLE001 - the parser must never raise
        return ParseResult(
            None, f"Could not parse the action ({type(exc).__name__}). Expected {GENERIC_SYNTAX}"
        )
