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
from typing import Any

from collabsim.cli.errors import user_error
from collabsim.core.outputs import OutputPathError, check_output_dir


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


def run(args: argparse.Namespace) -> int:
    """Execute ``collabsim calibrate``; returns the exit code."""
    import yaml

    from collabsim.calibration.fit import calibrate
    from collabsim.calibration.kolab_sample import CalibrationInputError, load_kolab_sample
    from collabsim.calibration.write import write_calibration
    from collabsim.participants.behaviour.profile import BEHAVIOUR_FILE

    texts = None
    if args.profile:
        texts = {}
        for path in args.profile:
            try:
                text = path.read_text(encoding="utf-8")
                data = yaml.safe_load(text)
            except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
                return user_error("calibrate", f"error: --profile {path}: {' '.join(str(err).split())}")
            if not isinstance(data, dict):
                return user_error("calibrate", f"error: --profile {path}: a profile must be a YAML mapping")
            key = str(data.get("key") or path.stem)
            if f"{key}.yaml" == BEHAVIOUR_FILE:
                return user_error("calibrate", f"error: --profile {path}: the profile key "
                                  f"{key!r} names the shared {BEHAVIOUR_FILE}; choose another")
            texts[key] = text
    try:
        out = check_output_dir(args.out, option="--out", inputs=[args.kolab, *(args.profile or [])],
                               own_names=("*.yaml", "calibration.md"))
    except OutputPathError as err:
        return user_error("calibrate", f"error: {err}")
    try:
        _, sample = load_kolab_sample(args.kolab)
        cal = calibrate(sample)
    except CalibrationInputError as err:
        return user_error("calibrate", f"error: --kolab {err}")
    except ValueError as err:
        return user_error("calibrate", f"error: --kolab {args.kolab}: cannot fit: {err}")
    try:
        written = write_calibration(cal, out, profile_texts=texts, check_seed=args.seed)
    except OSError as err:
        return user_error("calibrate", f"error: --out {args.out}: {' '.join(str(err).split())}")
    r = cal.model.reactions
    print(
        f"fitted on {len(sample.session_ids)} sessions: adopt {r.adopt.value:.3f}, "
        f"modify {r.modify.value:.3f}, reject {r.reject.value:.3f}, "
        f"kappa {r.concentration.value:.2f}; wrote {', '.join(p.name for p in written)} "
        f"to {args.out}"
    )
    return 0
