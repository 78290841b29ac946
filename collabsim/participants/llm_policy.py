"""LLM participants: ReAct-style prompts, strict action reading with one repair turn.

An :class:`LLMParticipant` implements the participant protocol with any litellm model
through :class:`~collabsim.llm.client.LLMClient`. Each turn it

1. renders a system prompt and a turn prompt from the Jinja2 templates in
   ``collabsim/participants/prompts/`` (``<role>_system.j2``, ``<role>_turn.j2``,
   ``repair.j2``): task and data description, current observation (time and turn with their
   limits, phase, feedback, editor), team chat, shared code cells, the action history this
   participant may see (team-level for the agent, own for a collaborator) in time order,
   each code cell once, profile guidance and calibrated behaviour (collaborators,
   :mod:`collabsim.participants.prompt_behaviour`), its private scratchpad, the group
   memory and gates / pending requests where the structure has them, and the available
   actions with their syntax; when the model's context window is known
   (:func:`~collabsim.llm.client.context_window`) the turn prompt is trimmed to fit it
   (:meth:`PromptRenderer.fit`: oldest history entries first, then oldest chat messages,
   then oldest code cells, each down to its latest item), and a prompt that cannot fit
   ends the session with ``provider_error``;
2. asks the model (tag = participant name, so usage is accounted per participant), offering
   the available actions as tool schemas (:func:`~collabsim.core.actions.tool_schemas`;
   the client sends them only to models that support tools);
3. reads the action with :func:`~collabsim.participants.replies.parse_reply`: only from one
   native tool call, a JSON action, the text after the one ``ACTION:`` marker, or - without
   a marker - a reply that is nothing but one action call (``EXECUTE_CODE(code="...")``,
   possibly fenced); never from the THOUGHT or other prose. Unknown or doubled actions are
   errors; a reply cut at ``max_tokens`` (``finish_reason == "length"``) is never executed.
   ``SCRATCHPAD: ...`` text replaces the participant's private notes;
4. if no valid action is found, makes **one repair turn** that quotes the error;
5. if the repair fails too, returns an :class:`~collabsim.core.replies.UnusableReply`: the
   engine logs an ``INVALID`` event with status ``error`` carrying the error, applies no
   action (the turn is a wait) and passes the error to the participant as feedback;
6. counts identical actions in a row (:mod:`collabsim.participants.loops`): after
   ``loop_repeats`` the next prompt warns, one more ends the session (``loop``).

A budget overrun raises :class:`~collabsim.llm.budget.BudgetExceeded` (a ``SessionAbort``
with status ``budget_exceeded``); a model call that fails after its retries becomes
``SessionAbort(PROVIDER_ERROR, ...)``. Prompts, replies, tokens and cost of every call are
in the client's call log next to the trace; :attr:`LLMParticipant.last_turn_usage` (the
turn's calls and tokens) goes on the turn's trace events.

For the offline ``collabsim/...`` models the turn and repair prompts carry a state block
(:mod:`collabsim.participants.state_block`) from which the offline provider rebuilds the scripted
policy; for other models it is left out unless ``state_block=True``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import jinja2

from collabsim.core.actions import (
    ACTION_SPECS,
    describe_actions,
    format_action,
    tool_schemas,
)
from collabsim.core.errors import LOOP, PROVIDER_ERROR, SessionAbort
from collabsim.core.observation import Observation, Role
from collabsim.core.records import HistoryEntry, Profile
from collabsim.core.replies import UnusableReply
from collabsim.llm.budget import BudgetExceeded
from collabsim.llm.client import (
    OFFLINE_MODEL_PREFIX,
    LLMCallError,
    LLMClient,
    LLMReply,
    LLMSettings,
    context_window,
)
from collabsim.llm.usage import estimate_prompt_tokens
from collabsim.participants import offline_provider  # noqa: F401 - registers collabsim/* models
from collabsim.participants.human import HumanModel, SessionTiming
from collabsim.participants.loops import DEFAULT_LOOP_REPEATS, LoopGuard
from collabsim.participants.prompt_behaviour import behaviour_instructions
from collabsim.participants.replies import ParsedReply, parse_reply
from collabsim.participants.state_block import encode_state
from collabsim.participants.stats_reading import is_statistical

PROMPTS_DIR = Path(__file__).with_name("prompts")


@dataclass(frozen=True)
class PromptLimits:
    """How much of a long observation the prose part of a prompt shows (latest items kept).

    A code cell's output is shown as the sandbox cut it (``sandbox.output_chars``).

    Attributes:
        max_chat: Chat messages shown.
        max_cells: Code cells shown.
        max_history: History entries shown.
    """

    max_chat: int = 40
    max_cells: int = 12
    max_history: int = 40


def _clip(text: Any, limit: int) -> str:
    text = str(text)
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... [{len(text) - limit} more characters not shown]"


@lru_cache(maxsize=16)
def _environment(template_dir: str | None) -> jinja2.Environment:
    """A Jinja2 environment per template folder, shared so templates compile once."""
    dirs = [template_dir] if template_dir is not None else []
    dirs.append(str(PROMPTS_DIR))
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(dirs),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
        auto_reload=False,
    )
    env.filters["clip"] = _clip
    env.globals["statistical"] = is_statistical
    return env


def _system_key(obs: Observation) -> tuple[Any, ...]:
    """Every observation field the packaged ``*_system.j2`` templates read (keep in sync)."""
    profile = obs.profile
    return (
        obs.role,
        obs.me,
        obs.structure,
        obs.teammates,
        obs.memory is None,
        None if profile is None else (profile.title, profile.guidance),
        behaviour_instructions(profile) if obs.role == "collaborator" else "",
        obs.task.facts,
        obs.task.knowledge,
        is_statistical(obs.task),
    )


class PromptRenderer:
    """Renders participant prompts from Jinja2 templates.

    Args:
        template_dir: Folder with ``agent_system.j2``, ``agent_turn.j2``,
            ``collaborator_system.j2``, ``collaborator_turn.j2``, ``repair.j2`` (default:
            the packaged templates). Files missing there fall back to the packaged ones.
        limits: How much of long observations to show.
    """

    def __init__(self, template_dir: Path | None = None, limits: PromptLimits | None = None):
        self.limits = limits or PromptLimits()
        self.env = _environment(str(template_dir) if template_dir is not None else None)
        # The system prompt is the same on every turn of a session; with the packaged
        # templates (whose inputs are known, see _system_key) it is rendered once.
        self._system_cache: dict[tuple[Any, ...], str] | None = (
            {} if template_dir is None else None
        )

        # Sections that stay the same through a session (the task; the actions while the
        # legal set is unchanged), rendered once: the gym envs render a prompt every step.
        self._section_cache: dict[tuple[Any, ...], str] = {}

    def _actions_help(self, obs: Observation) -> str:
        names = tuple(n for n in obs.available_actions if n in ACTION_SPECS) or tuple(ACTION_SPECS)
        return self._cached(("actions_help", names), lambda: describe_actions(names))

    def _cached(self, key: tuple[Any, ...], render: Callable[[], str]) -> str:
        text = self._section_cache.get(key)
        if text is None:
            if len(self._section_cache) >= 256:
                self._section_cache.clear()
            text = self._section_cache[key] = render()
        return text

    def _task_text(self, obs: Observation) -> str:
        """The task section (``task_section`` of ``_sections.j2``) for ``obs.task``."""
        sections = self.env.get_template("_sections.j2").module
        return self._cached(("task", obs.task), lambda: str(sections.task_section(obs.task)))

    def system(self, obs: Observation) -> str:
        """The system prompt for ``obs.role``."""
        cache = self._system_cache
        if cache is None:
            return self._render_system(obs)
        key = _system_key(obs)
        text = cache.get(key)
        if text is None:
            text = self._render_system(obs)
            if len(cache) >= 64:
                cache.clear()
            cache[key] = text
        return text

    def _render_system(self, obs: Observation) -> str:
        behaviour = behaviour_instructions(obs.profile) if obs.role == "collaborator" else ""
        template = self.env.get_template(f"{obs.role}_system.j2")
        return template.render(obs=obs, behaviour=behaviour).strip()

    def shown(self, obs: Observation) -> dict[str, int]:
        """How many of the latest history entries, chat messages and code cells a turn
        prompt shows within :attr:`limits` (the starting point of :meth:`fit`)."""
        lim = self.limits
        return {
            "history": min(len(obs.history), lim.max_history),
            "chat": min(len(obs.chat), lim.max_chat),
            "cells": min(len(obs.code_cells), lim.max_cells),
        }

    def turn(
        self,
        obs: Observation,
        scratchpad: str,
        state_block: str | None,
        *,
        notes: Sequence[str] = (),
        shown: Mapping[str, int] | None = None,
    ) -> str:
        """The turn prompt: everything the participant sees now.

        Args:
            obs: The observation.
            scratchpad: The participant's private notes.
            state_block: The offline provider's state block (None: left out).
            notes: More notes for the participant (a loop warning), after the feedback.
            shown: How many of the latest history entries, chat messages and code cells to
                show (default: :meth:`shown`).
        """
        n = shown if shown is not None else self.shown(obs)
        chat = obs.chat[len(obs.chat) - n["chat"] :] if n["chat"] else ()
        cells = obs.code_cells[len(obs.code_cells) - n["cells"] :] if n["cells"] else ()
        ordered = in_time_order(obs.history)
        history = ordered[len(ordered) - n["history"] :] if n["history"] else ()
        return (
            self.env.get_template(f"{obs.role}_turn.j2")
            .render(
                obs=obs,
                chat=chat,
                chat_hidden=len(obs.chat) - len(chat),
                cells=cells,
                cells_hidden=len(obs.code_cells) - len(cells),
                shown_cells=frozenset(c.seq for c in cells),
                history=history,
                history_hidden=len(obs.history) - len(history),
                scratchpad=scratchpad,
                notes=tuple(notes),
                actions_help=self._actions_help(obs),
                task_text=self._task_text(obs),
                state_block=state_block,
            )
            .strip()
        )

    def fit(
        self,
        obs: Observation,
        scratchpad: str,
        state_block: str | None,
        budget_tokens: int,
        *,
        notes: Sequence[str] = (),
    ) -> list[dict[str, str]] | None:
        """The turn's messages trimmed to ``budget_tokens`` estimated prompt tokens.

        The rule: hide the oldest history entries first, then the oldest chat messages,
        then the oldest code cells, each down to its latest item, as few as needed (each
        section says how many earlier items are hidden).

        Returns:
            The messages, or None when even the smallest prompt does not fit.
        """
        n = self.shown(obs)
        system = self.system(obs)

        def render(counts: Mapping[str, int]) -> list[dict[str, str]]:
            user = self.turn(obs, scratchpad, state_block, notes=notes, shown=counts)
            return [{"role": "system", "content": system}, {"role": "user", "content": user}]

        def fits(counts: Mapping[str, int]) -> bool:
            return estimate_prompt_tokens(render(counts)) <= budget_tokens

        if fits(n):
            return render(n)
        for section in ("history", "chat", "cells"):
            if n[section] <= 1:
                continue
            lo, hi = 1, n[section]  # the largest count that fits, at least the latest item
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if fits({**n, section: mid}):
                    lo = mid
                else:
                    hi = mid - 1
            n[section] = lo
            if fits(n):
                return render(n)
        return None

    def repair(self, obs: Observation, reply: str, error: str, state_block: str | None) -> str:
        """The repair prompt quoting the parse error of ``reply``."""
        names = tuple(n for n in obs.available_actions if n in ACTION_SPECS) or ("FINISH",)
        return (
            self.env.get_template("repair.j2")
            .render(
                error=error,
                reply=reply,
                example=ACTION_SPECS[names[0]].example,
                actions_help=self._actions_help(obs),
                state_block=state_block,
            )
            .strip()
        )

    def messages(
        self,
        obs: Observation,
        scratchpad: str = "",
        state_block: str | None = None,
        *,
        notes: Sequence[str] = (),
    ) -> list[dict[str, str]]:
        """``[system, user]`` chat messages for one turn."""
        return [
            {"role": "system", "content": self.system(obs)},
            {"role": "user", "content": self.turn(obs, scratchpad, state_block, notes=notes)},
        ]


def in_time_order(history: tuple[HistoryEntry, ...]) -> tuple[HistoryEntry, ...]:
    """History entries in the order prompts show them: by the time they ended (the engine lists them by ``seq``: an action
    that ends late comes before shorter, later ones)."""
    if all(a.time <= b.time for a, b in zip(history, history[1:], strict=False)):
        return history
    return tuple(sorted(history, key=lambda h: (h.time, h.seq)))


@dataclass
class TurnRecord:
    """What happened in one turn of an LLM participant (kept in memory for inspection).

    Attributes:
        turn: The observation's turn number.
        calls: Model calls made (1, or 2 with a repair).
        action: The action text returned to the engine (the reply when unusable).
        error: The parse error when even the repair failed.
        prompt_tokens: Prompt tokens of the turn's calls.
    """

    turn: int
    calls: int
    action: str
    error: str | None = None
    prompt_tokens: int = 0


@dataclass
class LLMParticipant:
    """A participant whose actions come from a language model.

    Attributes:
        name: Participant name (``"agent"``, ``"D"``, ``"R"``).
        role: ``"agent"`` or ``"collaborator"``.
        settings: Model settings.
        client: The session's LLM client (its usage is tagged with ``name``).
        profile: The collaborator's profile (None for the agent).
        renderer: Prompt renderer (default: packaged templates).
        offline_policy: Policy spec for the offline provider's state block (default:
            ``{"kind": "scripted", "seed": 0, "params": {}}``).
        state_block: Embed the state block (None = only for ``collabsim/...`` models).
        repair: Whether to make the repair turn.
        loop_repeats: Identical actions in a row before the loop warning (``llm.loop_repeats``).
        scratchpad: The private notes carried between turns.
        turns: One :class:`TurnRecord` per turn taken.
        last_turn_usage: The last turn's model calls and tokens (``calls``,
            ``prompt_tokens``, ``completion_tokens``): the engine writes it on the turn's
            trace events.
    """

    name: str
    role: Role
    settings: LLMSettings
    client: LLMClient
    profile: Profile | None = None
    renderer: PromptRenderer = field(default_factory=PromptRenderer)
    offline_policy: Mapping[str, Any] | None = None
    state_block: bool | None = None
    repair: bool = True
    loop_repeats: int = DEFAULT_LOOP_REPEATS
    scratchpad: str = ""
    turns: list[TurnRecord] = field(default_factory=list)
    last_turn_usage: dict[str, int] | None = None
    policy_name: ClassVar[str] = "llm"
    _timing: SessionTiming | None = field(default=None, init=False, repr=False)
    _loops: LoopGuard = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._loops = LoopGuard(self.loop_repeats)
        if self.role == "collaborator" and self.profile is not None:
            # a simulated human's actions take as long as its calibrated timing model says,
            # whichever policy decides them (as for policy=scripted)
            spec = dict(self.offline_policy or {})
            params = {**dict(self.profile.params), **dict(spec.get("params") or {})}
            behaviour = HumanModel.from_params(params).behaviour
            self._timing = SessionTiming(behaviour, int(spec.get("seed", 0)), self.name)

    def action_duration(self, action: str) -> float | None:
        """Duration of my next action from the profile's timing model (engine hook)."""
        return None if self._timing is None else self._timing.duration(action)

    def _uses_state_block(self) -> bool:
        if self.state_block is not None:
            return self.state_block
        return self.settings.model.startswith(OFFLINE_MODEL_PREFIX)

    def _state(self, obs: Observation, *, repair: bool) -> str | None:
        if not self._uses_state_block():
            return None
        policy = dict(self.offline_policy or {"kind": "scripted", "seed": 0, "params": {}})
        if repair:
            policy["repair"] = True
        return encode_state(obs, policy)

    def _prompt_budget(self) -> int | None:
        """Estimated prompt tokens a call may use (None: the context window is unknown)."""
        window = context_window(self.settings)
        return None if window is None else window - self.settings.max_tokens

    def _messages(self, obs: Observation, notes: Sequence[str]) -> list[dict[str, str]]:
        """The turn's messages, trimmed to the model's context window when it is known.

        Raises:
            SessionAbort: Even the smallest prompt does not fit (``provider_error``).
        """
        state = self._state(obs, repair=False)
        budget = self._prompt_budget()
        if budget is None:
            return self.renderer.messages(obs, self.scratchpad, state, notes=notes)
        messages = self.renderer.fit(obs, self.scratchpad, state, budget, notes=notes)
        if messages is None:
            window = context_window(self.settings)
            raise SessionAbort(
                PROVIDER_ERROR,
                f"{self.name}: the prompt does not fit the context window of "
                f"{self.settings.model} ({window} tokens, {self.settings.max_tokens} of them "
                "for the reply) even with the history, chat and code cells cut to the latest "
                "item; set llm.<role>.context_tokens or a larger model",
            )
        return messages

    async def _ask(self, messages: list[dict[str, str]], tools: list[dict[str, Any]]) -> LLMReply:
        try:
            return await self.client.complete(messages, self.settings, tag=self.name, tools=tools)
        except BudgetExceeded:
            raise
        except LLMCallError as exc:
            # The engine prefixes the member's name to the reason.
            raise SessionAbort(PROVIDER_ERROR, str(exc)) from exc

    @staticmethod
    def _parse(reply: LLMReply) -> ParsedReply:
        return parse_reply(
            reply.text, tool_calls=reply.tool_calls, finish_reason=reply.finish_reason
        )

    async def act(self, observation: Observation) -> str | UnusableReply:
        """Return the next action text (canonical form), or an :class:`UnusableReply`.

        Raises:
            BudgetExceeded: The session budget does not allow another call.
            SessionAbort: A model call failed after its retries or the prompt does not fit
                the context window (``provider_error``); the same action once more after
                the loop warning (``loop``).
        """
        if self._timing is not None:
            self._timing.task_id = observation.task.task_id
        warning = self._loops.warning()
        messages = self._messages(observation, (warning,) if warning else ())
        names = tuple(n for n in observation.available_actions if n in ACTION_SPECS)
        tools = tool_schemas(names or None)
        replies = [await self._ask(messages, tools)]
        parsed = self._parse(replies[-1])
        if parsed.action is None and self.repair:
            repair_messages = self._repair_messages(observation, messages, replies[-1], parsed)
            if repair_messages is not None:
                replies.append(await self._ask(repair_messages, tools))
                parsed = self._parse(replies[-1])
        self.last_turn_usage = {
            "calls": len(replies),
            "prompt_tokens": sum(r.prompt_tokens for r in replies),
            "completion_tokens": sum(r.completion_tokens for r in replies),
        }
        tokens = self.last_turn_usage["prompt_tokens"]
        if parsed.scratchpad is not None:
            self.scratchpad = parsed.scratchpad
        if parsed.action is None:
            reply_text = _reply_text(replies[-1])
            error = parsed.error or "No action found."
            self.turns.append(TurnRecord(observation.turn, len(replies), reply_text, error, tokens))
            return UnusableReply(reply_text, error)
        if self._loops.is_loop(parsed.action):
            raise SessionAbort(
                LOOP,
                f"{self.name} took the same action {self._loops.count + 1} times in a row "
                f"after being warned: {self._loops.last[:200]}",
            )
        self._loops.record(parsed.action)
        text = format_action(parsed.action.name, **parsed.action.args)
        self.turns.append(TurnRecord(observation.turn, len(replies), text, None, tokens))
        return text

    def _repair_messages(
        self,
        obs: Observation,
        messages: list[dict[str, str]],
        reply: LLMReply,
        parsed: ParsedReply,
    ) -> list[dict[str, str]] | None:
        """The repair call's messages (None: they would not fit the context window)."""
        reply_text = _reply_text(reply)
        prompt = self.renderer.repair(
            obs, reply_text, parsed.error or "No action found.", self._state(obs, repair=True)
        )
        out = [
            *messages,
            {"role": "assistant", "content": reply_text},
            {"role": "user", "content": prompt},
        ]
        budget = self._prompt_budget()
        if budget is not None and estimate_prompt_tokens(out) > budget:
            return None
        return out


