"""The ``coordination`` config group's defaults, taken from the engine's spec.

:class:`~collabsim.core.coordination.CoordinationSpec` is the one home of the coordination
defaults. Hydra can override a key by name (``coordination.loafing=0.5``) only when the
composed config holds it, so the CLI stores the spec's defaults as the config
``coordination/spec`` in Hydra's ConfigStore, and every option of ``configs/coordination/``
composes it first (``defaults: [spec, _self_]``), then sets only what it changes. No YAML file
restates a number.
"""

from __future__ import annotations

from dataclasses import asdict

from collabsim.core.coordination import CoordinationSpec

GROUP = "coordination"
SPEC_NAME = "spec"
"""The ConfigStore name of the defaults in ``configs/coordination/`` (``defaults: [spec]``)."""


def register_coordination_defaults() -> None:
    """Store :class:`CoordinationSpec`'s defaults as ``coordination/spec`` (idempotent)."""
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(group=GROUP, name=SPEC_NAME, node=asdict(CoordinationSpec()),
                                 provider="collabsim")
