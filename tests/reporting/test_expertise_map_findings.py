"""The findings page's expertise-map statements hold: a slice of the map is rerun as a user
runs it (``collabsim run experiment=expertise_map …``, without ``-m``) and the statements the
sweep prints must be exactly the block quoted in ``docs/findings.md``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

FINDINGS = Path(__file__).resolve().parents[2] / "docs" / "findings.md"
BLOCK = re.compile(r"<!-- expertise-map-slice -->\n```text\n(.*?)```", re.S)
# The slice: both knowledge splits x in-area error 0 and 0.5, team DR under default and
# memory against the single agent, the 38 generated tasks, seeds 0-2 (1,368 sessions).
SLICE = ["experiment=expertise_map", "expertise=in_area_0.00,in_area_0.50",
         "team.compositions=[single,DR]", "structure.names=[default,memory]",
         "run.show_sessions=false", "run.progress=false"]


@pytest.mark.slow
def test_the_pages_expertise_map_statements_hold_on_a_rerun_slice(tmp_path: Path) -> None:
    quoted = BLOCK.search(FINDINGS.read_text(encoding="utf-8"))
    assert quoted is not None, "docs/findings.md has no expertise-map-slice block"
    sweep = tmp_path / "sweep"
    done = subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", "run", *SLICE,
         f"hydra.sweep.dir={sweep}", f"tasks.root={tmp_path / 'suite'}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (sweep / "expertise_map.png").stat().st_size > 10_000
    cells = pd.read_csv(sweep / "expertise_map.csv")
    assert len(cells) == 2 * 2 * 2  # knowledge x error x structure, team DR
    assert (sweep / "expertise_map.txt").read_text(encoding="utf-8") == quoted.group(1)
