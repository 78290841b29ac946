"""The typed job schema: what it accepts, and the one line it gives for what it refuses."""

from __future__ import annotations

from dataclasses import fields

import pytest

from collabsim.cli.run_app import compose_config
from collabsim.experiment.settings import LLMConfig, RoleModel, SettingsError, validate_job
from collabsim.llm.client import LLMSettings

SECRET = "sk-live-abcdefghijklmnop"


@pytest.fixture(scope="module")
def default_cfg():
    return compose_config([])


def with_(cfg, path, value):
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in cfg.items()}
    section, _, key = path.partition(".")
    if key:
        out[section][key] = value
    else:
        out[section] = value
    return out


def test_the_default_config_validates_with_the_configured_values(default_cfg):
    settings = validate_job(default_cfg)
    assert settings.seeds == [0] and settings.run.max_concurrency == 4
    assert settings.sandbox.disk_mb == 256
    assert settings.sandbox.max_files == 10_000
    assert settings.llm is not None and settings.policy.agent["mistakes"]["ignore_teammate"] == 0.2


def test_a_single_seed_is_a_list_but_a_string_is_never_split(default_cfg):
    assert validate_job(with_(default_cfg, "seeds", 7)).seeds == [7]
    for bad in ("12", [], ["1"], [True], -1):
        with pytest.raises(SettingsError, match=r"^seeds"):
            validate_job(with_(default_cfg, "seeds", bad))


def test_errors_are_one_line_naming_the_first_setting_and_counting_the_rest(default_cfg):
    cfg = with_(default_cfg, "run.max_turns", 0)
    cfg["sandbox"]["memory_mb"] = -3
    with pytest.raises(SettingsError) as err:
        validate_job(cfg)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("run.max_turns: ") and message.endswith("(and 1 more problem)")


def test_unknown_settings_and_unknown_names_are_refused(default_cfg):
    with pytest.raises(SettingsError, match=r"^run.max_turn: unknown setting"):
        validate_job(with_(default_cfg, "run.max_turn", 3))
    with pytest.raises(SettingsError, match=r"^team.compositions.0: "):
        validate_job(with_(default_cfg, "team", {"compositions": ["DRX"]}))
    with pytest.raises(SettingsError, match=r"^tracking.mode: "):
        validate_job(with_(default_cfg, "tracking", {"backend": "wandb", "mode": "loud"}))


def test_credentials_are_refused_without_echoing_them(default_cfg):
    cfg = with_(default_cfg, "llm.agent", {"model": "gpt-4o", "extra": {"api_key": SECRET}})
    with pytest.raises(SettingsError) as err:
        validate_job(cfg)
    assert str(err.value).startswith("llm.agent.extra: must not carry credentials (api_key)")
    assert SECRET not in str(err.value)


def test_llm_sampling_defaults_are_the_clients_and_the_yaml_spells_them_out():
    """One place for the LLM defaults: the settings schema takes the client's, and
    ``configs/llm/scripted.yaml`` (there only so Hydra can override each key) states the same
    values, so a job without an ``llm`` block and ``llm=scripted`` sample alike."""
    client = {f.name: f.default for f in fields(LLMSettings)}
    role = RoleModel(model="m")
    assert (role.temperature, role.max_tokens) == (client["temperature"], client["max_tokens"])
    assert (role.tool_calling, role.context_tokens) == (
        client["tool_calling"], client["context_tokens"]
    )
    bare = LLMConfig(agent=role, collaborator=role)
    assert (bare.timeout_s, bare.max_retries) == (client["timeout_s"], client["max_retries"])
    configured = validate_job(compose_config(["policy=llm"])).llm
    assert configured is not None
    for part in (configured.agent, configured.collaborator):
        assert (part.temperature, part.max_tokens) == (role.temperature, role.max_tokens)
        assert (part.tool_calling, part.context_tokens) == (role.tool_calling, role.context_tokens)
    assert (configured.timeout_s, configured.max_retries) == (bare.timeout_s, bare.max_retries)


def test_the_file_limit_reaches_the_sandbox_and_its_default_keeps_store_keys(default_cfg):
    from collabsim.experiment.plan import outcome_settings
    from collabsim.experiment.session_configs import SessionConfigs

    settings = validate_job(with_(default_cfg, "sandbox.max_files", 123))
    assert SessionConfigs(settings).limits.max_files == 123
    default = validate_job(default_cfg).model_dump()
    older = {**default, "sandbox": {k: v for k, v in default["sandbox"].items()
                                    if k != "max_files"}}  # a store written before the limit
    assert outcome_settings(default) == outcome_settings(older)
    assert outcome_settings(settings.model_dump()) != outcome_settings(default)


def test_initiative_events_default_to_every_action_and_take_the_study_messages(default_cfg):
    assert validate_job(default_cfg).metrics.initiative_events == "actions"
    chosen = validate_job(with_(default_cfg, "metrics.initiative_events", "messages"))
    assert chosen.metrics.initiative_events == "messages"
    with pytest.raises(SettingsError, match=r"^metrics.initiative_events: ") as err:
        validate_job(with_(default_cfg, "metrics.initiative_events", "acts"))
    assert "\n" not in str(err.value)


def test_the_initiative_setting_never_enters_a_session_key(default_cfg):
    from collabsim.experiment.plan import outcome_settings

    messages = validate_job(with_(default_cfg, "metrics.initiative_events", "messages"))
    assert (outcome_settings(messages.model_dump())
            == outcome_settings(validate_job(default_cfg).model_dump()))
