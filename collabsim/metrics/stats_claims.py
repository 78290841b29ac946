"""Reading a statistical hypothesis into what the judge compares: relation and context.

DiscoveryBench splits a hypothesis into *context* (the stratification or boundary conditions
under which it holds: "for all women", "in Asia and Europe"), *variables* and *relation*
(the form of the relation between the variables). :func:`read_claim` reads the relation and
context parts of one text (:mod:`collabsim.metrics.stats_vocab` reads the variables):

* **direction** (a set of ``positive``, ``negative``, ``null``), sentence by sentence:
  ``null`` for "no (significant) association/effect/relationship/correlation", "not
  (significantly) associated/related", "unrelated", "none of the factors has a significant
  ..."; otherwise ``positive`` / ``negative``
  from explicit words (positive(ly), negative(ly), inverse(ly)); otherwise from movement
  words (higher, more, increase, greater ... / lower, fewer, decrease, reduce ...): two or
  more moving the same way -> positive, both ways -> negative, a single one -> its own way
  ("more likely", "40 % higher" -> positive; "less likely", "X reduces Y" -> negative);
* **significance** (a set of ``significant``, ``not significant``): "significant(ly)" unless
  negated ("no/not/non/in-significant"); p-values (``p < 0.001``, ``p-value: 0.225``,
  ``p=0.03``): at most 0.05 -> significant, above -> not significant;
* **numbers**: every other number (coefficients, percentages, thresholds; ``-4.6``, ``0.3596``,
  ``20%``, ``$500``, ``3.0e-05``), except data years, p-values and digits inside names;
* **shape and comparison tags**: linear, quadratic/squared, cubic, polynomial,
  exponential, logarithmic; strongest ("most influential", "strongest predictor"; not after
  "not", which is tagged ``not strongest``) and
  stronger ("more pronounced", "stronger") comparisons;
* **context**: population words (men/women/male/female, Black, Hispanic, White, Asian,
  children/adults; not when written in capitals like a column name, "BLACK is ...", developing/developed countries, rural/urban, low/high
  income), places (capitalised names after in/among/across/within/outside: "in ancient
  Mesopotamia", "outside of Sub-Saharan Africa"), data years ("for 1989 data", "in 1989")
  and controls ("controlling for X", "adjusting for X", "holding X constant", "when X are
  considered", "after accounting for X": the content words of X). Both items of a
  complementary pair (men and women, developing and developed) together name no subgroup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from collabsim.domain.words import STOPWORDS, stem
from collabsim.metrics.stats_vocab import GENERIC_WORDS, wordset

SIG_LEVEL = 0.05

_NUM = r"[-−+]?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-−+]?\d+)?"
_P_VALUE = re.compile(
    r"\bp\s*(?:-?\s*values?)?\s*(?:[:=<>≤≥]+|of|is|was|equals?|below|under|less\s+than)\s*"
    r"=?\s*(" + _NUM + r"|\.\d+)",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\$?(" + _NUM + r"|\.\d+)(\s*%|\s*percent\b)?(?![A-Za-z0-9_])")
_DATA_YEAR = re.compile(
    r"\b(?:for|in|from|during|since|of|year|wave|survey)\s+(?:the\s+)?((?:18|19|20)\d\d)\b"
    r"|\b((?:18|19|20)\d\d)\s+(?:data|survey|wave|sample|cohort)\b",
    re.IGNORECASE,
)
_NULL = re.compile(
    r"\b(?:no|not\s+any|without\s+(?:a|any))\s+(?:statistically\s+)?(?:significant\s+|clear\s+|"
    r"meaningful\s+|discernible\s+|notable\s+)?(?:effect|association|relationship|relation|"
    r"correlation|impact|link|influence|difference|dependence)"
    r"|\bnot\s+(?:statistically\s+)?(?:significantly\s+)?(?:associated|related|correlated|"
    r"linked|affect\w*|influenc\w*)"
    r"|\b(?:unrelated|uncorrelated|independent\s+of)\b"
    r"|\bnone\s+of\s+[^.;]{0,80}?\b(?:has|have|shows?|is|are)\s+(?:a\s+)?(?:statistically\s+)?"
    r"significant",
    re.IGNORECASE,
)
_NOT_SIG = re.compile(
    r"\b(?:no|not|non|in)[-\s]?(?:statistically\s+)?significan\w*|\bnot\s+statistically\s+"
    r"significan\w*|\binsignifican\w*|\bnone\s+of\s+[^.;]{0,80}?\b(?:has|have|shows?|is|are)"
    r"\s+(?:a\s+)?(?:statistically\s+)?significan\w*",
    re.IGNORECASE,
)
_SIG = re.compile(r"\bsignifican(?:t|tly|ce)\b", re.IGNORECASE)
_POSITIVE = re.compile(r"\bpos(?:i)?tive(?:ly)?\b|\bdirect(?:ly)?\s+proportional", re.IGNORECASE)
_NEGATIVE = re.compile(r"\bnegative(?:ly)?\b|\binverse(?:ly)?\b", re.IGNORECASE)
_NEGATED_POLARITY = re.compile(r"\bnot\s+(?:a\s+)?(?:pos(?:i)?tive|negative)", re.IGNORECASE)
#: Movement words (stems after :func:`collabsim.domain.words.stem`).
UP_WORDS = wordset("higher more increase increas greater larger rise rais grow grew enhanc "
                     "boost improv bigger exce elevat enhance improve raise elevate exceed")
DOWN_WORDS = wordset("lower less fewer decrease decreas decline declin reduc smaller drop "
                       "diminish fall fell shrink reduce diminishe lowere")
_NOT_MOVEMENT = re.compile(r"\b(?:more|less)\s+(?:pronounced|than|so|or|important|influential)\b",
                           re.IGNORECASE)
#: The tag of a text denying that a variable is the strongest ("not the most influential").
NOT_STRONGEST = "not strongest"
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE)) for name, pattern in (
        ("linear", r"\blinear(?:ly)?\b(?!\s+combination)"),
        ("quadratic", r"\bquadratic(?:ally)?\b|\bsquared?\b"),
        ("cubic", r"\bcub(?:ic|ed|e)\b"),
        ("polynomial", r"\bpolynomial(?:ly)?\b"),
        ("exponential", r"\bexponential(?:ly)?\b"),
        ("logarithmic", r"\blog(?:arithm\w*)?\b"),
        ("strongest", r"(?<!not\sthe\s)(?<!not\s)\bmost\s+(?:influential|important|impactful|"
                      r"significant)\b|(?<!not\sthe\s)(?<!not\s)\bstrongest\b"),
        ("stronger", r"\bmore\s+pronounced\b|\bstronger\b"),
        (NOT_STRONGEST, r"\bnot\s+(?:the\s+)?(?:most\s+(?:influential|important|impactful|"
                        r"significant)\b|strongest\b)"),
    )
)
#: Population words -> canonical context item.
POPULATION: dict[str, str] = {
    "men": "male", "man": "male", "male": "male", "males": "male", "boys": "male",
    "women": "female", "woman": "female", "female": "female", "females": "female",
    "girls": "female", "black": "black", "african american": "black",
    "african americans": "black", "hispanic": "hispanic", "hispanics": "hispanic",
    "latino": "hispanic", "latinos": "hispanic", "white": "white", "whites": "white",
    "non-black non-hispanic": "white", "asian": "asian", "asians": "asian",
    "children": "children", "adults": "adults",
    "developing": "developing", "developed": "developed", "low-income": "low income",
    "high-income": "high income", "low income": "low income", "high income": "high income",
    "rural": "rural", "urban": "urban", "married": "married", "unmarried": "unmarried",
}
_POPULATION_RE = re.compile(
    r"\b(" + "|".join(sorted((re.escape(k) for k in POPULATION), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
_PLACE = re.compile(
    r"\b(?i:in|among|across|within|outside(?:\s+of)?|inside|throughout)\s+(?i:the\s+)?"
    r"(?i:(?:ancient|modern|rural|urban|northern|southern|eastern|western|central)\s+)?"
    r"((?:[A-Z][\w-]*)(?:\s+[A-Z][\w-]*)*)"
)
_PLACE_SKIP = frozenset(POPULATION) | {"bmi", "gdp", "gni"}
_CONTROL = re.compile(
    r"\b(?:controlling\s+for|control(?:led)?\s+for|adjusting\s+for|adjusted\s+for|"
    r"accounting\s+for|after\s+considering|taking\s+into\s+account)\s+(.+?)(?=[.;)]|,\s|\s+"
    r"(?:is|are|was|were|has|have|shows?|the|with)\s|$)"
    r"|\bholding\s+(.+?)\s+constant\b"
    r"|\bwhen\s+(.+?)\s+(?:is|are)\s+(?:considered|controlled|included|held\s+constant)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class StatClaim:
    """What a statistical hypothesis states besides its variables.

    Attributes:
        direction: Subset of ``positive``, ``negative``, ``null``.
        significance: Subset of ``significant``, ``not significant``.
        numbers: Stated numbers ``(absolute value, decimals written)``; a percentage is
            read as a fraction (``20%`` -> ``(0.2, 2)``).
        shapes: Shape and comparison tags.
        population: Context items: population words, places and data years.
        controls: Stems of the words of the controls named.
        words: Stems of every word of the text.
    """

    direction: frozenset[str]
    significance: frozenset[str]
    numbers: tuple[tuple[float, int], ...]
    shapes: frozenset[str]
    population: frozenset[str]
    controls: frozenset[str]
    words: frozenset[str] = frozenset()


def _float(text: str) -> float | None:
    try:
        return float(text.replace("−", "-").replace(",", ""))
    except ValueError:
        return None


#: What ends a sentence or a ``;``-clause (a decimal point does not).
SENTENCE_END = re.compile(r"(?<!\d)[.;](?!\d)|\.(?=\s)")


def sentences(text: str) -> list[str]:
    """Sentences and ``;``-clauses of a text (a decimal point does not end one)."""
    return [s for s in SENTENCE_END.split(text) if s.strip()]


def direction_of(text: str) -> frozenset[str]:
    """The direction set of a text (see the module docstring)."""
    out: set[str] = set()
    for sentence in sentences(text):
        out |= _sentence_direction(sentence)
    return frozenset(out)


def _sentence_direction(sentence: str) -> set[str]:
    if _NULL.search(sentence):
        return {"null"}
    cleaned = _NEGATED_POLARITY.sub(" ", sentence)
    explicit = ({"positive"} if _POSITIVE.search(cleaned) else set()) | (
        {"negative"} if _NEGATIVE.search(cleaned) else set())
    if explicit:
        return explicit
    moves = movement_words(sentence)
    if not moves:
        return set()
    kinds = {kind for _, _, kind in moves}
    if len(moves) >= 2:
        return {"positive"} if len(kinds) == 1 else {"negative"}
    return {"positive"} if kinds == {"up"} else {"negative"}


def movement_words(sentence: str) -> list[tuple[int, int, str]]:
    """Movement words of a sentence: ``(start, end, "up"|"down")``, in order."""
    blocked = [(m.start(), m.end()) for m in _NOT_MOVEMENT.finditer(sentence)]
    out: list[tuple[int, int, str]] = []
    for m in re.finditer(r"[A-Za-z]+", sentence):
        if any(a <= m.start() < b for a, b in blocked):
            continue
        s = stem(m.group())
        kind = "up" if s in UP_WORDS else "down" if s in DOWN_WORDS else None
        if kind:
            out.append((m.start(), m.end(), kind))
    return out


def p_values(text: str) -> list[float]:
    """p-values stated in a text."""
    return [v for m in _P_VALUE.finditer(text) if (v := _float(m.group(1))) is not None]


def significance_of(text: str) -> frozenset[str]:
    """The significance set of a text (words and p-values)."""
    out: set[str] = set()
    if _NOT_SIG.search(text):
        out.add("not significant")
    stripped = _NOT_SIG.sub(" ", text)
    if _SIG.search(stripped):
        out.add("significant")
    for p in p_values(text):
        out.add("significant" if p <= SIG_LEVEL else "not significant")
    return frozenset(out)


def data_years(text: str) -> set[str]:
    """Data years named as context ("for 1989 data", "in 1989")."""
    return {m.group(1) or m.group(2) for m in _DATA_YEAR.finditer(text)}


#: An interval whose unit is written once, after its upper end: "5.5-14.0%", "2 to 5 %".
_PERCENT_RANGE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:-|–|−|to)\s*\d+(?:\.\d+)?"
                            r"(?:\s*%|\s*percent\b)")


def numbers_of(text: str) -> tuple[tuple[float, int], ...]:
    """Stated numbers ``(absolute value, decimals written)``, without p-values and data
    years; percentages as fractions (both ends of an interval "5.5-14.0%")."""
    blanked = _P_VALUE.sub(lambda m: " " * len(m.group()), text)
    blanked = _DATA_YEAR.sub(lambda m: " " * len(m.group()), blanked)
    percent_at = {m.start(1) for m in _PERCENT_RANGE.finditer(blanked)}
    out: list[tuple[float, int]] = []
    for m in _NUMBER.finditer(blanked):
        value = _float(m.group(1))
        if value is None:
            continue
        if m.start(1) in percent_at and not m.group(2):
            mantissa = m.group(1).split(".")
            decimals = len(mantissa[1]) if len(mantissa) > 1 else 0
            out.append((abs(value) / 100.0, decimals + 2))
            continue
        mantissa = re.split(r"[eE]", m.group(1))[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exponent = re.search(r"[eE]([-−+]?\d+)", m.group(1))
        if exponent:
            decimals -= int(exponent.group(1).replace("−", "-"))
        if m.group(2):
            value, decimals = value / 100.0, decimals + 2
        out.append((abs(value), max(decimals, 0)))
    return tuple(out)


#: Pairs of population items that together name no subgroup ("classified as female or male").
COMPLEMENTS: tuple[frozenset[str], ...] = tuple(frozenset(p) for p in (
    ("male", "female"), ("developing", "developed"), ("rural", "urban"),
    ("children", "adults"), ("married", "unmarried"), ("low income", "high income")))
#: Words of a control phrase that name no variable.
_CONTROL_NOISE = wordset("effect impact influence factor factors combin combined determin "
                         "difference other variable variables all these those various")


def population_of(text: str) -> frozenset[str]:
    """Population words, places and data years named in a text (both items of a
    complementary pair such as men and women together name no subgroup and are dropped)."""
    items = {POPULATION[m.group(1).lower()] for m in _POPULATION_RE.finditer(text)
             if not (m.group(1).isupper() and len(m.group(1)) > 1)}
    for pair in COMPLEMENTS:
        if pair <= items:
            items -= pair
    for m in _PLACE.finditer(text):
        words = [w for w in m.group(1).split() if w.lower() not in _PLACE_SKIP]
        if words and len(words) <= 4:
            items.add("place:" + " ".join(w.lower() for w in words))
    items |= {f"year:{y}" for y in data_years(text)}
    return frozenset(items)


def control_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the control phrases of a text ("controlling for X": X)."""
    out = []
    for m in _CONTROL.finditer(text):
        group = next(i for i in range(1, 4) if m.group(i))
        out.append((m.start(group), m.end(group)))
    return out


