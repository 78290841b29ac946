"""Sandbox isolation, round 2 (issue 23): IPC, disk quota of unlinked files, forged replies
of score-deciding cells, and what a pooled worker carries into the next session.

Like ``test_hardening``, probes that a cell could run with the audit hook switched off run
both ways: the kernel layers and the parent's own checks must hold without the hook.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from sandbox_helpers import FAST, open_sandbox

from collabsim.sandbox import Sandbox, SandboxLimits, SandboxPool

# -- 7. System V IPC -------------------------------------------------------------------------
_IPC = textwrap.dedent(
    """
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    made = {'shm': libc.shmget(0, 64 << 20, 0o1666), 'msg': libc.msgget(0, 0o1666),
            'sem': libc.semget(0, 1, 0o1666)}
    errno = ctypes.get_errno()
    # on a kernel that let them through, remove them again (IPC_RMID = 0)
    if made['shm'] >= 0: libc.shmctl(made['shm'], 0, None)
    if made['msg'] >= 0: libc.msgctl(made['msg'], 0, None)
    if made['sem'] >= 0: libc.semctl(made['sem'], 0, 0)
    print(made, errno)
    """
)


def test_system_v_ipc_objects_cannot_be_created(sandbox: Sandbox, hook: str) -> None:
    """Shared memory, message queues and semaphores outlive the worker: all refused."""
    result = sandbox.execute(_IPC)
    if hook == "on":  # ctypes' libc is refused by the audit hook already
        assert result.status == "blocked", result
        return
    assert result.status == "ok", result
    assert result.output == "{'shm': -1, 'msg': -1, 'sem': -1} 1\n", result  # EPERM


# -- 8. disk quota: files removed while open -------------------------------------------------
_UNLINKED = textwrap.dedent(
    """
    import os
    kept = []
    for i in range(3):
        f = open(f'gone{i}.bin', 'wb')
        os.unlink(f'gone{i}.bin')
        f.write(b'x' * 2_000_000)
        f.flush()
        kept.append(f)
    print(os.listdir('.'))
    """
)


def test_files_removed_while_open_count_against_the_disk_quota(hook: str) -> None:
    limits = SandboxLimits(wall_seconds=10, cpu_seconds=10, memory_mb=512, file_mb=5, disk_mb=4)
    with open_sandbox(limits, hook) as sb:
        result = sb.execute(_UNLINKED)
        assert result.status == "disk_limit", result
        assert "4 MB" in (result.error or "")
        assert sb.execute("print('fresh')").output == "fresh\n"


def test_unlinked_files_within_the_quota_are_fine() -> None:
    limits = SandboxLimits(wall_seconds=10, cpu_seconds=10, memory_mb=512, file_mb=5, disk_mb=8)
    with Sandbox([], limits) as sb:
        result = sb.execute(_UNLINKED)
        assert result.status == "ok", result
        assert result.output == "[]\n"


# -- 9. pooled reuse: state a session leaves in its worker -----------------------------------
_LEAVE = textwrap.dedent(
    """
    import gc, os, signal, sys

    class Hook:
        def find_spec(self, name, path=None, target=None):
            print('HOOK SAW', name)
            return None

    sys.meta_path.insert(0, Hook())
    os.umask(0)
    sys.setrecursionlimit(60)
    gc.disable()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.displayhook = lambda value: print('DISPLAY LEAK')
    """
)
_STATE = textwrap.dedent(
    """
    import gc, os, signal, sys
    umask = os.umask(0o022); os.umask(umask)
    print(len(sys.meta_path), oct(umask), sys.getrecursionlimit(), gc.isenabled(),
          signal.getsignal(signal.SIGTERM), sys.displayhook is sys.__displayhook__)
    import colorsys
    """
)


def test_a_reset_worker_carries_no_process_state_into_the_next_session(task_csv: Path) -> None:
    with Sandbox([task_csv], FAST) as fresh:
        expected = fresh.execute(_STATE)
    assert expected.status == "ok", expected
    with Sandbox([task_csv], FAST) as sb:
        assert sb.execute(_LEAVE).status == "ok"
        pid = sb.pid
        sb.reset([task_csv])
        assert sb.pid == pid  # all of it could be put back: the worker was kept
        again = sb.execute(_STATE)
        assert again.status == "ok", again
        assert again.output == expected.output
        assert "HOOK SAW" not in again.output


def test_a_worker_holding_a_removed_file_open_is_not_reused(task_csv: Path) -> None:
    """The removed file's space (and content) would pass to the next session: a new worker."""
    with Sandbox([task_csv], FAST) as sb:
        kept = sb.execute(
            "import os\nfd = os.open('secret.bin', os.O_RDWR | os.O_CREAT)\n"
            "os.write(fd, b'LEFT-BY-SESSION-1')\nos.unlink('secret.bin')\ndel fd"
        )
        assert kept.status == "ok", kept
        pid = sb.pid
        sb.reset([task_csv])
        found = sb.execute(
            "import os\nfor fd in map(int, os.listdir('/proc/self/fd')):\n"
            "    try:\n        print(os.pread(fd, 64, 0))\n    except OSError:\n        pass"
        )
        assert "LEFT-BY-SESSION-1" not in found.output, found
        assert sb.pid != pid


