"""Which Hydra launcher plugin a ``collabsim run`` command line needs, and the install hint.

Hydra reports a missing launcher plugin as a generic "Could not find 'hydra/launcher/…'"
error. ``collabsim run`` checks the command line first and names the extra to install.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

# launcher choice -> (plugin module, install command)
_SUBMITIT = ("hydra_plugins.hydra_submitit_launcher", "pip install 'collabsim[slurm]'")
_RAY = ("hydra_plugins.hydra_ray_launcher", "pip install 'collabsim[ray]'")
_JOBLIB = ("hydra_plugins.hydra_joblib_launcher", "pip install hydra-joblib-launcher")
_OPTUNA = ("hydra_plugins.hydra_optuna_sweeper", "pip install 'collabsim[optuna]'")
PLUGINS: dict[str, dict[str, tuple[str, str]]] = {
    "launcher": {"slurm": _SUBMITIT, "ray": _RAY, "joblib": _JOBLIB},
    "hydra/launcher": {"submitit_slurm": _SUBMITIT, "submitit_local": _SUBMITIT,
                       "ray": _RAY, "collabsim_ray": _RAY, "ray_aws": _RAY, "joblib": _JOBLIB},
    "hydra/sweeper": {"optuna": _OPTUNA},
    "experiment": {"optimize_structure": _OPTUNA},
}


def _available(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def missing_launcher_hint(args: Sequence[str]) -> str | None:
    """One line naming the extra to install when ``args`` select a launcher whose plugin is
    not installed; None when nothing is missing."""
    for arg in args:
        key, sep, value = arg.lstrip("+~").partition("=")
        if not sep or key not in PLUGINS:
            continue
        for choice in value.split(","):
            needed = PLUGINS[key].get(choice.strip())
            if needed is not None and not _available(needed[0]):
                kind = "sweeper" if needed is _OPTUNA else "launcher"
                return (f"collabsim run: {key}={choice.strip()} needs a {kind} plugin that is "
                        f"not installed: {needed[1]}")
    return None
