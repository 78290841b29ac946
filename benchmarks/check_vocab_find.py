"""Check that the fast variable lookup finds exactly what the plain scan finds, on a real run.

Reads a finished ``collabsim run`` job folder, recomputes its metrics while recording every
text the metrics hand to :meth:`VariableLexicon.find`, adds every string of every trace event
(drafts, messages, code, outputs) and every submitted hypothesis, and compares the fast
lookup with the plain one (every pattern scanned over the whole text) on each text, for
every lexicon the metrics used. Prints the number of texts compared and any difference
(exit code 1 when one differs).

    python benchmarks/check_vocab_find.py /path/to/job_folder
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

from collabsim.domain.variables import _WORDED_LEXICON, VariableLexicon
from collabsim.experiment.job import plan_job
from collabsim.experiment.results_table import summarise
from collabsim.experiment.store import ResultStore


def plain_find(patterns: tuple[tuple[re.Pattern[str], str], ...], text: str
               ) -> list[tuple[int, int, str]]:
    """The plain lookup: every pattern scanned over the whole text (the reference the fast
    lookup must equal)."""
    hits = [(m.start(), m.end(), canon) for pat, canon in patterns for m in pat.finditer(text)]
    hits.sort(key=lambda h: (-(h[1] - h[0]), h[0]))
    taken: list[tuple[int, int, str]] = []
    for h in hits:
        if all(h[1] <= t[0] or h[0] >= t[1] for t in taken):
            taken.append(h)
    return sorted(taken)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job", type=Path)
    args = parser.parse_args()
    cfg = yaml.safe_load((args.job / ".hydra" / "config.yaml").read_text(encoding="utf-8"))
    job = plan_job(cfg)
    store = ResultStore(Path(cfg["run"]["store"] or args.job))
    results = [store.load(p) for p in job.plans]
    if any(r is None for r in results):
        print(f"{args.job}: not every session has a stored result", file=sys.stderr)
        return 2
    recorded: dict[int, tuple[VariableLexicon, set[str]]] = {}
    fast_find = VariableLexicon.find

    def recording_find(self: VariableLexicon, text: str) -> list[tuple[int, int, str]]:
        recorded.setdefault(id(self), (self, set()))[1].add(text)
        return fast_find(self, text)

    VariableLexicon.find = recording_find  # type: ignore[method-assign]
    try:
        summarise(job.plans, results, store, job.tasks, show_sessions=False)
    finally:
        VariableLexicon.find = fast_find  # type: ignore[method-assign]
    trace_texts: set[str] = {r.submitted_hypothesis or "" for r in results}
    for plan in job.plans:
        for line in store.trace_path(plan).read_text(encoding="utf-8").splitlines():
            trace_texts.update(_strings(json.loads(line)))
    lexicons = [lex for lex, _ in recorded.values()] + [_WORDED_LEXICON]
    compared = differ = 0
    for lex in lexicons:
        texts = recorded.get(id(lex), (lex, set()))[1] | trace_texts
        for text in texts:
            lex._cache.clear()  # compare the computation, not a cached answer
            compared += 1
            if lex.find(text) != plain_find(lex.patterns, text):
                differ += 1
                print(f"DIFFERENT: {text[:120]!r}")
    n_recorded = sum(len(t) for _, t in recorded.values())
    print(f"lexicons={len(lexicons)} texts recorded from the metrics={n_recorded} "
          f"trace strings={len(trace_texts)} comparisons={compared} different={differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
