"""The fast variable lookup finds exactly what scanning every pattern over the text finds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from collabsim.domain.variables import (
    _WORDED_LEXICON,
    ALL_VARIABLES,
    VariableLexicon,
    variable_mentions,
)
from tests.helpers.participants import fuzz_strings
from tests.helpers.tasks import archaeology_tasks


def plain_find(lex: VariableLexicon, text: str) -> list[tuple[int, int, str]]:
    """The reference: every pattern over the whole text, longest non-overlapping hits."""
    hits = [(m.start(), m.end(), c) for pat, c in lex.patterns for m in pat.finditer(text)]
    hits.sort(key=lambda h: (-(h[1] - h[0]), h[0]))
    taken: list[tuple[int, int, str]] = []
    for h in hits:
        if all(h[1] <= t[0] or h[0] >= t[1] for t in taken):
            taken.append(h)
    return sorted(taken)


def _texts(tasks: dict) -> list[str]:
    texts = [p for v in ALL_VARIABLES for p in v.phrases]
    texts += [f"{p.upper()}, then {p.title()} and ({p})" for p in texts]
    for task in tasks.values():
        texts += [task.query, task.domain_knowledge, task.gold_hypothesis or ""]
        texts += [f"{c.name}: {c.description}" for d in task.datasets for c in d.columns]
    texts += [t[:2000] for t in fuzz_strings(7, 200)]
    # Non-ASCII text: the Kelvin sign and the long s match "k" and "s" case-insensitively.
    texts += ["SIC\u212aLES and dagger\u017f", "Zhausgr\u00e9 house size \u00e9t\u00e9 amber"]
    return texts


@pytest.mark.slow
def test_fast_lookup_equals_the_plain_scan_on_task_texts_and_fuzz(
    discoverybench_root: Path,
) -> None:
    tasks = archaeology_tasks(discoverybench_root)
    lexicons = {id(lex): lex for lex in [VariableLexicon.build(), _WORDED_LEXICON]
                + [VariableLexicon.build(t.datasets) for t in tasks.values()]}
    assert len(lexicons) >= 4  # the defaults, the worded one and the tasks' column sets
    texts = _texts(tasks)
    for lex in lexicons.values():
        for text in texts:
            expected = plain_find(lex, text)
            assert lex.find(text) == expected, text[:80]
            assert lex.find(text) == expected, text[:80]  # from the cache


def test_non_ascii_case_folding_still_finds_the_variable() -> None:
    assert VariableLexicon.build().variables("SIC\u212aLES rose") == {"Sickle"}
    assert [k for _, _, k in variable_mentions("dagger\u017f peak")] == ["Dagger"]


def test_cached_answers_cannot_be_changed_by_a_caller() -> None:
    lex = VariableLexicon.build()
    first = lex.find("daggers and amber")
    first.clear()
    assert [c for _, _, c in lex.find("daggers and amber")] == ["Dagger", "Amber"]


def test_lexicons_are_shared_per_column_set(discoverybench_root: Path) -> None:
    tasks = list(archaeology_tasks(discoverybench_root).values())
    assert VariableLexicon.build(tasks[0].datasets) is VariableLexicon.build(tasks[0].datasets)
    assert VariableLexicon.build() is VariableLexicon.build(())
    other = next(t for t in tasks if {c.name for d in t.datasets for c in d.columns}
                 != {c.name for d in tasks[0].datasets for c in d.columns})
    assert VariableLexicon.build(other.datasets) is not VariableLexicon.build(tasks[0].datasets)
    assert all(isinstance(p, re.Pattern) for p, _ in VariableLexicon.build().patterns)
