"""Probes of the adversarial review (issue 9), each run with and without the audit hook.

One line through ``gc.get_objects()`` switches the audit hook off, so every probe also runs in
a sandbox whose hook was disabled first: then only kernel layers (uid, seccomp, Landlock,
rlimits set by the parent) and the parent's own checks stand in the way.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from sandbox_helpers import FAST, gone, open_sandbox, state_of

from collabsim.sandbox import ExecResult, Sandbox, SandboxLimits
from collabsim.sandbox.workdirs import WORKDIR_PREFIX, process_start_time

AS_ROOT = os.geteuid() == 0


def _refused(result: ExecResult, leak: str = "") -> None:
    assert result.status in ("blocked", "error"), result
    assert "PermissionError" in (result.error or ""), result
    if leak:
        assert leak not in result.output


# -- 1. unprivileged uid/gid ---------------------------------------------------------------
def test_worker_runs_as_its_own_unprivileged_user_without_groups(sandbox: Sandbox) -> None:
    result = sandbox.execute(
        "import json, os\nprint(json.dumps([os.getresuid(), os.getresgid(), os.getgroups()]))"
    )
    assert result.status == "ok", result.error
    uids, gids, groups = json.loads(result.output)
    if AS_ROOT:
        assert len(set(uids)) == 1 and uids[0] not in (0, os.getuid())
        assert len(set(gids)) == 1 and gids[0] != 0
        assert groups == []
    else:  # nothing to drop: the worker keeps the caller's uid
        assert uids == [os.getuid()] * 3


def test_two_workers_have_different_uids() -> None:
    with Sandbox([], FAST) as a, Sandbox([], FAST) as b:
        ua = a.execute("import os\nos.getuid()").output
        ub = b.execute("import os\nos.getuid()").output
    assert (ua != ub) if AS_ROOT else (ua == ub)


@pytest.mark.parametrize("path", ["/etc/shadow", "/dev/vcs", "/dev/kvm"])
def test_root_only_files_are_unreadable(sandbox: Sandbox, path: str) -> None:
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing on this machine: the probe cannot run")
    result = sandbox.execute(f"fh = open({path!r}, 'rb')\nprint(fh.read(64))")
    _refused(result)
    assert result.output == ""


def test_task_files_and_folders_stay_readable(hook: str, tmp_path: Path) -> None:
    table = tmp_path / "table.csv"
    table.write_text("year,count\n1,2\n")
    table.chmod(0o600)  # private to the parent's user: the copy must still be readable
    folder = tmp_path / "extra"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "notes.txt").write_text("hello")
    folder.chmod(0o700)
    with open_sandbox(FAST, hook, (table, folder)) as sb:
        result = sb.execute(
            "print(pd.read_csv('table.csv')['count'].sum())\n"
            "print(open('extra/sub/notes.txt').read())\n"
            "open('mine.txt', 'w').write('x')\n"
            "import os\nprint(sorted(os.listdir('.')))"
        )
        assert result.status == "ok", result.error
        assert result.output == "2\nhello\n['extra', 'mine.txt', 'table.csv']\n"
        _refused(sb.execute(f"print(open({str(table)!r}).read())"), leak="year")


# -- 2. sockets ------------------------------------------------------------------------------
def test_unix_socket_outside_the_workdir_cannot_be_reached(sandbox: Sandbox) -> None:
    folder = Path(tempfile.mkdtemp(prefix="collabsim-test-sock-"))
    try:
        folder.chmod(0o777)
        path = folder / "service.sock"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            server.bind(str(path))
            path.chmod(0o777)
            server.listen()
            server.settimeout(0.3)
            result = sandbox.execute(
                "import socket\ns = socket.socket(socket.AF_UNIX)\n"
                f"s.connect({str(path)!r})\nprint('connected')"
            )
            _refused(result, leak="connected")
            with pytest.raises(TimeoutError):
                server.accept()
    finally:
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()


_PAIR = "import socket\na, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n"


@pytest.mark.parametrize(
    "send",
    [
        "a.sendto(b'leak', {path!r})",
        "a.connect({path!r})\na.send(b'leak')",
        "a.sendmsg([b'leak'], [], 0, {path!r})",
    ],
    ids=["sendto", "connect", "sendmsg"],
)
def test_unix_datagram_socket_outside_the_workdir_gets_nothing(
    sandbox: Sandbox, hook: str, send: str
) -> None:
    """An end of a socketpair may not address a host's world-writable datagram socket."""
    folder = Path(tempfile.mkdtemp(prefix="collabsim-test-dgram-"))
    try:
        folder.chmod(0o777)
        path = folder / "log.sock"
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
            server.bind(str(path))
            path.chmod(0o777)
            server.settimeout(0.3)
            result = sandbox.execute(_PAIR + send.format(path=str(path)) + "\nprint('sent')")
            _refused(result, leak="sent")
            with pytest.raises(TimeoutError):
                server.recv(64)
        # without the hook (which refuses every socket) the pair's own ends still talk
        pair = sandbox.execute(_PAIR + "a.send(b'own')\nprint(b.recv(8))")
        if hook == "off":
            assert pair.output == "b'own'\n", pair
    finally:
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()


