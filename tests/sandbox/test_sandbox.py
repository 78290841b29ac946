"""Acceptance tests of the Sandbox: notebook behaviour, limits, recovery and clean-up."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from sandbox_helpers import FAST, descendants, gone

from collabsim.sandbox import Sandbox, SandboxLimits, shutdown_zygote, zygote_pid


def test_namespace_persists_across_cells_and_last_expression_is_echoed() -> None:
    with Sandbox([], FAST) as sb:
        assert sb.execute("x = 41").status == "ok"
        result = sb.execute("x += 1\nx")
        assert result.status == "ok"
        assert result.output == "42\n"
        assert result.error is None and not result.truncated
        assert sb.execute("print(type(pd).__name__, np.__name__)").output == "module numpy\n"


def test_reads_task_csv_by_base_name_and_writes_inside_workdir(task_csv: Path) -> None:
    original = task_csv.read_text()
    with Sandbox([task_csv], FAST) as sb:
        result = sb.execute(
            "df = pd.read_csv('artifacts.csv')\nprint(df.loc[df['count'].idxmax(), 'year'])"
        )
        assert result.status == "ok", result.error
        assert result.output.strip() == "-2100"
        result = sb.execute(
            "df.assign(double=df['count'] * 2).to_csv('derived.csv', index=False)\n"
            "print(pd.read_csv('derived.csv')['double'].sum())\n"
            "import os\nprint(os.getcwd())"
        )
        assert result.status == "ok", result.error
        total, cwd = result.output.split()
        assert total == "64"
        assert Path(cwd) == sb.workdir
        assert (sb.workdir / "derived.csv").is_file()
        # changing the task file inside the sandbox never touches the original
        sb.execute(
            "import os\nos.chmod('artifacts.csv', 0o644)\nopen('artifacts.csv', 'w').write('x')"
        )
    assert task_csv.read_text() == original


def test_python_errors_give_short_traceback_without_internals() -> None:
    with Sandbox([], FAST) as sb:
        result = sb.execute("def f():\n    return 1 / 0\nf()")
        assert result.status == "error"
        assert result.error is not None
        assert result.error.splitlines()[-1] == "ZeroDivisionError: division by zero"
        assert "return 1 / 0" in result.error
        assert "collabsim" not in result.error
        syntax = sb.execute("def broken(:\n  pass")
        assert syntax.status == "error" and "SyntaxError" in (syntax.error or "")
        assert sb.execute("print('still fine')").output == "still fine\n"


def test_output_is_truncated_keeping_head_and_tail() -> None:
    limits = SandboxLimits(wall_seconds=5, cpu_seconds=5, memory_mb=512, output_chars=200)
    with Sandbox([], limits) as sb:
        result = sb.execute("for i in range(10000):\n    print(f'line {i}')")
        assert result.status == "ok"
        assert result.truncated
        assert result.output.startswith("line 0\nline 1\n")
        assert result.output.rstrip().endswith("line 9999")
        assert "truncated" in result.output
        assert len(result.output) < 200 + 100
        # a single gigantic print is capped without copying it into the output
        big = sb.execute("print('x' * 50_000_000)")
        assert big.status == "ok" and big.truncated and len(big.output) < 300
        short = sb.execute("print('short')")
        assert short.output == "short\n" and not short.truncated


def test_infinite_loop_times_out_and_sandbox_stays_usable() -> None:
    limits = SandboxLimits(wall_seconds=1.0, cpu_seconds=30, memory_mb=512)
    with Sandbox([], limits) as sb:
        sb.execute("kept = 'yes'")
        start = time.monotonic()
        result = sb.execute("while True: pass")
        assert result.status == "timeout"
        assert time.monotonic() - start < 1.0 + 1.5
        assert "wall-clock" in (result.error or "")
        # the soft interrupt keeps the namespace
        assert sb.execute("print(kept)").output == "yes\n"


def test_cpu_bound_cell_hits_cpu_limit() -> None:
    limits = SandboxLimits(wall_seconds=10.0, cpu_seconds=0.5, memory_mb=512)
    with Sandbox([], limits) as sb:
        start = time.monotonic()
        result = sb.execute("n = 0\nwhile True:\n    n += 1")
        assert result.status == "cpu_limit"
        assert time.monotonic() - start < 8.0
        assert sb.execute("print(n > 0)").output == "True\n"


@pytest.mark.slow
def test_cpu_burn_in_native_code_is_stopped_by_the_rlimit_backstop() -> None:
    """``sum(range(...))`` never returns to the interpreter, so only the kernel can stop it."""
    limits = SandboxLimits(wall_seconds=20.0, cpu_seconds=0.5, memory_mb=512)
    with Sandbox([], limits) as sb:
        start = time.monotonic()
        result = sb.execute("sum(range(10**13))")
        assert result.status == "cpu_limit", result
        assert "restarted" in (result.error or "")
        assert time.monotonic() - start < 10.0
        assert sb.execute("print('next')").output == "next\n"


def test_cell_ignoring_interrupts_is_killed_and_worker_restarts() -> None:
    limits = SandboxLimits(wall_seconds=1.0, cpu_seconds=30, memory_mb=512)
    with Sandbox([], limits) as sb:
        sb.execute("kept = 1")
        first_pid = sb.pid
        stubborn = textwrap.dedent(
            """
            import time
            while True:
                try:
                    time.sleep(5)
                except BaseException:
                    pass
            """
        )
        start = time.monotonic()
        result = sb.execute(stubborn)
        assert result.status == "timeout"
        assert time.monotonic() - start < 1.0 + 2.0
        assert "restarted" in (result.error or "")
        assert first_pid is not None and gone(first_pid)
        after = sb.execute("print('kept' in globals(), round(np.pi, 2))")
        assert after.status == "ok"
        assert after.output == "False 3.14\n"


@pytest.mark.parametrize(
    "code",
    ["x = bytearray(20 * 1024**3)", "a = np.ones(20 * 1024**3 // 8)", "b = np.ones(80 * 2**20)"],
)
def test_huge_allocation_hits_memory_limit(code: str) -> None:
    with Sandbox([], FAST) as sb:
        start = time.monotonic()
        result = sb.execute(code)
        assert result.status == "memory_limit", result
        assert "MemoryError" in (result.error or "")
        assert time.monotonic() - start < FAST.wall_seconds + 1.0
        ok = sb.execute("small = np.ones(10**6)\nprint(small.sum())")
        assert ok.status == "ok" and ok.output == "1000000.0\n"


def test_file_size_limit() -> None:
    with Sandbox([], FAST) as sb:
        result = sb.execute("open('big.bin', 'wb').write(b'x' * (6 * 2**20))")
        assert result.status == "error"
        assert "File too large" in (result.error or "")
        assert sb.execute("print(open('ok.txt', 'w').write('abc'))").output == "3\n"


@pytest.mark.parametrize("code", ["import os; os._exit(3)", "import os; os.abort()"])
def test_crash_is_reported_then_recovers(code: str) -> None:
    with Sandbox([], FAST) as sb:
        sb.execute("lost = 1")
        pid = sb.pid
        result = sb.execute(code)
        assert result.status == "crashed"
        assert "restarted" in (result.error or "")
        assert pid is not None and gone(pid)
        after = sb.execute("print('lost' in globals())")
        assert after.status == "ok" and after.output == "False\n"
        assert sb.pid not in (None, pid)


def test_close_is_idempotent_kills_worker_and_removes_workdir(task_csv: Path) -> None:
    sb = Sandbox([task_csv], FAST)
    assert sb.execute("print(1)").output == "1\n"
    pid, workdir = sb.pid, sb.workdir
    assert pid is not None and workdir.is_dir()
    sb.close()
    sb.close()
    assert sb.closed
    assert gone(pid, timeout=0.5)
    assert not workdir.exists()
    with pytest.raises(RuntimeError):
        sb.execute("print(1)")


def test_garbage_collected_sandbox_releases_its_worker() -> None:
    sb = Sandbox([], FAST)
    pid, workdir = sb.pid, sb.workdir
    del sb
    gc.collect()
    assert pid is not None and gone(pid)
    assert not workdir.exists()


def test_missing_file_and_duplicate_names_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Sandbox([tmp_path / "missing.csv"], FAST)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "t.csv").write_text("x\n1\n")
    (tmp_path / "b" / "t.csv").write_text("x\n2\n")
    with pytest.raises(ValueError, match="t.csv"):
        Sandbox([tmp_path / "a" / "t.csv", tmp_path / "b" / "t.csv"], FAST)


def test_concurrent_sandboxes_from_threads(task_csv: Path) -> None:
    results: dict[int, str] = {}
    errors: list[BaseException] = []

    def session(i: int) -> None:
        try:
            with Sandbox([task_csv], FAST) as sb:
                sb.execute(f"k = {i}")
                sb.execute("df = pd.read_csv('artifacts.csv')")
                results[i] = sb.execute("print(k * int(df['count'].sum()))").output
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=session, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    assert results == {i: f"{i * 32}\n" for i in range(6)}


def test_no_process_survives_closed_sandboxes_or_zygote_shutdown() -> None:
    me = os.getpid()
    with Sandbox([], FAST) as first:
        first.execute("x = 1")
        zygote = zygote_pid()
    assert zygote is not None
    unrelated = descendants(me) - {zygote} - descendants(zygote)
    pids = []
    for _ in range(3):
        with Sandbox([], FAST) as sb:
            sb.execute("x = 1")
            pids.append(sb.pid)
    assert all(pid is not None and gone(pid, timeout=0.5) for pid in pids)
    assert descendants(zygote) == set()
    assert descendants(me) - unrelated == {zygote}
    live = Sandbox([], FAST)
    worker = live.pid
    assert worker is not None
    shutdown_zygote()  # also takes live workers down
    assert gone(worker) and gone(zygote)
    assert descendants(me) - unrelated == set()
    # the orphaned sandbox reports the loss once, then works with a new zygote
    lost = live.execute("print(1)")
    assert lost.status == "crashed" and "restarted" in (lost.error or "")
    assert live.execute("print('back')").output == "back\n"
    assert zygote_pid() not in (None, zygote)
    live.close()


def test_sandbox_survives_a_killed_zygote() -> None:
    with Sandbox([], FAST) as sb:
        sb.execute("x = 1")
        zygote, worker = zygote_pid(), sb.pid
        assert zygote is not None and worker is not None
        os.kill(zygote, signal.SIGKILL)
        assert gone(worker, timeout=5.0)  # PR_SET_PDEATHSIG
        lost = sb.execute("print(x)")
        assert lost.status == "crashed"
        again = sb.execute("print('fresh')")
        assert again.status == "ok" and again.output == "fresh\n"


def test_odd_cells_never_raise() -> None:
    with Sandbox([], FAST) as sb:
        exits = sb.execute("import sys\nsys.exit(2)")
        assert exits.status == "error" and "SystemExit" in (exits.error or "")
        assert sb.execute("exit()").status == "error"
        assert sb.execute("input()").status == "error"
        surrogate = sb.execute("print('\\udcff')")
        assert surrogate.status == "ok" and surrogate.output == "\udcff\n"
        assert sb.execute("print('ünï ✓')").output == "ünï ✓\n"
        huge = sb.execute("x = 1\n" * 200_000)
        assert huge.status == "error" and "too long" in (huge.error or "")
        assert sb.execute("").status == "ok"
        assert sb.execute("print('still here')").output == "still here\n"


@pytest.mark.slow
def test_zygote_and_workers_die_with_the_parent_process(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import os, sys, time
        from collabsim.sandbox import Sandbox, zygote_pid
        sb = Sandbox([])
        sb.execute("x = 1")
        print(zygote_pid(), sb.pid, sb.workdir, flush=True)
        time.sleep(60)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        assert proc.stdout is not None
        zygote, worker, workdir = proc.stdout.readline().split()
    finally:
        proc.kill()
        proc.wait()
    assert gone(int(zygote), timeout=5.0)
    assert gone(int(worker), timeout=5.0)
    deadline = time.monotonic() + 5.0
    while Path(workdir).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(workdir).exists()


def test_works_when_the_parent_has_more_than_1024_open_files() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4096 if hard == resource.RLIM_INFINITY else min(4096, hard)
    assert wanted > 1200, "the test needs a file limit above 1200"
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        shutdown_zygote()  # the new zygote inherits a control fd numbered above 1024
        limits = SandboxLimits(wall_seconds=1.0, cpu_seconds=30, memory_mb=512)
        with Sandbox([], limits) as sb:
            assert sb.execute("print(1)").output == "1\n"
            stuck = "import time\nwhile True:\n    try:\n        time.sleep(5)\n    except BaseException:\n        pass"
            assert sb.execute(stuck).status == "timeout"
            assert sb.execute("print(2)").output == "2\n"
    finally:
        for fd in fds:
            os.close(fd)
        shutdown_zygote()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
