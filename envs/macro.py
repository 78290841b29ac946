"""Structured interface: ``Discrete`` macro-actions and a fixed-size numeric observation.

:class:`MacroActions` wraps a collabsim text env (``DiscoveryTeam-v1`` or ``Collaborator-v1``)
for learners that need numeric spaces (stable-baselines3, any MLP policy):

* **action space** ``Discrete(n)``: macro-actions that expand to one action-language action
  each, computed from what the learner's seat sees (never the gold or reference graph).
  Agent seat (:data:`AGENT_MACROS`): wait; inspect the data; run the analysis for hypothesis
  variant k (k=0: the plan parsed from the query with teammates' suggested fixes applied;
  k=1..4: that plan with one alternative reading - raw instead of gap-filled columns, the
  other ordinal, peak vs plateau, without the period); update the editor with the claim of
  the learner's latest result; ask teammates to check the draft; approve / reject the first
  pending request; finish; ask a teammate about a kind of fact (:data:`ASK_KINDS`:
  ``ask_reading`` - what an ambiguous term of the query means: ordinal, relation, period -
  and ``ask_convention`` - which column variant is valid), valid while the learner's brief
  leaves a topic of that kind open (:func:`~collabsim.participants.reading.open_topics`), no
  teammate's fact settles it and no question on it waits for its answer; it goes to the
  teammate whose area covers it (:func:`~collabsim.participants.asking.whom_to_ask`: R for
  readings, D for conventions), after "I don't know" to the next one not asked yet. Variant
  0 applies teammates' facts (``[fact ...]`` answers and volunteered facts) as it applies
  their issue fixes. Collaborator seat (:data:`COLLABORATOR_MACROS`): wait; recompute
  the answer; confirm the draft; message a concern of kind k (:data:`ISSUE_KINDS`) about the
  draft to the team, with the fix from the learner's own plan; approve / reject; answer the
  oldest question a teammate put to the learner from the facts of its brief (the fact's
  text and tag, or "I don't know": :func:`~collabsim.participants.asking.statement`, what a
  scripted collaborator says when it has the fact right).
* **observation space** ``Box(0, 1, (N_FEATURES,), float32)``: see :data:`FEATURES`
  (phase, time and turns used, pending requests, editor state, which variants were computed
  and whether their results agree, checks received, counts of objections by kind, available
  actions; per kind of fact: topics open, asked, answered with a value, answered "I don't
  know"; a question waiting for the learner's answer).
* ``info["action_mask"]``: a bool array, True for macros valid now. An invalid macro is
  played as ``wait`` (it never raises), so learners without masking still work.

The reward, termination and task options are the wrapped env's.
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from collabsim.core.actions import ActionName, format_action
from collabsim.core.observation import Observation
from collabsim.core.records import CodeCell
from collabsim.core.tags import (
    announced_drafts,
    checked_drafts,
    draft_fingerprint,
    format_draft,
    parse_asks,
    parse_facts,
    parse_issues,
)
from collabsim.domain.time_expr import format_window
from collabsim.envs.session_env import SessionEnv
from collabsim.participants.asking import question_text, statement, whom_to_ask
from collabsim.participants.cells import compute_cell, inspect_cell, parse_result
from collabsim.participants.claims import Issue, format_check_message
from collabsim.participants.plan import AnalysisPlan, apply_mistakes
from collabsim.participants.query import QuerySemantics
from collabsim.participants.reading import open_topics, read_brief
from collabsim.participants.wording import draft_hypothesis

VARIANT_MISTAKES = ("wrong_column_variant", "wrong_ordinal", "peak_vs_plateau", "wrong_window")
N_VARIANTS = 1 + len(VARIANT_MISTAKES)
ISSUE_KINDS = ("wrong_year", "missing_year", "wrong_column_variant", "wrong_ordinal",
               "peak_vs_plateau", "wrong_window", "wrong_relation")
# The kinds of fact the agent can ask a teammate about, and the topics of each (the topics
# reading.open_topics finds: a reading of the query's wording, or the data's convention).
ASK_KINDS: dict[str, tuple[str, ...]] = {"reading": ("ordinal", "relation", "window"),
                                         "convention": ("column",)}
_KIND_OF_TOPIC = {topic: kind for kind, topics in ASK_KINDS.items() for topic in topics}
AGENT_MACROS: tuple[str, ...] = (
    "wait", "inspect_data", *(f"analyse_variant_{k}" for k in range(N_VARIANTS)),
    "update_editor", "ask_check", "approve", "reject", "finish",
    *(f"ask_{kind}" for kind in ASK_KINDS),
)
COLLABORATOR_MACROS: tuple[str, ...] = (
    "wait", "recompute", "confirm_draft", *(f"concern_{k}" for k in ISSUE_KINDS),
    "approve", "reject", "answer",
)
ACTION_NAMES = tuple(a.value for a in ActionName)
FEATURES: tuple[str, ...] = (
    "phase_build", "time_used", "turns_used", "pending_for_me", "my_pending",
    "editor_nonempty", "editor_is_my_claim", "inspected",
    *(f"variant_{k}_computed" for k in range(N_VARIANTS)),
    *(f"variant_{k}_agrees_with_0" for k in range(N_VARIANTS)),
    "latest_results_agree", "my_cells", "my_last_cell_failed", "draft_announced",
    "checks_received", "checks_with_issues",
    *(f"objections_{k}" for k in ISSUE_KINDS), "objections_other",
    "chat_messages", "gates_in_force", "role_is_agent", "feedback",
    *(f"can_{a.lower()}" for a in ACTION_NAMES),
    *(f"{what}_{kind}" for kind in ASK_KINDS
      for what in ("open", "asked", "answered", "unknown")),
    "question_for_me",
)
N_FEATURES = len(FEATURES)
_TIME_USED, _TURNS_USED = FEATURES.index("time_used"), FEATURES.index("turns_used")
_WAIT = format_action("WAIT_TEAMMATE_CONTINUE")
# The family of each macro: MacroActions._<family>_macro expands it to action text.
_MACRO_FAMILY: dict[str, str] = {
    "wait": "wait", "approve": "decide", "reject": "decide", "finish": "finish",
    "inspect_data": "compute", "recompute": "compute",
    **{f"analyse_variant_{k}": "compute" for k in range(N_VARIANTS)},
    "update_editor": "update_editor", "answer": "answer",
    **{f"ask_{kind}": "ask" for kind in ASK_KINDS},
    "ask_check": "ask_check", "confirm_draft": "confirm_draft",
    **{f"concern_{k}": "concern" for k in ISSUE_KINDS},
}
# Families whose macros are valid in the build phase too (the others wait for the work phase).
_BUILD_PHASE_FAMILIES = frozenset({"wait", "decide", "finish"})
# Analysis cells, parsed outputs and chat tags are pure functions of their inputs: kept
# across steps (every step reads the whole chat and every cell again).
_compute_cell = functools.lru_cache(maxsize=4096)(compute_cell)
_parse_result = functools.lru_cache(maxsize=4096)(parse_result)
_parse_issues = functools.lru_cache(maxsize=4096)(parse_issues)
_parse_asks = functools.lru_cache(maxsize=4096)(parse_asks)
_parse_facts = functools.lru_cache(maxsize=4096)(parse_facts)
_announced_drafts = functools.lru_cache(maxsize=4096)(announced_drafts)
_checked_drafts = functools.lru_cache(maxsize=4096)(checked_drafts)
_draft_fingerprint = functools.lru_cache(maxsize=256)(draft_fingerprint)


def _action(build: bool, name: str, /, **args: Any) -> tuple[str, bool]:
    """A valid macro's (action text, True); the text is ``""`` unless ``build``."""
    return (format_action(name, **args) if build else ""), True


