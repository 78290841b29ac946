"""Who sees which of a task's facts under a knowledge split."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from collabsim.core.knowledge import (
    BY_PROFILE,
    EVERYONE,
    Fact,
    KnowledgeError,
    knowledge_split,
)
from collabsim.tasks.model import Task

READING = Fact("reading", "ordinal", "The marked increase is the second one.",
               (("ordinal", "2"),))
CONVENTION = Fact("convention", "column", "Use Amber_inter.", (("column", "Amber_inter"),))


def _task() -> Task:
    return Task("gen/0/0", "gen", 0, 0, "When did Amber rise?", "context", "humanities",
                "Bins of 100 years.", "time series", (), "generated", gold_hypothesis="gold",
                reference_workflow_path=Path("ref.json"), facts=(READING, CONVENTION))


def test_everyone_sees_the_whole_brief() -> None:
    for who in ("agent", "D", "R"):
        brief = _task().brief(who, EVERYONE)
        assert brief.facts == (READING, CONVENTION)
        assert brief.domain_knowledge == "Bins of 100 years."


def test_by_profile_gives_readings_to_r_conventions_to_d_and_the_agent_nothing() -> None:
    task = _task()
    assert task.brief("agent", BY_PROFILE).facts == ()
    assert task.brief("agent", BY_PROFILE).domain_knowledge == ""
    assert task.brief("R", BY_PROFILE).facts == (READING,)
    assert task.brief("R", BY_PROFILE).domain_knowledge == "Bins of 100 years."
    assert task.brief("D", BY_PROFILE).facts == (CONVENTION,)
    assert task.brief("D", BY_PROFILE).domain_knowledge == ""


def test_a_brief_never_carries_the_gold() -> None:
    brief = _task().brief("R", BY_PROFILE)
    assert not hasattr(brief, "gold_hypothesis")
    assert not hasattr(brief, "reference_workflow_path")


def test_a_mapping_names_holders_per_kind() -> None:
    split = knowledge_split({"reading": ["agent", "R"], "convention": "D"})
    assert split.holds("agent", "reading") and split.holds("R", "reading")
    assert split.holds("D", "convention") and not split.holds("agent", "convention")
    assert split.holders_of("domain") == frozenset()
    assert knowledge_split("everyone").everyone_sees_everything
    assert not knowledge_split("by_profile").everyone_sees_everything


@pytest.mark.parametrize("value, words", [
    ("nobody", "'nobody' is not one of"),
    ({"hunch": ["R"]}, "unknown fact kind(s) ['hunch']"),
    ({"reading": ["X"]}, "reading: unknown holder(s) ['X']"),
])
def test_bad_settings_are_named(value: object, words: str) -> None:
    with pytest.raises(KnowledgeError, match=re.escape(words)):
        knowledge_split(value)  # type: ignore[arg-type]


def test_a_fact_round_trips_through_metadata_and_names_the_file_when_broken() -> None:
    assert Fact.from_json(READING.to_json(), "m.json") == READING
    with pytest.raises(KnowledgeError, match="m.json: a fact has no 'topic'"):
        Fact.from_json({"kind": "reading", "text": "x"}, "m.json")
    with pytest.raises(KnowledgeError, match="m.json: fact kind 'hunch'"):
        Fact.from_json({"kind": "hunch", "topic": "ordinal", "text": "x"}, "m.json")
