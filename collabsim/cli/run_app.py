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
import importlib.util
import io
import json
import os
import shlex
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from collabsim.cli.coordination_config import register_coordination_defaults
from collabsim.cli.errors import EXIT_UNSCORED, EXIT_USER_ERROR
from collabsim.cli.hydra_args import (
    args_parser,
    primary_config_dir,
    prints_instead_of_running,
    search_path_override,
)
from collabsim.cli.sweeper_defaults import register_sweeper_defaults
from collabsim.cli.typed_defaults import register_typed_defaults
from collabsim.cli.yaml_check import ConfigFileError, check_config_folder

if TYPE_CHECKING:
    from collabsim.experiment.settings import JobSettings


def _config_dir() -> str:
    """The repository's top-level ``configs/``, installed as the package ``collabsim.configs``.

    A broken install without it gives a folder that does not exist, which
    :func:`main_with_args` reports in one line.
    """
    spec = importlib.util.find_spec("collabsim.configs")
    if spec is None or not spec.submodule_search_locations:
        return str(Path(__file__).resolve().parents[1] / "configs")
    return str(Path(next(iter(spec.submodule_search_locations))).resolve())


CONFIG_DIR = _config_dir()
EXIT_INTERRUPTED = 130
register_sweeper_defaults()  # before anything composes a config
register_coordination_defaults()
register_typed_defaults()


class UserError(Exception):
    """A bad setting or bad data; the message is the one line shown to the user."""


def _fail(message: str, code: int = EXIT_USER_ERROR) -> NoReturn:
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


@contextlib.contextmanager
def _hydra_search_path(config_path: str | None) -> Iterator[None]:
    """Initialise Hydra (public API) with the primary config folder ``hydra_main`` gets from
    the same command line: the packaged configs, or ``--config-path``."""
    from hydra import initialize_config_dir, initialize_config_module
    from hydra.errors import HydraException

    primary = primary_config_dir(config_path, CONFIG_DIR, __file__)
    try:
        if primary.startswith("pkg://"):
            module = primary.removeprefix("pkg://").strip("/").replace("/", ".")
            with initialize_config_module(config_module=module, version_base="1.3"):
                yield
        else:
            with initialize_config_dir(config_dir=primary, version_base="1.3"):
                yield
    except HydraException as err:
        raise UserError(_one_line(str(err)).split(" Traceback")[0]) from None


def compose_config(
    overrides: Sequence[str],
    config_name: str = "config",
    *,
    config_dir: str | None = None,
    config_path: str | None = None,
) -> dict[str, Any]:
    """Compose ``configs/`` (as ``collabsim run`` would) with ``overrides`` and resolve them
    to plain containers.

    Args:
        overrides: The command line's overrides.
        config_name: ``--config-name`` (default ``config``).
        config_dir: ``--config-dir``: a folder searched before the packaged configs.
        config_path: ``--config-path``: replaces the packaged configs.

    Raises:
        UserError: Hydra or OmegaConf refused an override (unknown group option or key,
            bad syntax, failed interpolation), or a config folder does not exist.
    """
    from hydra import compose
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    _check_syntax(overrides)
    try:
        extra = search_path_override(config_dir)
        check_config_folder(config_dir)
        check_config_folder(config_path)
    except (FileNotFoundError, ConfigFileError) as err:
        raise UserError(str(err)) from None
    try:
        with _hydra_search_path(config_path):
            cfg = compose(config_name=config_name, overrides=[*overrides, *extra])
        plain = OmegaConf.to_container(cfg, resolve=True)
    except (HydraException, OmegaConfBaseException) as err:
        raise UserError(_one_line(str(err)).split(" Traceback")[0]) from None
    assert isinstance(plain, dict)
    return plain


MAX_VALIDATED_JOBS = 512
_VALIDATED: dict[str, JobSettings] = {}
"""The settings :func:`validate_command_line` validated, by resolved config
(:func:`_config_key`): the job Hydra runs with that config takes them instead of validating
it again."""


def _config_key(cfg: dict[str, Any]) -> str:
    """A resolved job config as canonical text (equal configs, equal keys)."""
    return json.dumps(cfg, sort_keys=True, default=str)


