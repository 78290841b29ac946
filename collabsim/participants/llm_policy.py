"""LLM participants: ReAct-style prompts, lenient parsing with one repair turn.

An :class:`LLMParticipant` implements the participant protocol with any litellm model
through :class:`~collabsim.llm.client.LLMClient`. Each turn it

1. renders a system prompt and a turn prompt from the Jinja2 templates in
   ``collabsim/participants/prompts/`` (``<role>_system.j2``, ``<role>_turn.j2``,
   ``repair.j2``): task and data description, current observation (time, phase, feedback,
   editor), team chat, shared code cells, the action history this participant may see
   (team-level for the agent, own for a collaborator - the observation already holds the
   right one), profile guidance (collaborators), its private scratchpad, the group memory
   and gates / pending requests where the structure has them, and the available actions
   with their syntax;
2. asks the model (tag = participant name, so usage is accounted per participant);
3. parses the reply with the engine's lenient :func:`~collabsim.core.action_parser.parse_action`
   (preferring the text after an ``ACTION:`` marker); ``SCRATCHPAD: ...`` text replaces the
   participant's private notes;
4. if no valid action is found, makes **one repair turn** that quotes the parse error;
5. if the repair fails too, returns the last raw reply unchanged: the engine cannot parse it
   either, logs an ``INVALID`` event with status ``error`` (the error event in the trace),
   applies no action (the turn is a wait) and passes the error to the participant as
   feedback.

A budget overrun raises :class:`~collabsim.llm.budget.BudgetExceeded` (a ``SessionAbort``
with status ``budget_exceeded``); a model call that fails after its retries becomes
``SessionAbort(PROVIDER_ERROR, ...)`` (status ``provider_error``). Prompts, replies, tokens and cost of every call are in the
client's call log next to the trace.

For the offline ``collabsim/...`` models the turn and repair prompts carry a state block
(:mod:`collabsim.participants.state_block`) from which the offline provider rebuilds the scripted
policy; for other models it is left out unless ``state_block=True``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import jinja2

from collabsim.core.action_parser import ParseResult, parse_action
from collabsim.core.actions import ACTION_SPECS, Action, describe_actions, format_action
from collabsim.core.errors import PROVIDER_ERROR, SessionAbort
from collabsim.core.observation import Observation, Role
from collabsim.core.records import Profile
from collabsim.llm.budget import BudgetExceeded
from collabsim.llm.client import OFFLINE_MODEL_PREFIX, LLMCallError, LLMClient, LLMSettings
from collabsim.participants import offline_provider  # noqa: F401 - registers collabsim/* models
from collabsim.participants.human import HumanModel, SessionTiming
from collabsim.participants.state_block import encode_state
from collabsim.participants.stats_reading import is_statistical

PROMPTS_DIR = Path(__file__).with_name("prompts")
_SCRATCHPAD = re.compile(
    r"^[ \t>*_#]*SCRATCHPAD[*_]*\s*:[ \t]*(.*?)(?=^[ \t>*_#]*(?:ACTION|THOUGHT)[*_]*\s*:|\Z)",
    re.MULTILINE | re.DOTALL | re.IGNORECASE,
)
_ACTION_MARK = re.compile(r"^[ \t>*_#]*ACTION[*_]*\s*:", re.MULTILINE | re.IGNORECASE)
_MAX_SCRATCHPAD_CHARS = 4000


@dataclass(frozen=True)
class PromptLimits:
    """How much of a long observation the prose part of a prompt shows (latest items kept).

    Attributes:
        max_chat: Chat messages shown.
        max_cells: Code cells shown.
        max_history: History entries shown.
        max_output_chars: Characters of each code cell's output shown.
    """

    max_chat: int = 40
    max_cells: int = 12
    max_history: int = 40
    max_output_chars: int = 3000


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
            return self.env.get_template(f"{obs.role}_system.j2").render(obs=obs).strip()
        key = _system_key(obs)
        text = cache.get(key)
        if text is None:
            text = self.env.get_template(f"{obs.role}_system.j2").render(obs=obs).strip()
            if len(cache) >= 64:
                cache.clear()
            cache[key] = text
        return text

    def turn(self, obs: Observation, scratchpad: str, state_block: str | None) -> str:
        """The turn prompt: everything the participant sees now."""
        lim = self.limits
        chat = obs.chat[-lim.max_chat :] if lim.max_chat else ()
        cells = obs.code_cells[-lim.max_cells :] if lim.max_cells else ()
        history = obs.history[-lim.max_history :] if lim.max_history else ()
        return (
            self.env.get_template(f"{obs.role}_turn.j2")
            .render(
                obs=obs,
                chat=chat,
                chat_hidden=len(obs.chat) - len(chat),
                cells=cells,
                cells_hidden=len(obs.code_cells) - len(cells),
                history=history,
                history_hidden=len(obs.history) - len(history),
                max_output_chars=lim.max_output_chars,
                scratchpad=scratchpad,
                actions_help=self._actions_help(obs),
                task_text=self._task_text(obs),
                state_block=state_block,
            )
            .strip()
        )

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
        self, obs: Observation, scratchpad: str = "", state_block: str | None = None
    ) -> list[dict[str, str]]:
        """``[system, user]`` chat messages for one turn."""
        return [
            {"role": "system", "content": self.system(obs)},
            {"role": "user", "content": self.turn(obs, scratchpad, state_block)},
        ]


@dataclass(frozen=True)
class ParsedReply:
    """A model reply split into its parts.

    Attributes:
        action: The parsed action, or None.
        error: Why no action was found (None when ``action`` is set).
        scratchpad: New private notes, when the reply has a ``SCRATCHPAD:`` section.
    """

    action: Action | None
    error: str | None
    scratchpad: str | None = None


def parse_reply(text: str) -> ParsedReply:
    """Parse a ReAct reply: optional ``SCRATCHPAD:`` notes and one action.

    The text after the last ``ACTION:`` marker is parsed first; then the reply without its
    scratchpad; then the whole reply. The error reported is the first one.

    Args:
        text: The model's reply.

    Returns:
        The parsed reply (never raises).
    """
    text = text or ""
    notes_match = _SCRATCHPAD.search(text)
    scratchpad = notes_match.group(1).strip()[:_MAX_SCRATCHPAD_CHARS] if notes_match else None
    candidates: list[str] = []
    marks = list(_ACTION_MARK.finditer(text))
    if marks:
        candidates.append(text[marks[-1].end() :])
    if notes_match:
        candidates.append(text[: notes_match.start()] + text[notes_match.end() :])
    candidates.append(text)
    first: ParseResult | None = None
    for candidate in candidates:
        result = parse_action(candidate)
        if result.action is not None:
            return ParsedReply(result.action, None, scratchpad)
        first = first or result
    error = first.error if first is not None and first.error else "No action found."
    if not text.strip():
        error = "The reply was empty. " + error
    return ParsedReply(None, error, scratchpad)


@dataclass
class TurnRecord:
    """What happened in one turn of an LLM participant (kept in memory for inspection).

    Attributes:
        turn: The observation's turn number.
        calls: Model calls made (1, or 2 with a repair).
        action: The action text returned to the engine.
        error: The parse error when even the repair failed.
    """

    turn: int
    calls: int
    action: str
    error: str | None = None


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
        scratchpad: The private notes carried between turns.
        turns: One :class:`TurnRecord` per turn taken.
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
    scratchpad: str = ""
    turns: list[TurnRecord] = field(default_factory=list)
    policy_name: ClassVar[str] = "llm"
    _timing: SessionTiming | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
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

    async def _ask(self, messages: list[dict[str, str]]) -> str:
        try:
            reply = await self.client.complete(messages, self.settings, tag=self.name)
        except BudgetExceeded:
            raise
        except LLMCallError as exc:
            # The engine prefixes the member's name to the reason.
            raise SessionAbort(PROVIDER_ERROR, str(exc)) from exc
        return reply.text

    async def act(self, observation: Observation) -> str:
        """Return the next action text (canonical form), or the raw reply when unusable.

        Raises:
            BudgetExceeded: The session budget does not allow another call.
            SessionAbort: A model call failed after its retries (status ``provider_error``).
        """
        if self._timing is not None:
            self._timing.task_id = observation.task.task_id
        messages = self.renderer.messages(
            observation, self.scratchpad, self._state(observation, repair=False)
        )
        reply = await self._ask(messages)
        parsed = parse_reply(reply)
        calls = 1
        if parsed.action is None and self.repair:
            repair_prompt = self.renderer.repair(
                observation,
                reply,
                parsed.error or "No action found.",
                self._state(observation, repair=True),
            )
            messages = [
                *messages,
                {"role": "assistant", "content": reply},
                {"role": "user", "content": repair_prompt},
            ]
            reply = await self._ask(messages)
            parsed = parse_reply(reply)
            calls = 2
        if parsed.scratchpad is not None:
            self.scratchpad = parsed.scratchpad
        if parsed.action is None:
            self.turns.append(TurnRecord(observation.turn, calls, reply, parsed.error))
            return reply
        text = format_action(parsed.action.name, **parsed.action.args)
        self.turns.append(TurnRecord(observation.turn, calls, text))
        return text


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
        )
    return out
