"""Non-answers: submitted texts that state no finding about the question's variables.

A hypothesis states a relation between variables in a context. Some texts an analyst
submits state none: they say the analysis could not be done, or they describe one column.
The judges score them 0 whatever the gold (:func:`non_answer_reason`), unless the gold is
itself of that form (a gold describing one column is answered by a description of it).

A text is a non-answer when one of these holds (case-insensitive):

* **refusal**: it says the data could not answer - "No rows of the data have ...", "the
  data do not identify / contain / allow ...", "... cannot be tested / established /
  determined / stated / estimated / assessed", "no (statistical) relationship ... can be
  established", "insufficient data", "not enough data",
  "could not (be) determine(d) / find / estimate / identify", "does not vary in the data",
  "X is 1 for all 187 rows ...; it does not vary with Y" (a constant outcome: nothing to
  relate);
* **one-column summary**: it opens with "The mean / average / median / mode / distribution
  / most common value(s) of X" or "The share with X is ..." and names no group, subset,
  comparison or relation ("highest", "lowest", "where", "for", "in", "rows", "==", "than",
  "differs", "compared", "across", "between", "associated", "related", "higher", "lower",
  "more", "less", "by"), while the query asks for no summary (no "mean", "average",
  "median", "mode", "proportion", "share", "percentage", "distribution", "most common",
  "how many", "how much"): a description of one column answers no question about a
  relation, but does answer "what is the average X?".

The list is small on purpose: each entry is a form the scripted analyst's fallbacks or a
model's refusals take (collabsim.domain.stats.wording ``unanswered_hypothesis``), checked on
examples in ``tests/metrics/test_judge_gaming.py``.
"""

from __future__ import annotations

import re

from collabsim.domain.relations import RELATION_PATTERNS

_REFUSAL = re.compile(
    r"^\s*no\s+rows\s+of\s+the\s+data\b"
    r"|\bthe\s+data\s+(?:do|does|did)\s+not\s+(?:identify|contain|allow|permit|include|"
    r"support\s+any|say)\b"
    r"|\bcan(?:not|'t|\s+not)\s+be\s+(?:tested|established|determined|stated|estimated|"
    r"assessed|computed|answered|identified)\b"
    r"|\bno\s+(?:statistical\s+)?relationship\b[^.]*?\bcan\s+be\s+(?:established|stated|"
    r"tested|determined)\b"
    r"|\b(?:insufficient|not\s+enough)\s+(?:data|rows|information|observations)\b"
    r"|\bcould\s+not\s+(?:be\s+)?(?:determine[d]?|find|found|estimate[d]?|identif(?:y|ied)|"
    r"compute[d]?)\b"
    r"|\bdoes\s+not\s+vary\s+in\s+the\s+data\b"
    r"|\bfor\s+all\s+[\d,]+\s+rows\b[^.]*\bdoes\s+not\s+vary\s+with\b",
    re.IGNORECASE,
)
_SUMMARY_LEAD = re.compile(
    r"^\s*the\s+(?:(?:mean|average|median|mode|distribution|most\s+common\s+values?)\s+of|"
    r"share\s+with)\b",
    re.IGNORECASE,
)
# the direction words are the domain's (collabsim.domain.relations): one home of each list
_DIRECTIONS = "|".join((*RELATION_PATTERNS["increase"], *RELATION_PATTERNS["decrease"]))
_RELATING = re.compile(
    r"==|\b(?:highest|lowest|where|for|in|rows?|than|differs?|different|compared|across|"
    r"between|associat\w*|relat\w*|correlat\w*|higher|lower|more|less|by|among|within|"
    r"versus|vs|" + _DIRECTIONS + r")\b",
    re.IGNORECASE,
)
_ASKS_SUMMARY = re.compile(
    r"\b(?:mean|average|median|mode|proportion|share|percent\w*|distribution|most\s+common|"
    r"how\s+many|how\s+much|fraction|typical)\b",
    re.IGNORECASE,
)


def non_answer_reason(text: str, query: str = "") -> str | None:
    """Why a text is a non-answer (see the module docstring), else None.

    Args:
        text: A submitted hypothesis (or a gold).
        query: The task's query (a summary answers a query asking for one).

    Returns:
        ``"refusal"`` or ``"one-column summary"``; None for a text stating a finding.
    """
    if _REFUSAL.search(text):
        return "refusal"
    if (_SUMMARY_LEAD.match(text) and not _RELATING.search(text)
            and not _ASKS_SUMMARY.search(query)):
        return "one-column summary"
    return None
