"""The defaults of ``run.*`` and ``sandbox.*``, composed from the typed settings.

:class:`~collabsim.experiment.settings.RunSettings` and
:class:`~collabsim.experiment.settings.SandboxSettings` hold these defaults (the turn and time
budgets are the engine's :data:`collabsim.session.config.MAX_TURNS` and
:data:`~collabsim.session.config.MAX_VIRTUAL_SECONDS`, the sandbox limits
``collabsim.sandbox.SandboxLimits``'s), and the gym environments use the same constants. Hydra
still needs the keys in the composed config (``run.max_turns=20`` overrides a key; an absent
one would need ``+``), so this module stores the two sections, read from the typed settings,
as the config node ``collabsim_defaults`` in Hydra's ConfigStore; ``configs/config.yaml``
lists it first in its defaults and restates none of the values, and every group, experiment
and override sets them on top.
"""

from __future__ import annotations

from typing import Any

NODE = "collabsim_defaults"
"""The ConfigStore name ``configs/config.yaml`` lists in its defaults."""


def typed_defaults() -> dict[str, Any]:
    """``run`` and ``sandbox`` with the typed settings' defaults."""
    from collabsim.experiment.settings import RunSettings, SandboxSettings

    return {"run": RunSettings().model_dump(), "sandbox": SandboxSettings().model_dump()}


def register_typed_defaults() -> None:
    """Store :func:`typed_defaults` as the config node :data:`NODE` (before anything
    composes a config)."""
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name=NODE, node=typed_defaults(), provider="collabsim")