@pytest.mark.parametrize(
    "family",
    ["AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK", "AF_PACKET", "AF_VSOCK"],
)
def test_no_socket_family_can_be_created(sandbox: Sandbox, family: str) -> None:
    result = sandbox.execute(f"import socket\ns = socket.socket(socket.{family}, 2)\nprint('made')")
    _refused(result, leak="made")


# -- 3. resource limits ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "code",
    [
        "resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY,) * 2)",
        "resource.prlimit(0, resource.RLIMIT_CPU, (resource.RLIM_INFINITY,) * 2)",
        "resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)",
        "resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))",
    ],
)
def test_resource_limits_cannot_be_changed(sandbox: Sandbox, code: str) -> None:
    assert sandbox.execute("pass").status == "ok"  # set-up done
    assert sandbox.pid is not None
    limits = Path(f"/proc/{sandbox.pid}/limits").read_text()
    result = sandbox.execute(f"import resource\n{code}\nprint('changed')")
    assert result.status in ("blocked", "error"), result
    # the kernel's EPERM reads "not allowed to raise maximum limit" in Python
    assert "PermissionError" in (result.error or "") or "not allowed" in (result.error or "")
    assert "changed" not in result.output
    after = Path(f"/proc/{sandbox.pid}/limits").read_text()
    assert [line for line in after.splitlines() if "cpu time" not in line] == [
        line for line in limits.splitlines() if "cpu time" not in line
    ]
    ok = sandbox.execute("import resource\nprint(resource.getrlimit(resource.RLIMIT_CPU))")
    assert ok.status == "ok", ok.error  # reading them is fine


def test_cell_ignoring_its_cpu_signals_is_stopped_by_the_parent(hook: str) -> None:
    limits = SandboxLimits(wall_seconds=60, cpu_seconds=1, memory_mb=512, output_chars=400)
    with open_sandbox(limits, hook) as sb:
        start = time.monotonic()
        result = sb.execute(
            "import signal\n"
            "for s in (signal.SIGPROF, signal.SIGXCPU):\n"
            "    signal.signal(s, signal.SIG_IGN)\n"
            "while True:\n    pass"
        )
        assert result.status == "cpu_limit", result
        assert time.monotonic() - start < 50
        assert sb.execute("print('back')").output == "back\n"


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def test_thread_left_burning_gets_no_cpu_between_cells_and_is_stopped_in_the_next(
    hook: str,
) -> None:
    # generous wall limits: on a loaded machine a thread may get a small share of a core
    limits = SandboxLimits(wall_seconds=90, cpu_seconds=1, memory_mb=512, output_chars=400)
    with open_sandbox(limits, hook) as sb:
        started = sb.execute(
            "import signal, threading\n"
            "for s in (signal.SIGPROF, signal.SIGXCPU):\n"
            "    signal.signal(s, signal.SIG_IGN)\n"
            "def burn():\n    while True:\n        pass\n"
            "threading.Thread(target=burn, daemon=True).start()\nprint('burning')"
        )
        assert started.output == "burning\n", started
        pid = sb.pid
        assert pid is not None
        time.sleep(0.2)
        before = _cpu_ticks(pid)
        time.sleep(1.5)
        assert _cpu_ticks(pid) - before <= 2  # the worker is stopped between cells
        start = time.monotonic()
        waiting = sb.execute("import time\ntime.sleep(60)")  # the thread burns meanwhile
        assert waiting.status == "cpu_limit", waiting
        assert time.monotonic() - start < 55
        assert gone(pid), state_of(pid)
        assert sb.execute("print('fresh')").output == "fresh\n"


