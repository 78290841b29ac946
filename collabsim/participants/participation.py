"""Simulated humans taking part between the agent's drafts: they answer its outputs.

Besides checking drafts and deciding gates, a scripted collaborator answers the agent's
other outputs as Kolab's professionals do (:mod:`collabsim.participants.behaviour.participation`
holds the calibrated rates):

* the **output** it looks at is the agent's latest code cell or chat message (not a draft
  announcement, which the draft rules answer, nor a question, which the answer rule does)
  that landed after its own latest action; its first such comment also answers the agent's
  group-memory entries (one draw per entry; in the work phase, as the build phase's decisions
  are budgeted);
* it **answers** it with probability ``respond_<kind>`` (one draw per person, task and
  output): a chat comment tagged ``[re=<ref> <label>]`` (:func:`~collabsim.core.tags.format_reply`)
  whose content and label come from its own, fallible reading and computation (its own
  result against the agent's, the columns it would use, the question as it reads it; never
  the gold): ``adopt`` when they agree, ``modify`` when it would do the step differently,
  ``reject`` when its own result contradicts the agent's;
* answering, with probability ``delegate`` it asks the agent for the next step
  (``[please step=compute|draft]``), which the agent then does
  (:mod:`collabsim.participants.agent_sharing`);
* not answering, with probability ``act_between`` it does a step of its own: its own
  computation once (a collaborator who recomputes claims), otherwise a note that it is going
  through the output.

Every decision is a pure function of (observation, seed, params): the draws are seeded by
the output's reference, and what the person did is read back from the chat and its history.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from collabsim.core.actions import format_action, format_wait
from collabsim.core.observation import Observation
from collabsim.core.tags import (
    announced_drafts,
    format_reply,
    format_step_request,
    found_cells,
    memory_ref,
    parse_asks,
    parse_replies,
)
from collabsim.domain.relations import ORDINAL_WORDS
from collabsim.domain.stats.model import StatPlan
from collabsim.domain.time_expr import format_window, year_text
from collabsim.participants.behaviour.participation import OutputKind, ParticipationModel
from collabsim.participants.cells import (
    COMPUTE_MARK,
    INSPECT_MARK,
    compute_cell,
    compute_cell_columns,
    parse_result,
    variants_agree,
)
from collabsim.participants.claims import Issue, check_numbers, describe_check
from collabsim.participants.plan import seeded_rng
from collabsim.participants.scripted_common import WAIT, allowed, say
from collabsim.participants.stat_collaborator import cell_of, has_data

# Who wrote a memory entry: the scripted members write "<Section> (<name>): ..."
_ENTRY_AUTHOR_RE = re.compile(r"^[^():]*\((\w[\w.-]*)\):")


@dataclass(frozen=True)
class AgentOutput:
    """One output of the agent a person may answer.

    Attributes:
        ref: Its reference in a reply tag (a cell's or message's seq; ``m<fp>`` for a memory
            entry).
        kind: ``code``, ``message`` or ``memory``.
        time: When it landed (0 for a memory entry: the view shows no time).
        text: The cell's output, the message's or the entry's text.
        code: The cell's code (empty otherwise).
    """

    ref: str
    kind: OutputKind
    time: float
    text: str
    code: str = ""


def model_of(person: Any) -> ParticipationModel | None:
    """The person's calibrated participation block (None: it answers only drafts)."""
    behaviour = person.human.behaviour
    return None if behaviour is None else behaviour.participation


def _agent(obs: Observation) -> str | None:
    # the first teammate in an observation is the agent
    return obs.teammates[0] if obs.teammates else None


def _my_last_action(obs: Observation) -> float:
    return max((e.time for e in obs.history if e.actor == obs.me), default=-1.0)


def latest_output(obs: Observation) -> AgentOutput | None:
    """The agent's latest code cell or plain message that landed after my latest action
    (None: none). A draft announcement, a question and a message sharing a cell's findings
    whose cell is newer are not plain messages here (module docstring)."""
    agent = _agent(obs)
    if agent is None:
        return None
    since = _my_last_action(obs)
    outputs: list[AgentOutput] = []
    cell = next((c for c in reversed(obs.code_cells) if c.author == agent), None)
    if cell is not None and cell.time > since:
        outputs.append(AgentOutput(str(cell.seq), "code", cell.time, cell.output, cell.code))
    message = next((m for m in reversed(obs.chat) if m.sender == agent), None)
    if (message is not None and message.time > since and not announced_drafts(message.text)
            and not parse_asks(message.text)):
        outputs.append(AgentOutput(str(message.seq), "message", message.time, message.text))
    return max(outputs, key=lambda o: o.time, default=None)


