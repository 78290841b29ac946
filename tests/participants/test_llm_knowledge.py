"""LLM prompts in a world with facts: each collaborator's private facts reach only it, the
agent is told it may ask (and how), collaborators how to answer; tasks without facts under
the published split render exactly as before tasks could carry facts."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from helpers.prompt_cases import ACTIONS, GOLDEN, POLICY, render_all

from collabsim.core.knowledge import (
    BY_PROFILE,
    EVERYONE,
    TIME_SERIES_TOPICS,
    Fact,
    KnowledgeSplit,
)
from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage
from collabsim.participants.llm_policy import PromptRenderer
from collabsim.participants.state_block import encode_state
from collabsim.participants.team import team_from_dict
from collabsim.tasks.model import ColumnInfo, DatasetInfo, Task

READING = Fact("reading", "ordinal",
               "In this study 'the marked increase' of Dagger means its second significant "
               "increase.", (("ordinal", "2"),))
CONVENTION = Fact("convention", "column",
                  "At this site only Dagger_recal_inter is valid; Dagger_inter is superseded.",
                  (("column", "Dagger_recal_inter"),))
DOMAIN = "Dagger counts are per excavated square metre."


def task_with_facts() -> Task:
    return Task(
        task_id="gen_007/0/0", dataset="gen_007", metadata_id=0, query_id=0,
        query="When was the marked increase of Dagger?", question_type="context",
        domain="archaeology", domain_knowledge=DOMAIN, workflow_tags="",
        datasets=(DatasetInfo("finds", "Artefact counts per period.",
                              (ColumnInfo("CE", "Year (CE)"),
                               ColumnInfo("Dagger_inter", "Daggers, gap-filled"),
                               ColumnInfo("Dagger_recal_inter",
                                          "Daggers, recalibrated, gap-filled")),
                              Path("finds.csv")),),
        source="generated", gold_hypothesis="GOLD-MUST-NOT-LEAK",
        facts=(READING, CONVENTION),
    )


def prompts(split: KnowledgeSplit, team_label: str = "DR",
            renderer: PromptRenderer | None = None) -> dict[str, str]:
    """Member -> everything its model call would carry (system, turn with state block,
    repair), as the engine shows it the task under ``split``."""
    task, team = task_with_facts(), team_from_dict(team_label)
    renderer = renderer or PromptRenderer()
    out = {}
    for name in team.members:
        profile = team.profile(name)
        obs = Observation(
            me=name, role=team.role(name), profile=profile,
            teammates=tuple(m for m in team.members if m != name), time=12.0,
            structure="default", phase="work",
            task=task.brief("agent" if profile is None else profile.key, split),
            chat=(ChatMessage(0, 5.0, "agent", "Looking at the data now."),),
            available_actions=ACTIONS)
        block = encode_state(obs, POLICY)
        system, user = (m["content"] for m in renderer.messages(obs, "", block))
        out[name] = "\n".join([system, user, renderer.repair(obs, "?", "No action.", block)])
    return out


def test_prompts_of_tasks_without_facts_are_unchanged() -> None:
    """System, turn (with the offline state block) and repair prompts of a fact-free task
    are byte-identical to the pinned ones: tasks with facts did not change them (pinned file
    first made with commit 65c11ce, rewritten deliberately for issue 37's prompts: the
    collaborator's calibrated behaviour, the turn and time budget, history in time order,
    each cell once; and for issue 35: the offline state block carries the collaborators'
    calibrated participation block), so LLM disk caches keep serving them."""
    assert render_all() == json.loads(GOLDEN.read_text())


def test_private_facts_reach_only_their_holder_under_by_profile() -> None:
    seen = prompts(BY_PROFILE)
    assert READING.text in seen["R"] and CONVENTION.text in seen["D"]
    assert READING.text not in seen["agent"] + seen["D"], "R's fact leaked"
    assert CONVENTION.text not in seen["agent"] + seen["R"], "D's fact leaked"
    assert DOMAIN in seen["R"] and DOMAIN not in seen["agent"] + seen["D"]
    for text in seen.values():
        assert "GOLD-MUST-NOT-LEAK" not in text
    # the facts sit in the private section of the system prompt
    system_r = seen["R"].split("## Task")[0]
    private = system_r.split("What you know that your teammates may not")[1]
    assert private.split("\n- ")[1].startswith(READING.text)


def test_the_agent_is_told_it_may_ask_and_collaborators_how_to_answer() -> None:
    seen = prompts(BY_PROFILE)
    system_agent = seen["agent"].split("## Task")[0]
    assert "[ask topic=<topic> to=<name>]" in system_agent
    # a time-series task lists the time-series family's topics
    for topic in (*TIME_SERIES_TOPICS, "domain"):
        assert f"- {topic}: " in system_agent, topic
    assert "- controls: " not in system_agent
    assert "R (the researcher) knows what the question means" in system_agent
    assert "D (the data analyst) knows the data conventions" in system_agent
    for name in ("D", "R"):
        system = seen[name].split("## Task")[0]
        assert f"[ask topic=<topic> to={name}]" in system
        assert "[fact topic=<topic> <name>=<value>]" in system
        assert "[fact topic=<topic> unknown]" in system
        assert "[ask topic=<topic> to=<name>]" not in system, "asking is the agent's"
    # a team without R is not told about R
    solo_d = prompts(BY_PROFILE, "D")["agent"].split("## Task")[0]
    assert "D (the data analyst)" in solo_d and "R (the researcher)" not in solo_d


def test_everyone_sees_every_fact_and_nobody_is_told_to_ask_in_the_published_setting() -> None:
    # one renderer for both splits, as in a sweep: its cached system prompts must not mix them
    renderer = PromptRenderer()
    assert READING.text not in prompts(BY_PROFILE, renderer=renderer)["agent"]
    seen = prompts(EVERYONE, renderer=renderer)
    for name, text in seen.items():
        assert READING.text in text and CONVENTION.text in text and DOMAIN in text, name
        assert "What everyone in the team knows about this task" in text
        assert "[ask topic=" not in text and "[fact topic=" not in text, name


def test_a_statistical_task_lists_the_families_topics() -> None:
    """On a table that is no time series the agent is told the statistical topics and whom
    to ask about them, and a collaborator how to state their values."""
    task = replace(task_with_facts(), facts=(), datasets=(DatasetInfo(
        "nls.csv", "Survey", (ColumnInfo("ses", "Socioeconomic status"),
                              ColumnInfo("ba_degree", "BA degree completed (1 = yes)")),
        Path("nls.csv")),), query="Is SES associated with BA degree completion?")
    team = team_from_dict("DR")
    renderer = PromptRenderer()
    seen = {}
    for name in team.members:
        profile = team.profile(name)
        obs = Observation(me=name, role="agent" if name == "agent" else "collaborator",
                          profile=profile, teammates=tuple(m for m in team.members
                                                           if m != name),
                          time=0.0, structure="default", phase="work",
                          task=task.brief(name, BY_PROFILE))
        seen[name] = renderer.system(obs)
    for topic in ("target", "predictors", "controls", "filters", "analysis", "domain"):
        assert f"- {topic}: " in seen["agent"], topic
    assert "- ordinal: " not in seen["agent"]
    assert "knows the data conventions (controls, analysis)" in seen["agent"]
    assert "filters=<column>==<value>" in seen["D"]
