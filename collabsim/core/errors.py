"""Control-flow signals shared by the session engine, the participants and the LLM client.

The statuses a participant may end its session with live here, beside the signal that
carries them, so the engine, the participants and the LLM client name them from one place.
"""

from __future__ import annotations

PROVIDER_ERROR = "provider_error"
"""A model call failed after its retries (provider down, missing key, context overflow):
the session says nothing about the team; never scored, rerun on resume."""

BUDGET_EXCEEDED = "budget_exceeded"
"""The session's LLM budget did not allow another call: never scored, rerun on resume."""

LOOP = "loop"
"""A participant repeated the same action until the session was ended: the model's own
behaviour, so the session is scored."""


class SessionAbort(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised by a participant to end its session with a given status (e.g. budget)."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
