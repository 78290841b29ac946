"""Calibration on the shared Kolab explorer graphs, and the ``collabsim calibrate`` command."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy import stats

from collabsim.calibration.checks import family_comparison, simulate_human_streams, spread_check
from collabsim.calibration.fit import Calibration, calibrate
from collabsim.calibration.kolab_sample import KolabSample
from collabsim.cli.main import main
from collabsim.metrics.dynamics import burstiness, human_event_times, memory_coefficient
from collabsim.participants.behaviour import ReactionRates, load_behaviour
from tests.helpers.floats import assert_same_fit, fit_mismatches

# Timing check tolerance, in standard errors of the real mean over the 31 sessions (SE about
# 0.018 for B and 0.049 for M). The real mean is itself an estimate from 31 short streams;
# 2.5 SE accepts a model the data cannot tell from the truth at about the 1 % level, and still
# rejects the simulator's present clock and a single lognormal fitted to the data (below).
TOL_SE = 2.5


def _raw_labels(path: Path) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """Adopt/modify/reject counts read straight from the JSON, overall and per participant."""
    data = json.loads(path.read_text(encoding="utf-8"))
    overall: Counter[str] = Counter()
    per: dict[str, Counter[str]] = defaultdict(Counter)
    for session in data["sessions"]:
        for r in session["responses"]:
            overall[r["label"]] += 1
            per[session["participant_id"]][r["label"]] += 1
    return overall, per


def test_fitted_reaction_rates_equal_the_label_counts_in_the_data(
    kolab_calibration: Calibration, kolab_sessions_path: Path
):
    overall, _ = _raw_labels(kolab_sessions_path)
    n = sum(overall.values())
    assert n == 247 and overall == {"adopt": 152, "modify": 63, "reject": 32}
    r = kolab_calibration.model.reactions
    assert r.adopt.value == pytest.approx(overall["adopt"] / n, abs=1e-12)
    assert r.modify.value == pytest.approx(overall["modify"] / n, abs=1e-12)
    assert r.reject.value == pytest.approx(overall["reject"] / n, abs=1e-12)
    assert r.adopt.source == "kolab:explorer_sessions.json: 152/247 responses"


def _raw_labels_by_rating(path: Path) -> dict[str, Counter[str]]:
    """Labels read straight from the JSON, by the quality rating of the AI node's step:
    ``low`` (1-3), ``high`` (4-5), ``unrated``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for session in data["sessions"]:
        steps = {s["index"]: s.get("quality") for s in session["steps"]}
        node_step = {n["id"]: n.get("step") for n in session["nodes"]}
        for r in session["responses"]:
            quality = steps.get(node_step.get(r["ai_node"]))
            group = "unrated" if quality is None else "low" if quality <= 3 else "high"
            out[group][r["label"]] += 1
    return out


def test_reactions_given_the_own_check_equal_the_counts_by_quality_rating(
    kolab_calibration: Calibration, kolab_sessions_path: Path
):
    raw = _raw_labels_by_rating(kolab_sessions_path)
    assert raw["low"] == {"adopt": 13, "modify": 6, "reject": 5}
    assert raw["high"] == {"adopt": 98, "modify": 26, "reject": 15}
    assert sum(raw["unrated"].values()) == 84
    check = kolab_calibration.model.check
    assert check is not None
    for outcome, group in (("disagree", "low"), ("agree", "high")):
        n = sum(raw[group].values())
        for label in ("adopt", "modify", "reject"):
            par = getattr(check, f"{outcome}_{label}")
            assert par.value == pytest.approx(raw[group][label] / n, abs=1e-12)
            assert par.source.startswith(f"kolab:explorer_sessions.json: {raw[group][label]}/{n} ")
            assert par.ci is not None and par.ci[0] < par.value < par.ci[1]
    assert check.disagree_share.value == pytest.approx(24 / 163)
    # a person at the rated population mean reacts with exactly the data's conditional rates
    ref = check.reference()
    shifted = check.shift(ReactionRates(*ref), disagrees=True)
    assert shifted.as_array() == pytest.approx(check.given(True))
    # the low side is small: its 95 % interval for adopt is wide and covers the high side's
    assert check.disagree_adopt.ci[1] > check.agree_adopt.value


