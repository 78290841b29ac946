"""collabsim's defaults for Hydra sweepers: an Optuna search maximises.

A search's objective is the job's mean Performance (``hydra_main`` returns it), so a higher
value is better; hydra-optuna-sweeper's own default is ``minimize``, which would make
``hydra/sweeper=optuna`` search for the worst settings. The plugin's config is a structured
config in Hydra's ConfigStore (a YAML file of the same name under ``configs/`` would be
merged onto it and is refused), so collabsim stores it again with ``maximize``, once, after
Hydra's plugin scan and before anything composes. ``hydra.sweeper.direction=minimize`` (or an experiment config) still
overrides it.
"""

from __future__ import annotations

OBJECTIVE = "the job's mean Performance"
"""What an Optuna trial's value is (the report names it with the direction)."""

DEFAULT_DIRECTION = "maximize"
"""The direction of an Optuna search unless the command line or the config sets one."""


def register_sweeper_defaults() -> None:
    """Store hydra-optuna-sweeper's config with ``direction: maximize`` (nothing when the
    ``[optuna]`` extra is not installed: ``collabsim run`` names it when asked for)."""
    from hydra.core.config_store import ConfigStore
    from hydra.core.plugins import Plugins

    from collabsim.cli.launchers import expose_collabsim_plugins

    # Hydra's plugin scan (once per process) executes every plugin module again, the
    # plugin's own store included: scan first, so that ours comes after it; and make
    # collabsim's own launchers visible to that one scan (an editable install hides them).
    expose_collabsim_plugins()
    Plugins.instance()
    try:
        from hydra_plugins.hydra_optuna_sweeper.config import Direction, OptunaSweeperConf
    except ImportError:
        return

    ConfigStore.instance().store(
        group="hydra/sweeper", name="optuna", provider="collabsim",
        node=OptunaSweeperConf(direction=Direction[DEFAULT_DIRECTION]))
