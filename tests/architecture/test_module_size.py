"""Module size limits of the code style: engine modules <= 300 lines, every module <= 600."""

from __future__ import annotations

from pathlib import Path

import collabsim
import collabsim.envs

PACKAGE = Path(collabsim.__file__).parent
ENGINE = PACKAGE / "session"


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_engine_modules_stay_within_300_lines() -> None:
    too_long = {p.name: _lines(p) for p in ENGINE.glob("*.py") if _lines(p) > 300}
    assert not too_long, f"split these session modules (one concept each): {too_long}"


def test_no_module_grows_past_600_lines() -> None:
    roots = (PACKAGE, Path(collabsim.envs.__file__).parent)
    too_long = {str(p.relative_to(root.parent)): n
                for root in roots for p in root.rglob("*.py") if (n := _lines(p)) > 600}
    assert not too_long, f"split these modules (one concept each, ~600 lines at most): {too_long}"
