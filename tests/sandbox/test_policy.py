"""Isolation tests: processes, network, files outside the workdir, environment, seccomp."""

from __future__ import annotations

import contextlib
import os
import socket
import time
import uuid
from pathlib import Path

import pytest
from sandbox_helpers import FAST, descendants

from collabsim.sandbox import Sandbox, shutdown_zygote, zygote_pid
from collabsim.sandbox.policy import install_seccomp


@pytest.fixture()
def sandbox():
    with Sandbox([], FAST) as sb:
        yield sb


def _blocked(sb: Sandbox, code: str) -> str:
    result = sb.execute(code)
    assert result.status == "blocked", (code, result)
    assert result.error is not None and "blocked by sandbox policy" in result.error
    assert sb.execute("print('alive')").output == "alive\n"
    return result.error


def test_fork_loop_is_blocked(sandbox: Sandbox) -> None:
    before = descendants(os.getpid())
    error = _blocked(sandbox, "import os\nwhile True:\n    os.fork()")
    assert "fork" in error
    assert descendants(os.getpid()) == before


@pytest.mark.parametrize(
    "code",
    [
        "import subprocess\nsubprocess.run(['ls'])",
        "import os\nos.system('ls')",
        "import os\nos.execv('/bin/ls', ['ls'])",
        "import os\nos.posix_spawn('/bin/ls', ['ls'], {})",
        "import multiprocessing\nmultiprocessing.Process(target=print).start()",
        "import pty\npty.spawn('ls')",
    ],
)
def test_starting_processes_is_blocked(sandbox: Sandbox, code: str) -> None:
    before = descendants(os.getpid())
    _blocked(sandbox, code)
    assert descendants(os.getpid()) == before


def test_connection_to_localhost_is_refused_before_any_packet(sandbox: Sandbox) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.3)
        port = server.getsockname()[1]
        _blocked(sandbox, f"import socket\nsocket.create_connection(('127.0.0.1', {port}), 1)")
        _blocked(sandbox, "import socket\ns = socket.socket()\n")
        with pytest.raises(TimeoutError):
            server.accept()


@pytest.mark.parametrize(
    "code",
    [
        "import socket\nsocket.create_connection(('10.255.255.1', 80), timeout=1)",
        "import socket\nsocket.gethostbyname('example.com')",
        "import urllib.request\nurllib.request.urlopen('http://10.255.255.1/', timeout=1)",
        "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect('/var/run/docker.sock')",
    ],
)
def test_external_network_is_refused_immediately(sandbox: Sandbox, code: str) -> None:
    result = sandbox.execute(code)
    assert result.status == "blocked", result
    assert result.wall_seconds < 0.5


def test_writing_outside_workdir_is_blocked(sandbox: Sandbox, tmp_path: Path) -> None:
    target = Path(f"/tmp/outside-{uuid.uuid4().hex}")
    _blocked(sandbox, f"open({str(target)!r}, 'w').write('x')")
    _blocked(sandbox, f"pd.DataFrame({{'a': [1]}}).to_csv({str(target)!r})")
    _blocked(sandbox, f"import os\nos.open({str(target)!r}, os.O_CREAT | os.O_WRONLY)")
    _blocked(sandbox, f"import os\nos.mkdir({str(target)!r})")
    assert not target.exists()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    _blocked(sandbox, f"import os\nos.remove({str(victim)!r})")
    _blocked(sandbox, f"import os\nos.rename({str(victim)!r}, 'stolen.txt')")
    _blocked(sandbox, f"import os\nos.link({str(victim)!r}, 'hard.txt')")
    # a symlink inside the workdir does not open a door outside
    made = sandbox.execute(f"import os\nos.symlink({str(victim)!r}, 'link.txt')")
    assert made.status == "ok", made.error
    _blocked(sandbox, "open('link.txt', 'w').write('overwritten')")
    assert victim.read_text() == "keep"


def test_reading_private_files_outside_workdir_is_blocked(sandbox: Sandbox, tmp_path: Path) -> None:
    secret = tmp_path / "answer_key.csv"
    secret.write_text("hypothesis\nthe answer\n")
    _blocked(sandbox, f"print(open({str(secret)!r}).read())")
    _blocked(sandbox, f"pd.read_csv({str(secret)!r})")
    _blocked(sandbox, f"import os\nprint(os.listdir({str(tmp_path)!r}))")
    _blocked(sandbox, f"print(open('/proc/{os.getpid()}/environ').read())")
    # library and system files stay readable
    ok = sandbox.execute("import json, csv, decimal\nprint(open('/etc/hostname').read() != '')")
    assert ok.status == "ok", ok.error


def test_parent_environment_is_not_visible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLLABSIM_TEST_SECRET", "sk-test-123")
    shutdown_zygote()  # the next zygote starts while the secret is set in the parent
    with Sandbox([], FAST) as sb:
        result = sb.execute(
            "import os\n"
            "print(os.environ.get('COLLABSIM_TEST_SECRET'))\n"
            "print('sk-test-123' in open('/proc/self/environ').read())\n"
            "print(os.environ['HOME'] == os.getcwd(), os.environ['PYTHONHASHSEED'])"
        )
        assert result.status == "ok", result.error
        assert result.output == "None\nFalse\nTrue 0\n"
        zygote = zygote_pid()
    assert zygote is not None
    assert b"sk-test-123" not in Path(f"/proc/{zygote}/environ").read_bytes()


