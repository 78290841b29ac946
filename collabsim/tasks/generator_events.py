"""Planting events into generated archaeology-style series (used by ``generator``).

Every planted event keeps wide margins so that a correct analysis on the valid gap-filled
column finds exactly it: noise moves a series by at most 0.08 between bins, significant steps
are at least 0.8 (threshold 0.5), peaks beat every other bin by at least 0.7, growth extremes
beat the rest of their window by at least 0.9. Decoys make each typical mistake give a
different answer: the raw column has a gap at the answer bin, there are always more events
than the asked ordinal (three at least, so every ordinal 1-3 has its own year), peaks come
with a lower sustained plateau (and plateaus with a higher single spike), and growth windows
have a stronger extreme outside them.

A task whose decisive fact is a data convention has every asked series in three dating
variants (:data:`VARIANTS`: ``X_inter``, ``X_recal_inter``, ``X_model_inter``, each with its
raw column), each planted on its own with the same event definition; their answers lie at
least :data:`VARIANT_GAP` bins apart, so reading the wrong variant gives a different answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from collabsim.domain.variables import GROWTH, PROXIES

NOISE = 0.04
#: Query shapes, cycled through by task index (the category of a task adds the ordinal).
SHAPES: tuple[str, ...] = (
    "rise", "peak", "simultaneous", "fall", "growth_max", "plateau", "growth_min",
)
#: Reference categories (``completion.relation`` of the reference graphs).
CATEGORIES: tuple[str, ...] = (
    "first_rise", "peak", "simultaneous", "nth_fall", "growth_max",
    "plateau", "nth_rise", "first_fall", "growth_min",
)
#: Gap-filled dating variants of a series (column suffixes); the first is the standard one.
VARIANTS: tuple[str, ...] = ("inter", "recal_inter", "model_inter")
#: Variants' answers lie at least this many bins apart (the judge's tolerance is one bin).
VARIANT_GAP = 3
_ORDINALS = (1, 2, 3)


def gap_filled(key: str, variant: str = "inter") -> str:
    """The gap-filled column of series ``key`` in a dating variant (``Amber_recal_inter``)."""
    return f"{key}_{variant}"


def raw_of(key: str, variant: str = "inter") -> str:
    """The raw (gapped) column of series ``key`` in a dating variant (``Amber_recal``)."""
    base = variant.removesuffix("inter").rstrip("_")
    return f"{key}_{base}" if base else key


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
        first_year: First bin of the series (CE).
        last_year: Last bin of the series (CE).
        variant: The valid dating variant of the asked series (one of :data:`VARIANTS`).
        variants: The variants the asked series come in (one for a reading task).
        decoy_years: The answers the other variants give, in :data:`VARIANTS` order.
    """

    category: str
    relation: str
    ordinal: int
    variables: tuple[str, ...]
    directions: tuple[str, ...]
    window: tuple[int, int] | None
    year: int
    first_year: int
    last_year: int
    variant: str = "inter"
    variants: tuple[str, ...] = ("inter",)
    decoy_years: tuple[int, ...] = ()

    @property
    def columns(self) -> tuple[str, ...]:
        """The valid gap-filled columns of the asked series (the right plan's columns)."""
        return tuple(gap_filled(v, self.variant) for v in self.variables)


def category_of(relation: str, ordinal: int) -> str:
    """The reference category of a planted relation (``rise`` + 2 -> ``nth_rise``)."""
    if relation in ("rise", "fall"):
        return f"{'first' if ordinal == 1 else 'nth'}_{relation}"
    return relation


def plant_task(
    rng: np.random.Generator, shape: str, n_variants: int = 1
) -> tuple[PlantedEvent, dict[str, np.ndarray]]:
    """Generate the columns of one task with an event of ``shape`` planted.

    Args:
        rng: The task's generator.
        shape: One of :data:`SHAPES`.
        n_variants: 1 (the standard ``X_inter`` only) or 3 (every asked series in each of
            :data:`VARIANTS`; the valid one is drawn uniformly).

    Returns:
        The event and the columns (``CE``, ``calBP``, raw and gap-filled columns per proxy
        and variant, pollen and growth columns), in file order.
    """
    start = -5000 + 100 * int(rng.integers(0, 6))
    end = -500 - 100 * int(rng.integers(0, 6))
    ce = np.arange(start, end + 1, 100)
    n = len(ce)
    order = rng.permutation(len(PROXIES))
    series: dict[str, np.ndarray] = {var.key: _distractor(rng, n) for var in PROXIES}
    growth = _growth_base(rng, n)
    targets = [PROXIES[int(i)] for i in order[:2]]
    variants = VARIANTS[:n_variants]
    valid = variants[int(rng.integers(0, len(variants)))] if n_variants > 1 else variants[0]
    directions: tuple[str, ...] = ()
    window: tuple[int, int] | None = None
    window_idx: tuple[int, int] | None = None
    ordinal = int(rng.choice(_ORDINALS)) if shape in ("rise", "fall", "simultaneous") else 1
    if shape == "simultaneous":
        combos = (("up", "down"), ("down", "up"), ("down", "down"))
        directions = combos[int(rng.integers(0, len(combos)))]
        variables: tuple[str, ...] = (targets[0].key, targets[1].key)
    elif shape.startswith("growth"):
        width = int(rng.integers(11 if n_variants > 1 else 8, 14 if n_variants > 1 else 13))
        lo = int(rng.integers(5, n - width - 5))
        window_idx = (lo, lo + width - 1)
        window = (int(ce[window_idx[0]]), int(ce[window_idx[1]]))
        variables = (GROWTH.key,)
    else:
        variables = (targets[0].key,)
    planted: dict[str, tuple[list[np.ndarray], int]] = {}
    if window_idx is not None:  # the window is shared: spread the variants' answers in it
        insides = _spread(rng, window_idx[0] + 1, window_idx[1] - 1, len(variants))
        for variant, inside in zip(variants, insides, strict=True):
            g = _growth_series(rng, n, shape == "growth_max", window_idx, inside)
            planted[variant] = ([g], inside)
    for variant in variants[len(planted):]:
        for _ in range(200):  # a fresh layout until the answers lie apart (a few tries)
            arrays, answer = _plant_shape(rng, n, shape, ordinal, directions)
            if all(abs(answer - other) >= VARIANT_GAP for _, other in planted.values()):
                break
        planted[variant] = (arrays, answer)
    answer = planted[valid][1]
    columns = _columns(rng, ce, series, growth, variables, planted)
    event = PlantedEvent(
        category=category_of(shape, ordinal), relation=shape, ordinal=ordinal,
        variables=variables, directions=directions, window=window, year=int(ce[answer]),
        first_year=int(ce[0]), last_year=int(ce[-1]), variant=valid, variants=variants,
        decoy_years=tuple(int(ce[planted[v][1]]) for v in variants if v != valid),
    )
    return event, columns


