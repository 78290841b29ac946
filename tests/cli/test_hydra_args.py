"""Reading ``collabsim run``'s command line as Hydra does (collabsim.cli.hydra_args)."""

import pytest

from collabsim.cli.hydra_args import (
    args_parser,
    primary_config_dir,
    prints_instead_of_running,
    search_path_override,
)
from collabsim.cli.run_app import UserError, compose_config


def _flags(parser):
    return {s for a in parser._actions for s in a.option_strings}


def test_the_parser_accepts_exactly_hydras_flags():
    # Hydra's own parser is private; the test compares against it so a Hydra upgrade that
    # adds or renames a flag fails here instead of being misread in validation.
    from hydra._internal.utils import get_args_parser

    assert _flags(args_parser()) == _flags(get_args_parser())


@pytest.mark.parametrize("line", [
    ["-m", "team=D,R", "structure=default"],
    ["--config-name", "config", "-cd", "/tmp/x", "seeds=[0,1]"],
    ["--info", "searchpath"],
    ["--cfg", "job", "--resolve", "team=DR"],
])
def test_a_command_line_reads_as_hydra_reads_it(line):
    from hydra._internal.utils import get_args_parser

    ours, hydras = args_parser().parse_args(line), get_args_parser().parse_args(line)
    # Hydra prints its version inside argparse (no attribute); ours records the flag
    assert {k: v for k, v in vars(ours).items() if k != "version"} == vars(hydras)


def test_help_version_and_config_printing_run_no_job():
    for line in (["--help"], ["--hydra-help"], ["--version"], ["--cfg", "job"], ["-i"],
                 ["--shell-completion"]):
        assert prints_instead_of_running(args_parser().parse_args(line)), line
    assert not prints_instead_of_running(args_parser().parse_args(["-m", "team=D"]))


def test_config_path_is_relative_to_the_declaring_file(tmp_path):
    here = str(tmp_path / "cli" / "run_app.py")
    assert primary_config_dir(None, "/pkg/configs", here) == "/pkg/configs"
    assert primary_config_dir("../conf", "/pkg/configs", here) == str(tmp_path / "conf")
    assert primary_config_dir("/abs/conf", "/pkg/configs", here) == "/abs/conf"
    assert primary_config_dir("pkg://my.confs", "/pkg/configs", here) == "pkg://my.confs"


def test_a_config_dir_is_searched_and_a_missing_one_is_named(tmp_path):
    conf = tmp_path / "myconf" / "experiment"
    conf.mkdir(parents=True)
    (conf / "mine.yaml").write_text("# @package _global_\nseeds: [7]\n", encoding="utf-8")
    cfg = compose_config(["experiment=mine"], config_dir=str(conf.parent))
    assert cfg["seeds"] == [7]
    with pytest.raises(FileNotFoundError, match="nowhere"):
        search_path_override(str(tmp_path / "nowhere"))
    with pytest.raises(UserError, match="--config-dir .*nowhere: no such folder"):
        compose_config([], config_dir=str(tmp_path / "nowhere"))
