"""The typed schema of a job configuration: one object per config group option.

``collabsim run`` composes ``configs/`` with Hydra and hands the resolved mapping to
:func:`validate_job`, which checks the WHOLE configuration before anything is written and
returns a :class:`JobSettings`: ``tasks`` becomes a :class:`GeneratedTasks`, a
:class:`GeneratedStatsTasks` or a :class:`DiscoveryBenchTasks`, ``policy`` a :class:`ScriptedPolicy` or an :class:`LLMPolicy`,
``tracking`` a :class:`NoTracking` or a :class:`WandbTracking`, ``coordination`` the engine's
:class:`~collabsim.core.coordination.CoordinationSpec` itself (its defaults and ranges are the
one home of both), and so on. A bad value raises
:class:`SettingsError` whose one-line message names the setting (``run.max_concurrency``)
and never echoes a credential.

The team and structure names are checked against the one registry each:
:data:`collabsim.experiment.plan.TEAM_COMPOSITIONS` and
:data:`collabsim.session.structures.STRUCTURE_NAMES`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from collabsim.core.coordination import CoordinationSpec
from collabsim.core.knowledge import KnowledgeError, knowledge_split
from collabsim.core.outputs import writable_dir_problem
from collabsim.experiment.agent_turns import FINISH_MARGIN_KEY
from collabsim.experiment.plan import TEAM_COMPOSITIONS
from collabsim.llm.cache import is_secret_param
from collabsim.llm.client import LLMSettings, ToolCalling
from collabsim.metrics.initiative import DEFAULT_INITIATIVE_EVENTS, InitiativeEvents
from collabsim.participants.analysis import MistakeModel
from collabsim.participants.human import HumanConfigError
from collabsim.participants.loops import DEFAULT_LOOP_REPEATS
from collabsim.participants.scripted_params import (
    AgentParams,
    CollaboratorParams,
    ScriptedParamsError,
)
from collabsim.participants.team import team_from_dict
from collabsim.sandbox.limits import SandboxLimits
from collabsim.session.clock import ClockSpec
from collabsim.session.config import MAX_TURNS, MAX_VIRTUAL_SECONDS
from collabsim.session.structures import STRUCTURE_NAMES, structure_from_dict


class SettingsError(ValueError):
    """A configuration value is invalid; the message is one line naming the setting."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ------------------------------------------------------------------------------- tasks


class _TaskFilters(_Section):
    limit: PositiveInt | None = None
    ids: list[str] | None = None
    datasets: list[str] | None = None
    # who holds which kind of the tasks' facts: everyone, by_profile or kind -> holders
    knowledge: str | dict[str, list[str] | str] = "everyone"

    @field_validator("knowledge")
    @classmethod
    def _knowledge_splits(cls, value: str | dict[str, list[str] | str]
                          ) -> str | dict[str, list[str] | str]:
        try:
            knowledge_split(value)
        except KnowledgeError as exc:
            raise ValueError(str(exc)) from None
        return value


class GeneratedTasks(_TaskFilters):
    """``tasks=generated``: the built-in seeded suite (``root: null`` = the cache folder)."""

    kind: Literal["generated"] = "generated"
    n_tasks: PositiveInt = 38
    seed: NonNegativeInt = 0
    root: str | None = None


class GeneratedStatsTasks(_TaskFilters):
    """``tasks=generated_stats``: the built-in seeded statistical suite
    (:mod:`collabsim.tasks.stats_generator`; ``root: null`` = the cache folder)."""

    kind: Literal["generated_stats"] = "generated_stats"
    n_tasks: PositiveInt = 36
    seed: NonNegativeInt = 0
    root: str | None = None


class DiscoveryBenchTasks(_TaskFilters):
    """``tasks=discoverybench``: tasks from a local DiscoveryBench copy at ``root``."""

    kind: Literal["discoverybench"] = "discoverybench"
    root: str

    @field_validator("root")
    @classmethod
    def _root_given(cls, value: str) -> str:
        from collabsim.datafetch import discoverybench_root

        return discoverybench_root(value)  # NoDiscoveryBenchRoot is a ValueError


