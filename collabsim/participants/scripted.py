"""Scripted policies: an agent that really analyses the data and D/R collaborators that check it.

Every decision is a deterministic function of (task brief, observation, seed, params) and
of what the policy itself did: each policy keeps explicit state - the code cells it ran
(by kind) and the messages it posted (by kind and draft fingerprint) - and looks those up in
the observation to learn whether and when they took effect, instead of parsing tags back out
of its own messages or recognising its own cells by their text. What teammates said and did
(issue tags, check tags, gate decisions), the editor text, the printed results of code
cells, memory and gates are read from the observation. Randomness comes from generators
seeded with stable hashes of (seed, participant name, task id / draft fingerprint), never
Python's ``hash``.

Agent: inspect cell -> compute cell -> ``EDITOR_UPDATE`` (draft) -> announce the draft to
teammates and wait (bounded by ``patience_seconds`` of virtual time) for their checks ->
``FINISH``. A teammate's issue tag changes its plan (redo with the suggested fix) when the
agent defers: with the fixed propensity ``deference`` whoever is right, always for the
teammate the team memory records as trusted for the issue's area, never while the
``ignore_teammate`` mistake is active - except under gates, where issues from gate owners
bind. A teammate's edit of the draft (announced with ``[edit draft=...]``) is kept, merged
or reverted by the same rule: merged when the agent redid its analysis with the teammate's
fixes (its new draft wins), else kept by a gate owner's authority, the memory's trust
record or the deference propensity, else reverted to the agent's own draft. In build phases it adds plan / evidence criteria / expertise (and in ``scaffolded``
gate lines) and agrees.

Collaborators: ``D`` (``recompute_claims``) recomputes the answer with its own
``EXECUTE_CODE`` and compares years; ``R`` (``check_wording``) compares the draft's wording
with the query. Both are fallible people (:mod:`collabsim.participants.human`): their own
computation / reading carries their own per-session mistakes, they adopt some drafts
unchecked, edit others with their own version (modify) or propose it and insist (reject),
take a think time before reacting and act with calibrated durations
(:class:`~collabsim.participants.human.SessionTiming`). Both post concrete issues in chat, decide pending gate requests they own
(``REJECT`` with reasons), contribute to memory in build phases and otherwise wait.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from collabsim.participants.cells import (
    COMPUTE_MARK,
    AnalysisResult,
    compute_cell,
    inspect_cell,
    parse_result,
)
from collabsim.participants.claims import (
    Issue,
    announced_drafts,
    check_numbers,
    check_wording,
    checked_drafts,
    claim_years,
    describe_check,
    draft_fingerprint,
    edited_drafts,
    format_check_message,
    format_proposal_message,
    parse_issues,
)
from collabsim.participants.human import HumanModel, SessionTiming, area_of, param_value
from collabsim.participants.plan import (
    AnalysisPlan,
    MistakeModel,
    apply_mistakes,
    misread_semantics,
    resolve_plan,
    stable_hash,
)
from collabsim.participants.protocol import ChatMessage, Observation, Profile, Role
from collabsim.participants.query import QuerySemantics, parse_query
from collabsim.participants.wording import draft_hypothesis, restate
from collabsim.session.actions import format_action
from collabsim.tasks.model import TaskBrief

WAIT = "WAIT_TEAMMATE_CONTINUE"
_COLS_RE = re.compile(r"^COLS = (\[.*\])$", re.MULTILINE)


def _rng(seed: int, *parts: object) -> np.random.Generator:
    """A generator seeded from (seed, stable hashes of parts)."""
    return np.random.default_rng(
        [int(seed) & 0xFFFFFFFF, *(stable_hash(str(p)) for p in parts)]
    )


def _allowed(obs: Observation, name: str) -> bool:
    return not obs.available_actions or name in obs.available_actions


class _Said:
    """The messages a participant posted, by kind (``draft``, ``keep``, ``check``) and draft
    fingerprint: the policy's own record, matched against the chat by sender and text."""

    def __init__(self) -> None:
        self._texts: dict[tuple[str, str], set[str]] = {}

    def post(self, kind: str, fp: str, text: str) -> str:
        """Remember a message and return its action."""
        self._texts.setdefault((kind, fp), set()).add(text)
        return format_action("SEND_TEAMMATE_MESSAGE", message=text)

    def in_chat(self, obs: Observation, kind: str, fp: str) -> list[ChatMessage]:
        """Those of my ``kind`` messages about draft ``fp`` that the chat shows."""
        texts = self._texts.get((kind, fp))
        if not texts:
            return []
        return [m for m in obs.chat if m.sender == obs.me and m.text in texts]


