"""Matching query words to columns by names and descriptions."""

from __future__ import annotations

from helpers_stats import FISH, NLS, Col

from collabsim.domain.stats.columns import (
    best_column,
    find_mentions,
    rank_columns,
    similar_columns,
    stem,
    tokens,
)


def test_tokens_drop_stop_words_and_split_names() -> None:
    assert tokens("the number_of trade Schools") == ["number", "trade", "school"]
    assert tokens("MBL_evol") == ["mbl", "evol"]
    assert stem("savings") == stem("saving")


def test_a_phrase_ranks_the_column_its_description_names_first() -> None:
    ranked = rank_columns("the rate of maximum body length evolution", FISH.columns)
    assert ranked[0].column == "MBL_evol"
    assert {"maximum", "body", "length"} <= set(ranked[0].matched)
    assert best_column("oral gape position", FISH.columns) == "OGP_evol"
    assert best_column("unrelated words entirely", FISH.columns) is None


def test_mentions_come_in_order_of_the_text() -> None:
    text = "What relationship do species diversity and the rate of body elongation evolution have?"
    found = find_mentions(text, FISH.columns)
    assert [m.column for m in found] == ["diversity", "BEL_evol"]
    assert found[1].phrase == "rate of body elongation evolution"
    assert text[found[0].start:found[0].end] == found[0].phrase


def test_an_identifier_written_in_the_text_is_found_exactly() -> None:
    cols = (Col("risk_aversion", "risk aversion"), Col("risk", "risk score"))
    found = find_mentions("Is risk_aversion related to age?", cols)
    assert [m.column for m in found] == ["risk_aversion"]


def test_similar_columns_are_the_similar_sounding_ones() -> None:
    # the other evolution rates sound like MBL_evol; the identifier does not
    similar = similar_columns("MBL_evol", FISH.columns)
    assert similar[0] == "BEL_evol"  # shares "body" and "evolution"
    assert "HYBAS_ID" not in similar
    assert set(similar_columns("DISSAVED", NLS.columns, k=1)) == {"SAMESAVE"}
    assert similar_columns("missing", FISH.columns) == []


def test_words_a_lint_comment_once_hid_identify_columns() -> None:
    # "text", "list", "word", "best" and "reads" are ordinary content words of a query
    for word in ("text", "list", "word", "best", "reads"):
        cols = (Col("math_scr", "math score of the pupil"),
                Col(f"{word}_scr", f"{word} score of the pupil"), Col("age", "age in years"))
        assert tokens(f"the {word}") == [stem(word)]
        assert best_column(f"{word} score", cols) == f"{word}_scr"
        found = find_mentions(f"Is the {word} score associated with age?", cols)
        assert [m.column for m in found] == [f"{word}_scr", "age"]
