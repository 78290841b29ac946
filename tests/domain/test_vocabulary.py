"""One vocabulary: variables, relation words and time expressions read the same everywhere."""

from __future__ import annotations

import pytest

from collabsim.domain.relations import (
    asked_occurrence,
    direction_words,
    ordinal,
    relation_tags,
)
from collabsim.domain.time_expr import claim_years, query_window, year_text
from collabsim.domain.variables import (
    GROWTH,
    PROXIES,
    VARIABLE_SYNONYMS,
    VARIABLES,
    VariableLexicon,
    column_stem,
    gap_filled_column,
    is_gap_filled,
    raw_column,
    variable_mentions,
)


@pytest.mark.parametrize("var", [*PROXIES, GROWTH], ids=lambda v: v.key)
def test_every_generator_phrase_reads_back_as_its_variable(var: object) -> None:
    for phrase in var.phrases:  # type: ignore[attr-defined]
        found = [key for _, _, key in variable_mentions(f"When did {phrase} peak?")]
        assert found == [var.key], phrase  # type: ignore[attr-defined]


def test_judge_and_participants_share_the_synonyms() -> None:
    assert set(VARIABLES) == {v.key for v in PROXIES} | {"pollen_grate"}
    assert VARIABLE_SYNONYMS["Growth"] == GROWTH.synonyms
    lex = VariableLexicon.build()
    # the judge names growth by its canonical name, the participants by the column stem
    assert lex.variables("the growth rate of landscape openness") == {"Growth", "Openness"}
    assert [k for _, _, k in variable_mentions("the growth rate")] == ["pollen_grate"]
    assert lex.variables("ZDolch and hatchets & swords") == {"Dagger", "HatchetSword"}


def test_relation_words() -> None:
    text = "Daggers grew while sickles declined, then both rose."
    assert direction_words(text) == [(8, "up"), (27, "down"), (47, "up")]
    assert relation_tags("Amber did not increase; it peaked.") == {"extreme"}
    assert relation_tags("the growth rate rose") == {"increase"}
    assert ordinal("the second principal component rose for the first time") == 1
    assert asked_occurrence("When did daggers rise for the Third time?") == 3
    assert asked_occurrence("When did daggers first rise?") == 1


def test_time_expressions() -> None:
    assert query_window("the highest growth between 3000 and 2000 BCE") == (-3000, -2000)
    assert query_window("between 200 and 500 CE") == (200, 500)
    assert query_window("between 2000 and 2000 BCE") is None
    assert claim_years("Around 2300 BCE, x rose (period between 3000 and 2000 BCE).") == (-2300,)
    assert claim_years("between 2400 and 2300 BC") == (-2400, -2300)
    assert year_text(-2300) == "2300 BCE" and year_text(200) == "200 CE"


def test_a_gap_filled_column_and_its_raw_column_name_each_other() -> None:
    assert gap_filled_column("Dagger") == "Dagger_inter"
    assert raw_column("Dagger_inter") == "Dagger" and raw_column("Dagger") == "Dagger"
    assert raw_column("Dagger_recal_inter") == "Dagger_recal"  # a dating variant's raw one
    assert is_gap_filled("Dagger_recal_inter") and not is_gap_filled("Dagger")
    assert column_stem("Dagger_recal_inter") == column_stem("Dagger") == "Dagger"
