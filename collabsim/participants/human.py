"""The behavioural model of a scripted simulated human, read from its profile's ``params``.

A collaborator is a small stochastic model, not an oracle (docs/design.md "Simulated humans"):

* **fallibility and expertise** - its own analysis / reading of the query makes the same
  kinds of mistakes as the agent's (:data:`~collabsim.participants.plan.MISTAKE_KINDS` plus
  ``misread_query``), drawn once per session from the seed, at ``error_in_area`` for kinds in
  its area of expertise and ``error_outside`` for the others (:data:`AREAS`). A mistaken
  collaborator is confidently wrong: it objects to a correct draft with a wrong fix;
* **social behaviour** - ``message_propensity`` (probability of saying that it agrees with a
  draft it has no objection to; otherwise it stays silent and the agent waits for it up to its
  patience), ``assertiveness`` (probability of repeating an
  objection the agent declined), ``approve_threshold`` (a gate request it finds issues with is
  rejected only when its confidence in the issue is at least this; confidence is
  ``confidence_in_area`` or ``confidence_outside`` by the issue's area), ``object_outside``
  (probability of voicing, as an objection, a disagreement its check finds outside its area -
  an issue whose fix sets a topic of the other area, e.g. the occurrence or the period for D;
  otherwise it defers that point to the teammate whose area it is, raises only what lies in
  its own area and puts no version of its own forward - its version would carry its
  outside-area reading; default 1 when the profile does not set it - the behaviour before
  the setting existed, kept out of the packaged profiles so that their parameters, and the
  LLM prompts that carry them, stay as they were; ``experiment=expertise_map`` sets 0 with
  its source);
* **reactions** to the agent's draft: the person first checks the draft with its own
  (fallible) analysis or reading, then reacts adopt / modify / reject from the calibrated
  Dirichlet-multinomial :class:`~collabsim.participants.behaviour.ReactionModel` (profile
  ``behaviour.reactions``; one person's rates per session), shifted by what its check found
  (``behaviour.check``, :class:`~collabsim.participants.behaviour.CheckShift`: the Kolab
  reactions to outputs the professional rated poor vs good): *adopt* takes the draft as it is
  (when its check disagreed: over-reliance - it raises nothing and claims no agreement);
  *modify* edits the draft in the result
  editor with its own version (D words its own computation, with its own mistakes and its
  figures; R restates the shown result under its own reading of the query), as a Kolab
  "modify" is the human changing the AI's output; *reject* proposes its own version in chat
  when its check disagrees and insists on it when the agent declines;
* **timing** - :class:`SessionTiming`: the durations of its actions and its think times
  before reacting, from one sequence of the calibrated timing model per session;
* **lead-in** - it may open the session alone (``behaviour.lead_in``, calibrated: in every
  Kolab session the human acts before the AI): it says it will look first (``[lead]``),
  inspects the data or runs its own computation, then asks the agent to start
  (``[kickoff]``); :meth:`HumanModel.lead_in_actions` draws how many actions that takes.

Each scalar parameter is written in the profile as ``{value: ..., source: ...}`` (the source
is ``kolab:...`` for calibrated values or ``prior:...`` for a documented prior); a plain
number (e.g. from a command-line override ``+team.profiles.D.params.error_in_area=0.3``) is
accepted too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from collabsim.participants.behaviour import BehaviourModel, HumanTiming, ReactionRates
from collabsim.participants.plan import seeded_rng
from collabsim.participants.stat_mistakes import STAT_MISTAKE_KINDS, draw_stat_mistakes

# Which mistake / issue kinds belong to which area of expertise. D's area is the computation
# (which column, which window, the recomputed year; on statistical tasks the model choice,
# controls and significance); R's is what the query means (on statistical tasks which
# variable means what, which population, the direction).
AREAS: dict[str, frozenset[str]] = {
    "computation": frozenset({"wrong_column_variant", "wrong_window", "wrong_year",
                              "missing_year", "wrong_description",
                              "omitted_control", "linear_for_binary", "significance_ignored",
                              "wrong_analysis", "wrong_estimate"}),
    "semantics": frozenset({"wrong_ordinal", "peak_vs_plateau", "wrong_relation",
                            "misread_query",
                            "wrong_variable", "wrong_subgroup", "direction_misread"}),
}
HUMAN_MISTAKES: tuple[str, ...] = ("wrong_column_variant", "wrong_ordinal", "peak_vs_plateau",
                                   "wrong_window", "misread_query")
SCALARS: tuple[str, ...] = ("error_in_area", "error_outside", "confidence_in_area",
                            "confidence_outside", "message_propensity", "assertiveness",
                            "approve_threshold", "object_outside")

class HumanConfigError(ValueError):
    """A profile's behavioural parameters are malformed; the message names the key."""


