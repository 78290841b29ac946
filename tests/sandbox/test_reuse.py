"""Sandbox.reset: one worker serves sessions of one owner in turn, each starting clean."""

from __future__ import annotations

from pathlib import Path

from sandbox_helpers import FAST

from collabsim.sandbox import Sandbox

DIRTY = """
import os, json, colorsys, builtins, warnings
secret = 41
open('note.txt', 'w').write('episode 1')
os.mkdir('out')
os.environ['LEAK'] = '1'
pd.set_option('display.precision', 2)
pd.leak = 'patched'
np.seterr(all='raise')
builtins.leak = 1
warnings.simplefilter('error')
"""

CHECK = """
import sys, os, builtins, warnings
print(sorted(os.listdir('.')))
print('secret' in globals(), 'colorsys' in sys.modules, 'LEAK' in os.environ)
print(pd.get_option('display.precision'), hasattr(pd, 'leak'), np.geterr()['divide'])
print(hasattr(builtins, 'leak'), os.getcwd() == os.environ['HOME'])
"""


def test_reset_gives_a_clean_namespace_and_workdir_in_the_same_worker(
    task_csv: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.csv"
    other.write_text("a\n1\n")
    with Sandbox([task_csv], FAST) as fresh:
        expected = fresh.execute(CHECK)
    with Sandbox([task_csv], FAST) as sb:
        first = sb.execute(DIRTY)
        assert first.status == "ok", first.error
        pid = sb.pid
        sb.reset([other])
        assert sb.pid == pid  # the worker was kept
        again = sb.execute(CHECK)
        assert again.status == "ok", again.error
        assert again.output.splitlines()[0] == "['other.csv']"  # episode 1's files are gone
        assert again.output.splitlines()[1:] == expected.output.splitlines()[1:]
        assert "False False False" in again.output  # variable, module, environment
        # cells count from 1 again, as in a new sandbox
        failed = sb.execute("raise ValueError('x')")
        assert '"<cell 2>"' in failed.error


def test_reset_replaces_a_worker_that_left_a_thread_running(task_csv: Path) -> None:
    with Sandbox([task_csv], FAST) as sb:
        started = sb.execute(
            "import threading, time\n"
            "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()")
        assert started.status == "ok", started.error
        pid = sb.pid
        sb.reset([task_csv])
        assert sb.pid != pid
        result = sb.execute("import threading\nprint(threading.active_count(), 'x' in dir())")
        assert result.output == "1 False\n"


def test_reset_after_a_crash_starts_a_fresh_worker(task_csv: Path) -> None:
    with Sandbox([task_csv], FAST) as sb:
        assert sb.execute("import os\nos._exit(3)").status == "crashed"
        sb.reset([task_csv])
        result = sb.execute("print(sorted(__import__('os').listdir('.')))")
        assert result.output == "['artifacts.csv']\n"
