"""Deterministic judge for statistical hypotheses (DiscoveryBench's context/variables/relation).

``StatsJudge().score(hypothesis, gold, task)`` returns a
:class:`~collabsim.metrics.outcome.HypothesisScore` with
``performance = context × variable_f1 × relation``, each part read by
:mod:`collabsim.metrics.stats_vocab` (variables) and :mod:`collabsim.metrics.stats_claims`
(relation, context):

* ``variable_f1``: F1 of the task columns named by claim and gold outside their control
  phrases and their written-out row filters ("for rows with area type == 2": context,
  :func:`~collabsim.metrics.stats_claims.filter_spans`) (:meth:`~collabsim.metrics.stats_vocab.ColumnLexicon.mentions`: fuzzy phrase
  matching of column names, description heads and data-file names; controls are context,
  below); recall also counts a gold column the claim names only as a control
  (:func:`variables_f1`). A column the claim names counts as named by the gold when the gold describes it
  (golds are prose: half or more, at least two, of the column description's content words,
  :meth:`~collabsim.metrics.stats_vocab.ColumnLexicon.describes`); the other way round a
  claim must name the gold's columns. A gold naming no column the lexicon finds is matched
  by its words (:func:`phrase_variables`: the share of its content words the claim holds);
  a claim naming none against a gold naming some -> 0.
* ``context``: F1 of recall R and precision P of the context items. Items are population
  words, places and data years (:func:`~collabsim.metrics.stats_claims.population_of`)
  (group values written under their data code read through the codebook,
  :func:`coded_groups`) minus the task's own frame (:func:`context_frame`: those of its query, and places its
  query, domain or domain knowledge name; a claim need not restate "in Black women" when
  the query asks about Black women, and may restate it), plus the content stems of the
  gold's controls. R = (matched gold population items + gold control stems the claim
  mentions anywhere) / (gold items + gold control stems); P = matched claim population
  items / claim population items (a claim's extra controls are not penalised: analyses
  often state more controls than golds). Empty sides count 1; ``context_recall`` = R.
* ``relation`` (DiscoveryBench: 1 very similar, 0.5 similar but more general, 0
  different): the gold's relation components are its direction set, its significance set,
  its numbers and its shape/comparison tags (each only where the gold states one, and only
  where the query does not state it already: an echo of the query is no component, and a
  claim's copy of a query number is no number).

  - 0 when the claim contradicts the gold: its direction set (or significance set) is
    non-empty and disjoint from the gold's non-empty one ("negative" vs "positive",
    "no significant association" vs "positive", p = 0.2 vs "significant"), or it denies the
    gold's strongest factor ("not the most influential factor");
  - 1 when the claim matches every component: the gold's directions, stated about the
    gold's variables and not the opposite one (:func:`direction_link`: per sentence, a
    gold sentence is also about the query's columns it describes; directions the claim
    states about other variables neither help nor hurt), the same significance set, every
    gold number within tolerance, every gold tag present;
  - 0.5 when some component matches (the claim is right but less specific, or a number is
    off), or when the only component, the gold's numbers, is missed by numbers of the
    claim's own while it states the gold's direction (the one the query asks about) about
    the gold's variables: right direction, off numbers;
  - at most 0.5 when the query states the gold's numbers and the claim states numbers of
    its own instead (it computed other numbers: off);
  - 0.5 when none matches but the claim states an association of its own about the gold's
    variables (:func:`associates`) and the gold states no direction or significance (its
    components are a formula's numbers or a form) or states a rule ("are classified as",
    "is calculated by": :data:`DEPENDENCE_WORDS`; its directions are the rule's
    thresholds) whose direction the claim does not oppose: similar but more general, an
    association for the gold's formula;
  - 0 otherwise;
  - when the gold states no component left, its relation words are compared
    (:func:`relation_words`, :func:`_phrase_relation`): never full credit by default.

A non-answer (:func:`~collabsim.metrics.non_answers.non_answer_reason`: a refusal, a
one-column summary) scores 0 unless the gold is of the same form.

**Number tolerance**: a gold number g is matched by a claim number c when
``|c - g| <= max(REL_TOL·|g|, min(half a unit of c's last written digit, ROUND_CAP·|g|))``
with ``REL_TOL = 0.05`` and ``ROUND_CAP = 0.10``: 5 % relative, widened up to 10 % when the
claim's rounding explains the gap (gold -0.0038 vs claim -0.004). Signs are compared through
the direction (numbers by absolute value); percentages are compared as fractions
(``20%`` = ``0.2``); p-values and data years are not numbers here.

A gold scored against itself is 1.0. An empty hypothesis scores 0.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, replace

from collabsim.domain.words import STOPWORDS, stem
from collabsim.metrics.non_answers import non_answer_reason
from collabsim.metrics.outcome import HypothesisScore
from collabsim.metrics.stats_claims import (
    DOWN_WORDS,
    NOT_STRONGEST,
    POPULATION,
    SENTENCE_END,
    UP_WORDS,
    StatClaim,
    control_spans,
    direction_of,
    filter_spans,
    population_of,
    read_claim,
    significance_of,
)
from collabsim.metrics.stats_vocab import (
    GENERIC_WORDS,
    ColumnLexicon,
    tokens,
    wordset,
)
from collabsim.tasks.model import Task, TaskBrief

REL_TOL = 0.05
ROUND_CAP = 0.10
#: Shares of a worded relation's words a claim must hold for full and for half credit.
PHRASE_FULL = 0.5
PHRASE_PART = 0.25

#: What :func:`direction_link` finds: the claim states the gold's direction about the gold's
#: variables, the opposite one (or both), or neither.
LINK_MET, LINK_OPPOSED, LINK_NONE = "met", "opposed", "none"


def number_matches(gold: float, claim: tuple[float, int]) -> bool:
    """True when a claim number ``(value, decimals)`` is within tolerance of a gold number."""
    value, decimals = claim
    half_unit = 0.5 * 10.0 ** (-decimals)
    tol = max(REL_TOL * abs(gold), min(half_unit, ROUND_CAP * abs(gold)))
    return abs(value - gold) <= tol + 1e-12


def variables_f1(claim: set[str], claim_all: set[str], gold: set[str]) -> float:
    """Variable F1: precision over the claim's columns outside its controls (``claim``),
    recall over all the columns it names (``claim_all``: a gold variable the claim holds
    constant is still named). A gold naming none -> 1; a claim naming none -> 0."""
    if not gold:
        return 1.0
    recall = len(gold & claim_all) / len(gold)
    precision = len(claim & gold) / len(claim) if claim else float(recall > 0)
    return _f1(recall, precision)


def _f1(recall: float, precision: float) -> float:
    return 0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)


def context_frame(task: Task | TaskBrief | None, items: frozenset[str]) -> frozenset[str]:
    """The task's own context: the population items of its query, and the places among
    ``items`` its query, domain or domain knowledge name ("ancient Mesopotamian cities" in
    the query frames "in ancient Mesopotamia"). Data descriptions are not a frame: they
    list the strata a hypothesis may be about ("for Sub-Saharan Africa and Lower Middle
    Income Countries")."""
    if task is None:
        return frozenset()
    frame = set(population_of(task.query))
    text = " ".join([task.query, task.domain, task.domain_knowledge]).lower()
    words = set(re.findall(r"[a-z][a-z-]+", text))
    for item in items:
        if not item.startswith("place:"):
            continue
        if all(any(len(w) >= 5 and (t.startswith(w) or w.startswith(t)) and len(t) >= 5
                   for t in words) for w in item.removeprefix("place:").split()):
            frame.add(item)
    return frozenset(frame)


def context_parts(claim: StatClaim, gold: StatClaim, frame: frozenset[str]) -> tuple[float, float]:
    """Context recall and precision of a claim against the gold (see the module docstring)."""
    g_pop, c_pop = gold.population - frame, claim.population - frame
    matched = len(g_pop & c_pop) + len(gold.controls & claim.words)
    total = len(g_pop) + len(gold.controls)
    recall = matched / total if total else 1.0
    precision = len(c_pop & g_pop) / len(c_pop) if c_pop else 1.0
    return recall, precision


def relation_parts(claim: StatClaim, gold: StatClaim, asked: StatClaim | None = None,
                   relation_words: frozenset[str] = frozenset(),
                   link: str = LINK_MET, associates: bool = False) -> tuple[float, str]:
    """Relation score and reason (see the module docstring).

    Args:
        claim: The claim read.
        gold: The gold read.
        asked: The query read: a component of the gold the query already states (its
            direction or significance set, a form tag, a number) is no component to match,
            and a claim's copy of a query number is no number.
        relation_words: The gold's relation words (:func:`relation_words`), compared when
            the gold states no component left to match; one of :data:`DEPENDENCE_WORDS`
            marks a gold stating a rule or formula ("are classified as", "is calculated
            by"), whose directions are the rule's thresholds.
        link: Whether the claim states the gold's direction about the gold's variables
            (:func:`direction_link`); a direction about other variables is no match.
        associates: Whether the claim states an association of its own (a direction the
            query does not state) about the gold's variables (:func:`associates`): a gold
            stating no direction, or stating a rule, whose components the claim misses
            without contradicting them then gets 0.5 (similar but more general: an
            association for the gold's formula).
    """
    asked = asked or _NOTHING
    contradiction = _contradiction(claim, gold)
    if contradiction is not None:
        return 0.0, contradiction
    parts = _components(claim, gold, asked, link == LINK_MET)
    # numbers the claim computed itself (not the query's): where the gold's differ, they are off
    own_numbers = [c for c in claim.numbers
                   if not any(number_matches(q, c) for q, _ in asked.numbers)]
    if not parts:
        score, why = _phrase_relation(claim, relation_words, associates)
        asked_numbers = bool(gold.numbers) and all(
            any(number_matches(g, q) for q in asked.numbers) for g, _ in gold.numbers)
        if score > 0.5 and asked_numbers and own_numbers:
            return 0.5, why + "; the claim's own numbers are not the gold's the query states"
        return score, why
    missing = sorted(k for k, ok in parts.items() if not ok)
    if not missing:
        return 1.0, "relation matches (" + ", ".join(sorted(parts)) + ")"
    if len(missing) < len(parts):
        return 0.5, "relation partly matches (missing or off: " + ", ".join(missing) + ")"
    return _none_matched(claim, gold, missing, parts, bool(own_numbers), relation_words, link,
                         associates)


def _none_matched(claim: StatClaim, gold: StatClaim, missing: list[str], parts: dict[str, bool],
                  own_numbers: bool, relation_words: frozenset[str], link: str,
                  associates: bool) -> tuple[float, str]:
    """The relation score when the claim matches none of the gold's components (see
    :func:`relation_parts`): 0.5 for the right direction with numbers off, or for an
    association of the claim's own, else 0."""
    if (missing == ["numbers"] and own_numbers and gold.direction - {"null"}
            and link == LINK_MET and gold.direction <= claim.direction):
        # the direction the query asks about, stated about the gold's variables: right
        # direction, off numbers (the rubric's "similar but more general")
        return 0.5, "the gold's direction about its variables, numbers off"
    if associates and ("direction" not in parts and "significance" not in parts
                       or relation_words & DEPENDENCE_WORDS and link != LINK_OPPOSED):
        return 0.5, ("an association of its own for the gold's " + ", ".join(missing)
                     + ": more general")
    return 0.0, "relation missing (" + ", ".join(missing) + ")"


def _contradiction(claim: StatClaim, gold: StatClaim) -> str | None:
    """Why the claim contradicts the gold (see the module docstring), or None."""
    if "strongest" in gold.shapes and NOT_STRONGEST in claim.shapes - gold.shapes:
        return "the claim denies the gold's strongest factor"
    for name, g_set, c_set in (("direction", gold.direction, claim.direction),
                               ("significance", gold.significance, claim.significance)):
        if g_set and c_set and not (g_set & c_set):
            return f"{name} {sorted(c_set)} contradicts the gold's {sorted(g_set)}"
    return None


def _components(claim: StatClaim, gold: StatClaim, asked: StatClaim, linked: bool
                ) -> dict[str, bool]:
    """The gold's relation components the query does not state, each with whether the claim
    matches it (see :func:`relation_parts`)."""
    parts: dict[str, bool] = {}
    if gold.direction and gold.direction != asked.direction:
        parts["direction"] = linked and gold.direction <= claim.direction
    if gold.significance and gold.significance != asked.significance:
        parts["significance"] = claim.significance == gold.significance
    echoed = asked.numbers
    g_numbers = [g for g, _ in gold.numbers if not any(number_matches(g, q) for q in echoed)]
    c_numbers = [c for c in claim.numbers if not any(number_matches(q, c) for q, _ in echoed)]
    if g_numbers:
        parts["numbers"] = all(any(number_matches(g, c) for c in c_numbers) for g in g_numbers)
    if gold.shapes - asked.shapes:
        parts["form"] = gold.shapes - asked.shapes <= claim.shapes
    return parts


def _phrase_relation(claim: StatClaim, words: frozenset[str], associates: bool
                     ) -> tuple[float, str]:
    """A relation stated in words the reader does not parse ("differs between", "is
    calculated from", "all ... used"), matched by those words: share s of them in the claim,
    1 when s >= PHRASE_FULL, 0.5 when s >= PHRASE_PART; else 0.5 when the gold states a
    dependence ("is predicted / determined / estimated by", "depends on") and the claim an
    association of its own (a direction or significance the query does not state: similar
    but more general), else 0."""
    if not words:
        return 1.0, "gold states no relation beyond its variables"
    share = len(words & claim.words) / len(words)
    why = f"{share:.0%} of the gold's relation words {sorted(words)}"
    if share >= PHRASE_FULL:
        return 1.0, "relation matches in words (" + why + ")"
    if share >= PHRASE_PART:
        return 0.5, "relation partly matches in words (" + why + ")"
    if words & DEPENDENCE_WORDS and associates:
        return 0.5, "an association for the gold's dependence (" + why + ")"
    return 0.0, "relation missing (" + why + ")"


#: Stems of the words golds state a dependence with ("can be predicted based on").
DEPENDENCE_WORDS = frozenset(map(stem, wordset(
    "predicted estimated determined depends depend influenced influence influences "
    "calculated based function formula affected impacted explained driven shaped derived "
    "computed determinant determinants classified categorized evaluated assigned")))


_NOTHING = read_claim("")


@dataclass(frozen=True)
class SentenceLink:
    """What one sentence (or ``;``-clause) of a text states (:func:`sentence_links`).

    Attributes:
        columns: The columns it is about (its own and those it inherits).
        directions: Its direction set (``{ASSOCIATED}`` for a significant association
            without a direction: "differs significantly across").
        own: The columns it names or describes itself (a sentence naming none continues the
            previous one and has that one's).
    """

    columns: frozenset[str]
    directions: frozenset[str]
    own: frozenset[str]


def sentence_links(text: str, lex: ColumnLexicon, described: frozenset[str] = frozenset()
                   ) -> list[SentenceLink]:
    """Per sentence (or ``;``-clause) of a text: the columns it is about and its direction
    set. A sentence is about the columns it names, and about those of ``described`` (the
    claim's columns the query asks about) whose description it covers
    (:meth:`~collabsim.metrics.stats_vocab.ColumnLexicon.describes`: "own customized safety
    gear" for ``custom_gear_ownership``); prose describing any other column does not count
    (with it, other golds of the same data link too often). A sentence naming no column
    ("The relationship is positive.") is about the previous one's; one naming a single
    column ("...; age (negative, ...)") is about it and the first sentence's (the lead,
    which names the outcome)."""
    out: list[SentenceLink] = []
    mentions = lex.mentions(text)
    blanked = without_columns(text, lex)
    start = 0
    for end in [m.end() for m in SENTENCE_END.finditer(text)] + [len(text)]:
        if not text[start:end].strip():
            start = end
            continue
        own = frozenset(m.column for m in mentions if start <= m.start < end)
        own |= {v for v in described - own if lex.describes(v, text[start:end])}
        cols = own
        if out and len(own) <= 1:
            cols = own | (out[0].columns if own else out[-1].columns)
            own = own or out[-1].own
        dirs = direction_of(text[start:end])
        if not dirs and "significant" in significance_of(blanked[start:end]):
            dirs = frozenset({ASSOCIATED})  # "differs significantly across": undirected
        out.append(SentenceLink(cols, dirs, own))
        start = end
    return out


def without_columns(text: str, lex: ColumnLexicon) -> str:
    """The text with the column names it mentions blanked out (same length): "religious
    significance" names a column, it states no statistical significance."""
    blanked = text
    for m in lex.mentions(text):
        blanked = blanked[:m.start] + " " * (m.end - m.start) + blanked[m.end:]
    return blanked


#: The direction mark of a sentence stating a significant association without a direction.
ASSOCIATED = "associated"


def associates(claim: list[SentenceLink], gold_columns: frozenset[str],
               asked: StatClaim | None, asked_columns: frozenset[str] = frozenset()) -> bool:
    """True when a claim sentence states a direction or a significant association (not the
    query's own direction or significance, not "no association") about at least
    ``min(2, n)`` of the gold's ``n`` columns, one of them a column the query asks about
    when it asks about any of the gold's (an association about other columns of the same
    data answers another question)."""
    echoed = asked.direction if asked is not None else frozenset()
    if not echoed and asked is not None and "significant" in asked.significance:
        echoed = frozenset({ASSOCIATED})  # "Is there a significant relationship ...?"
    need = min(2, len(gold_columns))
    asked_gold = gold_columns & asked_columns
    return bool(need) and any(
        (c.directions - {"null"}) and c.directions != echoed
        and len(c.columns & gold_columns) >= need and (not asked_gold or c.columns & asked_gold)
        for c in claim)


def direction_link(claim: list[SentenceLink], gold: list[SentenceLink]) -> str:
    """Whether the claim states the gold's direction about the gold's variables.

    A claim sentence is about a gold sentence's ``n`` columns when it names at least
    ``min(2, n)`` of them. A directed gold sentence is met by a claim sentence about it
    that names one of them itself and states its direction and no other (a hedge,
    "positively or negatively", is no statement), and opposed by one about it that names one
    of them itself, states only other directions and meets no gold sentence (what the gold
    states itself is no opposition: "... tend to select paragliding; those not meeting these
    criteria are more likely to ..."; a trailing "; age (negative, ...)" is about age, not
    about the lead's variables). Returns :data:`LINK_OPPOSED` when some directed gold sentence is opposed
    and not met, or opposed by a sentence about the same variables as a meeting one (both
    ways about the same variables); else :data:`LINK_MET` when the gold states no
    direction or some directed gold sentence is met; else :data:`LINK_NONE`. Directions
    the claim states about other variables (the other factors of a multi-factor answer,
    other values of a group) neither help nor hurt."""
    directed = [(g.columns, g.directions - {ASSOCIATED}) for g in gold
                if g.directions - {"null", ASSOCIATED}]
    sentences = [(c.columns, c.directions - {ASSOCIATED}, c.own) for c in claim]

    def about(g_cols: frozenset[str], c_cols: frozenset[str]) -> bool:
        return len(g_cols & c_cols) >= min(2, len(g_cols))

    def names(g_cols: frozenset[str], own: frozenset[str]) -> bool:
        return not g_cols or bool(own & g_cols)  # a gold naming no column: any sentence

    def meets(g_dir: frozenset[str], c_dir: frozenset[str]) -> bool:
        return g_dir <= c_dir and c_dir - g_dir <= {"null"}

    meeting = [any(about(g_cols, c_cols) and names(g_cols, own) and meets(g_dir, c_dir)
                   for g_cols, g_dir in directed)
               for c_cols, c_dir, own in sentences]
    met_any = False
    for g_cols, g_dir in directed:
        met = [g_cols & c_cols for c_cols, c_dir, own in sentences
               if about(g_cols, c_cols) and names(g_cols, own) and meets(g_dir, c_dir)]
        opposed = [g_cols & c_cols for (c_cols, c_dir, own), meeting_one
                   in zip(sentences, meeting, strict=True)
                   if about(g_cols, c_cols) and names(g_cols, own) and not meeting_one
                   and c_dir - {"null"} and not c_dir & g_dir]
        if opposed and (not met or any(a <= b or b <= a for a in met for b in opposed)):
            return LINK_OPPOSED
        met_any = met_any or bool(met)
    return LINK_MET if met_any or not directed else LINK_NONE


#: Words every statement of a relation uses: they state none by themselves.
RELATION_FILLER = frozenset(map(stem, wordset(
    "relationship relation related association associated between link linked connection "
    "factor factors variable variables data among also")))


def relation_words(gold: str, spans: list[tuple[int, int]], query: str) -> frozenset[str]:
    """The gold's relation words: stems of its content words outside the spans naming its
    variables (column mentions, controls, filters), without stop, generic, filler and
    population words and numbers, and without the query's words (a restatement of the
    question is no answer); when every one is the query's, all of them."""
    out = {t.stem for t in tokens(gold)
           if not any(a <= t.start and t.end <= b for a, b in spans) and _content(t.stem)}
    asked = {t.stem for t in tokens(query)}
    return frozenset(out - asked or out)


def phrase_variables(claim: str, gold: str) -> float:
    """Variable score of a gold naming no column the lexicon finds: the share of the gold's
    variable words (its content words without relation, direction, filler and population
    words and numbers) the claim holds (0 when it has none)."""
    words = {t.stem for t in tokens(gold) if _content(t.stem) and t.stem not in UP_WORDS
             and t.stem not in DOWN_WORDS and t.stem not in _DIRECTION_STEMS}
    if not words:
        return 0.0
    return len(words & {t.stem for t in tokens(claim)}) / len(words)


def _content(word: str) -> bool:
    """A stem that can carry a variable or a relation: no stop, generic, filler or
    population word, no number, longer than two letters."""
    return (len(word) > 2 and not word[0].isdigit() and word not in _STOP_STEMS
            and word not in GENERIC_WORDS and word not in RELATION_FILLER
            and word not in _POPULATION_STEMS)


#: Stems of the one-word population words ("women", "rural"); a phrase ("high income",
#: "african american") is a population only as a whole, its words alone are none.
_POPULATION_STEMS = frozenset(stem(k) for k in POPULATION if " " not in k)
_STOP_STEMS = STOPWORDS | frozenset(map(stem, STOPWORDS))
_DIRECTION_STEMS = wordset("positive positively negative negatively inverse inversely "
                           "significant significantly statistically")


def coded_groups(text: str, lex: ColumnLexicon) -> frozenset[str]:
    """Context items of the group values a text writes under their data codes
    ("RACE == 1", "sex = 2"), read through the columns' codebooks
    (:func:`collabsim.domain.codebook.codes_of`): the label's population word ("black"),
    else the label as a place ("place:northeast")."""
    items: set[str] = set()
    for m in lex.mentions(text):
        book = lex.codebook(m.column)
        if not book:
            continue
        after = _CODE_AFTER.match(text, m.end)
        label = book.get(after.group(1), "") if after else ""
        if label and label.lower() not in _NO_GROUP_LABELS:
            # a named group ("1:BLACK", "2:Northeast"); yes/no levels are a contrast, no group
            items |= population_of(label.lower()) or (
                {"place:" + label.lower()} if label[:1].isupper() else set())
    return frozenset(items)


_NO_GROUP_LABELS = wordset("yes no true false none other missing unknown not applicable")
_CODE_AFTER = re.compile(r"\s*(?:==|=|:|\bis\b|\bof\b)\s*['\"]?(-?\w+)['\"]?")


class StatsJudge:
    """Deterministic judge for statistical hypotheses (no model calls)."""

    name = "stats"

    #: How many scores a judge keeps (least recently used dropped first).
    SCORE_CACHE_SIZE = 4096

    def __init__(self) -> None:
        self._lexicons: dict[tuple[object, ...], ColumnLexicon] = {}
        self._scores: OrderedDict[tuple[object, ...], HypothesisScore] = OrderedDict()

    @staticmethod
    def _tables_key(task: Task | TaskBrief | None) -> tuple[object, ...]:
        datasets = task.datasets if task is not None else ()
        return tuple((d.name, d.description, tuple((c.name, c.description) for c in d.columns))
                     for d in datasets)

    def lexicon(self, task: Task | TaskBrief | None) -> ColumnLexicon:
        """The column lexicon of a task (cached by its data files' names, descriptions and
        columns, so tasks of different folders sharing an id never share one)."""
        datasets = task.datasets if task is not None else ()
        key = self._tables_key(task)
        if key not in self._lexicons:
            if len(self._lexicons) >= 1024:
                self._lexicons.clear()
            self._lexicons[key] = ColumnLexicon.build(datasets)
        return self._lexicons[key]

    def variables(self, text: str, task: Task | TaskBrief | None = None) -> set[str]:
        """Columns a text names outside its control phrases."""
        spans = control_spans(text) + filter_spans(text)
        return {m.column for m in self.lexicon(task).mentions(text)
                if not any(a <= m.start and m.end <= b for a, b in spans)}

    def extract(self, text: str, task: Task | TaskBrief | None = None) -> dict[str, object]:
        """What the judge reads from a text (for inspection and tests)."""
        claim = self._read(text, self.lexicon(task))
        return {
            "variables": sorted(self.variables(text, task)),
            "direction": sorted(claim.direction),
            "significance": sorted(claim.significance),
            "numbers": [v for v, _ in claim.numbers],
            "shapes": sorted(claim.shapes),
            "population": sorted(claim.population),
            "controls": sorted(claim.controls),
        }

    def score(
        self, hypothesis: str, gold: str, task: Task | TaskBrief | None = None
    ) -> HypothesisScore:
        """Score a hypothesis against the gold.

        Args:
            hypothesis: The submitted hypothesis text.
            gold: The gold hypothesis.
            task: The task (its columns name the variables; its query is the context frame).

        Returns:
            The score; ``performance = context * variable_f1 * relation``.
        """
        if not hypothesis or not hypothesis.strip():
            return HypothesisScore.zero(self.name, "empty hypothesis")
        # a pure function of the texts and of what it reads of the task: the sessions of a
        # task often submit the same hypothesis, so it is scored once
        key = (hypothesis, gold, self._tables_key(task)) + ((
            task.query, task.domain, task.domain_knowledge) if task is not None else ())
        cached = self._scores.get(key)
        if cached is not None:
            self._scores.move_to_end(key)
            return cached
        score = self._score(hypothesis, gold, task)
        self._scores[key] = score
        if len(self._scores) > self.SCORE_CACHE_SIZE:
            self._scores.popitem(last=False)
        return score

    @staticmethod
    def _read(text: str, lex: ColumnLexicon) -> StatClaim:
        """A text read by :func:`read_claim`, with the group values it writes as codes added
        to its context, and "significance" in a column's name ("religious significance")
        not read as statistical significance."""
        claim = read_claim(text)
        return replace(claim, population=claim.population | coded_groups(text, lex),
                       significance=significance_of(without_columns(text, lex)))

    def _score(self, hypothesis: str, gold: str, task: Task | TaskBrief | None
               ) -> HypothesisScore:
        query = task.query if task is not None else ""
        why_not = non_answer_reason(hypothesis, query)
        if why_not is not None and non_answer_reason(gold, query) is None:
            return HypothesisScore.zero(self.name, f"non-answer ({why_not})")
        lex = self.lexicon(task)
        c_claim, g_claim = self._read(hypothesis, lex), self._read(gold, lex)
        frame = context_frame(task, c_claim.population | g_claim.population)
        recall, precision = context_parts(c_claim, g_claim, frame)
        context = _f1(recall, precision)
        c_vars, g_named = self.variables(hypothesis, task), self.variables(gold, task)
        c_all = lex.variables(hypothesis)
        g_vars = g_named | {v for v in c_vars - g_named if lex.describes(v, gold)}
        if g_vars:
            f1 = variables_f1(c_vars, c_all, g_vars)
            spans = ([(m.start, m.end) for m in lex.mentions(gold)] + control_spans(gold)
                     + filter_spans(gold))
        else:  # no column the lexicon knows: the gold's own words name its variables
            f1 = phrase_variables(hypothesis, gold)
            spans = control_spans(gold) + filter_spans(gold)
        asked = self._read(query, lex) if query else None
        asked_vars = frozenset(self.variables(query, task)) if query else frozenset()
        described = asked_vars & c_vars
        c_links = sentence_links(hypothesis, lex, described)
        link = direction_link(c_links, sentence_links(gold, lex, described))
        rel, why = relation_parts(c_claim, g_claim, asked, relation_words(gold, spans, query),
                                  link, associates(c_links, frozenset(g_vars), asked, asked_vars))
        rationale = (
            f"context: claim {sorted(c_claim.population - frame)} vs gold "
            f"{sorted(g_claim.population - frame)}, controls {sorted(g_claim.controls)} "
            f"(recall {recall:.2f}, precision {precision:.2f}); variables: claim "
            f"{sorted(c_vars)} vs gold {sorted(g_vars) or 'in words'} (F1 {f1:.2f}); "
            f"relation: {why}"
        )
        return HypothesisScore.combine(context, f1, rel, recall, self.name, rationale)
