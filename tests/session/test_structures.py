"""Structure specs, gate owners and the gates chosen through memory entries."""

from __future__ import annotations

import pytest

from collabsim.session.structures import (
    STRUCTURE_NAMES,
    StructureConfigError,
    builtin_structure,
    chosen_gates,
    parse_gate_entry,
    preassigned_gates,
    structure_from_dict,
)

TEAM = ("agent", "D", "R")


def test_builtin_structures_match_the_design_table() -> None:
    specs = {n: builtin_structure(n) for n in STRUCTURE_NAMES}
    assert specs["single"].solo and not specs["single"].has_memory
    assert not specs["default"].has_memory and not specs["default"].gates
    assert specs["memory"].has_memory and not specs["memory"].gates_chosen_by_team
    assert specs["preassigned_gates"].gates == {"EDITOR_UPDATE": "R", "FINISH": "D"}
    assert specs["scaffolded"].has_memory and specs["scaffolded"].gates_chosen_by_team
    assert "gates" in specs["scaffolded"].memory_sections
    assert "gates" not in specs["memory"].memory_sections
    assert specs["default"].memory_sections == ()


def test_structure_from_dict_and_validation() -> None:
    spec = structure_from_dict({"name": "preassigned_gates", "gates": {"EXECUTE_CODE": "agent"}})
    assert spec.gates == {"EXECUTE_CODE": "agent"}
    assert structure_from_dict("memory").has_memory
    with pytest.raises(StructureConfigError, match="cannot gate"):
        builtin_structure("preassigned_gates", gates={"APPROVE": "D"})
    with pytest.raises(StructureConfigError, match="unknown structure"):
        structure_from_dict("anarchy")
    with pytest.raises(StructureConfigError, match="build phase"):
        builtin_structure("default", gates_chosen_by_team=True)


@pytest.mark.parametrize(
    ("team", "fallback", "expected"),
    [
        (TEAM, "first_collaborator", {"EDITOR_UPDATE": "R", "FINISH": "D"}),
        (("agent", "D"), "first_collaborator", {"EDITOR_UPDATE": "D", "FINISH": "D"}),
        (("agent", "R"), "first_collaborator", {"EDITOR_UPDATE": "R", "FINISH": "R"}),
        (("agent", "D"), "agent", {"EDITOR_UPDATE": "agent", "FINISH": "D"}),
        (("agent", "D"), "drop", {"FINISH": "D"}),
        (("agent",), "first_collaborator", {}),
    ],
)
def test_preassigned_owner_fallback(team, fallback, expected) -> None:
    spec = builtin_structure("preassigned_gates", owner_fallback=fallback)
    assert preassigned_gates(spec, team, "agent") == expected


def test_gate_lines_parse_leniently() -> None:
    text = "EDITOR_UPDATE: r\n# comment\n- finish -> D; execute_code = none."
    assert parse_gate_entry(text, TEAM) == [
        ("EDITOR_UPDATE", "R"),
        ("FINISH", "D"),
        ("EXECUTE_CODE", None),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("EDITOR_UPDATE R", "not understood"),
        ("APPROVE: D", "cannot be gated"),
        ("FINISH: Q", "not in the team"),
        ("   ", "empty"),
    ],
)
def test_bad_gate_lines_are_explained(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_gate_entry(text, TEAM)


def test_chosen_gates_last_line_wins_and_bad_entries_are_ignored() -> None:
    entries = ["EDITOR_UPDATE: D\nFINISH: R", "nonsense", "EDITOR_UPDATE: agent", "FINISH: none"]
    assert chosen_gates(entries, TEAM) == {"EDITOR_UPDATE": "agent"}
    assert chosen_gates([], TEAM) == {}