@pytest.mark.parametrize(
    "code",
    [
        "import ctypes\nctypes.CDLL(None).fork()",
        "import ctypes\nctypes.CDLL('libc.so.6').system(b'ls')",
        "import ctypes\nctypes.pythonapi.fork()",
        "import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))",
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)",
    ],
)
def test_escape_hatches_are_blocked(sandbox: Sandbox, code: str) -> None:
    _blocked(sandbox, code)


def test_workers_run_under_seccomp_without_capabilities(sandbox: Sandbox) -> None:
    assert sandbox.execute("x = 1").status == "ok"  # set-up is complete once a cell ran
    status = Path(f"/proc/{sandbox.pid}/status").read_text()
    assert "Seccomp:\t2" in status
    assert "CapEff:\t0000000000000000" in status
    assert "CapBnd:\t0000000000000000" in status


def test_seccomp_filter_blocks_fork_exec_and_inet_sockets_at_kernel_level() -> None:
    pid = os.fork()
    if pid == 0:  # child: report through the exit code, never return into pytest
        code = 1
        try:
            if install_seccomp():
                code = 0
                try:
                    os.fork()
                    code |= 2
                except PermissionError:
                    pass
                try:
                    socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    code |= 4
                except PermissionError:
                    pass
                with contextlib.suppress(PermissionError):
                    os.execv("/bin/false", ["false"])  # exit code 1 if it ever ran
                a, b = socket.socketpair()  # unix sockets still work
                a.close()
                b.close()
                import threading

                t = threading.Thread(target=time.sleep, args=(0.01,))
                t.start()  # threads still work
                t.join()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def test_kernel_layers_hold_when_the_audit_hook_is_disabled(tmp_path: Path) -> None:
    """Audit hooks can be subverted from Python; seccomp and Landlock must still refuse."""
    secret = tmp_path / "secret.txt"
    secret.write_text("gold hypothesis")
    target = Path(f"/tmp/outside-{uuid.uuid4().hex}")
    with Sandbox([], FAST) as sb:
        disabled = sb.execute(
            "import gc\n"
            "from collabsim.sandbox.policy import AuditPolicy\n"
            "hook = next(o for o in gc.get_objects() if isinstance(o, AuditPolicy))\n"
            "hook.internal = 1\n"
            "print('disabled')"
        )
        assert disabled.output == "disabled\n", disabled.error
        attempts = {
            "fork": "import os\nos.fork()",
            "exec": "import os\nos.execv('/bin/true', ['true'])",
            "inet socket": "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_STREAM)",
            "write outside": f"open({str(target)!r}, 'w').write('x')",
            "read outside": f"print(open({str(secret)!r}).read())",
            "signal zygote": f"import os, signal\nos.kill({zygote_pid()}, signal.SIGKILL)",
            "parent environ": f"print(open('/proc/{os.getpid()}/environ').read())",
            "raise limits": "import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))",
        }
        for name, code in attempts.items():
            result = sb.execute(code)
            assert result.status in ("error", "blocked"), (name, result)
            assert ("PermissionError" in (result.error or "")) or (
                "not allowed to raise" in (result.error or "")
            ), (name, result)
            assert "gold hypothesis" not in result.output
        assert sb.execute("print('alive')").output == "alive\n"
    assert not target.exists()
    assert zygote_pid() is not None


# The cell's code that runs after the cell: each tries to load libc (refused by the policy).
_LOAD = (
    "def _load():\n"
    "    try:\n"
    "        ctypes.CDLL(None)\n"
    "        return 'LOADED'\n"
    "    except PermissionError:\n"
    "        return 'REFUSED'\n"
)
_AFTER_THE_CELL = {
    "exception __str__": "class E(Exception):\n    def __str__(self):\n        return _load()\n"
    "raise E()",
    "exception __str__ that cannot end": "class E(Exception):\n    def __str__(self):\n"
    "        _load()\n        raise SystemExit(_load())\nraise E()",
    "exception __notes__": "class N:\n    def __str__(self):\n        return _load()\n"
    "e = ValueError('x')\ne.__notes__ = [N()]\nraise e",
    "loader of a frame's source": "class L:\n    def get_source(self, name):\n"
    "        return _load() + '\\n'\n"
    "g = {'__name__': 'm', '__loader__': L()}\n"
    "exec(compile('def f():\\n    raise KeyError(1)', 'm.py', 'exec'), g)\ng['f']()",
}


@pytest.mark.parametrize("code", list(_AFTER_THE_CELL.values()), ids=list(_AFTER_THE_CELL))
def test_the_cells_exception_is_formatted_under_the_policy(sandbox: Sandbox, code: str) -> None:
    result = sandbox.execute("import ctypes\n" + _LOAD + code)
    assert "LOADED" not in (result.error or "") + result.output, result
    assert result.status == "blocked", result
    assert "loading native libraries with ctypes" in (result.error or "")
    assert sandbox.execute("print('alive')").output == "alive\n"


def test_a_replaced_reply_function_runs_under_the_policy(sandbox: Sandbox) -> None:
    result = sandbox.execute(
        "import ctypes\nfrom collabsim.sandbox import wire\n" + _LOAD
        + "_send = wire.send_msg\n"
        "def send(sock, reply, fds=()):\n"
        "    reply['output'] += _load()\n"
        "    _send(sock, reply, fds)\n"
        "wire.send_msg = send\n"
    )
    assert result.output == "REFUSED", result


def test_ordinary_errors_keep_their_traceback_and_status(sandbox: Sandbox) -> None:
    result = sandbox.execute("import pandas as pd\npd.DataFrame({'a': [1]})['b']")
    assert result.status == "error", result
    assert result.error is not None and "KeyError: 'b'" in result.error
    assert "blocked" not in result.error
    assert 'File "<cell 1>", line 2, in <module>' in result.error
