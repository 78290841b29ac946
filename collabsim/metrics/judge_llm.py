"""Model-based judges through the project's LLM client (never litellm directly).

* :class:`LLMJudge` scores a hypothesis against the gold DiscoveryBench-style (prompt
  ``prompts/hypothesis_judge.txt``) and returns the same
  :class:`~collabsim.metrics.outcome.HypothesisScore` as the rule judge. Variable F1 is
  computed from the variable lists the model returns; context, context recall and relation
  are the model's numbers (clipped to [0, 1]).
* :func:`ask_json` is the shared plumbing: render a prompt, call
  :meth:`collabsim.llm.client.LLMClient.complete_sync`, parse the first JSON object of the
  reply. The initiative and process judges use it too.

``collabsim.llm`` is imported lazily, so the metrics package works without it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from string import Template
from typing import Any

from collabsim.metrics.outcome import HypothesisScore
from collabsim.tasks.model import Task, TaskBrief

PROMPT_DIR = Path(__file__).resolve().parent / "prompts"
JUDGE_CALL_LOG = "judge.llm_calls.jsonl"
"""The judge's call log in a session folder, beside the participants' ``llm_calls.jsonl``."""


class JudgeReplyError(ValueError):
    """The model's reply could not be parsed into the expected JSON object."""


def load_prompt(name: str) -> Template:
    """Load a prompt template (``$name`` placeholders) from ``collabsim/metrics/prompts``."""
    return Template((PROMPT_DIR / name).read_text(encoding="utf-8"))


def parse_json_object(text: str) -> dict[str, Any]:
    """Parse the first JSON object in a model reply (code fences and chatter tolerated).

    Raises:
        JudgeReplyError: No JSON object could be decoded.
    """
    cleaned = re.sub(r"```(?:json)?", "", text)
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", cleaned):
        try:
            obj, _ = decoder.raw_decode(cleaned[m.start() :])
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            return obj
    raise JudgeReplyError(f"no JSON object in reply: {text[:200]!r}")


def _default_client() -> Any:
    from collabsim.llm.client import LLMClient  # lazy: optional dependency path

    return LLMClient()


def ask_json(
    prompt: str, settings: Any, client: Any | None = None, tag: str = "judge"
) -> dict[str, Any]:
    """Send one user prompt through the LLM client and parse a JSON object from the reply.

    Args:
        prompt: The rendered prompt.
        settings: A ``collabsim.llm.client.LLMSettings``.
        client: An ``LLMClient`` (a fresh uncached one when None).
        tag: Accounting tag.

    Returns:
        The decoded JSON object.
    """
    llm = client if client is not None else _default_client()
    reply = llm.complete_sync([{"role": "user", "content": prompt}], settings, tag=tag)
    return parse_json_object(reply.text)


def _num(obj: Mapping[str, Any], key: str, default: float = 0.0) -> float:
    try:
        return float(obj.get(key, default))
    except (TypeError, ValueError):
        return default


def _names(obj: Mapping[str, Any], key: str) -> list[str]:
    value = obj.get(key) or []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _columns_text(task: Task | TaskBrief | None) -> str:
    if task is None:
        return "(not given)"
    lines = [f"- {c.name}: {c.description}" for ds in task.datasets for c in ds.columns]
    return "\n".join(lines) or "(none)"


class LLMJudge:
    """DiscoveryBench-style hypothesis judge backed by a language model.

    Args:
        settings: ``collabsim.llm.client.LLMSettings`` (model, temperature 0 recommended;
            tests pass ``extra={"mock_response": ...}``).
        client: ``collabsim.llm.client.LLMClient`` (cache, budget); a fresh one when None.
        tag: Accounting tag of the calls.
    """

    def __init__(self, settings: Any, client: Any | None = None, tag: str = "judge") -> None:
        self.settings = settings
        self.client = client
        self.tag = tag
        self.name = f"llm:{settings.model}"

    def for_session(self, session_dir: Path) -> LLMJudge:
        """This judge with its calls logged in ``session_dir/judge.llm_calls.jsonl`` (tag
        ``judge``), where the session's cost columns and the viewer count them."""
        client = self.client if self.client is not None else _default_client()
        view = client.for_session(call_log_path=Path(session_dir) / JUDGE_CALL_LOG)
        return LLMJudge(self.settings, view, self.tag)

    def render(self, hypothesis: str, gold: str, task: Task | TaskBrief | None = None) -> str:
        """The prompt sent to the model."""
        return load_prompt("hypothesis_judge.txt").substitute(
            query=task.query if task is not None else "(not given)",
            columns=_columns_text(task),
            gold=gold,
            hypothesis=hypothesis,
        )

    def score(
        self, hypothesis: str, gold: str, task: Task | TaskBrief | None = None
    ) -> HypothesisScore:
        """Score a hypothesis against the gold with the model.

        Variable F1 = F1 of (matched_submitted / submitted, matched_gold / gold) from the
        model's lists (1.0 when the gold has no variables). An empty hypothesis scores 0
        without a model call.

        Raises:
            JudgeReplyError: The reply has no JSON object.
        """
        if not hypothesis or not hypothesis.strip():
            return HypothesisScore.zero(self.name, "empty hypothesis")
        obj = ask_json(self.render(hypothesis, gold, task), self.settings, self.client, self.tag)
        gold_vars, sub_vars = _names(obj, "gold_variables"), _names(obj, "submitted_variables")
        m_gold, m_sub = _names(obj, "matched_gold_variables"), _names(obj, "matched_submitted_variables")
        if not gold_vars:
            f1 = 1.0
        else:
            recall = min(1.0, len(m_gold) / len(gold_vars))
            precision = min(1.0, len(m_sub) / len(sub_vars)) if sub_vars else 0.0
            f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
        return HypothesisScore.combine(
            _num(obj, "context"),
            f1,
            _num(obj, "relation"),
            _num(obj, "context_recall", _num(obj, "context")),
            self.name,
            str(obj.get("rationale", "")),
        )
