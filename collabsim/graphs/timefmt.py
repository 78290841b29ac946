"""Clock-time text <-> seconds, for the time fields of Kolab graph files.

Kolab files write a node's time as one or more ranges, ``"HH:MM:SS-HH:MM:SS"``, joined by
commas. The explorer transcription mixes formats, so the parser accepts all of them:

* ``H:MM:SS`` / ``HH:MM:SS`` (two colons: hours, minutes, seconds),
* ``M:SS`` / ``MM:SS`` (one colon: minutes, seconds; minutes may exceed 59, ``"60:54"``),
* a bare number of seconds (``"75"`` or ``"75.5"``),
* seconds with a fractional part in any of the above (``"00:01:05.25"``),
* a hyphen, en dash, em dash or minus sign between the ends of a range, spaces around it,
* several ranges separated by commas or semicolons.

Writers use :func:`format_clock`: ``HH:MM:SS`` with the fraction kept when the value is not
a whole number of seconds, so ``parse_clock(format_clock(x)) == x`` for every float that is
the nearest float to a value with at most 6 decimals (trace times are written that way).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

Interval = tuple[float, float]

_RANGE_SEP = re.compile(r"\s*[-\u2010\u2011\u2012\u2013\u2014\u2212]\s*")
_LIST_SEP = re.compile(r"[,;]")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


class TimeFormatError(ValueError):
    """A clock-time text could not be parsed; the message names the text."""


def parse_clock(text: str) -> float:
    """Parse one clock time into seconds.

    Args:
        text: ``"H:MM:SS"``, ``"MM:SS"`` or ``"SS"``, each part optionally fractional in
            its last field.

    Returns:
        The time in seconds.

    Raises:
        TimeFormatError: If the text is not a clock time.
    """
    raw = text.strip()
    parts = raw.split(":")
    if not raw or len(parts) > 3 or not all(_NUMBER.match(p) for p in parts):
        raise TimeFormatError(f"not a clock time: {text!r}")
    if any("." in p for p in parts[:-1]):
        raise TimeFormatError(f"only the seconds field may be fractional: {text!r}")
    if len(parts) >= 2 and float(parts[-1]) >= 60:
        raise TimeFormatError(f"seconds field out of range in {text!r}")
    if len(parts) == 3 and int(parts[1]) >= 60:
        raise TimeFormatError(f"minutes field out of range in {text!r}")
    whole, _, frac = parts[-1].partition(".")
    total = 0
    for part in [*parts[:-1], whole]:
        total = total * 60 + int(part)
    # one decimal-to-float conversion: exact inverse of format_clock for 6-decimal values
    return float(f"{total}.{frac or '0'}")


def parse_range(text: str) -> Interval:
    """Parse one ``"start-end"`` range (any dash) into ``(start, end)`` seconds.

    A single time without a dash is a zero-length range.

    Raises:
        TimeFormatError: If the text is not a range of clock times.
    """
    ends = [p for p in _RANGE_SEP.split(text.strip())]
    if len(ends) == 1:
        t = parse_clock(ends[0])
        return (t, t)
    if len(ends) != 2:
        raise TimeFormatError(f"not a time range: {text!r}")
    return (parse_clock(ends[0]), parse_clock(ends[1]))


def parse_intervals(text: str | Iterable[str] | None) -> tuple[Interval, ...]:
    """Parse a node's time field into intervals in source order.

    Args:
        text: One string of comma-separated ranges, a list of such strings (Kolab graph
            JSON), or None / empty for "no time".

    Returns:
        The ``(start, end)`` intervals in the order written (callers decide about sorting
        and reversed ranges).

    Raises:
        TimeFormatError: If any range cannot be parsed; the message names the range.
    """
    if text is None:
        return ()
    pieces: list[str] = []
    if isinstance(text, str):
        pieces = _LIST_SEP.split(text)
    else:
        for item in text:
            if not isinstance(item, str):
                raise TimeFormatError(f"time entry is not text: {item!r}")
            pieces.extend(_LIST_SEP.split(item))
    return tuple(parse_range(p) for p in pieces if p.strip())


def format_clock(seconds: float) -> str:
    """Format seconds as ``HH:MM:SS`` (hours not wrapped; fraction kept when present).

    Raises:
        ValueError: For negative or non-finite values.
    """
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"cannot format time {seconds!r}")
    micro = round(seconds * 1_000_000)
    whole, frac = divmod(micro, 1_000_000)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    out = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    if frac:
        out += ("." + f"{frac:06d}").rstrip("0")
    return out


def format_range(interval: Interval) -> str:
    """Format ``(start, end)`` as ``"HH:MM:SS-HH:MM:SS"``."""
    return f"{format_clock(interval[0])}-{format_clock(interval[1])}"


def format_intervals(intervals: Iterable[Interval]) -> str:
    """Format intervals as comma-separated ranges (``""`` for none)."""
    return ", ".join(format_range(iv) for iv in intervals)
