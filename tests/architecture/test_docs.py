"""The README stays a few screens long and is the way into docs/; every relative link resolves.

``.ci/run`` runs the README's test command verbatim, so the two quickstart commands are part
of the contract too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
INSTALL_AND_RUN = "pip install -e . && collabsim run"
TEST_COMMAND = "pip install -e '.[test]' && python -m pytest -q"
# docs/pending/ holds other branches' text waiting to be placed; it is not a page yet
PAGES = sorted(p for p in (REPO / "docs").glob("*.md"))
MARKDOWN = [README, *PAGES, REPO / "benchmarks" / "README.md", REPO / "experiments" / "README.md"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return LINK.findall(text)


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {_anchor(m) for m in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def test_readme_fits_on_a_few_screens() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_readme_keeps_the_two_commands_and_ci_runs_the_test_command() -> None:
    readme = README.read_text(encoding="utf-8")
    assert INSTALL_AND_RUN in readme and TEST_COMMAND in readme
    assert TEST_COMMAND in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(REPO / link.split("#")[0]).resolve() for link in _links(README)}
    assert PAGES and [p.name for p in PAGES if p.resolve() not in linked] == []


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(path: Path) -> None:
    broken = []
    for link in _links(path):
        if re.match(r"^[a-z]+:", link):
            continue  # http(s), mailto: not checked offline
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        outside = "shared" in Path(target).parts or not file.exists()
        if outside or (anchor and file.suffix == ".md" and anchor not in _anchors(file)):
            broken.append(link)
    assert broken == []


def test_nothing_points_outside_the_repository_for_the_design() -> None:
    offenders = [str(p.relative_to(REPO)) for p in [*MARKDOWN, *REPO.glob("collabsim/**/*.py"),
                                                    *REPO.glob("envs/*.py")]
                 if "shared/DESIGN" in p.read_text(encoding="utf-8")]
    assert offenders == []
