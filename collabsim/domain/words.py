"""English function words and the word stemmer: the one copy every reader of free text uses.

The statistical family's column reader (:mod:`collabsim.domain.stats.columns`), the
statistical judge's variable and claim readers (:mod:`collabsim.metrics.stats_vocab`,
:mod:`collabsim.metrics.stats_claims`) and the rule-based initiative classifier
(:mod:`collabsim.metrics.initiative`) all drop :data:`STOPWORDS` and compare words by
:func:`stem`, so a word counts the same way when a participant reads a query and when the
judge or a metric reads the answer. Vocabularies of one reader (the query words that never
name a column, the judge's generic measure words) stay with that reader and extend this list.

Nothing here imports another collabsim package.
"""

from __future__ import annotations

import functools
import re

#: English function words: articles, pronouns, prepositions, conjunctions, auxiliaries and
#: question words. None of them names a variable or carries new information; readers drop
#: them, compared in lower case (the judge compares them with stems: each is its own stem or
#: its stem is never a content word).
STOPWORDS: frozenset[str] = frozenset({
    "a", "about", "all", "also", "among", "an", "and", "any", "are", "around", "as", "at",
    "be", "been", "being", "between", "both", "but", "by", "can", "could", "did", "do",
    "does", "each", "either", "for", "from", "had", "has", "have", "he", "here", "how", "i",
    "if", "in", "into", "is", "it", "its", "just", "may", "might", "my", "no", "nor", "not",
    "of", "on", "onto", "or", "other", "others", "our", "over", "per", "s", "she", "should",
    "so", "such", "than", "that", "the", "their", "then", "there", "these", "they", "this",
    "those", "to", "under", "versus", "vs", "was", "we", "were", "what", "when", "where",
    "whether", "which", "while", "who", "whom", "whose", "why", "will", "with", "within",
    "without", "would", "you", "your",
})

#: ``(suffix, minimum word length, replacement)``; the first suffix a word ends with decides
#: (a minimum of 99 keeps such words whole: "-ss", "-us", "-is", "-eed").
_SUFFIXES: tuple[tuple[str, int, str], ...] = (
    ("ary", 8, ""), ("ation", 9, ""), ("ies", 5, "y"), ("ing", 6, ""), ("eed", 99, ""),
    ("ed", 5, ""), ("sses", 5, "ss"), ("ss", 99, ""), ("us", 99, ""),
    ("sis", 7, "s"), ("is", 99, ""), ("s", 4, ""),
)
_DOUBLED = re.compile(r"([b-df-hj-kmnp-rtv-z])\1$")


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Light stem: lower case, one plural or common verb ending dropped.

    The first rule of ``_SUFFIXES`` whose suffix ends the word applies, if the word has its
    minimum length; a plural "-ings" loses its "-ing" too; a doubled final consonant left by "-ing" / "-ed" is undoubled
    ("quitting" -> "quit", "planned" -> "plan"). Memoised: a judge stems the same few
    thousand words hundreds of thousands of times.

    Args:
        word: One word (any case).

    Returns:
        The lower-case stem.
    """
    w = word.lower()
    for suffix, min_len, repl in _SUFFIXES:
        if w.endswith(suffix):
            if len(w) < min_len:
                return w
            w = w[: -len(suffix)] + repl
            if suffix == "s" and w.endswith("ing"):
                return stem(w)  # "savings" -> "saving" -> "sav"
            if suffix in ("ing", "ed") and len(w) >= 5 and _DOUBLED.search(w):
                w = w[:-1]
            return w
    return w