class MacroActions(gym.Wrapper):
    """Discrete macro-actions and numeric features over a collabsim text env (see module).

    Args:
        env: A ``collabsim/DiscoveryTeam-v1`` or ``collabsim/Collaborator-v1`` env.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, SessionEnv):
            raise TypeError("MacroActions wraps collabsim envs (SessionEnv)")
        base.text_observations = False  # the text prompt is not needed: saves rendering time
        self.base = base
        self.is_agent = base.learner == base.team.agent
        self.macros = AGENT_MACROS if self.is_agent else COLLABORATOR_MACROS
        self.action_space = spaces.Discrete(len(self.macros))
        self.observation_space = spaces.Box(0.0, 1.0, (N_FEATURES,), np.float32)
        self._plans: dict[str, tuple[QuerySemantics, tuple[AnalysisPlan, ...]]] = {}
        self._open: dict[str, tuple[str, ...]] = {}  # task id -> topics its brief leaves open
        # (task, teammates' fixes in chat order) -> plans of the variants
        self._variants: dict[tuple[Any, ...], tuple[AnalysisPlan, ...]] = {}
        # Every step asks the same questions of one observation several times (the mask
        # expands each macro, the features recompute the variants): answered once per
        # observation.
        self._memo_of: Observation | None = None
        self._memo: dict[str, Any] = {}
        self._mask_key: tuple[Any, ...] | None = None
        self._mask = np.ones(len(self.macros), dtype=bool)
        self._features_key: tuple[Any, ...] | None = None
        self._features = np.zeros(N_FEATURES, dtype=np.float32)

    def _per_obs(self, obs: Observation) -> dict[str, Any]:
        if obs is not self._memo_of:
            self._memo_of, self._memo = obs, {}
        return self._memo

    # -- plans ----------------------------------------------------------------------
    def _task_plans(self, obs: Observation) -> tuple[QuerySemantics, tuple[AnalysisPlan, ...]]:
        key = obs.task.task_id
        if key not in self._plans:
            semantics, plan = read_brief(obs.task)  # the query read with the seat's facts
            self._plans[key] = (semantics, (plan,))
            self._open[key] = open_topics(obs.task, semantics, plan)
        return self._plans[key]

    def open_topics(self, obs: Observation) -> tuple[str, ...]:
        """The topics the learner's brief leaves open (:func:`~collabsim.participants.
        reading.open_topics`: from the query and the data, no fact of the brief settles them)."""
        self._task_plans(obs)
        return self._open[obs.task.task_id]

    def asks(self, obs: Observation) -> list[tuple[str, str, dict[str, str] | None | bool]]:
        """The learner's questions in chat: ``(topic, teammate, answer)`` with the answer's
        setting, None for "I don't know", or False while unanswered."""
        memo = self._per_obs(obs)
        found = memo.get("asks")
        if found is None:
            found = []
            chat = obs.chat
            for i, message in enumerate(chat):
                if message.sender != obs.me:
                    continue
                for topic, whom in _parse_asks(message.text):
                    answer: dict[str, str] | None | bool = False
                    for later in chat[i + 1:]:
                        if later.sender == whom:
                            said = [f for t, f in _parse_facts(later.text) if t == topic]
                            if said:
                                answer = said[0]
                                break
                    found.append((topic, whom, answer))
            memo["asks"] = found
        return found

    def question(self, obs: Observation, kind: str) -> tuple[str, str] | None:
        """``(topic, teammate)`` the ``ask_<kind>`` macro asks about, None: none to ask.

        The first topic of ``kind`` the learner's brief leaves open that no teammate's fact
        settles and no question of the learner's is waiting on, to the teammate whose area
        covers it (:func:`~collabsim.participants.asking.whom_to_ask`) or, after "I don't
        know", the next one not asked yet."""
        if not obs.teammates or not obs.task.datasets:
            return None
        asks = self.asks(obs)
        told = {t for m in obs.chat if m.sender != obs.me
                for t, f in _parse_facts(m.text) if f}
        for topic in self.open_topics(obs):
            if _KIND_OF_TOPIC.get(topic) != kind or topic in told:
                continue
            if any(t == topic and a is False for t, _, a in asks):
                continue  # a question on it is waiting for its answer
            asked = {w for t, w, _ in asks if t == topic}
            whom = next((w for w in whom_to_ask(topic, obs.teammates) if w not in asked), None)
            if whom is not None:
                return topic, whom
        return None

    def pending_question(self, obs: Observation) -> str | None:
        """The topic of the oldest question a teammate put to the learner that the learner
        has not answered (a later message of the learner with a fact tag on it)."""
        chat = obs.chat
        for i, message in enumerate(chat):
            if message.sender == obs.me:
                continue
            for topic, whom in _parse_asks(message.text):
                if whom == obs.me and not any(
                        later.sender == obs.me and any(t == topic for t, _ in
                                                       _parse_facts(later.text))
                        for later in chat[i + 1:]):
                    return topic
        return None

    def variants(self, obs: Observation) -> list[AnalysisPlan]:
        """Plans of hypothesis variants 0..4 (variant 0 with teammates' fixes applied)."""
        return list(self._variant_plans(obs))

    def _variant_plans(self, obs: Observation) -> tuple[AnalysisPlan, ...]:
        memo = self._per_obs(obs)
        plans = memo.get("variants")
        if plans is None:
            fixes = tuple(tuple(fix.items()) for message in obs.chat if message.sender != obs.me
                          for fix in (*(f for _, f in _parse_issues(message.text)),
                                      *(f for _, f in _parse_facts(message.text) if f)))
            key = (obs.task.task_id, fixes)
            plans = self._variants.get(key)
            if plans is None:
                _, (plan,) = self._task_plans(obs)
                for fix in fixes:
                    plan = plan.with_fix(dict(fix))
                plans = (plan, *(apply_mistakes(plan, [m]) for m in VARIANT_MISTAKES))
                if len(self._variants) >= 1024:
                    self._variants.clear()
                self._variants[key] = plans
            memo["variants"] = plans
        return plans

    def _seen(self, obs: Observation) -> tuple[frozenset[str], str, str]:
        """(available actions, stripped editor text, its fingerprint) of ``obs``."""
        memo = self._per_obs(obs)
        seen = memo.get("seen")
        if seen is None:
            editor = obs.editor_text.strip()
            seen = memo["seen"] = (frozenset(obs.available_actions), editor,
                                   _draft_fingerprint(editor) if editor else "")
        return seen

    @staticmethod
    def _result_of(cell: CodeCell | None) -> tuple[bool, Any]:
        """(run at all, parsed result of a successful run) of the learner's latest run."""
        if cell is None:
            return False, None
        return True, _parse_result(cell.output) if cell.ok else None

    def _my_latest(self, obs: Observation) -> Any:
        for cell in reversed(obs.code_cells):
            if cell.author == obs.me and cell.ok:
                result = _parse_result(cell.output)
                if result is not None:
                    return result
        return None

    def _claim(self, obs: Observation) -> str | None:
        memo = self._per_obs(obs)
        if "claim" not in memo:
            result = self._my_latest(obs)
            claim = None
            if result is not None:
                semantics, _ = self._task_plans(obs)
                claim = draft_hypothesis(result, semantics)
            memo["claim"] = claim
        return memo["claim"]

    # -- macros -> action text --------------------------------------------------------
    def _macro_index(self, action: Any) -> int:
        """``action`` as a macro index, refused when it is not in ``Discrete(n)``."""
        try:
            index = int(action)
        except (TypeError, ValueError):
            index = -1
        if index != action or not 0 <= index < len(self.macros):
            raise ValueError(
                f"action {action!r} is not in the action space {self.action_space}: give an "
                f"integer 0..{len(self.macros) - 1} ({', '.join(self.macros)})")
        return index

    def expand(self, obs: Observation, macro: int) -> tuple[str | None, bool]:
        """(action text, valid) of macro ``macro`` in ``obs``; text None when invalid."""
        return self._expand(obs, int(macro), True)

    def _expand(self, obs: Observation, macro: int, text: bool) -> tuple[str | None, bool]:
        """:meth:`expand`; with ``text=False`` a valid macro's text is not built (``""``).

        Each macro belongs to a family (:data:`_MACRO_FAMILY`) expanded by the method
        ``_<family>_macro``; in the build phase only waiting, approving / rejecting and
        finishing are valid.
        """
        name = self.macros[macro]
        family = _MACRO_FAMILY[name]
        if obs.phase == "build" and family not in _BUILD_PHASE_FAMILIES:
            return None, False
        expand = getattr(self, f"_{family}_macro")
        return expand(obs, name, text)

    def _wait_macro(self, obs: Observation, name: str, text: bool) -> tuple[str | None, bool]:
        """``wait``: always valid."""
        return _WAIT, True

    def _decide_macro(self, obs: Observation, name: str, text: bool) -> tuple[str | None, bool]:
        """``approve`` / ``reject`` the first request pending for the learner."""
        can, _, _ = self._seen(obs)
        pending = obs.pending_for_me[0] if obs.pending_for_me else None
        if pending is None or name.upper() not in can:
            return None, False
        if name == "approve":
            return _action(text, "APPROVE", request_id=pending.request_id)
        return _action(text, "REJECT", request_id=pending.request_id,
                       reason="I do not think this is right yet.")

    def _finish_macro(self, obs: Observation, name: str, text: bool) -> tuple[str | None, bool]:
        """``finish``: valid when finishing is an available action."""
        can, _, _ = self._seen(obs)
        return ("FINISH()", True) if "FINISH" in can else (None, False)

    def _compute_macro(self, obs: Observation, name: str, text: bool) -> tuple[str | None, bool]:
        """``inspect_data``, ``recompute`` (variant 0) or ``analyse_variant_k``: run a cell.

        A variant k > 0 whose alternative reading does not apply to the query (its plan is
        variant 0's) is invalid.
        """
        can, _, _ = self._seen(obs)
        if "EXECUTE_CODE" not in can:
            return None, False
        plans = self._variant_plans(obs)
        if name == "inspect_data":
            return _action(text, "EXECUTE_CODE", code=inspect_cell(plans[0]) if text else "")
        k = 0 if name == "recompute" else int(name.rsplit("_", 1)[1])
        if k and plans[k] == plans[0]:
            return None, False  # this alternative reading does not apply to the query
        return _action(text, "EXECUTE_CODE", code=_compute_cell(plans[k]) if text else "")

    def _update_editor_macro(
        self, obs: Observation, name: str, text: bool
    ) -> tuple[str | None, bool]:
        """``update_editor``: write the claim of the learner's latest result when it differs."""
        can, editor, _ = self._seen(obs)
        claim = self._claim(obs)
        if claim is None or claim.strip() == editor or "EDITOR_UPDATE" not in can:
            return None, False
        return _action(text, "EDITOR_UPDATE", text=claim)

    def _answer_macro(self, obs: Observation, name: str, text: bool) -> tuple[str | None, bool]:
        """``answer``: the learner's statement on the oldest question put to it."""
        can, _, _ = self._seen(obs)
        if "SEND_TEAMMATE_MESSAGE" not in can:
            return None, False
        topic = self.pending_question(obs)
        if topic is None:
            return None, False
        return _action(text, "SEND_TEAMMATE_MESSAGE",
                       message=statement(obs.task, topic) if text else "")

    def _ask_macro(self, obs: Observation, name: str, text: bool) -> tuple[str | None, bool]:
        """``ask_<kind>``: ask a teammate about the next open topic of that kind."""
        can, _, _ = self._seen(obs)
        if "SEND_TEAMMATE_MESSAGE" not in can:
            return None, False
        question = self.question(obs, name.removeprefix("ask_"))
        if question is None:
            return None, False
        return _action(text, "SEND_TEAMMATE_MESSAGE",
                       message=question_text(*question) if text else "")

    def _can_discuss_draft(self, obs: Observation) -> bool:
        """Whether a message about the draft can go out: messaging available, a draft in
        the editor, teammates to read it."""
        can, editor, _ = self._seen(obs)
        return "SEND_TEAMMATE_MESSAGE" in can and bool(editor) and bool(obs.teammates)

    def _ask_check_macro(self, obs: Observation, name: str, text: bool) -> tuple[str | None, bool]:
        """``ask_check``: announce the draft and ask the team to check it (once per draft)."""
        _, editor, fp = self._seen(obs)
        if not self._can_discuss_draft(obs) or any(
            m.sender == obs.me and fp in _announced_drafts(m.text) for m in obs.chat
        ):
            return None, False
        message = f'Draft: "{editor}". Please check it. {format_draft(fp)}' if text else ""
        return _action(text, "SEND_TEAMMATE_MESSAGE", message=message)

    def _confirm_draft_macro(
        self, obs: Observation, name: str, text: bool
    ) -> tuple[str | None, bool]:
        """``confirm_draft``: tell the team the draft was checked, with no issue."""
        if not self._can_discuss_draft(obs):
            return None, False
        _, editor, _ = self._seen(obs)
        message = format_check_message(obs.me, (), editor, "I checked the draft.") if text else ""
        return _action(text, "SEND_TEAMMATE_MESSAGE", message=message)

    def _concern_macro(self, obs: Observation, name: str, text: bool) -> tuple[str | None, bool]:
        """``concern_<kind>``: raise an issue of that kind about the draft, with the fix from
        the learner's own plan."""
        if not self._can_discuss_draft(obs):
            return None, False
        if not text:
            return "", True
        _, editor, _ = self._seen(obs)
        kind = name.removeprefix("concern_")
        issue = Issue(kind, f"I think the draft has a {kind.replace('_', ' ')} problem.",
                      self._fix(obs, kind))
        message = format_check_message(obs.me, (issue,), editor)
        return _action(text, "SEND_TEAMMATE_MESSAGE", message=message)

    def _fix(self, obs: Observation, kind: str) -> tuple[tuple[str, str], ...]:
        _, (plan,) = self._task_plans(obs)
        fix = {"column": "+".join(plan.columns), "ordinal": str(plan.ordinal),
               "relation": plan.relation}
        if plan.window is not None:
            fix["window"] = format_window(plan.window)
        keep = {"wrong_column_variant": ("column",), "wrong_ordinal": ("ordinal",),
                "peak_vs_plateau": ("relation",), "wrong_relation": ("relation",),
                "wrong_window": ("window",)}.get(kind, tuple(fix))
        return tuple((k, fix[k]) for k in keep if k in fix)

    def action_mask(self, obs: Observation | None = None) -> np.ndarray:
        """Bool array: which macros are valid in ``obs`` (default: the current one)."""
        obs = obs or self.base.last_observation
        if obs is None:
            return np.ones(len(self.macros), dtype=bool)
        key = self._state_key(obs)
        if key != self._mask_key:
            self._mask = np.array(
                [self._expand(obs, i, False)[1] for i in range(len(self.macros))], dtype=bool)
            self._mask_key = key
        return self._mask.copy()

    def _state_key(self, obs: Observation) -> tuple[Any, ...]:
        """Everything the mask and the features read of ``obs`` except its time and turn.

        Most steps change none of it, so the last mask and features are kept while it is
        equal. Chat and cells compare item by item, by identity first: cheap within a
        session, exact across sessions.
        """
        memo = self._per_obs(obs)
        key = memo.get("key")
        if key is None:
            key = memo["key"] = (
                obs.task, obs.me, obs.role, obs.teammates, obs.phase, obs.available_actions,
                len(obs.pending_for_me), len(obs.my_pending), bool(obs.gates),
                bool(obs.feedback), obs.editor_text, obs.chat, obs.code_cells,
            )
        return key

    # -- features ---------------------------------------------------------------------
    def features(self, obs: Observation | None) -> np.ndarray:
        """The numeric observation of ``obs`` (see :data:`FEATURES`)."""
        if obs is None:
            return np.zeros(N_FEATURES, dtype=np.float32)
        key = self._state_key(obs)
        if key != self._features_key:
            self._features = self._compute_features(obs)
            self._features_key = key
        out = self._features.copy()
        out[_TIME_USED], out[_TURNS_USED] = self._progress(obs)
        return out

    def _progress(self, obs: Observation) -> tuple[float, float]:
        """``time_used`` and ``turns_used`` of ``obs``."""
        return (min(obs.time / self.base.max_time, 1.0),
                min(obs.turn / max(self.base.max_turns, 1), 1.0))

    def _compute_features(self, obs: Observation) -> np.ndarray:
        out = np.zeros(N_FEATURES, dtype=np.float32)
        plans = self._variant_plans(obs) if obs.task.datasets else ()
        mine = [c for c in obs.code_cells if c.author == obs.me]
        latest_run = {c.code: c for c in mine}  # each code's latest run by the learner
        results = [self._result_of(latest_run.get(_compute_cell(p))) for p in plans]
        base_year = results[0][1].year if results and results[0][1] is not None else None
        can, editor, fp = self._seen(obs)
        claim = self._claim(obs)
        inspect = inspect_cell(plans[0]) if plans else None
        others = [m for m in obs.chat if m.sender != obs.me]
        checks = [m for m in others if fp and fp in _checked_drafts(m.text)]
        kinds = [k for m in others for k, _ in _parse_issues(m.text)]
        years = [(c.author, r.year) for c in obs.code_cells if c.ok
                 for r in [_parse_result(c.output)]
                 if r is not None and r.year is not None]
        agree = 0.0
        if len(years) >= 2 and years[-1][0] != years[-2][0]:
            agree = float(years[-1][1] == years[-2][1])
        values: list[float] = [
            obs.phase == "build", *self._progress(obs),
            min(len(obs.pending_for_me), 3) / 3, min(len(obs.my_pending), 3) / 3,
            bool(editor), claim is not None and claim.strip() == editor,
            inspect in latest_run,
        ]
        values += [results[k][0] if k < len(results) else 0.0 for k in range(N_VARIANTS)]
        values += [
            float(k < len(results) and results[k][1] is not None and base_year is not None
                  and results[k][1].year == base_year)
            for k in range(N_VARIANTS)
        ]
        teammates = max(len(obs.teammates), 1)
        values += [
            agree, min(len(mine) / 10, 1.0), bool(mine) and not mine[-1].ok,
            any(fp and fp in _announced_drafts(m.text) for m in obs.chat),
            min(len({m.sender for m in checks}) / teammates, 1.0),
            min(len({m.sender for m in checks if _parse_issues(m.text)}) / teammates, 1.0),
        ]
        values += [min(kinds.count(k), 3) / 3 for k in ISSUE_KINDS]
        values += [
            min(sum(k not in ISSUE_KINDS for k in kinds), 3) / 3,
            min(len(obs.chat) / 20, 1.0), bool(obs.gates), obs.role == "agent",
            bool(obs.feedback),
        ]
        values += [a in can for a in ACTION_NAMES]
        asks = self.asks(obs)
        told = [(t, f) for m in others for t, f in _parse_facts(m.text)]
        open_now = self.open_topics(obs) if obs.task.datasets else ()
        for topics in ASK_KINDS.values():
            values += [
                min(sum(t in topics for t in open_now), 3) / 3,
                any(t in topics for t, _, _ in asks),
                any(t in topics and f for t, f in told),
                any(t in topics and f is None for t, f in told),
            ]
        values.append(self.pending_question(obs) is not None)
        out[:] = np.asarray(values, dtype=np.float32)
        return out

    # -- gymnasium API ----------------------------------------------------------------
    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset the wrapped env; ``info["action_mask"]`` marks valid macros."""
        _, info = self.env.reset(**kwargs)
        obs = self.base.last_observation
        info["action_mask"] = self.action_mask(obs)
        return self.features(obs), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play macro ``action`` (one not valid in this state as ``wait``).

        Raises:
            ValueError: ``action`` is not an element of the action space (names the space and
                its macros).
        """
        macro = self._macro_index(action)
        obs = self.base.last_observation
        text, valid = self.expand(obs, macro) if obs is not None else (_WAIT, True)
        _, reward, terminated, truncated, info = self.env.step(text if valid else _WAIT)
        info["macro"] = self.macros[macro]
        info["macro_valid"] = valid
        new = self.base.last_observation
        info["action_mask"] = self.action_mask(new)
        return self.features(new), reward, terminated, truncated, info
