"""Model usage and cost of finished runs, from their call logs.

``python -m collabsim.llm.costs RUN_DIR...`` prints calls, cache hits, failures, tokens, cost
(price of every reply used) and billed cost (replies fetched from a provider) per participant
tag and in total, summed over every ``*llm_calls.jsonl`` under the given folders.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from collabsim.llm.calllog import summarize_call_logs


def find_call_logs(root: Path) -> list[Path]:
    """All call logs (``*llm_calls.jsonl``) under ``root`` (or ``root`` itself), sorted."""
    root = Path(root)
    if root.is_file():
        return [root]
    return sorted(root.rglob("*llm_calls.jsonl"))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m collabsim.llm.costs DIR...``: print model usage and cost per participant."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m collabsim.llm.costs",
        description="Sum tokens and cost of the LLM call logs under the given folders.",
    )
    parser.add_argument("roots", nargs="+", type=Path, help="run folders or call-log files")
    args = parser.parse_args(argv)
    paths = [p for root in args.roots for p in find_call_logs(root)]
    ledger = summarize_call_logs(paths)
    print(f"{len(paths)} call log(s)")
    header = f"{'tag':<12}{'calls':>7}{'cached':>8}{'failed':>8}{'tokens':>11}{'cost $':>12}{'billed $':>12}"
    print(header)
    rows = [*sorted(ledger.by_tag.items()), ("TOTAL", ledger.total)]
    for tag, usage in rows:
        print(f"{tag:<12}{usage.calls:>7}{usage.cached_calls:>8}{usage.failed_calls:>8}"
              f"{usage.total_tokens:>11}{usage.cost_usd:>12.6f}{usage.billed_usd:>12.6f}")
    if ledger.total.unknown_cost_calls:
        print(f"note: {ledger.total.unknown_cost_calls} call(s) used a model without a known "
              "price (counted as $0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
