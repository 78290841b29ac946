"""Render a benchmark instance's window per input modality.

Three modalities, any non-empty combination of them (seven in all):

* ``graph``: numbered nodes (actor, time, step, label, detail; the source, target AI output
  and, in recognition, the human response are marked), then the edges.
* ``chat``: chat turns of the session inside the window. A session carries chat turns in
  ``graph.session.extra["chat"]``: a list of ``{"role" or "actor", "text", "time"}`` with
  ``time`` in seconds or clock text. The explorer data has none.
* ``frames``: sampled video frames (image paths) from a :class:`FrameSource`, for
  multimodal models. The explorer data has no video.

A modality the instance lacks is listed in :attr:`RenderedInput.missing`; nothing is made up
in its place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from pathlib import Path
from typing import Any, Protocol

from collabsim.graphs.model import Node
from collabsim.graphs.timefmt import format_clock, parse_clock
from collabsim.kolab.instances import Instance


class Modality(StrEnum):
    """An input modality."""

    GRAPH = "graph"
    CHAT = "chat"
    FRAMES = "frames"


MODALITY_ORDER: tuple[Modality, ...] = (Modality.GRAPH, Modality.CHAT, Modality.FRAMES)

ALL_COMBINATIONS: tuple[tuple[Modality, ...], ...] = tuple(
    combo for r in (1, 2, 3) for combo in combinations(MODALITY_ORDER, r)
)


def parse_modalities(spec: str) -> tuple[Modality, ...]:
    """Parse ``"graph+chat"`` (also ``,`` or ``/`` separated; ``video`` = frames).

    Raises:
        ValueError: On an unknown or empty modality list.
    """
    names = [p.strip().lower() for p in re.split(r"[+,/]", spec) if p.strip()]
    if not names:
        raise ValueError("empty modality list")
    chosen: set[Modality] = set()
    for name in names:
        if name == "video":
            name = "frames"
        try:
            chosen.add(Modality(name))
        except ValueError:
            raise ValueError(f"unknown modality {name!r}; known: graph, chat, frames") from None
    return tuple(m for m in MODALITY_ORDER if m in chosen)


def modality_name(modalities: Iterable[Modality]) -> str:
    """Canonical name of a combination, e.g. ``"graph+chat"``."""
    chosen = set(modalities)
    return "+".join(m.value for m in MODALITY_ORDER if m in chosen)


class FrameSource(Protocol):
    """Provides sampled video frames of a session between two times (seconds)."""

    def frames(self, session_id: str, start: float, end: float, max_frames: int) -> Sequence[Path]:
        """Return up to ``max_frames`` image paths in time order (empty when no video)."""
        ...


class DirectoryFrameSource:
    """Frames stored as ``<root>/<session>/<seconds>.(jpg|jpeg|png)``.

    ``<session>`` is the session id with characters other than letters, digits, ``-``, ``_``
    and ``.`` replaced by ``_`` (``p1|session1`` -> ``p1_session1``); file stems are the
    frame time in seconds (``"75"``, ``"75.5"``).
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def frames(self, session_id: str, start: float, end: float, max_frames: int) -> list[Path]:
        """Frames with start <= time <= end, evenly subsampled to ``max_frames``."""
        folder = self.root / re.sub(r"[^A-Za-z0-9._-]", "_", session_id)
        if not folder.is_dir():
            return []
        timed: list[tuple[float, Path]] = []
        for path in folder.iterdir():
            if path.suffix.lower() not in {".jpg", ".jpeg", ".png"}:
                continue
            try:
                t = float(path.stem)
            except ValueError:
                continue
            if start <= t <= end:
                timed.append((t, path))
        timed.sort()
        if max_frames <= 0 or len(timed) <= max_frames:
            return [p for _, p in timed]
        step = (len(timed) - 1) / max(max_frames - 1, 1)
        return [timed[round(i * step)][1] for i in range(max_frames)]


@dataclass(frozen=True)
class RenderedInput:
    """An instance rendered for some modalities.

    Attributes:
        requested: The modalities asked for.
        texts: Text per available text modality, in modality order.
        frames: Frame image paths (empty unless frames were requested and exist).
        missing: Requested modalities the instance does not have.
    """

    requested: tuple[Modality, ...]
    texts: tuple[tuple[Modality, str], ...]
    frames: tuple[Path, ...]
    missing: tuple[Modality, ...]

    @property
    def complete(self) -> bool:
        """True when every requested modality is present."""
        return not self.missing

    @property
    def text(self) -> str:
        """All text parts joined, each under a heading."""
        titles = {Modality.GRAPH: "Workflow graph", Modality.CHAT: "Chat log"}
        return "\n\n".join(f"## {titles[m]}\n{body}" for m, body in self.texts)


def _clock(seconds: float | None) -> str:
    return "?" if seconds is None else format_clock(round(seconds))


