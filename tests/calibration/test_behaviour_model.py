"""The behaviour model's parameter records and samplers (collabsim.participants.behaviour)."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from collabsim.metrics.dynamics import burstiness, memory_coefficient
from collabsim.participants.behaviour import (
    BehaviourConfigError,
    BehaviourModel,
    CheckShift,
    Param,
    ReactionModel,
    ReactionRates,
    TimingModel,
    event_times,
    load_behaviour,
)


def _p(value: float) -> Param:
    return Param(value, "prior:test value")


def timing(**over: float) -> TimingModel:
    values = dict(
        tempo_mean=4.5,
        tempo_sd=0.4,
        fast_mean=-0.4,
        fast_sd=1.2,
        slow_mean=0.1,
        slow_sd=0.8,
        stay_fast=0.8,
        stay_slow=0.9,
        start_fast=0.5,
        continuous_share=0.6,
        duration_a=1.4,
        duration_b=1.0,
        min_interval=1.0,
    )
    values.update(over)
    return TimingModel(**{k: _p(v) for k, v in values.items()})


def reactions(kappa: float = 7.0) -> ReactionModel:
    return ReactionModel(_p(0.6), _p(0.3), _p(0.1), _p(kappa))


def test_a_parameter_must_name_a_kolab_or_prior_source():
    assert Param(1.0, "kolab:explorer_sessions.json: 152/247").value == 1.0
    with pytest.raises(BehaviourConfigError, match="source"):
        Param(1.0, "made up")
    with pytest.raises(BehaviourConfigError, match="finite"):
        Param(float("nan"), "prior:x")


def test_behaviour_block_round_trips_through_yaml_and_rejects_bad_keys(tmp_path):
    model = BehaviourModel(timing(), reactions())
    text = yaml.safe_dump({"key": "D", "behaviour": model.to_dict()})
    path = tmp_path / "D.yaml"
    path.write_text(text)
    assert load_behaviour(path) == model

    bad = model.to_dict()
    bad["timing"]["tempo_typo"] = {"value": 1.0, "source": "prior:x"}
    with pytest.raises(BehaviourConfigError, match=r"behaviour\.timing: unknown parameter"):
        BehaviourModel.from_dict(bad)
    missing = model.to_dict()
    del missing["reactions"]["reject"]
    with pytest.raises(BehaviourConfigError, match=r"behaviour\.reactions: missing.*reject"):
        BehaviourModel.from_dict(missing)
    unsourced = model.to_dict()
    unsourced["reactions"]["adopt"] = {"value": 0.6}
    with pytest.raises(BehaviourConfigError, match=r"behaviour\.reactions\.adopt"):
        BehaviourModel.from_dict(unsourced)
    not_rates = model.to_dict()
    not_rates["reactions"]["adopt"]["value"] = 0.9
    with pytest.raises(BehaviourConfigError, match="sum to 1"):
        BehaviourModel.from_dict(not_rates)


def test_timing_samples_are_seeded_and_split_each_gap_into_action_and_think_time():
    model = timing()
    a = model.sample(500, np.random.default_rng(3))
    b = model.sample(500, np.random.default_rng(3))
    c = model.sample(500, np.random.default_rng(4))
    assert np.array_equal(a.intervals, b.intervals) and np.array_equal(a.durations, b.durations)
    assert not np.array_equal(a.intervals, c.intervals)
    assert np.all(a.intervals >= 1.0)
    assert np.all(a.durations <= a.intervals) and np.all(a.think >= 0)
    assert np.allclose(a.durations + a.think, a.intervals)
    # about continuous_share of actions fill their whole gap
    assert np.mean(a.think == 0) == pytest.approx(0.6, abs=0.06)
    always = timing(continuous_share=1.0).sample(50, np.random.default_rng(0))
    assert np.all(always.think == 0)


def test_timing_family_reaches_both_memoryless_and_persistent_streams():
    rng = np.random.default_rng(0)
    # states that do not persist: consecutive gaps are independent, M about 0
    iid = timing(stay_fast=0.5, stay_slow=0.5, tempo_sd=0.0)
    times = event_times(iid.sample_intervals(20_000, rng))
    assert abs(memory_coefficient(times)) < 0.03
    # sticky, well-separated states: long runs of short and of long gaps, M clearly > 0
    sticky = timing(
        stay_fast=0.97, stay_slow=0.97, fast_mean=-1.5, slow_mean=1.5, fast_sd=0.3, slow_sd=0.3
    )
    times = event_times(sticky.sample_intervals(20_000, rng))
    assert memory_coefficient(times) > 0.5
    # mostly short gaps with rare long pauses (stationary share of fast gaps 0.83): bursts,
    # coefficient of variation above 1, so B > 0
    bursty = timing(
        stay_fast=0.98, stay_slow=0.9, fast_mean=-3.0, slow_mean=2.0, fast_sd=0.3, slow_sd=0.3
    )
    assert bursty.stationary_fast() == pytest.approx(0.1 / 0.12)
    times = event_times(bursty.sample_intervals(20_000, rng))
    assert burstiness(times) > 0.25


def test_reaction_rates_spread_per_person_around_the_population_mean():
    rng = np.random.default_rng(1)
    spread = reactions(kappa=3.0)
    people = np.array([spread.sample_participant(rng).as_array() for _ in range(4000)])
    assert np.allclose(people.sum(axis=1), 1.0)
    assert people.mean(axis=0) == pytest.approx([0.6, 0.3, 0.1], abs=0.02)
    # Dirichlet(kappa * p): Var(theta_adopt) = p (1 - p) / (kappa + 1)
    assert people[:, 0].var() == pytest.approx(0.6 * 0.4 / 4.0, rel=0.1)
    alike = reactions(kappa=5000.0)
    same = np.array([alike.sample_participant(rng).as_array() for _ in range(200)])
    assert np.abs(same - [0.6, 0.3, 0.1]).max() < 0.05
    labels = spread.mean.sample_many(20_000, rng)
    assert labels.count("adopt") / 20_000 == pytest.approx(0.6, abs=0.015)
    assert set(labels) == {"adopt", "modify", "reject"}


def check_shift(**over: float) -> CheckShift:
    values = dict(agree_adopt=0.7, agree_modify=0.2, agree_reject=0.1, disagree_adopt=0.5,
                  disagree_modify=0.25, disagree_reject=0.25, disagree_share=0.2)
    values.update(over)
    return CheckShift(**{k: Param(v, "prior:test value", (0.0, 1.0)) for k, v in values.items()})


def test_the_check_shift_block_round_trips_with_its_intervals_and_is_optional():
    model = BehaviourModel(timing(), reactions(), check=check_shift())
    data = yaml.safe_load(yaml.safe_dump(model.to_dict()))
    assert data["check"]["agree_adopt"]["ci"] == [0.0, 1.0]
    assert BehaviourModel.from_dict(data) == model
    assert BehaviourModel.from_dict(BehaviourModel(timing(), reactions()).to_dict()).check is None
    bad = model.to_dict()
    bad["check"]["disagree_adopt"]["value"] = 0.9
    with pytest.raises(BehaviourConfigError, match=r"behaviour: check\.disagree_\* rates"):
        BehaviourModel.from_dict(bad)
    bad_ci = model.to_dict()
    bad_ci["check"]["agree_adopt"]["ci"] = [0.5]
    with pytest.raises(BehaviourConfigError, match=r"behaviour\.check\.agree_adopt: ci"):
        BehaviourModel.from_dict(bad_ci)


def test_the_check_shift_moves_a_person_by_the_likelihood_ratio_and_keeps_habits():
    shift = check_shift()
    # a person at the rated mean reacts with the conditional rates of each outcome
    mean = ReactionRates(*shift.reference())
    assert shift.shift(mean, True).as_array() == pytest.approx([0.5, 0.25, 0.25])
    assert shift.shift(mean, False).as_array() == pytest.approx([0.7, 0.2, 0.1])
    # a person who never adopts still never adopts; one who always does still always does
    assert shift.shift(ReactionRates(0.0, 0.5, 0.5), False).adopt == 0.0
    assert shift.shift(ReactionRates(1.0, 0.0, 0.0), True).adopt == 1.0


def test_behaviour_and_calibration_code_never_import_hydra_wandb_or_the_cli():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import collabsim.participants.behaviour, collabsim.calibration.fit\n"
        "import collabsim.calibration.write, collabsim.calibration.fidelity_report\n"
        "import collabsim.calibration.simulated\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('hydra', 'wandb')"
        " or m.startswith('collabsim.cli')]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
