"""Compare fitted numbers with a tolerance, so tests pass on any CPU.

Fitted floats (maximum-likelihood estimates, optimiser results) differ in their last digits
between CPUs and BLAS builds (``-0.35609195734349125`` vs ``-0.3560919573434909``). Tests
that compare a fit made now with one stored in a file compare every float with
:data:`REL_TOL` relative / :data:`ABS_TOL` absolute tolerance; everything else (keys,
strings, counts, booleans) must match exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

REL_TOL = 1e-6
"""Relative tolerance for fitted numbers (a fit that moved by more is a real change)."""
ABS_TOL = 1e-9
"""Absolute tolerance for fitted numbers near zero."""


def fit_mismatches(actual: Any, expected: Any, path: str = "") -> list[str]:
    """Where two nested structures of fitted values differ beyond the tolerance."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return _exact_mismatch(actual, expected, path)
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return _number_mismatch(actual, expected, path)
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return _mapping_mismatches(actual, expected, path)
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return _sequence_mismatches(actual, expected, path)
    return _exact_mismatch(actual, expected, path)


def _exact_mismatch(actual: Any, expected: Any, path: str) -> list[str]:
    """The mismatch of two values that must be equal (none when they are)."""
    return [] if actual == expected else [f"{path}: {actual!r} != {expected!r}"]


def _number_mismatch(actual: float, expected: float, path: str) -> list[str]:
    """The mismatch of two numbers beyond the tolerance (two NaNs agree)."""
    if math.isnan(expected) and math.isnan(actual):
        return []
    close = math.isclose(actual, expected, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    return [] if close else [f"{path}: {actual!r} != {expected!r}"]


def _mapping_mismatches(actual: Mapping, expected: Mapping, path: str) -> list[str]:
    """Different keys, or the mismatches of the values key by key."""
    if set(actual) != set(expected):
        return [f"{path}: keys {sorted(actual)} != {sorted(expected)}"]
    return [m for k in expected for m in fit_mismatches(actual[k], expected[k], f"{path}.{k}")]


def _sequence_mismatches(actual: list | tuple, expected: list | tuple, path: str) -> list[str]:
    """Different lengths, or the mismatches of the items in order."""
    if len(actual) != len(expected):
        return [f"{path}: {len(actual)} items != {len(expected)}"]
    return [m for i, (a, e) in enumerate(zip(actual, expected, strict=True))
            for m in fit_mismatches(a, e, f"{path}[{i}]")]


def assert_same_fit(actual: Any, expected: Any) -> None:
    """Assert two fits agree: floats within the tolerance, everything else exactly."""
    mismatches = fit_mismatches(actual, expected)
    assert not mismatches, "fitted values differ: " + "; ".join(mismatches[:5])
