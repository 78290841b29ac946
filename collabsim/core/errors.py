"""Control-flow signals shared by the session engine, the participants and the LLM client."""

from __future__ import annotations


class SessionAbort(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised by a participant to end its session with a given status (e.g. budget)."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
