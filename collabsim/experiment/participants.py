"""Build each session's participants from the ``policy`` (and ``llm``) config sections.

``policy=scripted`` builds the scripted agent and collaborators; ``policy=llm`` builds LLM
participants over one shared :class:`~collabsim.llm.client.LLMClient` (disk cache, rate
limits), each session with its own budget and call log next to its trace. The scripted
parameters (``policy.agent`` / ``policy.collaborator``, present under both policies) are
passed to the LLM participants too, so the offline provider ``collabsim/scripted`` acts
exactly like ``policy=scripted``. The agent's ``finish_by_turn`` is derived from
``run.max_turns`` (:mod:`collabsim.experiment.agent_turns`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from collabsim.core.observation import Participant
from collabsim.experiment.agent_turns import agent_params
from collabsim.experiment.plan import SessionPlan
from collabsim.participants.scripted import build_scripted
from collabsim.session.config import SessionConfig


class ParticipantBuilder:
    """Creates participants per session according to the job config.

    Args:
        cfg: The resolved job config (plain containers).
        max_concurrency: Model calls in flight at once across all sessions.
    """

    def __init__(self, cfg: Mapping[str, Any], max_concurrency: int = 8) -> None:
        self.policy = dict(cfg.get("policy") or {"name": "scripted"})
        self.name = str(self.policy.get("name", "scripted"))
        if self.name not in ("scripted", "llm"):
            raise ValueError(f"policy.name: unknown policy {self.name!r} (scripted|llm)")
        self.llm_cfg = dict(cfg.get("llm") or {})
        self.max_concurrency = max_concurrency
        self._client: Any = None
        # policy.agent / policy.collaborator (configs/policy/scripted.yaml, composed by both
        # policy options) are the scripted policies: run as such under policy=scripted and
        # replayed by the offline provider under policy=llm, so both paths run the same
        # parameters. The agent's finish_by_turn follows run.max_turns.
        max_turns = int(cfg["run"]["max_turns"])
        self.scripted_params = {
            "agent": agent_params(self.policy.get("agent"), max_turns),
            "collaborator": dict(self.policy.get("collaborator") or {}),
        }

    def build(
        self, plan: SessionPlan, config: SessionConfig, session_dir: Path
    ) -> Mapping[str, Participant]:
        """Participants for one session, keyed by member name (call logs go to session_dir)."""
        team = config.team
        if self.name == "scripted":
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
        return self._build_llm(plan, config, session_dir)

    def _root_client(self) -> Any:
        if self._client is None:
            from collabsim.llm.client import LLMClient

            cache_dir = self.llm_cfg.get("cache_dir")
            self._client = LLMClient(
                cache_dir=Path(cache_dir) if cache_dir else None,
                max_concurrency=self.max_concurrency,
                requests_per_minute=self.llm_cfg.get("requests_per_minute"),
            )
        return self._client

    def _build_llm(
        self, plan: SessionPlan, config: SessionConfig, session_dir: Path
    ) -> Mapping[str, Participant]:
        from collabsim.llm.budget import Budget
        from collabsim.llm.client import LLMSettings
        from collabsim.participants.llm_policy import build_llm_participants

        budget_cfg = dict(self.llm_cfg.get("budget") or {})
        budget = Budget(max_tokens=budget_cfg.get("max_tokens"), max_usd=budget_cfg.get("max_usd"))
        settings = {}
        for role in ("agent", "collaborator"):
            role_cfg = dict(self.llm_cfg.get(role) or {})
            if not role_cfg.get("model"):
                raise ValueError(f"llm.{role}.model is required for policy=llm")
            settings[role] = LLMSettings(
                model=str(role_cfg["model"]),
                temperature=float(role_cfg.get("temperature", 0.0)),
                max_tokens=int(role_cfg.get("max_tokens", 1024)),
                timeout_s=float(self.llm_cfg.get("timeout_s", 60.0)),
                max_retries=int(self.llm_cfg.get("max_retries", 4)),
                extra=dict(role_cfg.get("extra") or {}),
            )
        call_log = session_dir / "llm_calls.jsonl"
        client = self._root_client().for_session(budget=budget, call_log_path=call_log)
        return build_llm_participants(
            config.team, settings, client, plan.seed, scripted_params=self.scripted_params
        )

    def close(self) -> None:
        """Release shared resources (the LLM client's connections, if any)."""
        if self._client is not None and hasattr(self._client, "close"):
            self._client.close()