def _sweep_values(override: Any) -> list[str]:
    """The values of one override that validation composes: every value of a list or range
    sweep (``a=1,2``, ``choice()``, ``range()``, ``shuffle()``, ``sort()``), both ends of an
    ``interval()`` (what Optuna samples between), the matching group options of a
    ``glob()``; a ``tag()`` is looked through. A plain override is its own value."""
    from hydra.core.override_parser.types import Glob, IntervalSweep

    head = override.input_line.split("=", 1)[0]
    if not override.is_sweep_override():
        return [override.input_line]
    value = override.value()
    if isinstance(value, IntervalSweep):  # numbers only: no quoting needed
        items = [repr(value.start), repr(value.end)]
    elif isinstance(value, Glob):
        group = Path(CONFIG_DIR, override.get_key_element())
        names = sorted(p.stem for p in group.glob("*.yaml")) if group.is_dir() else []
        items = value.filter(names)
        if not items:
            return []  # not a config group: the sweeper resolves it, the job validates it
    else:
        items = list(override.sweep_string_iterator())
    return [f"{head}={item}" for item in items]


def _credential_setting(data: Any, prefix: str = "") -> str | None:
    """The dotted name of the first setting whose key or value holds a credential."""
    from collabsim.core.redaction import contains_credential

    if isinstance(data, dict):
        for key, value in data.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if contains_credential(str(key)):
                return name
            found = _credential_setting(value, name)
            if found:
                return found
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found = _credential_setting(value, f"{prefix}[{i}]")
            if found:
                return found
    elif isinstance(data, str) and contains_credential(data):
        return prefix or "config"
    return None


def _refuse_credentials(overrides: Sequence[str], cfg: dict[str, Any] | None) -> None:
    """Refuse a credential on the command line or in the composed config: Hydra would
    write it verbatim to ``.hydra/overrides.yaml``, ``config.yaml`` and ``hydra.yaml``."""
    from collabsim.core.redaction import contains_credential

    name = None
    for override in overrides:
        if contains_credential(override):
            name = override.lstrip("+~").split("=", 1)[0]
            break
    if name is None and cfg is not None:
        name = _credential_setting(cfg)
    if name is not None:
        raise UserError(
            f"{name}: holds a credential (an API key, or user info in a URL such as "
            "http://user:key@host); it would be written to the job's .hydra/ files. Set the "
            "provider's environment variable (e.g. OPENAI_API_KEY) instead"
        )


def _sweep_jobs(overrides: Sequence[str], multirun: bool) -> list[list[str]]:
    """The override lists of the jobs validation checks (one unless ``-m``).

    A basic sweep is checked job by job (every combination). Sweeper syntax a basic sweep
    does not run (``interval()`` for Optuna, ``tag()``, ``glob()``) is checked through
    representative values (:func:`_sweep_values`); past :data:`MAX_VALIDATED_JOBS`
    combinations every value is checked at least once instead of every combination.
    """
    _check_syntax(overrides)
    if not multirun:
        return [list(overrides)]
    import itertools

    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    try:
        parsed = OverridesParser.create().parse_overrides(list(overrides))
        values = [v for v in (_sweep_values(o) for o in parsed) if v]
    except HydraException as err:
        raise UserError(_one_line(str(err))) from None
    total = 1
    for options in values:
        total *= len(options)
    if total <= MAX_VALIDATED_JOBS:
        return [list(job) for job in itertools.product(*values)]
    longest = max(len(v) for v in values)
    return [[options[i % len(options)] for options in values] for i in range(longest)]


def _composed_with_hydra(overrides: Sequence[str], config_name: str) -> DictConfig | None:
    """The config (``hydra`` node included) composed from the command line's plain
    overrides (sweep values left out: they do not compose), or None when it does not compose
    (:func:`compose_config` names the bad setting afterwards). Composed once per command
    line: the run mode, the launcher and the sweeper are all read from its ``hydra`` node,
    and a single run's job config is this config without it (:func:`_job_config`)."""
    from hydra import compose, initialize_config_dir

    try:
        with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
            cfg = compose(config_name=config_name, overrides=_plain_overrides(overrides),
                          return_hydra_config=True)
    except Exception:  # noqa: BLE001 - compose_config reports the bad setting
        return None
    return cfg


def _plain_overrides(overrides: Sequence[str]) -> list[str]:
    """The overrides that compose as they are (no sweep: no ``,`` and no ``(``)."""
    return [o for o in overrides if "(" not in o and "," not in o]


