"""Write a calibration: the fitted ``behaviour.yaml``, the profiles naming it, calibration.md.

The Kolab data has one kind of human (the professional using the agent), so the profiles (by
default the packaged ``D`` and ``R``) share one fitted block: it is written once, to
``behaviour.yaml``, and each profile is written with ``behaviour: behaviour.yaml`` (the layout
of the packaged profiles). A profile that already names that file is copied unchanged
(comments included); one without a ``behaviour:`` gets the line appended, and one with an
inline block or another file gets it replaced.

Files are first written into a staging folder beside the output folder and moved into place
only when all of them were written, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np
import yaml
from scipy import stats

from collabsim.calibration.checks import (
    FamilyRow,
    SpreadCheck,
    StatCheck,
    family_comparison,
    spread_check,
    timing_checks,
)
from collabsim.calibration.fit import Calibration
from collabsim.calibration.staging import StagedOutput
from collabsim.participants.behaviour.profile import BEHAVIOUR_FILE
from collabsim.participants.behaviour.reactions import LABELS

DEFAULT_PROFILES: tuple[str, ...] = ("D", "R")
TIMING_CHECK_TOL_SE = 2.5


def packaged_profile_text(key: str) -> str:
    """Text of the packaged profile ``collabsim/participants/profiles/<key>.yaml``."""
    ref = resources.files("collabsim.participants.profiles").joinpath(f"{key}.yaml")
    return ref.read_text(encoding="utf-8")


def profile_naming_behaviour_file(text: str) -> str:
    """Profile text whose ``behaviour:`` names the shared :data:`BEHAVIOUR_FILE`."""
    data = yaml.safe_load(text) or {}
    if not isinstance(data, dict):
        raise ValueError("a profile must be a YAML mapping")
    if data.get("behaviour") == BEHAVIOUR_FILE:
        return text
    if "behaviour" in data:
        data.pop("behaviour")
        text = yaml.safe_dump(data, sort_keys=False, width=200)
    return (text.rstrip("\n") + "\n# behaviour: the calibrated block, shared by the profiles "
            "(see calibration.md)\n" + yaml.safe_dump({"behaviour": BEHAVIOUR_FILE}))


def behaviour_file_text(behaviour: dict, note: str) -> str:
    """Text of the shared ``behaviour.yaml``: ``note`` as a comment, then the block."""
    return f"# {note}\n" + yaml.safe_dump({"behaviour": behaviour}, sort_keys=False, width=200)


def _fmt(x: float, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _check_section(cal: Calibration) -> list[str]:
    """calibration.md lines on the reaction shift by the own check (none without the fit)."""
    check = cal.model.check
    if check is None:
        return []
    low, high = cal.sample.reactions_low, cal.sample.reactions_high
    table = [[int(low[0]), int(low.sum() - low[0])], [int(high[0]), int(high.sum() - high[0])]]
    p_value = float(stats.fisher_exact(table)[1])
    lines = [
        "## Reactions given the own check",
        "",
        "Proxy: a response to an AI output in a step the professional rated output quality "
        "<= 3 stands for a check that disagrees, >= 4 for one that agrees (responses in "
        f"unrated steps, {int(cal.sample.reaction_totals.sum() - low.sum() - high.sum())}, are "
        "left out). A person's calibrated rates are shifted by the likelihood ratio "
        "P(label | outcome) / P(label | rated).",
        "",
        "| own check | n | adopt (95 % CI) | modify (95 % CI) | reject (95 % CI) |",
        "|---|---:|---|---|---|",
    ]
    for outcome, counts in (("agrees (rated >= 4)", high), ("disagrees (rated <= 3)", low)):
        prefix = "disagree" if outcome.startswith("dis") else "agree"
        cells = []
        for label in LABELS:
            par = getattr(check, f"{prefix}_{label}")
            lo, hi = par.ci or (math.nan, math.nan)
            cells.append(f"{par.value:.3f} ({lo:.2f}-{hi:.2f})")
        lines.append(f"| {outcome} | {int(counts.sum())} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Adopt share low vs high: Fisher exact p = {p_value:.2f}. Only {int(low.sum())} "
        "responses are on the low side: the direction (less adoption, more rejection of "
        "outputs judged poor) is what the data shows, its size is weakly determined.",
        "",
    ]
    return lines


def calibration_markdown(
    cal: Calibration,
    checks: Sequence[StatCheck],
    spread: SpreadCheck,
    profiles: Sequence[str],
    families: Sequence[FamilyRow] = (),
) -> str:
    """The short calibration report."""
    s = cal.sample
    tm, rm = cal.model.timing, cal.model.reactions
    totals = s.reaction_totals
    n = int(totals.sum())
    lines = [
        "# Calibration of the simulated-human behaviour model",
        "",
        f"Source: `{s.file_name}` - {len(s.session_ids)} sessions, "
        f"{len(s.reactions)} participants, {int(sum(len(t) for t in s.intervals))} gaps between "
        f"human events, {n} responses to AI outputs. Profiles written: "
        + ", ".join(f"`{p}.yaml`" for p in profiles)
        + f", all naming `{BEHAVIOUR_FILE}` (one fitted block: the data has one kind of human).",
        "",
        "## Reactions to AI outputs",
        "",
        "| label | count | fitted rate |",
        "|---|---:|---:|",
    ]
    for k, label in enumerate(LABELS):
        lines.append(f"| {label} | {int(totals[k])} | {getattr(rm, label).value:.4f} |")
    lines += [
        "",
        f"Per-person spread: Dirichlet concentration kappa = {rm.concentration.value:.2f} "
        "(maximum marginal likelihood"
        + (", at the search bound: no spread beyond chance" if cal.concentration.at_bound else "")
        + f"). Observed per-participant adopt share: {spread.observed.min():.2f} to "
        f"{spread.observed.max():.2f} (SD {spread.observed_sd:.3f}, {len(spread.observed)} "
        f"participants). Model: 90 % of simulated people adopt at a rate in "
        f"[{spread.latent_q05:.2f}, {spread.latent_q95:.2f}]; at the real response counts the "
        f"SD of observed shares would lie in [{spread.predicted_sd_q05:.3f}, "
        f"{spread.predicted_sd_q95:.3f}] (90 %).",
        "",
    ]
    lines += _check_section(cal)
    lead = cal.model.lead_in
    if lead is not None:
        lines += [
            "## Solo lead-in",
            "",
            f"Sessions opening with human work before the AI's first node: "
            f"{lead.probability.value:.2f} ({lead.probability.source.split(': ', 1)[-1]}); "
            f"human actions before it, the engaging request included: geometric with mean "
            f"{lead.actions_mean.value:.2f} ({lead.actions_mean.source.split(': ', 1)[-1]}).",
            "",
        ]
    lines += [
        "## Timing of human actions",
        "",
        "Two-state lognormal HMM on the gaps between human events, with a per-session tempo "
        "(see `collabsim/participants/behaviour/timing.py` for why this family).",
        "",
        "| parameter | value |",
        "|---|---:|",
        f"| tempo: mean log gap (median gap {math.exp(tm.tempo_mean.value):.0f} s) | "
        f"{tm.tempo_mean.value:.3f} |",
        f"| tempo: SD over sessions | {tm.tempo_sd.value:.3f} |",
        f"| state 0: mean / SD (log, relative to tempo) | {tm.fast_mean.value:.3f} / "
        f"{tm.fast_sd.value:.3f} |",
        f"| state 1: mean / SD | {tm.slow_mean.value:.3f} / {tm.slow_sd.value:.3f} |",
        f"| P(stay in state 0) / P(stay in state 1) | {tm.stay_fast.value:.3f} / "
        f"{tm.stay_slow.value:.3f} |",
        f"| action lasts the whole gap | {tm.continuous_share.value:.3f} |",
        f"| otherwise duration share ~ Beta(a, b) | a = {tm.duration_a.value:.3f}, "
        f"b = {tm.duration_b.value:.3f} |",
        "",
        f"EM: log-likelihood {cal.hmm.loglik:.2f}, {cal.hmm.iterations} iterations, "
        f"{'converged' if cal.hmm.converged else 'NOT converged'}.",
        "",
        "Check: sessions simulated at the real numbers of human events against the real ones "
        f"(pass = simulated mean within {TIMING_CHECK_TOL_SE} standard errors of the real mean; "
        "the real mean over about 30 sessions is itself uncertain by that SE).",
        "",
        "| statistic | real mean (SE) | real SD | simulated mean | simulated SD | "
        "distance in SE | KS D (p) | pass |",
        "|---|---|---:|---:|---:|---:|---|---|",
    ]
    for c in checks:
        ok = c.diff_in_se <= TIMING_CHECK_TOL_SE
        lines.append(
            f"| {c.name} | {_fmt(c.real_mean)} ({_fmt(c.real_se)}) | {_fmt(c.real_sd)} | "
            f"{_fmt(c.sim_mean)} | {_fmt(c.sim_sd)} | {_fmt(c.diff_in_se, 2)} | "
            f"{_fmt(c.ks_stat)} ({_fmt(c.ks_p)}) | {'yes' if ok else 'NO'} |"
        )
    if families:
        lines += [
            "",
            "Why this family: simpler families fitted to the same data, simulated the same way "
            "(B and M: simulated mean, its distance from the real mean in SE, KS p; gaps: KS "
            "distance between all simulated and all real gaps, lower is closer).",
            "",
            "| family | B mean (SE dist.; KS p) | M mean (SE dist.; KS p) | gaps KS D |",
            "|---|---|---|---:|",
        ]
        for f in families:
            b, m = f.burstiness, f.memory
            lines.append(
                f"| {f.family} | {_fmt(b.sim_mean)} ({_fmt(b.diff_in_se, 1)}; {_fmt(b.ks_p)}) | "
                f"{_fmt(m.sim_mean)} ({_fmt(m.diff_in_se, 1)}; {_fmt(m.ks_p)}) | "
                f"{_fmt(f.gaps_ks)} |"
            )
        if all(f.memory.sim_sd < f.memory.real_sd for f in families):
            lines += [
                "",
                "No family reproduces the spread of M across real sessions (real SD above "
                "every simulated SD): sessions differ in memory more than these stationary "
                "models produce.",
            ]
    lines += [
        "",
        "## Limits",
        "",
        "- Kolab participants are professionals on their own long tasks with one AI "
        "assistant, not data analysts in a simulated team; the fitted values are the best "
        "available real reference, not a measurement of D or R.",
        "- Every parameter's source is in the profile YAMLs (`kolab:<file>: <statistic>` or "
        "`prior:<reference>`). No published team result was used.",
        "",
    ]
    return "\n".join(lines)


def write_calibration(
    cal: Calibration,
    out_dir: str | Path,
    *,
    profile_texts: dict[str, str] | None = None,
    check_seed: int = 0,
) -> list[Path]:
    """Write ``behaviour.yaml``, the profiles naming it and calibration.md into ``out_dir``;
    returns the written paths.

    Args:
        cal: The fitted calibration.
        out_dir: Output folder (created; files of the same name are replaced).
        profile_texts: Profile key -> existing profile YAML text (default: packaged D and R).
        check_seed: Seed of the simulation checks in calibration.md.
    """
    out = Path(out_dir)
    texts = profile_texts or {k: packaged_profile_text(k) for k in DEFAULT_PROFILES}
    behaviour = cal.model.to_dict()
    note = (
        f"behaviour: fitted by `collabsim calibrate` from {cal.sample.file_name} "
        "(see calibration.md); every parameter names its source"
    )
    checks = timing_checks(cal.model.timing, cal.sample, seed=check_seed)
    spread = spread_check(cal.model.reactions, cal.sample, seed=check_seed)
    families = family_comparison(cal.model.timing, cal.sample, reps=50, seed=check_seed)
    with StagedOutput(out) as staged:
        (staged.dir / BEHAVIOUR_FILE).write_text(
            behaviour_file_text(behaviour, note), encoding="utf-8"
        )
        names = [BEHAVIOUR_FILE]
        for key, text in texts.items():
            (staged.dir / f"{key}.yaml").write_text(
                profile_naming_behaviour_file(text), encoding="utf-8"
            )
            names.append(f"{key}.yaml")
        (staged.dir / "calibration.md").write_text(
            calibration_markdown(cal, checks, spread, list(texts), families), encoding="utf-8"
        )
        names.append("calibration.md")
        return staged.publish(names)


def observed_adopt_range(cal: Calibration) -> tuple[float, float]:
    """Min and max observed per-participant adopt share."""
    counts = cal.sample.participant_counts
    shares = counts[:, 0] / counts.sum(axis=1)
    return float(np.min(shares)), float(np.max(shares))
