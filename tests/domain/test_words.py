"""One stemmer and one list of function words for every reader of free text."""

from __future__ import annotations

import re
from pathlib import Path

import collabsim
from collabsim.domain import words
from collabsim.domain.stats import columns
from collabsim.metrics import initiative, stats_claims, stats_vocab
from collabsim.participants import stat_mistakes

PACKAGE = Path(collabsim.__file__).resolve().parent


def test_the_stop_words_are_lower_case_words() -> None:
    # a lint comment once landed in the list as data ("#", "noqa:", "SIM905")
    for listed in (words.STOPWORDS, columns.STOPWORDS):
        assert all(re.fullmatch(r"[a-z]+", w) for w in listed), sorted(
            w for w in listed if not re.fullmatch(r"[a-z]+", w))
    for word in ("text", "list", "word", "best", "reads"):
        assert word not in columns.STOPWORDS


def test_every_reader_uses_the_one_stemmer_and_stop_list() -> None:
    assert columns.stem is words.stem
    assert stats_vocab.stem is words.stem and stats_claims.stem is words.stem
    assert words.STOPWORDS <= columns.STOPWORDS
    assert stats_vocab.STOPWORDS is words.STOPWORDS
    assert initiative.STOPWORDS is words.STOPWORDS
    assert words.STOPWORDS <= stat_mistakes._STOP


def test_no_other_module_defines_a_stemmer_or_a_function_word_list() -> None:
    # a stemmer, or a stop list written as a literal (annotated or not: `STOPWORDS:
    # frozenset[str] = frozenset({...`, `_STOP = {...`); extending the one list is allowed
    definition = re.compile(r"^def\s+_?stem\b|^_?STOP(?:_?WORDS)?\s*(?::[^=\n]*)?=\s*"
                            r"(?:frozenset|set|wordset)?\s*[({]", re.MULTILINE)
    found = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
             if definition.search(p.read_text(encoding="utf-8"))]
    assert found == ["domain/words.py"]


def test_stem_joins_inflections_of_one_word() -> None:
    assert words.stem("Values") == words.stem("value") == "value"
    assert words.stem("scores") == words.stem("score")
    assert words.stem("quitting") == "quit" and words.stem("planned") == "plan"
    assert words.stem("savings") == words.stem("saving")
