"""Environment hygiene: no litellm_init.pth in any site-packages, no keys in what we write."""

from __future__ import annotations

import site
import sys
from pathlib import Path

from collabsim.llm.calllog import CallLog, read_call_log
from collabsim.llm.redact import REDACTED, redact


def _site_dirs() -> list[Path]:
    dirs = list(site.getsitepackages()) + [site.getusersitepackages()]
    dirs += [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages"))]
    return sorted({Path(d) for d in dirs if Path(d).is_dir()})


def test_no_litellm_init_pth_in_site_packages() -> None:
    dirs = _site_dirs()
    assert dirs, "no site-packages directory found"
    found = [d / "litellm_init.pth" for d in dirs if (d / "litellm_init.pth").exists()]
    assert not found, f"suspicious startup hook present (compromised litellm release?): {found}"


def test_redact_removes_env_secrets_and_key_shapes() -> None:
    env = {"OPENAI_API_KEY": "abc123-not-shaped-like-a-key", "HOME": "/root"}
    text = "key abc123-not-shaped-like-a-key and sk-ant-api03-ABCDEFGHIJ and /root"
    out = redact(text, env)
    assert "abc123-not-shaped" not in out
    assert "sk-ant-api03" not in out
    assert "/root" in out
    assert out.count(REDACTED) == 2


def test_call_log_never_contains_an_environment_key(tmp_path: Path, monkeypatch) -> None:
    secret = "sk-test-" + "x" * 24
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    log = CallLog(tmp_path / "s.llm_calls.jsonl")
    log.write(
        tag="agent", model="gpt-4o-mini",
        messages=[{"role": "user", "content": f"my key is {secret}"}],
        params={"temperature": 0.0}, reply=f"echo {secret}", prompt_tokens=1,
        completion_tokens=1, cost_usd=0.0, cost_known=True, cached=False, latency_s=0.1,
        retries=0, cache_key="k",
    )
    log.close()
    raw = (tmp_path / "s.llm_calls.jsonl").read_text(encoding="utf-8")
    assert secret not in raw
    assert read_call_log(tmp_path / "s.llm_calls.jsonl")[0]["reply"] == f"echo {REDACTED}"
