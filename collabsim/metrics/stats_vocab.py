"""Which of a task's columns a statistical hypothesis names (the judge's variable reader).

DiscoveryBench counts the variables of two hypotheses with *fuzzy matching, accounting for
paraphrases or slightly different surface forms* (its ``var`` question). This module does
that deterministically through the task's columns:

* every column gives up to two **phrases**: its name split into words (``number_of_trade_
  routes`` -> "number of trade routes", ``HouseSize`` -> "house size") and the head of its
  description ("Rates of Maximum Body Length evolution" -> "maximum body length evolution";
  boilerplate such as "This variable represents the" and everything after the first
  comma, bracket, "which"/"that" or a preposition following the first content words is cut);
* a phrase's **required words** are its content words, lightly stemmed (plural and verb
  endings, "quitting" -> "quit"), without stop words and without generic measure and unit
  words (number, rate, level, score, average, percentage, ...; in a column name also units:
  hours, days, years, k, ...) unless nothing else is left;
* every data file whose columns are years (World Bank indicators; or that lists no columns)
  gives phrases too (its name and the comma/colon-separated parts of its description's
  head: "adjusted savings: education expenditure (percentage of gni)" -> "education
  expenditure"); a table with named columns is named by its columns only;
* a phrase is **mentioned** where all its required words occur within a window of
  ``2 * len(required) + WINDOW_SLACK`` words of the text, in any order ("the rate of body
  elongation evolution", "body elongation evolution rates", "rates of oral gape position
  and relative maxillary length evolution");
* a text may also *describe* a column without naming it: half or more (at least two) of
  the column description's content words occur in it (:meth:`ColumnLexicon.describes`;
  the judge reads a gold's prose that way);
* a description phrase whose words are another column's too ("Percentage of the total
  cosplay events attended" vs "Total number of cosplay events attended") names neither and
  is dropped;
* mentions are taken most required words first (then name phrases before description
  phrases, then the tightest window); a mention whose words all belong to mentions already
  taken is dropped, so "temple proximity" names ``temple_proximity``, not also
  ``number_of_temples``.

A column whose words never occur in a text is simply not named by it: a phrase outside the
columns' vocabulary ("time preference") is not a variable for this reader.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from collabsim.domain.codebook import codes_of
from collabsim.domain.words import STOPWORDS, stem

#: Extra words a mention window may hold besides the required ones.
WINDOW_SLACK = 3
#: Share of a column description's content words a text must hold to describe the column.
DESCRIBED_SHARE = 0.5
#: How many texts' mentions a lexicon keeps (all dropped when full).
MENTION_MEMO = 4096

def wordset(text: str) -> frozenset[str]:
    """The set of space-separated words of a text."""
    return frozenset(text.split())


#: Measure words that do not tell two columns apart; required only when nothing else is left.
GENERIC_WORDS = wordset(
    "number count rate level score total average mean percent percentage share index value "
    "amount degree measure indicator variable unit respondent individual person people "
    "participant data column boolean whether estimated estimate numerical numeric"
)
#: Units written into column names ("sleep_duration_hours", "bonus_earnings_k"): not
#: required by a name's phrase unless nothing else is left (a description's "Years of
#: schooling" still needs its "years").
UNIT_WORDS = wordset("hour minute day week month year k nmol usd")
_BOILERPLATE = re.compile(
    r"^\s*(?:this\s+(?:variable|column|field)\s+(?:represents|stands\s+for|is|indicates|"
    r"measures|contains|records)\s+|(?:a\s+)?(?:boolean|categorical|binary|numeric|numerical)"
    r"\s+variable\s+(?:that|which)\s+(?:indicates?|indicated|equals|records)\s+(?:if\s+|whether\s+)?"
    r"|(?:a\s+)?numer(?:ic|ical)\s+(?:score|measure|value|indicator|rating)\s+(?:representing|"
    r"of|for|indicating|calculating|based\s+on|that\s+\w+)\s+"
    r"|it\s+measures\s+|the\s+|a\s+|an\s+)+",
    re.IGNORECASE,
)
_CUT = re.compile(r"[,;:.()\[\]\n]|\s(?:which|that|who|where|calculated|as\s+estimated|"
                  r"used|computed|defined|indicating|representing|based|calculating|i\.e)\s", re.IGNORECASE)
_PREPOSITIONS = wordset("in within for of across among at by during from on per")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*|\d+(?:\.\d+)?")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@dataclass(frozen=True)
class Token:
    """One word of a text: its stem and character span."""

    stem: str
    start: int
    end: int


def tokens(text: str) -> list[Token]:
    """The text's words (stems with character spans); ``_``/``-`` separate words."""
    return [Token(stem(m.group()), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _name_words(name: str) -> list[str]:
    words: list[str] = []
    for part in re.split(r"[^A-Za-z0-9]+", name):
        words += _CAMEL.findall(part) if not part.isupper() else [part]
    return [w for w in words if w]


def _required(words: Iterable[str], units: bool = False) -> tuple[str, ...]:
    """The stems a phrase requires (``units``: unit words are generic too)."""
    stems = [stem(w) for w in words]
    content = [s for s in stems if s not in STOPWORDS and not s.isdigit()]
    generic = GENERIC_WORDS | UNIT_WORDS if units else GENERIC_WORDS
    specific = [s for s in content if s not in generic]
    return tuple(dict.fromkeys(specific or content))


def _content_stems(text: str) -> frozenset[str]:
    """Stems of a text's content words (no stop words, generic words or numbers)."""
    return frozenset(t.stem for t in tokens(text)
                     if t.stem not in STOPWORDS and t.stem not in GENERIC_WORDS
                     and not t.stem[0].isdigit() and len(t.stem) > 2
                     and t.stem not in ("equal", "otherwise", "if"))


def description_head(description: str) -> str:
    """The naming part of a column description (see the module docstring)."""
    text = _BOILERPLATE.sub("", description.strip())
    cut = _CUT.search(text)
    if cut:
        text = text[: cut.start()]
    words = text.split()
    kept: list[str] = []
    specific = 0
    for w in words:
        low = w.lower()
        if low in _PREPOSITIONS and specific:
            break
        kept.append(w)
        s = stem(w)
        if s not in STOPWORDS and s not in GENERIC_WORDS:
            specific += 1
    return " ".join(kept)


@dataclass(frozen=True)
class Phrase:
    """A phrase naming a column: its wording and the stems a mention requires."""

    column: str
    text: str
    required: tuple[str, ...]


@dataclass(frozen=True)
class Mention:
    """A column named in a text between ``start`` and ``end`` (characters)."""

    column: str
    start: int
    end: int
    size: int


class _Column(Protocol):
    name: str
    description: str


class _Dataset(Protocol):
    name: str
    description: str
    columns: Sequence[_Column]


_DATASET_LEAD = re.compile(r"^\s*(?:this\s+)?(?:data\s*set|table|file)\s+(?:contains|holds|has|"
                           r"provides|includes)\s+(?:information|data|measures)?\s*(?:on|about|"
                           r"of)?\s*", re.IGNORECASE)


def _dataset_phrases(ds: _Dataset, seen: set[tuple[str, tuple[str, ...]]]) -> list[Phrase]:
    """Phrases naming a data file: its file name's words and the parts of its description's
    head (parts made only of generic words are skipped)."""
    name = str(getattr(ds, "name", "") or "")
    stem_name = re.sub(r"\.[A-Za-z0-9]+$", "", name)
    texts = [" ".join(_name_words(stem_name)).lower()]
    head = _DATASET_LEAD.sub("", str(getattr(ds, "description", "") or ""))
    head = re.split(r"\s(?:for|from|in|across|between)\s|\.\s", head, maxsplit=1)[0]
    texts += [part.strip() for part in re.split(r"[:,;()]", head) if part.strip()]
    out: list[Phrase] = []
    for text in texts:
        words = text.split()
        req = _required(words)
        if not req or len(req) > 6 or all(r in GENERIC_WORDS for r in req):
            continue
        if (stem_name, req) in seen:
            continue
        seen.add((stem_name, req))
        out.append(Phrase(stem_name, text, req))
    return out


#: A coding note in a description: "(1 = yes, 0 = no)", "(code 1, 2 or 3)".
_CODING = re.compile(r"\([^()]*(?:=|\bcodes?\b)[^()]*\)", re.IGNORECASE)
_YEAR_NAME = re.compile(r"^\s*\d{4}(?:\s*\[YR\d{4}\])?\s*$")


_YEAR = re.compile(r"^(?:18|19|20)\d\d$")


def _year_names(datasets: Sequence[_Dataset]) -> dict[str, tuple[str, ...]]:
    """Columns told apart only by a year in their names (``x_2004``, ``x_2008``; "Age of
    respondent, 1981" and "..., 1989") -> that year, which their name phrases then require:
    a claim about one survey year does not name the other year's column."""
    by_base: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for ds in datasets:
        for col in ds.columns:
            words = _name_words(col.name.strip())
            found = [w for w in words if _YEAR.match(w)]
            base = _required(words, units=True)
            if len(found) == 1 and base:
                by_base.setdefault(base, []).append((col.name.strip(), found[0]))
    return {name: (year,) for group in by_base.values()
            if len({y for _, y in group}) > 1 for name, year in group}


def _is_wide(ds: _Dataset) -> bool:
    """A table whose columns are years (one indicator a file, as the World Bank tables) or
    that lists no columns: its file names the variable."""
    columns = list(getattr(ds, "columns", ()) or ())
    return not columns or sum(1 for c in columns if _YEAR_NAME.match(c.name)) >= 5


@dataclass(frozen=True)
class ColumnLexicon:
    """The phrases of a task's columns (at most 6 required words a phrase)."""

    phrases: tuple[Phrase, ...]
    described: tuple[tuple[str, frozenset[str]], ...] = ()
    codes: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    _kind: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _seen: dict[str, tuple[Mention, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # 0: a column name's words, 1: anything else (descriptions, data files)
        kinds = tuple(0 if p.text == " ".join(w.lower() for w in _name_words(p.column)) else 1
                      for p in self.phrases)
        object.__setattr__(self, "_kind", kinds)
        # a judge reads the same text several times (parts, sentences, codes): read once
        object.__setattr__(self, "_seen", {})

    @classmethod
    def build(cls, datasets: Sequence[_Dataset] = ()) -> ColumnLexicon:
        """Phrases from every column's name and description head."""
        out: list[Phrase] = []
        described: dict[str, frozenset[str]] = {}
        seen: set[tuple[str, tuple[str, ...]]] = set()
        years = _year_names(datasets)
        for ds in datasets:
            if _is_wide(ds):
                out += _dataset_phrases(ds, seen)
            for col in ds.columns:
                name = col.name.strip()
                if not name:
                    continue
                content = _content_stems(_CODING.sub(" ", col.description or ""))
                if len(content) >= 2:
                    described.setdefault(name, content)
                words = _name_words(name)
                candidates = [(" ".join(w.lower() for w in words),
                               _required(words, units=True) + years.get(name, ()))]
                head = description_head(col.description or "")
                if head:
                    candidates.append((head, _required(head.split())))
                for text, req in candidates:
                    if not req or len(req) > 6 or (name, req) in seen:
                        continue
                    seen.add((name, req))
                    out.append(Phrase(name, text, req))
        owners: dict[tuple[str, ...], set[str]] = {}
        for phrase in out:
            owners.setdefault(tuple(sorted(phrase.required)), set()).add(phrase.column)
        kept = [p for p in out if len(owners[tuple(sorted(p.required))]) == 1
                or p.text == " ".join(w.lower() for w in _name_words(p.column))]
        codes = {c.name.strip(): tuple(book.items()) for ds in reversed(datasets)
                 for c in ds.columns if (book := codes_of(c.description or ""))}
        return cls(tuple(kept), tuple(described.items()), tuple(codes.items()))

    def codebook(self, column: str) -> dict[str, str]:
        """The column's code -> label pairs (:func:`collabsim.domain.codebook.codes_of`)."""
        return dict(dict(self.codes).get(column, ()))

    def describes(self, column: str, text: str) -> bool:
        """True when a text covers at least ``DESCRIBED_SHARE`` of the content words of the
        column's description (and at least two): "savings level did not change" for a
        column described "equals 1 if the respondent's savings level did not change"."""
        content = dict(self.described).get(column)
        if not content:
            return False
        hit = content & {t.stem for t in tokens(text)}
        return len(hit) >= 2 and len(hit) >= DESCRIBED_SHARE * len(content)

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns with at least one phrase, in order."""
        return tuple(dict.fromkeys(p.column for p in self.phrases))

    def phrase_for(self, column: str) -> Phrase | None:
        """The first phrase of a column (its name's words), if any."""
        return next((p for p in self.phrases if p.column == column), None)

    def mentions(self, text: str) -> list[Mention]:
        """Columns named in ``text`` (overlaps resolved, see the module docstring)."""
        found = self._seen.get(text)
        if found is None:
            if len(self._seen) >= MENTION_MEMO:
                self._seen.clear()
            found = self._seen[text] = tuple(self._mentions(text))
        return list(found)

    def _mentions(self, text: str) -> list[Mention]:
        toks = tokens(text)
        present = {t.stem for t in toks}
        hits: list[tuple[int, int, int, int, int, str, frozenset[int]]] = []
        for rank, phrase in enumerate(self.phrases):
            if not present.issuperset(phrase.required):
                continue  # a required word the text lacks: no window (see _windows)
            for positions in _windows(toks, phrase.required):
                lo, hi = min(positions), max(positions)
                hits.append((-len(phrase.required), self._kind[rank], hi - lo, lo, hi,
                             phrase.column, frozenset(positions)))
        hits.sort()
        taken: list[tuple[int, int, str, frozenset[int]]] = []
        covered: set[int] = set()
        for _, _, _, lo, hi, column, pos in hits:
            if pos <= covered:
                continue
            taken.append((lo, hi, column, pos))
            covered |= pos
        return sorted(
            (Mention(col, toks[lo].start, toks[hi].end, len(pos)) for lo, hi, col, pos in taken),
            key=lambda m: (m.start, m.column),
        )

    def variables(self, text: str) -> set[str]:
        """The set of columns a text names."""
        return {m.column for m in self.mentions(text)}


def _windows(toks: Sequence[Token], required: tuple[str, ...]) -> list[list[int]]:
    """Token positions of each non-overlapping tight window holding every required stem."""
    need = set(required)
    limit = 2 * len(required) + WINDOW_SLACK
    found: list[list[int]] = []
    i = 0
    while i < len(toks):
        if toks[i].stem not in need:
            i += 1
            continue
        pos: dict[str, int] = {}
        for j in range(i, min(len(toks), i + limit)):
            s = toks[j].stem
            if s in need and s not in pos:
                pos[s] = j
                if len(pos) == len(need):
                    break
        if len(pos) == len(need):
            found.append(sorted(pos.values()))
            i = max(pos.values()) + 1
        else:
            i += 1
    return found
