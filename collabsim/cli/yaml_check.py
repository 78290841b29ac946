"""A user's config folder is read safely: a YAML alias bomb is refused, not expanded.

YAML anchors and aliases let a few lines describe an exponentially large value (``b: [*a,
*a, ...]`` nested a few levels: "billion laughs"). Hydra and OmegaConf expand every alias
while composing, so such a file in a ``--config-dir`` / ``--config-path`` folder would hang
``collabsim run`` with no output. :func:`check_config_folder` composes each YAML file of the
folder with PyYAML (which keeps an alias as a reference to its anchor's node, without
expanding it) and counts the nodes the file would expand to, with one count per shared node,
so the check itself is linear in the file's size.
"""

from __future__ import annotations

from pathlib import Path

import yaml

MAX_EXPANDED_NODES = 1_000_000
"""Nodes a config file may expand to (the packaged configs expand to a few hundred)."""

MAX_CONFIG_BYTES = 8 * 2**20
"""Size of the largest config file read (the packaged ones are a few KiB)."""


class ConfigFileError(ValueError):
    """A config file that must not be composed; the message names the file."""


def _expanded_size(node: yaml.Node, memo: dict[int, int]) -> int:
    """Nodes ``node`` expands to, aliases counted in full (each shared node sized once)."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = 1  # a node met again while being sized (a recursive alias) counts once
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, memo) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, memo) + _expanded_size(v, memo) for k, v in node.value)
    memo[key] = size
    return size


def check_config_file(path: Path) -> None:
    """Refuse a YAML file that is too large or whose aliases expand past the limit.

    Raises:
        ConfigFileError: Naming the file and what is wrong (a file that is not valid YAML
            is left to Hydra, whose message names it).
    """
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise ConfigFileError(f"{path}: config file larger than {MAX_CONFIG_BYTES // 2**20} MiB")
    try:
        # the file's documents as node graphs: aliases stay references, nothing is expanded
        nodes = list(yaml.compose_all(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
        return
    memo: dict[int, int] = {}
    total = sum(_expanded_size(node, memo) for node in nodes if node is not None)
    if total > MAX_EXPANDED_NODES:
        raise ConfigFileError(
            f"{path}: its YAML aliases expand to more than {MAX_EXPANDED_NODES:,} values "
            "(an alias bomb?); not read")


def check_config_folder(folder: str | Path | None) -> None:
    """:func:`check_config_file` on every ``*.yaml`` / ``*.yml`` file under ``folder``.

    Raises:
        ConfigFileError: The first file refused.
    """
    if folder is None:
        return
    root = Path(folder).expanduser()
    if not root.is_dir():
        return
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml")):
        if path.is_file():
            check_config_file(path)
