"""Which Hydra launcher plugin a ``collabsim run`` command line needs, and whether it can run.

Hydra reports a missing launcher plugin as a generic "Could not find 'hydra/launcher/…'"
error. ``collabsim run`` checks the command line first and names the extra to install. The
SLURM launcher off a cluster would fail inside submitit with a traceback after the sweep
folder is written; :func:`launcher_unusable_here` names the local alternative first.
"""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Sequence
from pathlib import Path

# launcher choice -> (plugin module, install command)
_SUBMITIT = ("hydra_plugins.hydra_submitit_launcher", "pip install 'collabsim[slurm]'")
_RAY = ("hydra_plugins.hydra_ray_launcher", "pip install 'collabsim[ray]'")
_JOBLIB = ("hydra_plugins.hydra_joblib_launcher", "pip install hydra-joblib-launcher")
_OPTUNA = ("hydra_plugins.hydra_optuna_sweeper", "pip install 'collabsim[optuna]'")
PLUGINS: dict[str, dict[str, tuple[str, str]]] = {
    "launcher": {"slurm": _SUBMITIT, "submitit_local": _SUBMITIT, "ray": _RAY,
                 "joblib": _JOBLIB},
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


SLURM_TARGET = "hydra_plugins.hydra_submitit_launcher.submitit_launcher.SlurmLauncher"
SLURM_COMMANDS = ("sbatch", "srun")


def launcher_unusable_here(target: str) -> str | None:
    """One line saying why the launcher class ``target`` cannot run on this machine (the SLURM
    launcher off a cluster: no ``sbatch``/``srun``), naming the local alternative; None when
    it can run."""
    if target != SLURM_TARGET:
        return None
    missing = [name for name in SLURM_COMMANDS if shutil.which(name) is None]
    if not missing:
        return None
    return (f"collabsim run: launcher=slurm needs a SLURM cluster, and this machine has no "
            f"{' or '.join(f'`{m}`' for m in missing)}; for local runs use "
            "hydra/launcher=submitit_local (the same submitit jobs, on this machine) or "
            "launcher=joblib")


def expose_collabsim_plugins() -> None:
    """Put the folder holding ``hydra_plugins/collabsim_launcher`` on the ``hydra_plugins``
    namespace path, where Hydra's plugin scan (``pkgutil.walk_packages``) looks.

    A wheel install has it there already; an editable install maps the package through an
    import hook that the scan cannot list, so ``launcher=ray`` would be an "Unknown plugin
    class" outside the checkout's own folder.
    """
    try:
        import hydra_plugins
        import hydra_plugins.collabsim_launcher as ours
    except ImportError:
        return
    folder = str(Path(ours.__file__).resolve().parents[1])
    if folder not in list(hydra_plugins.__path__):
        hydra_plugins.__path__.append(folder)