@dataclass(frozen=True)
class _TaskContext:
    semantics: QuerySemantics
    plan: AnalysisPlan
    mistakes: frozenset[str]
    mistaken_plan: AnalysisPlan


@dataclass(frozen=True)
class _Reading:
    """A collaborator's own reading of a task: semantics and plan after its own mistakes."""

    semantics: QuerySemantics
    plan: AnalysisPlan
    mistakes: frozenset[str]


def _context(brief: TaskBrief, seed: int, mistakes: MistakeModel) -> _TaskContext:
    semantics = parse_query(brief)
    plan = resolve_plan(brief, semantics)
    drawn = mistakes.draw(seed, brief.task_id)
    return _TaskContext(semantics, plan, drawn, apply_mistakes(plan, drawn))


def _latest_result(obs: Observation, author: str | None, exclude: str | None = None
                   ) -> AnalysisResult | None:
    for cell in reversed(obs.code_cells):
        if author is not None and cell.author != author:
            continue
        if exclude is not None and cell.author == exclude:
            continue
        if not cell.code.startswith(COMPUTE_MARK):
            continue
        result = parse_result(cell.output) if cell.ok else None
        if result is not None:
            return result
    return None


def _results_shown(obs: Observation, exclude: str | None = None) -> list[AnalysisResult]:
    """Parsed results of the compute cells in the shared code history, oldest first."""
    out = []
    for cell in obs.code_cells:
        if cell.author == exclude or not cell.ok or not cell.code.startswith(COMPUTE_MARK):
            continue
        result = parse_result(cell.output)
        if result is not None:
            out.append(result)
    return out