def test_a_worker_with_an_added_audit_hook_is_not_reused(task_csv: Path) -> None:
    """Audit hooks cannot be removed; one that fails later cells must not reach a session."""
    with Sandbox([task_csv], FAST) as sb:
        poisoned = sb.execute(
            "import sys\n"
            "def poison(event, args):\n"
            "    if event == 'exec' and getattr(sys, 'armed', False):\n"
            "        raise RuntimeError('poisoned by an earlier session')\n"
            "sys.addaudithook(poison)\nsys.armed = True"
        )
        assert poisoned.status == "ok", poisoned
        assert "poisoned" in (sb.execute("print(1)").error or "")  # it works in its session
        sb.reset([task_csv])
        result = sb.execute("print(1)")
        assert result.status == "ok" and result.output == "1\n", result


def test_a_worker_whose_audit_hook_was_disabled_and_replaced_is_not_reused(
    task_csv: Path,
) -> None:
    with open_sandbox(FAST, "off", (task_csv,)) as sb:
        sb.execute("import sys\nsys.addaudithook(lambda e, a: None)")
        pid = sb.pid
        sb.reset([task_csv])
        assert sb.execute("print(2)").output == "2\n"
        assert sb.pid != pid


# -- 6. score-deciding cells cannot be answered by earlier cells -----------------------------
_TAKE_OVER = textwrap.dedent(
    """
    import os, sys
    frame = sys._getframe()
    while 'self' not in frame.f_locals or type(frame.f_locals['self']).__name__ != 'Worker':
        frame = frame.f_back
    nonce_seen = 'nonce' in frame.f_back.f_locals.get('msg', {})
    def run_cell(self, code):
        return {'output': 'RESULT year=1234 FORGED\\n', 'truncated': False,
                'status': 'ok', 'error': None}
    type(frame.f_locals['self']).run_cell = run_cell
    os.unlink('artifacts.csv')
    open('artifacts.csv', 'w').write('year,count\\n1234,1\\n')
    mine = 'agent variable'
    print('taken over', nonce_seen)
    """
)
_CHECK = "print('RESULT year=%d' % pd.read_csv('artifacts.csv')['year'].iloc[0])"


def test_an_isolated_cell_is_not_answered_by_code_that_ran_before(task_csv: Path) -> None:
    with Sandbox([task_csv], FAST) as sb:
        assert sb.execute(_TAKE_OVER).output == "taken over True\n"
        assert "FORGED" in sb.execute("print(1)").output  # the session's worker is taken
        checked = sb.execute_isolated(_CHECK + "\nprint('mine' in dir())")
        assert checked.status == "ok", checked
        assert checked.output == "RESULT year=-2300\nFalse\n"  # task file, own namespace
        failed = sb.execute_isolated("raise ValueError('x')")
        assert '"<cell 4>"' in (failed.error or "")  # numbered in the session's order


def test_a_pool_runs_isolated_cells_in_checkers_that_never_ran_ordinary_cells(
    task_csv: Path,
) -> None:
    with SandboxPool(max_idle=2) as pool:
        lease = pool([task_csv], FAST)
        assert lease.execute(_TAKE_OVER).status == "ok"
        session_pid = lease.sandbox.pid
        first = lease.execute_isolated(_CHECK + "\nimport os\nleft = 1\nprint(os.getpid())")
        assert first.output.splitlines()[0] == "RESULT year=-2300", first
        checker_pid = int(first.output.splitlines()[1])
        assert checker_pid != session_pid
        second = lease.execute_isolated("import os\nprint(os.getpid(), 'left' in dir())")
        assert second.output == f"{checker_pid} False\n"  # the checker is reset and reused
        lease.close()
        for _ in range(2):  # the next sessions never get the checker for ordinary cells
            nxt = pool([task_csv], FAST)
            assert nxt.sandbox.pid != checker_pid
            nxt.close()
