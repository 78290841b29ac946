"""Planning the computation: dataset and columns for a query, and the agent's mistakes.

:func:`resolve_plan` picks the dataset and the gap-filled (``*_inter``) columns for a query's
semantics; :class:`MistakeModel` draws the session's realistic mistakes and
:func:`apply_mistakes` corrupts the plan with them; :meth:`AnalysisPlan.with_fix` applies a
teammate's suggested fix.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace

import numpy as np

from collabsim.domain.time_expr import format_window, parse_window
from collabsim.domain.variables import (
    GROWTH,
    column_stem,
    gap_filled_column,
    is_gap_filled,
    raw_column,
)
from collabsim.participants.query import QuerySemantics
from collabsim.tasks.model import DatasetInfo, TaskBrief

RELATIONS = ("rise", "fall", "peak", "plateau", "simultaneous", "growth_max", "growth_min",
             "describe")
# New kinds go at the end: the draw order keeps earlier kinds' draws unchanged.
MISTAKE_KINDS = ("wrong_column_variant", "wrong_ordinal", "peak_vs_plateau", "wrong_window",
                 "ignore_teammate", "misread_query")
# The plan parameter each kind changes (apply_mistakes, misread_semantics); ignore_teammate
# changes none. A held fact fixing a parameter settles its kinds (asking.settled_kinds).
MISTAKE_PARAMETER: dict[str, str] = {
    "wrong_column_variant": "column", "wrong_ordinal": "ordinal", "peak_vs_plateau": "relation",
    "wrong_window": "window", "misread_query": "relation"}
# misread_query: reading the query's direction the wrong way round
MISREAD_RELATIONS = {"rise": "fall", "fall": "rise", "growth_max": "growth_min",
                     "growth_min": "growth_max", "peak": "plateau", "plateau": "peak"}


def computation_key(relation: str, ordinal: int, columns: tuple[str, ...],
                    window: tuple[int, int] | None) -> str:
    """Compact text identifying a computation (printed in ``RESULT`` lines)."""
    return (f"relation={relation} ordinal={ordinal} "
            f"columns={'+'.join(columns) or 'none'} window={format_window(window)}")


@dataclass(frozen=True)
class AnalysisPlan:
    """A concrete computation: which file, columns and event definition."""

    relation: str
    dataset: str
    columns: tuple[str, ...]
    directions: tuple[str, ...] = ()
    ordinal: int = 1
    window: tuple[int, int] | None = None
    raw_columns: tuple[str, ...] = ()

    def with_fix(self, fix: Mapping[str, str]) -> AnalysisPlan:
        """Return the plan with a teammate's suggested parameters applied."""
        changes: dict[str, object] = {}
        if "column" in fix:
            changes["columns"] = tuple(c for c in fix["column"].split("+") if c)
        if "ordinal" in fix and fix["ordinal"].isdigit():
            changes["ordinal"] = int(fix["ordinal"])
        if "relation" in fix and fix["relation"] in RELATIONS:
            changes["relation"] = fix["relation"]
        if "window" in fix:
            changes["window"] = parse_window(fix["window"])
        return replace(self, **changes)  # type: ignore[arg-type]

    def key(self) -> str:
        """Compact text identifying the computation (see :func:`computation_key`)."""
        return computation_key(self.relation, self.ordinal, self.columns, self.window)


@dataclass(frozen=True)
class MistakeModel:
    """Probabilities of the scripted agent's realistic mistakes (all 0 = off).

    Drawn once per session from ``(seed, task_id)``; a drawn mistake only takes effect where
    it applies (e.g. ``wrong_window`` needs a bounded period in the query).
    """

    wrong_column_variant: float = 0.0
    wrong_ordinal: float = 0.0
    peak_vs_plateau: float = 0.0
    wrong_window: float = 0.0
    ignore_teammate: float = 0.0
    misread_query: float = 0.0
    # the statistical family's kinds (collabsim.participants.stat_mistakes), drawn from a
    # stream of their own by stat_mistakes.agent_stat_mistakes: the time-series draws above stay unchanged
    wrong_variable: float = 0.0
    omitted_control: float = 0.0
    wrong_subgroup: float = 0.0
    linear_for_binary: float = 0.0
    direction_misread: float = 0.0
    significance_ignored: float = 0.0

    @classmethod
    def from_mapping(cls, data: Mapping[str, object] | None) -> MistakeModel:
        """Build from a config mapping (unknown keys raise ValueError); a rate is a number
        or ``{value: ..., source: ...}``."""
        data = dict(data or {})
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown mistake kinds: {sorted(unknown)}")
        return cls(**{k: mistake_rate(v) for k, v in data.items()})

    def draw(self, seed: int, task_id: str) -> frozenset[str]:
        """Mistakes active in the session of ``task_id`` with ``seed`` (deterministic)."""
        rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, stable_hash(task_id), 4242])
        draws = rng.random(len(MISTAKE_KINDS))
        return frozenset(
            kind for kind, u in zip(MISTAKE_KINDS, draws, strict=True)
            if u < getattr(self, kind)
        )


def mistake_rate(raw: object) -> float:
    """A mistake probability written as a number or as ``{value, source}``."""
    if isinstance(raw, Mapping):
        raw = raw.get("value")
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError(f"a mistake rate must be a number, got {raw!r}")
    return float(raw)