def test_lead_in_is_fitted_to_the_human_nodes_before_the_first_ai_node(
    kolab_calibration: Calibration, kolab_sample: KolabSample
):
    # every one of the 31 sessions opens with human nodes: 1 in 12 sessions, 2 in 11, ...
    counts = Counter(kolab_sample.lead_in_actions.tolist())
    assert counts == {1: 12, 2: 11, 3: 1, 4: 2, 5: 1, 6: 2, 8: 1, 10: 1}
    lead = kolab_calibration.model.lead_in
    assert lead is not None
    assert lead.probability.value == 1.0
    assert lead.actions_mean.value == pytest.approx(80 / 31, abs=1e-12)
    drawn = [lead.sample_actions(np.random.default_rng(i)) for i in range(4000)]
    assert min(drawn) == 1 and np.mean(drawn) == pytest.approx(80 / 31, rel=0.05)


def test_per_participant_spread_of_adoption_is_within_the_observed_range(
    kolab_calibration: Calibration, kolab_sample: KolabSample, kolab_sessions_path: Path
):
    _, per = _raw_labels(kolab_sessions_path)
    shares = np.array([c["adopt"] / sum(c.values()) for c in per.values() if sum(c.values())])
    assert len(shares) == 20
    model = kolab_calibration.model.reactions
    assert not kolab_calibration.concentration.at_bound  # the data shows real spread
    check = spread_check(model, kolab_sample, reps=1000, seed=0)
    # 90 % of simulated people adopt at rates inside what real participants showed ...
    assert shares.min() <= check.latent_q05 < check.latent_q95 <= shares.max()
    # ... and the between-participant SD the model predicts at the real response counts
    # covers the observed SD (it would not for everyone-alike or anything-goes models)
    assert check.predicted_sd_q05 <= shares.std(ddof=1) <= check.predicted_sd_q95


def test_sampled_burstiness_and_memory_are_close_to_the_real_ones(
    kolab_calibration: Calibration, kolab_sessions_path: Path, kolab_sample: KolabSample
):
    real_b = np.array([burstiness(human_event_times(g)) for g in _graphs(kolab_sessions_path)])
    real_m = np.array(
        [memory_coefficient(human_event_times(g)) for g in _graphs(kolab_sessions_path)]
    )
    assert not np.isnan(real_b).any() and not np.isnan(real_m).any()
    sim_b, sim_m = simulate_human_streams(
        kolab_calibration.model.timing, kolab_sample.event_counts, reps=100, seed=11
    )
    for real, sim in ((real_b, sim_b), (real_m, sim_m)):
        sim = sim[~np.isnan(sim)]
        se = real.std(ddof=1) / np.sqrt(len(real))
        assert abs(sim.mean() - real.mean()) <= TOL_SE * se
        assert stats.ks_2samp(real, sim).pvalue > 0.05


def _graphs(path: Path):
    import warnings

    from collabsim.graphs.explorer_io import load_explorer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_explorer(path)


def test_the_timing_check_rejects_streams_unlike_the_real_ones(
    kolab_calibration: Calibration, kolab_sample: KolabSample
):
    """The tolerance is tight enough to reject what the simulator's clock does today
    (one lognormal per action, log-SD 0.5: too regular) and a single lognormal fitted to the
    data's pooled log gaps (too bursty)."""
    real_b = kolab_sample.burstiness
    se = real_b.std(ddof=1) / np.sqrt(len(real_b))
    rng = np.random.default_rng(0)
    clock = [
        burstiness(np.cumsum(rng.lognormal(4.0, 0.5, size=int(n))))
        for _ in range(50)
        for n in kolab_sample.event_counts
    ]
    assert abs(np.mean(clock) - real_b.mean()) > TOL_SE * se
    rows = family_comparison(kolab_calibration.model.timing, kolab_sample, reps=50, seed=0)
    fitted, one_lognormal, _ = rows
    assert fitted.burstiness.diff_in_se <= TOL_SE < one_lognormal.burstiness.diff_in_se
    assert fitted.gaps_ks < 0.1


