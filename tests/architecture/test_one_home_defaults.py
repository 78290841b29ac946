"""Each default has one home: the turn budget, the time budget, the sandbox limits.

A job (``run.*``, ``sandbox.*``), the engine's ``SessionConfig`` and the gym environments
take them from one constant; no YAML file or other module restates the value, and a cell's
output is cut once, by the sandbox, to ``sandbox.output_chars``.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import re
import tokenize
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

#: A number as a default is written; a nonzero one (a mistake rate of 0 is "off", not a default).
NUMBER = r"-?\d[\d_]*(?:\.\d+)?"
NONZERO = r"(?:0*\.\d*[1-9]\d*|[1-9][\d_]*(?:\.\d+)?)"


def literal(names: str, number: str = NUMBER) -> re.Pattern[str]:
    """A default of one of ``names`` written as a literal, in any of the forms code takes:
    ``name = 40``, ``name: int = 40``, ``self.name = 40``, ``f(name=40)``, ``"name": 40``,
    ``'name': 40``, ``field(default=40)``, a rate ``{"value": 0.15, ...}`` and YAML
    ``name: 40`` / ``name: {value: 0.15}`` (read from :func:`code_text`)."""
    return re.compile(
        r"(?<!\w)[\"']?\b(?:" + names + r")\b[\"']?\s*(?::\s*[\w\[\], |.]+?)?\s*[=:]\s*"
        r"(?:\{\s*[\"']?value[\"']?\s*[:=]\s*)?(?:field\s*\(\s*default\s*=\s*)?" + number
        + r"(?![\w.])", re.MULTILINE)


def code_text(path: Path) -> str:
    """A source without its comments and prose: YAML without ``#`` comments; Python with
    comments dropped and every string but an identifier (a dict key) blanked, so a docstring
    quoting ``run.max_turns=20`` is no default."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return re.sub(r"#.*", "", text)
    kept = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        value = tok.string
        if tok.type == tokenize.COMMENT:
            value = ""
        elif tok.type == tokenize.STRING:
            try:
                inner = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                inner = None
            value = f'"{inner}"' if isinstance(inner, str) and inner.isidentifier() else '""'
        kept.append((tok.type, value))
    return tokenize.untokenize(kept)


_CODE = {p.relative_to(ROOT).as_posix(): code_text(p) for p in SOURCES}

#: setting -> (its names, the one file allowed to write its default)
DEFAULTS = {
    "turn budget": ("max_turns|MAX_TURNS", "collabsim/session/config.py"),
    "time budget": ("max_virtual_seconds|max_time|MAX_VIRTUAL_SECONDS",
                    "collabsim/session/config.py"),
    "cell-output cut": (r"\w*output_chars", "collabsim/sandbox/limits.py"),
    "other sandbox limits": ("wall_seconds|cpu_seconds|memory_mb|file_mb|disk_mb|max_files",
                             "collabsim/sandbox/limits.py"),
}


def _written(pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """``(file, name)`` of every literal the pattern finds in the sources."""
    return sorted((path, re.match(r"[\"']?(\w+)", m.group()).group(1))
                  for path, text in _CODE.items() for m in pattern.finditer(text))


def _once_in(found: list[tuple[str, str]], home: str) -> None:
    assert {path for path, _ in found} == {home}, found
    names = [name for _, name in found]
    assert len(names) == len(set(names)), found  # each value once, in its home too


@pytest.mark.parametrize("what", sorted(DEFAULTS))
def test_a_default_is_written_in_one_place(what: str) -> None:
    names, home = DEFAULTS[what]
    _once_in(_written(literal(names)), home)


def test_the_literal_reader_sees_every_form_a_default_takes(tmp_path: Path) -> None:
    forms = ["SessionEnv(max_turns=40)", "def f(self, max_turns: int = 40): ...",
             "self.max_turns = 40", "x = {'max_turns': 40}", "y = dict(max_turns=40,)  # x",
             "max_turns: int = field(default=40)"]
    source = tmp_path / "m.py"
    source.write_text("\n".join(forms) + '\n"""run.max_turns=20 in prose"""\n',
                      encoding="utf-8")
    assert len(literal("max_turns").findall(code_text(source))) == len(forms)
    rates = tmp_path / "c.yaml"
    rates.write_text("a:\n  wrong_variable: {value: 0.15}\n  wrong_window: 0.0  # off\n"
                     "  # deference: 0.5\n", encoding="utf-8")
    assert literal("wrong_variable|wrong_window|deference", NONZERO).findall(
        code_text(rates)) == ["wrong_variable: {value: 0.15"]


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
#: scripted_params.py (AGENT_DEFAULTS, and max_rejections in AgentParams); a
#: ``configs/sensitivity/`` option sets a value of its own on purpose.
SCRIPTED_NAMES = ("deference|patience_seconds|reaction_patience_seconds|lead_patience_seconds|"
                  "finish_margin_turns|max_rejections|ask_propensity|"
                  + "|".join(f.name for f in dataclasses.fields(MistakeModel)))
SCRIPTED_HOME = "collabsim/participants/scripted_params.py"


def test_the_scripted_parameters_are_written_in_one_place() -> None:
    found = [(path, name) for path, name in _written(literal(SCRIPTED_NAMES, NONZERO))
             if not path.startswith("configs/sensitivity/")]
    _once_in(found, SCRIPTED_HOME)


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
