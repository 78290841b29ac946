"""The scripted D / R collaborators (see :mod:`collabsim.participants.scripted`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from collabsim.core.actions import format_action, format_wait
from collabsim.core.knowledge import Fact
from collabsim.core.observation import Observation, Role
from collabsim.core.records import GateRequest, Profile
from collabsim.core.tags import (
    draft_fingerprint,
    format_insist,
    format_kickoff,
    format_lead,
)
from collabsim.domain.stats.model import StatPlan
from collabsim.participants import deference, participation
from collabsim.participants.asking import (
    believed_setting,
    fact_expertise,
    fact_sentence,
    settled_kinds,
    statement,
)
from collabsim.participants.cells import (
    AnalysisResult,
    compute_cell,
    inspect_cell,
    parse_result,
)
from collabsim.participants.claims import (
    Issue,
    check_numbers,
    check_wording,
    claim_years,
    describe_check,
    format_check_message,
    format_proposal_message,
)
from collabsim.participants.collaborator_memory import knowledge_entries, memory_entries
from collabsim.participants.collaborator_review import decide_code
from collabsim.participants.human import SessionTiming
from collabsim.participants.plan import (
    AnalysisPlan,
    apply_mistakes,
    misread_semantics,
    seeded_rng,
)
from collabsim.participants.query import QuerySemantics
from collabsim.participants.reading import read_brief
from collabsim.participants.scripted_common import (
    WAIT,
    Reading,
    Rule,
    allowed,
    build_step,
    say,
    transactive_memory,
)
from collabsim.participants.scripted_params import CollaboratorParams
from collabsim.participants.session_log import SessionLog, SessionReader
from collabsim.participants.stat_collaborator import (
    cell_of,
    has_data,
    inspect_of,
    stat_confirmation,
    stat_issues,
    stat_own_version,
    stat_reading,
    stat_restatement,
)
from collabsim.participants.wording import draft_hypothesis, restate
from collabsim.tasks.model import TaskBrief


@dataclass(frozen=True)
class CollaboratorTurn:
    """What one decision of a collaborator looks at: the observation, my log of the session
    (what chat, cells and history showed, kept up to date event by event), the draft in the
    editor (``fp``: its fingerprint, empty without a draft), my reading of the task and the
    gated request waiting for my decision."""

    obs: Observation
    log: SessionLog
    draft: str
    fp: str
    semantics: QuerySemantics
    plan: AnalysisPlan
    request: GateRequest | None


class ScriptedCollaborator:
    """A scripted simulated collaborator driven by its profile (see module docstring).

    Profile params (updated by the run's ``params``): the typed
    :class:`~collabsim.participants.scripted_params.CollaboratorParams` (unknown keys are
    refused).
    """

    role: Role = "collaborator"
    policy_name = "scripted"

    def __init__(self, profile: Profile, seed: int = 0,
                 params: Mapping[str, Any] | None = None) -> None:
        self.profile = profile
        self.name = profile.key
        self.seed = int(seed)
        self.params = CollaboratorParams.from_mapping({**dict(profile.params),
                                                       **dict(params or {})})
        self.numbers = self.params.recompute_claims
        self.wording = self.params.check_wording
        self.human = self.params.human
        self.timing = SessionTiming(self.human.behaviour, self.seed, self.name)
        # caches of what (brief, seed, params) give and of folds of the observation: what
        # I said, wrote and decided is read back from the observation, so a new instance
        # decides at any turn as the one that decided the turns before
        self._cache: dict[str, Reading] = {}
        self._reader = SessionReader()
        self._lead_actions: dict[str, int] = {}  # task id -> drawn K (asked every turn)

    async def act(self, observation: Observation) -> str:
        """Return the next action text."""
        return self.decide(observation)

    def log(self, obs: Observation) -> SessionLog:
        """My log of the session up to ``obs`` (read incrementally,
        :class:`~collabsim.participants.session_log.SessionReader`)."""
        return self._reader.read(obs)

    def reading(self, brief: TaskBrief) -> Reading:
        """This person's own (possibly mistaken) reading of a task, drawn per session."""
        if brief.task_id not in self._cache:
            stats = stat_reading(self, brief)  # a statistical task: the family's own reading
            if stats is not None:
                self._cache[brief.task_id] = stats
                return stats
            # the query read with my facts as I believe them: one belief per person, the
            # same I state when asked or record in memory (believed_facts); a fact I hold
            # settles what it fixes, so no reading mistake of mine changes that (settled_kinds)
            believed = tuple(replace(f, setting=s) for f, s in self.believed_facts(brief))
            truth, correct = read_brief(replace(brief, facts=believed))
            settled = settled_kinds(brief.facts)
            mistakes = frozenset(m for m in self.human.draw_mistakes(
                self.seed, self.name, brief.task_id) if m not in settled)
            semantics = misread_semantics(truth, mistakes)
            plan = apply_mistakes(correct, mistakes)
            self._cache[brief.task_id] = Reading(semantics, plan, mistakes)
        return self._cache[brief.task_id]

    def believed_facts(self, brief: TaskBrief) -> tuple[tuple[Fact, tuple[tuple[str, str], ...]], ...]:
        """Each fact of my brief with the setting I state for it: the fact's own, or a wrong
        one with my error rate for the fact's area (one draw per session and topic,
        :func:`~collabsim.participants.asking.believed_setting`)."""
        return tuple(
            (f, believed_setting(f, brief, self.human.area_error(fact_expertise(f)),
                                 self.seed, self.name))
            for f in brief.facts)

    def statement(self, brief: TaskBrief, topic: str) -> str:
        """What I say when asked about ``topic``: the fact I hold as I believe it (its own
        text when I have it right), else that I do not know; ends with its fact tag."""
        return statement(brief, topic, dict(self.believed_facts(brief)).__getitem__)

    def _task(self, brief: TaskBrief) -> tuple[QuerySemantics, AnalysisPlan]:
        reading = self.reading(brief)
        return reading.semantics, reading.plan

    def reaction(self, obs: Observation, fp: str, disagrees: bool) -> str:
        """adopt / modify / reject of the agent's draft ``fp`` after my own check of it
        ``disagrees`` (or agrees) with it; ``check`` (raise the issues in chat, the behaviour
        before reactions were modelled) without a ``behaviour`` block.

        The label comes from one uniform draw per (person, task, draft) through the rates the
        check outcome gives, so the same person's reaction moves only where the outcome
        shifts its rates."""
        rates = self.human.reaction_rates(self.seed, self.name, obs.task.task_id, disagrees)
        if rates is None:
            return "check"
        return rates.sample(seeded_rng(self.seed, self.name, obs.task.task_id, fp, "reaction"))

    def action_duration(self, action: str) -> float | None:
        """How long my next action lasts: from the calibrated timing model (engine hook)."""
        return self.timing.duration(action)

    def decide(self, obs: Observation) -> str:
        """Synchronous decision (the whole policy): the build phase's memory step, else the
        action of the first rule of :attr:`RULES` whose guard holds."""
        self.timing.task_id = obs.task.task_id
        if obs.phase == "build":
            stats = isinstance(self.reading(obs.task).plan, StatPlan)
            return build_step(obs, memory_entries(self, stats) + knowledge_entries(self, obs))
        turn = self._turn(obs)
        return self._first_rule(turn).act(self, turn)

    def rule_for(self, obs: Observation) -> Rule:
        """The rule that decides on ``obs`` in the work phase (which :meth:`decide` takes)."""
        return self._first_rule(self._turn(obs))

    def _first_rule(self, turn: CollaboratorTurn) -> Rule:
        """The first rule whose guard holds for this turn (the last one always does)."""
        return next(rule for rule in self.RULES if rule.guard(self, turn))

    def _turn(self, obs: Observation) -> CollaboratorTurn:
        """Read the observation: the draft in the editor and the request I must decide."""
        draft = obs.editor_text
        fp = draft_fingerprint(draft) if draft.strip() else ""
        semantics, plan = self._task(obs.task)
        request = obs.pending_for_me[0] if obs.pending_for_me else None
        return CollaboratorTurn(obs, self.log(obs), draft, fp, semantics, plan, request)

    # ------------------------------------------------------------------ rules: guards
    def _code_requested(self, t: CollaboratorTurn) -> bool:
        """A teammate's code waits for my decision."""
        return t.request is not None and t.request.action_type == "EXECUTE_CODE"

    def _leading(self, t: CollaboratorTurn) -> bool:
        """I open the session alone (see :meth:`_lead_in_step`) and nobody engaged the agent."""
        obs = t.obs
        if self._lead_in_actions(obs) == 0 or not allowed(obs, "SEND_TEAMMATE_MESSAGE"):
            return False
        if not self._leads(obs):
            return False
        return not (t.log.chat.kickoff or t.log.cells.others_ran_code)

    def _recomputes(self, t: CollaboratorTurn) -> bool:
        """My recomputation validates a draft (or a request I must decide): I start it once
        there is one, reacting to the agent's output as Kolab's humans do, not alongside the
        agent's own analysis (a lead-in's look at the data is the lead-in's)."""
        obs = t.obs
        return (self.numbers and self._own_result(obs, t.plan) is None
                and has_data(t.plan) and bool(t.fp or t.request is not None)
                and not obs.my_pending and not self._computed(obs, t.plan)
                and allowed(obs, "EXECUTE_CODE"))

    def _escalating(self, t: CollaboratorTurn) -> bool:
        return self._escalates(t.obs)

    def _gate_requested(self, t: CollaboratorTurn) -> bool:
        """Another gated action waits for my decision."""
        return t.request is not None

    def _question_for_me(self, t: CollaboratorTurn) -> bool:
        """A teammate asked me about a topic and I have not answered yet."""
        return (allowed(t.obs, "SEND_TEAMMATE_MESSAGE")
                and self._unanswered(t.obs) is not None)

    def _takes_part(self, t: CollaboratorTurn) -> bool:
        """The agent's latest output waits for my answer or a step of my own
        (:func:`~collabsim.participants.participation.takes_part`)."""
        return participation.takes_part(self, t)

    def _nothing_to_check(self, t: CollaboratorTurn) -> bool:
        """No draft, no way to talk about it, or the editor holds my own edit."""
        return (not t.fp or not allowed(t.obs, "SEND_TEAMMATE_MESSAGE")
                or t.log.history.wrote(t.draft))

    def _objected(self, t: CollaboratorTurn) -> bool:
        """I already posted my check of this draft."""
        return self._posted(t.obs, t.fp)

    def _loafing(self, t: CollaboratorTurn) -> bool:
        """Nobody asked me anything and I leave the shared check of this draft to others
        (:meth:`loafs`)."""
        return (bool(t.fp) and t.request is None and self._unanswered(t.obs) is None
                and not t.log.history.wrote(t.draft) and self.loafs(t.obs, t.fp))

    def _reading(self, t: CollaboratorTurn) -> bool:
        """Still thinking about the draft: until it is read."""
        return t.obs.time < self._ready_at(t.obs, t.fp)

    def _always(self, t: CollaboratorTurn) -> bool:
        return True

    # ----------------------------------------------------------------- rules: actions
    def _decide_code_request(self, t: CollaboratorTurn) -> str:
        assert t.request is not None
        return self._decide_code(t.request.request_id, str(t.request.args.get("code", "")),
                                 t.plan, t.obs.task, t.log.cells.missing_bins)

    def _recompute(self, t: CollaboratorTurn) -> str:
        return format_action("EXECUTE_CODE", code=cell_of(t.plan, compute_cell))

    def _escalate(self, t: CollaboratorTurn) -> str:
        return self._finish_myself(t.obs)

    def _decide_gate_request(self, t: CollaboratorTurn) -> str:
        return self._decide_gate(t.obs, t.request)

    def _wait(self, t: CollaboratorTurn) -> str:
        return format_action(WAIT)

    def _follow_up(self, t: CollaboratorTurn) -> str:
        return self._edit_or_insist(t.obs, t.fp, t.draft)

    def _answer(self, t: CollaboratorTurn) -> str:
        """Answer the oldest question put to me, after my think time (from when it was asked):
        from the facts of my brief, fallibly, or "I don't know"."""
        obs = t.obs
        question = self._unanswered(obs)
        assert question is not None
        key, topic, asked_at, k = question
        ready = asked_at + self.timing.respond(obs.task.task_id, k)
        if obs.time < ready:
            return format_wait(ready - obs.time)
        return say(self.statement(obs.task, topic))

    def _unanswered(self, obs: Observation) -> tuple[str, str, float, int] | None:
        """(key, topic, time asked, index among the questions put to me) of the oldest
        question to me I have not answered: I answer them in turn, each with one message
        ending with its fact tag, so the first ones are answered, as many as I posted
        answers."""
        chat = self.log(obs).chat
        k = len(chat.my(lambda tags: bool(tags.facts)))
        if k >= len(chat.asks_to_me):
            return None
        key, topic, time = chat.asks_to_me[k]
        return key, topic, time, k

    def _take_part(self, t: CollaboratorTurn) -> str:
        return participation.take_part(self, t)

    def _wait_until_read(self, t: CollaboratorTurn) -> str:
        return format_wait(self._ready_at(t.obs, t.fp) - t.obs.time)

    def _react(self, t: CollaboratorTurn) -> str:
        """I look at the draft first (my own, fallible check); what I find shifts my reaction:
        adopt takes the draft as it is - also when my check disagreed (over-reliance); modify
        and reject put my own version forward; otherwise I raise what I found."""
        found = self.issues(t.obs, t.draft)
        reaction = self.reaction(t.obs, t.fp, disagrees=bool(found))
        if reaction == "adopt":
            return self._agree(t, agrees=not found)
        raised = self.voiced(t.obs, t.fp, found)
        if len(raised) == len(found):  # deferring a point, I put no version of mine forward
            proposal = self._proposal(t, reaction, found)
            if proposal is not None:
                return proposal
        if raised:
            return say(format_check_message(self.name, raised, t.draft))
        return self._agree(t, agrees=not found)

    def voiced(self, obs: Observation, fp: str, found: tuple[Issue, ...]) -> tuple[Issue, ...]:
        """The issues I raise of those my check ``found`` in the draft ``fp``
        (:func:`~collabsim.participants.deference.voiced`; one draw per person, task and draft)."""
        if transactive_memory(obs) or not obs.coordination.unrouted_advice:
            # the memory records who knows what (or advice is routed anyway): the rest is
            # left to the teammate whose area it is
            return tuple(i for i in found if deference.in_area(i, self.human))
        return deference.voiced(found, self.human, lambda: seeded_rng(
            self.seed, self.name, obs.task.task_id, fp, "object_outside").random())

    def loafs(self, obs: Observation, fp: str) -> bool:
        """Whether I skip checking the draft ``fp`` (social loafing,
        ``coordination.loafing``): I own no gated action and share the check with other
        collaborators, each of whom could do it; with ``n`` others the chance is
        ``1 - (1 - loafing) ** n`` (Latane et al. 1979: effort falls as more people share a
        task). One draw per person, task and draft."""
        rate = obs.coordination.loafing
        others = len(obs.teammates) - 1  # the first teammate is the agent
        if rate <= 0.0 or others < 1 or obs.me in obs.gates.values():
            return False
        p = 1.0 - (1.0 - rate) ** others
        return bool(seeded_rng(self.seed, self.name, obs.task.task_id, fp, "loaf").random() < p)

    def _proposal(self, t: CollaboratorTurn, reaction: str, issues: tuple[Issue, ...]) -> str | None:
        """modify (and a reject that finds no issue): edit the draft with my own version
        (announced first, so that the agent knows whose edit the editor holds); a reject with
        issues: propose it and insist on it. None: I have no version of my own to offer."""
        if reaction not in ("modify", "reject"):
            return None
        version = self.own_version(t.obs, t.draft)
        if version is None:
            return None
        # reject without an issue of my own: I do not use the agent's text (the Kolab label)
        # although my check agrees with its content, so I put my own version in its place
        replaces = reaction == "reject" and not issues
        if (reaction == "modify" or replaces) and version.strip() == t.draft.strip():
            # modify means editing (the Kolab label): agreeing, it still rewrites the draft
            # in its own terms - D with its figures, R with what it reads the query to ask
            version = self.restatement(t.obs, version)
        if version.strip() == t.draft.strip() or t.log.history.wrote(version):
            return None
        edit = (reaction == "modify" or replaces) and allowed(t.obs, "EDITOR_UPDATE")
        # with an edit, the message announces it (``[edit draft=...]``) and names the
        # version I will write (see :meth:`_planned_edit`)
        return say(format_proposal_message(issues, t.draft, version, edit, replaces))

    def _agree(self, t: CollaboratorTurn, agrees: bool) -> str:
        """Agreeing needs no message: whether it says so is its message propensity - or, the
        draft being the agent's final output, ``participation.respond_final``; taking it in
        silence I may do a step of my own (:mod:`~collabsim.participants.participation`)."""
        task_id = t.obs.task.task_id
        speak = seeded_rng(self.seed, self.name, task_id, t.fp, "speak").random()
        chatty = seeded_rng(self.seed, self.name, task_id, t.fp, "confirm").random()
        if ((speak >= self.human.message_propensity or chatty >= self.params.confirm_propensity)
                and not participation.confirms_final(self, t)):
            return participation.silent_step(self, t)
        if isinstance(t.plan, StatPlan):
            confirmation = stat_confirmation(self, t.obs, self.reading(t.obs.task), agrees)
        else:
            own = self._own_result(t.obs, t.plan)
            confirmation = self._confirmation(t.semantics, own, agrees=agrees)
        return say(format_check_message(self.name, (), t.draft, confirmation))

    def _lead_in_actions(self, obs: Observation) -> int:
        """``K``, how many actions I take alone before I engage the agent (the calibrated
        draw, once per session; 0: no lead-in)."""
        task_id = obs.task.task_id
        if task_id not in self._lead_actions:
            self._lead_actions[task_id] = self.human.lead_in_actions(
                self.seed, self.name, task_id)
        return self._lead_actions[task_id]

    def _lead_in_step(self, t: CollaboratorTurn) -> str:
        """My next action while I open the session alone: say so, look at the data (D: its
        own computation), then ask the agent to start - ``min(K, 3)`` actions."""
        obs, plan = t.obs, t.plan
        k = self._lead_in_actions(obs)
        if obs.my_pending:
            return format_action(WAIT)
        if k >= 2 and not t.log.chat.my(lambda tags: tags.lead):
            return say("I will look at the data myself first and "
                       f"tell you when to start. {format_lead()}")
        if k >= 3 and not t.log.cells.my_last and has_data(plan) and allowed(obs, "EXECUTE_CODE"):
            # the K - 2 actions between saying so and asking the agent are one look at the
            # data: every landing wakes the waiting agent, whose decisions are budgeted
            # (run.max_turns), so a lead-in of more than 3 actions is shortened to 3
            code = (cell_of(plan, compute_cell) if self.numbers and not self._computed(obs, plan)
                    else inspect_of(plan, inspect_cell))
            return format_action("EXECUTE_CODE", code=code)
        return say("I have looked at the data. Over to you: please "
                   f"run the analysis and draft the hypothesis. {format_kickoff()}")

    @staticmethod
    def _leads(obs: Observation) -> bool:
        """Whether I am the one who opens the session: the lead-in is calibrated per Kolab
        session (one human), so in a team one collaborator leads - the first by name (the
        first teammate in an observation is the agent)."""
        return obs.me == min((obs.me, *obs.teammates[1:]))

    def _ready_at(self, obs: Observation, fp: str) -> float:
        """When this person has read the draft ``fp`` in the editor: from when it first saw
        it there (``obs.editor_seen``; or its announcement, if that came first), plus a think time from the
        calibrated timing model (the k-th announced draft gets the k-th think time of this
        session's sampled sequence; a draft not announced (yet) gets the next one)."""
        if self.human.behaviour is None:
            return 0.0
        announced = self.log(obs).chat.announced
        rank, first = announced.get(fp, (len(announced), math.inf))
        seen = obs.time if obs.editor_seen is None else obs.editor_seen
        start = min(seen, first)
        return start + self.timing.think(obs.task.task_id, rank)

    def _decide_gate(self, obs: Observation, request: Any) -> str:
        """Decide a gate request: reject only issues it is confident enough about."""
        text = (str(request.args.get("text", "")) if request.action_type == "EDITOR_UPDATE"
                else obs.editor_text)
        if obs.coordination.gate_checks and request.action_type == "FINISH" and not text.strip():
            # responsibility for the submission: an empty editor is no answer to submit
            return format_action("REJECT", request_id=request.request_id,
                                 reason="The editor is empty: there is no hypothesis to submit.")
        fp = draft_fingerprint(text)
        found = self.issues(obs, text)
        if obs.coordination.gate_checks:
            # responsibility: my decision is my own check in my area - what it finds there
            # and I am sure of blocks, and no adopt-despite-disagreeing draw overrules it
            issues = tuple(i for i in found if deference.owners_check(i, self.human)
                           and self.human.confidence(i.kind) >= self.human.approve_threshold)
        else:
            if self.reaction(obs, fp, disagrees=bool(found)) == "adopt":
                return format_action("APPROVE", request_id=request.request_id)
            issues = tuple(i for i in self.voiced(obs, fp, found)
                           if self.human.confidence(i.kind) >= self.human.approve_threshold)
        if issues and not self._posted(obs, fp) and allowed(obs, "SEND_TEAMMATE_MESSAGE"):
            return say(format_check_message(self.name, issues, text))
        if issues:
            reason = " ".join(i.message for i in issues) + " " + " ".join(
                i.tag() for i in issues)
            return format_action("REJECT", request_id=request.request_id, reason=reason)
        return format_action("APPROVE", request_id=request.request_id)

    def _escalates(self, obs: Observation) -> bool:
        """Whether I, owning FINISH, end a standoff: after ``escalate_after`` rejections of
        the agent's FINISH, or once the agent hands the submission over to me after one, the
        owner decides (its decision binds) instead of blocking on."""
        if obs.gates.get("FINISH") != obs.me or not allowed(obs, "FINISH"):
            return False
        log = self.log(obs)
        rejected = log.history.finish_rejections
        handed = rejected > 0 and log.chat.handover_by_other
        return handed or rejected >= self.params.escalate_after

    def _finish_myself(self, obs: Observation) -> str:
        """Put my own version in the editor (once, unless another owner gates the editor)
        and submit it."""
        if obs.my_pending:
            return format_action(WAIT)
        version = self.own_version(obs, obs.editor_text)
        editor_owner = obs.gates.get("EDITOR_UPDATE")
        empty = not obs.editor_text.strip()
        plan = self._task(obs.task)[1]
        if (empty and version is None and self.numbers and has_data(plan)
                and not self._computed(obs, plan) and allowed(obs, "EXECUTE_CODE")):
            # nothing to submit and no version of mine yet: compute it first
            return format_action("EXECUTE_CODE", code=cell_of(plan, compute_cell))
        if (version is not None and version.strip() != obs.editor_text.strip()
                and (editor_owner in (None, obs.me) or empty)  # a request to its owner
                and not self._escalation_edited(obs) and allowed(obs, "EDITOR_UPDATE")):
            return format_action("EDITOR_UPDATE", text=version)
        return format_action("FINISH")

    def _escalation_edited(self, obs: Observation) -> bool:
        """Whether I already put my own version in the editor to end a standoff: an editor
        update of mine that is none of the edits I announced (:meth:`_planned_edit`)."""
        log = self.log(obs)
        announced = [tags.proposed for _, tags in log.chat.my_tags
                     if tags.edited and tags.proposed is not None]
        return log.history.wrote_besides(announced)

    @staticmethod
    def _planned_edit(log: SessionLog, fp: str) -> str | None:
        """The version I announced I would write in place of the draft ``fp``: the one my
        check of it proposes with an edit tag (None: I announced no edit of it)."""
        for _, tags in log.chat.my_tags:
            if (fp in tags.checked and tags.edited and fp not in tags.edited
                    and tags.proposed is not None):
                return tags.proposed
        return None

    def own_version(self, obs: Observation, draft: str) -> str | None:
        """The draft as this person would write it: D words its own computation (with its
        own mistakes), R restates the visible result under its own reading of the query."""
        semantics, plan = self._task(obs.task)
        if isinstance(plan, StatPlan):
            return stat_own_version(self, obs, self.reading(obs.task))
        if self.numbers:
            own = self._own_result(obs, plan)
            if own is not None and (own.year is not None or own.trends):
                return draft_hypothesis(own, semantics)
        if self.wording:
            shown = self.log(obs).cells.others_results
            if not shown:
                return None
            years = claim_years(draft)
            basis = next((r for r in reversed(shown) if r.year is not None and r.year in years),
                         shown[-1])
            return restate(basis, semantics)
        return None

    def restatement(self, obs: Observation, version: str) -> str:
        """``version`` in this person's own terms: D adds the figures of its computation,
        R the question as it reads it."""
        semantics, plan = self._task(obs.task)
        if isinstance(plan, StatPlan):
            return stat_restatement(self, obs, self.reading(obs.task), version)
        own = self._own_result(obs, plan) if self.numbers else None
        body = version.strip().rstrip(".")
        if own is not None:
            figure = "" if own.value is None else f", value {own.value:.2f}"
            return f"{body} ({'+'.join(own.columns)}{figure})."
        return f"{body}, which answers {describe_check(semantics)}."

    def _edit_or_insist(self, obs: Observation, fp: str, draft: str) -> str:
        """After my objection to ``fp``: make the edit I announced, else maybe insist."""
        log = self.log(obs)
        planned = self._planned_edit(log, fp)
        if planned is not None and not log.history.wrote(planned):
            if obs.my_pending:
                return format_action(WAIT)
            return format_action("EDITOR_UPDATE", text=planned)
        return self._maybe_insist(obs, fp, draft)

    def _maybe_insist(self, obs: Observation, fp: str, draft: str) -> str:
        """After the agent declined my objection to ``fp``: repeat it (assertiveness) once."""
        chat = self.log(obs).chat
        if fp not in chat.kept or chat.my(lambda tags: tags.insist and fp in tags.checked):
            return format_action(WAIT)
        issues = self.voiced(obs, fp, self.issues(obs, draft))
        if not issues:
            return format_action(WAIT)
        pushes = self.reaction(obs, fp, disagrees=True) == "reject" or seeded_rng(
            self.seed, self.name, obs.task.task_id, fp, "insist").random() < (
            self.human.assertiveness)
        if not pushes:
            return format_action(WAIT)
        return say(format_insist(format_check_message(self.name, issues, draft)))

    def issues(self, obs: Observation, text: str) -> tuple[Issue, ...]:
        """All issues this collaborator's (fallible) checks find in ``text`` (none in a text
        it wrote itself)."""
        if self.log(obs).history.wrote(text):
            return ()
        semantics, plan = self._task(obs.task)
        found: list[Issue] = []
        if isinstance(plan, StatPlan):
            found = stat_issues(self, obs, text, self.reading(obs.task))
        elif self.wording:
            found += check_wording(semantics, text)
        if self.numbers and not isinstance(plan, StatPlan):
            cells = self.log(obs).cells
            agent = cells.others_results[-1] if cells.others_results else None
            found += [i for i in check_numbers(text, self._own_result(obs, plan), agent,
                                               cells.missing_bins)
                      if all(i.kind != f.kind for f in found)]
        if obs.task.facts:
            found = [self._with_knowledge(obs.task, i) for i in found]
        return tuple(found)

    def _with_knowledge(self, brief: TaskBrief, issue: Issue) -> Issue:
        """An issue whose fix sets a parameter as a fact I hold (as I believe it) says what I
        know: the fact's text follows the issue's message (volunteering the fact)."""
        fix = dict(issue.fix)
        for fact, setting in self.believed_facts(brief):
            shared = [k for k, _ in setting if k in fix]
            if shared and all(fix[k] == v for k, v in setting if k in fix):
                said = fact.text if setting == fact.setting else fact_sentence(fact.topic,
                                                                               setting)
                return Issue(issue.kind, f"{issue.message} What I know: {said}", issue.fix)
        return issue

    def _confirmation(self, semantics: QuerySemantics, own: AnalysisResult | None,
                      agrees: bool) -> str:
        """What I say when I take a draft without objecting. Only a draft my check agrees
        with is confirmed against my own computation or reading; adopting one my check
        disagrees with (over-reliance), I go along without claiming that it is right."""
        if not agrees:
            return "Fine, go ahead with your draft."
        if self.numbers and own is not None and own.year is not None:
            return (f"I recomputed it on {'+'.join(own.columns)} and get the same century. "
                    "The draft is consistent with the data.")
        return f"The wording answers what is asked ({describe_check(semantics)})."

    def _own_result(self, obs: Observation, plan: AnalysisPlan) -> AnalysisResult | None:
        cell = self.log(obs).cells.my_last.get(cell_of(plan, compute_cell))
        if cell is None:
            return None
        return parse_result(cell.output) if cell.ok else None

    def _computed(self, obs: Observation, plan: AnalysisPlan) -> bool:
        log = self.log(obs)
        return (cell_of(plan, compute_cell) in log.cells.my_last
                or log.history.rejections("EXECUTE_CODE") > 0)

    def _posted(self, obs: Observation, fp: str) -> bool:
        """Whether I posted my check of the draft ``fp``: a message of mine checks it
        (``[check draft=...]``) or proposes it as my version without an edit."""
        return bool(self.log(obs).chat.my(lambda tags: fp in tags.checked or (
            tags.proposed is not None and not tags.edited
            and draft_fingerprint(tags.proposed) == fp)))

    def _decide_code(self, request_id: str, code: str, plan: AnalysisPlan,
                     brief: TaskBrief | None = None,
                     missing_bins: Mapping[str, int] | None = None) -> str:
        """APPROVE / REJECT a teammate's gated code (:func:`~collabsim.participants.
        collaborator_review.decide_code`)."""
        return decide_code(self, request_id, code, plan, brief, missing_bins)

    RULES: tuple[Rule, ...] = (
        Rule("decide the code I gate", _code_requested, _decide_code_request),
        Rule("open the session alone", _leading, _lead_in_step),
        Rule("leave the check to others", _loafing, _wait),
        Rule("recompute the answer", _recomputes, _recompute),
        Rule("end a FINISH standoff", _escalating, _escalate),
        Rule("decide the request I gate", _gate_requested, _decide_gate_request),
        Rule("answer a question", _question_for_me, _answer),
        Rule("answer the agent's output", _takes_part, _take_part),
        Rule("nothing to check", _nothing_to_check, _wait),
        Rule("follow up my check", _objected, _follow_up),
        Rule("read the draft", _reading, _wait_until_read),
        Rule("react to the draft", _always, _react),
    )