def _node_time(node: Node) -> str:
    if not node.intervals:
        return "no time"
    return ", ".join(f"{_clock(s)}-{_clock(e)}" for s, e in node.intervals)


def render_graph(instance: Instance) -> str:
    """Text of the window graph: numbered nodes in time order, then the edges by number."""
    graph = instance.window
    order = sorted(
        enumerate(graph.nodes), key=lambda p: (p[1].start if p[1].start is not None else 0, p[0])
    )
    number = {node.id: i + 1 for i, (_, node) in enumerate(order)}
    marks: dict[str, list[str]] = {}
    resp = instance.response
    if resp is not None:
        if resp.source is not None and resp.source in number:
            marks.setdefault(resp.source, []).append("SOURCE REQUEST")
        marks.setdefault(resp.ai_node, []).append("TARGET AI OUTPUT")
        if instance.task == "1a" and resp.responder in number:
            marks.setdefault(resp.responder, []).append("HUMAN RESPONSE")
    step_names = {s.key: s.name for s in graph.steps}
    lines = [f"Window: {_clock(instance.window_start)} to {_clock(instance.window_end)}"]
    lines.append("Nodes:")
    for _, node in order:
        actor = "Human" if node.actor_type == "human" else "AI"
        if node.actor and node.actor.lower() not in {"human", "ai"}:
            actor = f"{actor} ({node.actor})"
        step = ""
        if node.step is not None:
            step = f" | step: {step_names.get(node.step, node.step)}"
        mark = f" [{', '.join(marks[node.id])}]" if node.id in marks else ""
        lines.append(f"{number[node.id]}. {actor} | {_node_time(node)}{step}{mark}")
        lines.append(f"   label: {node.label}")
        if node.detail:
            lines.append(f"   detail: {node.detail}")
    lines.append("Edges:")
    if not graph.edges:
        lines.append("(none)")
    for edge in graph.edges:
        lines.append(f"{number[edge.source]} -> {number[edge.target]} ({edge.type})")
    return "\n".join(lines)


def _turn_time(turn: Mapping[str, Any]) -> float | None:
    value = turn.get("time")
    if value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return parse_clock(str(value).split("-")[0].strip())
    except ValueError:
        return None


def chat_turns(instance: Instance) -> list[Mapping[str, Any]] | None:
    """Chat turns inside the window, or None when the session has no chat."""
    raw = instance.window.session.extra.get("chat")
    if not raw:
        return None
    start = instance.window_start if instance.window_start is not None else float("-inf")
    end = instance.window_end if instance.window_end is not None else float("inf")
    turns = []
    for turn in raw:
        t = _turn_time(turn)
        if t is None or start <= t < end or (instance.is_rating and t == end):
            turns.append(turn)
    return turns


def render_chat(instance: Instance) -> str | None:
    """Chat turns inside the window as text, or None when the session has no chat."""
    turns = chat_turns(instance)
    if turns is None:
        return None
    if not turns:
        return "(no chat turns in this window)"
    lines = []
    for turn in turns:
        who = turn.get("role") or turn.get("actor") or "?"
        t = _turn_time(turn)
        stamp = f"[{_clock(t)}] " if t is not None else ""
        lines.append(f"{stamp}{who}: {turn.get('text', '')}")
    return "\n".join(lines)


def render(
    instance: Instance,
    modalities: Sequence[Modality],
    *,
    frame_source: FrameSource | None = None,
    max_frames: int = 8,
) -> RenderedInput:
    """Render ``instance`` for ``modalities``; absent modalities go to ``missing``.

    Args:
        instance: The instance.
        modalities: Requested modalities (any non-empty combination).
        frame_source: Where frames come from; without one, frames are missing.
        max_frames: Upper bound on sampled frames.
    """
    requested = tuple(m for m in MODALITY_ORDER if m in set(modalities))
    if not requested:
        raise ValueError("at least one modality is required")
    texts: list[tuple[Modality, str]] = []
    frames: tuple[Path, ...] = ()
    missing: list[Modality] = []
    for modality in requested:
        if modality is Modality.GRAPH:
            if len(instance.window) == 0:
                missing.append(modality)
            else:
                texts.append((modality, render_graph(instance)))
        elif modality is Modality.CHAT:
            chat = render_chat(instance)
            if chat is None:
                missing.append(modality)
            else:
                texts.append((modality, chat))
        else:
            found: Sequence[Path] = ()
            if (
                frame_source is not None
                and instance.window_start is not None
                and instance.window_end is not None
            ):
                found = frame_source.frames(
                    instance.session_id, instance.window_start, instance.window_end, max_frames
                )
            if found:
                frames = tuple(found)
            else:
                missing.append(modality)
    return RenderedInput(requested, tuple(texts), frames, tuple(missing))
