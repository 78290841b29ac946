"""The learner's turn prompt, rendered incrementally (the text envs render one every step).

:class:`TurnPrompt` gives exactly what the packaged templates give,
``PromptRenderer().turn(obs, "", None)``, but an env step costs far less than a Jinja2
render: the chat, code cells and history only grow during a session and their items are
immutable, so each item's lines are formatted once and the sections are joined from them;
the sections that change rarely (task, group memory, gates, actions, answer format) are
rendered by the templates' own macros and kept while their inputs are unchanged.

The item lines and the layout around the sections follow ``_turn.j2`` / ``_sections.j2``
of :mod:`collabsim.participants.prompts`; ``tests/envs/test_turn_prompt.py`` compares the
two renderings on observations of every structure and role (change both together).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from collabsim.core.actions import ACTION_SPECS, describe_actions
from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage, CodeCell, HistoryEntry
from collabsim.participants.llm_policy import PromptLimits, PromptRenderer, in_time_order

_GATED_STRUCTURES = ("preassigned_gates", "scaffolded")
_MAX_ITEMS = 4096  # per-item lines kept (an episode has far fewer items; bounds memory)


class TurnPrompt:
    """``PromptRenderer(limits=limits).turn(obs, "", None)``, computed incrementally.

    Args:
        limits: How much of long observations to show (as :class:`PromptRenderer`'s).
    """

    def __init__(self, limits: PromptLimits | None = None) -> None:
        self.renderer = PromptRenderer(limits=limits)  # the packaged templates
        self._macros = self.renderer.env.get_template("_sections.j2").module
        # id(item) -> (item, its lines); holding the item keeps its id from being reused.
        self._lines: dict[int, tuple[Any, str]] = {}
        self._sections: dict[tuple[Any, ...], str] = {}
        self._last_task: tuple[Any, str] = (None, "")

    def clear(self) -> None:
        """Forget the items' lines (call between sessions: the items belong to the last one).

        The rarely changing sections (a bounded cache) are kept.
        """
        self._lines.clear()

    # -- cached pieces -------------------------------------------------------------------
    def _section(self, key: tuple[Any, ...], render: Callable[[], Any]) -> str:
        text = self._sections.get(key)
        if text is None:
            if len(self._sections) >= 256:
                self._sections.clear()
            text = self._sections[key] = str(render())
        return text

    def _item_lines(self, items: Sequence[Any], fmt: Callable[[Any], str]) -> list[str]:
        cache = self._lines
        if len(cache) > _MAX_ITEMS:
            cache.clear()
        out = []
        for item in items:
            hit = cache.get(id(item))
            if hit is None or hit[0] is not item:
                hit = cache[id(item)] = (item, fmt(item))
            out.append(hit[1])
        return out

    def _chat_line(self, m: ChatMessage) -> str:
        return f"[t={m.time:.0f}s] {m.sender}: {m.text}\n"

    def _cell_lines(self, c: CodeCell) -> str:
        return (
            f"### cell {c.seq} by {c.author} at t={c.time:.0f}s "
            f"({'ok' if c.ok else 'error'})\n```python\n{c.code}\n```\n"
            f"Output:\n```\n{c.output}\n```\n"
        )

    @staticmethod
    def _history_line(h: HistoryEntry) -> str:
        return f"- [t={h.time:.0f}s] {h.actor} {h.action_type} ({h.status}): {h.summary}\n"

    def _history(self, obs: Observation, limit: int) -> str:
        """The history section: entries in time order, a shown cell named, not repeated."""
        header = ("## Team action history" if obs.role == "agent" else "## Your action history")
        header += " (in time order)"
        items = in_time_order(obs.history)
        shown = items[-limit:] if limit else ()
        hidden = len(items) - len(shown)
        if hidden:
            header += f" (latest {len(shown)}; {hidden} earlier not shown)"
        if not shown:
            return f"{header}\n(nothing yet)\n"
        cells_limit = self.renderer.limits.max_cells
        cells = obs.code_cells[-cells_limit:] if cells_limit else ()
        shown_cells = {c.seq for c in cells}
        lines = self._item_lines(shown, self._history_line)
        for i, h in enumerate(shown):
            if h.action_type == "EXECUTE_CODE" and h.seq in shown_cells:
                lines[i] = (f"- [t={h.time:.0f}s] {h.actor} {h.action_type} ({h.status}): "
                            f'cell {h.seq} (code and output under "Shared code cells")\n')
        return f"{header}\n{''.join(lines)}"

    def _list_section(
        self,
        header: str,
        items: Sequence[Any],
        limit: int,
        hidden_note: str,
        empty: str,
        fmt: Callable[[Any], str],
    ) -> str:
        shown = items[-limit:] if limit else ()
        hidden = len(items) - len(shown)
        if hidden:
            header += f" (latest {len(shown)}; {hidden} {hidden_note})"
        body = "".join(self._item_lines(shown, fmt)) if shown else empty
        return f"{header}\n{body}"

    def _task(self, obs: Observation) -> str:
        # A session's steps share one brief object; hashing a brief (every dataset and
        # column) each step would cost more than the rest of the prompt.
        if obs.task is not self._last_task[0]:
            brief = obs.task
            self._last_task = (brief, self._section(
                ("task", brief), lambda: self._macros.task_section(brief)))
        return self._last_task[1]

    def _memory(self, obs: Observation) -> str:
        memory = obs.memory
        assert memory is not None
        key = ("memory", obs.phase, memory.read_only, memory.agreed,
               tuple(memory.sections.items()))
        return self._section(key, lambda: self._macros.memory_section(memory, obs.phase))

    def _gates(self, obs: Observation) -> str:
        key = ("gates", tuple(obs.gates.items()), obs.pending_for_me, obs.my_pending)
        return self._section(key, lambda: self._macros.gates_section(obs))

    def _actions(self, obs: Observation) -> str:
        # The legal actions' help, as PromptRenderer picks it (all actions when none known).
        names = tuple(n for n in obs.available_actions if n in ACTION_SPECS) or tuple(ACTION_SPECS)
        return self._section(
            ("actions", names), lambda: self._macros.actions_section(describe_actions(names))
        )

    # -- the prompt ----------------------------------------------------------------------
    def render(self, obs: Observation) -> str:
        """The turn prompt of ``obs`` (empty scratchpad, no state block)."""
        lim, m = self.renderer.limits, self._macros
        time_limit = (
            f" of {obs.max_time:.0f}s ({max(obs.max_time - obs.time, 0):.0f}s left)"
            if obs.max_time else ""
        )
        turn_limit = f" of at most {obs.max_turns}" if obs.max_turns else ""
        parts = [self._task(obs),
                 "\n\n## Now\nTime: t=", f"{obs.time:.0f}", "s", time_limit,
                 ". Structure: ", str(obs.structure), ". Phase: ", str(obs.phase),
                 " (group-memory build phase)" if obs.phase == "build" else "",
                 f". This is your turn {obs.turn + 1}{turn_limit}.\n"]
        if obs.working:
            parts.append("Teammates at work now (started, not done yet): " + "; ".join(
                f"{w.actor} {w.action_type} since t={w.since:.0f}s" for w in obs.working)
                + ".\n")
        if obs.feedback:
            parts.append("Notes for you since your last turn:\n")
            parts.extend(f"- {f}\n" for f in obs.feedback)
        parts += [
            "\n## Result editor (the hypothesis the team will submit)\n",
            str(obs.editor_text) if obs.editor_text else "(empty)",
            "\n\n",
            self._list_section("## Team chat", obs.chat, lim.max_chat,
                               "earlier messages not shown", "(no messages yet)\n",
                               self._chat_line),
            "\n\n",
            self._list_section("## Shared code cells", obs.code_cells, lim.max_cells,
                               "earlier cells not shown", "(no code has been run yet)\n",
                               self._cell_lines),
            "\n\n",
            self._history(obs, lim.max_history),
            "\n",
        ]
        if obs.memory is not None:
            parts += ["\n", self._memory(obs), "\n"]
        if (obs.structure in _GATED_STRUCTURES or obs.gates or obs.pending_for_me
                or obs.my_pending):
            parts += ["\n", self._gates(obs), "\n"]
        parts += [
            "\n## Your private scratchpad\n(empty)\n\n",
            self._actions(obs),
            "\n\n",
            self._section(("reply",), m.reply_format),
        ]
        return "".join(parts).strip()
