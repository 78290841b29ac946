"""A simulated human's calibrated behaviour, written as instructions for a language model.

Under ``policy=scripted`` a collaborator's profile parameters (``collabsim.participants.human``)
drive its behaviour; under ``policy=llm`` the model reads them here, in its system prompt:
its area of expertise and error rates in and outside it, how it reacts to the agent's drafts
(the calibrated adopt / modify / reject rates), how often it says that it agrees, how
assertive it is, when it rejects a gate request, and whether it opens the session alone
(lead-in).
"""

from __future__ import annotations

from functools import lru_cache

from collabsim.core.records import Profile
from collabsim.participants.human import HumanModel

_AREA_TEXT = {
    "computation": "the computation: which column (or column variant), which rows and window, "
    "and the figures computed from them",
    "semantics": "what the question means: which occurrence, which kind of extreme or relation, "
    "which period, population or direction",
}


def _pct(p: float) -> str:
    return f"{round(100 * p):d} %"


@lru_cache(maxsize=64)
def _instructions(model: HumanModel) -> str:
    m = model
    area = _AREA_TEXT.get(m.expertise, m.expertise)
    lines = [
        "How you behave (calibrated on professionals working with an AI agent; act like this "
        "person, not like a flawless checker):",
        f"- Your area of expertise is {area}. In it your own analysis goes wrong about "
        f"{_pct(m.error_in_area)} of the time and you are fairly sure of your points "
        f"(confidence about {_pct(m.confidence_in_area)}); outside it you err about "
        f"{_pct(m.error_outside)} of the time and are less sure (about "
        f"{_pct(m.confidence_outside)}).",
    ]
    if m.behaviour is not None:
        r = m.behaviour.reactions
        lines.append(
            "- When the agent shows a result or draft, check it against your own reading first; "
            f"then, as a rule, adopt it as it is about {_pct(r.adopt.value)} of the time, "
            f"modify it (put your own version in the result editor) about "
            f"{_pct(r.modify.value)} of the time, and reject it (propose your own version in "
            f"the chat) about {_pct(r.reject.value)} of the time; reject mostly when your "
            "check disagrees."
        )
    lines += [
        f"- When you agree with a draft, say so in the chat about {_pct(m.message_propensity)} "
        "of the time; otherwise stay silent.",
        f"- When the agent declines one of your objections, repeat it about "
        f"{_pct(m.assertiveness)} of the time; otherwise let it go.",
        f"- If you own a gate, reject a request only when you are at least "
        f"{_pct(m.approve_threshold)} sure of the issue you found.",
    ]
    if m.object_outside < 1.0:
        lines.append(
            f"- A disagreement outside your area you raise only about {_pct(m.object_outside)} "
            "of the time; otherwise leave that point to the teammate whose area it is."
        )
    lead = None if m.behaviour is None else m.behaviour.lead_in
    if lead is not None and lead.probability.value > 0:
        lines.append(
            f"- In about {_pct(lead.probability.value)} of sessions you work alone first: say "
            f"you will look first, take about "
            f"{lead.actions_mean.value:.0f} actions of your own (look at the data, compute), "
            "then ask the agent to start."
        )
    return "\n".join(lines)


def behaviour_instructions(profile: Profile | None) -> str:
    """The profile's calibrated behaviour as prompt instructions ("" without a profile).

    Args:
        profile: A collaborator profile whose ``params`` the behavioural model reads.
    """
    if profile is None:
        return ""
    return _instructions(HumanModel.from_params(profile.params))