def _reply_text(reply: LLMReply) -> str:
    """A reply as text: its text, and its tool calls written as ``NAME(arguments)``."""
    calls = [f"{c.name}({c.arguments})" for c in reply.tool_calls]
    return "\n".join([reply.text, *calls]) if calls else reply.text


def settings_for(name: str, role: Role, settings_by_role: Mapping[str, LLMSettings]) -> LLMSettings:
    """Pick a participant's settings: by name (``"D"``) first, then by role.

    Raises:
        KeyError: Neither the name nor the role has settings.
    """
    if name in settings_by_role:
        return settings_by_role[name]
    if role in settings_by_role:
        return settings_by_role[role]
    raise KeyError(f"no LLM settings for participant {name!r} (role {role!r})")


def build_llm_participants(
    team_spec: Any,
    settings_by_role: Mapping[str, LLMSettings],
    client: LLMClient,
    seed: int,
    *,
    scripted_params: Mapping[str, Mapping[str, Any]] | None = None,
    renderer: PromptRenderer | None = None,
    loop_repeats: int = DEFAULT_LOOP_REPEATS,
) -> dict[str, LLMParticipant]:
    """Build one LLM participant per team member.

    Args:
        team_spec: A :class:`~collabsim.participants.team.TeamSpec` (``members``, ``role()``,
            ``profile()``).
        settings_by_role: ``{"agent": ..., "collaborator": ...}``, optionally per member name.
        client: The session's client (``root.for_session(budget=..., call_log_path=...)``).
        seed: The session seed (used by the offline provider's scripted policies).
        scripted_params: Scripted-policy parameters per role (or member name) for the
            offline provider, e.g. the ``policy=scripted`` config's ``agent`` section, so
            ``collabsim/scripted`` acts exactly like ``policy=scripted``.
        renderer: Shared prompt renderer (default: packaged templates).
        loop_repeats: ``llm.loop_repeats`` (see :mod:`collabsim.participants.loops`).

    Returns:
        Participant name -> participant, in team order.
    """
    renderer = renderer or PromptRenderer()
    params_by = scripted_params or {}
    out: dict[str, LLMParticipant] = {}
    for name in team_spec.members:
        role: Role = team_spec.role(name)
        params = params_by.get(name, params_by.get(role, {}))
        out[name] = LLMParticipant(
            name=name,
            role=role,
            settings=settings_for(name, role, settings_by_role),
            client=client,
            profile=team_spec.profile(name),
            renderer=renderer,
            offline_policy={"kind": "scripted", "seed": int(seed), "params": dict(params)},
            loop_repeats=loop_repeats,
        )
    return out
