"""The scripted AI agent (see :mod:`collabsim.participants.scripted` for its behaviour)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from collabsim.core.actions import format_action, format_wait
from collabsim.core.observation import Observation, Role
from collabsim.core.records import ChatMessage
from collabsim.core.tags import (
    draft_fingerprint,
    format_draft,
    format_handover,
    format_keep,
)
from collabsim.domain.stats.model import StatPlan, StatResult, format_filters
from collabsim.participants import agent_sharing
from collabsim.participants.agent_asking import (
    answer_wait,
    memory_facts,
    my_asks,
    next_question,
    told,
)
from collabsim.participants.agent_plan import FixRules, Objection, PlanFold, PlanKeeper, fold_all
from collabsim.participants.agent_sharing import LOOK_AGAIN_SECONDS
from collabsim.participants.asking import (
    OpenTopics,
    question_text,
    topic_kind,
)
from collabsim.participants.cells import (
    INSPECT_MARK,
    compute_cell,
    inspect_cell,
    parse_cell_result,
)
from collabsim.participants.claims import describe_check
from collabsim.participants.human import area_of
from collabsim.participants.misapplication import misapplier
from collabsim.participants.owner_routing import choose_owners, recorded_areas
from collabsim.participants.plan import (
    AnalysisPlan,
    MistakeModel,
    misread_semantics,
    seeded_rng,
)
from collabsim.participants.reading import open_topics as reading_open_topics
from collabsim.participants.scripted_common import (
    WAIT,
    Rule,
    TaskContext,
    allowed,
    build_step,
    say,
    task_context,
    transactive_memory,
    trusted_areas,
)
from collabsim.participants.scripted_params import AgentParams
from collabsim.participants.session_log import ANSWER, SessionLog, SessionReader
from collabsim.participants.stat_facts import fixed_plan
from collabsim.participants.stat_mistakes import misread_result
from collabsim.participants.wording import draft_hypothesis
from collabsim.tasks.model import TaskBrief

__all__ = ["ANSWER", "LOOK_AGAIN_SECONDS", "AgentTurn", "ScriptedAgent"]

# The build-phase decisions the agent waits for its teammates' expertise entries before it
# proposes owners without them (coordination.chosen_owners): each teammate writes three
# entries and agrees, so they have landed well within this many of its own decisions.
CHOOSE_OWNERS_WITHIN_TURNS = 8


@dataclass(frozen=True)
class AgentTurn:
    """What one decision of the agent looks at: the observation, my log of the session
    (what chat, cells and history showed, kept up to date event by event), my plan after
    teammates' fixes (with the issue kinds I applied / ignored), whether the plan's
    computation ran, the draft I stand for and whose announced edit of it I keep (if any)."""

    obs: Observation
    log: SessionLog
    plan: AnalysisPlan
    applied: tuple[str, ...]
    ignored: tuple[str, ...]
    computed: bool
    draft: str
    kept: str | None


class ScriptedAgent:
    """The scripted AI agent (see module docstring).

    Args:
        seed: Policy seed (mistake draws, wording choices).
        params: Behaviour parameters (:class:`~collabsim.participants.scripted_params.AgentParams`
            or its config mapping; unknown keys are refused).
        mistakes: A :class:`MistakeModel` (overrides ``params.mistakes``).
        name: Participant name.
        open_topics: Reads the topics a task's query leaves open for the agent and no fact
            of its brief settles (``(brief, semantics, plan) -> topics``); it asks about
            those (default: :func:`~collabsim.participants.reading.open_topics`).
    """

    role: Role = "agent"
    policy_name = "scripted"

    def __init__(
        self,
        seed: int = 0,
        params: Mapping[str, Any] | AgentParams | None = None,
        *,
        mistakes: MistakeModel | None = None,
        name: str = "agent",
        open_topics: OpenTopics | None = None,
    ) -> None:
        self.seed = int(seed)
        self.open_topics = open_topics or reading_open_topics
        self.params = AgentParams.from_mapping(params)
        self.mistakes = mistakes or self.params.mistakes
        self.name = name
        self._cache: dict[str, TaskContext] = {}
        # caches of what (brief, seed, params) give and of folds of the observation: a new
        # instance decides at any turn as the one that decided the turns before
        self._open: dict[str, tuple[str, ...]] = {}  # task id -> topics its query leaves open
        self._reader = SessionReader()
        self._plans = {False: PlanKeeper(), True: PlanKeeper()}  # by ``careful``

    def context(self, brief: TaskBrief) -> TaskContext:
        """Semantics, correct plan and this session's mistakes for a task (cached)."""
        if brief.task_id not in self._cache:
            self._cache[brief.task_id] = task_context(brief, self.seed, self.mistakes)
        return self._cache[brief.task_id]

    async def act(self, observation: Observation) -> str:
        """Return the next action text."""
        return self.decide(observation)

    def log(self, obs: Observation) -> SessionLog:
        """My log of the session up to ``obs`` (read incrementally,
        :class:`~collabsim.participants.session_log.SessionReader`)."""
        return self._reader.read(obs)

    # ------------------------------------------------------------------------ decisions
    def decide(self, obs: Observation) -> str:
        """Synchronous decision (the whole policy): the build phase's memory step, else the
        action of the first rule of :attr:`RULES` whose guard holds."""
        ctx = self.context(obs.task)
        if obs.phase == "build":
            return self._build(obs, ctx)
        turn = self._turn(obs, ctx)
        return self._first_rule(turn).act(self, turn)

    def rule_for(self, obs: Observation) -> Rule:
        """The rule that decides on ``obs`` in the work phase (which :meth:`decide` takes)."""
        return self._first_rule(self._turn(obs, self.context(obs.task)))

    def _first_rule(self, turn: AgentTurn) -> Rule:
        """The first rule whose guard holds for this turn (the last one always does)."""
        return next(rule for rule in self.RULES if rule.guard(self, turn))

    def _turn(self, obs: Observation, ctx: TaskContext) -> AgentTurn:
        """Read the observation: my plan after teammates' fixes, the cells I ran of it and
        the draft it gives, merged with a teammate's announced edit of the editor."""
        log = self.log(obs)
        for careful in (False, True):
            # careful: after a binding rejection of this very draft, redo the analysis
            # from the query without the session's mistakes (plus teammates' fixes)
            fold = self.current_fold(obs, careful=careful)
            plan, applied, ignored = fold.plan, list(fold.applied), list(fold.ignored)
            run = log.cells.my_last.get(compute_cell(plan))
            result = parse_cell_result(run.output) if run is not None and run.ok else None
            lost = set(fold.distortions)  # what misapplied suggestions lost of the query
            if isinstance(result, StatResult):
                # my wording mistakes (a teammate's objection of that kind I followed
                # corrects one): I state the result as I misread it
                own = set() if careful else ctx.mistakes - set(applied)
                result = misread_result(result, own | lost)
            semantics = (misread_semantics(ctx.semantics, lost)
                         if lost and not isinstance(plan, StatPlan) else ctx.semantics)
            draft = draft_hypothesis(result, semantics)
            if run is None or not self._was_rejected(obs, draft):
                break
        kept = self._edit_author(obs)
        if kept is not None and obs.editor_text.strip() != draft.strip():
            # merge: having redone the analysis with teammates' fixes, my new draft wins;
            # otherwise keep the teammate's edit or revert it to my draft
            if not applied and self._keeps_edit(obs, ctx, kept):
                draft = obs.editor_text
            else:
                kept = None
        return AgentTurn(obs, log, plan, tuple(applied), tuple(ignored), run is not None, draft,
                         kept)

    # ------------------------------------------------------------------ rules: guards
    def _request_pending(self, t: AgentTurn) -> bool:
        """A request of mine waits for its owner's decision."""
        return bool(t.obs.my_pending)

    def _awaiting_reactions(self, t: AgentTurn) -> bool:
        """My latest output waits for my teammates' reactions
        (:func:`~collabsim.participants.agent_sharing.reaction_wait`)."""
        return agent_sharing.reaction_wait(self, t.obs) is not None

    def _result_unshared(self, t: AgentTurn) -> bool:
        return agent_sharing.result_unshared(self, t)

    def _leaves_opening(self, t: AgentTurn) -> bool:
        return self._lead_wait(t.obs) is not None

    def _not_inspected(self, t: AgentTurn) -> bool:
        """I have not looked at the data yet."""
        return (not any(code.startswith(INSPECT_MARK) for code in t.log.cells.my_last)
                and allowed(t.obs, "EXECUTE_CODE"))

    def _question_to_ask(self, t: AgentTurn) -> bool:
        """A topic the query leaves open for me that I decided to ask about, and a teammate
        to ask (see :meth:`question`)."""
        return self.question(t.obs) is not None

    def _awaiting_answer(self, t: AgentTurn) -> bool:
        """A question of mine is unanswered and my patience for it has not run out."""
        return self._answer_wait(t.obs) is not None

    def _not_computed(self, t: AgentTurn) -> bool:
        """My plan's computation has not run (and was not rejected too often)."""
        return (not t.computed
                and self._rejections(t.obs, "EXECUTE_CODE") < self._max_rejections)

    def _draft_not_in_editor(self, t: AgentTurn) -> bool:
        """The editor does not hold my draft. From finish_by_turn on, asking an editor owner
        again to accept a text it rejected is waiting for a teammate too: the budget is left
        for FINISH."""
        obs = t.obs
        rejected = self._rejections(obs, "EDITOR_UPDATE", t.draft)
        return (obs.editor_text.strip() != t.draft.strip() and rejected < self._max_rejections
                and not (rejected and obs.turn >= self._finish_by_turn))

    def _draft_unannounced(self, t: AgentTurn) -> bool:
        """My teammates have not been asked to check the draft in the editor."""
        return (self._talks_about_draft(t.obs)
                and not self._announced(t.log, draft_fingerprint(t.obs.editor_text))
                and not agent_sharing.draft_checked_by_all(t))

    def _objection_declined(self, t: AgentTurn) -> bool:
        """I ignored a teammate's issues with the draft in the editor and have not said so."""
        obs = t.obs
        if not self._talks_about_draft(obs) or not t.ignored:
            return False
        fp = draft_fingerprint(obs.editor_text)
        return fp in t.log.chat.raised and not t.log.chat.my(lambda tags: fp in tags.kept)

    def _awaiting_checks(self, t: AgentTurn) -> bool:
        return self._check_wait(t.obs) is not None and t.obs.turn < self._finish_by_turn

    def _teammate_working(self, t: AgentTurn) -> bool:
        return self._work_wait(t.obs) is not None and t.obs.turn < self._finish_by_turn

    def _finish_refused(self, t: AgentTurn) -> bool:
        """The owner rejected FINISH of this very text and my revisions could not change it:
        asking again would only repeat the rejection, so the owner decides."""
        return self._finish_unaddressed(t.obs)

    def _always(self, t: AgentTurn) -> bool:
        return True

    # ----------------------------------------------------------------- rules: actions
    def _wait(self, t: AgentTurn) -> str:
        return format_action(WAIT)

    def _wait_for_reactions(self, t: AgentTurn) -> str:
        return format_wait(agent_sharing.reaction_wait(self, t.obs))

    def _share_result(self, t: AgentTurn) -> str:
        return agent_sharing.share_result(self, t)

    def _wait_for_lead(self, t: AgentTurn) -> str:
        """Wake when a teammate acts, at the latest when my lead patience ends."""
        return format_wait(self._lead_wait(t.obs))

    def _inspect(self, t: AgentTurn) -> str:
        return format_action("EXECUTE_CODE", code=inspect_cell(t.plan))

    def _ask(self, t: AgentTurn) -> str:
        question = self.question(t.obs)
        assert question is not None
        topic, whom = question
        return say(question_text(topic, whom))

    def _wait_for_answer(self, t: AgentTurn) -> str:
        return format_wait(self._answer_wait(t.obs))

    def _compute(self, t: AgentTurn) -> str:
        return format_action("EXECUTE_CODE", code=compute_cell(t.plan))

    def _write_draft(self, t: AgentTurn) -> str:
        return format_action("EDITOR_UPDATE", text=t.draft)

    def _announce(self, t: AgentTurn) -> str:
        obs = t.obs
        fp = draft_fingerprint(obs.editor_text)
        lead = ("Thanks - I redid the analysis with your fixes "
                f"({', '.join(sorted(set(t.applied)))}). " if t.applied else "")
        if t.kept is not None:
            lead = f"I keep {t.kept}'s edit of the draft. "
        return say(
            f"{lead}Draft: \"{obs.editor_text.strip()}\" (computed on "
            f"{'+'.join(t.plan.columns) or 'the data'}). Please check it. {format_draft(fp)}")

    def _keep_answer(self, t: AgentTurn) -> str:
        fp = draft_fingerprint(t.obs.editor_text)
        return say(f"I checked my computation and will keep this answer. {format_keep(fp)}")

    def _wait_for_checks(self, t: AgentTurn) -> str:
        return format_wait(self._check_wait(t.obs))

    def _wait_for_work(self, t: AgentTurn) -> str:
        return format_wait(self._work_wait(t.obs))

    def _hand_over_finish(self, t: AgentTurn) -> str:
        return self._hand_over(t.obs)

    def _finish(self, t: AgentTurn) -> str:
        return format_action("FINISH")

    def _lead_wait(self, obs: Observation) -> float | None:
        """How many more seconds I leave the opening to my teammates (None: I start now).

        With ``lead_patience_seconds`` > 0: until one of them has acted in the work phase,
        and while one that said it looks at the data first (``[lead]``) has not asked me to
        start (``[kickoff]``); both at most ``lead_patience_seconds`` into the work phase (in
        all 31 Kolab sessions a human acts before the AI, so a teammate's slow first action
        is waited for, not only ``patience_seconds``). Once I work, I work."""
        limit = self.params.lead_patience_seconds
        if not obs.teammates or limit <= 0 or obs.turn >= self._finish_by_turn:
            return None
        log = self.log(obs)
        work_actors = log.history.work_actors | log.cells.authors
        if obs.me in work_actors:
            return None
        # the work phase began when the build phase's last memory action ended (0 without)
        end = log.history.memory_end
        waited = obs.time - (0.0 if end is None else end)
        chat = log.chat
        if chat.kickoff_by_other:
            return None
        if (chat.others_spoke or work_actors) and not chat.lead_by_other:
            return None  # a teammate made the first move without announcing a lead-in
        left = limit - waited
        return left if left > 0 else None

    @property
    def _finish_by_turn(self) -> int:
        return self.params.finish_by_turn

    @property
    def _max_rejections(self) -> int:
        return self.params.max_rejections

    def question(self, obs: Observation) -> tuple[str, str] | None:
        """``(topic, teammate)`` of my next question, None: none to ask
        (:func:`~collabsim.participants.agent_asking.next_question`)."""
        return next_question(self, obs)

    def _my_asks(self, obs: Observation
                 ) -> list[tuple[ChatMessage, str, str, ChatMessage | None]]:
        return my_asks(self.log(obs).chat)

    def _told(self, obs: Observation) -> list[tuple[ChatMessage, str, dict[str, str] | None]]:
        return told(self.log(obs).chat)

    @staticmethod
    def _memory_facts(obs: Observation) -> list[tuple[str, dict[str, str]]]:
        return memory_facts(obs)

    def _answer_wait(self, obs: Observation) -> float | None:
        return answer_wait(self, obs)

    def current_plan(
        self, obs: Observation, careful: bool = False
    ) -> tuple[AnalysisPlan, list[str], list[str]]:
        """The plan after teammates' accepted fixes, with accepted / ignored issue kinds
        (folded incrementally: :class:`~collabsim.participants.agent_plan.PlanKeeper`).

        Args:
            obs: The observation.
            careful: Start from the mistake-free plan instead of this session's plan.
        """
        fold = self.current_fold(obs, careful)
        return fold.plan, list(fold.applied), list(fold.ignored)

    def current_fold(self, obs: Observation, careful: bool = False) -> PlanFold:
        """:meth:`current_plan` with the distortions misapplied suggestions brought in."""
        start, rules, key = self._fix_setup(obs, careful)
        log = self.log(obs)
        return self._plans[careful].fold(key, start, log.chat.objections, log.history.rejects,
                                         self._chat_objection, rules)

    def plan_read_afresh(self, obs: Observation, careful: bool = False) -> PlanFold:
        """:meth:`current_plan` folded from all of ``obs``'s objections (the reference the
        incremental fold keeps equal to)."""
        start, rules, _ = self._fix_setup(obs, careful)
        return fold_all(start, self._objections(obs), rules)

    def _fix_setup(self, obs: Observation, careful: bool
                   ) -> tuple[PlanFold, FixRules, tuple[Any, ...]]:
        """The plan the objections are folded onto (with the memory's facts applied), the
        rules that apply their fixes, and what both depend on beyond the objections."""
        ctx = self.context(obs.task)
        plan = ctx.plan if careful else ctx.mistaken_plan
        for _, setting in self._memory_facts(obs):
            plan = fixed_plan(plan, setting, obs.task, ctx.semantics)
        binding = frozenset(obs.gates.values())
        trusted = trusted_areas(obs)
        criteria = bool(obs.memory is not None
                        and obs.memory.sections.get("evidence_criteria"))
        misapplies = misapplier(obs.coordination, self.seed, self.name, obs.task,
                                ctx.semantics, ctx.mistakes, obs.chat, criteria)
        rules = FixRules(obs.task, ctx.semantics, ctx.mistakes, binding,
                         lambda message, kind: self._defers(obs, message, kind, trusted),
                         misapplies)
        key = (self._reader.session, obs.task.task_id, binding, tuple(sorted(trusted.items())),
               plan, obs.coordination, criteria)
        return PlanFold(plan), rules, key

    @staticmethod
    def _chat_objection(entry: tuple[ChatMessage, tuple[tuple[bool, str, dict[str, str]], ...],
                                      tuple[tuple[str, dict[str, str]], ...]]) -> Objection:
        """A teammate's chat objection from the session log with its issues: its issue tags,
        then the facts it states (an answer to my question as :data:`ANSWER`, a volunteered
        fact as an issue of the kind its topic corrects)."""
        message, stated, issues = entry
        return message, issues + tuple((ANSWER if answer else topic_kind(topic), setting)
                                       for answer, topic, setting in stated)

    def _objections(self, obs: Observation
                    ) -> list[tuple[ChatMessage, tuple[tuple[str, dict[str, str]], ...]]]:
        """Teammates' messages and the reasons of their gate ``REJECT`` decisions, by time,
        with their issue tags: a rejection's reason names its fix as a chat objection does.
        A fact a teammate states answering my question on its topic comes as an
        :data:`ANSWER`; one it volunteers, as an issue of the kind its topic corrects."""
        log = self.log(obs)
        out = [self._chat_objection(entry) for entry in log.chat.objections]
        out += [(m, issues) for _, m, issues in log.history.rejects]
        return sorted(out, key=lambda pair: pair[0].time)

    def _defers(self, obs: Observation, message: ChatMessage, kind: str,
                trusted: Mapping[str, frozenset[str]]) -> bool:
        """Whether the agent follows a (non-binding) objection.

        With a recorded "whom to trust for what" (memory), an objection from the teammate
        trusted for the issue's area is followed; otherwise the agent defers with the fixed
        propensity ``deference``, whoever is right.
        """
        if area_of(kind) in trusted.get(message.sender, frozenset()):
            return True
        u = seeded_rng(self.seed, self.name, obs.task.task_id, message.sender, message.text, kind,
                 "defer").random()
        return bool(u < self.params.deference)

    def _edit_author(self, obs: Observation) -> str | None:
        """The teammate whose announced edit the editor holds, if any."""
        return self.log(obs).chat.edit_author.get(draft_fingerprint(obs.editor_text))

    def _keeps_edit(self, obs: Observation, ctx: TaskContext, author: str) -> bool:
        """Whether the agent keeps a teammate's edit of its draft instead of reverting it.

        Gate owners' edits bind; with the ``ignore_teammate`` mistake it reverts; with a team
        memory it keeps the edit of a teammate recorded as trusted; otherwise it keeps it with
        the fixed propensity ``deference``, whoever is right.
        """
        if author in set(obs.gates.values()):
            return True
        if "ignore_teammate" in ctx.mistakes:
            return False
        trusted = trusted_areas(obs).get(author, frozenset())
        if trusted and not transactive_memory(obs):
            return True
        areas = self._edit_areas(obs, author) if trusted else frozenset()
        if areas and areas <= trusted:
            return True  # the edit fixes what its author is trusted for, and only that
        u = seeded_rng(self.seed, self.name, obs.task.task_id, author, obs.editor_text.strip(),
                 "keep-edit").random()
        return bool(u < self.params.deference)

    def _edit_areas(self, obs: Observation, author: str) -> frozenset[str]:
        """The areas of the issues ``author`` raised in its latest objection (the message
        that announced the edit the editor holds; empty: it raised none)."""
        for message, _stated, issues in reversed(self.log(obs).chat.objections):
            if message.sender == author:
                return frozenset(a for kind, _ in issues if (a := area_of(kind)) is not None)
        return frozenset()

    def _rejections(self, obs: Observation, action: str, text: str | None = None) -> int:
        """How often my ``action`` (with this text, when given) was rejected."""
        return self.log(obs).history.rejections(action, text)

    def _was_rejected(self, obs: Observation, draft: str) -> bool:
        """Whether a gate owner rejected this draft (as an edit, or as the finished text)."""
        if self._rejections(obs, "EDITOR_UPDATE", draft):
            return True
        if obs.editor_text.strip() != draft.strip():
            return False
        history = self.log(obs).history
        since = history.my_updated_last
        rejected = history.my_finish_rejected_last
        return rejected is not None and rejected >= (0.0 if since is None else since)

    def _talks_about_draft(self, obs: Observation) -> bool:
        """Whether I post about the draft in the editor: there is one, teammates to ask and
        I may message them (and ``announce`` is on)."""
        return (bool(obs.teammates) and allowed(obs, "SEND_TEAMMATE_MESSAGE")
                and self.params.announce and bool(obs.editor_text.strip()))

    def _finish_unaddressed(self, obs: Observation) -> bool:
        """Whether my latest FINISH was rejected and the editor has not changed since."""
        history = self.log(obs).history
        rejected = history.my_finish_rejected_last
        if rejected is None:
            return False
        changed = history.editor_changed_last
        return changed is None or changed <= rejected

    def _hand_over(self, obs: Observation) -> str:
        """Leave the submission to the FINISH owner (said once), then wait for it."""
        owner = obs.gates.get("FINISH")
        fp = draft_fingerprint(obs.editor_text)
        if (owner is None or owner == obs.me
                or self.log(obs).chat.my(lambda tags: fp in tags.handed)
                or not allowed(obs, "SEND_TEAMMATE_MESSAGE")):
            return format_action(WAIT)
        return say(
            f"{owner}, you rejected submitting this draft and I could not revise it to meet "
            f"your objection within the team's gates. You own FINISH: please submit the "
            f"version you want. {format_handover(fp)}")

    def _check_wait(self, obs: Observation) -> float | None:
        """How many more seconds I hold FINISH back for my teammates (None: not at all;
        ``inf``: until something happens; the caller bounds it by ``finish_by_turn``): while
        a teammate's announced edit of the draft in the editor has not landed - finishing
        would drop it - and, up to ``patience_seconds`` after I announced the draft, while a
        teammate has not checked it."""
        if not obs.teammates or not self.params.announce:
            return None
        fp = draft_fingerprint(obs.editor_text)
        chat = self.log(obs).chat
        announce = self._announced(self.log(obs), fp)
        if not announce:
            return None
        if self._edit_coming(obs):
            return math.inf
        checked = chat.checkers.get(fp, frozenset())
        if all(t in checked for t in obs.teammates):
            return None
        left = self.params.patience_seconds - (
            obs.time - announce[-1].time)
        return left if left > 0 else None

    def _work_wait(self, obs: Observation) -> float | None:
        """How long I hold FINISH back because a teammate is at work (None: not at all;
        ``inf``: until its work lands): while an action of a teammate has started and not
        landed (a message being written, a cell running, an edit being made;
        ``wait_for_working_teammates``, default True). Submitting then would cut that work off
        unseen; in 30 of the 31 Kolab sessions the human responds to the AI's last output, so
        a session does not end while the human is reacting to it. A teammate's action that
        lands just as I decide counts too: the scheduler lets me decide first among members
        due at the same instant, so I look again :data:`LOOK_AGAIN_SECONDS` later, when the
        teammate has decided its next step."""
        if not self.params.wait_for_working_teammates:
            return None
        if obs.working:
            return math.inf
        if self.log(obs).history.others_last == obs.time:
            return LOOK_AGAIN_SECONDS
        return None

    @staticmethod
    def _announced(log: SessionLog, fp: str) -> list[ChatMessage]:
        """My messages announcing the draft ``fp`` (``[draft=...]``), in chat order."""
        return log.chat.my(lambda tags: fp in tags.announced)

    def _edit_coming(self, obs: Observation) -> bool:
        """Whether a teammate announced an edit of the draft now in the editor (its message
        checks that draft and names the version it writes, ``[edit draft=...]``) and has not
        made it yet. An announced edit of an earlier draft is not waited for: its author
        reacts to the new draft instead."""
        fp = draft_fingerprint(obs.editor_text)
        log = self.log(obs)
        for sender, time, edits in log.chat.edit_plans.get(fp, ()):
            if fp in edits:
                continue
            made = log.history.editor_updates.get(sender)
            if made is None or made < time:
                return True
        return False

    def _build(self, obs: Observation, ctx: TaskContext) -> str:
        wait = agent_sharing.reaction_wait(self, obs)
        if wait is not None:
            return format_wait(wait)
        if isinstance(ctx.plan, StatPlan):
            target = ctx.plan.target or "the asked variable"
            entries = [
                ("plan", f"Plan (agent): fit {ctx.plan.analysis} of {target} on "
                         f"{'+'.join(ctx.plan.predictors) or 'its groups'}"
                         f" (controls: {'+'.join(ctx.plan.controls) or 'none'}; population: "
                         f"{format_filters(ctx.plan.filters)}), draft the hypothesis, let "
                         "teammates check it, then finish."),
                ("evidence_criteria", "Evidence criteria (agent): the stated direction, "
                                      "coefficient and significance come from a printed "
                                      "fit on the query's variables, population and "
                                      "controls."),
            ]
        else:
            entries = [
                ("plan", f"Plan (agent): compute {describe_check(ctx.semantics)} from the "
                         "interpolated columns in 100-year bins, draft the hypothesis, let "
                         "teammates check it, then finish."),
                ("evidence_criteria", "Evidence criteria (agent): the claimed century comes "
                                      "from a printed computation on the gap-filled (*_inter) "
                                      "columns and matches the query's ordinal, direction and "
                                      "period."),
            ]
        entries += [
            ("expertise", "Expertise (agent): writes and runs the pandas analysis and drafts "
                          "the hypothesis."),
        ]
        sections = obs.memory.sections if obs.memory is not None else {}
        if "gates" in sections:
            configured = tuple((a, o) for a, o in sorted(self.params.gates)
                               if o in obs.teammates or o == obs.me)
            if not obs.coordination.chosen_owners:
                entries += [("gates", f"{a}: {o}") for a, o in configured]
            elif (len(recorded_areas(obs)) < len(obs.teammates)
                  and obs.turn < CHOOSE_OWNERS_WITHIN_TURNS):
                # the owners are chosen from what the teammates record: wait for it
                return build_step(obs, entries, agree=False)
            else:
                entries += [("gates", f"{a}: {o}") for a, o in choose_owners(
                    obs, ctx.semantics, ctx.plan, configured)]
        return build_step(obs, entries)

    RULES: tuple[Rule, ...] = (
        Rule("wait for my request's decision", _request_pending, _wait),
        Rule("leave the opening to teammates", _leaves_opening, _wait_for_lead),
        Rule("wait for reactions to my output", _awaiting_reactions, _wait_for_reactions),
        Rule("inspect the data", _not_inspected, _inspect),
        Rule("ask a teammate what the task means", _question_to_ask, _ask),
        Rule("wait for the answer to my question", _awaiting_answer, _wait_for_answer),
        Rule("run my computation", _not_computed, _compute),
        Rule("share what my computation found", _result_unshared, _share_result),
        Rule("put my draft in the editor", _draft_not_in_editor, _write_draft),
        Rule("ask teammates to check the draft", _draft_unannounced, _announce),
        Rule("say I keep my answer", _objection_declined, _keep_answer),
        Rule("wait for teammates' checks", _awaiting_checks, _wait_for_checks),
        Rule("wait for a working teammate", _teammate_working, _wait_for_work),
        Rule("hand FINISH over to its owner", _finish_refused, _hand_over_finish),
        Rule("finish", _always, _finish),
    )
