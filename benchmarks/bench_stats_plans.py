"""How often the scripted reader's statistical plan is the right one, on the generated suite.

Generates the statistical suite (``--tasks`` tasks, ``--seed``) into a temporary folder,
reads every task's brief as the agent sees it under a knowledge split (``everyone``: the
task's decisive fact held; ``none``: no fact held) with
:func:`collabsim.participants.stats_reading.read_stat_brief`, and compares the plan with the
right one recorded in the task's reference workflow (``completion.plan.key``). The reference
workflows are read here, for evaluation only; the reader never sees them.

Prints, per shape, how many plans are right as a whole and per part (target, predictors,
controls, filters, analysis, interaction), and the wrong plans with ``--show``.

    python benchmarks/bench_stats_plans.py [--tasks 108] [--seed 0] [--facts everyone|none]
        [--show]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from collabsim.core.knowledge import KnowledgeSplit, knowledge_split
from collabsim.participants.stats_reading import read_stat_brief
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.stats_generator import generate_stats_suite

PARTS = ("target", "predictors", "controls", "filters", "analysis", "interaction")
NOBODY = KnowledgeSplit("custom", (("reading", frozenset()), ("convention", frozenset()),
                                   ("domain", frozenset({"agent", "D", "R"}))))


def _parts(key: str) -> dict[str, str]:
    """``analysis=ols target=y ...`` -> {part: value} (filters may hold spaces)."""
    out: dict[str, str] = {}
    name = ""
    for word in key.split(" "):
        if "=" in word and word.split("=", 1)[0] in PARTS:
            name, value = word.split("=", 1)
            out[name] = value
        elif name:
            out[name] += " " + word
    out.setdefault("interaction", "")
    return out


def evaluate(root: Path, facts: str, show: bool) -> int:
    """Print the plan accuracy per shape; return the number of right plans."""
    report = load_tasks(root)
    split = knowledge_split("everyone") if facts == "everyone" else NOBODY
    right: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    part_right: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    wrong: list[str] = []
    for task in report.tasks:
        ref = json.loads(Path(task.reference_workflow_path).read_text())
        shape = ref["completion"]["shape"]
        gold = _parts(ref["completion"]["plan"]["key"])
        _, plan = read_stat_brief(task.brief("agent", split))
        got = _parts(plan.key())
        total[shape] += 1
        ok = all(got[p] == gold[p] for p in PARTS)
        right[shape] += ok
        for p in PARTS:
            part_right[shape][p] += got[p] == gold[p]
        if not ok and show:
            wrong.append(f"{task.task_id} [{shape}] {task.query}\n   got  {plan.key()}\n"
                         f"   want {ref['completion']['plan']['key']}")
    print(f"facts held: {facts}; {len(report.tasks)} tasks under {root}")
    print(f"{'shape':<18} {'right':>7}  " + "  ".join(f"{p:>11}" for p in PARTS))
    for shape in sorted(total):
        print(f"{shape:<18} {right[shape]:>3}/{total[shape]:<3}  "
              + "  ".join(f"{part_right[shape][p]:>7}/{total[shape]:<3}" for p in PARTS))
    n_right, n = sum(right.values()), sum(total.values())
    print(f"{'all':<18} {n_right:>3}/{n:<3}  ({100 * n_right / max(n, 1):.0f} %)")
    for line in wrong:
        print(line)
    return n_right


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=108)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--facts", choices=("everyone", "none"), default="everyone")
    parser.add_argument("--show", action="store_true", help="print the wrong plans")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = generate_stats_suite(Path(tmp) / "suite", n_tasks=args.tasks, seed=args.seed)
        evaluate(root, args.facts, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
