"""Time expressions: years, ranges, centuries, millennia, named periods and query windows.

Every expression becomes a :class:`TimeAnchor`, a closed interval ``[lo, hi]`` of CE years
(BCE years are negative, as in the archaeology data's ``CE`` column: 2300 BCE -> ``-2300``).

Recognised forms (case-insensitive; ``–``/``—``/``−`` read as ``-``):

* single years: ``around 1800 BCE``, ``in 1700 BC``, ``-2300`` (a signed CE number as in the
  data), ``500 AD``, ``6050 calBP`` (-> ``1950 - 6050``), ``the 1700s BCE`` (the century bin);
* ranges: ``between 3400 and 3000 BCE``, ``3400 BCE to 3000 BCE``, ``1100-500BCE``,
  ``2300/2200 BCE``, ``1600 BCE & 1700 BCE`` (the era of either end applies to both);
* centuries and millennia: ``the 23rd century BCE`` -> ``[-2300, -2201]``,
  ``4th millennium BCE`` -> ``[-4000, -3001]``;
* named periods (:data:`DEFAULT_PERIODS`, extendable; periods defined in a task's text as
  ``Name (3400-3000 BCE)`` are learnt by :func:`learn_periods`). A period name followed by a
  parenthesised span uses that span;
* qualifiers ``beginning/start/onset of``, ``middle of``, ``end/close of`` (and ``early``/
  ``mid``/``late`` before a century or millennium) narrow a span to its first, middle or last
  third (at least 100 years).

Numbers followed by ``year(s)`` are durations (``the past 500 years``, ``100-year bins``) and
are ignored, as are decimals and digits inside identifiers (``pollen_inter_100``, ``PC1``).
A year without an era takes the era written elsewhere in the same text, else ``default_era``.

Participants read time more narrowly than the judge: :func:`query_window` (the bounded period
a query asks about), :func:`claim_years` (the years a drafted hypothesis claims) and
:func:`year_text` / :func:`format_window` for writing years and windows.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from collabsim.domain.thresholds import DEFAULT_TOLERANCE_YEARS

__all__ = [
    "DEFAULT_PERIODS", "DEFAULT_TOLERANCE_YEARS", "TimeAnchor", "anchors_overlap",
    "claim_years", "context_scores", "extract_time_anchors", "format_window", "learn_periods",
    "mentions_year", "normalise", "parse_window", "query_window", "strip_frame", "year_text",
    "years_in_text",
]

#: Named periods of the archaeology tasks (northern Germany), CE years, from the queries and
#: golds of DiscoveryBench archaeology (e.g. "Middle Neolithic (3400-3000 BCE)") and the
#: ``group`` column of capital.csv (EN, MN, SG = Younger Neolithic, LN, OBA, YBA).
DEFAULT_PERIODS: Mapping[str, tuple[int, int]] = {
    "early neolithic": (-4000, -3500),
    "middle neolithic": (-3400, -3000),
    "younger neolithic": (-2900, -2300),
    "young neolithic": (-2900, -2300),
    "single grave culture": (-2900, -2300),
    "late neolithic": (-2200, -1700),
    "final neolithic": (-2200, -1700),
    "neolithic": (-4000, -1700),
    "older bronze age": (-1600, -1200),
    "early bronze age": (-1600, -1200),
    "younger bronze age": (-1100, -500),
    "late bronze age": (-1100, -500),
    "bronze age": (-1600, -500),
}

_ERA = r"(?:b\.?\s?c\.?\s?e\.?|b\.?\s?c\.?|c\.?\s?e\.?|a\.?\s?d\.?|(?:cal\.?\s?)?bp)"
_NUM = r"(-?\d{1,5})"
_NOT_DURATION = r"(?!\s*-?\s*(?:years?|yrs?|y)\b)"
_LEFT = r"(?<![\w.,])"
_RIGHT = r"(?!\w|[.,]\d)"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)"
_QUAL_BEFORE = re.compile(
    r"(beginning|start|onset|dawn|middle|mid|end|close|early|late)(?:\s+(?:part|phase))?"
    r"(?:\s+of)?(?:\s+the)?\s*-?\s*$",
    re.IGNORECASE,
)
_MILLENNIUM = re.compile(
    _LEFT + r"(?:the\s+)?" + _ORD + r"\s+millenn?i(?:um|a)\s*(" + _ERA + r")?" + _RIGHT,
    re.IGNORECASE,
)
_CENTURY = re.compile(
    _LEFT + r"(?:the\s+)?" + _ORD + r"\s+centur(?:y|ies)\s*(" + _ERA + r")?" + _RIGHT,
    re.IGNORECASE,
)
_RANGE = re.compile(
    _LEFT + _NUM + r"(s)?\s*(" + _ERA + r")?" + _RIGHT
    + r"\s*(?:-|/|to|and|&|until|till|through)\s*"
    + _NUM + r"(s)?" + _NOT_DURATION + r"\s*(" + _ERA + r")?" + _RIGHT,
    re.IGNORECASE,
)
_YEAR = re.compile(
    _LEFT + _NUM + r"(s)?" + _NOT_DURATION + r"\s*(" + _ERA + r")?" + _RIGHT, re.IGNORECASE
)
_ANY_ERA = re.compile(r"\d\s*(" + _ERA + r")" + _RIGHT, re.IGNORECASE)
_PAREN = re.compile(r"\s*\(([^()]*)\)")


@dataclass(frozen=True)
class TimeAnchor:
    """A time expression as a closed CE-year interval (BCE negative)."""

    lo: int
    hi: int
    text: str
    kind: str

    @property
    def is_point(self) -> bool:
        """True when the anchor is a single year."""
        return self.lo == self.hi


def normalise(text: str) -> str:
    """Unify dashes and minus signs, drop thousands separators ("2,300"), fix misspellings."""
    out = re.sub("[\u2010-\u2015\u2212]", "-", text)
    out = re.sub(r"(?<![\d.,])(\d{1,2}),(\d{3})(?![\d.,]*\d)", r"\1\2", out)  # 2,300 -> 2300
    return re.sub(r"millenium", "millennium", out, flags=re.IGNORECASE)


def _era_kind(era: str | None) -> str | None:
    if not era:
        return None
    e = re.sub(r"[\s.]", "", era.lower())
    if e.endswith("bp"):
        return "BP"
    if e in ("bce", "bc"):
        return "BCE"
    return "CE"


def _to_ce(value: int, era: str | None) -> int:
    """Convert a written year and its era to a CE year (BCE negative)."""
    if value < 0:
        return value
    if era == "BP":
        return 1950 - value
    if era == "BCE":
        return -value
    return value


def _qualify(lo: int, hi: int, qualifier: str | None) -> tuple[int, int]:
    """Narrow ``[lo, hi]`` to its first/middle/last third (at least 100 years)."""
    if not qualifier or hi - lo < 200:
        return lo, hi
    q = qualifier.lower()
    part = max(100, int(round((hi - lo) / 3 / 100.0)) * 100)
    if q in ("beginning", "start", "onset", "dawn", "early"):
        return lo, min(hi, lo + part)
    if q in ("end", "close", "late"):
        return max(lo, hi - part), hi
    mid = (lo + hi) // 2
    return max(lo, mid - part // 2), min(hi, mid + part // 2)


def _qualifier_before(text: str, start: int) -> str | None:
    m = _QUAL_BEFORE.search(text[max(0, start - 40) : start])
    return m.group(1) if m else None


def learn_periods(text: str) -> dict[str, tuple[int, int]]:
    """Learn period definitions written as ``Some Period (3400-3000 BCE)`` in a text.

    Args:
        text: Any text (query, domain knowledge, gold).

    Returns:
        Lower-cased period name -> ``(lo, hi)`` CE span.
    """
    return dict(_learn_periods(text))


# Every metric of every session learns the periods of the same task texts again.
@functools.lru_cache(maxsize=1024)
def _learn_periods(text: str) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    pat = re.compile(
        r"((?:[A-Z][a-z]+\s+){0,3}(?:Age|Neolithic|Period|Phase|Era|Culture))\s*\(([^()]*)\)"
    )
    for m in pat.finditer(normalise(text)):
        anchors = _numeric_anchors(m.group(2), default_era="BCE")
        if anchors:
            out[m.group(1).strip().lower()] = (
                min(a.lo for a in anchors),
                max(a.hi for a in anchors),
            )
    return out


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _numeric_anchors(text: str, default_era: str) -> list[TimeAnchor]:
    """Anchors from millennia, centuries, ranges and single years (no period names)."""
    anchors: list[tuple[int, TimeAnchor]] = []
    eras = {_era_kind(m.group(1)) for m in _ANY_ERA.finditer(text)} - {None}
    text_era = "BCE" if "BCE" in eras else ("CE" if eras == {"CE"} else default_era)
    work = text
    for pat, size, kind in ((_MILLENNIUM, 1000, "millennium"), (_CENTURY, 100, "century")):
        for m in pat.finditer(work):
            n = int(m.group(1))
            era = _era_kind(m.group(2)) or text_era
            lo, hi = (-n * size, -(n - 1) * size - 1) if era == "BCE" else (
                (n - 1) * size + 1, n * size)
            lo, hi = _qualify(lo, hi, _qualifier_before(work, m.start()))
            anchors.append((m.start(), TimeAnchor(lo, hi, m.group(0).strip(), kind)))
            work = _blank(work, m.start(), m.end())
    for m in _RANGE.finditer(work):
        a, b = int(m.group(1)), int(m.group(4))
        era_a, era_b = _era_kind(m.group(3)), _era_kind(m.group(6))
        if not _plausible(a, era_a or era_b) or not _plausible(b, era_a or era_b):
            continue
        ya = _to_ce(a, era_a or era_b or text_era)
        yb = _to_ce(b, era_b or era_a or text_era)
        lo, hi = min(ya, yb), max(ya, yb)
        if m.group(5):  # "1700s"
            hi = hi + 99 if hi > 0 else hi
        lo, hi = _qualify(lo, hi, _qualifier_before(work, m.start()))
        anchors.append((m.start(), TimeAnchor(lo, hi, m.group(0).strip(), "range")))
        work = _blank(work, m.start(), m.end())
    for m in _YEAR.finditer(work):
        value = int(m.group(1))
        era = _era_kind(m.group(3))
        if not _plausible(value, era):
            continue
        y = _to_ce(value, era or text_era)
        anchors.append((m.start(), TimeAnchor(y, y, m.group(0).strip(), "year")))
        work = _blank(work, m.start(), m.end())
    return [a for _, a in sorted(anchors, key=lambda p: p[0])]


def _plausible(value: int, era: str | None) -> bool:
    """A number can be a year: 3-4 digits, or any size with an explicit era/sign."""
    if value < 0:
        return 100 <= -value <= 99999
    if era:
        return 1 <= value <= 99999
    return 100 <= value <= 9999


def extract_time_anchors(
    text: str,
    periods: Mapping[str, tuple[int, int]] | None = None,
    default_era: str = "BCE",
) -> list[TimeAnchor]:
    """Extract every time expression of a text as anchors, in reading order.

    Args:
        text: Hypothesis or any text.
        periods: Named periods (lower-case name -> CE span); defaults to
            :data:`DEFAULT_PERIODS`.
        default_era: Era of years written without one when the text names none
            (``"BCE"`` or ``"CE"``).

    Returns:
        The anchors found (possibly empty).
    """
    items = tuple((DEFAULT_PERIODS if periods is None else periods).items())
    try:
        return list(_cached_anchors(text, items, default_era))
    except TypeError:  # a period span that cannot be hashed (a list): compute directly
        return list(_anchors(text, items, default_era))


def _anchors(
    text: str, items: tuple[tuple[str, tuple[int, int]], ...], default_era: str
) -> tuple[TimeAnchor, ...]:
    table = dict(items)
    work = normalise(text)
    found: list[tuple[int, TimeAnchor]] = []
    names = sorted(table, key=len, reverse=True)
    if names:
        pat = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b", re.IGNORECASE)
        for m in list(pat.finditer(work)):
            if not work[m.start() : m.end()].strip():
                continue  # already consumed by a longer name
            lo, hi = table[m.group(1).lower()]
            end = m.end()
            paren = _PAREN.match(work, end)
            if paren:
                inner = _numeric_anchors(paren.group(1), default_era)
                if inner:
                    lo, hi = min(a.lo for a in inner), max(a.hi for a in inner)
                    end = paren.end()
            lo, hi = _qualify(lo, hi, _qualifier_before(work, m.start()))
            found.append((m.start(), TimeAnchor(lo, hi, work[m.start() : end].strip(), "period")))
            work = _blank(work, m.start(), end)
    numeric = _numeric_anchors(work, default_era)
    # keep reading order: numeric anchors are located by their text
    for a in numeric:
        found.append((work.find(a.text), a))
    return tuple(a for _, a in sorted(found, key=lambda p: p[0]))


# The judge and the process metrics read the anchors of the same hypotheses, golds and
# queries many times per grid; the period table (in its order) is part of the key.
_cached_anchors = functools.lru_cache(maxsize=8192)(_anchors)


def strip_frame(anchors: Sequence[TimeAnchor], frame: Sequence[TimeAnchor]) -> list[TimeAnchor]:
    """Drop anchors that restate the query's own time frame (same span as a query anchor).

    "the highest growth of the period between 3000 and 2000 BCE" restates the window the
    query asked about; it is the question's frame, not the answer's context. When every
    anchor is part of the frame (the context *is* the asked period) all are kept.
    """
    spans = {(f.lo, f.hi) for f in frame}
    kept = [a for a in anchors if (a.lo, a.hi) not in spans]
    return kept if kept else list(anchors)


def _dilate(a: TimeAnchor, tol: int) -> tuple[int, int]:
    return a.lo - tol, a.hi + tol


def anchors_overlap(a: TimeAnchor, b: TimeAnchor, tol: int = DEFAULT_TOLERANCE_YEARS) -> bool:
    """True when ``a`` widened by ``tol`` years on each side meets ``b``."""
    lo, hi = _dilate(a, tol)
    return lo <= b.hi and b.lo <= hi


def _inside_fraction(claim: TimeAnchor, gold: TimeAnchor, tol: int) -> float:
    lo, hi = _dilate(gold, tol)
    if claim.is_point:
        return 1.0 if lo <= claim.lo <= hi else 0.0
    inter = min(hi, claim.hi) - max(lo, claim.lo)
    return max(0.0, inter) / (claim.hi - claim.lo)


def context_scores(
    claim: Sequence[TimeAnchor],
    gold: Sequence[TimeAnchor],
    tol: int = DEFAULT_TOLERANCE_YEARS,
) -> tuple[float, float]:
    """Temporal context recall and precision of a claim against a gold.

    * recall = share of gold anchors met by some claim anchor widened by ``tol`` years;
    * precision = mean over claim anchors of the best share of the claim anchor that lies
      inside a gold anchor widened by ``tol`` (a point scores 1 or 0, so an over-wide claim
      range such as "4000-500 BCE" against a gold century scores low).

    A gold without anchors leaves the context unconstrained: ``(1.0, 1.0)``. A claim without
    anchors against a gold with anchors scores ``(0.0, 0.0)``.

    Returns:
        ``(recall, precision)``, each in [0, 1].
    """
    if not gold:
        return 1.0, 1.0
    if not claim:
        return 0.0, 0.0
    recall = sum(any(anchors_overlap(c, g, tol) for c in claim) for g in gold) / len(gold)
    precision = sum(max(_inside_fraction(c, g, tol) for g in gold) for c in claim) / len(claim)
    return recall, precision


def years_in_text(text: str) -> set[int]:
    """Signed integers that can be years (3-5 digits, no decimals) in code output.

    Positive numbers are returned both as written and negated, since outputs print CE years
    (``-2300``) or BCE years (``2300``, capital.csv).
    """
    out: set[int] = set()
    for m in re.finditer(r"(?<![\w.])(-?\d{3,5})(?:\.0+)?(?![\w]|\.\d)", normalise(text)):
        v = int(m.group(1))
        if 100 <= abs(v) <= 99999:
            out.add(v)
            if v > 0:
                out.add(-v)
    return out


# ------------------------------------------------------------- participants' narrow readings

#: ``between A and B [era]`` (era of the end applies to both; BCE when none is written).
WINDOW_RE = re.compile(
    r"between\s+(\d{1,4})\s*(?:BCE|BC)?\s*(?:and|to|&|-|–)\s*(\d{1,4})\s*(BCE|BC|CE|AD)?",
    re.IGNORECASE,
)
_ERA_YEAR_RE = re.compile(r"\b(\d{1,4})\s*(BCE|BC|CE|AD)\b", re.IGNORECASE)


def year_text(ce: int) -> str:
    """Render a CE year as text: ``-2300`` -> ``"2300 BCE"``, ``200`` -> ``"200 CE"``."""
    return f"{-ce} BCE" if ce < 0 else f"{ce} CE"


def format_window(window: tuple[int, int] | None) -> str:
    """``(-3000, -2000)`` -> ``"-3000..-2000"``; None -> ``"none"``."""
    return "none" if window is None else f"{window[0]}..{window[1]}"


def parse_window(text: str) -> tuple[int, int] | None:
    """Inverse of :func:`format_window` (None for anything unparseable)."""
    match = re.fullmatch(r"\s*(-?\d+)\.\.(-?\d+)\s*", text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def _window_ends(match: re.Match[str]) -> tuple[int, int]:
    bce = (match.group(3) or "BCE").upper() in ("BCE", "BC")
    a, b = int(match.group(1)), int(match.group(2))
    return (-a, -b) if bce else (a, b)


def query_window(text: str) -> tuple[int, int] | None:
    """The bounded period a query asks about (``between 3000 and 2000 BCE``), or None.

    Returns:
        ``(start CE, end CE)`` with start < end; None without a period or when both ends
        are equal.
    """
    match = WINDOW_RE.search(text)
    if not match:
        return None
    lo, hi = sorted(_window_ends(match))
    return (lo, hi) if lo != hi else None


def claim_years(text: str) -> tuple[int, ...]:
    """Years a hypothesis claims (CE, BCE negative).

    Years inside a ``between A and B`` period are left out when other years are named
    (``"Around 2300 BCE, ... between 3000 and 2000 BCE"`` claims 2300 BCE); when the period
    is all the text names, its years are the claim.
    """
    spans = [m.span() for m in WINDOW_RE.finditer(text)]
    outside: list[int] = []
    for m in _ERA_YEAR_RE.finditer(text):
        if any(s <= m.start() < e for s, e in spans):
            continue
        value = int(m.group(1))
        outside.append(-value if m.group(2).upper() in ("BCE", "BC") else value)
    if not outside:
        for s, e in spans:  # "between 2400 and 2300 BCE": both ends are BCE years
            window = WINDOW_RE.match(text, s, e)
            if window is not None:
                outside += list(_window_ends(window))
    return tuple(outside)


def mentions_year(text: str, ce: int) -> bool:
    """Whether ``text`` writes the year ``ce`` (as its absolute number, not inside another)."""
    return re.search(rf"(?<!\d){abs(ce)}(?!\d)", text) is not None