def entries_to_answer(person: Any, obs: Observation) -> list[AgentOutput]:
    """The agent's group-memory entries I have not answered and answer (one draw per entry)."""
    agent = _agent(obs)
    if agent is None or obs.memory is None:
        return []
    replied = {ref for m in obs.chat if m.sender == obs.me for ref, _ in parse_replies(m.text)}
    out = []
    for section, texts in sorted(obs.memory.sections.items()):  # one order on every path
        for text in texts:
            author = _ENTRY_AUTHOR_RE.match(text)
            by_agent = (author.group(1) == agent) if author else section == "gates"
            entry = AgentOutput(memory_ref(text), "memory", 0.0, text)
            if by_agent and entry.ref not in replied and answers(person, obs, entry):
                out.append(entry)
    return out


def _draw(person: Any, obs: Observation, output: AgentOutput, what: str) -> float:
    return seeded_rng(person.seed, person.name, obs.task.task_id, output.ref, what).random()


def answers(person: Any, obs: Observation, output: AgentOutput) -> bool:
    """Whether I answer ``output`` (one draw per person, task and output): with
    ``1 - (1 - p) ** (1 / n)`` for the calibrated ``p = respond_<kind>`` and ``n`` the team's
    humans, so that an output is answered by someone at ``p`` as in Kolab, whose sessions
    have one human (the first teammate in an observation is the agent)."""
    model = model_of(person)
    if model is None:
        return False
    humans = max(1, len(obs.teammates))
    rate = 1.0 - (1.0 - model.respond(output.kind)) ** (1.0 / humans)
    return _draw(person, obs, output, "respond") < rate


def acts_between(person: Any, obs: Observation, output: AgentOutput) -> bool:
    """Whether, not answering ``output``, I do a step of my own before the agent's next."""
    model = model_of(person)
    return (model is not None and not answers(person, obs, output)
            and _draw(person, obs, output, "act") < model.act_between.value)


def ready_at(person: Any, obs: Observation, output: AgentOutput) -> float:
    """When I have read ``output``: its landing plus a think time drawn from the calibrated
    timing model for it (a memory entry is read at once: the build phase is short)."""
    behaviour = person.human.behaviour
    if behaviour is None or output.kind == "memory":
        return output.time
    rng = seeded_rng(person.seed, person.name, obs.task.task_id, output.ref, "think")
    return output.time + float(behaviour.timing.sample(1, rng).think[0])


def _asked(turn: Any) -> str:
    """What I read the question as asking, in a few words (the statistical family: the
    variable whose relation it asks about, as I read the plan)."""
    if isinstance(turn.plan, StatPlan):
        return f"the relation of {turn.plan.target or 'the asked variable'} to its predictors"
    return describe_check(turn.semantics)


def _step_request(person: Any, obs: Observation, output: AgentOutput,
                  turn: Any) -> str:
    """The delegation I add to an answer (one draw per output): the agent's next step as I
    see it - compute after a look at the data, the hypothesis after a result."""
    model = model_of(person)
    if model is None or _draw(person, obs, output, "delegate") >= model.delegate.value:
        return ""
    if output.kind == "code" and output.code.startswith(INSPECT_MARK):
        return (f" Please run the computation of {_asked(turn)} next. "
                f"{format_step_request('compute')}")
    if (output.kind == "code" and output.code.startswith(COMPUTE_MARK)) or found_cells(
            output.text):
        return f" Please write it up as the hypothesis. {format_step_request('draft')}"
    return ""