def area_of(kind: str) -> str | None:
    """The area of expertise a mistake / issue kind belongs to (None: unknown kind)."""
    for area, kinds in AREAS.items():
        if kind in kinds:
            return area
    return None


def param_value(data: Mapping[str, Any], key: str, default: float | None = None) -> float:
    """A scalar parameter, written as ``{value, source}`` or as a plain number.

    Raises:
        HumanConfigError: Naming ``key`` when it is missing (and no default) or not a number.
    """
    if key not in data:
        if default is None:
            raise HumanConfigError(f"profile params: missing '{key}'")
        return float(default)
    raw = data[key]
    if isinstance(raw, Mapping):
        raw = raw.get("value")
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise HumanConfigError(f"profile params.{key}: expected a number, got {raw!r}")
    return float(raw)


@dataclass(frozen=True)
class HumanModel:
    """The behavioural parameters of one scripted collaborator (module docstring)."""

    expertise: str
    error_in_area: float
    error_outside: float
    confidence_in_area: float
    confidence_outside: float
    message_propensity: float
    assertiveness: float
    approve_threshold: float
    behaviour: BehaviourModel | None = None
    object_outside: float = 1.0

    @classmethod
    def from_params(cls, data: Mapping[str, Any]) -> HumanModel:
        """Read the model from a profile's ``params`` (``behaviour``: the calibrated block).

        Missing scalars default to an error-free, always-talking, always-adopting-nothing
        checker (the behaviour before this model), so custom profiles keep working.

        Raises:
            HumanConfigError: A malformed parameter (the message names it).
        """
        expertise = str(data.get("expertise", "computation"))
        if expertise not in AREAS:
            raise HumanConfigError(
                f"profile params.expertise: expected one of {sorted(AREAS)}, got {expertise!r}")
        defaults = {"error_in_area": 0.0, "error_outside": 0.0, "confidence_in_area": 1.0,
                    "confidence_outside": 1.0, "message_propensity": 1.0,
                    "assertiveness": 0.0, "approve_threshold": 0.5, "object_outside": 1.0}
        values = {k: param_value(data, k, defaults[k]) for k in SCALARS}
        for key, value in values.items():
            if not 0.0 <= value <= 1.0:
                raise HumanConfigError(f"profile params.{key}: must lie in [0, 1], got {value}")
        behaviour = data.get("behaviour")
        model = BehaviourModel.from_dict(behaviour) if behaviour else None
        return cls(expertise=expertise, behaviour=model, **values)

    def error_rate(self, kind: str) -> float:
        """Probability of making mistake ``kind`` in one session."""
        return self.error_in_area if kind in AREAS[self.expertise] else self.error_outside

    def area_error(self, area: str) -> float:
        """This person's error rate in ``area`` (``computation`` / ``semantics``): its
        ``error_in_area`` in its area of expertise, ``error_outside`` elsewhere (also the
        probability of stating a fact of that area wrongly, see
        :func:`collabsim.participants.asking.believed_setting`)."""
        return self.error_in_area if area == self.expertise else self.error_outside

    def draw_mistakes(self, seed: int, name: str, task_id: str) -> frozenset[str]:
        """This person's own mistakes in the session of ``task_id`` (deterministic)."""
        rng = seeded_rng(seed, name, task_id, "own-mistakes")
        draws = rng.random(len(HUMAN_MISTAKES))
        return frozenset(k for k, u in zip(HUMAN_MISTAKES, draws, strict=True)
                         if u < self.error_rate(k))

    def draw_stat_mistakes(self, seed: int, name: str, task_id: str) -> frozenset[str]:
        """This person's own mistakes of the statistical family in the session of
        ``task_id`` (deterministic; a stream of its own, so the time-series draws of
        :meth:`draw_mistakes` are unchanged)."""
        return draw_stat_mistakes({k: self.error_rate(k) for k in STAT_MISTAKE_KINDS},
                                  seed, name, task_id)

    def confidence(self, kind: str) -> float:
        """How sure this person is of an issue of ``kind`` it found."""
        return self.confidence_in_area if self.in_area(kind) else self.confidence_outside

    def in_area(self, kind: str) -> bool:
        """Whether an issue / mistake of ``kind`` lies in this person's area of expertise."""
        return kind in AREAS[self.expertise]

    def reaction_rates(self, seed: int, name: str, task_id: str,
                       disagrees: bool | None = None) -> ReactionRates | None:
        """This person's adopt/modify/reject rates, if modelled.

        One person per session (seed, member, task), as in the Kolab data, where sessions had
        their own participants: a grid's sessions are independent teams, and its results do
        not hang on the few persons one draw per seed would give.

        Args:
            seed: Session seed.
            name: Participant name.
            task_id: The session's task.
            disagrees: What this person's own check of the output found (True: it disagrees,
                False: it agrees); with a ``behaviour.check`` block the person's rates are
                shifted by it (:class:`~collabsim.participants.behaviour.CheckShift`).
                None: the unconditional rates.
        """
        if self.behaviour is None:
            return None
        rates = self.behaviour.reactions.sample_participant(
            seeded_rng(seed, name, task_id, "reactions"))
        if disagrees is None or self.behaviour.check is None:
            return rates
        return self.behaviour.check.shift(rates, disagrees)

    def lead_in_actions(self, seed: int, name: str, task_id: str) -> int:
        """How many actions this person takes alone before it engages the agent in the
        session of ``task_id``, the engaging request included (0: no lead-in, also without a
        ``behaviour.lead_in`` block)."""
        if self.behaviour is None or self.behaviour.lead_in is None:
            return 0
        return self.behaviour.lead_in.sample_actions(seeded_rng(seed, name, task_id, "lead-in"))


