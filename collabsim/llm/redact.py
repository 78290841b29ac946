"""Keep credentials out of everything a run writes.

API keys come from the environment only (litellm reads ``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``, ``DEEPSEEK_API_KEY``, ... itself). Nothing in collabsim passes a key
explicitly, and every text the LLM layer writes (call logs, error messages) goes through
:func:`redact` first, which replaces

* the value of every environment variable whose name looks secret (``*_API_KEY``, ``*_KEY``,
  ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``, ``*CREDENTIALS*``), and
* anything shaped like a common key (``sk-...``, ``sk-ant-...``, ``Bearer ...``)

with ``[REDACTED]``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

REDACTED = "[REDACTED]"
_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$|API_?KEY", re.I)
_KEY_SHAPES = re.compile(
    r"(sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{8,}|Bearer\s+[A-Za-z0-9_\-\.=]{8,}|AKIA[0-9A-Z]{12,})"
)
_MIN_SECRET_LEN = 6


def secret_env_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of environment variables that look like credentials (longest first).

    Args:
        environ: Environment to scan (default ``os.environ``).

    Returns:
        The non-trivial values (at least 6 characters).
    """
    env = os.environ if environ is None else environ
    values = {
        v for k, v in env.items() if _SECRET_ENV.search(k) and v and len(v) >= _MIN_SECRET_LEN
    }
    return tuple(sorted(values, key=len, reverse=True))


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace credentials in ``text`` with ``[REDACTED]``.

    Args:
        text: Any text about to be written.
        environ: Environment whose secret values to remove (default ``os.environ``).

    Returns:
        The text without secret environment values or key-shaped strings.
    """
    for value in secret_env_values(environ):
        if value in text:
            text = text.replace(value, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)


def redact_data(data: Any, environ: Mapping[str, str] | None = None) -> Any:
    """Apply :func:`redact` to every string inside nested dicts/lists (keys included)."""
    if isinstance(data, str):
        return redact(data, environ)
    if isinstance(data, Mapping):
        return {redact(str(k), environ): redact_data(v, environ) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [redact_data(v, environ) for v in data]
    return data
