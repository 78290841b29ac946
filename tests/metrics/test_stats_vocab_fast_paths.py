"""The column reader's fast paths (a memoised stem, phrases skipped when the text lacks one
of their required words) name exactly the columns the plain window search names."""

from __future__ import annotations

from collabsim.domain.words import stem
from collabsim.metrics.stats_vocab import ColumnLexicon, Mention, Phrase, tokens

LEXICON = ColumnLexicon((
    Phrase("body_mass_index", "body mass index", ("body", "mass", "index")),
    Phrase("mass", "mass", ("mass",)),
    Phrase("growth_rate", "growth rate", ("growth", "rate")),
))


def _plain_mentions(lexicon: ColumnLexicon, text: str) -> set[str]:
    """Every phrase whose required stems all occur within its window of the text."""
    stems = [t.stem for t in tokens(text)]
    named = set()
    for phrase in lexicon.phrases:
        width = 2 * len(phrase.required) + 2
        for i in range(len(stems)):
            if set(phrase.required) <= set(stems[i:i + width]):
                named.add(phrase.column)
    return named


def test_stem_gives_the_same_stem_on_every_call_whatever_the_case() -> None:
    words = ["Planned", "planned", "PLANNED", "quitting", "analyses", "rates", "Rates", "index"]
    first = [stem(w) for w in words]
    assert first == ["plan", "plan", "plan", "quit", "analyse", "rate", "rate", "index"]
    assert [stem(w) for w in reversed(words)] == first[::-1]


def test_a_phrase_is_named_only_when_the_text_holds_every_required_word() -> None:
    text = "The body mass index rose with the growth rate of the town."
    assert LEXICON.variables(text) == {"body_mass_index", "growth_rate"}
    assert LEXICON.variables(text) == _plain_mentions(LEXICON, text) - {"mass"}
    # one required word gone: that phrase is not named, the others still are
    assert LEXICON.variables(text.replace("index", "score")) == {"mass", "growth_rate"}
    assert LEXICON.variables(text.replace("growth", "decline")) == {"body_mass_index"}
    assert LEXICON.mentions("rate of growth")[0] == Mention("growth_rate", 0, 14, 2)