TIMING_SEQUENCE = 64


class SessionTiming:
    """One simulated human's action durations and think times in the sessions it plays.

    Both come from one sequence sampled from the calibrated timing model per (seed, person,
    task): the k-th action it takes lasts ``durations[k]`` and it thinks ``think[k]`` before
    reacting to the k-th draft announced to it. The engine asks :meth:`duration` for each
    action (the ``action_duration`` hook of a participant), so its trace carries these
    durations instead of the clock's generic ones.

    Args:
        model: The calibrated behaviour (None: no timing model, durations from the clock).
        seed: Session seed.
        name: Participant name.
    """

    def __init__(self, model: BehaviourModel | None, seed: int, name: str) -> None:
        self.model = model
        self.seed = int(seed)
        self.name = name
        self.task_id: str | None = None
        self._sequences: dict[str, HumanTiming] = {}
        self._answers: dict[str, HumanTiming] = {}
        self._actions: dict[str, int] = {}

    def sequence(self, task_id: str) -> HumanTiming | None:
        """The sampled timing of the session of ``task_id`` (None without a model)."""
        if self.model is None:
            return None
        if task_id not in self._sequences:
            rng = seeded_rng(self.seed, self.name, task_id, "timing")
            self._sequences[task_id] = self.model.timing.sample(TIMING_SEQUENCE, rng)
        return self._sequences[task_id]

    def think(self, task_id: str, k: int) -> float:
        """Think time before reacting to the k-th announced draft (0 without a model)."""
        timing = self.sequence(task_id)
        return 0.0 if timing is None else float(timing.think[k % TIMING_SEQUENCE])

    def respond(self, task_id: str, k: int) -> float:
        """Think time before answering the k-th question put to this person (0 without a
        model): the calibrated think-time distribution, from a sequence of its own so that
        questions leave the think times before drafts unchanged."""
        if self.model is None:
            return 0.0
        if task_id not in self._answers:
            rng = seeded_rng(self.seed, self.name, task_id, "answer-timing")
            self._answers[task_id] = self.model.timing.sample(TIMING_SEQUENCE, rng)
        return float(self._answers[task_id].think[k % TIMING_SEQUENCE])

    def duration(self, action: str) -> float | None:
        """Duration of this person's next action in the current session (None: the clock's)."""
        if self.task_id is None:
            return None
        timing = self.sequence(self.task_id)
        if timing is None:
            return None
        k = self._actions.get(self.task_id, 0)
        self._actions[self.task_id] = k + 1
        return float(timing.durations[k % TIMING_SEQUENCE])
