"""What a scripted policy has read of its session so far, kept up to date event by event.

The scripted policies (:mod:`collabsim.participants.scripted`) decide on what the chat,
the shared code cells and the action history show. Instead of scanning all three at every
decision, each policy keeps a :class:`SessionLog`, a small typed record reduced from the
events: :func:`read_message`, :func:`read_cell` and :func:`read_entry` are the reducers
(``(state, event) -> state``), :func:`log_of` folds a whole observation (the reference: what
the log is by definition) and :class:`SessionReader` folds only the events that are new
since the policy's last decision, so that a decision costs O(new events).

Within a session the chat and the code cells only grow (new items at the end) and the
action history only gains entries (an action that ends later than one started after it
shows up among earlier entries, by ``seq``); a different participant or task, a chat, cell
list or history that does not extend what was read (another session, or a test's
hand-built observation) starts the log afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage, CodeCell, HistoryEntry
from collabsim.core.tags import MessageTags, parse_issues
from collabsim.domain.stats.cell import STATS_MARK, parse_stats_result
from collabsim.domain.stats.model import StatResult
from collabsim.participants.cells import (
    COMPUTE_MARK,
    INSPECT_MARK,
    AnalysisResult,
    parse_missing_bins,
    parse_result,
)
from collabsim.session.workspace import summary_shows

__all__ = [
    "ANSWER", "Ask", "CellState", "ChatState", "HistoryState", "Issues", "SessionLog",
    "SessionReader", "log_of", "read_cell", "read_entry", "read_message",
]

S = TypeVar("S")

# The pseudo issue kind of an answer to the agent's own question: applied as asked for.
ANSWER = "answer"

Issues = tuple[tuple[str, dict[str, str]], ...]


def _evolve(state: S, changes: dict[str, Any]) -> S:
    """``state`` with the fields in ``changes`` replaced (``dataclasses.replace`` without
    its per-call field walk: the reducers run once per event, the names are the fields')."""
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


@dataclass(frozen=True)
class Ask:
    """A question I put in chat: its message, topic, the teammate asked and the first later
    message of that teammate with a fact tag on the topic (None: not answered yet)."""

    message: ChatMessage
    topic: str
    whom: str
    answer: ChatMessage | None = None


@dataclass(frozen=True)
class ChatState:
    """What the chat said so far, as the policy ``me`` needs it.

    Attributes:
        me: Whose log it is.
        read: How many messages were read.
        others_spoke: Whether a teammate posted anything.
        kickoff: Whether any message (mine too) asks the agent to start (``[kickoff]``).
        kickoff_by_other / lead_by_other / handover_by_other: Whether a teammate's message
            carries that tag.
        checkers: Draft fingerprint -> who posted a check of it (me too).
        raised: Drafts a teammate's check raised issues with.
        edit_author: Draft fingerprint -> the teammate whose latest message announces an
            edit writing it.
        edit_plans: Draft fingerprint -> ``(sender, time, written fps)`` of teammates'
            messages that check it and announce an edit.
        kept: Drafts a teammate said it keeps (declining an objection).
        announced: Draft fingerprint -> (its rank among the drafts teammates announced, when
            a teammate first announced it).
        asks: My questions, oldest first.
        asks_to_me: ``(key, topic, time)`` of teammates' questions to me, oldest first.
        told: Teammates' fact tags: ``(message, topic, setting or None: unknown)``.
        objections: Teammates' messages that object or state facts: ``(message, stated,
            issues)``, ``stated`` the facts with a setting as ``(whether it answers my
            question on its topic, topic, setting)`` (the agent applies an answer as asked
            for, :data:`ANSWER`, and a volunteered fact as an issue of the kind its topic
            corrects), ``issues`` its issue tags.
        my_tags: My messages with their tags, in chat order: what I said is read back
            from the chat (:meth:`my`), never remembered from earlier decisions.
    """

    me: str
    read: int = 0
    others_spoke: bool = False
    kickoff: bool = False
    kickoff_by_other: bool = False
    lead_by_other: bool = False
    handover_by_other: bool = False
    checkers: Mapping[str, frozenset[str]] = field(default_factory=dict)
    raised: frozenset[str] = frozenset()
    edit_author: Mapping[str, str] = field(default_factory=dict)
    edit_plans: Mapping[str, tuple[tuple[str, float, tuple[str, ...]], ...]] = field(
        default_factory=dict)
    kept: frozenset[str] = frozenset()
    announced: Mapping[str, tuple[int, float]] = field(default_factory=dict)
    asks: tuple[Ask, ...] = ()
    asks_to_me: tuple[tuple[str, str, float], ...] = ()
    told: tuple[tuple[ChatMessage, str, dict[str, str] | None], ...] = ()
    objections: tuple[tuple[ChatMessage, tuple[tuple[bool, str, dict[str, str]], ...],
                            Issues], ...] = ()
    my_tags: tuple[tuple[ChatMessage, MessageTags], ...] = ()

    def my(self, has: Callable[[MessageTags], bool]) -> list[ChatMessage]:
        """My messages whose tags ``has`` accepts, in chat order."""
        return [m for m, tags in self.my_tags if has(tags)]


def read_message(state: ChatState, message: ChatMessage, tags: MessageTags) -> ChatState:
    """The chat state after one more message (``tags``: its parsed tags)."""
    position = state.read
    changes: dict[str, Any] = {"read": position + 1}
    if tags.kickoff and not state.kickoff:
        changes["kickoff"] = True
    if tags.checked:
        checkers = dict(state.checkers)
        for fp in tags.checked:
            checkers[fp] = checkers.get(fp, frozenset()) | {message.sender}
        changes["checkers"] = checkers
    if message.sender == state.me:
        changes["my_tags"] = (*state.my_tags, (message, tags))
        if tags.asks:
            changes["asks"] = state.asks + tuple(
                Ask(message, topic, whom) for topic, whom in tags.asks)
        return _evolve(state, changes)
    changes.update(_others_message(state, message, tags))
    return _evolve(state, changes)


def _others_message(state: ChatState, message: ChatMessage, tags: MessageTags
                    ) -> dict[str, Any]:
    """The changes a teammate's message makes to the chat state."""
    changes: dict[str, Any] = {"others_spoke": True}
    for name, flag in (("kickoff_by_other", tags.kickoff), ("lead_by_other", tags.lead),
                       ("handover_by_other", tags.handover)):
        if flag and not getattr(state, name):
            changes[name] = True
    changes.update(_draft_tags(state, message, tags))
    mine_asked = [(topic, f"{message.seq}:{topic}") for topic, to in tags.asks
                  if to == state.me]
    if mine_asked:
        changes["asks_to_me"] = state.asks_to_me + tuple(
            (key, topic, message.time) for topic, key in mine_asked)
    if tags.facts:
        changes.update(_facts_told(state, message, tags))
    elif tags.issues:
        changes["objections"] = (*state.objections, (message, (), tags.issues))
    return changes


def _draft_tags(state: ChatState, message: ChatMessage, tags: MessageTags
                ) -> dict[str, Any]:
    """The changes a teammate's tags about drafts (checked, edited, kept, announced) make."""
    changes: dict[str, Any] = {}
    if tags.checked and tags.issues:
        changes["raised"] = state.raised | set(tags.checked)
    if tags.edited:
        changes["edit_author"] = {**state.edit_author,
                                  **dict.fromkeys(tags.edited, message.sender)}
        plans = dict(state.edit_plans)
        for fp in tags.checked:
            plans[fp] = (*plans.get(fp, ()), (message.sender, message.time, tags.edited))
        changes["edit_plans"] = plans
    if tags.kept:
        changes["kept"] = state.kept | set(tags.kept)
    if tags.announced:
        announced = dict(state.announced)
        for fp in tags.announced:
            if fp not in announced:
                announced[fp] = (len(announced), message.time)
        changes["announced"] = announced
    return changes


def _facts_told(state: ChatState, message: ChatMessage, tags: MessageTags
                ) -> dict[str, Any]:
    """A teammate's fact tags: what it told, the questions of mine it answers, and the
    message as an objection (its issues and the facts it states)."""
    topics = {topic for topic, _ in tags.facts}
    answered: set[str] = set()
    asks = list(state.asks)
    for i, ask in enumerate(asks):
        if ask.answer is None and ask.whom == message.sender and ask.topic in topics:
            asks[i] = replace(ask, answer=message)
            answered.add(ask.topic)
    stated = tuple((topic in answered, topic, setting)
                   for topic, setting in tags.facts if setting)
    changes: dict[str, Any] = {
        "told": state.told + tuple((message, topic, setting) for topic, setting in tags.facts)}
    if answered:
        changes["asks"] = tuple(asks)
    if stated or tags.issues:
        changes["objections"] = (*state.objections, (message, stated, tags.issues))
    return changes


@dataclass(frozen=True)
class CellState:
    """What the shared code cells show, as the policy ``me`` needs it.

    Attributes:
        me: Whose log it is.
        read: How many cells were read.
        my_last: Code -> my latest cell running it (empty: I ran none).
        authors: Who ran a cell.
        others_results: Parsed results of teammates' compute cells that ran, oldest first.
        others_stats: ``(code, parsed result)`` of teammates' statistical compute cells that
            ran, oldest first.
        missing_bins: Column -> missing bins, as the latest inspect cell (anyone's) naming
            the column printed them.
    """

    me: str
    read: int = 0
    my_last: Mapping[str, CodeCell] = field(default_factory=dict)
    authors: frozenset[str] = frozenset()
    others_results: tuple[AnalysisResult, ...] = ()
    others_stats: tuple[tuple[str, StatResult], ...] = ()
    missing_bins: Mapping[str, int] = field(default_factory=dict)

    @property
    def others_ran_code(self) -> bool:
        """Whether a teammate ran a cell."""
        return bool(self.authors - {self.me})


def read_cell(state: CellState, cell: CodeCell) -> CellState:
    """The cell state after one more code cell."""
    changes: dict[str, Any] = {"read": state.read + 1}
    if cell.author not in state.authors:
        changes["authors"] = state.authors | {cell.author}
    if cell.ok and cell.code.startswith(INSPECT_MARK):
        changes["missing_bins"] = {**state.missing_bins, **parse_missing_bins(cell.output)}
    if cell.author == state.me:
        changes["my_last"] = {**state.my_last, cell.code: cell}
    elif cell.ok and cell.code.startswith(COMPUTE_MARK):
        result = parse_result(cell.output)
        if result is not None:
            changes["others_results"] = (*state.others_results, result)
        stats = parse_stats_result(cell.output) if cell.code.startswith(STATS_MARK) else None
        if stats is not None:
            changes["others_stats"] = (*state.others_stats, (cell.code, stats))
    return _evolve(state, changes)


@dataclass(frozen=True)
class HistoryState:
    """What the action history shows, as the policy ``me`` needs it (entries in any order:
    every field is the same whichever order the entries come in).

    Attributes:
        me: Whose log it is.
        memory_end: When the build phase's last memory action ended (None: there was none).
        work_actors: Who took an action other than a memory one.
        my_rejected: My action type -> ``(seq, summary)`` of my rejected actions of it.
        my_updated_last: When my latest accepted editor update landed.
        my_finish_rejected_last: When my latest rejected FINISH was decided.
        editor_changed_last: When anyone's latest accepted editor update landed.
        editor_updates: Who -> when its latest editor update (of any status) ended.
        others_last: When the latest teammate's action ended (None: none did). A history
            shows actions that have ended by the observation's time, so a teammate's action
            ending at that very time is the latest one.
        rejects: ``(seq, message, issues)`` of teammates' gate ``REJECT`` decisions: the reason
            as a message, with its issue tags.
        finish_rejections: How many ``FINISH`` requests I rejected.
        my_edits: The summaries of my editor updates (each decision once, whatever its
            gate's outcome): what I wrote is read back from the history (:meth:`wrote`).
    """

    me: str
    memory_end: float | None = None
    work_actors: frozenset[str] = frozenset()
    my_rejected: Mapping[str, tuple[tuple[int, str], ...]] = field(default_factory=dict)
    my_updated_last: float | None = None
    my_finish_rejected_last: float | None = None
    editor_changed_last: float | None = None
    editor_updates: Mapping[str, float] = field(default_factory=dict)
    others_last: float | None = None
    rejects: tuple[tuple[int, ChatMessage, Issues], ...] = ()
    finish_rejections: int = 0
    my_edits: frozenset[str] = frozenset()

    def wrote(self, text: str) -> bool:
        """Whether I made an editor update writing ``text``."""
        return any(summary_shows(summary, text) for summary in self.my_edits)

    def wrote_besides(self, texts: list[str]) -> bool:
        """Whether I made an editor update writing none of ``texts``."""
        return any(not any(summary_shows(summary, text) for text in texts)
                   for summary in self.my_edits)

    def rejections(self, action: str, text: str | None = None) -> int:
        """How often my ``action`` (with this text, when given) was rejected."""
        key = None if text is None else text.strip()[:150]
        return sum(1 for _, summary in self.my_rejected.get(action, ())
                   if key is None or key in summary)


def _latest(current: float | None, time: float) -> float:
    return time if current is None else max(current, time)


def _editor_entry(state: HistoryState, entry: HistoryEntry, mine: bool) -> dict[str, Any]:
    """The changes an editor update's entry makes to the history state."""
    last = state.editor_updates.get(entry.actor)
    changes: dict[str, Any] = {
        "editor_updates": {**state.editor_updates, entry.actor: _latest(last, entry.time)}}
    if entry.status in ("ok", "approved"):
        changes["editor_changed_last"] = _latest(state.editor_changed_last, entry.time)
        if mine:
            changes["my_updated_last"] = _latest(state.my_updated_last, entry.time)
    if mine and entry.status not in ("approved", "rejected"):
        # the decision itself, not its gate's outcome (an entry of its own)
        changes["my_edits"] = state.my_edits | {entry.summary}
    return changes


def read_entry(state: HistoryState, entry: HistoryEntry) -> HistoryState:
    """The history state after one more entry."""
    changes: dict[str, Any] = {}
    kind, mine = entry.action_type, entry.actor == state.me
    if kind.startswith("MEMORY"):
        changes["memory_end"] = _latest(state.memory_end, entry.time)
    elif entry.actor not in state.work_actors:
        changes["work_actors"] = state.work_actors | {entry.actor}
    if kind == "EDITOR_UPDATE":
        changes.update(_editor_entry(state, entry, mine))
    if mine and kind == "REJECT" and entry.request_type == "FINISH":
        changes["finish_rejections"] = state.finish_rejections + 1
    if mine and entry.status == "rejected":
        changes["my_rejected"] = {**state.my_rejected, kind: tuple(sorted(
            (*state.my_rejected.get(kind, ()), (entry.seq, entry.summary))))}
        if kind == "FINISH":
            changes["my_finish_rejected_last"] = _latest(state.my_finish_rejected_last,
                                                         entry.time)
    if not mine:
        changes["others_last"] = _latest(state.others_last, entry.time)
        if kind == "REJECT":
            reject = (entry.seq, ChatMessage(entry.seq, entry.time, entry.actor, entry.summary),
                      parse_issues(entry.summary))
            changes["rejects"] = tuple(sorted((*state.rejects, reject), key=lambda r: r[0]))
    return _evolve(state, changes) if changes else state


@dataclass(frozen=True)
class SessionLog:
    """A policy's log of its session: what the chat, the code cells and the history show."""

    chat: ChatState
    cells: CellState
    history: HistoryState

    @classmethod
    def empty(cls, me: str) -> SessionLog:
        """The log before anything happened."""
        return cls(ChatState(me), CellState(me), HistoryState(me))


def log_of(obs: Observation) -> SessionLog:
    """The log of everything ``obs`` shows, read from scratch (what the incremental
    :class:`SessionReader` keeps equal to)."""
    log = SessionLog.empty(obs.me)
    chat, cells, history = log.chat, log.cells, log.history
    for message in obs.chat:
        chat = read_message(chat, message, MessageTags.of(message.text))
    for cell in obs.code_cells:
        cells = read_cell(cells, cell)
    for entry in obs.history:
        history = read_entry(history, entry)
    return SessionLog(chat, cells, history)


class SessionReader:
    """Keeps a policy's :class:`SessionLog` up to date: each observation's new chat
    messages, code cells and history entries are folded into the log of the last one (the
    whole observation when it starts another session).

    Attributes:
        session: How often the reader started afresh (it changes when the session does).
    """

    def __init__(self) -> None:
        self.session = 0
        self._key: tuple[str, str] | None = None
        self._log: SessionLog | None = None
        # the first and last chat message and code cell read, the first history entry
        self._ends: tuple[object, ...] = (None,) * 5
        self._entries: set[int] = set()
        self._source: Observation | None = None

    def read(self, obs: Observation) -> SessionLog:
        """The log of everything ``obs`` shows."""
        if obs is self._source and self._log is not None:
            return self._log
        log = self._log
        new_entries = None
        if log is not None and self._key == (obs.me, obs.task.task_id) and self._extends(obs, log):
            new_entries = self._new_entries(obs.history)
        if log is None or new_entries is None:
            log, new_entries = SessionLog.empty(obs.me), list(obs.history)
            self._key, self._entries = (obs.me, obs.task.task_id), set()
            self.session += 1
        chat, cells, history = log.chat, log.cells, log.history
        for message in obs.chat[chat.read:]:
            chat = read_message(chat, message, MessageTags.of(message.text))
        for cell in obs.code_cells[cells.read:]:
            cells = read_cell(cells, cell)
        for entry in new_entries:
            history = read_entry(history, entry)
            self._entries.add(entry.seq)
        self._log = log = SessionLog(chat, cells, history)
        self._ends = (*_first_last(obs.chat), *_first_last(obs.code_cells),
                      obs.history[0] if obs.history else None)
        self._source = obs
        return log

    def _extends(self, obs: Observation, log: SessionLog) -> bool:
        """Whether ``obs``'s chat, cells and history continue those read into ``log`` (as
        far as their ends tell: the first and last item read are where they were)."""
        first_message, last_message, first_cell, last_cell, first_entry = self._ends
        n, m = log.chat.read, log.cells.read
        return (_continues(obs.chat, n, first_message, last_message)
                and _continues(obs.code_cells, m, first_cell, last_cell)
                and (not self._entries
                     or bool(obs.history) and _same(obs.history[0], first_entry)))

    def _new_entries(self, history: tuple[HistoryEntry, ...]) -> list[HistoryEntry] | None:
        """The entries of ``history`` not read yet, oldest first (found from its end: new
        entries are recent ones); None when ``history`` does not extend what was read."""
        missing = len(history) - len(self._entries)
        if missing < 0:
            return None
        new: list[HistoryEntry] = []
        for entry in reversed(history):
            if len(new) == missing:
                break
            if entry.seq not in self._entries:
                new.append(entry)
        if len(new) < missing or (history and history[-1].seq not in self._entries
                                  and history[-1] not in new):
            return None
        return new[::-1]


def _same(item: object, read: object) -> bool:
    """Whether ``item`` is the item read (the same record, or an equal one)."""
    return item is read or item == read


def _first_last(items: tuple[object, ...]) -> tuple[object, object]:
    return (items[0], items[-1]) if items else (None, None)


def _continues(items: tuple[object, ...], n: int, first: object, last: object) -> bool:
    """Whether ``items`` continue the ``n`` items read (first and last as given)."""
    return n == 0 or (len(items) >= n and _same(items[0], first) and _same(items[n - 1], last))
