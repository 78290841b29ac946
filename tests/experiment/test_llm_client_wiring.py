"""policy=llm sessions get their own cache scope and seed, and the llm settings reach the client."""

from __future__ import annotations

import pytest

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import plan_job
from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.session_configs import SessionConfigs
from collabsim.experiment.settings import SettingsError, validate_job


def _agents(overrides, tmp_path):
    cfg = compose_config(["policy=llm", "team=single", "structure=default", "tasks.n_tasks=1",
                          f"tasks.root={tmp_path / 'suite'}", f"llm.cache_dir={tmp_path / 'llm'}",
                          *overrides])
    job = plan_job(cfg)
    builder = ParticipantBuilder(job.settings)
    configs = SessionConfigs(job.settings)
    try:
        return [(plan, builder.build(plan, configs(plan), tmp_path / plan.slug)["agent"])
                for plan in job.plans]
    finally:
        builder.close()


def test_each_session_keys_its_calls_by_its_plan_and_sends_its_seed(tmp_path):
    agents = _agents(["seeds=[0,1]"], tmp_path)
    assert len(agents) == 2
    for plan, agent in agents:
        assert agent.client.scope == plan.key and agent.client.request_seed == plan.seed
    assert agents[0][1].client.scope != agents[1][1].client.scope


def test_tool_calling_and_context_tokens_are_settable_per_role(tmp_path):
    [(_, agent)] = _agents(["llm.agent.tool_calling=on", "llm.agent.context_tokens=8192"],
                           tmp_path)
    assert agent.settings.tool_calling == "on" and agent.settings.context_tokens == 8192
    [(_, default)] = _agents([], tmp_path)
    assert default.settings.tool_calling == "auto" and default.settings.context_tokens is None


@pytest.mark.parametrize(("override", "message"), [
    ("llm.agent.tool_calling=maybe", "llm.agent.tool_calling: "),
    ("llm.collaborator.context_tokens=0", "llm.collaborator.context_tokens: "),
])
def test_bad_client_settings_name_the_setting(override, message):
    with pytest.raises(SettingsError, match=f"^{message}"):
        validate_job(compose_config(["policy=llm", override]))
