"""The defaults of ``run.*``, ``sandbox.*``, ``metrics.*`` and ``policy.agent``, composed
from the typed settings and the scripted policies' parameters.

:class:`~collabsim.experiment.settings.RunSettings` and
:class:`~collabsim.experiment.settings.SandboxSettings` hold these defaults (the turn and time
budgets are the engine's :data:`collabsim.session.config.MAX_TURNS` and
:data:`~collabsim.session.config.MAX_VIRTUAL_SECONDS`, the sandbox limits
``collabsim.sandbox.SandboxLimits``'s), and the gym environments use the same constants. Hydra
still needs the keys in the composed config (``run.max_turns=20`` overrides a key; an absent
one would need ``+``), so this module stores the two sections, read from the typed settings,
as the config node ``collabsim_defaults`` in Hydra's ConfigStore; ``configs/config.yaml``
lists it first in its defaults and restates none of the values, and every group, experiment
and override sets them on top. ``configs/policy/scripted.yaml`` composes the scripted
policies' parameters the same way (:func:`scripted_policy_defaults`, written once in
:mod:`collabsim.participants.scripted_params`), so ``policy.agent.deference=0.75`` overrides
a key.
"""

from __future__ import annotations

import copy
from typing import Any

NODE = "collabsim_defaults"
"""The ConfigStore name ``configs/config.yaml`` lists in its defaults."""

SCRIPTED_POLICY_NODE = "collabsim_scripted_policy"
"""The ConfigStore name ``configs/policy/scripted.yaml`` composes at its own package."""


def typed_defaults() -> dict[str, Any]:
    """``run``, ``sandbox`` and ``metrics`` with the typed settings' defaults."""
    from collabsim.experiment.settings import MetricsSettings, RunSettings, SandboxSettings

    return {"run": RunSettings().model_dump(), "sandbox": SandboxSettings().model_dump(),
            "metrics": MetricsSettings().model_dump()}


def scripted_policy_defaults() -> dict[str, Any]:
    """``policy.agent`` and ``policy.collaborator`` with the scripted policies' defaults
    (:data:`collabsim.participants.scripted_params.AGENT_DEFAULTS`)."""
    from collabsim.participants.scripted_params import AGENT_DEFAULTS, COLLABORATOR_DEFAULTS

    return copy.deepcopy({"agent": AGENT_DEFAULTS, "collaborator": COLLABORATOR_DEFAULTS})


def register_typed_defaults() -> None:
    """Store :func:`typed_defaults` as the config node :data:`NODE` and
    :func:`scripted_policy_defaults` as :data:`SCRIPTED_POLICY_NODE` (before anything
    composes a config)."""
    from hydra.core.config_store import ConfigStore

    store = ConfigStore.instance()
    store.store(name=NODE, node=typed_defaults(), provider="collabsim")
    store.store(name=SCRIPTED_POLICY_NODE, node=scripted_policy_defaults(),
                provider="collabsim")
