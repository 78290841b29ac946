"""Fixed reference policies for the agent seat of the macro env (baselines of the studies).

Both read only what a learner gets - the feature vector and ``info["action_mask"]`` of
:class:`collabsim.envs.macro.MacroActions` - and return a macro index:

* :class:`IgnoreTeammates`: ``analyse_variant_0``, ``update_editor``, ``finish`` - the
  three-step policy that never talks to anyone (on the generated tasks under
  ``knowledge=everyone`` it scores 1.0);
* :class:`AskFirst`: first the ask macro of every kind of fact the brief leaves open
  (``ask_reading`` / ``ask_convention``), then waits until each question is answered (or the
  teammate said it does not know) for at most ``max_waits`` waits, then the three steps
  above (variant 0 applies the answers).

A step that is not valid yet (e.g. analysing before the work phase) is a ``wait``; an
``update_editor`` that cannot be played after the analysis (no result to write) is skipped.
"""

from __future__ import annotations

import numpy as np

from collabsim.envs.macro import AGENT_MACROS, ASK_KINDS, FEATURES

__all__ = ["AskFirst", "IgnoreTeammates", "REFERENCE_POLICIES", "asked_any"]

_M = {name: i for i, name in enumerate(AGENT_MACROS)}
_F = {name: i for i, name in enumerate(FEATURES)}
_THREE_STEPS = ("analyse_variant_0", "update_editor", "finish")


def asked_any(features: np.ndarray) -> bool:
    """Whether the learner has asked a teammate about a fact (``asked_<kind>`` features)."""
    return any(features[_F[f"asked_{kind}"]] > 0 for kind in ASK_KINDS)


class IgnoreTeammates:
    """``analyse_variant_0``, ``update_editor``, ``finish`` (see module docstring)."""

    name = "ignore"
    summary = ("never talks to a teammate: analyse_variant_0, update_editor, finish "
               "(what the agent's own brief supports)")

    def __init__(self) -> None:
        self._step = 0

    def reset(self) -> None:
        """Start a new episode."""
        self._step = 0

    def act(self, features: np.ndarray, mask: np.ndarray) -> int:
        """The macro to play given the features and action mask."""
        while self._step < len(_THREE_STEPS):
            name = _THREE_STEPS[self._step]
            if mask[_M[name]]:
                self._step += 1
                return _M[name]
            if name == "update_editor" and self._step > 0:
                self._step += 1  # nothing to write: finish
                continue
            return _M["wait"]
        return _M["finish"] if mask[_M["finish"]] else _M["wait"]


class AskFirst(IgnoreTeammates):
    """Ask the right teammate about every open kind of fact, wait for the answers (at most
    ``max_waits`` waits), then the three steps (see module docstring)."""

    name = "ask_first"
    summary = ("asks the right teammate about each open kind of fact (ask_reading -> R, "
               "ask_convention -> D), waits for the answers, then the three ignore steps")

    def __init__(self, max_waits: int = 10) -> None:
        super().__init__()
        self.max_waits = int(max_waits)
        self._waits = 0

    def reset(self) -> None:
        """Start a new episode."""
        super().reset()
        self._waits = 0

    def act(self, features: np.ndarray, mask: np.ndarray) -> int:
        """The macro to play given the features and action mask."""
        if self._step == 0:
            for kind in ASK_KINDS:
                if mask[_M[f"ask_{kind}"]]:
                    return _M[f"ask_{kind}"]
            waiting = any(
                features[_F[f"asked_{kind}"]] > 0 and not (
                    features[_F[f"answered_{kind}"]] > 0 or features[_F[f"unknown_{kind}"]] > 0)
                for kind in ASK_KINDS)
            if waiting and self._waits < self.max_waits:
                self._waits += 1
                return _M["wait"]
        return super().act(features, mask)


REFERENCE_POLICIES = {IgnoreTeammates.name: IgnoreTeammates, AskFirst.name: AskFirst}
