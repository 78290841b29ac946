"""The data analysis scripted participants perform, as code cells they really execute.

Pipeline: :func:`parse_query` reads the query's semantics (variables via column names,
descriptions and synonyms; relation; ordinal; bounded period) -> :func:`resolve_plan` picks
the dataset and columns -> :class:`MistakeModel` may corrupt the plan (seeded, per session)
-> :func:`compute_cell` renders a self-contained pandas cell that **prints** a machine-readable
``RESULT ...`` line -> :func:`parse_result` reads the printed output back ->
:func:`draft_hypothesis` words the answer in archaeology style. Answers are earned from the
data: nothing here reads gold hypotheses or reference graphs.

Unknown query kinds (PCA, relationships, other domains) get the ``describe`` relation: a cell
printing per-column extremes and a cautious descriptive hypothesis - never a crash.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace

import numpy as np

from collabsim.tasks.model import TaskBrief
from collabsim.tasks.vocabulary import GROWTH, VARIABLES, year_text

THRESHOLD = 0.5
SUSTAIN_BINS = 3
PLATEAU_TOLERANCE = 0.25
INSPECT_MARK = "# collabsim analysis: inspect"
COMPUTE_MARK = "# collabsim analysis: compute"
RELATIONS = ("rise", "fall", "peak", "plateau", "simultaneous", "growth_max", "growth_min",
             "describe")
MISTAKE_KINDS = ("wrong_column_variant", "wrong_ordinal", "peak_vs_plateau", "wrong_window",
                 "ignore_teammate")
ORDINAL_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth"}
_RISE = r"increas\w*|ris(?:e|es|ing)|rose|grew|grow(?:s|ing)?|gain\w*"
_FALL = r"decreas\w*|declin\w*|fall\w*|fell|drop\w*|collaps\w*|dip\w*|stoop\w*|los(?:e|s)\w*"
_WINDOW_RE = re.compile(
    r"between\s+(\d{3,4})\s*(?:bce|bc)?\s*(?:and|to|&|-|–)\s*(\d{3,4})\s*(bce|bc|ce|ad)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QuerySemantics:
    """What a query asks.

    Attributes:
        relation: One of :data:`RELATIONS`.
        variables: Variable keys (vocabulary stems or column names), in order of mention.
        directions: ``"up"``/``"down"`` per variable (simultaneous changes only).
        ordinal: Which occurrence (1 = first).
        window: ``(start CE, end CE)`` with start < end, or None.
    """

    relation: str
    variables: tuple[str, ...]
    directions: tuple[str, ...] = ()
    ordinal: int = 1
    window: tuple[int, int] | None = None


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
        """Compact text identifying the computation (printed in RESULT lines)."""
        return (f"relation={self.relation} ordinal={self.ordinal} "
                f"columns={'+'.join(self.columns) or 'none'} window={format_window(self.window)}")


@dataclass(frozen=True)
class AnalysisResult:
    """A parsed ``RESULT`` line."""

    relation: str
    ordinal: int
    columns: tuple[str, ...]
    window: tuple[int, int] | None
    year: int | None
    value: float | None = None
    events: tuple[int, ...] = ()
    note: str = ""

    def key(self) -> str:
        """Same format as :meth:`AnalysisPlan.key`."""
        return (f"relation={self.relation} ordinal={self.ordinal} "
                f"columns={'+'.join(self.columns) or 'none'} window={format_window(self.window)}")


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

    @classmethod
    def from_mapping(cls, data: Mapping[str, float] | None) -> MistakeModel:
        """Build from a config mapping (unknown keys raise ValueError)."""
        data = dict(data or {})
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown mistake kinds: {sorted(unknown)}")
        return cls(**{k: float(v) for k, v in data.items()})

    def draw(self, seed: int, task_id: str) -> frozenset[str]:
        """Mistakes active in the session of ``task_id`` with ``seed`` (deterministic)."""
        rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, stable_hash(task_id), 4242])
        draws = rng.random(len(MISTAKE_KINDS))
        return frozenset(
            kind for kind, u in zip(MISTAKE_KINDS, draws, strict=True)
            if u < getattr(self, kind)
        )


def stable_hash(text: str) -> int:
    """A process-independent 32-bit hash (never Python's salted ``hash``)."""
    return zlib.crc32(text.encode("utf-8"))


def format_window(window: tuple[int, int] | None) -> str:
    """``(-3000, -2000)`` -> ``"-3000..-2000"``; None -> ``"none"``."""
    return "none" if window is None else f"{window[0]}..{window[1]}"


def parse_window(text: str) -> tuple[int, int] | None:
    """Inverse of :func:`format_window` (None for anything unparseable)."""
    match = re.fullmatch(r"\s*(-?\d+)\.\.(-?\d+)\s*", text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


# ------------------------------------------------------------------------- query semantics


def _variable_mentions(text: str) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, key) mentions of vocabulary variables, by position."""
    found: list[tuple[int, int, str]] = []
    for var in VARIABLES.values():
        for m in re.finditer(rf"\b(?:{var.pattern})", text, re.IGNORECASE):
            found.append((m.start(), m.end(), var.key))
    accepted: list[tuple[int, int, str]] = []
    for start, end, key in sorted(found, key=lambda f: (-(f[1] - f[0]), f[0])):
        if all(end <= s or start >= e for s, e, _ in accepted):
            accepted.append((start, end, key))
    return sorted(accepted)


def parse_query(brief: TaskBrief) -> QuerySemantics:
    """Read a query's semantics; unknown kinds become ``describe``.

    Args:
        brief: The task brief (query plus column descriptions).
    """
    text = brief.query
    low = text.lower()
    window = _window(low)
    mentions = _variable_mentions(text)
    keys: list[str] = []
    for _, _, key in mentions:
        if key not in keys:
            keys.append(key)
    ordinal = _ordinal(low)
    growth = re.search(GROWTH.pattern, low) is not None
    if growth:
        lowest = re.search(r"lowest|greatest decline|steepest decline|largest decline|"
                           r"strongest decline|\bdip\b|minimum", low)
        relation = "growth_min" if lowest else "growth_max"
        return QuerySemantics(relation, (GROWTH.key,), (), 1, window)
    proxies = [k for k in keys if k != GROWTH.key]
    if not proxies:
        return QuerySemantics("describe", (), (), ordinal, window)
    if "sustained" in low:
        return QuerySemantics("plateau", (proxies[0],), (), ordinal, window)
    simultaneous = re.search(r"simultan|at the same time|while|opposite|together", low)
    if len(proxies) >= 2 and simultaneous:
        directions = _directions(text, [m for m in mentions if m[2] in proxies])
        if directions is not None:
            return QuerySemantics("simultaneous", tuple(proxies), directions, ordinal, window)
    if re.search(r"peak|most frequent|highest|maximum|most common|largest", low):
        return QuerySemantics("peak", (proxies[0],), (), ordinal, window)
    rise = re.search(rf"\b(?:{_RISE})", low)
    fall = re.search(rf"\b(?:{_FALL})", low)
    if rise and (not fall or rise.start() < fall.start()):
        return QuerySemantics("rise", (proxies[0],), (), ordinal, window)
    if fall:
        return QuerySemantics("fall", (proxies[0],), (), ordinal, window)
    return QuerySemantics("describe", tuple(proxies), (), ordinal, window)


def _window(low: str) -> tuple[int, int] | None:
    match = _WINDOW_RE.search(low)
    if not match:
        return None
    a, b = int(match.group(1)), int(match.group(2))
    sign = 1 if (match.group(3) or "bce") in ("ce", "ad") else -1
    lo, hi = sorted((sign * a, sign * b))
    return (lo, hi) if lo != hi else None


def _ordinal(low: str) -> int:
    words = "|".join(ORDINAL_WORDS.values())
    match = re.search(rf"\b({words})\s+(?:time|occurrence|instance)", low)
    if not match:
        return 1
    return {w: n for n, w in ORDINAL_WORDS.items()}[match.group(1)]


def _directions(text: str, mentions: list[tuple[int, int, str]]) -> tuple[str, ...] | None:
    """Direction per variable: the first direction word between one of its mentions and the
    next variable mention; else the first direction word after its first mention."""
    words = [(m.start(), "up") for m in re.finditer(rf"\b(?:{_RISE})\b", text, re.IGNORECASE)]
    words += [(m.start(), "down")
              for m in re.finditer(rf"\b(?:{_FALL})\b", text, re.IGNORECASE)]
    words.sort()
    order: list[str] = []
    for _, _, key in mentions:
        if key not in order:
            order.append(key)
    result: dict[str, str] = {}
    for i, (_, end, key) in enumerate(mentions):
        if key in result:
            continue
        limit = mentions[i + 1][0] if i + 1 < len(mentions) else len(text)
        between = [d for pos, d in words if end <= pos < limit]
        if between:
            result[key] = between[0]
    for key in order:
        if key not in result:
            first_end = next(end for _, end, k in mentions if k == key)
            after = [d for pos, d in words if pos >= first_end]
            if not after:
                return None
            result[key] = after[0]
    return tuple(result[k] for k in order)


# ------------------------------------------------------------------------------- planning


def resolve_plan(brief: TaskBrief, semantics: QuerySemantics) -> AnalysisPlan:
    """Pick the dataset and (correct, gap-filled) columns for the semantics."""
    if not brief.datasets:
        return AnalysisPlan("describe", "", ())
    chosen: list[str] = []
    raw: list[str] = []
    dataset = ""
    for key in semantics.variables:
        for info in brief.datasets:
            names = [c.name for c in info.columns]
            column, raw_column = _pick_column(key, names, info)
            if column and (not dataset or dataset == info.name):
                dataset = info.name
                chosen.append(column)
                if raw_column:
                    raw.append(raw_column)
                break
    if not chosen:
        return AnalysisPlan("describe", brief.datasets[0].name, (), (), semantics.ordinal,
                            semantics.window)
    directions = semantics.directions[: len(chosen)] if semantics.directions else ()
    relation = semantics.relation
    if relation == "simultaneous" and len(chosen) < 2:
        relation = "describe"
    return AnalysisPlan(relation, dataset, tuple(chosen), directions, semantics.ordinal,
                        semantics.window, tuple(raw))


def _pick_column(key: str, names: list[str], info: object) -> tuple[str | None, str | None]:
    """(best column, raw variant or None) for a variable key within one dataset."""
    if key == GROWTH.key:
        for candidate in (f"{key}_inter", "pollen_grate_100", key):
            if candidate in names:
                return candidate, (key if candidate != key and key in names else None)
        for col in getattr(info, "columns", ()):
            if re.search(r"growth rate|percentage change", col.description, re.IGNORECASE):
                return col.name, None
        return None, None
    if f"{key}_inter" in names:
        return f"{key}_inter", (key if key in names else None)
    if key in names:
        return key, None
    return None, None


def apply_mistakes(plan: AnalysisPlan, mistakes: Iterable[str]) -> AnalysisPlan:
    """Corrupt a plan with the drawn mistakes that apply to it."""
    active = set(mistakes)
    if "wrong_column_variant" in active and plan.raw_columns:
        raw = tuple(
            c.removesuffix("_inter") if c.removesuffix("_inter") in plan.raw_columns else c
            for c in plan.columns
        )
        plan = replace(plan, columns=raw)
    if "wrong_ordinal" in active and plan.relation in ("rise", "fall", "simultaneous"):
        plan = replace(plan, ordinal=1 if plan.ordinal >= 2 else 2)
    if "peak_vs_plateau" in active and plan.relation in ("peak", "plateau"):
        plan = replace(plan, relation="plateau" if plan.relation == "peak" else "peak")
    if "wrong_window" in active and plan.window is not None:
        plan = replace(plan, window=None)
    return plan


# ------------------------------------------------------------------------------ code cells

_PRELUDE = '''import os
import re
import pandas as pd


def _read(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        head = fh.read(65536)
    if re.search(r'"-?\\d+,\\d+', head):
        return pd.read_csv(path, decimal=",")
    return pd.read_csv(path)


def _bins(df):
    if "CE" in df.columns:
        year = pd.to_numeric(df["CE"], errors="coerce")
    elif "BCE" in df.columns:
        year = -pd.to_numeric(df["BCE"], errors="coerce")
    else:
        year = pd.Series(range(len(df)), index=df.index, dtype=float)
    t = df.assign(_year=year).dropna(subset=["_year"])
    step = t["_year"].diff().abs().median()
    if step == step and step < 100:
        t = t[t["_year"] % 100 == 0]
    t = t.drop_duplicates("_year").sort_values("_year")
    t["_year"] = t["_year"].astype(int)
    return t.set_index("_year")


_TABLES = globals().setdefault("_collabsim_tables", {})


def _table(path, df=None):
    # Like a notebook, load and bin a file once per session; re-read if the file changes.
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    if key not in _TABLES:
        _TABLES[key] = _bins(_read(path) if df is None else df)
    return _TABLES[key]


def _onsets(flag):
    before = flag.shift(1, fill_value=False)
    return [int(y) for y, now, prev in zip(flag.index, flag, before) if now and not prev]
'''


def inspect_cell(plan: AnalysisPlan) -> str:
    """A cell loading the dataset and printing its shape, bins and gaps of the columns."""
    return (
        f"{INSPECT_MARK}\n{_PRELUDE}\n"
        f"df = _read({plan.dataset!r})\n"
        f"t = _table({plan.dataset!r}, df)\n"
        "print('rows', len(df), 'bins', len(t), 'from', t.index.min(), 'to', t.index.max())\n"
        f"for col in {list(plan.columns) + list(plan.raw_columns)!r}:\n"
        "    if col in t.columns:\n"
        "        s = pd.to_numeric(t[col], errors='coerce')\n"
        "        print(col, 'missing bins:', int(s.isna().sum()), 'max', round(float(s.max()), 3),"
        " 'min', round(float(s.min()), 3))\n"
    )


def compute_cell(plan: AnalysisPlan) -> str:
    """A self-contained cell computing the plan's answer and printing a ``RESULT`` line."""
    head = (
        f"{COMPUTE_MARK}\n{_PRELUDE}\n"
        f"PLAN = {plan.key()!r}\n"
        f"COLS = {list(plan.columns)!r}\n"
        f"WINDOW = {plan.window!r}\n"
        f"ORDINAL = {plan.ordinal}\n"
        # The session's sandbox keeps its namespace: a file already loaded by an earlier
        # cell (inspect, a teammate's check) is reused instead of re-read and re-binned,
        # which was most of a compute cell's time. The answer is still computed here.
        f"t = _table({plan.dataset!r})\n"
        "data = t[COLS].apply(pd.to_numeric, errors='coerce')\n"
        "if WINDOW is not None:\n"
        "    data = data.loc[WINDOW[0]:WINDOW[1]]\n"
        "s = data[COLS[0]] if COLS else None\n"
        "year, value, events, evidence = None, None, [], ''\n"
    )
    body = _relation_code(plan)
    tail = (
        "ev = ','.join(str(e) for e in events) or 'none'\n"
        "val = 'nan' if value is None or value != value else f'{value:.3f}'\n"
        "print(f'RESULT {PLAN} year={year if year is not None else \"none\"} value={val} "
        "events={ev}')\n"
        "print(evidence)\n"
    )
    return head + body + tail


def _relation_code(plan: AnalysisPlan) -> str:
    thr, k = THRESHOLD, SUSTAIN_BINS
    if plan.relation in ("rise", "fall"):
        op = f">= {thr}" if plan.relation == "rise" else f"<= -{thr}"
        return (
            "d = s.diff()\n"
            f"events = _onsets(d {op})\n"
            "if len(events) >= ORDINAL:\n"
            "    year = events[ORDINAL - 1]\n"
            "    value = float(s.loc[year])\n"
            "evidence = 'changes: ' + ', '.join(f'{y}: {c:+.2f}' for y, c in d.dropna().items()"
            f" if abs(c) >= {thr})\n"
        )
    if plan.relation == "simultaneous":
        dirs = list(plan.directions) or ["down"] * len(plan.columns)
        return (
            f"DIRS = {dirs!r}\n"
            "flag = None\n"
            "for col, direction in zip(COLS, DIRS):\n"
            "    d = data[col].diff()\n"
            f"    f = (d >= {thr}) if direction == 'up' else (d <= -{thr})\n"
            "    flag = f if flag is None else (flag & f)\n"
            "events = _onsets(flag)\n"
            "if len(events) >= ORDINAL:\n"
            "    year = events[ORDINAL - 1]\n"
            "    value = float(s.loc[year])\n"
            "evidence = 'joint changes at: ' + ', '.join(str(e) for e in events)\n"
        )
    if plan.relation in ("peak", "growth_max", "growth_min"):
        fn = "idxmin" if plan.relation == "growth_min" else "idxmax"
        asc = "True" if plan.relation == "growth_min" else "False"
        return (
            "if s.notna().any():\n"
            f"    year = int(s.{fn}())\n"
            "    value = float(s.loc[year])\n"
            f"top = s.dropna().sort_values(ascending={asc}).head(3)\n"
            "evidence = 'top bins: ' + ', '.join(f'{y}: {v:.2f}' for y, v in top.items())\n"
        )
    if plan.relation == "plateau":
        return (
            f"m = s.rolling({k}).min()\n"
            "if m.notna().any():\n"
            f"    ok = m[m >= m.max() - {PLATEAU_TOLERANCE}]\n"
            "    pos = list(s.index).index(ok.index[0])\n"
            f"    year = int(s.index[pos - {k - 1}])\n"
            "    value = float(m.max())\n"
            f"evidence = 'highest {k}-bin minimum: ' + ', '.join(f'{{y}}: {{v:.2f}}' "
            "for y, v in m.dropna().sort_values(ascending=False).head(3).items())\n"
        )
    return (
        "parts = []\n"
        "for col in data.columns:\n"
        "    c = data[col].dropna()\n"
        "    if len(c):\n"
        "        parts.append(f'{col}: max at {int(c.idxmax())}, min at {int(c.idxmin())}')\n"
        "evidence = '; '.join(parts) or 'no numeric column selected'\n"
    )


# -------------------------------------------------------------------------- reading output

_RESULT_RE = re.compile(r"^RESULT (.*)$", re.MULTILINE)


def parse_result(output: str) -> AnalysisResult | None:
    """Read the last ``RESULT`` line of a cell's output (None when there is none)."""
    lines = _RESULT_RE.findall(output or "")
    if not lines:
        return None
    pairs = dict(re.findall(r"(\w+)=(\S+)", lines[-1]))
    try:
        year = None if pairs.get("year", "none") == "none" else int(pairs["year"])
        value = float(pairs["value"]) if pairs.get("value", "nan") != "nan" else None
        events = tuple(int(e) for e in pairs.get("events", "none").split(",") if e != "none")
        return AnalysisResult(
            relation=pairs.get("relation", "describe"),
            ordinal=int(pairs.get("ordinal", "1")),
            columns=tuple(c for c in pairs.get("columns", "none").split("+") if c != "none"),
            window=parse_window(pairs.get("window", "none")),
            year=year,
            value=value,
            events=events,
        )
    except (KeyError, ValueError):
        return None


# --------------------------------------------------------------------------------- drafting


def variable_phrase(column: str) -> str:
    """Noun phrase for a column (vocabulary phrase, else the column name)."""
    stem = column.removesuffix("_inter")
    if stem in VARIABLES:
        return VARIABLES[stem].phrases[0]
    if column.startswith("pollen_grate"):
        return GROWTH.phrases[0]
    return column


def draft_hypothesis(result: AnalysisResult | None, semantics: QuerySemantics) -> str:
    """Word a result as an archaeology-style hypothesis (cautious when there is no year)."""
    if result is None or result.year is None or not result.columns:
        return fallback_hypothesis(semantics, result)
    when = year_text(result.year)
    x = variable_phrase(result.columns[0])
    nth = ORDINAL_WORDS.get(result.ordinal, f"{result.ordinal}th")
    if result.relation == "rise":
        return f"Around {when}, {x} began to increase for the {nth} time."
    if result.relation == "fall":
        return f"Around {when}, {x} decreased for the {nth} time."
    if result.relation == "peak":
        return f"Around {when}, {x} peaked."
    if result.relation == "plateau":
        return f"{x[:1].upper()}{x[1:]} begins to show its highest sustained values around {when}."
    if result.relation == "simultaneous" and len(result.columns) >= 2:
        y = variable_phrase(result.columns[1])
        dirs = semantics.directions or ("down", "down")
        if tuple(dirs[:2]) == ("down", "down"):
            return (f"Around {when}, {x} and {y} significantly decreased simultaneously for the "
                    f"{nth} time.")
        past = {"up": "increased", "down": "declined"}
        return (f"Around {when}, {x} {past[dirs[0]]} while {y} {past[dirs[1]]} simultaneously "
                f"for the {nth} time.")
    if result.relation in ("growth_max", "growth_min"):
        extreme = "highest" if result.relation == "growth_max" else "lowest"
        if result.window is None:
            scope = "of the whole observed record"
        else:
            scope = (f"of the period between {-result.window[0]} and {-result.window[1]} BCE"
                     if result.window[1] < 0 else
                     f"of the period between {year_text(result.window[0])} and "
                     f"{year_text(result.window[1])}")
        return f"Around {when}, the growth rate reached its {extreme} value {scope}."
    return fallback_hypothesis(semantics, result)


def fallback_hypothesis(semantics: QuerySemantics, result: AnalysisResult | None) -> str:
    """A cautious descriptive hypothesis for queries the scripted analysis cannot settle."""
    names = [variable_phrase(c) for c in (result.columns if result else ())] or [
        variable_phrase(v) for v in semantics.variables
    ]
    subject = " and ".join(names) if names else "the recorded indicators"
    return (f"The data do not allow a definite answer with a standard time-series check; "
            f"tentatively, the series of {subject} show no single clear event matching the "
            "question, and the pattern should be treated as uncertain.")
