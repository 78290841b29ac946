"""``collabsim kolab`` end to end: counts, offline LLM and learned runs, report files."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from collabsim.cli.main import main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_instances_command_prints_counts(
    kolab_sessions_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["kolab", "instances", "--data", str(kolab_sessions_path)]) == 0
    out = capsys.readouterr().out
    for task, n in [("1a", 247), ("1b", 247), ("1b+h", 247), ("1c-k1", 50), ("1c-k2", 50), ("1c-k3", 48),
                    ("1d", 247), ("2a", 97), ("2b", 110)]:  # fmt: skip
        assert any(line.split()[:2] == [task, str(n)] for line in out.splitlines()), task


@pytest.mark.slow
def test_report_writes_markdown_csvs_and_pngs(
    kolab_sessions_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "report"
    code = main([
        "kolab", "report", "--data", str(kolab_sessions_path), "--out", str(out_dir),
        "--tasks", "1c-k3,2a", "--predictors", "majority,mode,carry-forward,learned,llm:gpt-4o-mini",
        "--modalities", "graph,chat", "--runs", "2", "--llm-mock-response", "ADOPT",
        "--bootstrap", "200", "--permutations", "2", "--inner-folds", "3", "--no-progress",
    ])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "1c-k3" in printed and "48" in printed and "wrote" in printed
    with (out_dir / "metrics.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    by_key = {(r["task"], r["predictor"], r["modality"]): r for r in rows}
    # 1c-k3 has 23 adopt of 48: always-adopt F1 = 2*23 / (2*23 + 25), macro = that / 3
    hand = 2 * 23 / (2 * 23 + 25) / 3
    assert float(by_key[("1c-k3", "majority", "-")]["macro_f1"]) == pytest.approx(hand)
    llm_1c = by_key[("1c-k3", "llm:gpt-4o-mini", "graph")]
    assert llm_1c["runs"] == "2" and llm_1c["n"] == "48" and llm_1c["n_invalid"] == "0"
    assert float(llm_1c["macro_f1"]) == pytest.approx(hand)  # the mock always says ADOPT
    assert float(llm_1c["macro_f1_std"]) == 0.0
    # 2a: ADOPT is not a rating: every reply is invalid and counted, never mapped
    llm_2a = by_key[("2a", "llm:gpt-4o-mini", "graph")]
    assert llm_2a["n_invalid"] == str(2 * 97)
    # chat is missing in the explorer data: reported, not evaluated
    chat = by_key[("1c-k3", "llm:gpt-4o-mini", "chat")]
    assert chat["status"] == "skipped" and chat["n_missing_modality"] == "48"
    learned = by_key[("1c-k3", "learned", "graph")]
    assert (
        float(learned["macro_f1_lo"]) <= float(learned["macro_f1"]) <= float(learned["macro_f1_hi"])
    )
    assert by_key[("2a", "learned", "graph")]["spearman"] != ""
    # chance levels and the permutation null sit next to the learned scores
    assert "stratified random (E, 95% range)" in printed and "majority class" in printed
    assert "permutation null (2)" in printed and "CI participants" in printed
    assert learned["history"] == "no" and learned["null_permutations"] == "2"
    # the within-participant null runs by default next to the global one
    assert "within-participant null (2)" in printed
    assert learned["null_blocked_permutations"] == "2" and learned["null_blocked_p"] != ""
    with (out_dir / "nulls.csv").open() as fh:
        nulls = list(csv.DictReader(fh))
    assert Counter((r["task"], r["scheme"]) for r in nulls) == {
        ("1c-k3", "global"): 2, ("1c-k3", "blocked"): 2, ("2a", "global"): 2, ("2a", "blocked"): 2,
    }  # fmt: skip
    assert 1 / 3 <= float(learned["null_p"]) <= 1.0
    assert float(learned["macro_f1_cluster_lo"]) <= float(learned["macro_f1_cluster_hi"])
    assert by_key[("2a", "learned", "graph")]["history"] == "yes"  # centred on carry-forward
    carry = by_key[("2a", "carry-forward", "history")]
    assert carry["history"] == "yes" and carry["spearman_cluster_lo"] != ""
    with (out_dir / "chance.csv").open() as fh:
        levels = {(r["task"], r["level"]): r for r in csv.DictReader(fh)}
    assert float(levels[("1c-k3", "majority_macro_f1")]["mean"]) == pytest.approx(hand)
    assert 0.25 < float(levels[("1c-k3", "stratified_macro_f1")]["mean"]) < 0.40
    with (out_dir / "instances.csv").open() as fh:
        counts = {r["task"]: int(r["n"]) for r in csv.DictReader(fh)}
    assert counts == {"1c-k3": 48, "2a": 97}
    report = (out_dir / "report.md").read_text()
    for heading in ("## Instances", "## Chance levels", "## Adoption", "## Ratings",
                    "## Dynamics study"):  # fmt: skip
        assert heading in report
    assert "topology_w, mean_collaboration" in report and "n = 22 sessions" in report
    pngs = sorted(p.name for p in out_dir.glob("*.png"))
    assert "confusion_1c-k3_learned_graph.png" in pngs
    assert "ratings_2a_learned_graph.png" in pngs
    assert "label_distribution_1c-k3.png" in pngs and "dynamics_w_vs_collaboration.png" in pngs
    for name in pngs:
        assert (out_dir / name).read_bytes()[:8] == PNG_MAGIC
        assert f"({name})" in report
    with (out_dir / "dynamics.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) == 31


def test_report_requires_existing_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["kolab", "report", "--out", str(tmp_path)])
    assert "--data" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="data file not found"):
        main(["kolab", "report", "--data", str(tmp_path / "nope.json"), "--out", str(tmp_path)])


def test_unknown_predictor_is_a_clear_error(
    kolab_sessions_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["kolab", "report", "--data", str(kolab_sessions_path), "--out", str(tmp_path),
                 "--predictors", "oracle"])  # fmt: skip
    assert code == 2 and "unknown predictor 'oracle'" in capsys.readouterr().err


def test_unknown_feature_group_is_a_clear_error(
    kolab_sessions_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["kolab", "report", "--data", str(kolab_sessions_path), "--out", str(tmp_path / "r"),
                 "--learned-groups", "text,words"])  # fmt: skip
    assert code == 2 and "unknown feature group(s) words" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_unknown_null_scheme_is_a_clear_error(
    kolab_sessions_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["kolab", "report", "--data", str(kolab_sessions_path),
                 "--out", str(tmp_path / "r"), "--nulls", "global,within"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "--nulls" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_cli_default_permutations_match_the_library() -> None:
    from collabsim.cli import kolab_cmd
    from collabsim.kolab.chance import DEFAULT_PERMUTATIONS

    assert kolab_cmd.DEFAULT_PERMUTATIONS == DEFAULT_PERMUTATIONS == 100


def test_report_log_of_a_non_terminal_run_has_one_line_per_stage_and_no_redraws(
    kolab_sessions_path: Path, tmp_path: Path
) -> None:
    """stderr redirected to a file (as in a log): no carriage-return redraws, no nested bars,
    one line per finished stage with its time."""
    import re
    import subprocess
    import sys

    log = tmp_path / "report.log"
    with log.open("wb") as err:
        done = subprocess.run(
            [sys.executable, "-m", "collabsim.cli.main", "kolab", "report",
             "--data", str(kolab_sessions_path), "--out", str(tmp_path / "rep"),
             "--tasks", "1c-k1", "--predictors", "majority,learned", "--bootstrap", "20",
             "--permutations", "2", "--inner-folds", "3", "--jobs", "2"],
            stdout=subprocess.PIPE, stderr=err, check=False, timeout=900,
        )  # fmt: skip
    assert done.returncode == 0, log.read_text()
    text = log.read_bytes().decode()
    assert "\r" not in text
    lines = [line for line in text.splitlines()
             if not line.startswith(("WARNING: ", "data warning: "))]  # fmt: skip
    stage = re.compile(r"^.+: \d+\.\d s$")
    assert "1c-k1 learned (+2 nulls x 2 permutations)" in text
    assert all(stage.match(line) for line in lines), lines
    assert [line.rsplit(":", 1)[0] for line in lines] == [
        "1c-k1 majority",
        "1c-k1 learned (+2 nulls x 2 permutations)",
        "dynamics study",
        "report files and plots",
    ]


def test_report_rejects_zero_jobs(kolab_sessions_path: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    code = main(["kolab", "report", "--data", str(kolab_sessions_path),
                 "--out", str(tmp_path / "rep"), "--jobs", "0"])  # fmt: skip
    assert code == 2
    assert "--jobs" in capsys.readouterr().err
    assert not (tmp_path / "rep").exists()


def test_report_draws_its_figures_in_at_most_jobs_processes(
        kolab_sessions_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--jobs bounds the figures' processes too, not only the learned predictor's folds."""
    from collabsim.kolab import report

    seen: list[int | None] = []

    def plots(*args: object, jobs: int | None = None, **kwargs: object) -> dict:
        seen.append(jobs)
        return {}

    monkeypatch.setattr(report, "write_plots", plots)
    code = main(["kolab", "report", "--data", str(kolab_sessions_path),
                 "--out", str(tmp_path / "rep"), "--tasks", "1c-k1", "--predictors", "majority",
                 "--bootstrap", "20", "--no-dynamics", "--jobs", "1"])  # fmt: skip
    assert code == 0
    assert seen == [1]