def _columns(rng: np.random.Generator, ce: np.ndarray, series: dict[str, np.ndarray],
             growth: np.ndarray, variables: tuple[str, ...],
             planted: dict[str, tuple[list[np.ndarray], int]]) -> dict[str, np.ndarray]:
    """The task's columns in file order: the asked series in every planted variant (raw
    with a gap at the variant's answer, gap-filled), the others as raw and ``_inter``."""
    columns: dict[str, np.ndarray] = {"CE": ce, "calBP": 1950 - ce}

    def add(key: str, values_of: dict[str, tuple[np.ndarray, list[int]]]) -> None:
        for variant, (values, gaps) in values_of.items():
            columns[raw_of(key, variant)] = _with_gaps(rng, values, gaps)
            columns[gap_filled(key, variant)] = values

    def asked(key: str) -> dict[str, tuple[np.ndarray, list[int]]]:
        i = variables.index(key)
        return {v: (arrays[i], [answer]) for v, (arrays, answer) in planted.items()}

    for var in PROXIES:
        add(var.key, asked(var.key) if var.key in variables else {"inter": (series[var.key], [])})
    if variables == (GROWTH.key,):
        growth = planted["inter"][0][0]
    openness = 10.0 * np.cumprod(1.0 + growth / 100.0)
    columns["pollen"] = _with_gaps(rng, openness, [])
    columns["pollen_inter"] = openness
    add(GROWTH.key, asked(GROWTH.key) if variables == (GROWTH.key,) else {"inter": (growth, [])})
    return columns


def _plant_shape(rng: np.random.Generator, n: int, shape: str, ordinal: int,
                 directions: tuple[str, ...]) -> tuple[list[np.ndarray], int]:
    """One variant of the asked series: ``(series per asked variable, answer bin)``."""
    if shape in ("rise", "fall"):
        values, answer = _steps_series(rng, n, shape, ordinal)
        return [values], answer
    if shape == "simultaneous":
        xs, ys, answer = _simultaneous_series(rng, n, directions, ordinal)
        return [xs, ys], answer
    values, spike, plateau = _peak_plateau_series(rng, n)
    return [values], spike if shape == "peak" else plateau


def _spread(rng: np.random.Generator, first: int, last: int, k: int) -> list[int]:
    """``k`` bins in ``[first, last]`` pairwise at least :data:`VARIANT_GAP` apart, in random
    order (the window is wide enough: ``last - first >= VARIANT_GAP * (k - 1)``)."""
    slack = last - first - VARIANT_GAP * (k - 1)
    cuts = np.sort(rng.integers(0, slack + 1, k))
    spaced = [int(first + c + VARIANT_GAP * i) for i, c in enumerate(cuts)]
    return [spaced[int(i)] for i in rng.permutation(k)]


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
    n_main = max(ordinal + 1, 3) + int(rng.integers(0, 2))
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
    n_x, n_y = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    k_sim = max(3, ordinal) + int(n_x + n_y < 4 and rng.integers(0, 2))
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
    rng: np.random.Generator, n: int, highest: bool, window: tuple[int, int], inside: int
) -> np.ndarray:
    g = _growth_base(rng, n)
    lo, hi = window
    sign = 1.0 if highest else -1.0
    g[inside] = (g.max() if highest else g.min()) + sign * rng.uniform(0.9, 1.6)
    outside_choices = [i for i in range(1, n) if i <= lo - 2 or i >= hi + 2]
    outside = outside_choices[int(rng.integers(0, len(outside_choices)))]
    g[outside] = g[inside] + sign * rng.uniform(1.0, 2.0)
    return g


def _with_gaps(rng: np.random.Generator, values: np.ndarray, forced: list[int]) -> np.ndarray:
    raw = values.astype(float).copy()
    mask = rng.random(len(raw)) < 0.12
    mask[0] = False
    for i in forced:
        mask[i] = True
    raw[mask] = np.nan
    return raw
