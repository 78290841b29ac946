"""Planting events into generated archaeology-style series (used by ``generator``).

Every planted event keeps wide margins so that a correct analysis on the ``*_inter`` columns
finds exactly it: noise moves a series by at most 0.08 between bins, significant steps are
at least 0.8 (threshold 0.5), peaks beat every other bin by at least 0.7, growth extremes
beat the rest of their window by at least 0.9. Decoys make each typical mistake give a
different answer: the raw column has a gap at the answer bin, there are always more events
than the asked ordinal, peaks come with a lower sustained plateau (and plateaus with a
higher single spike), and growth windows have a stronger extreme outside them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from collabsim.domain.relations import ORDINAL_WORDS
from collabsim.domain.time_expr import year_text
from collabsim.domain.variables import GROWTH, PROXIES, VARIABLES, Variable

NOISE = 0.04
CATEGORIES: tuple[str, ...] = (
    "first_rise", "peak", "simultaneous", "nth_fall", "growth_max",
    "plateau", "nth_rise", "first_fall", "growth_min",
)


@dataclass(frozen=True)
class PlantedEvent:
    """The planted answer of one generated task.

    Attributes:
        category: One of :data:`CATEGORIES`.
        relation: ``rise``, ``fall``, ``peak``, ``plateau``, ``simultaneous``,
            ``growth_max`` or ``growth_min``.
        ordinal: Which occurrence is asked (1 = first).
        variables: Column stems involved (``("Dagger",)``).
        directions: ``"up"``/``"down"`` per variable for simultaneous changes.
        window: ``(start CE, end CE)`` bounding the search, or None.
        year: The answer (CE, negative = BCE).
        query: Question text.
        gold: Gold hypothesis text.
        first_year: First bin of the series (CE).
        last_year: Last bin of the series (CE).
    """

    category: str
    relation: str
    ordinal: int
    variables: tuple[str, ...]
    directions: tuple[str, ...]
    window: tuple[int, int] | None
    year: int
    query: str
    gold: str
    first_year: int
    last_year: int


def plant_task(
    rng: np.random.Generator, category: str
) -> tuple[PlantedEvent, dict[str, np.ndarray]]:
    """Generate the columns of one task with an event of ``category`` planted.

    Returns:
        The event and the columns (``CE``, ``calBP``, ``X``/``X_inter`` per proxy, pollen and
        growth columns), in file order.
    """
    start = -5000 + 100 * int(rng.integers(0, 6))
    end = -500 - 100 * int(rng.integers(0, 6))
    ce = np.arange(start, end + 1, 100)
    n = len(ce)
    order = rng.permutation(len(PROXIES))
    series: dict[str, np.ndarray] = {
        var.key: _distractor(rng, n) for var in PROXIES
    }
    growth = _growth_base(rng, n)
    gaps: dict[str, list[int]] = {}
    targets = [PROXIES[int(i)] for i in order[:2]]
    x = targets[0]
    relation = category.split("_")[-1] if category.endswith(("rise", "fall")) else category
    directions: tuple[str, ...] = ()
    window: tuple[int, int] | None = None
    ordinal = 1
    if relation in ("rise", "fall"):
        ordinal = 1 if category.startswith("first") else int(rng.integers(2, 4))
        values, answer = _steps_series(rng, n, relation, ordinal)
        series[x.key] = values
        variables = (x.key,)
    elif relation in ("peak", "plateau"):
        values, spike, plateau = _peak_plateau_series(rng, n)
        series[x.key] = values
        answer = spike if relation == "peak" else plateau
        variables = (x.key,)
    elif relation == "simultaneous":
        ordinal = int(rng.integers(1, 3))
        combos = (("up", "down"), ("down", "up"), ("down", "down"))
        directions = combos[int(rng.integers(0, len(combos)))]
        xs, ys, answer = _simultaneous_series(rng, n, directions, ordinal)
        series[x.key], series[targets[1].key] = xs, ys
        variables = (x.key, targets[1].key)
    else:
        growth, answer, (lo, hi) = _growth_series(rng, n, relation == "growth_max")
        window = (int(ce[lo]), int(ce[hi]))
        variables = (GROWTH.key,)
    gaps[variables[0]] = [answer]
    year = int(ce[answer])
    query, gold = _wording(rng, relation, ordinal, variables, directions, window, year)
    columns: dict[str, np.ndarray] = {"CE": ce, "calBP": 1950 - ce}
    for var in PROXIES:
        inter = series[var.key]
        columns[var.key] = _with_gaps(rng, inter, gaps.get(var.key, []))
        columns[f"{var.key}_inter"] = inter
    openness = 10.0 * np.cumprod(1.0 + growth / 100.0)
    columns["pollen"] = _with_gaps(rng, openness, [])
    columns["pollen_inter"] = openness
    columns[GROWTH.key] = _with_gaps(rng, growth, gaps.get(GROWTH.key, []))
    columns[f"{GROWTH.key}_inter"] = growth
    event = PlantedEvent(
        category=category, relation=relation, ordinal=ordinal, variables=variables,
        directions=directions, window=window, year=year, query=query, gold=gold,
        first_year=int(ce[0]), last_year=int(ce[-1]),
    )
    return event, columns


# ------------------------------------------------------------------------------ series shapes


def _noise(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.uniform(-NOISE, NOISE, n)


def _slots(rng: np.random.Generator, n: int, k: int, gap: int) -> list[int]:
    """``k`` sorted bin indices in ``[2, n-2]`` at least ``gap`` apart."""
    candidates = list(rng.permutation(np.arange(2, n - 1)))
    chosen: list[int] = []
    for c in candidates:
        if all(abs(int(c) - o) >= gap for o in chosen):
            chosen.append(int(c))
            if len(chosen) == k:
                break
    if len(chosen) < k:  # cannot happen for n >= 36 and k <= 9; keep deterministic anyway
        chosen = list(range(2, 2 + gap * k, gap))
    return sorted(chosen)


def _distractor(rng: np.random.Generator, n: int) -> np.ndarray:
    level = rng.uniform(-1.5, 0.5)
    values = np.full(n, level) + _noise(rng, n)
    for pos in _slots(rng, n, int(rng.integers(2, 5)), 2):
        values[pos:] += rng.choice([-1.0, 1.0]) * rng.uniform(0.6, 1.8)
    return values


def _steps_series(
    rng: np.random.Generator, n: int, relation: str, ordinal: int
) -> tuple[np.ndarray, int]:
    sign = 1.0 if relation == "rise" else -1.0
    n_main = max(ordinal + 1, 2) + int(rng.integers(0, 2))
    n_other = int(rng.integers(1, 3))
    positions = _slots(rng, n, n_main + n_other, 3)
    kinds = np.array([1] * n_main + [0] * n_other)
    kinds = kinds[rng.permutation(len(kinds))]
    values = np.full(n, rng.uniform(-1.0, 0.0)) + _noise(rng, n)
    main_positions: list[int] = []
    for pos, kind in zip(positions, kinds, strict=True):
        step = rng.uniform(0.9, 1.8) * (sign if kind else -sign)
        values[pos:] += step
        if kind:
            main_positions.append(pos)
    return values, main_positions[ordinal - 1]


def _peak_plateau_series(rng: np.random.Generator, n: int) -> tuple[np.ndarray, int, int]:
    base = rng.uniform(-1.2, -0.6)
    length = int(rng.integers(4, 7))
    level = base + rng.uniform(1.6, 2.2)
    spike_value = level + rng.uniform(0.8, 1.4)
    bump_value = base + rng.uniform(0.5, 0.9)
    values = np.full(n, base) + _noise(rng, n)
    blocks = [("plateau", length), ("spike", 1), ("bump", 2)]
    blocks = [blocks[int(i)] for i in rng.permutation(3)]
    pos = int(rng.integers(2, 6))
    where: dict[str, int] = {}
    for name, size in blocks:
        where[name] = pos
        pos += size + int(rng.integers(3, 6))
    values[where["plateau"]: where["plateau"] + length] += level - base
    values[where["spike"]] += spike_value - base
    values[where["bump"]: where["bump"] + 2] += bump_value - base
    return values, where["spike"], where["plateau"]


def _simultaneous_series(
    rng: np.random.Generator, n: int, directions: tuple[str, ...], ordinal: int
) -> tuple[np.ndarray, np.ndarray, int]:
    k_sim = max(2, ordinal) + int(rng.integers(0, 2))
    n_x, n_y = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    kinds = ["sim"] * k_sim + ["x"] * n_x + ["y"] * n_y + ["mixed"]
    kinds = [kinds[int(i)] for i in rng.permutation(len(kinds))]
    positions = _slots(rng, n, len(kinds), 3)
    xs = np.full(n, rng.uniform(-1.0, 0.5)) + _noise(rng, n)
    ys = np.full(n, rng.uniform(-1.0, 0.5)) + _noise(rng, n)
    sx = 1.0 if directions[0] == "up" else -1.0
    sy = 1.0 if directions[1] == "up" else -1.0
    sim_positions: list[int] = []
    for pos, kind in zip(positions, kinds, strict=True):
        if kind == "sim":
            xs[pos:] += sx * rng.uniform(0.9, 1.8)
            ys[pos:] += sy * rng.uniform(0.9, 1.8)
            sim_positions.append(pos)
        elif kind == "x":
            xs[pos:] += rng.choice([-1.0, 1.0]) * rng.uniform(0.9, 1.8)
        elif kind == "y":
            ys[pos:] += rng.choice([-1.0, 1.0]) * rng.uniform(0.9, 1.8)
        else:  # both change, but not in the asked combination
            xs[pos:] += sx * rng.uniform(0.9, 1.8)
            ys[pos:] += -sy * rng.uniform(0.9, 1.8)
    return xs, ys, sim_positions[ordinal - 1]


def _growth_base(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.uniform(0.2, 1.0) + rng.uniform(-0.3, 0.3, n)


def _growth_series(
    rng: np.random.Generator, n: int, highest: bool
) -> tuple[np.ndarray, int, tuple[int, int]]:
    g = _growth_base(rng, n)
    width = int(rng.integers(8, 13))
    lo = int(rng.integers(5, n - width - 5))
    hi = lo + width - 1
    sign = 1.0 if highest else -1.0
    inside = int(rng.integers(lo + 1, hi))
    g[inside] = (g.max() if highest else g.min()) + sign * rng.uniform(0.9, 1.6)
    outside_choices = [i for i in range(1, n) if i <= lo - 2 or i >= hi + 2]
    outside = outside_choices[int(rng.integers(0, len(outside_choices)))]
    g[outside] = g[inside] + sign * rng.uniform(1.0, 2.0)
    return g, inside, (lo, hi)


def _with_gaps(rng: np.random.Generator, values: np.ndarray, forced: list[int]) -> np.ndarray:
    raw = values.astype(float).copy()
    mask = rng.random(len(raw)) < 0.12
    mask[0] = False
    for i in forced:
        mask[i] = True
    raw[mask] = np.nan
    return raw


# ----------------------------------------------------------------------------------- wording


def _phrase(rng: np.random.Generator, var: Variable) -> str:
    return var.phrases[int(rng.integers(0, len(var.phrases)))]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _wording(
    rng: np.random.Generator,
    relation: str,
    ordinal: int,
    variables: tuple[str, ...],
    directions: tuple[str, ...],
    window: tuple[int, int] | None,
    year: int,
) -> tuple[str, str]:
    """Return (query, gold hypothesis) with varied, archaeology-like wording."""
    var = VARIABLES[variables[0]]
    x = _phrase(rng, var)
    nth = ORDINAL_WORDS[ordinal]
    when = year_text(year)
    pick = int(rng.integers(0, 4))
    if relation == "rise":
        query = (
            f"In which century did {x} increase for the {nth} time?",
            f"In which century did {x} begin to increase for the {nth} time?",
            f"In which century did {x} rise for the {nth} time since the start of the "
            "observational data?",
            f"In which century did {x} begin to increase in importance for the {nth} time?",
        )[pick]
        gold = f"Around {when}, {x} began to increase for the {nth} time."
    elif relation == "fall":
        query = (
            f"In which century did {x} decrease for the {nth} time?",
            f"In which century did {x} decline for the {nth} time in observed history?",
            f"In which century did {x} drop for the {nth} time?",
            f"In which century did {x} decrease significantly for the {nth} time?",
        )[pick]
        gold = f"Around {when}, {x} decreased for the {nth} time."
    elif relation == "peak":
        most = (f"In which century did {x} become quantitatively most frequent?"
                if var.count_like else f"In which century did {x} reach its maximum?")
        query = (
            f"In which century did {x} peak?",
            f"In which century did {x} have its highest peak?",
            most,
            f"In which century did {x} reach its highest value?",
        )[pick]
        gold = f"Around {when}, {x} peaked."
    elif relation == "plateau":
        query = (
            f"In which century does {x} begin to show its highest sustained values?",
            f"In which century did {x} begin to show its highest sustained values?",
            f"When did {x} start its period of highest sustained values?",
            f"In which century do the highest sustained values of {x} begin?",
        )[pick]
        gold = f"{_cap(x)} begins to show its highest sustained values around {when}."
    elif relation == "simultaneous":
        y = _phrase(rng, VARIABLES[variables[1]])
        since = " since the start of the observational data" if ordinal > 1 else ""
        if directions == ("down", "down"):
            query = (f"In which century did {x} and {y} significantly decrease simultaneously "
                     f"for the {nth} time{since}?")
            gold = (f"Around {when}, {x} and {y} significantly decreased simultaneously for "
                    f"the {nth} time.")
        else:
            verb_x = "increase" if directions[0] == "up" else "decline"
            verb_y = "increase" if directions[1] == "up" else "decline"
            query = (f"In which century did {x} {verb_x} while {y} {verb_y}d simultaneously "
                     f"for the {nth} time{since}?")
            past_x = "increased" if directions[0] == "up" else "declined"
            past_y = "increased" if directions[1] == "up" else "declined"
            gold = (f"Around {when}, {x} {past_x} while {y} {past_y} simultaneously for the "
                    f"{nth} time.")
    else:
        assert window is not None
        a, b = -window[0], -window[1]
        if relation == "growth_max":
            query = (
                f"In what centuries did we see the highest growth between {a} and {b} BCE?",
                f"In which century was the growth rate highest in the period between {a} BCE "
                f"and {b} BCE?",
                f"When did we see the highest growth rate of landscape openness between {a} and "
                f"{b} BCE?",
                f"In what century did we see the highest growth phase of the period between {a} "
                f"BCE and {b} BCE?",
            )[pick]
            gold = (f"Around {when}, the growth rate reached its highest value of the period "
                    f"between {a} and {b} BCE.")
        else:
            query = (
                f"In which century did we see the greatest decline in the growth rate between "
                f"{a} and {b} BCE?",
                f"In what century was the growth rate lowest between {a} and {b} BCE?",
                f"When did the growth rate reach its lowest value in the period between {a} BCE "
                f"and {b} BCE?",
                f"In which century did we see the lowest growth between {a} and {b} BCE?",
            )[pick]
            gold = (f"Around {when}, the growth rate reached its lowest value of the period "
                    f"between {a} and {b} BCE.")
    return query, gold
