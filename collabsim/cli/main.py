"""``collabsim`` command: dispatches to one sub-command module per command.

``collabsim run ...`` hands its arguments to the Hydra app (``collabsim.cli.run_app``); every
other command is an argparse sub-command defined in its own module under ``collabsim.cli``
that exposes ``register(subparsers)`` and sets ``func`` on its parser.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

# command name -> module defining register(subparsers); imported lazily so that one
# command's heavy dependencies never slow down another.
SUBCOMMAND_MODULES: dict[str, str] = {
    "tasks": "collabsim.cli.tasks_cmd",
    "dynamics": "collabsim.cli.dynamics_cmd",
    "kolab": "collabsim.cli.kolab_cmd",
    "calibrate": "collabsim.cli.calibrate_cmd",
    "fidelity": "collabsim.cli.fidelity_cmd",
    "view": "collabsim.cli.view_cmd",
    "report": "collabsim.cli.report_cmd",
    "data": "collabsim.cli.data_cmd",
    "train": "collabsim.cli.train_cmd",
    "export": "collabsim.cli.export_cmd",
    "judge": "collabsim.cli.judge_cmd",
}


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="collabsim",
        description="Simulate human-AI data-analysis teams and analyse real collaboration.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser(
        "run",
        help="run simulated sessions (Hydra app: `collabsim run team=DR structure=scaffolded`)",
        add_help=False,
    )
    for module_name in SUBCOMMAND_MODULES.values():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name == module_name:
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``collabsim`` command line; returns the process exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # A log record that cannot be written (a full disk under the job's log file) must not
    # print a traceback per record: the command reports the write failure once itself.
    logging.raiseExceptions = False
    if argv and argv[0] == "run":
        from collabsim.cli import run_app

        return run_app.main_with_args(argv[1:])
    parser = _build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
