"""The task generator: determinism, layout, unambiguous planted events, cached default suite."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import (
    CATEGORIES,
    GENERATOR_VERSION,
    MARKER_NAME,
    SUSTAIN_BINS,
    THRESHOLD,
    default_suite_root,
    generate_suite,
)


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


def _reference(root: Path, dataset: str) -> dict:
    return json.loads((root / "reference_workflows" / dataset / "0" / "0.json").read_text())


def test_same_seed_gives_byte_identical_files(tmp_path: Path) -> None:
    a = _tree_digest(generate_suite(tmp_path / "a", 12, seed=7))
    b = _tree_digest(generate_suite(tmp_path / "b", 12, seed=7))
    c = _tree_digest(generate_suite(tmp_path / "c", 12, seed=8))
    assert a == b
    assert a != c
    assert "real/test/gen_000/metadata_0.json" in a
    assert "real/test/gen_011/time_series_data.csv" in a
    assert "reference_workflows/gen_005/0/0.json" in a
    assert "eval/answer_key_real.csv" in a
    marker = json.loads((tmp_path / "a" / MARKER_NAME).read_text())
    assert marker == {"generator": "collabsim.tasks.generator",
                      "generator_version": GENERATOR_VERSION, "seed": 7, "n_tasks": 12}


def test_generated_suite_loads_with_gold_and_references(generated_200: Path) -> None:
    report = load_tasks(generated_200)
    assert report.problems == ()
    assert len(report.tasks) == 200
    categories = set()
    for task in report.tasks:
        assert task.source == "generated"
        assert task.gold_hypothesis and task.query.endswith("?")
        assert task.reference_workflow_path is not None
        ref = json.loads(task.reference_workflow_path.read_text())
        assert ref["task_id"] == task.task_id
        categories.add(ref["category"])
        (info,) = task.datasets
        names = [c.name for c in info.columns]
        assert "CE" in names and "Dagger" in names and "Dagger_inter" in names
        assert "pollen_grate_inter" in names
        assert all(c.description for c in info.columns)
        assert "100-year bins" in task.domain_knowledge
        assert str(ref["completion"]["years"][0] * -1) in task.gold_hypothesis
    assert categories == set(CATEGORIES)


def _onsets(values: np.ndarray, ce: np.ndarray, up: bool) -> list[int]:
    d = np.diff(values)
    flags = d >= THRESHOLD if up else d <= -THRESHOLD
    out = []
    for i, flag in enumerate(flags):
        if flag and (i == 0 or not flags[i - 1]):
            out.append(int(ce[i + 1]))
    return out


def test_planted_events_are_unambiguous(generated_200: Path) -> None:
    """Recompute each planted answer with plain numpy and check the margins around it."""
    for i in range(200):
        dataset = f"gen_{i:03d}"
        ref = _reference(generated_200, dataset)
        comp = ref["completion"]
        df = pd.read_csv(generated_200 / "real" / "test" / dataset / "time_series_data.csv")
        ce = df["CE"].to_numpy()
        assert np.all(np.diff(ce) == 100)
        year = comp["years"][0]
        cols = [f"{v}_inter" for v in comp["variables"]]
        s = df[cols[0]].to_numpy()
        raw = df[comp["variables"][0]].to_numpy()
        assert np.isnan(raw[ce == year]).all(), "raw variant must have a gap at the answer"
        assert not np.isnan(s).any()
        relation = comp["relation"]
        if relation.endswith(("rise", "fall")):
            events = _onsets(s, ce, relation.endswith("rise"))
            assert len(events) > comp["ordinal"] or comp["ordinal"] > 1
            assert events[comp["ordinal"] - 1] == year
            diffs = np.abs(np.diff(s))
            assert np.all((diffs < 0.1) | (diffs > 0.8)), "steps keep a wide margin"
        elif relation == "peak":
            top = np.sort(s)[::-1]
            assert ce[np.argmax(s)] == year and top[0] - top[1] > 0.7
        elif relation == "plateau":
            m = pd.Series(s).rolling(SUSTAIN_BINS).min().to_numpy()
            best = np.nanmax(m)
            ok = np.where(m >= best - 0.25)[0]
            assert ce[ok[0] - (SUSTAIN_BINS - 1)] == year
            others = m[~np.isin(np.arange(len(m)), ok)]
            assert np.nanmax(others) < best - 0.5
            assert ce[np.argmax(s)] != year, "a higher single spike exists"
        elif relation == "simultaneous":
            flags = None
            for col, direction in zip(cols, comp["directions"], strict=True):
                d = np.diff(df[col].to_numpy())
                f = d >= THRESHOLD if direction == "up" else d <= -THRESHOLD
                flags = f if flags is None else flags & f
            events = [int(ce[j + 1]) for j in np.where(flags)[0]]
            assert len(events) >= 2 and events[comp["ordinal"] - 1] == year
        else:
            lo, hi = comp["window"]
            inside = (ce >= lo) & (ce <= hi)
            sign = 1.0 if relation == "growth_max" else -1.0
            w = sign * s[inside]
            assert ce[inside][np.argmax(w)] == year
            assert np.sort(w)[-1] - np.sort(w)[-2] > 0.8
            assert np.max(sign * s) > np.max(w) + 0.9, "a stronger extreme lies outside"
            assert ce[np.argmax(sign * s)] < lo - 100 or ce[np.argmax(sign * s)] > hi + 100


def test_reference_evidence_code_prints_expected_output(generated_200: Path) -> None:
    for i in range(18):  # categories cycle with period 9: every category twice
        dataset = f"gen_{i:03d}"
        ref = _reference(generated_200, dataset)
        assert [n["id"] for n in ref["nodes"]] == ["select", "compute", "check", "claim"]
        assert ref["paths"][0] == ["select", "compute", "check", "claim"]
        for node in ref["nodes"]:
            if not node["evidence_code"]:
                continue
            buffer = io.StringIO()
            old = os.getcwd()
            os.chdir(generated_200 / "real" / "test" / dataset)
            try:
                with contextlib.redirect_stdout(buffer):
                    exec(node["evidence_code"], {})  # noqa: S102 - generated test code
            finally:
                os.chdir(old)
            for expected in node["expected_output"]:
                assert expected in buffer.getvalue(), (dataset, node["id"])


def test_default_suite_root_is_cached_and_atomic(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLLABSIM_CACHE_DIR", str(tmp_path))
    first = default_suite_root(n_tasks=5, seed=2)
    assert first.parent == tmp_path / "generated"
    assert (first / MARKER_NAME).is_file()
    stamp = (first / MARKER_NAME).stat().st_mtime_ns
    again = default_suite_root(n_tasks=5, seed=2)
    assert again == first and (first / MARKER_NAME).stat().st_mtime_ns == stamp
    leftovers = [p.name for p in first.parent.iterdir() if p.name.startswith(".")]
    assert leftovers == []
    assert len(load_tasks(first).tasks) == 5
