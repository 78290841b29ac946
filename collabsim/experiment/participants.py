"""Build each session's participants from the job's validated ``policy`` (and ``llm``) settings.

``policy=scripted`` builds the scripted agent and collaborators; ``policy=llm`` builds LLM
participants over one shared :class:`~collabsim.llm.client.LLMClient` (disk cache, rate
limits), each session with its own budget and call log next to its trace. The scripted
parameters (``policy.agent`` / ``policy.collaborator``, present under both policies) are
passed to the LLM participants too, so the offline provider ``collabsim/scripted`` acts
exactly like ``policy=scripted``. The agent's ``finish_by_turn`` is derived from
``run.max_turns`` (:mod:`collabsim.experiment.agent_turns`).

Every value comes from :class:`~collabsim.experiment.settings.JobSettings` (whose defaults
are the schema's and the config files'); what does not change between sessions (the
scripted parameters, each role's model settings, the budget) is built once per job.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from collabsim.core.observation import Participant
from collabsim.experiment.agent_turns import agent_params
from collabsim.experiment.plan import SessionPlan
from collabsim.experiment.settings import JobSettings, LLMConfig, RoleModel
from collabsim.participants.scripted import build_scripted
from collabsim.session.config import SessionConfig

if TYPE_CHECKING:
    from collabsim.llm.budget import Budget
    from collabsim.llm.client import LLMClient, LLMSettings

ROLES = ("agent", "collaborator")


class ParticipantBuilder:
    """Creates participants per session according to the job's settings.

    Args:
        settings: The job's validated settings.
        max_concurrency: Model calls in flight at once across all sessions.
    """

    def __init__(self, settings: JobSettings, max_concurrency: int = 8) -> None:
        self.name = settings.policy.name
        self.max_concurrency = max_concurrency
        self._client: LLMClient | None = None
        # policy.agent / policy.collaborator (scripted_params.AGENT_DEFAULTS, composed by both
        # policy options) are the scripted policies: run as such under policy=scripted and
        # replayed by the offline provider under policy=llm, so both paths run the same
        # parameters. The agent's finish_by_turn follows run.max_turns.
        self.scripted_params: dict[str, dict[str, Any]] = {
            "agent": agent_params(settings.policy.agent, settings.run.max_turns),
            "collaborator": dict(settings.policy.collaborator),
        }
        self.llm: LLMConfig | None = settings.llm if self.name == "llm" else None
        self._models: dict[str, LLMSettings] = {}
        self._budget: Budget | None = None
        if self.llm is not None:
            self._models, self._budget = _llm_settings(self.llm)

    def build(
        self, plan: SessionPlan, config: SessionConfig, session_dir: Path
    ) -> Mapping[str, Participant]:
        """Participants for one session, keyed by member name (call logs go to session_dir)."""
        team = config.team
        if self.llm is None:
            return {
                name: build_scripted(
                    name,
                    team.role(name),
                    team.profile(name),
                    seed=plan.seed,
                    params=self.scripted_params[team.role(name)],
                )
                for name in team.members
            }
        from collabsim.participants.llm_policy import build_llm_participants

        call_log = session_dir / "llm_calls.jsonl"
        # scope: the session's own cache keys; seed: sent to providers that take one.
        client = self._root_client(self.llm).for_session(
            budget=self._budget, call_log_path=call_log, scope=plan.key, seed=plan.seed
        )
        return build_llm_participants(
            team, self._models, client, plan.seed, scripted_params=self.scripted_params,
            loop_repeats=self.llm.loop_repeats,
        )

    def _root_client(self, llm: LLMConfig) -> LLMClient:
        if self._client is None:
            from collabsim.llm.client import LLMClient

            self._client = LLMClient(
                cache_dir=Path(llm.cache_dir) if llm.cache_dir else None,
                max_concurrency=self.max_concurrency,
                requests_per_minute=llm.requests_per_minute,
                prices=llm.prices,
            )
        return self._client

    def close(self) -> None:
        """Release shared resources (the LLM client's connections, if any)."""
        if self._client is not None and hasattr(self._client, "close"):
            self._client.close()


def configured_models(settings: JobSettings) -> dict[str, RoleModel]:
    """Every model a job's participants call, by setting name (``llm.agent``, ...).

    Any model setting of the ``llm`` group counts (a role, or a mapping of them such as
    per-member overrides), so a model setting added to the group is checked too. Empty
    under ``policy=scripted``, which calls no model.
    """
    if settings.policy.name != "llm" or settings.llm is None:
        return {}
    out: dict[str, RoleModel] = {}
    for name, value in settings.llm:
        if isinstance(value, RoleModel):
            out[f"llm.{name}"] = value
        elif isinstance(value, Mapping):
            out.update({f"llm.{name}.{key}": v for key, v in value.items()
                        if isinstance(v, RoleModel)})
    return out


def credential_problems(settings: JobSettings) -> list[str]:
    """One line per configured model whose provider key is not in the environment.

    Checked before a job writes anything (:func:`collabsim.llm.preflight.missing_credentials`:
    no network; offline models and models with an ``api_base`` need no key).
    """
    from collabsim.llm.preflight import missing_credentials

    problems = []
    for name, role in configured_models(settings).items():
        problems += [f"{name}.model={line}" for line in
                     missing_credentials([(role.model, role.extra)])]
    return problems


def _llm_settings(llm: LLMConfig) -> tuple[dict[str, LLMSettings], Budget]:
    """Each role's model settings and the per-session budget of the ``llm`` settings."""
    from collabsim.llm.budget import Budget
    from collabsim.llm.client import LLMSettings

    models = {}
    for role in ROLES:
        model = getattr(llm, role)
        models[role] = LLMSettings(
            model=model.model,
            temperature=model.temperature,
            max_tokens=model.max_tokens,
            timeout_s=llm.timeout_s,
            max_retries=llm.max_retries,
            extra=dict(model.extra),
            tool_calling=model.tool_calling,
            context_tokens=model.context_tokens,
        )
    return models, Budget(max_tokens=llm.budget.max_tokens, max_usd=llm.budget.max_usd)
