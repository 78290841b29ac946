"""SandboxPool: sessions of one owner take turns on reset workers."""

from __future__ import annotations

from pathlib import Path

from sandbox_helpers import FAST

from collabsim.sandbox import SandboxLimits, SandboxPool


def test_a_handed_back_sandbox_serves_the_next_session_clean(
    task_csv: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.csv"
    other.write_text("a\n1\n")
    with SandboxPool(max_idle=1) as pool:
        first = pool([task_csv], FAST)
        first.execute("import os\nx = os.getpid()\nopen('left.txt', 'w').write('1')")
        pid = first.sandbox.pid
        first.close()
        assert first.closed
        second = pool([other], FAST)
        result = second.execute("import os\nprint(os.getpid(), sorted(os.listdir('.')), 'x' in dir())")
        assert result.output == f"{pid} ['other.csv'] False\n"
        second.close()


def test_sessions_in_flight_get_separate_workers_and_limits_must_match(task_csv: Path) -> None:
    with SandboxPool(max_idle=2) as pool:
        a, b = pool([task_csv], FAST), pool([task_csv], FAST)
        assert a.sandbox is not b.sandbox
        box_a = a.sandbox
        a.close()
        b.close()
        other_limits = SandboxLimits(wall_seconds=7.0)
        c = pool([task_csv], other_limits)
        assert c.sandbox.limits == other_limits and c.sandbox is not box_a
        c.close()


def test_a_worker_is_replaced_after_max_uses_and_close_ends_idle_ones(task_csv: Path) -> None:
    pool = SandboxPool(max_idle=1, max_uses=2)
    boxes = []
    for _ in range(3):
        lease = pool([task_csv], FAST)
        boxes.append(lease.sandbox)
        lease.execute("print(1)")
        lease.close()
    assert boxes[0] is boxes[1] and boxes[2] is not boxes[0] and boxes[0].closed
    pool.close()
    assert boxes[2].closed
