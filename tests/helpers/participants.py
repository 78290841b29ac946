"""Small hand-written participants and fuzz strings for engine tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from collabsim.core.actions import ACTION_SPECS, format_action
from collabsim.core.observation import Observation, Role

WAIT = "WAIT_TEAMMATE_CONTINUE()"


@dataclass
class ScriptParticipant:
    """Plays a fixed list of action texts, then ``then`` forever; records observations."""

    name: str
    role: Role
    script: Sequence[str]
    then: str = WAIT
    observations: list[Observation] = field(default_factory=list)

    async def act(self, observation: Observation) -> str:
        self.observations.append(observation)
        i = len(self.observations) - 1
        return self.script[i] if i < len(self.script) else self.then


@dataclass
class FnParticipant:
    """Decides with a function of the observation; records observations."""

    name: str
    role: Role
    fn: Callable[[Observation], str]
    observations: list[Observation] = field(default_factory=list)

    async def act(self, observation: Observation) -> str:
        self.observations.append(observation)
        return self.fn(observation)


# --------------------------------------------------------------------------- fuzzing
_ALPHABET = list("abcXYZ_ =,()[]{}'\"\\\n\t:#`é🎉\u2028") + ["\\n", '\\"', '"""', "'''"]


def _random_text(rng: np.random.Generator, n: int) -> str:
    return "".join([_ALPHABET[i] for i in rng.integers(0, len(_ALPHABET), size=n).tolist()])


def _mutate(rng: np.random.Generator, text: str) -> str:
    kind = int(rng.integers(0, 9))
    if not text:
        return text
    i = int(rng.integers(0, len(text)))
    if kind == 0:  # truncation
        return text[:i]
    if kind in (1, 2):
        coin = (rng.random(len(text)) < 0.5).tolist()
    if kind == 1:  # delete quotes / parentheses
        return "".join([c for c, keep in zip(text, coin, strict=True) if keep or c not in "\"'()"])
    if kind == 2:  # duplicate quotes / parentheses
        return "".join(
            [c * 2 if dup and c in "\"'()" else c for c, dup in zip(text, coin, strict=True)]
        )
    if kind == 3:  # random unicode
        codes = rng.integers(1, 0x10FFFF, size=8)
        chars = "".join(chr(int(c)) for c in codes if not 0xD800 <= c < 0xE000)
        return text[:i] + chars + text[i:]
    if kind == 4:  # nested call
        return text[:i] + text + text[i:]
    if kind == 5:  # prose and fences
        return f"Sure!\n```\n{text}\n```\nanything else?"
    if kind == 6:  # case and spacing
        return text.lower().replace("(", " ( ", 1)
    if kind == 7:  # deep brackets
        depth = int(rng.integers(1, 3000))
        return text[:i] + "{" * depth + "(" * depth + text[i:]
    return text[:i] + _random_text(rng, int(rng.integers(1, 20))) + text[i:]


def fuzz_strings(seed: int, n: int) -> list[str]:
    """Random and mutated action strings (seeded)."""
    rng = np.random.default_rng(seed)
    names = sorted(ACTION_SPECS)
    out: list[str] = []
    for k in range(n):
        if k % 10 == 0:
            out.append(_random_text(rng, int(rng.integers(0, 200))))
            continue
        name = names[int(rng.integers(0, len(names)))]
        spec = ACTION_SPECS[name]
        args = {a: _random_text(rng, int(rng.integers(0, 40))) for a in spec.arg_names}
        text = format_action(name, **args)
        for _ in range(int(rng.integers(1, 4))):
            text = _mutate(rng, text)
        out.append(text)
    out.append("EXECUTE_CODE(code=" + '"' * 200_000)
    out.append("EXECUTE_CODE(" * 20_000)
    out.append(format_action("EXECUTE_CODE", code="x" * 500_000)[:-1])
    out.append("SEND_TEAMMATE_MESSAGE({" + '"message": {' * 5000 + "})")
    return out


# The scripted agent the session tests were written for (its built-in values before they
# became the configs' values, see AgentParams): no mistakes, it always follows an objection,
# starts at once and waits for its teammates up to turn 45. Merge a test's own values over it.
CAREFUL_AGENT: dict[str, object] = {"mistakes": {}, "deference": 1.0,
                                    "lead_patience_seconds": 0.0, "finish_by_turn": 45}