def _verdict(person: Any, obs: Observation, output: AgentOutput,
             turn: Any) -> tuple[str, str]:
    """(label, what I say) about ``output`` from my own reading and computation."""
    if isinstance(turn.plan, StatPlan):
        return "adopt", "I have looked at what you posted; it fits how I read the question."
    mine = describe_check(turn.semantics)
    result = parse_result(output.text) if output.kind == "code" else None
    if result is None and output.kind == "message":
        shared = [c for c in obs.code_cells if c.seq in found_cells(output.text)]
        result = parse_result(shared[-1].output) if shared else None
    own = person._own_result(obs, turn.plan)
    if result is not None and own is not None and own.year is not None:
        agrees = result.year == own.year
        return ("adopt" if agrees else "reject"), (
            f"That matches my own computation on {'+'.join(own.columns)}." if agrees else
            f"My own computation on {'+'.join(own.columns)} gives {own.year}, not "
            f"{result.year}." + _suggested(person, obs, output, check_numbers(
                year_text(result.year) if result.year is not None else "", own, result,
                turn.log.cells.missing_bins)))
    if result is not None and not person.numbers:
        differs = reading_issues(turn.semantics, result)
        if differs:
            return "modify", (f"I read the question as asking for {mine}."
                              + _suggested(person, obs, output, differs))
    columns = compute_cell_columns(output.code) if output.code else None
    if columns is not None and turn.plan.columns:
        used, wanted = tuple(sorted(columns)), tuple(turn.plan.columns)
        if set(used) != set(wanted) and not variants_agree(
                used, wanted, turn.log.cells.missing_bins):
            return "modify", (f"I would compute this on {'+'.join(wanted)} instead, for "
                              f"{mine}.")
    if output.kind == "memory" and output.text.lower().startswith("plan") and mine not in output.text:
        return "modify", f"I read the question as asking for {mine}."
    seen = "I see the data. For this question we need" if output.kind == "code" and (
        result is None) else "Fine with me: that fits"
    return "adopt", f"{seen} {mine}" + ("." if seen.startswith("I see") else " as I read it.")


def reading_issues(semantics: Any, result: Any) -> tuple[Issue, ...]:
    """What a reader's own reading of the query (``semantics``) disputes in a result the
    agent shared: another occurrence, relation or period than it reads the question to ask
    (each an issue whose fix sets that topic as it reads it)."""
    found: list[Issue] = []
    if result.relation == semantics.relation and result.ordinal != semantics.ordinal:
        found.append(Issue("wrong_ordinal", "The question asks for the "
                           f"{ORDINAL_WORDS.get(semantics.ordinal, semantics.ordinal)} "
                           "occurrence.", (("ordinal", str(semantics.ordinal)),)))
    if result.relation != semantics.relation and "describe" not in (result.relation,
                                                                    semantics.relation):
        kind = ("peak_vs_plateau" if {result.relation, semantics.relation}
                == {"peak", "plateau"} else "wrong_relation")
        found.append(Issue(kind, f"The question asks for a {semantics.relation}.",
                           (("relation", semantics.relation),)))
    if result.window != semantics.window and semantics.window is not None:
        found.append(Issue("wrong_window", "The search must be limited to the period "
                           "the question names.",
                           (("window", format_window(semantics.window)),)))
    return tuple(found)


def _suggested(person: Any, obs: Observation, output: AgentOutput,
               found: tuple[Issue, ...]) -> str:
    """The issues of ``found`` I raise (as my draft checks do: routed by area where the team
    records who knows what, :meth:`ScriptedCollaborator.voiced`), as their tags after my
    comment, so that the agent can take them up as suggestions."""
    raised = person.voiced(obs, f"out{output.ref}", found)
    return "".join(f" {i.message} {i.tag()}" for i in raised)


def reply(person: Any, turn: Any, output: AgentOutput) -> str:
    """My comment answering ``output`` (module docstring), tagged with its reference; my
    first one also answers the agent's memory entries I answer (:func:`entries_to_answer`)."""
    label, text = _reacted(person, turn, output)
    extra = _step_request(person, turn.obs, output, turn)
    entries = entries_to_answer(person, turn.obs)
    parts = [_reacted(person, turn, e) for e in entries]
    memory = (" On the memory entries: " + " ".join(dict.fromkeys(t for _, t in parts))
              if entries else "")
    tags = " ".join(format_reply(r.ref, lab) for r, (lab, _) in
                    [(output, (label, text)), *zip(entries, parts, strict=True)])
    return say(f"{text}{extra}{memory} {tags}")


def _reacted(person: Any, turn: Any,
             output: AgentOutput) -> tuple[str, str]:
    """(label, what I say): my own verdict, then my reaction drawn from the calibrated
    adopt / modify / reject rates given whether that verdict disagrees
    (:meth:`~collabsim.participants.scripted_collaborator.ScriptedCollaborator.reaction`,
    one draw per person, task and output), worded from my reading."""
    verdict, text = _verdict(person, turn.obs, output, turn)
    label = person.reaction(turn.obs, output.ref, disagrees=verdict != "adopt")
    if label == "check" or label == verdict or verdict != "adopt" and label != "adopt":
        return (verdict if label == "check" else label), text
    if label == "adopt":  # going along although my own look disagrees (over-reliance)
        return label, "Fine, go ahead."
    mine = _asked(turn)
    if label == "modify":
        return label, f"I would state more explicitly that this is about {mine}."
    return label, "I am not convinced yet; I will look at it on my own first."


