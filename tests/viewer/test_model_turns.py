"""An LLM session's model turns and cost in the viewer, and the totals of a job page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.browser import open_in_browser
from helpers.cli import collabsim_exit_code

from collabsim.llm.calllog import read_call_log
from collabsim.viewer import load_view_sessions, write_page


@pytest.fixture(scope="module")
def llm_job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An offline LLM job (DR, default and scaffolded, one task) whose model has a price."""
    out = tmp_path_factory.mktemp("llm_view_job")
    code = collabsim_exit_code([
        "run", "experiment=smoke", "tasks.ids=[gen_001/0/0]", "policy=llm",
        "structure=default_and_scaffolded", "run.progress=false",
        f"llm.cache_dir={out / 'cache'}", "+llm.prices={collabsim/scripted: [2.0, 8.0]}",
        f"hydra.run.dir={out / 'job'}"], cwd=out)
    assert code == 0
    return out / "job"


def test_a_session_page_lists_its_model_turns_with_prompt_reply_parse_and_cost(llm_job):
    folder = sorted((llm_job / "sessions").glob("*__DR__default__*"))[0]
    records = read_call_log(folder / "llm_calls.jsonl")
    (view,) = load_view_sessions(folder)
    turns = view.payload["model_turns"]
    assert len(turns) == len(records) > 0
    assert [t["prompt_tokens"] for t in turns] == [r["prompt_tokens"] for r in records]
    assert [t["cost_usd"] for t in turns] == [r["cost_usd"] for r in records]
    assert all(t["reply"] == r["reply"][:4000] for t, r in zip(turns, records, strict=True))
    assert {t["tag"] for t in turns} == {"agent", "D", "R"}
    assert all(t["parse"].startswith("action ") for t in turns)  # the offline model parses
    card = [c for c in view.payload["header"]["cards"] if c["label"] == "model cost"]
    total = sum(r["cost_usd"] for r in records)
    assert card and card[0]["value"] == f"${total:.4f}" and total > 0
    assert view.index["cost"]["llm_calls"] == len(records)


def test_a_job_page_shows_model_use_totals_and_draws_the_turns_table(llm_job, tmp_path):
    views = load_view_sessions(llm_job)
    assert len(views) == 2
    records = [r for log in sorted(llm_job.rglob("llm_calls.jsonl")) for r in read_call_log(log)]
    page = write_page(views, tmp_path / "job.html", "job")
    text = page.read_text(encoding="utf-8")
    usd = sum(r["cost_usd"] for r in records)
    assert (f"Model use: {len(records)} calls" in text and f"${usd:.4f} over 2 session(s)"
            in text)
    dom, console = open_in_browser(page, tmp_path / "profile")
    assert not [m for m in console if not m.startswith("collabsim-view:")], console
    shown = re.search(r'<section id="model-turns"[^>]*>(.*?)</section>', dom, re.S)
    assert shown is not None
    first = views[0].payload["model_turns"]
    assert len(re.findall(r"<tr class=\"(?:ok|bad)\">", shown.group(1))) == len(first)


def test_a_scripted_session_has_no_model_turns(dr_scaffolded_session):
    (view,) = load_view_sessions(dr_scaffolded_session)
    assert "model_turns" not in view.payload and "cost" not in view.index
    assert all(c["label"] != "model cost" for c in view.payload["header"]["cards"])
