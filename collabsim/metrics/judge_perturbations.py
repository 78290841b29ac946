"""Validating a hypothesis judge by perturbing gold hypotheses.

From each gold, :func:`perturbations` builds wrong variants, each only where the gold has the
element it changes (deterministic for a seed):

* ``direction``: the relation's direction flipped, sentence by sentence: explicit words
  swapped (positive <-> negative, inverse -> positive), "no (significant) association" ->
  "a significant positive association", else movement words (higher/lower, increase/
  decrease, more/fewer, reduces/increases ...; "more likely" <-> "less likely"): when they
  all go one way the last one is flipped ("higher X with higher Y" -> "higher X with lower Y"), otherwise all are set to the
  first one's way;
* ``variable_dropped`` (golds naming at least two columns): every mention of one named
  column removed, with its joining "and"/comma;
* ``variable_replaced``: every mention of one named column replaced by the phrase of another
  column of the task (its description head, else its name's words);
* ``number``: one stated number (not a p-value or a data year) multiplied by 0.5, 1.5 or 2,
  written with the same decimals (always beyond the judge's 5-10 % tolerance), everywhere
  the gold states it;
* ``population``: one population word, place or data year changed (men <-> women, Black <->
  White, Hispanic <-> Asian, developing <-> developed, rural <-> urban, a place -> another
  region, a data year + 5).

Where a column is named is read with the judge's column reader
(:class:`~collabsim.metrics.stats_vocab.ColumnLexicon`); every other edit uses its own word
lists, so a perturbation the judge cannot read still counts against it.

A pair (gold vs gold, gold vs perturbation) is **correctly ordered** when the gold scores 1
against itself and the perturbation strictly less. :func:`evaluate` scores every pair;
:func:`wilson_interval` gives the 95 % interval of a share.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from collabsim.metrics.outcome import HypothesisJudge
from collabsim.metrics.stats_vocab import ColumnLexicon, description_head
from collabsim.tasks.model import Task

KINDS: tuple[str, ...] = ("direction", "variable_dropped", "variable_replaced", "number",
                          "population")


@dataclass(frozen=True)
class Perturbation:
    """A gold hypothesis changed in one element."""

    kind: str
    task_id: str
    gold: str
    text: str


@dataclass(frozen=True)
class PairResult:
    """The judge's scores of one (gold, perturbation) pair."""

    kind: str
    task_id: str
    gold_score: float
    perturbed_score: float
    text: str

    @property
    def ordered(self) -> bool:
        """True when the gold scores 1 and the perturbation strictly less."""
        return self.gold_score == 1.0 and self.perturbed_score < self.gold_score


def _keep_case(old: str, new: str) -> str:
    if old.isupper() and len(old) > 1:
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


# ------------------------------------------------------------------------------ direction

_EXPLICIT_SWAP = {"positive": "negative", "negative": "positive", "positively": "negatively",
                  "negatively": "positively", "postively": "negatively", "postive": "negative",
                  "inverse": "positive", "inversely": "positively"}
_EXPLICIT_RE = re.compile(r"\b(" + "|".join(_EXPLICIT_SWAP) + r")\b", re.IGNORECASE)
_NULL_RE = re.compile(
    r"\bno\s+(?:statistically\s+)?(?:significant\s+)?(effect|association|relationship|"
    r"correlation|impact|link|influence)", re.IGNORECASE)
_MOVES_UP = {"higher": "lower", "more": "fewer", "increase": "decrease", "increases": "decreases",
             "increased": "decreased", "increasing": "decreasing", "greater": "smaller",
             "larger": "smaller", "rise": "fall", "rises": "falls", "enhances": "reduces",
             "raises": "lowers", "grows": "shrinks", "improves": "worsens", "bigger": "smaller"}
_MOVES_DOWN = {"lower": "higher", "fewer": "more", "less": "more", "decrease": "increase",
               "decreases": "increases", "decreased": "increased", "decreasing": "increasing",
               "smaller": "larger", "reduces": "increases", "reduce": "increase",
               "reduced": "increased", "declines": "rises", "decline": "rise", "falls": "rises",
               "lowers": "raises", "drops": "rises"}
_MOVE_RE = re.compile(r"\b(" + "|".join({**_MOVES_UP, **_MOVES_DOWN}) + r")\b", re.IGNORECASE)
_NOT_A_MOVE = re.compile(r"^\s+(?:pronounced|than|likely\s+than|or\s+less)", re.IGNORECASE)


