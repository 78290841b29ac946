"""``collabsim calibrate --kolab PATH --out DIR``: fit simulated-human behaviour to Kolab data.

Fits the timing (two-state lognormal model of gaps between human actions, action durations)
and reaction (adopt / modify / reject with per-person spread) parameters from the Kolab
explorer graphs and writes ``behaviour.yaml`` (the fitted block giving every parameter's value
and source), ``D.yaml`` and ``R.yaml`` (the packaged profiles, naming ``behaviour.yaml``) and
``calibration.md``.
User errors (missing or empty file, unusable profile) print one line and exit with code 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from collabsim.cli.errors import user_error
from collabsim.core.outputs import OutputPathError, check_output_dir

if TYPE_CHECKING:
    from collabsim.calibration.fit import Calibration
    from collabsim.calibration.kolab_sample import KolabSample


def register(subparsers: Any) -> None:
    """Add the ``calibrate`` sub-command to ``subparsers``."""
    parser = subparsers.add_parser(
        "calibrate",
        help="fit simulated-human timing and reactions to the Kolab graphs; write profiles",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--kolab", type=Path, required=True, help="Kolab explorer dataset (explorer_sessions.json)"
    )
    parser.add_argument("--out", required=True, help="output folder for the profiles")
    parser.add_argument(
        "--profile",
        type=Path,
        action="append",
        default=None,
        metavar="YAML",
        help="profile file to extend instead of the packaged D and R (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulation checks")
    parser.set_defaults(func=run)


class _CalibrateError(Exception):
    """A user error of ``collabsim calibrate``; its message is the line to print."""


def run(args: argparse.Namespace) -> int:
    """Execute ``collabsim calibrate``; returns the exit code."""
    try:
        texts = _profile_texts(args.profile)
        out = _checked_out(args)
        sample, cal = _fit(args.kolab)
        written = _write(cal, out, texts, args)
    except _CalibrateError as err:
        return user_error("calibrate", f"error: {err}")
    r = cal.model.reactions
    print(
        f"fitted on {len(sample.session_ids)} sessions: adopt {r.adopt.value:.3f}, "
        f"modify {r.modify.value:.3f}, reject {r.reject.value:.3f}, "
        f"kappa {r.concentration.value:.2f}; wrote {', '.join(p.name for p in written)} "
        f"to {args.out}"
    )
    return 0


def _profile_texts(paths: list[Path] | None) -> dict[str, str] | None:
    """Read the ``--profile`` files; ``None`` when none were given (the packaged D and R).

    Returns:
        The text of each profile by its key (the file's ``key`` or its stem).

    Raises:
        _CalibrateError: A file cannot be read, is not a YAML mapping, or its key names the
            shared behaviour file.
    """
    if not paths:
        return None
    import yaml

    from collabsim.participants.behaviour.profile import BEHAVIOUR_FILE

    texts = {}
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
            data = yaml.safe_load(text)
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
            raise _CalibrateError(f"--profile {path}: {' '.join(str(err).split())}") from err
        if not isinstance(data, dict):
            raise _CalibrateError(f"--profile {path}: a profile must be a YAML mapping")
        key = str(data.get("key") or path.stem)
        if f"{key}.yaml" == BEHAVIOUR_FILE:
            raise _CalibrateError(f"--profile {path}: the profile key "
                                  f"{key!r} names the shared {BEHAVIOUR_FILE}; choose another")
        texts[key] = text
    return texts


def _checked_out(args: argparse.Namespace) -> Path:
    """Check the ``--out`` folder (never an input, never a foreign file); return its path.

    Raises:
        _CalibrateError: The folder is unsafe to write into.
    """
    try:
        return check_output_dir(args.out, option="--out", inputs=[args.kolab, *(args.profile or [])],
                                own_names=("*.yaml", "calibration.md"))
    except OutputPathError as err:
        raise _CalibrateError(str(err)) from err


def _fit(kolab: Path) -> tuple[KolabSample, Calibration]:
    """Load the Kolab sample from ``kolab`` and fit the calibration to it.

    Returns:
        The sample and the fitted calibration.

    Raises:
        _CalibrateError: The file is unusable or the fit fails on its data.
    """
    from collabsim.calibration.fit import calibrate
    from collabsim.calibration.kolab_sample import CalibrationInputError, load_kolab_sample

    try:
        _, sample = load_kolab_sample(kolab)
        return sample, calibrate(sample)
    except CalibrationInputError as err:
        raise _CalibrateError(f"--kolab {err}") from err
    except ValueError as err:
        raise _CalibrateError(f"--kolab {kolab}: cannot fit: {err}") from err


def _write(
    cal: Calibration, out: Path, texts: dict[str, str] | None, args: argparse.Namespace
) -> list[Path]:
    """Write the profiles and ``calibration.md`` into ``out``; return the files written.

    Raises:
        _CalibrateError: A file cannot be written.
    """
    from collabsim.calibration.write import write_calibration

    try:
        return write_calibration(cal, out, profile_texts=texts, check_seed=args.seed)
    except OSError as err:
        raise _CalibrateError(f"--out {args.out}: {' '.join(str(err).split())}") from err
