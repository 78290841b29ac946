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


def _truncate(rng: np.random.Generator, text: str, i: int) -> str:
    return text[:i]


def _drop_quotes(rng: np.random.Generator, text: str, i: int) -> str:
    coin = (rng.random(len(text)) < 0.5).tolist()
    return "".join([c for c, keep in zip(text, coin, strict=True) if keep or c not in "\"'()"])


def _double_quotes(rng: np.random.Generator, text: str, i: int) -> str:
    coin = (rng.random(len(text)) < 0.5).tolist()
    return "".join(
        [c * 2 if dup and c in "\"'()" else c for c, dup in zip(text, coin, strict=True)]
    )


def _insert_unicode(rng: np.random.Generator, text: str, i: int) -> str:
    codes = rng.integers(1, 0x10FFFF, size=8)
    chars = "".join(chr(int(c)) for c in codes if not 0xD800 <= c < 0xE000)
    return text[:i] + chars + text[i:]


def _nest(rng: np.random.Generator, text: str, i: int) -> str:
    return text[:i] + text + text[i:]


def _fence(rng: np.random.Generator, text: str, i: int) -> str:
    return f"Sure!\n```\n{text}\n```\nanything else?"


def _respace(rng: np.random.Generator, text: str, i: int) -> str:
    return text.lower().replace("(", " ( ", 1)


def _deep_brackets(rng: np.random.Generator, text: str, i: int) -> str:
    depth = int(rng.integers(1, 3000))
    return text[:i] + "{" * depth + "(" * depth + text[i:]


def _insert_random(rng: np.random.Generator, text: str, i: int) -> str:
    return text[:i] + _random_text(rng, int(rng.integers(1, 20))) + text[i:]


_MUTATIONS: tuple[Callable[[np.random.Generator, str, int], str], ...] = (
    _truncate,  # 0
    _drop_quotes,  # 1: delete quotes / parentheses
    _double_quotes,  # 2: duplicate quotes / parentheses
    _insert_unicode,  # 3: random unicode
    _nest,  # 4: nested call
    _fence,  # 5: prose and fences
    _respace,  # 6: case and spacing
    _deep_brackets,  # 7
    _insert_random,  # 8: random alphabet text
)
"""Mutations of an action text at a position, by kind (the seeded draw picks one)."""


def _mutate(rng: np.random.Generator, text: str) -> str:
    kind = int(rng.integers(0, len(_MUTATIONS)))
    if not text:
        return text
    i = int(rng.integers(0, len(text)))
    return _MUTATIONS[kind](rng, text, i)


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
