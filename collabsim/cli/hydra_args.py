"""The command line ``@hydra.main`` accepts, read without running Hydra.

``collabsim run`` validates every job of a command line before Hydra writes anything, so it
must read the command line exactly as Hydra will: the overrides and Hydra's own flags
(``-m``, ``--config-name``, ``--config-dir``, ``--cfg``, ...). Hydra builds that parser in
its private internals (not an API); this module states the same grammar with the
public :mod:`argparse` (for the Hydra series pinned in ``pyproject.toml``, 1.3;
``tests/cli/test_hydra_args.py`` checks that both accept the same flags), and turns
``--config-path`` / ``--config-dir`` into what the public compose API takes: a primary config
folder and a ``hydra.searchpath`` override.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

#: ``--info`` topics (Hydra 1.3).
INFO_CHOICES: tuple[str, ...] = ("all", "config", "defaults", "defaults-tree", "plugins",
                                 "searchpath")


def args_parser() -> argparse.ArgumentParser:
    """The parser of ``@hydra.main``'s command line (Hydra 1.3's flags and overrides)."""
    parser = argparse.ArgumentParser(add_help=False, description="Hydra")
    parser.add_argument("--help", "-h", action="store_true")
    parser.add_argument("--hydra-help", action="store_true")
    parser.add_argument("--version", action="store_true")
    parser.add_argument("overrides", nargs="*")
    parser.add_argument("--cfg", "-c", choices=["job", "hydra", "all"])
    parser.add_argument("--resolve", action="store_true")
    parser.add_argument("--package", "-p")
    parser.add_argument("--run", "-r", action="store_true")
    parser.add_argument("--multirun", "-m", action="store_true")
    parser.add_argument("--shell-completion", "-sc", action="store_true")
    parser.add_argument("--config-path", "-cp")
    parser.add_argument("--config-name", "-cn")
    parser.add_argument("--config-dir", "-cd")
    parser.add_argument("--experimental-rerun")
    parser.add_argument("--info", "-i", const="all", nargs="?", choices=list(INFO_CHOICES))
    return parser


def prints_instead_of_running(parsed: argparse.Namespace) -> bool:
    """Whether Hydra prints something (help, version, config, info) and runs no job."""
    return bool(parsed.help or parsed.hydra_help or parsed.version or parsed.info
                or parsed.cfg or parsed.shell_completion or parsed.experimental_rerun)


def primary_config_dir(config_path: str | None, default: str, calling_file: str) -> str:
    """The primary config folder Hydra uses: ``--config-path`` absolute, ``pkg://``, or
    relative to the file declaring ``@hydra.main`` (``calling_file``); else ``default``."""
    if config_path is None:
        return default
    if os.path.isabs(config_path) or config_path.startswith("pkg://"):
        return config_path
    return os.path.normpath(Path(calling_file).resolve().parent / config_path)


def search_path_override(config_dir: str | None) -> list[str]:
    """``--config-dir`` as the override that adds the folder to Hydra's config search path
    (empty without one).

    Raises:
        FileNotFoundError: The folder does not exist (the message names it).
    """
    if config_dir is None:
        return []
    extra = Path(config_dir).expanduser().absolute()
    if not extra.is_dir():
        raise FileNotFoundError(f"--config-dir {config_dir}: no such folder")
    return [f"hydra.searchpath=[file://{extra}]"]