# ---------------------------------------------------------------------- team / structure

TeamName = Literal[tuple(TEAM_COMPOSITIONS)]  # type: ignore[valid-type]
StructureName = Literal[tuple(STRUCTURE_NAMES)]  # type: ignore[valid-type]


class TeamSelection(_Section):
    """``team=*``: the compositions to run and per-profile overrides."""

    compositions: Annotated[list[TeamName], Field(min_length=1)]
    profiles: dict[str, dict[str, Any]] = {}

    @field_validator("profiles")
    @classmethod
    def _profiles_build(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for key, fields in value.items():
            try:
                team_from_dict({"collaborators": [{**fields, "key": key}]})
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{key}: {exc}") from None
        return value


class StructureSelection(_Section):
    """``structure=*``: the structures to run and per-structure field overrides."""

    names: Annotated[list[StructureName], Field(min_length=1)]
    overrides: dict[StructureName, dict[str, Any]] = {}

    @field_validator("overrides")
    @classmethod
    def _overrides_build(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for name, fields in value.items():
            try:
                structure_from_dict({**fields, "name": name})
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{name}: {exc}") from None
        return value


# -------------------------------------------------------------------------------- policy


def _agent_params(value: dict[str, Any]) -> dict[str, Any]:
    """Check ``policy.agent`` as the scripted agent reads it (every key known, every value in
    range), so a misspelt or out-of-range parameter is refused before anything is written."""
    _scripted_params(value)
    known = {f.name for f in dataclasses.fields(AgentParams)} - {"finish_by_turn"} | {FINISH_MARGIN_KEY}
    unknown = sorted(set(value) - known)
    if unknown:
        raise ValueError(f"unknown parameter {unknown[0]!r} (known: {', '.join(sorted(known))})")
    try:
        AgentParams.from_mapping({k: v for k, v in value.items() if k != FINISH_MARGIN_KEY})
    except ScriptedParamsError as exc:
        raise ValueError(str(exc).removeprefix("policy.agent: ")) from None
    return value


def _collaborator_params(value: dict[str, Any]) -> dict[str, Any]:
    """Check ``policy.collaborator`` as a collaborator reads it over the default params
    (every key known, every value in range; a profile's own params are checked with it when
    the collaborators are built)."""
    _scripted_params(value)
    try:
        CollaboratorParams.from_mapping(value, where="policy.collaborator")
    except HumanConfigError as exc:
        raise ValueError(str(exc).removeprefix("policy.collaborator: ")
                         .removeprefix("profile params.")) from None
    return value


def _scripted_params(value: dict[str, Any]) -> dict[str, Any]:
    """Check the mistake model and the turn margin of scripted parameters."""
    mistakes = value.get("mistakes")
    if mistakes is not None:
        if not isinstance(mistakes, Mapping):
            raise ValueError("mistakes must be a mapping of mistake kind -> probability")
        MistakeModel.from_mapping(mistakes)
        for kind, p in mistakes.items():
            if isinstance(p, Mapping):  # {value, source}: a documented rate
                p = p.get("value")
            if isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p <= 1:
                raise ValueError(f"mistakes.{kind} must be a probability in [0, 1]")
    if "finish_by_turn" in value:
        raise ValueError(
            "finish_by_turn is derived as run.max_turns - finish_margin_turns; set "
            "finish_margin_turns instead"
        )
    margin = value.get(FINISH_MARGIN_KEY)
    if margin is not None and (isinstance(margin, bool) or not isinstance(margin, int)
                               or margin < 0):
        raise ValueError(f"{FINISH_MARGIN_KEY} must be a whole number of decisions >= 0")
    return value


AgentSection = Annotated[dict[str, Any], AfterValidator(_agent_params)]
CollaboratorSection = Annotated[dict[str, Any], AfterValidator(_collaborator_params)]


class _ScriptedSections(_Section):
    # The scripted policies' parameters (scripted_params.AGENT_DEFAULTS, composed by both
    # policy options): what policy=scripted runs and the offline provider replays.
    agent: AgentSection = {}
    collaborator: CollaboratorSection = {}


class ScriptedPolicy(_ScriptedSections):
    """``policy=scripted``: deterministic offline policies."""

    name: Literal["scripted"] = "scripted"


class LLMPolicy(_ScriptedSections):
    """``policy=llm``: every participant driven by a model (set in the ``llm`` group); the
    offline provider ``collabsim/scripted`` replays the scripted policies of ``agent`` and
    ``collaborator`` (the same section as under ``policy=scripted``)."""

    name: Literal["llm"] = "llm"


# ----------------------------------------------------------------------------------- llm
# The client's defaults (collabsim.llm.client.LLMSettings) are the one place they are set;
# configs/llm/*.yaml spell them out only so that Hydra can override them by name.
_CLIENT = LLMSettings(model="defaults")


class RoleModel(_Section):
    """Model settings of one role (agent or collaborator)."""

    model: Annotated[str, Field(min_length=1)]
    temperature: Annotated[float, Field(ge=0)] = _CLIENT.temperature
    max_tokens: PositiveInt = _CLIENT.max_tokens
    extra: dict[str, Any] = {}
    tool_calling: ToolCalling = _CLIENT.tool_calling
    context_tokens: PositiveInt | None = _CLIENT.context_tokens

    @field_validator("extra")
    @classmethod
    def _no_credentials(cls, value: dict[str, Any]) -> dict[str, Any]:
        secret = sorted(k for k in value if is_secret_param(str(k)))
        if secret:
            # Name the keys only: the values are credentials and must never be echoed.
            raise ValueError(
                f"must not carry credentials ({', '.join(secret)}); set the provider's "
                "environment variable (e.g. OPENAI_API_KEY) instead"
            )
        return value


class Budget(_Section):
    """Per-session spending caps (null = no cap)."""

    max_tokens: PositiveInt | None = None
    max_usd: PositiveFloat | None = None


class LLMConfig(_Section):
    """``llm=*``: per-role models and the client (what the offline provider
    ``collabsim/scripted`` replays is ``policy.agent`` / ``policy.collaborator``)."""

    agent: RoleModel
    collaborator: RoleModel
    timeout_s: PositiveFloat = _CLIENT.timeout_s
    max_retries: NonNegativeInt = _CLIENT.max_retries
    cache_dir: str | None = None
    budget: Budget = Budget()
    # model -> [USD per 1M input tokens, USD per 1M output tokens] (collabsim.llm.pricing)
    prices: dict[str, tuple[NonNegativeFloat, NonNegativeFloat]] = {}
    requests_per_minute: PositiveFloat | None = None
    loop_repeats: PositiveInt = DEFAULT_LOOP_REPEATS

    def models(self) -> list[str]:
        """The configured models, one per role, in role order."""
        return [self.agent.model, self.collaborator.model]


# ------------------------------------------------------------------- tracking / run / sandbox


class NoTracking(_Section):
    """``tracking=none``."""

    backend: Literal["none"] = "none"


class WandbTracking(_Section):
    """``tracking=wandb``: one wandb run per job, grouped by sweep."""

    backend: Literal["wandb"] = "wandb"
    project: Annotated[str, Field(min_length=1)] = "collabsim"
    entity: str | None = None
    mode: Literal["offline", "online", "disabled"] = "offline"
    group: str | None = None
    per_session: bool = False


class RunSettings(_Section):
    """``run.*``: how the job runs. The defaults here are the job's (``configs/config.yaml``
    gets them through :mod:`collabsim.cli.typed_defaults`)."""

    # sessions in flight at once inside one job (asyncio); code runs in sandbox workers
    max_concurrency: PositiveInt = 4
    # persistent result store keyed by each session's resolved config; reruns skip finished
    # sessions; None = the Hydra output folder of this job
    store: str | None = None
    # the session's turn and virtual-time budgets (part of its outcome and its store key)
    max_turns: PositiveInt = MAX_TURNS
    max_virtual_seconds: PositiveFloat = MAX_VIRTUAL_SECONDS
    # true | false | auto: the per-session table only for small runs
    # (collabsim.experiment.results_table.SHOW_SESSIONS_UP_TO)
    show_sessions: bool | Literal["auto"] = "auto"
    progress: bool = True
    # a finished session's sandbox worker serves the next session after a reset (its task
    # files only, empty namespace, process state restored); false forks one per session;
    # auto: reuse under policy=scripted only (a model's code could patch a library deeper
    # than the reset reaches)
    reuse_sandboxes: bool | Literal["auto"] = "auto"
    # print the run's expected model use and cost, write nothing (collabsim.experiment.estimate)
    estimate: bool = False

    @field_validator("store")
    @classmethod
    def _store_is_a_writable_folder(cls, value: str | None) -> str | None:
        if value is None:
            return None
        problem = writable_dir_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value


class MetricsSettings(_Section):
    """``metrics.*``: how a session's metrics are read from its trace (never part of its
    outcome: the same sessions, measured another way)."""

    # Which events are initiative candidates for H_init,norm and H_init,norm (work):
    # actions (every team action) or messages (the study's: chat messages by their act);
    # collabsim.metrics.initiative.
    initiative_events: InitiativeEvents = DEFAULT_INITIATIVE_EVENTS


MAX_CELL_SECONDS = 86_400.0
"""Upper bound of ``sandbox.wall_seconds`` and ``sandbox.cpu_seconds``: one day per cell."""
MAX_SIZE_MB = 1_048_576
"""Upper bound of ``sandbox.memory_mb``, ``file_mb`` and ``disk_mb``: 1 TiB (the kernel's
resource limits overflow far above it, e.g. ``memory_mb=1e15``)."""
MAX_OUTPUT_CHARS = 10_000_000
"""Upper bound of ``sandbox.output_chars``."""
MAX_FILES = 1_000_000
"""Upper bound of ``sandbox.max_files`` (the disk check scans up to that many entries after
every cell and ten times a second while one runs)."""

_Seconds = Annotated[float, Field(gt=0, le=MAX_CELL_SECONDS, allow_inf_nan=False)]
_SizeMB = Annotated[int, Field(gt=0, le=MAX_SIZE_MB)]


class SandboxSettings(_Section):
    """``sandbox.*``: per-cell limits of the code sandbox: finite, positive and bounded
    (:data:`MAX_CELL_SECONDS`, :data:`MAX_SIZE_MB`, :data:`MAX_OUTPUT_CHARS`,
    :data:`MAX_FILES`), so an ``inf`` or ``1e300`` is refused before anything runs instead
    of failing every cell. The defaults are :class:`~collabsim.sandbox.SandboxLimits`'s."""

    wall_seconds: _Seconds = SandboxLimits.wall_seconds
    cpu_seconds: _Seconds = SandboxLimits.cpu_seconds
    memory_mb: _SizeMB = SandboxLimits.memory_mb
    output_chars: Annotated[int, Field(gt=0, le=MAX_OUTPUT_CHARS)] = SandboxLimits.output_chars
    file_mb: _SizeMB = SandboxLimits.file_mb
    # disk the code of one session may fill in its working folder
    disk_mb: _SizeMB = SandboxLimits.disk_mb
    # files, folders and links the code of one session may create there
    max_files: Annotated[int, Field(gt=0, le=MAX_FILES)] = SandboxLimits.max_files


class JobSettings(_Section):
    """A whole ``collabsim run`` configuration, validated."""

    tasks: Annotated[GeneratedTasks | GeneratedStatsTasks | DiscoveryBenchTasks,
                     Field(discriminator="kind")]
    team: TeamSelection
    structure: StructureSelection
    policy: Annotated[ScriptedPolicy | LLMPolicy, Field(discriminator="name")]
    llm: LLMConfig | None = None
    tracking: Annotated[NoTracking | WandbTracking, Field(discriminator="backend")] = NoTracking()
    seeds: Annotated[list[Annotated[StrictInt, Field(ge=0)]], Field(min_length=1)]
    run: RunSettings = RunSettings()
    clock: dict[str, Any] = {}
    sandbox: SandboxSettings = SandboxSettings()
    metrics: MetricsSettings = MetricsSettings()
    # ``coordination=*`` (configs/coordination/): the coordination costs and remedies; the
    # spec's own fields, defaults and range checks (pydantic validates the dataclass)
    coordination: CoordinationSpec = CoordinationSpec()

    @model_validator(mode="after")
    def _llm_policy_has_models(self) -> JobSettings:
        if self.policy.name == "llm" and self.llm is None:
            raise ValueError("llm: policy=llm needs the llm group (e.g. llm=scripted)")
        return self

    @field_validator("seeds", mode="before")
    @classmethod
    def _one_seed_is_a_list(cls, value: Any) -> Any:
        # `seeds=3` on the command line means [3]; a string ("12") is refused, not split.
        return [value] if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("clock")
    @classmethod
    def _clock_builds(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            ClockSpec(**value)
        except (TypeError, ValueError) as exc:
            raise ValueError(str(exc)) from None
        return value


# Fields holding a discriminated union: pydantic puts the tag into the error location.
_UNION_FIELDS = frozenset({"tasks", "policy", "tracking"})


def _setting_name(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc]
    if len(parts) > 1 and parts[0] in _UNION_FIELDS:
        parts.pop(1)
    return ".".join(parts) or "config"


def _one_error(err: ValidationError) -> str:
    first = err.errors(include_url=False, include_input=False)[0]
    name = _setting_name(tuple(first["loc"]))
    message = str(first["msg"]).removeprefix("Value error, ")
    if message.startswith(f"{name}."):
        # a check that names its own setting (CoordinationSpec: "coordination.loafing: ...")
        name, _, message = message.partition(": ")
    if first["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
        message = "unknown setting"
    elif first["type"] == "missing":
        message = "is required"
    more = len(err.errors()) - 1
    suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"{name}: {message}{suffix}"


def validate_job(cfg: Mapping[str, Any]) -> JobSettings:
    """Validate a resolved job configuration (plain containers).

    Keys Hydra adds (``hydra``) are ignored; everything else must match the schema.

    Raises:
        SettingsError: One line naming the first bad setting (and how many more there are).
    """
    data = {k: v for k, v in cfg.items() if k != "hydra"}
    try:
        settings = JobSettings.model_validate(data)
    except ValidationError as err:
        raise SettingsError(_one_error(err)) from None
    _refuse_unpriced_budget(settings)
    return settings


def _refuse_unpriced_budget(settings: JobSettings) -> None:
    """Refuse ``llm.budget.max_usd`` when a configured model has no price: the budget
    would count its calls as $0 and never stop a session."""
    llm = settings.llm
    if settings.policy.name != "llm" or llm is None or llm.budget.max_usd is None:
        return
    from collabsim.llm.pricing import unpriced_models

    unpriced = unpriced_models(llm.models(), llm.prices)
    if unpriced:
        raise SettingsError(
            f"llm.budget.max_usd: no price for model {unpriced[0]!r} (litellm has none); "
            f"give it one in llm.prices, e.g. '+llm.prices={{{unpriced[0]}: [USD per 1M input "
            "tokens, USD per 1M output tokens]}'"
        )
