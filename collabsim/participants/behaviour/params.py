"""A behavioural parameter: a value together with where it comes from.

Every number of the behavioural model carries its provenance so that a reader of a profile
can tell a fitted value from an assumption:

* ``kolab:<file>: <statistic>`` — fitted by ``collabsim calibrate`` from a Kolab file, with
  the statistic that produced it (e.g. ``kolab:explorer_sessions.json: 152/247 responses``);
* ``prior:<reference>`` — a documented prior (a citation or a stated assumption).

The YAML form of a parameter is ``{value: ..., source: ...}``, plus ``ci: [low, high]`` (a 95 %
interval) where the fit gives one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Self

SOURCE_PREFIXES: tuple[str, ...] = ("kolab:", "prior:")


class BehaviourConfigError(ValueError):
    """A behaviour block is malformed; the message names the offending key."""


@dataclass(frozen=True)
class Param:
    """One scalar parameter of the behavioural model.

    Attributes:
        value: The parameter value.
        source: ``kolab:<file>: <statistic>`` or ``prior:<reference>``.
        ci: 95 % interval of a fitted value (None where none is given).
    """

    value: float
    source: str
    ci: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.value, int | float) or not math.isfinite(self.value):
            raise BehaviourConfigError(f"parameter value must be a finite number: {self.value!r}")
        if not self.source.startswith(SOURCE_PREFIXES):
            raise BehaviourConfigError(
                f"parameter source must start with 'kolab:' or 'prior:': {self.source!r}"
            )
        object.__setattr__(self, "value", float(self.value))
        if self.ci is not None:
            lo, hi = (float(x) for x in self.ci)
            if not lo <= hi:
                raise BehaviourConfigError(f"parameter ci must be [low, high]: {self.ci!r}")
            object.__setattr__(self, "ci", (lo, hi))

    def __float__(self) -> float:
        return self.value

    def to_dict(self) -> dict[str, Any]:
        """The YAML form ``{value, source}`` (and ``ci`` when given)."""
        out: dict[str, Any] = {"value": self.value, "source": self.source}
        if self.ci is not None:
            out["ci"] = [self.ci[0], self.ci[1]]
        return out

    @classmethod
    def from_dict(cls, data: Any, name: str) -> Param:
        """Read ``{value, source}``; ``name`` is used in error messages.

        Raises:
            BehaviourConfigError: Naming ``name`` when the entry is not a valid parameter.
        """
        if not isinstance(data, Mapping) or "value" not in data or "source" not in data:
            raise BehaviourConfigError(f"{name}: expected a mapping with 'value' and 'source'")
        value = data["value"]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BehaviourConfigError(f"{name}: value must be a number, got {value!r}")
        ci = data.get("ci")
        if ci is not None and (not isinstance(ci, list | tuple) or len(ci) != 2 or any(
                isinstance(x, bool) or not isinstance(x, int | float) for x in ci)):
            raise BehaviourConfigError(f"{name}: ci must be [low, high], got {ci!r}")
        try:
            return cls(float(value), str(data["source"]),
                       None if ci is None else (float(ci[0]), float(ci[1])))
        except BehaviourConfigError as err:
            raise BehaviourConfigError(f"{name}: {err}") from None


def params_from_mapping(data: Any, names: tuple[str, ...], block: str) -> dict[str, Param]:
    """Read the parameters ``names`` of block ``block`` (unknown or missing keys are errors).

    Raises:
        BehaviourConfigError: Naming ``block.key`` for a missing, unknown or invalid entry.
    """
    if not isinstance(data, Mapping):
        raise BehaviourConfigError(f"{block}: expected a mapping")
    unknown = sorted(set(data) - set(names))
    if unknown:
        raise BehaviourConfigError(f"{block}: unknown parameter(s) {', '.join(unknown)}")
    missing = [n for n in names if n not in data]
    if missing:
        raise BehaviourConfigError(f"{block}: missing parameter(s) {', '.join(missing)}")
    return {n: Param.from_dict(data[n], f"{block}.{n}") for n in names}


class ParamBlock:
    """Base of a frozen dataclass whose every field is a :class:`Param` (a YAML block).

    Subclasses set :attr:`BLOCK`, the block's path in a profile, used in error messages.
    """

    BLOCK: ClassVar[str] = "behaviour"

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Parameter names in declaration order."""
        return tuple(f.name for f in fields(cls))  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        """YAML form: ``{name: {value, source}}``."""
        return {n: getattr(self, n).to_dict() for n in self.names()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], block: str | None = None) -> Self:
        """Read the YAML form (every parameter required, unknown keys rejected).

        Args:
            data: The block's mapping.
            block: Its path for error messages (default :attr:`BLOCK`).
        """
        return cls(**params_from_mapping(data, cls.names(), block or cls.BLOCK))
