"""Each default has one home: the turn budget, the time budget, the sandbox limits.

A job (``run.*``, ``sandbox.*``), the engine's ``SessionConfig`` and the gym environments
take them from one constant; no YAML file or other module restates the value, and a cell's
output is cut once, by the sandbox, to ``sandbox.output_chars``.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

import collabsim
from collabsim.cli.run_app import CONFIG_DIR
from collabsim.envs.session_env import SessionEnv
from collabsim.experiment.agent_turns import agent_params
from collabsim.experiment.settings import RunSettings, SandboxSettings
from collabsim.participants.llm_policy import PromptRenderer
from collabsim.participants.plan import MistakeModel
from collabsim.participants.scripted_params import AGENT_DEFAULTS, AgentParams
from collabsim.sandbox import SandboxLimits
from collabsim.session.config import MAX_TURNS, MAX_VIRTUAL_SECONDS, SessionConfig
from collabsim.session.workspace import Workspace

PACKAGE = Path(collabsim.__file__).resolve().parent
ROOT = PACKAGE.parent
SOURCES = sorted([*PACKAGE.rglob("*.py"), *(ROOT / "envs").rglob("*.py"),
                  *(ROOT / "configs").rglob("*.yaml"), *(ROOT / "benchmarks").rglob("*.py")])

#: A default written as a literal: ``name[: type] = 40`` or ``"name": 40`` in Python, a YAML
#: ``name: 40`` (the literal ends the line or the entry).
_LITERAL = r"^\s*\"?(?:{names})\"?\s*(?::[^=\n]*)?[=:]\s*[\d_.]+\s*(?:#.*)?,?$|\"(?:{names})\":\s*\d"

#: setting -> (its names, the one file allowed to write its default)
DEFAULTS = {
    "turn budget": ("max_turns|MAX_TURNS", "collabsim/session/config.py"),
    "time budget": ("max_virtual_seconds|max_time|MAX_VIRTUAL_SECONDS",
                    "collabsim/session/config.py"),
    "cell-output cut": (r"\w*output_chars", "collabsim/sandbox/limits.py"),
    "other sandbox limits": ("wall_seconds|cpu_seconds|memory_mb|file_mb|disk_mb|max_files",
                             "collabsim/sandbox/limits.py"),
}


def _where(pattern: str) -> list[str]:
    regex = re.compile(pattern, re.MULTILINE)
    return sorted({p.relative_to(ROOT).as_posix() for p in SOURCES
                   if regex.search(p.read_text(encoding="utf-8"))})


@pytest.mark.parametrize("what", sorted(DEFAULTS))
def test_a_default_is_written_in_one_place(what: str) -> None:
    names, home = DEFAULTS[what]
    assert _where(_LITERAL.format(names=names)) == [home]


def test_a_job_the_engine_and_the_gym_share_the_defaults() -> None:
    gym = inspect.signature(SessionEnv).parameters
    assert RunSettings().max_turns == MAX_TURNS == gym["max_turns"].default
    assert SessionConfig.__dataclass_fields__["max_turns"].default == MAX_TURNS
    assert RunSettings().max_virtual_seconds == MAX_VIRTUAL_SECONDS
    assert gym["max_virtual_seconds"].default == MAX_VIRTUAL_SECONDS
    assert SessionConfig.__dataclass_fields__["max_time"].default == MAX_VIRTUAL_SECONDS
    assert SandboxSettings().output_chars == SandboxLimits().output_chars


def test_a_cell_output_the_sandbox_kept_is_shown_whole() -> None:
    # sandbox.output_chars=10000 keeps 10,000 characters: no later cut in the workspace or
    # in the LLM prompt
    output = "x" * 9_000 + "END"
    ws = Workspace()
    ws.add_cell(seq=3, time=1.0, author="agent", code="print('x' * 9000 + 'END')",
                output=output, ok=True)
    assert ws.cells[-1].output == output
    section = PromptRenderer().env.get_template("_sections.j2").module.code_section(
        ws.cells, 0)
    assert output in str(section)


def test_the_job_config_takes_run_and_sandbox_from_the_typed_settings() -> None:
    yaml_text = (Path(CONFIG_DIR) / "config.yaml").read_text(encoding="utf-8")
    assert not re.search(r"^(?:run|sandbox):", yaml_text, re.MULTILINE)
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        cfg = compose("config", overrides=["run.max_turns=20", "sandbox.file_mb=64"])
    assert dict(cfg.run) == RunSettings(max_turns=20).model_dump()
    assert dict(cfg.sandbox) == SandboxSettings(file_mb=64).model_dump()


#: The scripted agent's parameters and the nonzero rates of its mistakes: written once, in
#: AGENT_DEFAULTS (a ``configs/sensitivity/`` option sets a value of its own on purpose).
SCRIPTED_NAMES = ("deference|patience_seconds|reaction_patience_seconds|lead_patience_seconds|"
                  "finish_margin_turns|max_rejections|"
                  + "|".join(f.name for f in dataclasses.fields(MistakeModel)))
SCRIPTED_HOME = "collabsim/participants/scripted_params.py"


def test_the_scripted_parameters_are_written_in_one_place() -> None:
    nonzero = _LITERAL.replace(r"[\d_.]+", r"(?:0*\.0*[1-9][\d_]*|[1-9][\d_.]*)").replace(
        r"\":\s*\d", r"\":\s*(?:0*\.0*[1-9]|[1-9])")
    found = [p for p in _where(nonzero.format(names=SCRIPTED_NAMES))
             if not p.startswith("configs/sensitivity/")]
    assert found == [SCRIPTED_HOME]


def test_the_scripted_policy_config_is_composed_from_the_one_home() -> None:
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        for policy in ("scripted", "llm"):
            cfg = compose("config", overrides=[f"policy={policy}",
                                               "policy.agent.deference=0.75"])
            agent = OmegaConf.to_container(cfg.policy.agent)
            assert agent == {**AGENT_DEFAULTS, "deference": 0.75}
            assert cfg.policy.name == policy
    # the gym's scripted agent and a job's take the same defaults
    assert AgentParams.from_mapping(agent_params(AGENT_DEFAULTS, MAX_TURNS)) == AgentParams()
