"""Interpretable cues about what an AI output does and what the request asked for.

The cue lists were written from the Kolab task definitions (what an AI output can do for a
professional: explain, recommend, decline, produce an artifact, ask back) and from the
adoption labels' definitions (a response can take the output as is, revise it, or discard
it), before any label was looked at; they were not edited after seeing results. Each cue is
the number of matching word stems in a text, log-scaled, so a long output does not dominate.

Output cues (the AI node's label and detail):

* ``explains``: the output explains, describes, summarises or analyses something;
* ``recommends``: it suggests, recommends or proposes options or next steps;
* ``declines``: it declines, cannot do something, apologises or states a limitation;
* ``artifact``: it produces a concrete artifact (draft, code, table, document, ...);
* ``asks``: it asks the professional a question or for confirmation.

Request cues (the source node's label and detail): ``req_create`` (make something),
``req_review`` (check or give feedback on the professional's own work), ``req_explain``
(explain or answer a question), ``req_revise`` (change, fix or redo an earlier output).
"""

from __future__ import annotations

import functools
import math
import re

OUTPUT_CUES: dict[str, tuple[str, ...]] = {
    "explains": (
        "explain", "describ", "clarif", "summar", "overview", "walk through", "walks through",
        "break down", "breaks down", "interpret", "analy", "identif", "assess", "evaluat",
        "compar", "answer", "insight", "reason",
    ),
    "recommends": (
        "recommend", "suggest", "propos", "advis", "advice", "should", "consider", "option",
        "idea", "tip", "next step", "strateg", "approach",
    ),
    "declines": (
        "cannot", "can't", "can not", "unable", "declin", "refus", "apolog", "not able",
        "no access", "doesn't have access", "does not have access", "limitation", "won't",
        "not possible",
    ),
    "artifact": (
        "draft", "write", "writes", "wrote", "written", "generat", "creat", "produc", "build",
        "code", "script", "formula", "table", "spreadsheet", "document", "template", "email",
        "letter", "slide", "image", "chart", "plot", "diagram", "rewrit", "version", "translat",
        "list of", "file",
    ),
    "asks": ("asks", "ask ", "question", "confirm", "clarifying", "would you like"),
}
REQUEST_CUES: dict[str, tuple[str, ...]] = {
    "req_create": (
        "write", "draft", "generat", "creat", "make", "produc", "build", "design", "compose",
    ),
    "req_review": ("review", "feedback", "check", "critique", "evaluat", "proofread", "assess"),
    "req_explain": ("explain", "how ", "why ", "what ", "question", "understand", "help me"),
    "req_revise": (
        "revis", "fix", "chang", "updat", "edit", "again", "redo", "instead", "correct",
        "shorten", "adjust", "refine", "modif",
    ),
}
CUE_NAMES: tuple[str, ...] = tuple(OUTPUT_CUES) + tuple(REQUEST_CUES)

_SPACE = re.compile(r"\s+")


def _count(text: str, stems: tuple[str, ...]) -> int:
    # Stems match at a word start so "reason" does not fire inside "treason".
    return sum(len(re.findall(r"(?<![a-z])" + re.escape(stem), text)) for stem in stems)


def _normalise(text: str) -> str:
    return _SPACE.sub(" ", text.lower().replace("’", "'")) + " "


def cue_counts(output_text: str, request_text: str = "") -> dict[str, float]:
    """Log-scaled cue counts ``log(1 + matches)`` of an output and its request."""
    return dict(zip(CUE_NAMES, _cue_values(output_text, request_text), strict=True))


@functools.lru_cache(maxsize=8192)
def _cue_values(output_text: str, request_text: str) -> tuple[float, ...]:
    """:func:`cue_counts`' values in ``CUE_NAMES`` order, remembered: the Kolab tasks over
    the same windows (1a, 1b, 1b+h, 1d) ask for the same texts' cues."""
    out = _normalise(output_text)
    req = _normalise(request_text)
    feats = [math.log1p(_count(out, stems)) for stems in OUTPUT_CUES.values()]
    feats += [math.log1p(_count(req, stems)) for stems in REQUEST_CUES.values()]
    return tuple(feats)