class ScriptedAgent:
    """The scripted AI agent (see module docstring).

    Args:
        seed: Policy seed (mistake draws, wording choices).
        params: Behaviour parameters: ``mistakes`` (mapping kind -> probability),
            ``patience_seconds`` (virtual seconds to wait for teammates' checks, default 120),
            ``finish_by_turn`` (stop waiting from this turn on, default 45),
            ``max_rejections`` (default 3), ``gates`` (scaffolded: action -> owner lines to
            propose), ``announce`` (post drafts for checking, default True).
        mistakes: A :class:`MistakeModel` (overrides ``params["mistakes"]``).
        name: Participant name.
    """

    role: Role = "agent"
    policy_name = "scripted"

    def __init__(
        self,
        seed: int = 0,
        params: Mapping[str, Any] | None = None,
        *,
        mistakes: MistakeModel | None = None,
        name: str = "agent",
    ) -> None:
        self.seed = int(seed)
        self.params = dict(params or {})
        self.mistakes = mistakes or MistakeModel.from_mapping(self.params.get("mistakes"))
        self.name = name
        self._cache: dict[str, _TaskContext] = {}
        self._inspect_cells: set[str] = set()
        self._said = _Said()

    def context(self, brief: TaskBrief) -> _TaskContext:
        """Semantics, correct plan and this session's mistakes for a task (cached)."""
        if brief.task_id not in self._cache:
            self._cache[brief.task_id] = _context(brief, self.seed, self.mistakes)
        return self._cache[brief.task_id]

    async def act(self, observation: Observation) -> str:
        """Return the next action text."""
        return self.decide(observation)

    # ------------------------------------------------------------------------ decisions
    def decide(self, obs: Observation) -> str:
        """Synchronous decision (the whole policy)."""
        ctx = self.context(obs.task)
        if obs.phase == "build":
            return self._build(obs, ctx)
        if obs.my_pending:
            return format_action(WAIT)
        mine = [c for c in obs.code_cells if c.author == obs.me]
        for careful in (False, True):
            # careful: after a binding rejection of this very draft, redo the analysis
            # from the query without the session's mistakes (plus teammates' fixes)
            plan, applied, ignored = self.current_plan(obs, careful=careful)
            code = compute_cell(plan)
            runs = [c for c in mine if c.code == code]
            result = parse_result(runs[-1].output) if runs and runs[-1].ok else None
            draft = draft_hypothesis(result, ctx.semantics)
            if not runs or not self._was_rejected(obs, draft):
                break
        if (not any(c.code in self._inspect_cells for c in mine)
                and _allowed(obs, "EXECUTE_CODE")):
            inspect = inspect_cell(plan)
            self._inspect_cells.add(inspect)
            return format_action("EXECUTE_CODE", code=inspect)
        if not runs and self._rejections(obs, "EXECUTE_CODE") < self._max_rejections:
            return format_action("EXECUTE_CODE", code=code)
        kept = self._edit_author(obs)
        if kept is not None and obs.editor_text.strip() != draft.strip():
            # merge: having redone the analysis with teammates' fixes, my new draft wins;
            # otherwise keep the teammate's edit or revert it to my draft
            if not applied and self._keeps_edit(obs, ctx, kept):
                draft = obs.editor_text
            else:
                kept = None
        if (obs.editor_text.strip() != draft.strip()
                and self._rejections(obs, "EDITOR_UPDATE", draft) < self._max_rejections):
            return format_action("EDITOR_UPDATE", text=draft)
        message = self._team_message(obs, plan, applied, ignored, kept)
        if message is not None:
            return message
        if self._waiting_for_checks(obs) and obs.turn < int(self.params.get("finish_by_turn", 45)):
            return format_action(WAIT)
        return format_action("FINISH")

    @property
    def _max_rejections(self) -> int:
        return int(self.params.get("max_rejections", 3))

    def current_plan(
        self, obs: Observation, careful: bool = False
    ) -> tuple[AnalysisPlan, list[str], list[str]]:
        """The plan after teammates' accepted fixes, with accepted / ignored issue kinds.

        Args:
            obs: The observation.
            careful: Start from the mistake-free plan instead of this session's plan.
        """
        ctx = self.context(obs.task)
        plan = ctx.plan if careful else ctx.mistaken_plan
        binding = set(obs.gates.values())
        ignore = "ignore_teammate" in ctx.mistakes
        trusted = _trusted_areas(obs)
        applied: list[str] = []
        ignored: list[str] = []
        for message in obs.chat:
            if message.sender == obs.me:
                continue
            for kind, fix in parse_issues(message.text):
                if message.sender not in binding and (
                        ignore or not self._defers(obs, message, kind, trusted)):
                    ignored.append(kind)
                    continue
                new = plan.with_fix(fix)
                if new != plan:
                    applied.append(kind)
                plan = new
        return plan, applied, ignored

    def _defers(self, obs: Observation, message: ChatMessage, kind: str,
                trusted: Mapping[str, frozenset[str]]) -> bool:
        """Whether the agent follows a (non-binding) objection.

        With a recorded "whom to trust for what" (memory), an objection from the teammate
        trusted for the issue's area is followed; otherwise the agent defers with the fixed
        propensity ``deference``, whoever is right.
        """
        if area_of(kind) in trusted.get(message.sender, frozenset()):
            return True
        u = _rng(self.seed, self.name, obs.task.task_id, message.sender, message.text, kind,
                 "defer").random()
        return bool(u < float(self.params.get("deference", 1.0)))

    def _edit_author(self, obs: Observation) -> str | None:
        """The teammate whose announced edit the editor holds, if any."""
        fp = draft_fingerprint(obs.editor_text)
        for message in reversed(obs.chat):
            if message.sender != obs.me and fp in edited_drafts(message.text):
                return message.sender
        return None

    def _keeps_edit(self, obs: Observation, ctx: _TaskContext, author: str) -> bool:
        """Whether the agent keeps a teammate's edit of its draft instead of reverting it.

        Gate owners' edits bind; with the ``ignore_teammate`` mistake it reverts; with a team
        memory it keeps the edit of a teammate recorded as trusted; otherwise it keeps it with
        the fixed propensity ``deference``, whoever is right.
        """
        if author in set(obs.gates.values()):
            return True
        if "ignore_teammate" in ctx.mistakes:
            return False
        if _trusted_areas(obs).get(author):
            return True
        u = _rng(self.seed, self.name, obs.task.task_id, author, obs.editor_text.strip(),
                 "keep-edit").random()
        return bool(u < float(self.params.get("deference", 1.0)))

    def _rejections(self, obs: Observation, action: str, text: str | None = None) -> int:
        """How often my ``action`` (with this text, when given) was rejected."""
        key = None if text is None else text.strip()[:150]
        return sum(1 for h in obs.history
                   if h.actor == obs.me and h.action_type == action and h.status == "rejected"
                   and (key is None or key in h.summary))

    def _was_rejected(self, obs: Observation, draft: str) -> bool:
        """Whether a gate owner rejected this draft (as an edit, or as the finished text)."""
        if self._rejections(obs, "EDITOR_UPDATE", draft):
            return True
        if obs.editor_text.strip() != draft.strip():
            return False
        mine = [h for h in obs.history if h.actor == obs.me]
        updated = [h.time for h in mine if h.action_type == "EDITOR_UPDATE"
                   and h.status in ("ok", "approved")]
        since = max(updated) if updated else 0.0
        return any(h.action_type == "FINISH" and h.status == "rejected" and h.time >= since
                   for h in mine)

    def _team_message(self, obs: Observation, plan: AnalysisPlan, applied: list[str],
                      ignored: list[str], kept: str | None = None) -> str | None:
        """The message action to post next about the draft in the editor, if any."""
        if not obs.teammates or not _allowed(obs, "SEND_TEAMMATE_MESSAGE"):
            return None
        if not self.params.get("announce", True) or not obs.editor_text.strip():
            return None
        fp = draft_fingerprint(obs.editor_text)
        if not self._said.in_chat(obs, "draft", fp):
            lead = ("Thanks - I redid the analysis with your fixes "
                    f"({', '.join(sorted(set(applied)))}). " if applied else "")
            if kept is not None:
                lead = f"I keep {kept}'s edit of the draft. "
            return self._said.post("draft", fp, (
                f"{lead}Draft: \"{obs.editor_text.strip()}\" (computed on "
                f"{'+'.join(plan.columns) or 'the data'}). Please check it. [draft={fp}]"))
        raised = [m for m in obs.chat if m.sender != obs.me and fp in checked_drafts(m.text)
                  and parse_issues(m.text)]
        if ignored and raised and not self._said.in_chat(obs, "keep", fp):
            return self._said.post(
                "keep", fp, f"I checked my computation and will keep this answer. [keep draft={fp}]")
        return None

    def _waiting_for_checks(self, obs: Observation) -> bool:
        if not obs.teammates or not self.params.get("announce", True):
            return False
        fp = draft_fingerprint(obs.editor_text)
        announce = self._said.in_chat(obs, "draft", fp)
        if not announce:
            return False
        checked = {m.sender for m in obs.chat if fp in checked_drafts(m.text)}
        missing = [t for t in obs.teammates if t not in checked]
        patience = float(self.params.get("patience_seconds", 120.0))
        return bool(missing or self._edit_coming(obs)) and (
            obs.time - announce[-1].time < patience)

    def _edit_coming(self, obs: Observation) -> bool:
        """Whether a teammate announced an edit of the editor that has not been made yet."""
        for message in obs.chat:
            if message.sender == obs.me or not edited_drafts(message.text):
                continue
            made = any(h.actor == message.sender and h.action_type == "EDITOR_UPDATE"
                       and h.time >= message.time for h in obs.history)
            if not made:
                return True
        return False

    def _build(self, obs: Observation, ctx: _TaskContext) -> str:
        entries = [
            ("plan", f"Plan (agent): compute {describe_check(ctx.semantics)} from the "
                     "interpolated columns in 100-year bins, draft the hypothesis, let "
                     "teammates check it, then finish."),
            ("evidence_criteria", "Evidence criteria (agent): the claimed century comes from a "
                                  "printed computation on the gap-filled (*_inter) columns and "
                                  "matches the query's ordinal, direction and period."),
            ("expertise", "Expertise (agent): writes and runs the pandas analysis and drafts "
                          "the hypothesis."),
        ]
        sections = obs.memory.sections if obs.memory is not None else {}
        if "gates" in sections:
            gates = self.params.get("gates")
            if gates is None:
                gates = {}
                if "R" in obs.teammates:
                    gates["EDITOR_UPDATE"] = "R"
                if "D" in obs.teammates:
                    gates["FINISH"] = "D"
            entries += [("gates", f"{a}: {o}") for a, o in sorted(dict(gates).items())
                        if o in obs.teammates or o == obs.me]
        return _build_step(obs, entries)


