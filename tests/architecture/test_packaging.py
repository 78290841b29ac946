"""The repository layout the wheel is built from: every package listed, envs/configs namespaced.

``pyproject.toml`` lists its packages explicitly because ``envs/`` and ``configs/`` install as
``collabsim.envs`` and ``collabsim.configs`` (``package-dir``); a package missing from the list
would silently be left out of the wheel (``.ci/wheel_check`` installs the wheel itself).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "setuptools"
]
MAPPED = {"collabsim.configs": "configs", "collabsim.envs": "envs"}
# Hydra instantiates launchers only from the hydra_plugins namespace (launcher=ray); the
# plugin's source is a folder inside collabsim/ that is not a collabsim subpackage
HYDRA_PLUGINS = {"hydra_plugins.collabsim_launcher": "collabsim/plugins/collabsim_launcher"}


def _packages_on_disk() -> set[str]:
    plugin_dirs = {REPO / folder for folder in HYDRA_PLUGINS.values()}
    found = {".".join(p.parent.relative_to(REPO).parts)
             for p in (REPO / "collabsim").rglob("__init__.py")
             if not any(d == p.parent or d in p.parents for d in plugin_dirs)}
    for name, folder in {**MAPPED, **HYDRA_PLUGINS}.items():
        found |= {".".join((name, *p.parent.relative_to(REPO / folder).parts))
                  for p in (REPO / folder).rglob("__init__.py")}
    return found


def test_the_top_level_is_the_design_cards_layout() -> None:
    visible = {p.name for p in REPO.iterdir() if not p.name.startswith(".")}
    expected = {"pyproject.toml", "README.md", "LICENSE", "collabsim", "envs", "configs", "experiments",
                "tests", "docs", "benchmarks"}
    assert expected <= visible
    # no other Python package at the top (outputs/ of a local run or build/ may exist)
    packages = {p.name for p in REPO.iterdir() if (p / "__init__.py").is_file()}
    assert packages == {"collabsim", "envs", "configs"}


def test_envs_and_configs_install_under_the_collabsim_namespace() -> None:
    assert SETUPTOOLS["package-dir"] == {**MAPPED, **HYDRA_PLUGINS}
    others = {p for p in SETUPTOOLS["packages"] if p.split(".")[0] != "collabsim"}
    assert others == set(HYDRA_PLUGINS)
    # the plugin folder is no collabsim subpackage (its parent has no __init__.py)
    assert not (REPO / "collabsim" / "plugins" / "__init__.py").exists()
    assert (REPO / "configs" / "config.yaml").is_file()


def test_every_package_on_disk_is_listed_in_pyproject() -> None:
    assert sorted(SETUPTOOLS["packages"]) == sorted(_packages_on_disk())


def test_the_license_file_is_the_apache_2_text_pyproject_declares() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text