# -- 4. disk quota ---------------------------------------------------------------------------
def test_disk_quota_default_is_256_mb() -> None:
    assert SandboxLimits().disk_mb == 256
    with pytest.raises(ValueError, match="disk_mb"):
        SandboxLimits(disk_mb=0)


def test_cell_writing_past_the_disk_quota_gets_disk_limit(hook: str, task_csv: Path) -> None:
    limits = SandboxLimits(wall_seconds=10, cpu_seconds=10, memory_mb=512, file_mb=5, disk_mb=4)
    with open_sandbox(limits, hook, (task_csv,)) as sb:
        assert sb.execute("open('small.txt', 'w').write('x' * 1000)").status == "ok"
        result = sb.execute(
            "for i in range(3):\n    open(f'big{i}.bin', 'wb').write(b'x' * 2_000_000)"
        )
        assert result.status == "disk_limit", result
        assert "4 MB" in (result.error or "")
        assert sorted(p.name for p in sb.workdir.iterdir()) == ["artifacts.csv"]
        again = sb.execute("print(len(pd.read_csv('artifacts.csv')))")
        assert again.output == "4\n", again


def test_cell_that_keeps_writing_is_stopped_while_it_runs(hook: str) -> None:
    limits = SandboxLimits(wall_seconds=30, cpu_seconds=30, memory_mb=512, file_mb=5, disk_mb=8)
    with open_sandbox(limits, hook) as sb:
        start = time.monotonic()
        result = sb.execute(
            "import itertools\n"
            "for i in itertools.count():\n"
            "    open(f'f{i}.bin', 'wb').write(b'x' * 1_000_000)"
        )
        assert result.status == "disk_limit", result
        assert time.monotonic() - start < 20
        assert list(sb.workdir.iterdir()) == []


@pytest.mark.parametrize(
    "code",
    [
        "for i in range(3000):\n    open(f'e{i}', 'w').close()",
        "import os\nfor i in range(3000):\n    os.mkdir(f'd{i}')",
        "import os\nfor i in range(3000):\n    os.symlink('artifacts.csv', f'l{i}')",
        "import os\nfor i in range(60):\n    os.makedirs(f'n{i}/' + '/'.join('abcdefghijklmnopqrstuvwxyz'))",
    ],
    ids=["empty-files", "folders", "links", "nested"],
)
def test_empty_files_and_folders_count_against_the_file_limit(
    hook: str, task_csv: Path, code: str
) -> None:
    """Empty files take no disk space, yet each one costs every later disk check."""
    limits = SandboxLimits(
        wall_seconds=30, cpu_seconds=30, memory_mb=512, disk_mb=64, max_files=1000
    )
    with open_sandbox(limits, hook, (task_csv,)) as sb:
        ok = sb.execute("for i in range(900):\n    open(f'k{i}', 'w').close()")
        assert ok.status == "ok", ok  # under the limit: nothing happens
        assert sb.execute("import os\nfor i in range(900):\n    os.remove(f'k{i}')").ok
        result = sb.execute(code)
        assert result.status == "disk_limit", result
        assert "1000 files and folders" in (result.error or "")
        assert sorted(p.name for p in sb.workdir.iterdir()) == ["artifacts.csv"]
        assert sb.execute("print(len(pd.read_csv('artifacts.csv')))").output == "4\n"


def test_the_default_file_limit_is_ten_thousand() -> None:
    assert SandboxLimits().max_files == 10_000
    with pytest.raises(ValueError, match="max_files"):
        SandboxLimits(max_files=0)


# -- 5. replies matched to cells -------------------------------------------------------------
_FORGE = textwrap.dedent(
    """
    import json, os, stat, struct
    fd = next(f for f in range(3, 256)
              if not os.path.isfile(f'/proc/self/fd/{f}') and _is_sock(f))
    for text in ('FORGED-NOW\\n', 'FORGED-LATER\\n'):
        body = json.dumps({'output': text, 'truncated': False, 'status': 'ok',
                           'error': None, 'nonce': None}).encode()
        os.write(fd, struct.pack('!I', len(body)) + body)
    """
)
_IS_SOCK = (
    "import os, stat\n"
    "def _is_sock(f):\n"
    "    try:\n        return stat.S_ISSOCK(os.fstat(f).st_mode)\n"
    "    except OSError:\n        return False\n"
)


