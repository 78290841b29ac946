"""Keep credentials out of everything a run writes.

API keys come from the environment only (litellm reads ``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``, ``DEEPSEEK_API_KEY``, ... itself). Nothing in collabsim passes a key
explicitly, and every text the LLM layer writes (call logs, error messages) goes through
:func:`redact` first, which replaces

* the value of every environment variable whose name looks secret (``*_API_KEY``, ``*_KEY``,
  ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``, ``*CREDENTIALS*``), and
* anything shaped like a common key (``sk-...``, ``sk-ant-...``, ``Bearer ...``), and
* the user-info part of a URL (``http://user:sk-…@host/v1`` -> ``http://[REDACTED]@host/v1``)

with ``[REDACTED]``. :func:`contains_credential` says whether a value holds any of these
(``collabsim run`` refuses such settings before Hydra writes them to ``.hydra/``).

The same redaction guards every file a run writes: traces (``session/trace.py``), result and
plan records (``experiment/store.py``), the LLM cache (``llm/cache.py``) and call logs
(``llm/calllog.py``). This module imports nothing from collabsim, so any layer may use it. Writers that emit many lines hold a :class:`Redactor`, which scans the
environment once (a scan costs about as much as a whole trace line's other work).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

REDACTED = "[REDACTED]"
_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$|API_?KEY", re.I)
_KEY_SHAPES = re.compile(
    r"(\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{8,}|Bearer\s+[A-Za-z0-9_\-\.=]{8,}|AKIA[0-9A-Z]{12,})"
)
_KEY_MARKERS = ("sk-", "Bearer", "AKIA")
# scheme://userinfo@host: the userinfo (a user name, a password or a token) is a credential.
_URL_USERINFO = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.\-]*://)([^/?#@\s]+)@")
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


class Redactor:
    """Redacts text and data with the secret values the environment held at creation.

    Args:
        environ: Environment whose secret values to remove (default ``os.environ``).
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._values = secret_env_values(environ)

    def __call__(self, text: str) -> str:
        """Replace credentials in ``text`` with ``[REDACTED]``."""
        for value in self._values:
            if value in text:
                text = text.replace(value, REDACTED)
        # Substring tests first: running the regex over every trace line costs ~10x more.
        if any(marker in text for marker in _KEY_MARKERS):
            text = _KEY_SHAPES.sub(REDACTED, text)
        if "://" in text and "@" in text:
            text = _URL_USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@"
                                     if m.group(2) != REDACTED else m.group(0), text)
        return text

    def data(self, data: Any) -> Any:
        """Apply the redaction to every string inside nested dicts/lists (keys included)."""
        if isinstance(data, str):
            return self(data)
        if isinstance(data, Mapping):
            return {self(str(k)): self.data(v) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return [self.data(v) for v in data]
        return data


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace credentials in ``text`` with ``[REDACTED]``.

    Args:
        text: Any text about to be written.
        environ: Environment whose secret values to remove (default ``os.environ``).

    Returns:
        The text without secret environment values or key-shaped strings.
    """
    return Redactor(environ)(text)


def contains_credential(text: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``text`` holds a credential :func:`redact` would remove (a secret environment
    value, a key-shaped string, or a URL with user info)."""
    return redact(text, environ) != text


def redact_data(data: Any, environ: Mapping[str, str] | None = None) -> Any:
    """Apply :func:`redact` to every string inside nested dicts/lists (keys included)."""
    return Redactor(environ).data(data)