def _job_config(composed: DictConfig) -> dict[str, Any] | None:
    """The job config :func:`compose_config` gives for the overrides ``composed`` was composed
    from, dropping ``composed``'s ``hydra`` node the way Hydra's ``compose`` does (the node
    is read before). None when it does not resolve (:func:`compose_config` then names the
    bad setting)."""
    from omegaconf import open_dict
    from omegaconf.errors import OmegaConfBaseException

    with open_dict(composed):
        del composed["hydra"]
    try:
        plain = OmegaConf.to_container(composed, resolve=True)
    except OmegaConfBaseException:
        return None
    return plain if isinstance(plain, dict) else None


def _multirun(parsed: Any, hydra_node: Any) -> bool:
    """``-m`` on the command line, or ``hydra.mode: MULTIRUN`` in the config (an
    ``experiment=`` config that sweeps, e.g. ``experiment=expertise_map``)."""
    if parsed.multirun:
        return True
    mode = None if hydra_node is None else OmegaConf.select(hydra_node, "mode", default=None)
    return str(mode).endswith("MULTIRUN")


def _check_launcher(hydra_node: Any) -> None:
    """Raise a UserError when the sweep's launcher cannot run on this machine (SLURM off a
    cluster), before Hydra writes the sweep folder."""
    from collabsim.cli.launchers import launcher_unusable_here

    if hydra_node is None:
        return
    target = str(OmegaConf.select(hydra_node, "launcher._target_", default=""))
    problem = launcher_unusable_here(target)
    if problem:
        raise UserError(problem.removeprefix("collabsim run: "))


def _runs_the_listed_jobs(overrides: Sequence[str], hydra_node: Any) -> bool:
    """Whether a multirun runs exactly the jobs :func:`_sweep_jobs` lists: Hydra's basic
    sweeper, no sweep parameters set in the config (``experiment=sensitivity``), no
    ``interval()`` (only other sweepers sample it)."""
    if hydra_node is None:
        return False
    sweeper = hydra_node.sweeper
    return (str(sweeper.get("_target_", "")).endswith("BasicSweeper")
            and not sweeper.get("params") and not any("interval(" in o for o in overrides))


SWEEP_MARKER = "multirun.yaml"
"""The file Hydra writes first at a sweep's root."""


def _check_output_folder(hydra_node: Any, multirun: bool) -> None:
    """Refuse a job folder collabsim cannot write or must not: a file, a device, a folder
    that cannot take new entries, a user's own files under the names a job writes, or a
    symbolic link where the job writes (checked before Hydra creates anything).

    Raises:
        UserError: Naming ``hydra.run.dir`` (``hydra.sweep.dir`` for a multirun).
    """
    from omegaconf.errors import OmegaConfBaseException

    from collabsim.core.outputs import job_dir_problem
    from collabsim.experiment.job import JOB_MARKER, JOB_OUTPUT_NAMES
    from collabsim.experiment.sweep_report import REPORT_NAMES

    setting = "hydra.sweep.dir" if multirun else "hydra.run.dir"
    if hydra_node is None:
        return
    try:
        folder = str(OmegaConf.select(hydra_node, setting.removeprefix("hydra.")))
    except OmegaConfBaseException:
        return  # Hydra reports a bad interpolation itself
    # a sweep's root holds Hydra's multirun.yaml and the sweep's report
    problem = (job_dir_problem(folder, (*REPORT_NAMES, SWEEP_MARKER), SWEEP_MARKER) if multirun
               else job_dir_problem(folder, JOB_OUTPUT_NAMES, JOB_MARKER))
    if problem is not None:
        raise UserError(f"{setting}={folder}: {problem}")


def _check_cache_folders(settings: Any) -> None:
    """Refuse cache folders the run would fail to create: the generated suites'
    (``COLLABSIM_CACHE_DIR``, when set) and, under ``policy=llm``, the model-reply cache
    (``llm.cache_dir``, from ``COLLABSIM_LLM_CACHE`` by default).

    Raises:
        UserError: Naming the variable or the setting.
    """
    from collabsim.core.outputs import writable_dir_problem

    folders = []
    if os.environ.get("COLLABSIM_CACHE_DIR"):
        folders.append(("COLLABSIM_CACHE_DIR", os.environ["COLLABSIM_CACHE_DIR"]))
    if settings.policy.name == "llm" and settings.llm.cache_dir:
        folders.append(("llm.cache_dir", settings.llm.cache_dir))
    for name, folder in folders:
        problem = writable_dir_problem(folder)
        if problem is not None:
            raise UserError(f"{name}={folder}: {problem}")