def own_step(person: Any, turn: Any, output: AgentOutput) -> str:
    """A step of my own while the agent works: my own computation once (a collaborator who
    recomputes claims: the cell its check of the draft runs anyway, now earlier), else a
    note that I am going through the agent's output (a collaborator's cell runs in a worker
    of its own, so a look at the data for its own sake would cost a worker per session)."""
    obs, plan = turn.obs, turn.plan
    mine = any(c.author == obs.me for c in obs.code_cells)
    if (person.numbers and not mine and not obs.my_pending and has_data(plan)
            and allowed(obs, "EXECUTE_CODE")):
        return format_action("EXECUTE_CODE", code=cell_of(plan, compute_cell))
    what = {"code": "the output of your cell", "message": "your message",
            "memory": "the memory entry", "draft": "the draft"}[output.kind]
    return say(f"Going through {what} myself.")


def take_part(person: Any, turn: Any) -> str:
    """Answer the agent's latest output or do a step of my own (after my think time)."""
    output = latest_output(turn.obs)
    if output is None:  # one more step of my own (acts_again)
        return say("Working through it on my own.")
    ready = ready_at(person, turn.obs, output)
    if turn.obs.time < ready:
        return format_wait(ready - turn.obs.time)
    if answers(person, turn.obs, output):
        return reply(person, turn, output)
    return own_step(person, turn, output)


def takes_part(person: Any, turn: Any) -> bool:
    """Whether the agent's latest output waits for my answer or a step of mine, or I do one
    more step of my own after it (:func:`acts_again`)."""
    obs = turn.obs
    if not allowed(obs, "SEND_TEAMMATE_MESSAGE"):
        return False
    output = latest_output(obs)
    if output is None:
        return acts_again(person, obs)
    return answers(person, obs, output) or acts_between(person, obs, output)


# At most this many more own steps in a row after an AI output (the geometric run with
# ``act_again`` is cut there: every landing wakes the waiting agent, whose decisions are
# budgeted by run.max_turns, and a longer run leaves it too few to wait for checks)
MAX_STEPS_AGAIN = 1


def acts_again(person: Any, obs: Observation) -> bool:
    """Whether, having acted k >= 1 times since the agent's latest output (a cell or
    message), I do one more step of my own (one draw per output and k, ``act_again``)."""
    model = model_of(person)
    agent = _agent(obs)
    if model is None or agent is None or obs.my_pending:
        return False
    times = [c.time for c in obs.code_cells if c.author == agent]
    times += [m.time for m in obs.chat if m.sender == agent]
    if not times:
        return False
    since = max(times)
    k = sum(1 for e in obs.history if e.actor == obs.me and e.time > since)
    if not 1 <= k <= MAX_STEPS_AGAIN:
        return False
    marker = AgentOutput(f"again{since}", "message", since, "")
    return _draw(person, obs, marker, f"again{k}") < model.act_again.value


def confirms_final(person: Any, turn: Any) -> bool:
    """Whether I say that I take the draft although I would take it in silence: the draft
    is the agent's final output, which people answer at ``respond_final`` (one draw per
    person, task and draft)."""
    model = model_of(person)
    draft = AgentOutput(f"d{turn.fp}", "draft", 0.0, turn.draft)
    return model is not None and _draw(person, turn.obs, draft, "final") < model.respond_final.value


def silent_step(person: Any, turn: Any) -> str:
    """Taking the draft in silence (no confirmation): a step of my own once after I saw it,
    with probability ``act_between`` (one draw per draft), else nothing."""
    obs = turn.obs
    seen = obs.time if obs.editor_seen is None else obs.editor_seen
    announced = [m.time for m in obs.chat if turn.fp in announced_drafts(m.text)]
    seen = max([seen, *announced])  # the agent's announcement asks anew
    draft = AgentOutput(f"d{turn.fp}", "draft", seen, turn.draft)
    model = model_of(person)
    if (model is None or _my_last_action(obs) >= seen
            or _draw(person, obs, draft, "act") >= model.act_between.value):
        return format_action(WAIT)
    return own_step(person, turn, draft)
