"""What a run will cost, before it starts (``collabsim run ... run.estimate=true``).

The rule: the job is run once offline, with the offline provider ``collabsim/scripted``
standing in for every configured model (free, no network, no cache, into a temporary folder
that is removed afterwards). Its call logs give the calls each seat makes and their prompt
and completion tokens; those are priced at the configured models' prices
(:func:`collabsim.llm.pricing.price`: ``llm.prices``, then litellm's). A real model makes
about as many calls with about the same prompts (prompts are rendered from the same
observations); its replies are usually longer (a THOUGHT before the action) and it may need
repair turns, so the expected completion tokens are a floor. The upper bound assumes every
member uses every turn with one repair each and every reply fills ``max_tokens``:
sessions x run.max_turns x members x 2 x (largest prompt seen + max_tokens), where members
is the number of members of that role in each session.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from collabsim.experiment.plan import TEAM_COMPOSITIONS
from collabsim.experiment.settings import JobSettings
from collabsim.llm.calllog import read_call_log
from collabsim.llm.pricing import OFFLINE_MODEL_PREFIX, price

STAND_IN = f"{OFFLINE_MODEL_PREFIX}scripted"
REPAIR_TRIES = 1
"""Repair turns per unusable reply (the participants' rule), for the upper bound."""


@dataclass(frozen=True)
class ModelEstimate:
    """The expected and the largest use of one configured model over a run."""

    model: str
    role: str
    sessions: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    usd: float
    price_known: bool
    max_calls: int
    max_usd: float


def _offline(settings: JobSettings, store: Path) -> JobSettings:
    assert settings.llm is not None
    roles = {role: getattr(settings.llm, role).model_copy(update={"model": STAND_IN,
                                                                  "extra": {}})
             for role in ("agent", "collaborator")}
    llm = settings.llm.model_copy(update={**roles, "cache_dir": None,
                                          "budget": type(settings.llm.budget)()})
    run = settings.run.model_copy(update={"store": str(store), "progress": False,
                                          "estimate": False})
    return settings.model_copy(update={"llm": llm, "run": run})


def estimate_run(settings: JobSettings) -> list[ModelEstimate]:
    """Estimate a validated job's model use per role (see the module docstring).

    Returns:
        One estimate per role (agent, collaborator) whose members make calls; empty for
        ``policy=scripted``.
    """
    from collabsim.experiment.job import run

    if settings.policy.name != "llm" or settings.llm is None:
        return []
    with tempfile.TemporaryDirectory(prefix="collabsim-estimate-") as tmp:
        outcome = run(_offline(settings, Path(tmp) / "store"), Path(tmp) / "out")
        logs = sorted((Path(tmp) / "store").rglob("llm_calls.jsonl"))
        records = [r for log in logs for r in read_call_log(log)]
    n_sessions = len(outcome.sessions)
    members = {"agent": n_sessions,
               "collaborator": sum(len(TEAM_COMPOSITIONS[str(t)])
                                   for t in outcome.sessions["team"])}
    calls: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        calls["agent" if record["tag"] == "agent" else "collaborator"].append(record)
    out = []
    for role in ("agent", "collaborator"):
        mine = calls.get(role, [])
        if not mine:
            continue
        spec = getattr(settings.llm, role)
        prompt = sum(int(r["prompt_tokens"]) for r in mine)
        completion = sum(int(r["completion_tokens"]) for r in mine)
        usd, known = price(spec.model, prompt, completion, settings.llm.prices)
        max_calls = settings.run.max_turns * members[role] * (1 + REPAIR_TRIES)
        largest = max(int(r["prompt_tokens"]) for r in mine)
        max_usd, _ = price(spec.model, max_calls * largest, max_calls * spec.max_tokens,
                           settings.llm.prices)
        out.append(ModelEstimate(spec.model, role, n_sessions, len(mine), prompt, completion,
                                 usd, known, max_calls, max_usd))
    return out


def estimate_text(estimates: list[ModelEstimate]) -> str:
    """The estimate as printed by ``collabsim run ... run.estimate=true``."""
    if not estimates:
        return "Estimate: no model calls (policy=scripted): $0."
    header = (f"{'role':<13}{'model':<36}{'sessions':>9}{'calls':>8}{'prompt tok':>12}"
              f"{'compl. tok':>12}{'expected $':>12}{'max calls':>10}{'max $':>11}")
    lines = ["Estimate (the job run offline with collabsim/scripted standing in for every "
             "model, priced at the configured models' prices):", header]
    for e in estimates:
        usd = f"{e.usd:.4f}" if e.price_known else "unknown"
        top = f"{e.max_usd:.4f}" if e.price_known else "unknown"
        lines.append(f"{e.role:<13}{e.model:<36}{e.sessions:>9}{e.calls:>8}"
                     f"{e.prompt_tokens:>12,}{e.completion_tokens:>12,}{usd:>12}"
                     f"{e.max_calls:>10}{top:>11}")
    total = sum(e.usd for e in estimates)
    lines.append(f"total expected ${total:.4f}, at most ${sum(e.max_usd for e in estimates):.4f}"
                 " (every turn used, one repair each, every reply max_tokens long)")
    unknown = [e.model for e in estimates if not e.price_known]
    if unknown:
        lines.append("no price for " + ", ".join(unknown) + ": give one in llm.prices")
    lines.append("Nothing was written and no model was called; run without run.estimate to "
                 "start the run.")
    return "\n".join(lines)