_TRUST_WORDS: dict[str, tuple[str, ...]] = {
    "computation": ("numbers", "years", "computation"),
    "semantics": ("wording", "semantics", "question"),
}
_TRUST_RE = re.compile(r"rely on (\w+) for (.*)", re.IGNORECASE)


def _trusted_areas(obs: Observation) -> dict[str, frozenset[str]]:
    """Teammate -> areas the team memory's ``trust`` section says to rely on them for."""
    if obs.memory is None:
        return {}
    out: dict[str, set[str]] = {}
    for line in obs.memory.sections.get("trust", ()):
        match = _TRUST_RE.search(line)
        if match is None:
            continue
        what = match.group(2).lower()
        for area, words in _TRUST_WORDS.items():
            if any(w in what for w in words):
                out.setdefault(match.group(1), set()).add(area)
    return {k: frozenset(v) for k, v in out.items()}


def _build_step(obs: Observation, entries: list[tuple[str, str]]) -> str:
    memory = obs.memory
    if memory is None or memory.read_only:
        return format_action(WAIT)
    for section, text in entries:
        if (section in memory.sections and text not in memory.sections.get(section, ())
                and _allowed(obs, "MEMORY_ADD")):
            return format_action("MEMORY_ADD", section=section, text=text)
    if obs.me not in memory.agreed and _allowed(obs, "MEMORY_AGREE"):
        return format_action("MEMORY_AGREE")
    return format_action(WAIT)


