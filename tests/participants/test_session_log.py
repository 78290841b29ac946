"""The scripted policies' session log: the reducers on hand-built events, the incremental
reader (new events only, afresh for another session) and, at every decision of real
sessions, the incremental log equal to the log read from scratch."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from helpers.observations import sample_observation
from helpers.tasks import SESSION_GRIDS, run_session_grid

from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage, CodeCell, HistoryEntry
from collabsim.core.tags import (
    MessageTags,
    draft_fingerprint,
    format_ask,
    format_edit,
    format_fact,
    format_handover,
    format_insist,
    format_keep,
    format_kickoff,
    format_lead,
)
from collabsim.participants import session_log
from collabsim.participants.agent_plan import PlanFold
from collabsim.participants.cells import COMPUTE_MARK
from collabsim.participants.claims import Issue, format_check_message, format_proposal_message
from collabsim.participants.scripted import ScriptedAgent
from collabsim.participants.session_log import (
    CellState,
    ChatState,
    HistoryState,
    SessionLog,
    SessionReader,
    log_of,
    read_cell,
    read_entry,
    read_message,
)

DRAFT = "The count of Dagger first rises in the 3rd century BCE."
FP = draft_fingerprint(DRAFT)
RESULT = "RESULT relation=first_rise ordinal=1 columns=Dagger_inter window=none year=-250"


ORDINAL = Issue("wrong_ordinal", "The query asks for the second rise.", (("ordinal", "2"),))


def _chat(me: str, *messages: ChatMessage) -> ChatState:
    state = ChatState(me)
    for message in messages:
        state = read_message(state, message, MessageTags.of(message.text))
    return state


def _history(me: str, *entries: HistoryEntry) -> HistoryState:
    state = HistoryState(me)
    for entry in entries:
        state = read_entry(state, entry)
    return state


def _entry(seq: int, time: float, actor: str, action: str, status: str = "ok",
           summary: str = "") -> HistoryEntry:
    return HistoryEntry(seq, time, actor, action, status, summary)


# ---------------------------------------------------------------------------- reducers
def test_a_check_with_issues_is_raised_and_my_messages_are_found_in_chat_order() -> None:
    check = ChatMessage(1, 10.0, "D", format_check_message("D", (ORDINAL,), DRAFT))
    mine_a = ChatMessage(2, 11.0, "agent", "a")
    mine_b = ChatMessage(3, 12.0, "agent", "b")
    state = _chat("agent", check, mine_b, mine_a)
    assert FP in state.raised and state.checkers[FP] == frozenset({"D"})
    assert state.my(lambda tags: True) == [mine_b, mine_a]
    assert state.my(lambda tags: FP in tags.checked) == []  # the check is not mine
    assert state.objections == ((check, (), (("wrong_ordinal", {"ordinal": "2"}),)),)
    assert state.others_spoke and not state.kickoff


def test_my_own_messages_are_read_back_by_their_tags_and_phrases() -> None:
    version = "Around 1700 BCE the count of Dagger rose."
    check = format_check_message("R", (ORDINAL,), DRAFT)
    texts = (check, format_proposal_message((ORDINAL,), DRAFT, version, edit=True),
             format_insist(check), f"Please submit it. {format_handover(FP)}")
    state = _chat("R", *(ChatMessage(i, float(i), "R", t) for i, t in enumerate(texts)))
    tags = [t for _, t in state.my_tags]
    assert [m.text for m, _ in state.my_tags] == list(texts)
    assert [t.insist for t in tags] == [False, False, True, False]
    assert tags[1].proposed == version and tags[1].edited == (draft_fingerprint(version),)
    assert [t.handed for t in tags] == [(), (), (), (FP,)]
    assert state.my(lambda t: FP in t.checked) == [m for m, _ in state.my_tags[:3]]


def test_an_answer_to_my_question_is_an_answer_and_a_volunteered_fact_is_not() -> None:
    setting = (("ordinal", "2"),)
    ask = ChatMessage(1, 1.0, "agent", f"Which rise? {format_ask('ordinal', 'R')}")
    other = ChatMessage(2, 2.0, "D", f"I know. {format_fact('ordinal', setting)}")
    answer = ChatMessage(3, 3.0, "R", f"The second. {format_fact('ordinal', setting)}")
    state = _chat("agent", ask, other, answer)
    assert [(a.topic, a.whom, a.answer) for a in state.asks] == [("ordinal", "R", answer)]
    stated = [(m.sender, s) for m, s, _ in state.objections]
    assert stated == [("D", ((False, "ordinal", {"ordinal": "2"}),)),
                      ("R", ((True, "ordinal", {"ordinal": "2"}),))]
    assert [(m.sender, t) for m, t, _ in state.told] == [("D", "ordinal"), ("R", "ordinal")]
    # R's view: the question put to it waits for an answer keyed by message and topic
    assert _chat("R", ask).asks_to_me == (("1:ordinal", "ordinal", 1.0),)


def test_teammates_draft_tags_are_kept_by_draft() -> None:
    new = draft_fingerprint("Another draft.")
    edit = ChatMessage(1, 5.0, "R", format_check_message("R", (), DRAFT) + format_edit(new))
    keep = ChatMessage(2, 6.0, "agent", format_keep(FP))
    lead = ChatMessage(3, 7.0, "D", f"Looking first. {format_lead()}")
    kickoff = ChatMessage(4, 8.0, "D", f"Go. {format_kickoff()}")
    agent = _chat("agent", edit, keep, lead, kickoff)
    assert agent.edit_author == {new: "R"}
    assert agent.edit_plans == {FP: (("R", 5.0, (new,)),)}
    assert agent.lead_by_other and agent.kickoff_by_other and agent.kickoff
    assert _chat("R", keep).kept == frozenset({FP})


def test_cells_give_my_latest_run_of_each_code_and_teammates_results() -> None:
    code = f"{COMPUTE_MARK}\nprint(1)"
    cells = (CodeCell(1, 1.0, "agent", code, "error", False),
             CodeCell(2, 2.0, "D", code, RESULT, True),
             CodeCell(3, 3.0, "agent", code, RESULT, True))
    state = CellState("agent")
    for cell in cells:
        state = read_cell(state, cell)
    assert state.my_last == {code: cells[2]}
    assert [r.year for r in state.others_results] == [-250]
    assert state.others_ran_code and state.authors == frozenset({"agent", "D"})


def test_the_history_state_is_the_same_whatever_order_its_entries_come_in() -> None:
    entries = (
        _entry(0, 5.0, "agent", "MEMORY_ADD"),
        _entry(1, 20.0, "agent", "EDITOR_UPDATE", "rejected", f"{DRAFT} (rejected)"),
        _entry(2, 30.0, "agent", "EDITOR_UPDATE", "approved", DRAFT),
        _entry(3, 40.0, "agent", "FINISH", "rejected"),
        _entry(4, 35.0, "D", "REJECT", summary=f"g1 No. {ORDINAL.tag()}"),
        _entry(5, 38.0, "D", "EDITOR_UPDATE", "ok", "x"),
    )
    state = _history("agent", *entries)
    assert state == _history("agent", *reversed(entries))
    assert state.memory_end == 5.0 and state.work_actors == frozenset({"agent", "D"})
    assert state.rejections("EDITOR_UPDATE") == 1
    assert state.rejections("EDITOR_UPDATE", DRAFT) == 1
    assert state.rejections("EDITOR_UPDATE", "Another draft.") == 0
    assert (state.my_updated_last, state.my_finish_rejected_last) == (30.0, 40.0)
    assert state.editor_changed_last == 38.0 and state.editor_updates == {"agent": 30.0,
                                                                           "D": 38.0}
    assert state.others_last == 38.0
    assert [(seq, issues) for seq, _, issues in state.rejects] == [
        (4, (("wrong_ordinal", {"ordinal": "2"}),))]


# ------------------------------------------------------------------------------ reader
def _obs(**kw: object) -> Observation:
    return replace(sample_observation(turn=1), me="agent", teammates=("D",), **kw)


def test_the_reader_reads_each_new_event_once_and_starts_afresh_for_another_session(
        monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = MessageTags.of.__func__  # type: ignore[attr-defined]

    def counting(cls: type[MessageTags], text: str) -> MessageTags:
        parsed.append(text)
        return real(cls, text)

    monkeypatch.setattr(session_log.MessageTags, "of", classmethod(counting))
    first = ChatMessage(1, 1.0, "D", format_check_message("D", (), DRAFT))
    second = ChatMessage(2, 2.0, "agent", "hello")
    reader = SessionReader()
    reader.read(_obs(chat=(first,)))
    log = reader.read(_obs(chat=(first, second)))
    assert parsed == [first.text, second.text]  # the first message was not parsed again
    assert log.chat.read == 2 and log.chat.checkers == {FP: frozenset({"D"})}
    other = ChatMessage(1, 1.0, "R", "hi")
    assert reader.read(_obs(chat=(other,))).chat.checkers == {}  # not an extension: afresh
    assert parsed[-1] == "hi"
    task = replace(sample_observation().task, task_id="another task")
    assert reader.read(_obs(chat=(other,), task=task)).chat.read == 1
    assert parsed[-1] == "hi" and len(parsed) == 4  # another task: read afresh


def test_the_reader_takes_an_entry_that_ended_late_among_earlier_ones() -> None:
    early = _entry(0, 10.0, "D", "EDITOR_UPDATE")
    late = _entry(1, 50.0, "agent", "EXECUTE_CODE", "rejected")
    after = _entry(2, 20.0, "D", "SEND_TEAMMATE_MESSAGE")
    reader = SessionReader()
    reader.read(_obs(history=(early, after)))
    obs = _obs(history=(early, late, after))
    assert reader.read(obs) == log_of(obs)
    assert reader.read(obs).history.rejections("EXECUTE_CODE") == 1
    shorter = _obs(history=(late,))  # does not extend what was read: afresh
    assert reader.read(shorter) == log_of(shorter)


def test_a_view_that_dropped_its_oldest_events_is_read_afresh() -> None:
    """A window of the latest events (as long as the one read before) is not mistaken for
    the same events."""
    entries = [_entry(i, float(i), "D", "REJECT", summary=f"g{i} {ORDINAL.tag()}")
               for i in range(4)]
    messages = [ChatMessage(i, float(i), "D", f"[keep draft={i:08x}]") for i in range(4)]
    reader = SessionReader()
    reader.read(_obs(history=tuple(entries[:3]), chat=tuple(messages[:3])))
    for window in (_obs(history=tuple(entries[1:]), chat=tuple(messages[:3])),
                   _obs(history=tuple(entries[1:]), chat=tuple(messages[1:]))):
        assert reader.read(window) == log_of(window)


# ------------------------------------------------------------------- real sessions
GRIDS = SESSION_GRIDS


@pytest.mark.slow
@pytest.mark.parametrize("grid", sorted(GRIDS))
def test_at_every_decision_the_incremental_log_and_plan_equal_those_read_from_scratch(
        grid: str, tmp_path: Path, discoverybench_root: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[str] = []
    differ: list[tuple[str, str, int]] = []
    incremental = SessionReader.read

    def compared(self: SessionReader, obs: Observation) -> SessionLog:
        log = incremental(self, obs)
        checked.append(obs.me)
        if log != log_of(obs):
            differ.append((obs.me, obs.task.task_id, obs.turn))
        return log

    monkeypatch.setattr(SessionReader, "read", compared)
    plans: list[bool] = []
    incremental_plan = ScriptedAgent.current_fold

    def compared_plan(self: ScriptedAgent, obs: Observation, careful: bool = False
                      ) -> PlanFold:
        fold = incremental_plan(self, obs, careful)
        plans.append(careful)
        if fold != self.plan_read_afresh(obs, careful):
            differ.append(("plan", obs.task.task_id, obs.turn))
        return fold

    monkeypatch.setattr(ScriptedAgent, "current_fold", compared_plan)
    outcome = run_session_grid(grid, tmp_path, discoverybench_root)
    assert differ == []
    assert set(outcome.sessions["status"]) == {"finished"}
    assert {"agent", "D", "R"} <= set(checked) and len(checked) > 100 and len(plans) > 50
