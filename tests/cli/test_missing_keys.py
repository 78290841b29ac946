"""``collabsim run`` checks every configured model's key before it writes anything (issue 37,
point 2): one line naming the setting, the model and the environment variable, exit code 2,
no job folder, no task suite, no store."""

from __future__ import annotations

import pytest

from collabsim.cli.run_app import validate_command_line

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY")


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("overrides", "setting", "variable"), [
    (["team=single", "llm.agent.model=openai/x"], "llm.agent.model=openai/x", "OPENAI_API_KEY"),
    (["team=D", "llm.collaborator.model=anthropic/claude-3-5-haiku-latest"],
     "llm.collaborator.model=anthropic/claude-3-5-haiku-latest", "ANTHROPIC_API_KEY"),
    (["-m", "team=single", "llm.agent.model=collabsim/scripted,deepseek/deepseek-chat"],
     "llm.agent.model=deepseek/deepseek-chat", "DEEPSEEK_API_KEY"),
])
def test_a_missing_key_is_one_line_exit_2_and_nothing_written(
        collabsim_cli, tmp_path, overrides, setting, variable) -> None:
    work = tmp_path / "work"
    work.mkdir()
    done = collabsim_cli("run", *overrides, "policy=llm", "tasks.n_tasks=1",
                         f"tasks.root={work / 'suite'}", f"run.store={work / 'store'}", cwd=work)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"collabsim run: {setting} needs {variable}, which is not set")
    assert "Traceback" not in done.stderr
    # no outputs/, multirun/ or store (a sweep's earlier jobs may have generated the suite)
    assert {p.name for p in work.iterdir()} <= ({"suite"} if "-m" in overrides else set())


def test_models_on_a_local_server_or_offline_pass_the_check(tmp_path) -> None:
    planned = validate_command_line([
        "policy=llm", "team=D", "tasks.n_tasks=1", f"tasks.root={tmp_path / 'suite'}",
        "llm.agent.model=openai/x", "+llm.agent.extra.api_base=http://127.0.0.1:9/v1",
        "llm.collaborator.model=collabsim/scripted"])
    assert planned == 2  # D under default and scaffolded


def test_scripted_policy_checks_no_model(tmp_path) -> None:
    # policy=scripted calls no model, whatever the llm group would say
    assert validate_command_line(["team=single", "tasks.n_tasks=1",
                                  f"tasks.root={tmp_path / 'suite'}"]) == 1