def test_forged_replies_never_become_a_later_cells_output(sandbox: Sandbox) -> None:
    assert sandbox.execute(_IS_SOCK).status == "ok"
    forged = sandbox.execute(_FORGE)
    assert forged.status == "crashed", forged
    assert "FORGED" not in forged.output
    later = [sandbox.execute("print('real')") for _ in range(2)]
    assert [r.output for r in later] == ["real\n", "real\n"], later


def test_reply_of_an_earlier_request_is_rejected(sandbox: Sandbox) -> None:
    """A cell that answers its own request early leaves the real reply behind: refused."""
    code = _IS_SOCK + textwrap.dedent(
        """
        import gc, json, struct
        request = next(o for o in gc.get_objects()
                       if isinstance(o, dict) and o.get('op') == 'exec' and 'nonce' in o)
        fd = next(f for f in range(3, 256) if _is_sock(f))
        body = json.dumps({'output': 'FORGED\\n', 'truncated': False, 'status': 'ok',
                           'error': None, 'nonce': request['nonce']}).encode()
        os.write(fd, struct.pack('!I', len(body)) + body)
        """
    )
    sandbox.execute(code)  # may look like its own (forged) output: it is this cell's code
    nxt = sandbox.execute("print('real')")
    assert "FORGED" not in nxt.output
    assert nxt.status == "crashed" or nxt.output == "real\n", nxt
    assert sandbox.execute("print('real')").output == "real\n"


def _write_frame(body: str) -> str:
    """Cell code writing the raw message ``body`` (a bytes expression) to the worker's socket."""
    return _IS_SOCK + (
        "import struct\nfd = next(f for f in range(3, 256) if _is_sock(f))\n"
        f"body = {body}\nos.write(fd, struct.pack('!I', len(body)) + body)\n"
        "import time\ntime.sleep(1)\n"
    )


_FORGED_ENDS = {
    "setup_failed": "json.dumps({'op': 'setup_failed', 'error': 'forged'}).encode()",
    "exit_status": (
        "json.dumps({'op': 'exit_status', 'body': json.dumps({'setup_error': 'forged', "
        "'exitcode': 71}), 'mac': '0' * 64}).encode()"
    ),
    # unsealed, as the zygote's reports were: a death by the memory limit that never was
    "exit_status_unsealed": (
        "json.dumps({'op': 'exit_status', 'signal': 9, 'maxrss_kb': 2**40, "
        "'setup_error': 'forged'}).encode()"
    ),
}


@pytest.mark.parametrize("forged", sorted(_FORGED_ENDS))
def test_a_cell_cannot_forge_a_sandbox_failure(sandbox: Sandbox, forged: str) -> None:
    """A forged set-up failure would mark the session infra_error (never scored, rerun)."""
    result = sandbox.execute("import json\n" + _write_frame(_FORGED_ENDS[forged]))
    assert result.status == "crashed", result
    assert not result.infrastructure, result
    assert "forged" not in (result.error or "")
    assert sandbox.execute("print('real')").output == "real\n"


def test_a_deeply_nested_reply_is_a_crashed_cell_not_an_exception(sandbox: Sandbox) -> None:
    result = sandbox.execute(_write_frame("b'[' * 200_000 + b']' * 200_000"))
    assert result.status == "crashed", result
    assert not result.infrastructure
    assert sandbox.execute("print('real')").output == "real\n"


def test_a_worker_whose_set_up_fails_is_still_a_sandbox_failure(task_csv: Path) -> None:
    with Sandbox([task_csv], FAST) as sb:
        assert sb.execute("print('up')").output == "up\n"
        pid = sb.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert gone(pid)
        assert sb.execute("pass").status == "crashed"  # the death, seen by the next cell
        for entry in sb.workdir.iterdir():
            entry.unlink()
        sb.workdir.rmdir()  # the next worker cannot enter its working directory
        result = sb.execute("print('never')")
        assert result.status == "crashed", result
        assert result.infrastructure, result
        assert "set-up failed" in (result.error or "")


