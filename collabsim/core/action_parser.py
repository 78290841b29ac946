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

:func:`parse_one_action` is the strict reading for a text that is meant to *be* one action
(the action part of a model's reply): its first action-like call (a known action name, or
any upper-case name such as ``SUBMIT(``) must be a known action, and no second action-like
call may follow it; with ``alone=True`` nothing but white space may surround the call.
:func:`action_from_mapping` builds an action from a name and a mapping of arguments (JSON
replies, native tool calls).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from collabsim.core.action_args import (
    KEYWORD_RE,
    ArgsError,
    ArityError,
    bind,
    read_args,
    skip_ws,
    unescape,
)
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


_CALL_RE = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")
_UNKNOWN_NAME_RE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_MAX_CANDIDATES = 64
_CANDIDATE_CHAR_BUDGET = 4_000_000


def _repair(spec: ActionSpec, text: str, pos: int) -> Action | None:
    """Lenient fallback for one-argument actions: take everything to the last close."""
    if len(spec.arg_names) != 1:
        return None
    i = _repair_value_start(spec, text, pos)
    if i is None:
        return None
    value = _to_last_quote_close(text, i) if text[i] in "\"'" else _to_last_paren(text, i)
    if not value:
        return None
    return Action(spec.name, {spec.arg_names[0]: value})


def _repair_value_start(spec: ActionSpec, text: str, pos: int) -> int | None:
    """Where the value of a one-argument call starts (after an optional ``name=``).

    Returns:
        The index, or None when the keyword is not the action's argument or the text ends.
    """
    i = skip_ws(text, pos)
    m = KEYWORD_RE.match(text, i)
    if m:
        if m.group(1).lower() != spec.arg_names[0]:
            return None
        i = m.end()
    return i if i < len(text) else None


def _to_last_quote_close(text: str, i: int) -> str | None:
    """The unescaped string from the quote at ``i`` to the last ``quote)`` of the text."""
    quote = text[i : i + 3] if text.startswith(('"""', "'''"), i) else text[i]
    closes = list(re.finditer(re.escape(quote) + r"\s*\)", text[i + len(quote) :]))
    if not closes:
        return None
    return unescape(text[i + len(quote) : i + len(quote) + closes[-1].start()])


def _to_last_paren(text: str, i: int) -> str | None:
    """The bare value from ``i`` to the last ``)`` of the text (None when there is none)."""
    end = text.rfind(")")
    if end <= i or text[i] == ")":
        return None
    return text[i:end].strip()


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


@dataclass
class _Scan:
    """What a pass over the calls of a text found when none of them was well-formed.

    Attributes:
        first_error: The message for the first known action that failed to parse.
        unknown: Action-like names (``UPPER_SNAKE``) that are no known action, in order.
        syntax_failures: (spec, index after ``(``) of the calls a lenient repair may rescue.
    """

    first_error: str | None = None
    unknown: list[str] = field(default_factory=list)
    syntax_failures: list[tuple[ActionSpec, int]] = field(default_factory=list)

    def note_unknown(self, name: str) -> None:
        """Remember ``name`` when it looks like an action name (once)."""
        if _UNKNOWN_NAME_RE.fullmatch(name) and name not in self.unknown:
            self.unknown.append(name)

    def note_failure(self, spec: ActionSpec, pos: int, error: str, repairable: bool) -> None:
        """Remember a call of ``spec`` at ``pos`` that did not parse."""
        if repairable:
            self.syntax_failures.append((spec, pos))
        if self.first_error is None:
            self.first_error = f"Could not parse {spec.name}: {error}. {_expected(spec)}"


def _try_call(spec: ActionSpec, text: str, pos: int) -> tuple[Action | None, str, bool]:
    """Read and bind the arguments of a call of ``spec`` whose ``(`` is at ``pos - 1``.

    Returns:
        (the action or None, the error when None, whether a lenient repair may help).
    """
    try:
        raw, _, _ = read_args(text, pos)
    except ArgsError as exc:
        return None, str(exc), True
    try:
        return bind(spec, raw), "", False
    except ArityError as exc:
        return None, str(exc), True
    except ArgsError as exc:
        return None, str(exc), False


def _scan(text: str) -> Action | _Scan:
    """Try the calls of known actions in ``text`` in order; the first well-formed one wins.

    Returns:
        That action, or what the scan found when none was well-formed (at most
        ``max_tried`` candidates are tried, fewer the longer the text).
    """
    scan = _Scan()
    tried = 0
    max_tried = max(4, min(_MAX_CANDIDATES, _CANDIDATE_CHAR_BUDGET // (len(text) + 1)))
    for m in _CALL_RE.finditer(text):
        name = m.group(1)
        spec = ACTION_SPECS.get(name.upper())
        if spec is None:
            scan.note_unknown(name)
            continue
        tried += 1
        if tried > max_tried:
            break
        action, error, repairable = _try_call(spec, text, m.end())
        if action is not None:
            return action
        scan.note_failure(spec, m.end(), error, repairable)
    return scan


def _no_action_error(text: str, unknown: list[str]) -> str:
    """The message for a text without a known action (naming an unknown one if seen)."""
    known = ", ".join(ACTION_SPECS)
    if unknown:
        return (
            f"Unknown action {unknown[0]!r}. Known actions: {known}. "
            f"Expected syntax: {GENERIC_SYNTAX}"
        )
    mentioned = [n for n in ACTION_SPECS if n in text and re.search(rf"\b{n}\b", text)]
    hint = f" {_expected(ACTION_SPECS[mentioned[0]])}." if mentioned else ""
    return (
        f"No action found: write exactly one action as {GENERIC_SYNTAX}. "
        f"Known actions: {known}.{hint}"
    )


def _parse(text: str) -> ParseResult:
    """Parse ``text`` by the rules of the module docstring, in their order."""
    scan = _scan(text)
    if isinstance(scan, Action):
        return ParseResult(scan)
    for spec, pos in scan.syntax_failures:
        repaired = _repair(spec, text, pos)
        if repaired is not None:
            return ParseResult(repaired)
    if scan.first_error is not None:
        return ParseResult(None, scan.first_error)
    bare = _bare_name(text)
    if bare is not None:
        return ParseResult(bare)
    return ParseResult(None, _no_action_error(text, scan.unknown))


def _action_like(name: str) -> bool:
    """A call name that means an action: a known one (any case) or an upper-case name."""
    return name.upper() in ACTION_SPECS or (len(name) > 1 and name.isupper())


def _action_calls(text: str) -> list[re.Match[str]]:
    return [m for m in _CALL_RE.finditer(text) if _action_like(m.group(1))]


def _unknown_action_error(name: str) -> str:
    return (
        f"Unknown action {name!r}. Known actions: {', '.join(ACTION_SPECS)}. "
        f"Expected syntax: {GENERIC_SYNTAX}"
    )


def _two_actions_error(first: str, second: str) -> str:
    return f"Two actions ({first} and then {second}): write exactly one action per turn."


def parse_one_action(text: str, *, alone: bool = False) -> ParseResult:
    """Parse a text that must hold exactly one action; never raises.

    Args:
        text: The action part of a reply (prose may surround the call unless ``alone``).
        alone: Nothing but white space may come before or after the call (a bare name of an
            action without required arguments, ``FINISH``, is accepted either way).

    Returns:
        The action, or an error naming an unknown action, a second action, prose around a
        bare action (``alone``) or what is wrong with the call.
    """
    if not isinstance(text, str):
        return ParseResult(None, f"An action must be text, got {type(text).__name__}.")
    try:
        return _parse_one(text, alone)
    except Exception as exc:  # noqa: BLE001 - the parser must never raise
        return ParseResult(
            None, f"Could not parse the action ({type(exc).__name__}). Expected {GENERIC_SYNTAX}"
        )


def _alone_error(where: str, spec: ActionSpec) -> ParseResult:
    return ParseResult(
        None,
        f"Text {where} the action: without an ACTION: marker the reply must be the action "
        f"alone. Write THOUGHT: ... then ACTION: {spec.example}",
    )


def _parse_one(text: str, alone: bool) -> ParseResult:
    calls = _action_calls(text)
    if not calls:
        bare = _bare_name(text)
        return ParseResult(bare, None if bare else _no_action_error(text, []))
    first = calls[0]
    spec = ACTION_SPECS.get(first.group(1).upper())
    if spec is None:
        return ParseResult(None, _unknown_action_error(first.group(1)))
    if alone and text[: first.start()].strip():
        return _alone_error("before", spec)
    action, error, repairable = _try_call(spec, text, first.end())
    if action is None:
        repaired = _repair(spec, text, first.end()) if repairable else None
        why = None if repaired else f"Could not parse {spec.name}: {error}. {_expected(spec)}"
        return ParseResult(repaired, why)
    return _nothing_after(spec, action, text[read_args(text, first.end())[1] :], alone)


def _nothing_after(spec: ActionSpec, action: Action, rest: str, alone: bool) -> ParseResult:
    """``action`` when no second action (nor, ``alone``, any text) follows it in ``rest``."""
    later = _action_calls(rest)
    if later:
        return ParseResult(None, _two_actions_error(spec.name, later[0].group(1).upper()))
    if alone and rest.strip():
        return _alone_error("after", spec)
    return ParseResult(action)


def action_from_mapping(name: object, args: object) -> ParseResult:
    """Build an action from a name and its arguments (a JSON reply, a native tool call).

    Args:
        name: The action name (case-insensitive).
        args: A mapping of argument names to values (non-strings are written as JSON), or
            None for no arguments.

    Returns:
        The action, or an error naming an unknown action, an unknown or missing argument.
    """
    if not isinstance(name, str) or not name.strip():
        return ParseResult(None, f"The action name must be text, got {name!r}.")
    spec = ACTION_SPECS.get(name.strip().upper())
    if spec is None:
        return ParseResult(None, _unknown_action_error(name.strip()))
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return ParseResult(
            None, f"The arguments of {spec.name} must be an object. {_expected(spec)}"
        )
    raw = [
        (str(k), v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))
        for k, v in args.items()
    ]
    try:
        return ParseResult(bind(spec, raw))  # type: ignore[arg-type]
    except ArgsError as exc:
        return ParseResult(None, f"Could not parse {spec.name}: {exc}. {_expected(spec)}")


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