def validate_command_line(args: Sequence[str]) -> int | None:
    """Check every job a ``collabsim run`` command line would start, writing nothing.

    Returns:
        The number of sessions the command line plans (its jobs' sessions, counted before
        any reuse from a store), or None when a sweeper picks the jobs as it goes (Optuna)
        or Hydra prints something instead of running.

    Raises:
        UserError: The first bad setting or task selection, as one line naming it.
    """
    from collabsim.experiment.participants import credential_problems
    from collabsim.experiment.plan import variants
    from collabsim.experiment.settings import SettingsError, validate_job
    from collabsim.experiment.tasksource import TaskSelectionError, resolve_tasks

    usage = io.StringIO()
    try:
        with contextlib.redirect_stderr(usage):
            parsed = args_parser().parse_args(list(args))
    except SystemExit:
        said = usage.getvalue().strip().splitlines()
        reason = said[-1].split("error: ", 1)[-1] if said else shlex.join(args)
        raise UserError(f"cannot parse the command line: {reason}") from None
    if prints_instead_of_running(parsed):
        return None  # Hydra prints something and runs no job
    _refuse_credentials(parsed.overrides, None)
    n_tasks: dict[str, int] = {}
    planned = 0
    composed = _composed_with_hydra(parsed.overrides, parsed.config_name or "config")
    hydra_node = None if composed is None else composed.hydra
    multirun = _multirun(parsed, hydra_node)
    _check_output_folder(hydra_node, multirun)
    jobs = _sweep_jobs(parsed.overrides, multirun)
    if multirun and jobs:
        _check_launcher(hydra_node)
    # A single run with the packaged configs: its job config is the one composed above
    # (composing it again costs a quarter of a second).
    reuse = (composed is not None and not multirun and parsed.config_dir is None
             and parsed.config_path is None and _plain_overrides(parsed.overrides) == jobs[0])
    for overrides in jobs:
        # Configs from --config-dir / --config-path are composed the way Hydra will compose
        # them, so their bad settings are refused before Hydra writes .hydra/ and the log.
        cfg = _job_config(composed) if reuse and composed is not None else None
        if cfg is None:
            cfg = compose_config(overrides, parsed.config_name or "config",
                                 config_dir=parsed.config_dir, config_path=parsed.config_path)
        _refuse_credentials((), cfg)
        try:
            settings = _VALIDATED[_config_key(cfg)] = validate_job(cfg)
            _check_cache_folders(settings)
            # every model's key, before any call (an estimate makes no provider call)
            missing = [] if settings.run.estimate else credential_problems(settings)
            if missing:
                raise UserError("; ".join(missing) + " (export it, or point the model at a "
                                "server with +llm.<role>.extra.api_base=...)")
            tasks_key = settings.tasks.model_dump_json()
            if tasks_key not in n_tasks:  # sweeps over teams share one task selection
                n_tasks[tasks_key] = len(resolve_tasks(settings.tasks.model_dump())[0])
        except (SettingsError, TaskSelectionError) as err:
            raise UserError(_one_line(str(err))) from None
        pairs = variants(settings.team.compositions, settings.structure.names)
        planned += n_tasks[tasks_key] * len(pairs) * len(settings.seeds)
    if multirun and _runs_the_listed_jobs(parsed.overrides, hydra_node):
        return planned
    return None if multirun else planned


def summary_line(summary: Any, wall_seconds: float, output_dir: Path) -> str:
    """The run's last line: sessions run and reused, unscored sessions by status, time,
    outputs."""
    line = f"{summary.ran} sessions run, {summary.reused} reused from the store"
    note = summary.status_note()
    if note:
        line += f"; {note}"
    return line + f", in {wall_seconds:.1f} s. Outputs: {output_dir}"


_UNSCORED_JOBS: set[str] = set()
"""Job folders of this command line with unscored sessions: the command exits with
:data:`~collabsim.cli.errors.EXIT_UNSCORED` once every job has run."""


def _remove_hydra_only_folder(output_dir: Path) -> None:
    """Remove a job folder that holds nothing but what Hydra wrote before the task ran
    (``.hydra/`` and the job log), so a refused setting leaves nothing behind."""
    import shutil

    try:
        entries = {e.name for e in output_dir.iterdir()}
    except OSError:
        return
    if entries <= {".hydra", "run_app.log"}:
        shutil.rmtree(output_dir, ignore_errors=True)


