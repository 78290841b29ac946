"""The task generator: determinism, layout, unambiguous planted events, cached default suite."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from collabsim.domain.relations import ordinal
from collabsim.domain.variables import column_stem
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import (
    CATEGORIES,
    FACT_KINDS_CYCLE,
    GENERATOR_VERSION,
    SUSTAIN_BINS,
    THRESHOLD,
    default_suite_root,
    generate_suite,
)
from collabsim.tasks.generator_events import VARIANTS
from collabsim.tasks.generator_wording import READING_TOPIC
from collabsim.tasks.suite_cache import MARKER_NAME


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


def _answer(df: pd.DataFrame, ce: np.ndarray, comp: dict, cols: list[str]) -> int | None:
    """The planted relation's answer on ``cols`` with plain numpy (None: no such event)."""
    relation = comp["relation"]
    s = df[cols[0]].to_numpy()
    if relation.endswith(("rise", "fall")):
        events = _onsets(s, ce, relation.endswith("rise"))
    elif relation == "simultaneous":
        flags = None
        for col, direction in zip(cols, comp["directions"], strict=True):
            d = np.diff(df[col].to_numpy())
            f = d >= THRESHOLD if direction == "up" else d <= -THRESHOLD
            flags = f if flags is None else flags & f
        events = [int(ce[j + 1]) for j in np.where(flags)[0]]
    elif relation == "peak":
        return int(ce[np.argmax(s)])
    elif relation == "plateau":
        m = pd.Series(s).rolling(SUSTAIN_BINS).min().to_numpy()
        ok = np.where(m >= np.nanmax(m) - 0.25)[0]
        return int(ce[ok[0] - (SUSTAIN_BINS - 1)])
    else:
        lo, hi = comp["window"]
        inside = (ce >= lo) & (ce <= hi)
        w = (1.0 if relation == "growth_max" else -1.0) * s[inside]
        return int(ce[inside][np.argmax(w)])
    return events[comp["ordinal"] - 1] if len(events) >= comp["ordinal"] else None


def test_planted_events_are_unambiguous(generated_200: Path) -> None:
    """Recompute each planted answer with plain numpy on the valid columns (the reference's
    selected columns) and check the margins around it and the decoys of every reading."""
    for i in range(200):
        dataset = f"gen_{i:03d}"
        ref = _reference(generated_200, dataset)
        comp = ref["completion"]
        df = pd.read_csv(generated_200 / "real" / "test" / dataset / "time_series_data.csv")
        ce = df["CE"].to_numpy()
        assert np.all(np.diff(ce) == 100)
        year = comp["years"][0]
        cols = ref["nodes"][0]["keywords"]
        assert [column_stem(c) for c in cols] == comp["variables"]
        s = df[cols[0]].to_numpy()
        raw = df[cols[0].removesuffix("_inter")].to_numpy()
        assert np.isnan(raw[ce == year]).all(), "raw variant must have a gap at the answer"
        assert not np.isnan(s).any()
        assert _answer(df, ce, comp, cols) == year, dataset
        relation = comp["relation"]
        if relation.endswith(("rise", "fall")):
            events = _onsets(s, ce, relation.endswith("rise"))
            assert len(events) >= 3, "every ordinal 1-3 has its own event"
            diffs = np.abs(np.diff(s))
            assert np.all((diffs < 0.1) | (diffs > 0.8)), "steps keep a wide margin"
        elif relation == "peak":
            top = np.sort(s)[::-1]
            assert top[0] - top[1] > 0.7
            assert _answer(df, ce, {**comp, "relation": "plateau"}, cols) != year
        elif relation == "plateau":
            m = pd.Series(s).rolling(SUSTAIN_BINS).min().to_numpy()
            best = np.nanmax(m)
            ok = np.where(m >= best - 0.25)[0]
            others = m[~np.isin(np.arange(len(m)), ok)]
            assert np.nanmax(others) < best - 0.5
            assert ce[np.argmax(s)] != year, "a higher single spike exists"
        elif relation == "simultaneous":
            for ordinal in (1, 2, 3):
                other = _answer(df, ce, {**comp, "ordinal": ordinal}, cols)
                assert other is not None and (other == year) == (ordinal == comp["ordinal"])
        else:
            lo, hi = comp["window"]
            inside = (ce >= lo) & (ce <= hi)
            sign = 1.0 if relation == "growth_max" else -1.0
            w = sign * s[inside]
            assert np.sort(w)[-1] - np.sort(w)[-2] > 0.8
            assert np.max(sign * s) > np.max(w) + 0.9, "a stronger extreme lies outside"
            assert ce[np.argmax(sign * s)] < lo - 100 or ce[np.argmax(sign * s)] > hi + 100
        # the other dating variants of the asked series give answers >= 3 bins away
        others = [[f"{column_stem(c)}_{v}" for c in cols] for v in VARIANTS]
        others = [o for o in others if o != cols and set(o) <= set(df.columns)]
        assert len(others) in (0, len(VARIANTS) - 1)
        for other_cols in others:
            other = _answer(df, ce, comp, other_cols)
            assert other is None or abs(other - year) >= 300, (dataset, other_cols)


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


