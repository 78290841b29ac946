"""The stochastic, data-fitted parts of a simulated human (timing, reactions to AI output and to
what the own check found, lead-in).

Parameters are frozen records whose every value carries its source (:class:`Param`); they
are fitted by ``collabsim calibrate`` (:mod:`collabsim.calibration`) from the Kolab graphs
and stored in a profile's ``behaviour:`` block. All sampling takes a seeded
``numpy.random.Generator``.
"""

from collabsim.participants.behaviour.lead_in import LeadInModel
from collabsim.participants.behaviour.params import BehaviourConfigError, Param
from collabsim.participants.behaviour.profile import BehaviourModel, load_behaviour
from collabsim.participants.behaviour.reactions import (
    LABELS,
    CheckShift,
    ReactionModel,
    ReactionRates,
)
from collabsim.participants.behaviour.timing import HumanTiming, TimingModel, event_times

__all__ = [
    "LABELS",
    "BehaviourConfigError",
    "BehaviourModel",
    "CheckShift",
    "HumanTiming",
    "LeadInModel",
    "Param",
    "ReactionModel",
    "ReactionRates",
    "TimingModel",
    "event_times",
    "load_behaviour",
]