def test_every_parameter_names_its_source_and_the_fit_is_deterministic(
    kolab_calibration: Calibration, kolab_sample: KolabSample
):
    sources = kolab_calibration.model.sources()
    assert len(sources) == 34  # timing 13, reactions 4, lead-in 2, check 7, participation 8
    assert all(s.startswith(("kolab:explorer_sessions.json: ", "prior:")) for s in sources.values())
    assert calibrate(kolab_sample).model == kolab_calibration.model
    assert kolab_calibration.hmm.converged


def test_calibrate_command_writes_profiles_with_the_behaviour_block(
    kolab_sessions_path: Path, kolab_calibration: Calibration, tmp_path, capsys
):
    out = tmp_path / "profiles"
    assert main(["calibrate", "--kolab", str(kolab_sessions_path), "--out", str(out)]) == 0
    assert "adopt 0.615, modify 0.255, reject 0.130" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == [
        "D.yaml", "R.yaml", "behaviour.yaml", "calibration.md"]
    packaged_folder = resources.files("collabsim.participants.profiles")
    for key in ("D", "R"):
        written = yaml.safe_load((out / f"{key}.yaml").read_text())
        packaged = yaml.safe_load(packaged_folder.joinpath(f"{key}.yaml").read_text("utf-8"))
        # the packaged profiles name the shared behaviour.yaml; the rest is copied as is
        assert written == packaged and written["behaviour"] == "behaviour.yaml"
        assert load_behaviour(out / f"{key}.yaml") == kolab_calibration.model
    # the packaged shared block is what calibrate fits (reaction shift included); fitted
    # floats agree within tests/helpers/floats.py's tolerance (last digits vary by CPU)
    assert_same_fit(yaml.safe_load((out / "behaviour.yaml").read_text())["behaviour"],
                    yaml.safe_load(packaged_folder.joinpath("behaviour.yaml").read_text("utf-8"))[
                        "behaviour"])
    report = (out / "calibration.md").read_text()
    assert "| adopt | 152 | 0.6154 |" in report and "| reject | 32 | 0.1296 |" in report
    assert "| disagrees (rated <= 3) | 24 | 0.542 (0.35-0.72) |" in report
    assert "NO |" not in report  # both timing checks pass
    # calibrating a calibrated profile replaces its block instead of adding a second one
    again = tmp_path / "again"
    assert (
        main(
            [
                "calibrate",
                "--kolab",
                str(kolab_sessions_path),
                "--out",
                str(again),
                "--profile",
                str(out / "D.yaml"),
            ]
        )
        == 0
    )
    assert sorted(p.name for p in again.iterdir()) == ["D.yaml", "behaviour.yaml", "calibration.md"]
    assert load_behaviour(again / "D.yaml") == kolab_calibration.model


@pytest.mark.parametrize(
    "content, expected",
    [
        (None, "no such Kolab file"),
        ('{"name": "x", "sessions": []}', "no sessions"),
        ("{not json", "explorer.json"),
        ('{"sessions": [{"session_id": "a", "nodes": [], "edges": []}]}', "fewer than 3 gaps"),
    ],
)
def test_calibrate_reports_bad_kolab_input_in_one_line_and_writes_nothing(
    tmp_path, capsys, content, expected
):
    kolab = tmp_path / "explorer.json"
    if content is not None:
        kolab.write_text(content)
    out = tmp_path / "out"
    assert main(["calibrate", "--kolab", str(kolab), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("collabsim calibrate: error: --kolab ") and expected in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == ([kolab] if content is not None else [])


def test_packaged_fit_comparison_tolerates_the_last_digits_of_another_cpu():
    """The fitted block differs in its last digits on another CPU (issue 23, item 16): that
    must still count as the same fit, while a change a reader could see must not."""
    packaged = yaml.safe_load(
        resources.files("collabsim.participants.profiles").joinpath("behaviour.yaml").read_text("utf-8")
    )["behaviour"]

    def nudged(data, factor):
        if isinstance(data, dict):
            return {k: nudged(v, factor) for k, v in data.items()}
        if isinstance(data, list):
            return [nudged(v, factor) for v in data]
        if isinstance(data, float):
            return data * factor
        return data

    other_cpu = nudged(packaged, 1 + 3e-15)  # e.g. -0.35609195734349125 vs -0.3560919573434909
    assert other_cpu != packaged
    assert_same_fit(other_cpu, packaged)
    assert fit_mismatches(nudged(packaged, 1 + 1e-3), packaged)  # a real change is caught
