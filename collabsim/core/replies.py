"""What a participant hands the engine when its reply holds no usable action.

A participant's :meth:`~collabsim.core.observation.Participant.act` returns the text of one
action, or an :class:`UnusableReply` when its reply cannot be used (an LLM participant whose
repair turn failed too). The engine never parses an unusable reply: it logs an ``INVALID``
event (status ``error``) carrying :attr:`UnusableReply.error`, applies no action, and passes
the error to the participant as feedback. So an action named in a reply's prose, or quoted
in an error message (``FINISH()`` as syntax), can never take effect.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UnusableReply:
    """A reply without a usable action.

    Attributes:
        text: The reply as the model wrote it (logged, cut, in the ``INVALID`` event's args).
        error: Why it is unusable (the ``INVALID`` event's observation and the author's
            feedback).
    """

    text: str
    error: str
