"""The domain vocabulary is defined once: no copy of it outside ``collabsim.domain``.

Package data (``collabsim/data``: reference-workflow evidence code, which is part of each
reference's definition) is not library code and is not scanned.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import collabsim

PACKAGE = Path(collabsim.__file__).resolve().parent
DOMAIN = PACKAGE / "domain"

#: What may only be written in the domain package (a regex over source lines).
DEFINITIONS = {
    "decimal-comma CSV reading": r"decimal\s*=\s*['\"],",
    "encoding fallback": r"decode\(\s*['\"]cp1252",
    "year rendering": r"def\s+year_text\b",
    "thresholds": r"^\s*(?:THRESHOLD|SUSTAIN_BINS|PLATEAU_TOLERANCE|DEFAULT_TOLERANCE_YEARS)\s*=",
    "rise/fall word lists": r"increas\\\\?w\*|declin\\\\?w\*|decreas\\\\?w\*",
    "variable synonyms": r"daggers\?|sickles\?|r?['\"]ZDolch['\"]",
    "ordinal words": r"['\"]first['\"]\s*,\s*2\s*:|2\s*:\s*['\"]second['\"]",
    "time-expression patterns": r"BCE\|BC\|CE\|AD",
    "gap-filled suffix": r"['\"]_inter['\"]|\}_inter['\"]",
}


def _library_sources() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py")
            if DOMAIN not in p.parents and (PACKAGE / "data") not in p.parents]


@pytest.mark.parametrize("what", sorted(DEFINITIONS))
def test_defined_only_in_the_domain_package(what: str) -> None:
    pattern = re.compile(DEFINITIONS[what], re.MULTILINE)
    assert any(pattern.search(p.read_text(encoding="utf-8")) for p in DOMAIN.glob("*.py")), (
        f"the pattern for {what} no longer finds its definition; update this test")
    copies = [str(p.relative_to(PACKAGE)) for p in _library_sources()
              if pattern.search(p.read_text(encoding="utf-8"))]
    assert copies == [], f"{what} defined outside collabsim.domain: {copies}"