def test_every_task_has_one_decisive_fact_that_its_query_leaves_open(
        generated_200: Path) -> None:
    """Half the tasks carry a reading fact, half a data convention; a reading task's query
    leaves the fact's topic open, a convention task's query is explicit and its fact names the
    reference's columns (one of three dating variants)."""
    ordinals: Counter[int] = Counter()
    relations: Counter[str] = Counter()
    variants: Counter[str] = Counter()
    for task in load_tasks(generated_200).tasks:
        index = int(task.dataset.removeprefix("gen_"))
        meta = json.loads((task.datasets[0].path.parent / "metadata_0.json").read_text())
        (raw,) = meta["queries"][0][0]["facts"]
        (fact,) = task.facts
        assert fact.to_json() == raw and fact.text
        assert fact.kind == FACT_KINDS_CYCLE[(index + 1) % 2]  # the suite's seed is 1
        ref = _reference(generated_200, task.dataset)
        comp, columns = ref["completion"], ref["nodes"][0]["keywords"]
        relation = comp["relation"].removeprefix("first_").removeprefix("nth_")
        if fact.kind == "convention":
            assert fact.topic == "column" and fact.fix == {"column": "+".join(columns)}
            variants[columns[0].removeprefix(column_stem(columns[0]))] += 1
            if relation in ("rise", "fall", "simultaneous"):
                assert ordinal(task.query) == comp["ordinal"]
            if comp["window"]:
                assert str(-comp["window"][0]) in task.query
            continue
        assert fact.topic == READING_TOPIC[relation]
        assert all(c.endswith("_inter") and c == f"{column_stem(c)}_inter" for c in columns)
        if fact.topic == "ordinal":
            assert ordinal(task.query) is None and fact.fix == {"ordinal": str(comp["ordinal"])}
            ordinals[comp["ordinal"]] += 1
        elif fact.topic == "relation":
            assert "peak" not in task.query and "sustained" not in task.query
            assert fact.fix == {"relation": relation}
            relations[relation] += 1
        else:
            assert not re.search(r"\d", task.query)
            assert fact.fix == {"window": "{}..{}".format(*comp["window"])}
    assert set(ordinals) == {1, 2, 3} and set(relations) == {"peak", "plateau"}
    assert set(variants) == {"_inter", "_recal_inter", "_model_inter"}
    assert sum(variants.values()) == 100


def test_a_task_does_not_depend_on_the_suite_size(tmp_path: Path) -> None:
    small = _tree_digest(generate_suite(tmp_path / "small", 3, seed=4) / "real")
    large = _tree_digest(generate_suite(tmp_path / "large", 9, seed=4) / "real")
    assert small == {k: v for k, v in large.items() if k in small} and len(small) == 6


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


def test_a_suite_cached_by_other_generator_code_is_not_reused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edited generator (same version number) gets a fresh suite, not the stale cache
    (the stale-cache case: a v2 suite cached while the v2 generator was still changing)."""
    import collabsim.tasks.generator as generator

    monkeypatch.setenv("COLLABSIM_CACHE_DIR", str(tmp_path))
    first = default_suite_root(n_tasks=2, seed=0)
    monkeypatch.setattr(generator, "generator_fingerprint", lambda: "0123456789")
    second = default_suite_root(n_tasks=2, seed=0)
    assert second != first and "-0123456789-" in second.name
    assert (second / MARKER_NAME).is_file()