def _sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the text's sentences (a decimal point does not end one)."""
    spans, start = [], 0
    for m in re.finditer(r"(?<!\d)[.;](?!\d)|\.(?=\s)", text):
        spans.append((start, m.end()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _flip_sentence(sentence: str) -> str:
    if _EXPLICIT_RE.search(sentence):
        return _EXPLICIT_RE.sub(lambda m: _keep_case(m.group(), _EXPLICIT_SWAP[m.group().lower()]),
                                sentence)
    if _NULL_RE.search(sentence):
        return _NULL_RE.sub(lambda m: "a significant positive " + m.group(1), sentence)
    moves = [m for m in _MOVE_RE.finditer(sentence)
             if not _NOT_A_MOVE.match(sentence[m.end():])]
    likely = re.search(r"\b(more|less)\s+likely\b", sentence, re.IGNORECASE)
    if len(moves) == 1 and likely:
        word = likely.group(1)
        new = _keep_case(word, "less" if word.lower() == "more" else "more")
        return sentence[: likely.start(1)] + new + sentence[likely.end(1):]
    if not moves:
        return sentence
    ways = ["up" if m.group().lower() in _MOVES_UP else "down" for m in moves]
    if len(set(ways)) == 1:
        targets = [moves[-1]]
    else:
        targets = [m for m, w in zip(moves, ways, strict=True) if w != ways[0]]
    out = sentence
    for m in sorted(targets, key=lambda m: -m.start()):
        word = m.group()
        table = _MOVES_UP if word.lower() in _MOVES_UP else _MOVES_DOWN
        out = out[: m.start()] + _keep_case(word, table[word.lower()]) + out[m.end():]
    return out


def flip_direction(text: str) -> str | None:
    """The text with its relation's direction flipped (None: it states no direction)."""
    pieces = [text[a:b] for a, b in _sentences(text)]
    flipped = [_flip_sentence(p) for p in pieces]
    out = "".join(flipped)
    return out if out != text else None


# ------------------------------------------------------------------------------- numbers

_NUMBER_RE = re.compile(r"(?<![A-Za-z0-9_.])(-?\d+(?:\.\d+)?)(?![A-Za-z0-9_]|\.\d)")
_P_BEFORE = re.compile(r"p\s*(?:-?\s*values?)?\s*[:=<>≤]*\s*$", re.IGNORECASE)


def change_number(text: str, rng: np.random.Generator) -> str | None:
    """The text with one stated number (not a p-value or a year) scaled by 0.5, 1.5 or 2."""
    candidates = []
    for m in _NUMBER_RE.finditer(text):
        before = text[max(0, m.start() - 12): m.start()]
        value = float(m.group(1))
        if _P_BEFORE.search(before) or (re.fullmatch(r"(?:18|19|20)\d\d", m.group(1))):
            continue
        if value == 0:
            continue
        candidates.append(m)
    if not candidates:
        return None
    m = candidates[int(rng.integers(len(candidates)))]
    factor = float(rng.choice([0.5, 1.5, 2.0]))
    raw = m.group(1)
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    new_value = float(raw) * factor
    new = f"{new_value:.{decimals}f}"
    if float(new) == float(raw) or float(new) == 0:
        new = f"{float(raw) * 2 + (10 ** -decimals if decimals else 1):.{decimals}f}"
    out = text
    for other in sorted(candidates, key=lambda c: -c.start()):
        if other.group(1) == raw:
            out = out[: other.start()] + new + out[other.end():]
    return out


# ---------------------------------------------------------------------------- population

_POP_SWAP = {"men": "women", "women": "men", "man": "woman", "woman": "man", "male": "female",
             "female": "male", "males": "females", "females": "males", "black": "white",
             "white": "black", "hispanic": "asian", "asian": "hispanic",
             "developing": "developed", "developed": "developing", "rural": "urban",
             "urban": "rural"}
_POP_RE = re.compile(r"\b(" + "|".join(_POP_SWAP) + r")\b", re.IGNORECASE)
_PLACE_RE = re.compile(
    r"\b(?i:in|among|across|within|outside(?:\s+of)?)\s+(?i:the\s+)?(?i:ancient\s+)?"
    r"([A-Z][a-z][\w-]*(?:\s+[A-Z][\w-]*)*)")
_OTHER_PLACES = ("Egypt", "Northern Europe", "East Asia", "Latin America")
_YEAR_RE = re.compile(r"\b(?:for|in|from|during)\s+(?:the\s+)?((?:18|19|20)\d\d)\b"
                      r"|\b((?:18|19|20)\d\d)\s+data\b", re.IGNORECASE)


def change_population(text: str, rng: np.random.Generator) -> str | None:
    """The text with one population word, place or data year changed (None: it has none)."""
    edits: list[tuple[int, int, str]] = []
    for m in _POP_RE.finditer(text):
        edits.append((m.start(), m.end(), _keep_case(m.group(), _POP_SWAP[m.group().lower()])))
    for m in _PLACE_RE.finditer(text):
        name = m.group(1)
        if name.lower() in _POP_SWAP or name.isupper():
            continue
        other = next(p for p in _OTHER_PLACES if p.lower() not in name.lower())
        edits.append((m.start(1), m.end(1), other))
    for m in _YEAR_RE.finditer(text):
        g = 1 if m.group(1) else 2
        edits.append((m.start(g), m.end(g), str(int(m.group(g)) + 5)))
    if not edits:
        return None
    a, b, new = sorted(edits)[int(rng.integers(len(edits)))]
    return text[:a] + new + text[b:]


# ----------------------------------------------------------------------------- variables

def _column_phrase(lexicon: ColumnLexicon, task: Task, column: str) -> str | None:
    for ds in task.datasets:
        for col in ds.columns:
            if col.name == column:
                head = description_head(col.description or "")
                if head and 1 <= len(head.split()) <= 5:
                    return head.lower()
    phrase = lexicon.phrase_for(column)
    return phrase.text if phrase else None


def drop_variable(text: str, lexicon: ColumnLexicon, rng: np.random.Generator) -> str | None:
    """The text without the mentions of one of its (at least two) named columns."""
    mentions = lexicon.mentions(text)
    columns = sorted({m.column for m in mentions})
    if len(columns) < 2:
        return None
    gone = columns[int(rng.integers(len(columns)))]
    out = text
    for m in sorted((m for m in mentions if m.column == gone), key=lambda m: -m.start):
        a, b = m.start, m.end
        after = re.match(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+or\s+)", out[b:])
        before = re.search(r"(?:,\s*(?:and\s+)?|\s+and\s+|\s+or\s+)$", out[:a])
        if before:
            a = before.start()
        elif after:
            b += after.end()
        out = out[:a] + out[b:]
    return out if out != text else None


def replace_variable(text: str, task: Task, lexicon: ColumnLexicon,
                     rng: np.random.Generator) -> str | None:
    """The text with one named column's mentions replaced by another column's phrase."""
    mentions = lexicon.mentions(text)
    named = sorted({m.column for m in mentions})
    others = [c for c in lexicon.columns if c not in named
              and _column_phrase(lexicon, task, c)]
    if not named or not others:
        return None
    gone = named[int(rng.integers(len(named)))]
    other = others[int(rng.integers(len(others)))]
    phrase = _column_phrase(lexicon, task, other) or other
    out = text
    for m in sorted((m for m in mentions if m.column == gone), key=lambda m: -m.start):
        out = out[: m.start] + phrase + out[m.end:]
    return out if out != text else None


# ------------------------------------------------------------------------------- suite

def perturbations(task: Task, seed: int = 0) -> list[Perturbation]:
    """Every applicable perturbation of a task's gold hypothesis (deterministic per seed)."""
    gold = task.gold_hypothesis or ""
    if not gold.strip():
        return []
    digest = sum(ord(ch) for ch in task.task_id)
    rng = np.random.default_rng([seed, digest])
    lexicon = ColumnLexicon.build(task.datasets)
    made = {
        "direction": flip_direction(gold),
        "variable_dropped": drop_variable(gold, lexicon, rng),
        "variable_replaced": replace_variable(gold, task, lexicon, rng),
        "number": change_number(gold, rng),
        "population": change_population(gold, rng),
    }
    return [Perturbation(kind, task.task_id, gold, text)
            for kind, text in made.items() if text is not None and text != gold]


def evaluate(tasks: Iterable[Task], judge: HypothesisJudge, seed: int = 0) -> list[PairResult]:
    """Score every (gold, perturbation) pair of the tasks' golds with ``judge``."""
    out: list[PairResult] = []
    for task in tasks:
        if not task.gold_hypothesis:
            continue
        gold_score = judge.score(task.gold_hypothesis, task.gold_hypothesis, task).performance
        for p in perturbations(task, seed):
            score = judge.score(p.text, task.gold_hypothesis, task).performance
            out.append(PairResult(p.kind, task.task_id, gold_score, score, p.text))
    return out


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a share ``k / n`` (``(nan, nan)`` for ``n = 0``)."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def shared_gold_tasks(data_root: Path) -> list[Task]:
    """The statistical tasks with a gold under the shared data folder: DiscoveryBench's
    dev splits (real/train, synth/dev) and the non-archaeology answer-key tasks."""
    from collabsim.metrics.judge_family import is_time_series_task
    from collabsim.tasks.discoverybench import load_tasks

    tasks: list[Task] = []
    for name in ("discoverybench_dev", "discoverybench"):
        root = Path(data_root) / name
        if not root.is_dir():
            raise FileNotFoundError(f"shared data folder not found: {root}")
        tasks += [t for t in load_tasks(root).tasks
                  if t.gold_hypothesis and not is_time_series_task(t)]
    return tasks


def summary(results: Sequence[PairResult]) -> list[tuple[str, int, int, float, float, float]]:
    """Per kind and overall: ``(kind, ordered, pairs, share, ci_low, ci_high)``."""
    rows = []
    for kind in (*KINDS, "overall"):
        sel = [r for r in results if kind == "overall" or r.kind == kind]
        k = sum(r.ordered for r in sel)
        lo, hi = wilson_interval(k, len(sel))
        rows.append((kind, k, len(sel), k / len(sel) if sel else math.nan, lo, hi))
    return rows
