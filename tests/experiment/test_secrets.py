"""Credentials never reach a file a run writes (traces, records, the LLM cache, call logs)."""

from __future__ import annotations

from collabsim.cli.run_app import compose_config
from collabsim.core.redaction import REDACTED
from collabsim.experiment.job import run

SECRET = "s3cr3t-value-from-the-environment-42"


def test_an_environment_secret_in_a_model_reply_is_redacted_everywhere(tmp_path, monkeypatch):
    monkeypatch.setenv("MYPROVIDER_API_KEY", SECRET)
    cfg = compose_config(
        [
            "tasks.n_tasks=1",
            f"tasks.root={tmp_path / 'suite'}",
            "team=single",
            "policy=llm",
            "llm.agent.model=gpt-4o-mini",
            f"llm.cache_dir={tmp_path / 'llm-cache'}",
            f"run.store={tmp_path / 'store'}",
            "run.max_turns=3",
            "run.progress=false",
        ]
    )
    # the model leaks the key into its reply (and so into the editor, the trace and the result)
    reply = f'EDITOR_UPDATE(text="The key is {SECRET}")'
    cfg["llm"]["agent"]["extra"] = {"mock_response": reply}
    outcome = run(cfg, tmp_path / "out")
    assert REDACTED in outcome.sessions["hypothesis"].iloc[0]
    written = {
        path: path.read_text(encoding="utf-8")
        for folder in (tmp_path / "store", tmp_path / "llm-cache", tmp_path / "out")
        for path in folder.rglob("*")
        if path.is_file()
    }
    names = {p.name for p in written}
    assert {"trace.jsonl", "result.json", "plan.json", "llm_calls.jsonl"} <= names
    assert any(p.suffix == ".json" and "llm-cache" in str(p) for p in written)
    leaking = [str(p) for p, text in written.items() if SECRET in text]
    assert leaking == []
    trace = next(text for p, text in written.items() if p.name == "trace.jsonl")
    assert f"The key is {REDACTED}" in trace


def test_url_userinfo_is_redacted_everywhere_collabsim_writes():
    """Issue 23, item 13: a key inside a URL is a credential."""
    from collabsim.core.redaction import contains_credential, redact

    text = "api_base=http://user:hunter2@host/v1 and https://TOKEN123@proxy.example/x"
    assert redact(text, environ={}) == (
        "api_base=http://[REDACTED]@host/v1 and https://[REDACTED]@proxy.example/x")
    assert contains_credential("http://user:sk-abcdefghij@host/v1", environ={})
    assert not contains_credential("http://host:8080/v1 mail me@example.org", environ={})
