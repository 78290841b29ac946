"""``collabsim run``: the Hydra app over :func:`collabsim.experiment.job.run`.

Thin on purpose: it resolves the config, converts it to plain containers, hands it to the
pure ``run(cfg, output_dir)`` and prints the report. Everything else lives in the engine.

Hydra creates the output folder (and ``.hydra/``) before the task function runs, so user
errors are caught first: :func:`main_with_args` composes every job of the command line with
Hydra's compose API, validates it against the typed schema and selects its tasks. A bad
setting ends with one line on stderr naming it and exit code 2, with nothing written.
Ctrl-C ends with the number of finished sessions, how to resume, and exit code 130.

Examples::

    collabsim run                                   # built-in default grid, offline
    collabsim run team=DR structure=scaffolded seeds=[0,1,2]
    collabsim run experiment=grid run.max_concurrency=8
    collabsim run -m team=D,R,DR structure=default,scaffolded   # Hydra multirun sweep
"""

from __future__ import annotations

import contextlib
import io
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

import collabsim.configs
from collabsim.cli.errors import EXIT_USER_ERROR

# the repository's top-level configs/, installed as the package collabsim.configs
CONFIG_DIR = str(Path(collabsim.configs.__file__).resolve().parent)
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """A bad setting or bad data; the message is the one line shown to the user."""


def _fail(message: str, code: int = EXIT_USER_ERROR) -> None:
    print(f"collabsim run: {message}", file=sys.stderr)
    raise SystemExit(code)


def _one_line(text: str) -> str:
    # Paths with undecodable bytes (surrogate escapes) must not crash the printing itself.
    flat = " ".join(str(text).split())
    return flat.encode("utf-8", "backslashreplace").decode("utf-8")


def _check_syntax(overrides: Sequence[str]) -> None:
    """Raise a UserError naming the first override Hydra's grammar refuses."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    for override in overrides:
        try:
            parser.parse_overrides([override])
        except HydraException as err:
            raise UserError(f"bad override {override!r}: {_one_line(str(err))}") from None


def compose_config(overrides: Sequence[str], config_name: str = "config") -> dict[str, Any]:
    """Compose ``configs/`` with ``overrides`` and resolve it to plain containers.

    Raises:
        UserError: Hydra or OmegaConf refused an override (unknown group option or key,
            bad syntax, failed interpolation).
    """
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    _check_syntax(overrides)
    try:
        with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
            cfg = compose(config_name=config_name, overrides=list(overrides))
        plain = OmegaConf.to_container(cfg, resolve=True)
    except (HydraException, OmegaConfBaseException) as err:
        raise UserError(_one_line(str(err)).split(" Traceback")[0]) from None
    assert isinstance(plain, dict)
    return plain


def _sweep_jobs(overrides: Sequence[str], multirun: bool) -> list[list[str]]:
    """The override lists of every job the command line starts (one unless ``-m``)."""
    _check_syntax(overrides)
    if not multirun:
        return [list(overrides)]
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    try:
        parsed = OverridesParser.create().parse_overrides(list(overrides))
        batches = BasicSweeper.split_arguments(parsed, None)
    except HydraException as err:
        raise UserError(_one_line(str(err))) from None
    return [job for batch in batches for job in batch]


def validate_command_line(args: Sequence[str]) -> None:
    """Check every job a ``collabsim run`` command line would start, writing nothing.

    Raises:
        UserError: The first bad setting or task selection, as one line naming it.
    """
    from hydra._internal.utils import get_args_parser

    from collabsim.experiment.settings import SettingsError, validate_job
    from collabsim.experiment.tasksource import TaskSelectionError, resolve_tasks

    usage = io.StringIO()
    try:
        with contextlib.redirect_stderr(usage):
            parsed = get_args_parser().parse_args(list(args))
    except SystemExit:
        said = usage.getvalue().strip().splitlines()
        reason = said[-1].split("error: ", 1)[-1] if said else shlex.join(args)
        raise UserError(f"cannot parse the command line: {reason}") from None
    if parsed.help or parsed.hydra_help or parsed.info or parsed.cfg or parsed.shell_completion:
        return  # Hydra prints something and runs no job
    if parsed.config_dir or parsed.config_path:
        return  # configs from elsewhere: Hydra composes them, the task function validates
    seen: set[str] = set()
    for overrides in _sweep_jobs(parsed.overrides, bool(parsed.multirun)):
        cfg = compose_config(overrides, parsed.config_name or "config")
        try:
            settings = validate_job(cfg)
            tasks_key = settings.tasks.model_dump_json()
            if tasks_key not in seen:  # sweeps over teams share one task selection
                seen.add(tasks_key)
                resolve_tasks(settings.tasks.model_dump())
        except (SettingsError, TaskSelectionError) as err:
            raise UserError(_one_line(str(err))) from None


@hydra.main(config_path=CONFIG_DIR, config_name="config", version_base="1.3")
def hydra_main(cfg: DictConfig) -> float:
    """Hydra entry point; returns mean Performance (useful to Hydra sweepers)."""
    from collabsim.experiment.job import JobInterrupted, run
    from collabsim.experiment.settings import SettingsError
    from collabsim.experiment.tasksource import TaskSelectionError
    from collabsim.tracking import make_tracker

    plain = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(plain, dict)
    output_dir = Path(HydraConfig.get().runtime.output_dir)
    tracker = make_tracker(plain.get("tracking") or {}, plain, output_dir)
    try:
        outcome = run(plain, output_dir)
        tracker.log_job(outcome)
    except (SettingsError, TaskSelectionError) as err:
        _fail(_one_line(str(err)))
    except JobInterrupted as stop:
        resume = shlex.join(["collabsim", "run", *sys.argv[1:]])
        if not plain["run"].get("store"):
            resume += f" run.store={shlex.quote(str(stop.store))}"
        _fail(
            f"interrupted: {stop.finished} of {stop.total} sessions finished and are stored in "
            f"{stop.store}; resume with: {resume}",
            EXIT_INTERRUPTED,
        )
    finally:
        tracker.close()
    print(outcome.report)
    print(
        f"\n{outcome.summary.ran} sessions run, {outcome.summary.reused} reused from the store, "
        f"in {outcome.wall_seconds:.1f} s. Outputs: {output_dir}"
    )
    perf = outcome.sessions.get("Performance")
    return float(perf.mean()) if perf is not None and len(perf) else float("nan")


def main_with_args(args: list[str]) -> int:
    """Run the Hydra app with ``args`` as its command line (used by ``collabsim run``)."""
    if not Path(CONFIG_DIR, "config.yaml").is_file():
        print(
            f"collabsim run: no Hydra configs at {CONFIG_DIR}; the installed package is "
            "incomplete: reinstall collabsim (`pip install --force-reinstall collabsim`).",
            file=sys.stderr,
        )
        return EXIT_USER_ERROR
    from collabsim.cli.launchers import missing_launcher_hint

    hint = missing_launcher_hint(args)
    if hint:
        print(hint, file=sys.stderr)
        return EXIT_USER_ERROR
    saved = sys.argv
    try:
        validate_command_line(args)
        sys.argv = ["collabsim-run", *args]
        hydra_main()
    except UserError as err:
        print(f"collabsim run: {err}", file=sys.stderr)
        return EXIT_USER_ERROR
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        print(
            "collabsim run: interrupted; finished sessions are stored, rerun the same "
            "command with run.store=<the job's store> to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    finally:
        sys.argv = saved
    return 0
