"""The ``behaviour:`` block of a collaborator profile: timing, reactions and lead-in.

A profile YAML (``collabsim/participants/profiles/D.yaml`` or one written by
``collabsim calibrate``) may carry::

    behaviour:
      timing:    {tempo_mean: {value: ..., source: ...}, ...}   # TimingModel
      reactions: {adopt: {value: ..., source: ...}, ...}        # ReactionModel
      lead_in:   {probability: {value: ..., source: ...}, ...}  # LeadInModel (optional:
                                                                # without it, no lead-in)
      check:     {agree_adopt: {value: ..., source: ..., ci: [..]}, ...}  # CheckShift
                       # (optional: without it, reactions ignore what the check found)
      participation: {respond_code: {value: ..., source: ...}, ...}  # ParticipationModel
                       # (optional: without it, people answer only drafts and gates)

Every parameter names its source (``kolab:...`` or ``prior:...``).

The block may also live in a file of its own, named relative to the profile's folder::

    behaviour: behaviour.yaml      # a YAML file with the ``behaviour:`` block above

The packaged profiles ``D`` and ``R`` share one such file (``profiles/behaviour.yaml``: the
Kolab data has one kind of human), and ``collabsim calibrate`` writes its profiles the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml

from collabsim.participants.behaviour.lead_in import LeadInModel
from collabsim.participants.behaviour.params import BehaviourConfigError
from collabsim.participants.behaviour.participation import ParticipationModel
from collabsim.participants.behaviour.reactions import CheckShift, ReactionModel
from collabsim.participants.behaviour.timing import TimingModel

BEHAVIOUR_FILE = "behaviour.yaml"  # the shared block's file beside the profiles
BLOCKS: tuple[str, ...] = ("timing", "reactions")
OPTIONAL_BLOCKS: tuple[str, ...] = ("lead_in", "check", "participation")  # profiles calibrated before them load


@dataclass(frozen=True)
class BehaviourModel:
    """The fitted stochastic parts of one simulated human."""

    timing: TimingModel
    reactions: ReactionModel
    lead_in: LeadInModel | None = None
    check: CheckShift | None = None
    participation: ParticipationModel | None = None

    def to_dict(self) -> dict[str, Any]:
        """YAML form of the ``behaviour:`` block (an absent optional block is left out)."""
        blocks = {"timing": self.timing, "reactions": self.reactions, "lead_in": self.lead_in,
                  "check": self.check, "participation": self.participation}
        return {name: block.to_dict() for name, block in blocks.items() if block is not None}

    @classmethod
    def from_dict(cls, data: Any, block: str = "behaviour") -> BehaviourModel:
        """Read a ``behaviour:`` block.

        Raises:
            BehaviourConfigError: Naming the key that is missing, unknown or invalid.
        """
        if not isinstance(data, Mapping):
            raise BehaviourConfigError(f"{block}: expected a mapping")
        unknown = sorted(set(data) - set(BLOCKS) - set(OPTIONAL_BLOCKS))
        if unknown:
            raise BehaviourConfigError(f"{block}: unknown key(s) {', '.join(unknown)}")
        for key in BLOCKS:
            if key not in data:
                raise BehaviourConfigError(f"{block}: missing '{key}'")
        try:
            return cls(
                timing=TimingModel.from_dict(data["timing"], f"{block}.timing"),
                reactions=ReactionModel.from_dict(data["reactions"], f"{block}.reactions"),
                lead_in=(LeadInModel.from_dict(data["lead_in"], f"{block}.lead_in")
                         if "lead_in" in data else None),
                check=(CheckShift.from_dict(data["check"], f"{block}.check")
                       if "check" in data else None),
                participation=(ParticipationModel.from_dict(
                    data["participation"], f"{block}.participation")
                    if "participation" in data else None),
            )
        except ValueError as err:
            if isinstance(err, BehaviourConfigError):
                raise
            raise BehaviourConfigError(f"{block}: {err}") from None

    def sources(self) -> dict[str, str]:
        """``"timing.tempo_mean" -> source`` for every parameter."""
        return {f"{name}.{key}": entry["source"]
                for name, block in self.to_dict().items() for key, entry in block.items()}


def resolve_behaviour(value: Any, folder: Path | Traversable | None, where: str = "behaviour") -> Any:
    """A profile's ``behaviour:`` value with a file reference read from ``folder``.

    Args:
        value: The value of the profile's ``behaviour:`` key: the block itself (returned as
            is) or the name of a YAML file holding a ``behaviour:`` block, relative to the
            profile's folder.
        folder: The folder of the profile file (a path or a package's resources; None: the
            profile has no file).
        where: Names the profile in error messages.

    Raises:
        BehaviourConfigError: The file cannot be read or holds no ``behaviour:`` block.
    """
    if not isinstance(value, str):
        return value
    if folder is None:
        raise BehaviourConfigError(
            f"{where}: a behaviour file ({value}) is named relative to a profile file; "
            "give the block itself here"
        )
    source = folder.joinpath(value)
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise BehaviourConfigError(f"{where}: {source}: {' '.join(str(err).split())}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("behaviour"), Mapping):
        raise BehaviourConfigError(f"{where}: {source}: no 'behaviour:' block")
    return data["behaviour"]


def load_behaviour(path: str | Path) -> BehaviourModel:
    """Read the ``behaviour:`` block of a profile YAML file (or the file it names).

    Raises:
        BehaviourConfigError: Naming the file when it cannot be read or has no valid block.
    """
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise BehaviourConfigError(f"{path}: {err}") from None
    if not isinstance(data, Mapping) or "behaviour" not in data:
        raise BehaviourConfigError(f"{path}: no 'behaviour:' block")
    try:
        return BehaviourModel.from_dict(resolve_behaviour(data["behaviour"], path.parent))
    except BehaviourConfigError as err:
        raise BehaviourConfigError(f"{path}: {err}") from None
