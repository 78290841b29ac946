"""The env's cell cache never answers a collaborator's (isolated) cell with an output that
the session's shared worker produced."""

from __future__ import annotations

from pathlib import Path

from helpers.forgery import TAKE_OVER_REPLIES

from collabsim.envs.cell_cache import CachingExecutorFactory
from collabsim.participants.cells import COMPUTE_MARK
from collabsim.sandbox import SandboxLimits

COMPUTE = (
    f"{COMPUTE_MARK}\nimport pandas as pd\n"
    "print('RESULT year=%d' % pd.read_csv('t.csv')['year'].max())"
)


def test_a_forged_output_cached_from_the_shared_worker_never_answers_an_isolated_cell(
    tmp_path: Path,
) -> None:
    table = tmp_path / "t.csv"
    table.write_text("year\n-2300\n-2100\n")
    factory = CachingExecutorFactory()
    limits = SandboxLimits(wall_seconds=20.0)
    session = factory([table], limits)
    try:
        assert session.execute(TAKE_OVER_REPLIES).status == "ok"
        assert "FORGED" in session.execute(COMPUTE).output  # cached for the shared worker
        checked = session.execute_isolated(COMPUTE)
        assert checked.output == "RESULT year=-2100\n", checked
    finally:
        session.close()
    later = factory([table], limits)  # the next episode: its isolated cell hits the cache
    try:
        assert later.execute_isolated(COMPUTE).output == "RESULT year=-2100\n"
    finally:
        later.close()
