"""How a simulated human takes part between the AI's outputs (not only at its drafts).

In the Kolab sessions the professional reacts to most of what the AI produces and almost
never lets two AI outputs follow each other: 333 of the 335 AI nodes are followed by a human
node. The model, one draw per person and AI output:

* with probability ``respond_<kind>`` the person answers the output (a comment that adopts,
  modifies or rejects it, from its own reading), by the output's kind: a code cell, a chat
  message, a memory entry or a draft;
* answering, with probability ``delegate`` it also asks the AI for a step (delegation: the
  responder is the source of the AI's next output);
* not answering, with probability ``act_between`` it does a step of its own before the AI's
  next output (the human node that separates two AI nodes);
* after each of its nodes since the AI's latest output, with probability ``act_again`` it
  does one more step of its own before the AI's next output (runs of human nodes);
* it answers the AI's final output (the draft the AI submits) with probability
  ``respond_final``, also where it would take a draft in silence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from collabsim.participants.behaviour.params import Param, ParamBlock

OutputKind = Literal["code", "message", "memory", "draft"]
OUTPUT_KINDS: tuple[OutputKind, ...] = ("code", "message", "memory", "draft")


@dataclass(frozen=True)
class ParticipationModel(ParamBlock):
    """Per-output-type response probabilities, delegation and own steps.

    Attributes:
        respond_code: P(a person answers an AI code cell).
        respond_message: P(... an AI chat message).
        respond_memory: P(... an AI group-memory entry).
        respond_draft: P(... an AI draft of the answer).
        delegate: P(an answer also asks the AI for a step).
        act_between: P(a person who does not answer acts before the AI's next output).
        act_again: P(one more own step after a person's node, before the AI's next output).
        respond_final: P(a person answers the AI's final output).
    """

    BLOCK: ClassVar[str] = "behaviour.participation"

    respond_code: Param
    respond_message: Param
    respond_memory: Param
    respond_draft: Param
    delegate: Param
    act_between: Param
    act_again: Param
    respond_final: Param

    def __post_init__(self) -> None:
        for name in self.names():
            if not 0.0 <= getattr(self, name).value <= 1.0:
                raise ValueError(f"participation.{name} must lie in [0, 1]")

    def respond(self, kind: OutputKind) -> float:
        """P(a person answers an AI output of ``kind``)."""
        return float(getattr(self, f"respond_{kind}").value)
