"""Planting effects into generated tables (used by :mod:`collabsim.tasks.stats_generator`).

Every shape writes one table ``data.csv`` (500-900 rows) of a :class:`StudyDomain`: the
asked columns, the decoy columns of its decisive fact, two covariates and two distractor
measures, in a drawn column order. Effects are planted on standardised scales and written in
each measure's units, so golds state raw-unit coefficients. A draw is kept only when the
fits on the written CSV (:func:`~collabsim.tasks.stats_generator_fit.fit_plan`) show the
planted answer clearly and every decoy plan - the plan a typical mistake leads to - gives
another answer (:func:`~collabsim.tasks.stats_generator_fit.differs`); otherwise the task's
generator draws again.

Shapes (:data:`SHAPES`) and the topic of their decisive fact (:data:`FACT_TOPIC`):

* ``confounded`` (controls): a linear effect whose sign flips when the confounder is left
  out (or another covariate controlled instead);
* ``binary`` (target): a logistic effect on one of two similar-sounding binary outcomes,
  the other one going the opposite way; a linear model gives another number;
* ``subgroup`` (filters): an effect in one coded level only (other levels go the other way,
  the whole table shows no significant association);
* ``null`` (predictors): no significant association with one of two similar-sounding
  predictors, a clear one with the other;
* ``group_difference`` (predictors): a difference of means between the groups of one of two
  similar-sounding group columns, none for the other;
* ``interaction`` (target): a slope that depends on a binary moderator for one of two
  similar-sounding outcomes, a common slope for the other;
* ``proportion`` (filters): the share of a binary outcome in one coded level, other levels
  and the whole table having other shares;
* ``correlation`` (analysis): a linear association reported as a Pearson correlation or as
  a regression slope, by the study's convention (the two give different numbers);
* ``binary_confounded`` (controls): a logistic effect whose sign flips without the
  confounder.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from collabsim.domain.stats.model import Effect, StatPlan
from collabsim.tasks.stats_generator_fit import differs, fit_plan
from collabsim.tasks.stats_vocabulary import DOMAINS, Measure, StudyDomain

DATA_FILE = "data.csv"
SHAPES: tuple[str, ...] = (
    "confounded", "binary", "subgroup", "null", "group_difference", "interaction",
    "proportion", "correlation", "binary_confounded",
)
FACT_TOPIC: dict[str, str] = {
    "confounded": "controls", "binary": "target", "subgroup": "filters", "null": "predictors",
    "group_difference": "predictors", "interaction": "target", "proportion": "filters",
    "correlation": "analysis", "binary_confounded": "controls",
}
#: Draws tried before a task gives up (a draw passes its checks nearly always).
MAX_DRAWS = 60


@dataclass(frozen=True)
class PlantedStat:
    """The planted answer of one generated statistical task.

    Attributes:
        shape: One of :data:`SHAPES`.
        domain: The study domain.
        plan: The right plan (what a correct analysis computes).
        effect: Its main effect on the written table.
        decoys: ``(mistake kind, plan, effect)`` per typical mistake with a plan of its own.
        csv_text: The table as written.
        measures: The table's columns in file order.
        roles: The measures and words the wording needs (``x``, ``y``, ``c``, ``term``,
            ``group``, ``moderator``, ``level``, ``code``, ``analysis``...).
        planted: The planted parameters (standardised scale), for the reference graph.
    """

    shape: str
    domain: StudyDomain
    plan: StatPlan
    effect: Effect
    decoys: tuple[tuple[str, StatPlan, Effect], ...]
    csv_text: str
    measures: tuple[Measure, ...]
    roles: dict[str, Any] = field(default_factory=dict)
    planted: dict[str, float] = field(default_factory=dict)


@dataclass
class _Draw:
    """One draw of a table before it is written: standardised columns and plans."""

    columns: dict[str, np.ndarray]
    measures: dict[str, Measure]
    plan: StatPlan
    decoys: list[tuple[str, StatPlan]]
    roles: dict[str, Any]
    planted: dict[str, float]
    # the right effect must be significant at this level (None: must NOT be significant)
    alpha: float | None = 0.001


def plant_stat_task(rng: np.random.Generator, shape: str) -> PlantedStat:
    """Draw the table of one task of ``shape`` until its checks pass.

    Raises:
        RuntimeError: No draw passed in :data:`MAX_DRAWS` tries (a generator bug).
    """
    domain = DOMAINS[int(rng.integers(0, len(DOMAINS)))]
    for _ in range(MAX_DRAWS):
        draw = _DRAWERS[shape](rng, domain, int(rng.integers(500, 901)))
        _add_distractors(rng, domain, draw)
        names = list(draw.columns)
        order = [names[int(i)] for i in rng.permutation(len(names))]
        csv_text = _csv_text(draw, order)
        frame = pd.read_csv(io.StringIO(csv_text))
        effect = fit_plan(draw.plan, frame)
        decoys = tuple((kind, plan, fit_plan(plan, frame)) for kind, plan in draw.decoys)
        if _passes(draw, effect, decoys):
            return PlantedStat(shape, domain, draw.plan, effect, decoys, csv_text,
                               tuple(draw.measures[n] for n in order), draw.roles, draw.planted)
    raise RuntimeError(f"no {shape} table passed its checks in {MAX_DRAWS} draws")


def _passes(draw: _Draw, effect: Effect,
            decoys: tuple[tuple[str, StatPlan, Effect], ...]) -> bool:
    if draw.plan.analysis != "proportion":
        if draw.alpha is None:
            if effect.p_value is None or effect.p_value < 0.2:
                return False
        elif not effect.significant(draw.alpha):
            return False
    return all(differs(effect, other, draw.plan.analysis) for _, _, other in decoys)


# ------------------------------------------------------------------------------- helpers


def _pick(rng: np.random.Generator, items: tuple[Any, ...], k: int = 1) -> list[Any]:
    return [items[int(i)] for i in rng.permutation(len(items))[:k]]


def _sign(rng: np.random.Generator) -> float:
    return 1.0 if rng.random() < 0.5 else -1.0


def _u(rng: np.random.Generator, low: float, high: float) -> float:
    return float(rng.uniform(low, high))


def _binary(rng: np.random.Generator, logit: np.ndarray) -> np.ndarray:
    return (rng.random(len(logit)) < 1.0 / (1.0 + np.exp(-logit))).astype(int)


def _plan(target: Measure, predictor: Measure, **kw: Any) -> StatPlan:
    return StatPlan(DATA_FILE, target.name, (predictor.name,), **kw)


def _add_distractors(rng: np.random.Generator, domain: StudyDomain, draw: _Draw) -> None:
    """Two covariates and two distractor measures not used yet, independent noise."""
    used = set(draw.columns)
    spare = [m for m in (*domain.confounders, *domain.measures, *domain.outcomes)
             if m.name not in used]
    covariates = [m for m in spare if m in domain.confounders]
    others = [m for m in spare if m not in domain.confounders]
    n = len(next(iter(draw.columns.values())))
    for m in [*covariates, *_pick(rng, tuple(others), 2)]:
        draw.columns[m.name] = rng.standard_normal(n)
        draw.measures[m.name] = m


def _csv_text(draw: _Draw, order: list[str]) -> str:
    """The table in measure units (binary columns as 0/1), columns in ``order``."""
    out: dict[str, list[str]] = {}
    for name in order:
        m, values = draw.measures[name], draw.columns[name]
        if values.dtype.kind in "iub":
            out[name] = [str(int(v)) for v in values]
        else:
            scaled = np.round(m.mean + m.sd * values, m.decimals)
            out[name] = [_fmt(v, m.decimals) for v in scaled]
    lines = [",".join(order)]
    lines += [",".join(row) for row in zip(*(out[name] for name in order), strict=True)]
    return "\n".join(lines) + "\n"


def _fmt(value: float, decimals: int) -> str:
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


# -------------------------------------------------------------------------------- shapes


def _confounded(rng: np.random.Generator, domain: StudyDomain, n: int,
                binary: bool = False) -> _Draw:
    x = _pick(rng, domain.measures)[0]
    conf, other = _pick(rng, domain.confounders, 2)
    s = _sign(rng)
    c = rng.standard_normal(n)
    xs = 0.8 * c + 0.6 * rng.standard_normal(n)
    if binary:
        y = _pick(rng, domain.binary_pair.members)[0]
        beta, gamma = s * _u(rng, 0.6, 0.9), -s * _u(rng, 1.6, 2.0)
        ys: np.ndarray = _binary(rng, _u(rng, -0.4, 0.4) + beta * xs + gamma * c)
        analysis = "logit"
    else:
        y = _pick(rng, domain.outcomes)[0]
        beta, gamma = s * _u(rng, 0.3, 0.5), -s * _u(rng, 1.1, 1.5)
        ys = beta * xs + gamma * c + rng.standard_normal(n)
        analysis = "ols"
    columns = {x.name: xs, y.name: ys, conf.name: c, other.name: rng.standard_normal(n)}
    plan = _plan(y, x, controls=(conf.name,), analysis=analysis)
    decoys = [("omitted_control", replace(plan, controls=())),
              ("wrong_control", replace(plan, controls=(other.name,)))]
    if binary:
        decoys.append(("linear_for_binary", replace(plan, analysis="ols")))
    return _Draw(columns, {x.name: x, y.name: y, conf.name: conf, other.name: other}, plan,
                 decoys, {"x": x, "y": y, "c": conf}, {"beta": beta, "gamma": gamma})


def _binary_outcome(rng: np.random.Generator, domain: StudyDomain, n: int) -> _Draw:
    x = _pick(rng, domain.measures)[0]
    right, wrong = _pick(rng, domain.binary_pair.members, 2)
    s = _sign(rng)
    xs = rng.standard_normal(n)
    beta, beta_decoy = s * _u(rng, 0.7, 1.0), -s * _u(rng, 0.5, 0.8)
    columns = {x.name: xs, right.name: _binary(rng, _u(rng, -0.6, 0.2) + beta * xs),
               wrong.name: _binary(rng, _u(rng, -0.6, 0.2) + beta_decoy * xs)}
    plan = _plan(right, x, analysis="logit")
    decoys = [("wrong_variable", replace(plan, target=wrong.name)),
              ("linear_for_binary", replace(plan, analysis="ols"))]
    return _Draw(columns, {x.name: x, right.name: right, wrong.name: wrong}, plan, decoys,
                 {"x": x, "y": right, "decoy": wrong, "term": domain.binary_pair.term},
                 {"beta": beta, "beta_decoy": beta_decoy})


def _coded_levels(rng: np.random.Generator) -> tuple[list[int], int]:
    """Codes of the three named levels (a permutation of 1..3) and the asked level."""
    return [int(c) + 1 for c in rng.permutation(3)], int(rng.integers(0, 3))


def _subgroup(rng: np.random.Generator, domain: StudyDomain, n: int) -> _Draw:
    x, y = _pick(rng, domain.measures)[0], _pick(rng, domain.outcomes)[0]
    coded = domain.coded
    codes, level = _coded_levels(rng)
    g = rng.integers(1, 4, n)
    s = _sign(rng)
    beta = s * _u(rng, 0.5, 0.8)
    slopes = {code: (beta if k == level else -beta * _u(rng, 0.4, 0.6))
              for k, code in enumerate(codes)}
    xs = rng.standard_normal(n)
    ys = np.array([slopes[int(c)] for c in g]) * xs + rng.standard_normal(n)
    code = codes[level]
    plan = _plan(y, x, filters=((coded.measure.name, "==", str(code)),))
    decoys = [("wrong_subgroup", replace(plan, filters=((coded.measure.name, "==", str(c)),)))
              for c in sorted(codes) if c != code]
    decoys.append(("no_filter", replace(plan, filters=())))
    return _Draw({x.name: xs, y.name: ys, coded.measure.name: g},
                 {x.name: x, y.name: y, coded.measure.name: coded.measure}, plan, decoys,
                 {"x": x, "y": y, "coded": coded, "level": coded.levels[level], "code": code},
                 {"beta": beta})


def _null(rng: np.random.Generator, domain: StudyDomain, n: int) -> _Draw:
    y = _pick(rng, domain.outcomes)[0]
    right, wrong = _pick(rng, domain.predictor_pair.members, 2)
    beta_decoy = _sign(rng) * _u(rng, 0.35, 0.6)
    ps, ws = rng.standard_normal(n), rng.standard_normal(n)
    ys = beta_decoy * ws + rng.standard_normal(n)
    plan = _plan(y, right)
    decoys = [("wrong_variable", replace(plan, predictors=(wrong.name,)))]
    return _Draw({right.name: ps, wrong.name: ws, y.name: ys},
                 {right.name: right, wrong.name: wrong, y.name: y}, plan, decoys,
                 {"x": right, "y": y, "decoy": wrong, "term": domain.predictor_pair.term},
                 {"beta": 0.0, "beta_decoy": beta_decoy}, alpha=None)


def _group_difference(rng: np.random.Generator, domain: StudyDomain, n: int) -> _Draw:
    y = _pick(rng, domain.outcomes)[0]
    term, first, second = domain.group_pair
    right, wrong = _pick(rng, (first, second), 2)
    d = _sign(rng) * _u(rng, 0.4, 0.7)
    gs = (rng.random(n) < _u(rng, 0.35, 0.6)).astype(int)
    ws = (rng.random(n) < _u(rng, 0.35, 0.6)).astype(int)
    ys = d * gs + rng.standard_normal(n)
    plan = _plan(y, right.measure, analysis="ttest")
    decoys = [("wrong_variable", replace(plan, predictors=(wrong.measure.name,)))]
    return _Draw({right.measure.name: gs, wrong.measure.name: ws, y.name: ys},
                 {right.measure.name: right.measure, wrong.measure.name: wrong.measure,
                  y.name: y}, plan, decoys,
                 {"group": right, "decoy": wrong, "y": y, "term": term}, {"difference": d})


def _interaction(rng: np.random.Generator, domain: StudyDomain, n: int) -> _Draw:
    x = _pick(rng, domain.measures)[0]
    z = domain.moderator
    right, wrong = _pick(rng, domain.outcome_pair.members, 2)
    a = _u(rng, 0.25, 0.4)
    d = _u(rng, 0.5, 0.8) if rng.random() < 0.5 else -_u(rng, 0.6, 0.8)
    xs = rng.standard_normal(n)
    zs = (rng.random(n) < _u(rng, 0.4, 0.6)).astype(int)
    ys = a * xs + _u(rng, -0.3, 0.3) * zs + d * xs * zs + rng.standard_normal(n)
    ws = _u(rng, 0.25, 0.5) * xs + _u(rng, -0.3, 0.3) * zs + rng.standard_normal(n)
    plan = replace(_plan(right, x), interaction=z.measure.name)
    decoys = [("wrong_variable", replace(plan, target=wrong.name))]
    return _Draw({x.name: xs, z.measure.name: zs, right.name: ys, wrong.name: ws},
                 {x.name: x, z.measure.name: z.measure, right.name: right, wrong.name: wrong},
                 plan, decoys,
                 {"x": x, "y": right, "decoy": wrong, "moderator": z,
                  "term": domain.outcome_pair.term}, {"slope": a, "interaction": d})


def _proportion(rng: np.random.Generator, domain: StudyDomain, n: int) -> _Draw:
    coded, share = domain.coded, domain.share
    codes, level = _coded_levels(rng)
    g = rng.integers(1, 4, n)
    rates = np.sort(rng.uniform(0.08, 0.7, 3))
    while np.min(np.diff(rates)) < 0.15:
        rates = np.sort(rng.uniform(0.08, 0.7, 3))
    rates = rates[rng.permutation(3)]
    by_code = {code: float(rates[k]) for k, code in enumerate(codes)}
    bs = (rng.random(n) < np.array([by_code[int(c)] for c in g])).astype(int)
    code = codes[level]
    plan = StatPlan(DATA_FILE, share.name, (), filters=((coded.measure.name, "==", str(code)),),
                    analysis="proportion")
    decoys = [("wrong_subgroup", replace(plan, filters=((coded.measure.name, "==", str(c)),)))
              for c in sorted(codes) if c != code]
    decoys.append(("no_filter", replace(plan, filters=())))
    return _Draw({coded.measure.name: g, share.name: bs},
                 {coded.measure.name: coded.measure, share.name: share}, plan, decoys,
                 {"y": share, "coded": coded, "level": coded.levels[level], "code": code},
                 {"rate": by_code[code]})


def _correlation(rng: np.random.Generator, domain: StudyDomain, n: int) -> _Draw:
    x, y = _pick(rng, domain.measures)[0], _pick(rng, domain.outcomes)[0]
    rho = _sign(rng) * _u(rng, 0.3, 0.55)
    xs = rng.standard_normal(n)
    ys = rho * xs + np.sqrt(1 - rho**2) * rng.standard_normal(n)
    analysis = "correlation" if rng.random() < 0.5 else "ols"
    plan = _plan(y, x, analysis=analysis)
    other = "ols" if analysis == "correlation" else "correlation"
    decoys = [("wrong_analysis", replace(plan, analysis=other))]
    return _Draw({x.name: xs, y.name: ys}, {x.name: x, y.name: y}, plan, decoys,
                 {"x": x, "y": y, "analysis": analysis}, {"rho": rho})


def _binary_confounded(rng: np.random.Generator, domain: StudyDomain, n: int) -> _Draw:
    return _confounded(rng, domain, n, binary=True)


_DRAWERS = {
    "confounded": _confounded, "binary": _binary_outcome, "subgroup": _subgroup,
    "null": _null, "group_difference": _group_difference, "interaction": _interaction,
    "proportion": _proportion, "correlation": _correlation,
    "binary_confounded": _binary_confounded,
}
