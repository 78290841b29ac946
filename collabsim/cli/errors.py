"""The one-line user-error exit every ``collabsim`` sub-command shares.

A user error (bad setting, bad data, a missing or unwritable file, an unsafe output path, a
full disk) ends with one line on stderr that names the setting or file, and exit code 2;
never a traceback. Exit codes of every ``collabsim`` command: 0 done, 2 user error (as
above), 3 some sessions unscored (``collabsim run``: the job ran, but sessions ended with
``provider_error``, ``budget_exceeded`` or ``infra_error``; a rerun on the same store runs
them again), 130 interrupted (``collabsim run``, Ctrl-C).
"""

from __future__ import annotations

import sys

EXIT_USER_ERROR = 2
EXIT_UNSCORED = 3
"""``collabsim run``: the job ran but some sessions ended unscored (distinct from a user error)."""


def user_error(command: str, message: str) -> int:
    """Print ``collabsim <command>: <message>`` on stderr; return :data:`EXIT_USER_ERROR`.

    Args:
        command: The sub-command as typed (``"view"``, ``"data fetch"``).
        message: One line naming the setting or file and what is wrong with it.
    """
    print(f"collabsim {command}: {message}", file=sys.stderr)
    return EXIT_USER_ERROR