def _print_outcome(outcome: Any, output_dir: Path) -> None:
    """Print the job's report and summary line; note the job when sessions ended unscored."""
    print(outcome.report)
    print("\n" + summary_line(outcome.summary, outcome.wall_seconds, output_dir))
    if outcome.summary.unscored:
        _UNSCORED_JOBS.add(str(output_dir))
    if outcome.task_problems:
        print(
            f"{outcome.task_problems} task problem(s) under tasks.root (bad data, or a query "
            f"its data cannot answer): not run, not scored; listed in "
            f"{outcome.task_problems_file}"
        )


@hydra.main(config_path=CONFIG_DIR, config_name="config", version_base="1.3")
def hydra_main(cfg: DictConfig) -> float:
    """Hydra entry point; returns mean Performance (useful to Hydra sweepers)."""
    from collabsim.experiment.job import JobInterrupted, JobWriteError, run
    from collabsim.experiment.settings import SettingsError, validate_job
    from collabsim.experiment.tasksource import TaskSelectionError
    from collabsim.tracking import make_tracker

    plain = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(plain, dict)
    hydra_cfg = HydraConfig.get()
    output_dir = Path(hydra_cfg.runtime.output_dir)
    multirun = hydra_cfg.mode == RunMode.MULTIRUN
    # The job's settings as validate_command_line validated them (one validation per job);
    # a job it did not list (a sweeper's own choice, a launcher's other process) is
    # validated here.
    settings = _VALIDATED.get(_config_key(plain))
    if settings is None:
        try:
            settings = validate_job(plain)
        except SettingsError as err:
            _remove_hydra_only_folder(output_dir)
            _fail(_one_line(str(err)))
    tracker = make_tracker(
        plain.get("tracking") or {}, plain, output_dir,
        overrides=list(hydra_cfg.overrides.task),
        choices=OmegaConf.to_container(hydra_cfg.runtime.choices),
        sweep_dir=Path(hydra_cfg.sweep.dir).resolve() if multirun else None,
    )
    if multirun:
        # The driver draws one bar for the sweep; a job cannot tell from its environment
        # whether that bar is drawn (a Ray worker on a joined cluster does not inherit the
        # driver's), so a job in a multirun never draws one.
        plain["run"]["progress"] = False
        settings = settings.model_copy(
            update={"run": settings.run.model_copy(update={"progress": False})})
    try:
        outcome = run(settings, output_dir)
        tracker.log_job(outcome)
    except (SettingsError, TaskSelectionError) as err:
        _remove_hydra_only_folder(output_dir)
        _fail(_one_line(str(err)))
    except JobInterrupted as stop:
        resume = shlex.join(["collabsim", "run", *sys.argv[1:]])
        if not settings.run.store:
            resume += f" run.store={shlex.quote(str(stop.store))}"
        _fail(
            f"interrupted: {stop.finished} of {stop.total} sessions finished and are stored in "
            f"{stop.store}; resume with: {resume}",
            EXIT_INTERRUPTED,
        )
    except JobWriteError as failed:
        tables = (f"tables of the finished sessions in {output_dir}" if failed.tables
                  else "no tables written")
        _fail(
            f"cannot write results: {_one_line(str(failed))}; stored in {failed.store} "
            f"({tables}); free space and rerun with run.store={shlex.quote(str(failed.store))} "
            "to resume"
        )
    except OSError as err:
        where = f" {err.filename}" if err.filename else ""
        _fail(f"cannot write{where}: {err.strerror or err}")
    finally:
        tracker.close()
    _print_outcome(outcome, output_dir)
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
    from collabsim.cli.launchers import expose_collabsim_plugins, missing_launcher_hint

    hint = missing_launcher_hint(args)
    if hint:
        print(hint, file=sys.stderr)
        return EXIT_USER_ERROR
    expose_collabsim_plugins()
    saved = sys.argv
    from collabsim.cli.sweep_progress import expect

    _VALIDATED.clear()
    _UNSCORED_JOBS.clear()
    try:
        expect(validate_command_line(args))
        estimates = [s for s in _VALIDATED.values() if s.run.estimate]
        if estimates:  # run.estimate=true: print what the run would cost, write nothing
            from collabsim.experiment.estimate import estimate_run, estimate_text

            print("\n\n".join(estimate_text(estimate_run(s)) for s in estimates))
        else:
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
        _VALIDATED.clear()
    return EXIT_UNSCORED if _UNSCORED_JOBS else 0
