"""A YAML alias bomb in a user's config folder is refused at once (issue 38.15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.cli.yaml_check import (
    MAX_EXPANDED_NODES,
    ConfigFileError,
    check_config_file,
)

BOMB = "# @package _global_\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefg", "bcdefgh", strict=True))


def _write(folder: Path, text: str) -> Path:
    path = folder / "experiment" / "bad.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_bomb_is_refused_without_expanding_it(tmp_path: Path) -> None:
    path = _write(tmp_path, BOMB)  # 9**8 = 43 million values once expanded
    with pytest.raises(ConfigFileError, match="alias bomb") as err:
        check_config_file(path)
    assert str(path) in str(err.value)


def test_ordinary_aliases_and_invalid_yaml_are_left_to_hydra(tmp_path: Path) -> None:
    base = "defaults: &d {max_turns: 10}\nrun: *d\nother: {<<: *d, seed: 1}\n"
    check_config_file(_write(tmp_path / "ok", base))
    check_config_file(_write(tmp_path / "broken", "run: [unclosed\n"))
    wide = "a: &a [" + ", ".join(["x"] * 1000) + "]\nb: [" + ", ".join(["*a"] * 500) + "]\n"
    assert MAX_EXPANDED_NODES > 1001 * 501
    check_config_file(_write(tmp_path / "wide", wide))


def test_run_with_a_bomb_in_its_config_dir_is_one_line_exit_2(tmp_path: Path,
                                                             collabsim_cli) -> None:
    conf = tmp_path / "conf"
    _write(conf, BOMB)
    out = tmp_path / "out"
    work = tmp_path / "work"
    work.mkdir()
    proc = collabsim_cli("run", "-cd", str(conf), "experiment=bad", f"hydra.run.dir={out}",
                         cwd=work)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert len(lines) == 1 and "bad.yaml" in lines[0] and "alias" in lines[0], lines
    assert not out.exists() and not any(work.iterdir())
