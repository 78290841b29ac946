"""Predictors: baselines' arithmetic, LLM answer parsing and offline runs, LOPO learning."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from collabsim.kolab.benchmark import make_predictors, run_benchmark
from collabsim.kolab.evaluate import evaluate_runs
from collabsim.kolab.instances import InstanceSet
from collabsim.kolab.predictors.baselines import (
    CarryForwardLabel,
    CarryForwardRating,
    MajorityClass,
    ModeRating,
)
from collabsim.kolab.predictors.learned import LearnedPredictor, ModelConfig, default_grid
from collabsim.kolab.predictors.llm import (
    LLMPredictor,
    build_messages,
    parse_adoption,
    parse_rating,
)
from collabsim.kolab.render import DirectoryFrameSource, Modality, render


def test_majority_baseline_macro_f1_matches_hand_arithmetic(
    explorer_instances: InstanceSet,
) -> None:
    inst = explorer_instances.by_task("1b")
    run = MajorityClass().predict(inst)
    assert set(run.predictions) == {"adopt"}
    ev = evaluate_runs("adoption", [i.target for i in inst], [run.predictions], n_boot=50)
    # adopt 152, modify 63, reject 32: always "adopt" gives precision 152/247, recall 1
    f1_adopt = 2 * 152 / (2 * 152 + (247 - 152))
    assert ev.values["f1_adopt"] == pytest.approx(f1_adopt)
    assert ev.values["macro_f1"] == pytest.approx(f1_adopt / 3)
    assert round(ev.values["macro_f1"], 3) == 0.254
    assert ev.values["pred_share_adopt"] == 1.0
    assert ev.values["true_share_reject"] == pytest.approx(32 / 247)


def test_mode_rating_baseline_matches_hand_arithmetic(explorer_instances: InstanceSet) -> None:
    inst = explorer_instances.by_task("2a")
    ratings = [int(i.target) for i in inst]
    run = ModeRating().predict(inst)
    assert set(run.predictions) == {5.0}
    ev = evaluate_runs("rating", ratings, [run.predictions], n_boot=50)
    assert ev.values["mae"] == pytest.approx(np.mean([5 - r for r in ratings]))
    assert ev.values["within1"] == pytest.approx(np.mean([r >= 4 for r in ratings]))
    assert np.isnan(ev.values["spearman"])  # constant predictions: undefined, not 0


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ("ADOPT", "adopt"),
        ("Modify", "modify"),
        ("REJECT/BYPASS", "reject"),
        ("**Reject**.", "reject"),
        ("Adopted", "adopt"),
        ("I think they will modify it before using it.", "modify"),
        ("Answer: REJECT", "reject"),
        ("Looking at the workflow, the human checks it.\nMODIFY", "modify"),
        ("adopt or modify", None),
        ("They might adopt it, or modify it", None),
        ("I cannot tell", None),
        ("", None),
    ],
)
def test_parse_adoption(reply: str, label: str | None) -> None:
    assert parse_adoption(reply) == label


@pytest.mark.parametrize(
    ("reply", "rating"),
    [
        ("4", 4),
        ("**2**", 2),
        ("4/5", 4),
        ("I'd say 3 out of 5.", 3),
        ("Rating: 5", 5),
        ("5.0", 5),
        ("3 or 4", None),
        ("4.5", None),
        ("6", None),
        ("excellent", None),
    ],
)
def test_parse_rating(reply: str, rating: int | None) -> None:
    assert parse_rating(reply) == rating


def test_prompt_gives_profession_steps_and_window(explorer_instances: InstanceSet) -> None:
    inst = explorer_instances.by_task("1b")[0]
    messages = build_messages(inst, render(inst, [Modality.GRAPH]))
    user = messages[1]["content"]
    assert "Profession: Film editor" in user
    assert "Goal of the session: (not recorded)" in user
    assert "TARGET AI OUTPUT" in user and "ADOPT, MODIFY or REJECT" in user
    rating = explorer_instances.by_task("2a")[0]
    text = build_messages(rating, render(rating, [Modality.GRAPH]))[1]["content"]
    assert "one integer from 1 to 5" in text and "Upload footage from iPhone" in text


@pytest.mark.slow
def test_llm_predictor_runs_offline_over_all_1b_and_2a(explorer_instances: InstanceSet) -> None:
    b = explorer_instances.by_task("1b")
    run = LLMPredictor("gpt-4o-mini", extra={"mock_response": "Modify."}, progress=False).predict(b)
    assert len(run.predictions) == 247 and run.n_invalid == 0
    assert set(run.predictions) == {"modify"}
    a = explorer_instances.by_task("2a")
    bad = LLMPredictor("gpt-4o-mini", extra={"mock_response": "hard to say"}, progress=False)
    run_a = bad.predict(a, run=1)
    assert len(run_a.predictions) == 97 and run_a.n_invalid == 97 and run_a.run == 1
    assert run_a.raw[0] == "hard to say"
    ev = evaluate_runs("rating", [i.target for i in a], [run_a.predictions], n_boot=20)
    assert ev.n_invalid == 97 and ev.values["n_valid"] == 0


def test_llm_predictor_does_not_ask_without_the_requested_modality(
    explorer_instances: InstanceSet,
) -> None:
    a = explorer_instances.by_task("2a")
    run = LLMPredictor(
        "gpt-4o-mini", [Modality.GRAPH, Modality.CHAT], extra={"mock_response": "5"}, progress=False
    ).predict(a)
    assert run.instance_ids == () and len(run.missing) == 97
    assert any("lack a requested modality" in n for n in run.notes)


@pytest.mark.slow
def test_learned_predictor_is_leave_one_participant_out(
    explorer_instances: InstanceSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    inst = explorer_instances.by_task("1b")
    groups = np.array([i.participant_id for i in inst])
    folds: list[tuple[set[str], set[str]]] = []
    original = LearnedPredictor._fit_predict

    def spy(self, train, test, *args):  # type: ignore[no-untyped-def]
        folds.append((set(groups[train]), set(groups[test])))
        return original(self, train, test, *args)

    monkeypatch.setattr(LearnedPredictor, "_fit_predict", spy)
    grid = (ModelConfig(("text", "cues"), 8, 30.0), ModelConfig(("cues",), 0, 300.0))
    # jobs=1: the spy records in this process (folds run in worker processes otherwise)
    run = LearnedPredictor(progress=False, grid=grid, inner_folds=3, jobs=1).predict(inst)
    assert len(folds) == len(set(groups))
    for train, test in folds:
        assert len(test) == 1 and not (train & test)
    assert all(p in {"adopt", "modify", "reject"} for p in run.predictions)
    assert "configurations chosen by nested selection" in run.notes[0]
    again = LearnedPredictor(progress=False, grid=grid, inner_folds=3).predict(inst)
    assert again.predictions == run.predictions  # deterministic


def test_feature_groups_can_be_switched_off() -> None:
    grid = default_grid("adoption", history=True)
    assert any(c.groups == ("history",) for c in grid)
    assert all("history" in c.groups for c in grid)
    assert any("structure" not in c.groups for c in grid)
    no_text = LearnedPredictor(groups=("cues", "structure", "history"))
    reduced = no_text._grid("adoption", True)
    assert reduced and all("text" not in c.groups and c.k == 0 for c in reduced)
    assert len(set(reduced)) == len(reduced)
    # switching off every group the task can use leaves nothing to evaluate, reported as such
    only_history = LearnedPredictor(groups=("history",), progress=False)
    assert only_history._grid("adoption", False) == ()


def test_carry_forward_predicts_the_previous_rating_or_5(explorer_instances: InstanceSet) -> None:
    inst = explorer_instances.by_task("2a")
    run = CarryForwardRating().predict(inst)
    by_session: dict[str, list[int]] = {}
    for i, pred in zip(inst, run.predictions, strict=True):
        seen = by_session.setdefault(i.session_id, [])
        assert pred == (float(seen[-1]) if seen else 5.0)
        seen.append(int(i.target))


def test_carry_forward_label_is_a_1b_plus_h_reference_rule(
    explorer_instances: InstanceSet,
) -> None:
    inst = explorer_instances.by_task("1b+h")
    run = CarryForwardLabel().predict(inst)
    majority = MajorityClass().predict(inst).predictions[0]
    assert majority == "adopt"
    for i, pred in zip(inst, run.predictions, strict=True):
        assert pred == (i.history[-1] if i.history else majority)
    assert sum(bool(i.history) for i in inst) > len(inst) // 2  # mostly not the fallback
    assert any(p != "adopt" for p in run.predictions)
    assert "not a learned design" in run.notes[0]
    # "carry-forward" gives the label rule on 1b+h only and the rating rule on ratings
    result = run_benchmark(
        explorer_instances, make_predictors("carry-forward"), ["1b", "1b+h", "2a"],
        n_boot=20, n_chance_draws=20, progress=False,
    )  # fmt: skip
    rows = {(r.task, r.predictor): r for r in result.rows}
    assert set(rows) == {("1b+h", "carry-forward"), ("2a", "carry-forward")}
    assert rows[("1b+h", "carry-forward")].uses_history


def test_learned_rating_predictions_stay_in_range(explorer_instances: InstanceSet) -> None:
    grid = (ModelConfig(("text", "cues"), 8, 30.0), ModelConfig(("cues",), 0, 300.0))
    run = LearnedPredictor(progress=False, grid=grid, inner_folds=3).predict(
        explorer_instances.by_task("2b")
    )
    assert len(run.predictions) == 110
    assert all(isinstance(p, float) and 1.0 <= p <= 5.0 for p in run.predictions)


def test_llm_predictor_sends_frames_as_image_parts(
    explorer_instances: InstanceSet, tmp_path: Path
) -> None:
    inst = explorer_instances.by_task("1b")[:2]
    for i in inst:
        folder = tmp_path / i.session_id.replace("|", "_")
        folder.mkdir(exist_ok=True)
        assert i.window_start is not None
        (folder / f"{int(i.window_start)}.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    source = DirectoryFrameSource(tmp_path)
    rendered = render(inst[0], [Modality.GRAPH, Modality.FRAMES], frame_source=source)
    content = build_messages(inst[0], rendered)[1]["content"]
    assert content[0]["type"] == "text" and content[1]["type"] == "image_url"
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    run = LLMPredictor(
        "gpt-4o-mini",
        [Modality.GRAPH, Modality.FRAMES],
        extra={"mock_response": "REJECT"},
        frame_source=source,
        progress=False,
    ).predict(inst)
    assert run.predictions == ("reject", "reject") and run.modality == "graph+frames"


def test_llm_prompt_for_1b_plus_h_lists_the_earlier_responses(
    explorer_instances: InstanceSet,
) -> None:
    with_history = next(i for i in explorer_instances.by_task("1b+h") if len(i.history) >= 2)
    user = build_messages(with_history, render(with_history, [Modality.GRAPH]))[1]["content"]
    listed = ", ".join(str(h).upper() for h in with_history.history)
    assert f"earlier AI outputs in this session, oldest first: {listed}." in user
    plain = explorer_instances.by_task("1b")[0]
    assert "earlier AI outputs" not in build_messages(plain, render(plain, [Modality.GRAPH]))[1][
        "content"
    ]


def test_learned_rating_model_predicts_deviations_from_carry_forward(
    explorer_instances: InstanceSet,
) -> None:
    # With the features shrunk away, only the centring and the deviation intercept remain:
    # within a held-out participant, predictions are the carry-forward rating plus one
    # constant (before clipping), not one constant as an uncentred model would give.
    inst = explorer_instances.by_task("2a")
    grid = (ModelConfig(("cues",), 0, 1e12),)
    predictor = LearnedPredictor(progress=False, grid=grid, inner_folds=3)
    run = predictor.predict(inst)
    carry = CarryForwardRating().predict(inst).predictions
    shifts: dict[str, set[float]] = {}
    for i, pred, cf in zip(inst, run.predictions, carry, strict=True):
        assert isinstance(pred, float) and cf is not None
        if 1.0 < pred < 5.0:
            shifts.setdefault(i.participant_id, set()).add(round(pred - float(cf), 6))
    assert len(shifts) >= 5 and all(len(s) == 1 for s in shifts.values())
    assert len(set(run.predictions)) > len({i.participant_id for i in inst})
    assert predictor.uses_history_for("2a") and predictor.uses_history_for("1b+h")
    assert not predictor.uses_history_for("1b")