#: A row filter written out: "for rows with area type == 2", "where sector_code >= 3",
#: "respondents with age > 65" (a comparison of a column with a value restricting the rows).
_FILTER = re.compile(
    r"\b(?:(?:rows?|observations?|records?|cases?|respondents?|participants?|individuals?|"
    r"subjects?|those|units?)\s+(?:with|where|whose|having|in\s+which|for\s+which)|where)\s+"
    r"(?P<what>[A-Za-z][\w\s-]{0,60}?)\s*(?:==|!=|>=|<=|≥|≤|=|>|<)\s*[-\w.]+"
    r"(?:\s*,\s*(?:and\s+)?[A-Za-z][\w\s-]{0,60}?\s*(?:==|!=|>=|<=|≥|≤|=|>|<)\s*[-\w.]+)*"
    r"|(?P<code>[A-Za-z][\w-]*(?:\s+(?!(?:for|with|where|in|among|of|and|or|rows?|is|are)\b)"
    r"[A-Za-z][\w-]*){0,4}?)\s*(?:==|!=)\s*[-\w.]+")
_NOT_FILTER_LEAD = re.compile(r"^(?:is|are|was|were|be|the|a|an)\b", re.IGNORECASE)


def filter_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the row filters a text writes out (their columns are context,
    not variables): a clause "rows with / where / respondents with <column> <op> <value>"
    restricting the rows, or any "<column> == <value>" comparison. A bare "where X = 1"
    after a difference ("wage is lower where union = 1") is a group contrast, a variable."""
    out = []
    for m in _FILTER.finditer(text):
        if m.group("what") is not None:
            lead = text[max(0, m.start() - 12):m.start()].lower()
            if m.group(0).lower().startswith("where") and not re.search(
                    r"\b(?:for|in|among|only)\s*$", lead):
                continue
            out.append((m.start("what"), m.end()))
        elif not _NOT_FILTER_LEAD.match(m.group("code")):
            out.append((m.start("code"), m.end()))
    return out


def controls_of(text: str) -> frozenset[str]:
    """Stems of the content words of the controls a text names."""
    out: set[str] = set()
    for m in _CONTROL.finditer(text):
        phrase = next(g for g in m.groups() if g)
        out |= {stem(w) for w in re.findall(r"[A-Za-z]+", phrase)
                if w.lower() not in STOPWORDS and len(w) > 1}
    return frozenset(out - GENERIC_WORDS - _CONTROL_NOISE)


def word_stems(text: str) -> frozenset[str]:
    """Stems of every word of a text."""
    return frozenset(stem(w) for w in re.findall(r"[A-Za-z]+", text))


def read_claim(text: str) -> StatClaim:
    """Read the relation and context parts of a statistical hypothesis."""
    return StatClaim(
        direction=direction_of(text),
        significance=significance_of(text),
        numbers=numbers_of(text),
        shapes=frozenset(name for name, pat in _SHAPES if pat.search(text)),
        population=population_of(text),
        controls=controls_of(text),
        words=word_stems(text),
    )