class ScriptedCollaborator:
    """A scripted simulated collaborator driven by its profile (see module docstring).

    Profile params: the behavioural model of :class:`~collabsim.participants.human.HumanModel`
    (``expertise``, ``error_in_area``, ``error_outside``, ``confidence_in_area``,
    ``confidence_outside``, ``message_propensity``, ``assertiveness``, ``approve_threshold``
    and the calibrated ``behaviour`` block), plus ``recompute_claims`` (D-style numeric check;
    default for key D), ``check_wording`` (R-style wording check; default for key R),
    ``review_code`` (decide gated code by its columns), ``confirm_propensity`` (probability of
    posting a confirmation when a checked draft has no issue, default 1) and
    ``memory_entries`` (list of ``[section, text]`` for the build phase).
    """

    role: Role = "collaborator"
    policy_name = "scripted"

    def __init__(self, profile: Profile, seed: int = 0,
                 params: Mapping[str, Any] | None = None) -> None:
        self.profile = profile
        self.name = profile.key
        self.seed = int(seed)
        self.params = self._merge(profile.params, params)
        self.numbers = bool(self.params.get("recompute_claims", profile.key == "D"))
        self.wording = bool(self.params.get("check_wording", profile.key == "R"))
        self.human = HumanModel.from_params(self.params)
        self.timing = SessionTiming(self.human.behaviour, self.seed, self.name)
        self._cache: dict[str, _Reading] = {}
        self._said = _Said()
        # my edits of the editor: draft fp -> the version I announced, what I wrote
        self._planned: dict[str, str] = {}
        self._finish_rejected = 0
        self._edit_tried: set[str] = set()
        self._written: set[str] = set()
        self._written_texts: set[str] = set()

    @staticmethod
    def _merge(profile_params: Mapping[str, Any], params: Mapping[str, Any] | None
               ) -> dict[str, Any]:
        """Profile params updated by the run's collaborator params."""
        return {**dict(profile_params), **dict(params or {})}

    async def act(self, observation: Observation) -> str:
        """Return the next action text."""
        return self.decide(observation)

    def reading(self, brief: TaskBrief) -> _Reading:
        """This person's own (possibly mistaken) reading of a task, drawn per session."""
        if brief.task_id not in self._cache:
            truth = parse_query(brief)
            mistakes = self.human.draw_mistakes(self.seed, self.name, brief.task_id)
            semantics = misread_semantics(truth, mistakes)
            plan = apply_mistakes(resolve_plan(brief, truth), mistakes)
            self._cache[brief.task_id] = _Reading(semantics, plan, mistakes)
        return self._cache[brief.task_id]

    def _task(self, brief: TaskBrief) -> tuple[QuerySemantics, AnalysisPlan]:
        reading = self.reading(brief)
        return reading.semantics, reading.plan

    def reaction(self, obs: Observation, fp: str) -> str:
        """adopt / modify / reject of the agent's draft ``fp``; ``check`` (check it and raise
        issues in chat, the behaviour before reactions were modelled) without a ``behaviour``
        block."""
        rates = self.human.reaction_rates(self.seed, self.name, obs.task.task_id)
        if rates is None:
            return "check"
        return rates.sample(_rng(self.seed, self.name, obs.task.task_id, fp, "reaction"))

    def action_duration(self, action: str) -> float | None:
        """How long my next action lasts: from the calibrated timing model (engine hook)."""
        return self.timing.duration(action)

    def decide(self, obs: Observation) -> str:
        """Synchronous decision (the whole policy)."""
        self.timing.task_id = obs.task.task_id
        if obs.phase == "build":
            return _build_step(obs, self._memory_entries())
        semantics, plan = self._task(obs.task)
        request = obs.pending_for_me[0] if obs.pending_for_me else None
        if request is not None and request.action_type == "EXECUTE_CODE":
            return self._decide_code(request.request_id, str(request.args.get("code", "")), plan)
        own = self._own_result(obs, plan)
        if (self.numbers and own is None and plan.columns
                and not obs.my_pending and not self._computed(obs, plan)
                and _allowed(obs, "EXECUTE_CODE")):
            return format_action("EXECUTE_CODE", code=compute_cell(plan))
        if self._escalates(obs):
            return self._finish_myself(obs)
        if request is not None:
            return self._decide_gate(obs, request)
        draft = obs.editor_text
        if not draft.strip():
            return format_action(WAIT)
        fp = draft_fingerprint(draft)
        if not _allowed(obs, "SEND_TEAMMATE_MESSAGE"):
            return format_action(WAIT)
        if fp in self._written:
            return format_action(WAIT)  # the editor holds my own edit
        if self._posted(obs, fp):
            return self._edit_or_insist(obs, fp, draft)
        if obs.time < self._ready_at(obs, fp):
            return format_action(WAIT)  # still thinking about the announced draft
        reaction = self.reaction(obs, fp)
        # adopt: takes the draft as it is without checking it (free-riding on the agent)
        issues = () if reaction == "adopt" else self.issues(obs, draft)
        version = None if reaction == "adopt" else self.own_version(obs, draft)
        if version is not None and reaction == "modify" and version.strip() == draft.strip():
            # modify means editing (the Kolab label): agreeing, it still rewrites the draft
            # in its own terms - D with its figures, R with what it reads the query to ask
            version = self.restatement(obs, version)
        differs = version is not None and version.strip() != draft.strip()
        if differs and (reaction == "modify" or (reaction == "reject" and issues)) and (
                version.strip() not in self._written_texts):
            # modify: edit the draft with my own version (announced first, so that the agent
            # knows whose edit the editor holds); reject: propose it and insist on it
            edit = reaction == "modify" and _allowed(obs, "EDITOR_UPDATE")
            if edit:
                self._planned[fp] = version
            text = format_proposal_message(issues, draft, version, edit)
            self._said.post("check", draft_fingerprint(version), text)
            return self._said.post("check", fp, text)
        if issues:
            return self._said.post("check", fp, format_check_message(self.name, issues, draft))
        # agreeing needs no message: whether it says so is its message propensity
        speak = _rng(self.seed, self.name, obs.task.task_id, fp, "speak").random()
        if speak >= self.human.message_propensity:
            return format_action(WAIT)
        chatty = _rng(self.seed, self.name, obs.task.task_id, fp, "confirm").random()
        if chatty < float(self.params.get("confirm_propensity", 1.0)):
            return self._said.post("check", fp, format_check_message(
                self.name, (), draft, self._confirmation(semantics, own)))
        return format_action(WAIT)

    def _ready_at(self, obs: Observation, fp: str) -> float:
        """When this person has read the announced draft ``fp``: the announcement's time plus
        a think time from the calibrated timing model (the k-th announced draft gets the k-th
        think time of this session's sampled sequence)."""
        model = self.human.behaviour
        announced = [m for m in obs.chat if m.sender != obs.me and announced_drafts(m.text)]
        mine = [m for m in announced if fp in announced_drafts(m.text)]
        if model is None or not mine:
            return 0.0
        order = {f: i for i, f in enumerate(dict.fromkeys(
            f for m in announced for f in announced_drafts(m.text)))}
        return mine[0].time + self.timing.think(obs.task.task_id, order[fp])

    def _decide_gate(self, obs: Observation, request: Any) -> str:
        """Decide a gate request: reject only issues it is confident enough about."""
        if request.action_type == "FINISH":
            param_value(self.params, "escalate_after", 3)  # read with the decision it bounds
        text = (str(request.args.get("text", "")) if request.action_type == "EDITOR_UPDATE"
                else obs.editor_text)
        fp = draft_fingerprint(text)
        if self.reaction(obs, fp) == "adopt":
            return format_action("APPROVE", request_id=request.request_id)
        issues = tuple(i for i in self.issues(obs, text)
                       if self.human.confidence(i.kind) >= self.human.approve_threshold)
        if issues and not self._posted(obs, fp) and _allowed(obs, "SEND_TEAMMATE_MESSAGE"):
            return self._said.post("check", fp, format_check_message(self.name, issues, text))
        if issues:
            reason = " ".join(i.message for i in issues) + " " + " ".join(
                i.tag() for i in issues)
            if request.action_type == "FINISH":
                self._finish_rejected += 1
            return format_action("REJECT", request_id=request.request_id, reason=reason)
        return format_action("APPROVE", request_id=request.request_id)

    def _escalates(self, obs: Observation) -> bool:
        """Whether I, owning FINISH, end a standoff: after ``escalate_after`` rejections of
        the agent's FINISH the owner decides (its decision binds) instead of blocking on."""
        if obs.gates.get("FINISH") != obs.me or not _allowed(obs, "FINISH"):
            return False
        limit = param_value(self.params, "escalate_after", 3)
        return self._finish_rejected >= limit

    def _finish_myself(self, obs: Observation) -> str:
        """Put my own version in the editor (once, unless another owner gates the editor)
        and submit it."""
        if obs.my_pending:
            return format_action(WAIT)
        version = self.own_version(obs, obs.editor_text)
        editor_owner = obs.gates.get("EDITOR_UPDATE")
        if (version is not None and version.strip() != obs.editor_text.strip()
                and editor_owner in (None, obs.me)
                and "escalate" not in self._edit_tried and _allowed(obs, "EDITOR_UPDATE")):
            self._edit_tried.add("escalate")
            self._written.add(draft_fingerprint(version))
            self._written_texts.add(version.strip())
            return format_action("EDITOR_UPDATE", text=version)
        return format_action("FINISH")

    def own_version(self, obs: Observation, draft: str) -> str | None:
        """The draft as this person would write it: D words its own computation (with its
        own mistakes), R restates the visible result under its own reading of the query."""
        semantics, plan = self._task(obs.task)
        if self.numbers:
            own = self._own_result(obs, plan)
            if own is not None and (own.year is not None or own.trends):
                return draft_hypothesis(own, semantics)
        if self.wording:
            shown = _results_shown(obs, exclude=obs.me)
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
        own = self._own_result(obs, plan) if self.numbers else None
        body = version.strip().rstrip(".")
        if own is not None:
            figure = "" if own.value is None else f", value {own.value:.2f}"
            return f"{body} ({'+'.join(own.columns)}{figure})."
        return f"{body}, which answers {describe_check(semantics)}."

    def _edit_or_insist(self, obs: Observation, fp: str, draft: str) -> str:
        """After my objection to ``fp``: make the edit I announced, else maybe insist."""
        planned = self._planned.get(fp)
        if planned is not None and fp not in self._edit_tried:
            if obs.my_pending:
                return format_action(WAIT)
            self._edit_tried.add(fp)
            self._written.add(draft_fingerprint(planned))
            self._written_texts.add(planned.strip())
            return format_action("EDITOR_UPDATE", text=planned)
        return self._maybe_insist(obs, fp, draft)

    def _maybe_insist(self, obs: Observation, fp: str, draft: str) -> str:
        """After the agent declined my objection to ``fp``: repeat it (assertiveness) once."""
        declined = any(m.sender != obs.me and f"[keep draft={fp}]" in m.text for m in obs.chat)
        if not declined or self._said.in_chat(obs, "insist", fp):
            return format_action(WAIT)
        issues = self.issues(obs, draft)
        if not issues:
            return format_action(WAIT)
        pushes = self.reaction(obs, fp) == "reject" or _rng(
            self.seed, self.name, obs.task.task_id, fp, "insist").random() < (
            self.human.assertiveness)
        if not pushes:
            return format_action(WAIT)
        return self._said.post("insist", fp, "I still disagree. " + format_check_message(
            self.name, issues, draft))

    def issues(self, obs: Observation, text: str) -> tuple[Issue, ...]:
        """All issues this collaborator's (fallible) checks find in ``text`` (none in a text
        it wrote itself)."""
        if draft_fingerprint(text) in self._written:
            return ()
        semantics, plan = self._task(obs.task)
        found: list[Issue] = []
        if self.wording:
            found += check_wording(semantics, text)
        if self.numbers:
            agent = _latest_result(obs, None, exclude=obs.me)
            found += [i for i in check_numbers(text, self._own_result(obs, plan), agent)
                      if all(i.kind != f.kind for f in found)]
        return tuple(found)

    def _confirmation(self, semantics: QuerySemantics, own: AnalysisResult | None) -> str:
        if self.numbers and own is not None and own.year is not None:
            return (f"I recomputed it on {'+'.join(own.columns)} and get the same century. "
                    "The draft is consistent with the data.")
        return f"The wording answers what is asked ({describe_check(semantics)})."

    def _own_result(self, obs: Observation, plan: AnalysisPlan) -> AnalysisResult | None:
        code = compute_cell(plan)
        for cell in reversed(obs.code_cells):
            if cell.author == obs.me and cell.code == code:
                return parse_result(cell.output) if cell.ok else None
        return None

    def _computed(self, obs: Observation, plan: AnalysisPlan) -> bool:
        code = compute_cell(plan)
        return any(c.author == obs.me and c.code == code for c in obs.code_cells) or any(
            h.actor == obs.me and h.action_type == "EXECUTE_CODE" and h.status == "rejected"
            for h in obs.history)

    def _posted(self, obs: Observation, fp: str) -> bool:
        return bool(self._said.in_chat(obs, "check", fp))

    def _decide_code(self, request_id: str, code: str, plan: AnalysisPlan) -> str:
        if not self.params.get("review_code", self.numbers):
            return format_action("APPROVE", request_id=request_id)
        match = _COLS_RE.search(code)
        if match and code.startswith(COMPUTE_MARK):
            used = set(re.findall(r"'([^']+)'", match.group(1)))
            raw = sorted(c.removesuffix("_inter") for c in plan.columns
                         if c.endswith("_inter") and c.removesuffix("_inter") in used)
            if raw:
                issue = Issue("wrong_column_variant",
                              f"The cell uses the raw column(s) {', '.join(raw)}, which have "
                              f"gaps; use {'+'.join(plan.columns)}.",
                              (("column", "+".join(plan.columns)),))
                return format_action("REJECT", request_id=request_id,
                                     reason=f"{issue.message} {issue.tag()}")
        return format_action("APPROVE", request_id=request_id)

    def _memory_entries(self) -> list[tuple[str, str]]:
        custom = self.params.get("memory_entries")
        if custom:
            return [(str(s), str(t)) for s, t in custom]
        who = f"{self.name} ({self.profile.title})"
        entries: list[tuple[str, str]] = []
        if self.numbers:
            entries += [
                ("expertise", f"Expertise {who}: variable mapping, raw vs interpolated column "
                              "variants, windows, extremes and n-th events; validates numbers "
                              "by recomputing them."),
                ("trust", f"Trust: rely on {self.name} for years and numbers."),
                ("evidence_criteria", f"Evidence criteria ({self.name}): every claimed year is "
                                      "recomputed independently on the *_inter columns."),
            ]
        if self.wording:
            entries += [
                ("expertise", f"Expertise {who}: query semantics - first vs second, peak vs "
                              "highest sustained values, increase vs decrease, bounded periods."),
                ("trust", f"Trust: rely on {self.name} for whether the wording answers the "
                          "question."),
                ("evidence_criteria", f"Evidence criteria ({self.name}): the hypothesis states "
                                      "exactly the asked ordinal, direction and period."),
            ]
        return entries


def build_scripted(
    name: str,
    role: Role,
    profile: Profile | None = None,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
) -> ScriptedAgent | ScriptedCollaborator:
    """Construct the scripted policy for one participant (used by teams and the offline
    LLM provider)."""
    if role == "agent":
        return ScriptedAgent(seed=seed, params=params, name=name)
    if profile is None:
        raise ValueError(f"collaborator {name!r} needs a profile")
    return ScriptedCollaborator(profile, seed=seed, params=params)