# -- 6. dir_fd -------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["1", "parent", "zygote"])
def test_dir_fd_does_not_open_other_processes_files(sandbox: Sandbox, target: str) -> None:
    from collabsim.sandbox import zygote_pid

    pid = {"1": 1, "parent": os.getpid(), "zygote": zygote_pid()}[target]
    result = sandbox.execute(
        "import os\nfd = os.open('/proc', os.O_RDONLY)\n"
        f"print(os.read(os.open('{pid}/cmdline', os.O_RDONLY, dir_fd=fd), 200))"
    )
    _refused(result, leak="python")
    result = sandbox.execute(f"print(open('/proc/{pid}/cmdline', 'rb').read())")
    _refused(result, leak="python")


def test_dir_fd_inside_the_workdir_still_works(sandbox: Sandbox) -> None:
    result = sandbox.execute(
        "import os, shutil\nos.makedirs('a/b/c')\nopen('a/b/c/x.txt', 'w').write('x')\n"
        "fd = os.open('a', os.O_RDONLY)\n"
        "os.close(os.open('made.txt', os.O_CREAT | os.O_WRONLY, dir_fd=fd))\n"
        "print(sorted(os.listdir('a')))\nshutil.rmtree('a')\nprint(os.path.exists('a'))"
    )
    assert result.status == "ok", result.error
    assert result.output == "['b', 'made.txt']\nFalse\n"


def test_dir_fd_cannot_write_outside_the_workdir(sandbox: Sandbox) -> None:
    name = f"outside-{os.getpid()}-{time.monotonic_ns()}"
    result = sandbox.execute(
        "import os\nfd = os.open('.', os.O_RDONLY)\n"
        f"os.close(os.open('../{name}', os.O_CREAT | os.O_WRONLY, dir_fd=fd))"
    )
    _refused(result)
    assert not (sandbox.workdir.parent / name).exists()


# -- 7. stale workdirs -----------------------------------------------------------------------
_KILLED_RUN = textwrap.dedent(
    """
    import time
    from collabsim.sandbox import Sandbox, zygote_pid
    sb = Sandbox([])
    sb.execute("open('left.txt', 'w').write('x')")
    print(sb.workdir, zygote_pid(), flush=True)
    time.sleep(120)
    """
)
_NEXT_RUN = "from collabsim.sandbox import Sandbox\nSandbox([]).close()\n"


def test_workdirs_of_a_killed_run_are_swept_at_the_next_start(tmp_path: Path) -> None:
    # Both runs use a private temporary folder. In the shared one (/tmp) the killed run's
    # folder is stale, so ANY process that starts a Sandbox meanwhile (another test run on
    # the machine) rightly sweeps it before this test looks at it: that made the test flaky.
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    run = subprocess.Popen(
        [sys.executable, "-c", _KILLED_RUN], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert run.stdout is not None
        workdir_text, zygote_text = run.stdout.readline().split()
        workdir, zygote = Path(workdir_text), int(zygote_text)
        os.kill(zygote, signal.SIGKILL)  # both die at once: nobody cleans up
        run.kill()
        run.wait()
        assert gone(zygote)
    finally:
        run.kill()
        run.wait()
    assert workdir.parent == tmp_path
    assert (workdir / "left.txt").exists()
    me = tmp_path / f"{WORKDIR_PREFIX}{os.getpid()}-{process_start_time(os.getpid())}-keep"
    foreign = tmp_path / f"{WORKDIR_PREFIX}not-ours-{os.getpid()}"
    me.mkdir()
    foreign.mkdir()
    subprocess.run([sys.executable, "-c", _NEXT_RUN], check=True, timeout=120, env=env)
    assert not workdir.exists()
    assert me.is_dir() and foreign.is_dir()  # a live owner's and unknown folders stay


def test_a_start_never_sweeps_the_workdir_of_a_live_run(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    live = subprocess.Popen(
        [sys.executable, "-c", _KILLED_RUN], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert live.stdout is not None
        workdir = Path(live.stdout.readline().split()[0])
        # another process starts a Sandbox (and sweeps) while the first run still works
        subprocess.run([sys.executable, "-c", _NEXT_RUN], check=True, timeout=120, env=env)
        assert live.poll() is None
        assert (workdir / "left.txt").read_text() == "x"
    finally:
        live.kill()
        live.wait()
