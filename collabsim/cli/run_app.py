"""``collabsim run``: the Hydra app over :func:`collabsim.experiment.job.run`.

Thin on purpose: it resolves the config, converts it to plain containers, hands it to the
pure ``run(cfg, output_dir)`` and prints the report. Everything else lives in the engine.

Examples::

    collabsim run                                   # built-in default grid, offline
    collabsim run team=DR structure=scaffolded seeds=[0,1,2]
    collabsim run experiment=grid run.max_concurrency=8
    collabsim run -m team=D,R,DR structure=default,scaffolded   # Hydra multirun sweep
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from collabsim.experiment.job import run
from collabsim.tracking import make_tracker

CONFIG_DIR = str(Path(__file__).resolve().parents[2] / "configs")


@hydra.main(config_path=CONFIG_DIR, config_name="config", version_base="1.3")
def hydra_main(cfg: DictConfig) -> float:
    """Hydra entry point; returns mean Performance (useful to Hydra sweepers)."""
    plain = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(plain, dict)
    output_dir = Path(HydraConfig.get().runtime.output_dir)
    tracker = make_tracker(plain.get("tracking") or {}, plain, output_dir)
    try:
        outcome = run(plain, output_dir)
        tracker.log_job(outcome)
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
            f"collabsim run: no Hydra configs at {CONFIG_DIR}. The configs live in the "
            "repository's configs/ folder: install from a checkout with `pip install -e .`.",
            file=sys.stderr,
        )
        return 2
    from collabsim.cli.launchers import missing_launcher_hint

    hint = missing_launcher_hint(args)
    if hint:
        print(hint, file=sys.stderr)
        return 2
    saved = sys.argv
    sys.argv = ["collabsim-run", *args]
    try:
        hydra_main()
    finally:
        sys.argv = saved
    return 0
