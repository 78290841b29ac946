"""The cache of built-in generated suites (collabsim.tasks.suite_cache)."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.tasks.suite_cache import MARKER_NAME, cached_suite, code_fingerprint


def test_a_suite_is_generated_once_and_reused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLLABSIM_CACHE_DIR", str(tmp_path))
    calls = []

    def generate(folder: Path) -> None:
        calls.append(folder)
        (folder / "task.json").write_text("{}", encoding="utf-8")
        (folder / MARKER_NAME).write_text("{}", encoding="utf-8")

    first = cached_suite("generated", "v1-abc-n2-s0", generate)
    again = cached_suite("generated", "v1-abc-n2-s0", generate)
    assert first == again == tmp_path / "generated" / "v1-abc-n2-s0"
    assert len(calls) == 1 and (first / "task.json").is_file()


def test_a_failed_generation_leaves_no_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLLABSIM_CACHE_DIR", str(tmp_path))

    def broken(folder: Path) -> None:
        (folder / "half.json").write_text("{", encoding="utf-8")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        cached_suite("generated_stats", "v1-x-n1-s0", broken)
    assert list((tmp_path / "generated_stats").iterdir()) == []


def test_the_fingerprint_follows_names_and_contents(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n", encoding="utf-8")
    b.write_text("x = 1\n", encoding="utf-8")
    assert code_fingerprint([a]) != code_fingerprint([b])
    before = code_fingerprint([a, b])
    b.write_text("x = 2\n", encoding="utf-8")
    assert code_fingerprint([a, b]) != before and len(before) == 10
