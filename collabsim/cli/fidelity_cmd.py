"""``collabsim fidelity SIM_DIR --kolab PATH --out DIR``: simulated vs real session dynamics.

Reads every ``trace.jsonl`` under SIM_DIR (the sessions of ``collabsim run``) and the Kolab
explorer graphs, computes per session human-action burstiness and memory, crossing share,
retention strict/broad, solo lead-in, human response-time quantiles, the share of AI outputs
answered and whether the last one is, and compares the two distributions of each (KS test,
Wasserstein distance with its chance level). Writes ``report.md``, ``sessions.csv`` and PNG
plots into DIR. User errors (missing folder, no traces, empty Kolab file) print one line and
exit with code 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from collabsim.cli.errors import user_error
from collabsim.core.outputs import OutputPathError, check_output_dir


def register(subparsers: Any) -> None:
    """Add the ``fidelity`` sub-command to ``subparsers``."""
    parser = subparsers.add_parser(
        "fidelity",
        help="compare simulated sessions with the real Kolab sessions (report.md + plots)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("sim_dir", type=Path, help="folder of simulated trace.jsonl files")
    parser.add_argument(
        "--kolab", type=Path, required=True, help="Kolab explorer dataset (explorer_sessions.json)"
    )
    parser.add_argument("--out", required=True, help="output folder for the report")
    parser.add_argument("--seed", type=int, default=0, help="seed of the permutation null")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``collabsim fidelity``; returns the exit code."""
    from collabsim.calibration.fidelity import fidelity
    from collabsim.calibration.fidelity_report import write_fidelity_report
    from collabsim.calibration.kolab_sample import CalibrationInputError, load_kolab_sample
    from collabsim.calibration.simulated import load_simulated_graphs

    try:
        out = check_output_dir(args.out, option="--out", inputs=[args.sim_dir, args.kolab],
                               own_names=("report.md", "sessions.csv", "fidelity_*.png"))
    except OutputPathError as err:
        return user_error("fidelity", f"error: {err}")
    try:
        sim = load_simulated_graphs(args.sim_dir)
    except CalibrationInputError as err:
        return user_error("fidelity", f"error: SIM_DIR {err}")
    try:
        real, _ = load_kolab_sample(args.kolab)
    except CalibrationInputError as err:
        return user_error("fidelity", f"error: --kolab {err}")
    if not any(n.actor_type == "human" for g in sim for n in g.nodes):
        return user_error(
            "fidelity",
            f"error: SIM_DIR {args.sim_dir}: none of the {len(sim)} sessions has a simulated human "
            "(single-agent runs have no human-AI dynamics to compare)"
        )
    fid = fidelity(real, sim, seed=args.seed)
    try:
        written = write_fidelity_report(
            fid, out, sim_dir=str(args.sim_dir), kolab=str(args.kolab)
        )
    except OSError as err:
        return user_error("fidelity", f"error: --out {args.out}: {' '.join(str(err).split())}")
    differs = sum(c.verdict == "differs" for c in fid.comparisons)
    print(
        f"compared {len(fid.sim_rows)} simulated with {len(real)} real sessions on "
        f"{len(fid.comparisons)} metrics ({differs} differ); wrote {len(written)} files to "
        f"{args.out} (see report.md)"
    )
    return 0
