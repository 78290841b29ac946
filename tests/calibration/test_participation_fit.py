"""The participation block (per-output-type response rates, delegation, own steps) is fitted
from the Kolab graphs, each parameter with its ``kolab:`` source."""

from __future__ import annotations

from importlib import resources

import yaml

from collabsim.calibration.answered import output_kind
from collabsim.calibration.fit import Calibration, fit_participation
from collabsim.calibration.kolab_sample import KolabSample
from collabsim.graphs.model import Node
from collabsim.participants.behaviour.participation import ParticipationModel


def test_participation_is_fitted_from_the_kolab_graphs(kolab_sample: KolabSample) -> None:
    # 335 AI nodes: 25 name code, 41 text written for the person, 269 chat answers
    assert kolab_sample.outputs == {"code": (25, 19), "draft": (41, 21), "message": (269, 176)}
    fit = fit_participation(kolab_sample)
    assert fit is not None
    assert fit.respond_code.value == 19 / 25 and fit.respond_message.value == 176 / 269
    assert fit.respond_draft.value == 21 / 41
    assert fit.respond_memory.value == 216 / 335  # no memory in Kolab: all outputs
    assert fit.delegate.value == 21 / 247
    assert fit.act_between.value == 329 / 335
    assert fit.respond_final.value == 30 / 31
    for name in ParticipationModel.names():
        param = getattr(fit, name)
        assert param.source.startswith("kolab:explorer_sessions.json: ")
        assert param.ci is not None and param.ci[0] <= param.value <= param.ci[1]


def test_the_packaged_profiles_carry_the_fitted_participation(
        kolab_calibration: Calibration) -> None:
    text = resources.files("collabsim.participants.profiles").joinpath(
        "behaviour.yaml").read_text("utf-8")
    packaged = ParticipationModel.from_dict(yaml.safe_load(text)["behaviour"]["participation"])
    fitted = kolab_calibration.model.participation
    assert fitted is not None
    for name in ParticipationModel.names():
        assert abs(getattr(packaged, name).value - getattr(fitted, name).value) < 1e-9
        assert getattr(packaged, name).source == getattr(fitted, name).source


def test_output_kinds_of_real_and_simulated_nodes() -> None:
    def node(label: str, **extra: str) -> Node:
        return Node(id="n", actor="AI", actor_type="ai", label=label, extra=dict(extra))

    assert output_kind(node("Write a Python script to rename the files")) == "code"
    assert output_kind(node("Draft a cover letter for the application")) == "draft"
    assert output_kind(node("Explain the options for the layout")) == "message"
    assert output_kind(node("x", action_type="MEMORY_ADD")) == "memory"
    assert output_kind(node("x", action_type="EXECUTE_CODE")) == "code"


def test_fidelity_counts_edges_by_actor_types(kolab_sessions_path) -> None:  # noqa: ANN001
    from collabsim.calibration.fidelity import edge_counts
    from collabsim.calibration.kolab_sample import load_kolab_sample

    counts = edge_counts(load_kolab_sample(kolab_sessions_path)[0])
    assert counts == {"human->human": 572, "human->ai": 335, "ai->human": 333, "ai->ai": 2}
