"""Seeded archaeology-style tasks with planted, unambiguous events and one decisive fact each.

Each generated task is one folder ``real/test/gen_<i>/`` with ``metadata_0.json`` (one
query, DiscoveryBench format) and ``time_series_data.csv``: a ``CE`` column in 100-year
bins plus a dozen proxy series, each as a raw column ``X`` (with gaps) and a gap-filled
``X_inter``, and the pollen openness / growth-rate columns. One event is planted per task
(peak, n-th rise or fall, simultaneous change of two series, highest sustained values,
growth extreme inside a window) together with decoys that make the typical analysis
mistakes (wrong column variant, wrong occurrence, peak vs plateau, ignoring the window)
give a different answer. The gold hypothesis goes to ``eval/answer_key_real.csv`` and a
reference workflow graph to ``reference_workflows/gen_<i>/0/0.json``.

Since generator version 2 every task has exactly one **decisive fact**
(:class:`~collabsim.core.knowledge.Fact`, written under the query entry of
``metadata_0.json`` as ``"facts"``): half the tasks (even ``index + seed``) a *reading* of an
ambiguous term of the query (which occurrence, peak vs sustained values, the years of a
period named by name only), the other half a *data convention* (which of three gap-filled
dating variants of the asked series is valid). Without its fact a reader's default plan is
right only by chance; see :mod:`collabsim.tasks.generator_wording`.

Definitions (stated in each task's domain knowledge, used by the scripted analysis):
a significant change is a difference of at least :data:`THRESHOLD` between consecutive
100-year bins (an increase or decrease *event* is the first bin of a run of such changes);
sustained values span at least :data:`SUSTAIN_BINS` consecutive bins.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from collabsim.core.knowledge import Fact
from collabsim.domain.relations import ORDINAL_WORDS
from collabsim.domain.thresholds import SUSTAIN_BINS, THRESHOLD
from collabsim.domain.time_expr import year_text
from collabsim.domain.variables import GROWTH, PROXIES
from collabsim.tasks.generator_events import (
    CATEGORIES,
    SHAPES,
    VARIANTS,
    PlantedEvent,
    gap_filled,
    plant_task,
    raw_of,
)
from collabsim.tasks.generator_wording import VARIANT_LABELS, word_task
from collabsim.tasks.suite_cache import (
    SuiteTask,
    cached_suite,
    code_fingerprint,
    write_suite,
)

GENERATOR_VERSION = "2"
#: The kind of a task's decisive fact, by ``(index + seed) % 2``.
FACT_KINDS_CYCLE: tuple[str, ...] = ("reading", "convention")
DATA_FILE = "time_series_data.csv"

__all__ = [
    "CATEGORIES",
    "FACT_KINDS_CYCLE",
    "GENERATOR_VERSION",
    "SUSTAIN_BINS",
    "THRESHOLD",
    "GeneratedTask",
    "build_task",
    "default_suite_root",
    "generate_suite",
]


@dataclass(frozen=True)
class GeneratedTask:
    """One generated task before it is written to disk."""

    dataset: str
    event: PlantedEvent
    csv_text: str
    metadata: dict[str, Any]
    gold: str
    reference: dict[str, Any]
    fact: Fact


def generate_suite(root: Path, n_tasks: int = 38, seed: int = 0) -> Path:
    """Write a generated suite in the DiscoveryBench real layout.

    Args:
        root: Output folder (created; existing generated files are overwritten).
        n_tasks: Number of tasks.
        seed: Seed; the same seed gives byte-identical files.

    Returns:
        ``root``.
    """
    width = max(3, len(str(max(n_tasks - 1, 0))))
    tasks = (build_task(index, seed, f"gen_{index:0{width}d}") for index in range(n_tasks))
    return write_suite(
        root,
        (SuiteTask(t.dataset, DATA_FILE, t.csv_text, t.metadata, t.reference, t.gold)
         for t in tasks),
        ("real", "test"), "answer_key_real.csv",
        {"generator": "collabsim.tasks.generator", "generator_version": GENERATOR_VERSION,
         "seed": seed, "n_tasks": n_tasks},
    )


def generator_fingerprint() -> str:
    """The first 10 hex digits of the SHA-256 of the code that writes a suite: the generator
    modules, the domain vocabulary and thresholds they draw on, and the fact record."""
    package = Path(__file__).resolve().parents[1]
    sources = [*sorted((package / "tasks").glob("generator*.py")),
               package / "tasks" / "suite_cache.py",
               *sorted((package / "domain").glob("*.py")), package / "core" / "knowledge.py"]
    return code_fingerprint(sources)


def default_suite_root(n_tasks: int = 38, seed: int = 0) -> Path:
    """Return the cached built-in suite, generating it once (atomically) when absent.

    The cache lives under ``$COLLABSIM_CACHE_DIR`` (default ``~/.cache/collabsim``) in
    ``generated/v<version>-<code>-n<n>-s<seed>``, ``<code>`` being
    :func:`generator_fingerprint`: a suite cached by other generator code (an edited
    checkout, another release with the same version) is never reused.
    """
    name = f"v{GENERATOR_VERSION}-{generator_fingerprint()}-n{n_tasks}-s{seed}"
    return cached_suite("generated", name,
                        lambda folder: generate_suite(folder, n_tasks=n_tasks, seed=seed))


def build_task(index: int, seed: int, dataset: str) -> GeneratedTask:
    """Build task ``index`` of the suite with ``seed`` (independent of the suite size).

    The query shape cycles through :data:`SHAPES` and the fact kind through
    :data:`FACT_KINDS_CYCLE` with ``index + seed``; everything else is drawn from the task's
    own generator.
    """
    rng = np.random.default_rng([seed, index, 20261130])
    shape = SHAPES[(index + seed) % len(SHAPES)]
    kind = FACT_KINDS_CYCLE[(index + seed) % len(FACT_KINDS_CYCLE)]
    event, columns = plant_task(rng, shape, len(VARIANTS) if kind == "convention" else 1)
    query, gold, fact = word_task(rng, event, kind)
    csv_text = _csv_text(columns)
    metadata = _metadata(event, query, fact, list(columns))
    reference = _reference(f"{dataset}/0/0", event)
    return GeneratedTask(dataset, event, csv_text, metadata, gold, reference, fact)


# ---------------------------------------------------------------------------------- writers


def _fmt(value: float) -> str:
    if not np.isfinite(value):
        return ""
    text = f"{value:.3f}"
    return "0.000" if text == "-0.000" else text


def _csv_text(columns: dict[str, np.ndarray]) -> str:
    names = list(columns)
    lines = [",".join(names)]
    n = len(columns["CE"])
    for i in range(n):
        row = []
        for name in names:
            value = columns[name][i]
            row.append(str(int(value)) if name in ("CE", "calBP") else _fmt(float(value)))
        lines.append(",".join(row))
    return "\n".join(lines) + "\n"


def _description(name: str, variants: frozenset[str]) -> str:
    """Column description of a generated column (raw or gap-filled, per dating variant);
    ``variants``: the series that come in several dating variants (each variant, the
    standard one included, then says which dates it is on)."""
    fixed = {
        "CE": "Common Era year of the 100-year bin (BCE x (-1))",
        "calBP": "Calibrated years before present (1950 CE)",
        "pollen": "Landscape openness score from pollen (raw, with gaps)",
        "pollen_inter": "Interpolated (gap-filled) landscape openness score",
    }
    if name in fixed:
        return fixed[name]
    for var in (*PROXIES, GROWTH):
        what = (var.description if var is not GROWTH
                else "Growth rate of the openness score, percent per century")
        for variant in VARIANTS:
            label = f", {VARIANT_LABELS[variant]}" if var.key in variants else ""
            if name == raw_of(var.key, variant):
                return f"{what}{label} (raw, with gaps)"
            if name == gap_filled(var.key, variant):
                if var is GROWTH and not label:
                    return "Growth rate of the interpolated openness score, percent per century"
                return f"Interpolated (gap-filled) {what[0].lower()}{what[1:]}{label}"
    raise KeyError(name)


def _column_entries(names: list[str], variants: frozenset[str]) -> list[dict[str, str]]:
    return [{"name": name, "description": _description(name, variants)} for name in names]


def _metadata(event: PlantedEvent, query: str, fact: Fact, names: list[str]
              ) -> dict[str, Any]:
    first, last = year_text(event.first_year), year_text(event.last_year)
    knowledge = (
        "1. Symbolic capital consists of Hatchets & Swords, Daggers, House Size. 2. Social "
        "capital consists of Copper and Gold, Amber, Monument Count. 3. Cultural capital "
        "consists of Diversity of Pottery Form and Diversity of Pottery Decoration. 4. Economic "
        "capital consists of Depot, Sickle, Axes & Celts, Monument Size. "
        f"5. The time series is analysed in 100-year bins from {first} to {last}; the column "
        "CE gives the bin (negative values are BCE). "
        "6. Each proxy is given as a raw column X with gaps (bins without dated finds) and as "
        "an interpolated, gap-filled column X_inter; trends and events are read from the "
        "interpolated columns. Some series also come in other dating variants (X_recal, "
        "X_recal_inter on recalibrated dates; X_model, X_model_inter on the dates of the "
        "Bayesian site model); which variant is valid is a convention of the site. "
        f"7. A change of at least {THRESHOLD} z between consecutive centuries is a significant "
        "increase or decrease; smaller changes are noise. An increase (decrease) event is "
        "dated to the first century of such a change. "
        f"8. Sustained values last at least {SUSTAIN_BINS} consecutive centuries. "
        "9. Human impact on the landscape is reflected by the pollen openness score; its growth "
        "rate (pollen_grate_inter) is the percentage change per century of the interpolated "
        "openness score and signifies demographic growth."
    )
    description = (
        "Quantification of archaeological findings in 100-year bins, measured in z values for "
        "cultural and economic indicators (tools, house sizes, materials, monuments), and the "
        "pollen-based landscape openness score with its growth rate."
    )
    variants = frozenset(event.variables) if len(event.variants) > 1 else frozenset()
    tags = ("time series analysis, data cleaning, data visualization, pollen modelling"
            if event.relation.startswith("growth")
            else "time series analysis, data cleaning, data visualization")
    return {
        "id": 0,
        "domain": "humanities",
        "workflow_tags": tags,
        "domain_knowledge": knowledge,
        "datasets": [
            {"name": DATA_FILE, "description": description,
             "columns": {"raw": _column_entries(names, variants)}},
        ],
        "intermediate": [],
        "hypotheses": {"main": [{}], "intermediate": []},
        "queries": [[{"qid": 0, "question_type": "context", "question": query,
                      "facts": [fact.to_json()]}]],
    }


def _reference(task_id: str, event: PlantedEvent) -> dict[str, Any]:
    cols = list(event.columns)
    year = event.year
    load = (
        "import pandas as pd\n"
        f"df = pd.read_csv({DATA_FILE!r}).set_index('CE')\n"
    )
    selected = f"print(df[{cols!r}].to_string())\n"
    if event.relation in ("rise", "fall"):
        op = ">=" if event.relation == "rise" else "<="
        thr = THRESHOLD if event.relation == "rise" else -THRESHOLD
        compute = (
            f"d = df[{cols[0]!r}].diff()\nf = d {op} {thr}\n"
            "onsets = [int(c) for c, a, b in zip(f.index, f, f.shift(1, fill_value=False)) "
            "if a and not b]\n"
            f"print('{event.relation} events:', onsets)\n"
        )
        kw = ["diff"]
    elif event.relation == "peak":
        compute = f"print('peak:', int(df[{cols[0]!r}].idxmax()))\n"
        kw = ["max"]
    elif event.relation == "plateau":
        compute = (
            f"m = df[{cols[0]!r}].rolling({SUSTAIN_BINS}).min()\n"
            f"ok = m[m >= m.max() - 0.25]\nprint('sustained from:', int(ok.index[0]) - "
            f"{100 * (SUSTAIN_BINS - 1)})\n"
        )
        kw = ["rolling"]
    elif event.relation == "simultaneous":
        parts = []
        for col, direction in zip(cols, event.directions, strict=True):
            op = ">=" if direction == "up" else "<="
            thr = THRESHOLD if direction == "up" else -THRESHOLD
            parts.append(f"(df[{col!r}].diff() {op} {thr})")
        compute = (
            f"f = {' & '.join(parts)}\n"
            "onsets = [int(c) for c, a, b in zip(f.index, f, f.shift(1, fill_value=False)) "
            "if a and not b]\nprint('simultaneous events:', onsets)\n"
        )
        kw = ["diff"]
    else:
        lo, hi = event.window
        fn = "idxmax" if event.relation == "growth_max" else "idxmin"
        compute = (
            f"w = df.loc[{lo}:{hi}, {cols[0]!r}]\n"
            f"print('window {lo}..{hi}:', int(w.{fn}()))\n"
        )
        kw = ["max" if event.relation == "growth_max" else "min"]
    check_kw: list[str] = []
    if event.ordinal > 1 or event.relation in ("rise", "fall", "simultaneous"):
        check_kw = [ORDINAL_WORDS[event.ordinal]]
    if event.window is not None:
        check_kw = [str(-event.window[0]), str(-event.window[1])]
    if event.relation == "plateau":
        check_kw = ["sustained"]
    nodes = [
        {"id": "select", "kind": "evidence",
         "description": f"Load {DATA_FILE} and select the valid gap-filled column(s) {', '.join(cols)}",
         "keywords": cols, "evidence_code": load + selected, "expected_output": cols},
        {"id": "compute", "kind": "evidence",
         "description": f"Compute the {event.category.replace('_', ' ')} event on 100-year bins",
         "keywords": kw, "evidence_code": load + compute, "expected_output": [str(year)]},
        {"id": "check", "kind": "reasoning",
         "description": "Check the answer against the query: ordinal, direction, peak vs "
                        "sustained values and the bounded period",
         "keywords": check_kw, "evidence_code": None, "expected_output": []},
        {"id": "claim", "kind": "reasoning",
         "description": f"State the hypothesis dated to {year_text(year)}",
         "keywords": [str(-year)], "evidence_code": None, "expected_output": []},
    ]
    return {
        "task_id": task_id,
        "category": event.category,
        "nodes": nodes,
        "edges": [["select", "compute"], ["compute", "check"], ["check", "claim"],
                  ["compute", "claim"]],
        "paths": [["select", "compute", "check", "claim"], ["select", "compute", "claim"]],
        "completion": {
            "variables": list(event.variables),
            "relation": event.category,
            "years": [year],
            "tolerance_years": 100,
            "ordinal": event.ordinal,
            "directions": list(event.directions),
            "window": list(event.window) if event.window else None,
        },
    }