def stable_hash(text: str) -> int:
    """A process-independent 32-bit hash (never Python's salted ``hash``)."""
    return zlib.crc32(text.encode("utf-8"))


def seeded_rng(seed: int, *parts: object) -> np.random.Generator:
    """A generator seeded from ``(seed, stable hashes of parts)``."""
    return np.random.default_rng(
        [int(seed) & 0xFFFFFFFF, *(stable_hash(str(p)) for p in parts)])


def resolve_plan(brief: TaskBrief, semantics: QuerySemantics) -> AnalysisPlan:
    """Pick the dataset and (correct, gap-filled) columns for the semantics.

    By default the standard gap-filled variant ``X_inter`` of each asked series; a held
    ``column`` fact of the brief (a data convention, see :mod:`collabsim.core.knowledge`)
    replaces it with the variant the fact names as valid.
    """
    if not brief.datasets:
        return AnalysisPlan("describe", "", ())
    chosen: list[str] = []
    raw: list[str] = []
    dataset = ""
    for key in semantics.variables:
        for info in brief.datasets:
            names = [c.name for c in info.columns]
            column, raw_variant = _pick_column(key, names, info)
            if column and (not dataset or dataset == info.name):
                dataset = info.name
                chosen.append(column)
                if raw_variant:
                    raw.append(raw_variant)
                break
    if not chosen:
        return AnalysisPlan("describe", brief.datasets[0].name, (), (), semantics.ordinal,
                            semantics.window)
    if brief.facts:
        chosen, raw = _held_columns(brief, dataset, chosen, raw)
    directions = semantics.directions[: len(chosen)] if semantics.directions else ()
    relation = semantics.relation
    if relation == "simultaneous" and len(chosen) < 2:
        relation = "describe"
    return AnalysisPlan(relation, dataset, tuple(chosen), directions, semantics.ordinal,
                        semantics.window, tuple(raw))


def _held_columns(brief: TaskBrief, dataset: str, chosen: list[str], raw: list[str]
                  ) -> tuple[list[str], list[str]]:
    """The chosen columns with the variants a held ``column`` fact names as valid (a named
    column replaces the chosen column of the same series; names absent from the dataset are
    ignored), and their raw columns."""
    names = {c.name for d in brief.datasets if d.name == dataset for c in d.columns}
    valid = {column_stem(c): c for fact in brief.facts
             for c in fact.fix.get("column", "").split("+") if c in names}
    if not valid:
        return chosen, raw
    columns = [valid.get(column_stem(c), c) for c in chosen]
    if columns == chosen:
        return chosen, raw
    raws = [raw_column(c) for c in columns if is_gap_filled(c) and raw_column(c) in names]
    return columns, raws


def _pick_column(key: str, names: list[str], info: DatasetInfo) -> tuple[str | None, str | None]:
    """(best column, raw variant or None) for a variable key within one dataset."""
    if key == GROWTH.key:
        for candidate in (gap_filled_column(key), "pollen_grate_100", key):
            if candidate in names:
                return candidate, (key if candidate != key and key in names else None)
        for col in info.columns:
            if re.search(r"growth rate|percentage change", col.description, re.IGNORECASE):
                return col.name, None
        return None, None
    if gap_filled_column(key) in names:
        return gap_filled_column(key), (key if key in names else None)
    if key in names:
        return key, None
    return None, None


def apply_mistakes(plan: AnalysisPlan, mistakes: Iterable[str]) -> AnalysisPlan:
    """Corrupt a plan with the drawn mistakes that apply to it."""
    active = set(mistakes)
    if "wrong_column_variant" in active and plan.raw_columns:
        raw = tuple(
            raw_column(c) if raw_column(c) in plan.raw_columns else c
            for c in plan.columns
        )
        plan = replace(plan, columns=raw)
    if "wrong_ordinal" in active and plan.relation in ("rise", "fall", "simultaneous"):
        plan = replace(plan, ordinal=1 if plan.ordinal >= 2 else 2)
    if "peak_vs_plateau" in active and plan.relation in ("peak", "plateau"):
        plan = replace(plan, relation="plateau" if plan.relation == "peak" else "peak")
    if "wrong_window" in active and plan.window is not None:
        plan = replace(plan, window=None)
    if "misread_query" in active and plan.relation in MISREAD_RELATIONS:
        plan = replace(plan, relation=MISREAD_RELATIONS[plan.relation])
    return plan


def misread_semantics(semantics: QuerySemantics, mistakes: Iterable[str]) -> QuerySemantics:
    """A reader's mistaken understanding of the query (R's own misreadings)."""
    active = set(mistakes)
    if "wrong_ordinal" in active and semantics.relation in ("rise", "fall", "simultaneous"):
        semantics = replace(semantics, ordinal=1 if semantics.ordinal >= 2 else 2)
    if "peak_vs_plateau" in active and semantics.relation in ("peak", "plateau"):
        semantics = replace(semantics, relation="plateau" if semantics.relation == "peak"
                            else "peak")
    if "wrong_window" in active and semantics.window is not None:
        semantics = replace(semantics, window=None)
    if "misread_query" in active and semantics.relation in MISREAD_RELATIONS:
        semantics = replace(semantics, relation=MISREAD_RELATIONS[semantics.relation])
    return semantics
