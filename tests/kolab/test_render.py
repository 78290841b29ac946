"""Rendering per modality: graph text, chat turns, frames, and honest missing modalities."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.graphs.model import Edge, Node, Response, SessionInfo, Step, WorkflowGraph
from collabsim.kolab.instances import InstanceSet, build_instances
from collabsim.kolab.render import (
    ALL_COMBINATIONS,
    DirectoryFrameSource,
    Modality,
    modality_name,
    parse_modalities,
    render,
)


def _session(chat: list[dict] | None) -> WorkflowGraph:
    extra = {"chat": chat} if chat is not None else {}
    nodes = [
        Node("h1", "Human", "human", "ask for a plan", "asks Claude", ((0, 10),), "0"),
        Node("a2", "AI", "ai", "draft plan", "Claude drafts", ((10, 20),), "0"),
        Node("h3", "Human", "human", "edit plan", "rewrites it", ((30, 40),), "0"),
    ]
    return WorkflowGraph(
        SessionInfo("p1|s1", "p1", "Architect", "Design", "", extra),
        [Step("0", "Plan the lobby")],
        nodes,
        [Edge("h1", "a2"), Edge("a2", "h3")],
        [Response("h3", "h1", "a2", "modify")],
    )


def test_seven_modality_combinations() -> None:
    names = {modality_name(c) for c in ALL_COMBINATIONS}
    assert len(ALL_COMBINATIONS) == 7 and len(names) == 7
    assert "graph+chat+frames" in names
    assert parse_modalities("chat+graph") == (Modality.GRAPH, Modality.CHAT)
    assert parse_modalities("video") == (Modality.FRAMES,)
    with pytest.raises(ValueError):
        parse_modalities("smell")


def test_graph_text_numbers_nodes_marks_anchors_and_hides_the_response_in_forecasts() -> None:
    built = build_instances([_session(None)], ["1a", "1b"])
    text_a = render(built.by_task("1a")[0], [Modality.GRAPH]).text
    text_b = render(built.by_task("1b")[0], [Modality.GRAPH]).text
    assert "1. Human | 00:00:00-00:00:10 | step: Plan the lobby [SOURCE REQUEST]" in text_a
    assert "2. AI | 00:00:10-00:00:20 | step: Plan the lobby [TARGET AI OUTPUT]" in text_a
    assert "[HUMAN RESPONSE]" in text_a and "rewrites it" in text_a
    assert "1 -> 2 (sequential)" in text_a and "2 -> 3 (sequential)" in text_a
    assert "HUMAN RESPONSE" not in text_b and "rewrites it" not in text_b
    assert "modify" not in text_b.lower()


def test_missing_modalities_are_reported_not_faked(explorer_instances: InstanceSet) -> None:
    inst = explorer_instances.by_task("1b")[0]
    rendered = render(inst, [Modality.GRAPH, Modality.CHAT, Modality.FRAMES])
    assert rendered.missing == (Modality.CHAT, Modality.FRAMES)
    assert not rendered.complete
    assert [m for m, _ in rendered.texts] == [Modality.GRAPH]
    assert rendered.frames == ()
    only_chat = render(inst, [Modality.CHAT])
    assert only_chat.texts == () and only_chat.missing == (Modality.CHAT,)


def test_chat_turns_are_cut_at_the_window_end() -> None:
    chat = [
        {"role": "user", "text": "please draft a plan", "time": 5},
        {"role": "assistant", "text": "here is a plan", "time": "00:00:15"},
        {"role": "user", "text": "I will change the lobby", "time": 35},
    ]
    inst = build_instances([_session(chat)], ["1b"]).by_task("1b")[0]
    rendered = render(inst, [Modality.CHAT])
    assert rendered.complete
    assert "please draft a plan" in rendered.text and "here is a plan" in rendered.text
    assert "change the lobby" not in rendered.text


def test_frames_come_from_a_frame_source(tmp_path: Path) -> None:
    folder = tmp_path / "p1_s1"
    folder.mkdir()
    for t in (2, 8, 12, 19, 25):
        (folder / f"{t}.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    inst = build_instances([_session(None)], ["1b"]).by_task("1b")[0]
    rendered = render(
        inst, [Modality.FRAMES], frame_source=DirectoryFrameSource(tmp_path), max_frames=3
    )
    assert rendered.complete
    assert [p.stem for p in rendered.frames] == ["2", "12", "19"]  # 25 s is after the window end
    assert render(inst, [Modality.FRAMES]).missing == (Modality.FRAMES,)
