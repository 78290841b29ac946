"""LLM predictor: prompts any litellm model with a rendered window; parses its answer robustly.

Prompts are the templates in ``collabsim/kolab/prompts/`` (``system.txt``, ``adoption.txt``,
``rating.txt``; ``string.Template`` syntax). They give the profession, the occupational
category, the session goal when known, the workflow's step names and the rendered window, and
ask for exactly one label (ADOPT/MODIFY/REJECT) or one integer 1-5.

Replies are parsed by :func:`parse_adoption` / :func:`parse_rating`. A reply that cannot be
parsed, or a call that fails, gives a None prediction: counted as invalid and reported, never
mapped to a label. Instances lacking a requested modality are not sent; their ids are listed in
:attr:`PredictionRun.missing`.

Model calls go through the project's LLM entry point ``collabsim.llm.client.LLMClient`` when it
is importable, else straight to ``litellm.acompletion`` (:func:`_complete_with_litellm`).
Messages with image parts (the ``frames`` modality) also go straight to litellm for now,
because the client flattens message content to text.
Extra keyword arguments (e.g. ``{"mock_response": "ADOPT"}`` for offline runs) are passed
through to litellm.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import mimetypes
import os
import re
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from tqdm.auto import tqdm

from collabsim.graphs.model import RESPONSE_LABELS
from collabsim.kolab.instances import Instance
from collabsim.kolab.predictors.base import PredictionRun, PredictionValue, TaskKind
from collabsim.kolab.progress import is_terminal
from collabsim.kolab.render import FrameSource, Modality, RenderedInput, modality_name, render

# ----------------------------------------------------------------------------- parsing

_LABEL_WORDS: dict[str, str] = {
    "adopt": "adopt",
    "adopts": "adopt",
    "adopted": "adopt",
    "adopting": "adopt",
    "adoption": "adopt",
    "modify": "modify",
    "modifies": "modify",
    "modified": "modify",
    "modifying": "modify",
    "modification": "modify",
    "reject": "reject",
    "rejects": "reject",
    "rejected": "reject",
    "rejecting": "reject",
    "rejection": "reject",
    "bypass": "reject",
    "bypassed": "reject",
    "bypasses": "reject",
}
_WORD = re.compile(r"[a-z]+")
_ANSWER_CUE = re.compile(
    r"(?:answer|label|prediction|predicted|response|final|classification|rating)\s*(?:is|:|=|-)?\s*",
    re.IGNORECASE,
)


def _labels_in(text: str) -> list[str]:
    return [_LABEL_WORDS[w] for w in _WORD.findall(text.lower()) if w in _LABEL_WORDS]


def parse_adoption(text: str | None) -> str | None:
    """Parse an adoption label from a model reply; None when no single label is meant.

    Accepted: any case, markdown/punctuation around the word, inflections (``adopted``),
    ``REJECT/BYPASS`` (bypass means reject), extra words. Rules, in order: the first word of
    the reply is a label; the word after an answer cue (``Answer:``, ``Label:`` ...); the only
    label mentioned (possibly repeated); the label on the reply's last line. Anything else,
    e.g. ``"adopt or modify"``, is invalid.
    """
    if not text or not text.strip():
        return None
    words = _WORD.findall(text.lower())
    if words and words[0] in _LABEL_WORDS:
        first = _LABEL_WORDS[words[0]]
        hedge = (
            len(words) >= 3
            and words[1] in {"or", "and"}
            and words[2] in _LABEL_WORDS
            and _LABEL_WORDS[words[2]] != first
        )
        return None if hedge else first
    for match in _ANSWER_CUE.finditer(text):
        after = _WORD.findall(text[match.end() :].lower())[:1]
        if after and after[0] in _LABEL_WORDS:
            return _LABEL_WORDS[after[0]]
    found = set(_labels_in(text))
    if len(found) == 1:
        return found.pop()
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if lines:
        last = _labels_in(lines[-1])
        if len(set(last)) == 1:
            return last[0]
    return None


_INT = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(?![\d.])")
_OUT_OF = re.compile(r"(?<![\d.])([1-5])(?:\.0+)?\s*(?:/|out of)\s*5(?![\d.])", re.IGNORECASE)
_CUED_INT = re.compile(
    r"(?:answer|rating|prediction|score|rated)\s*(?:is|:|=|-|of)?\s*\**\s*([1-5])(?:\.0+)?(?![\d.])",
    re.IGNORECASE,
)


def parse_rating(text: str | None) -> int | None:
    """Parse one rating 1-5 from a model reply; None when no single valid rating is given.

    Accepted: ``"4"``, ``"**4**"``, ``"4/5"``, ``"4 out of 5"``, ``"Rating: 4"``, ``"4.0"``,
    extra words. Rules: an ``N/5`` or ``N out of 5`` form; a cued number (``Rating: 4``); the
    only number in the reply. Numbers outside 1-5, fractions (``4.5``) and several different
    numbers (``"3 or 4"``) are invalid.
    """
    if not text or not text.strip():
        return None
    out_of = {int(m.group(1)) for m in _OUT_OF.finditer(text)}
    if len(out_of) == 1:
        return out_of.pop()
    cued = {int(m.group(1)) for m in _CUED_INT.finditer(text)}
    if len(cued) == 1:
        return cued.pop()
    numbers = {float(m.group(1)) for m in _INT.finditer(text)}
    if len(numbers) == 1:
        value = numbers.pop()
        if value.is_integer() and 1 <= value <= 5:
            return int(value)
    return None


# ----------------------------------------------------------------------------- prompts


@cache
def load_prompt(name: str) -> Template:
    """The prompt template ``collabsim/kolab/prompts/<name>``."""
    text = resources.files("collabsim.kolab").joinpath("prompts", name).read_text("utf-8")
    return Template(text)


_WINDOW_DESCRIPTIONS: dict[str, str] = {
    "1a": (
        "The observed workflow below runs from the professional's request (SOURCE REQUEST) "
        "through the AI output (TARGET AI OUTPUT) to the professional's response to it "
        "(HUMAN RESPONSE)."
    ),
    "1b": (
        "The observed workflow below runs from the professional's request (SOURCE REQUEST) "
        "to the end of the AI output being judged (TARGET AI OUTPUT). What the professional "
        "did next is not shown."
    ),
    "1c": (
        "The observed workflow below shows the {k} step(s) before the current step as "
        "context, then the current request (SOURCE REQUEST) up to the end of the AI output "
        "being judged (TARGET AI OUTPUT). What the professional did next is not shown."
    ),
    "1d": (
        "The observed workflow below shows the whole session from its start to the end of "
        "the AI output being judged (TARGET AI OUTPUT). What the professional did next is not "
        "shown."
    ),
}
_QUESTIONS: dict[str, str] = {
    "1a": "how did the professional use the TARGET AI OUTPUT?",
    "forecast": "how will the professional use the TARGET AI OUTPUT?",
}
_ASPECTS: dict[str, str] = {
    "2a": "collaboration satisfaction (how satisfied they were with working with the AI)",
    "2b": "output quality (how good the output of this step was)",
}


def _steps_text(instance: Instance) -> str:
    steps = instance.window.steps
    if not steps:
        return "(not recorded)"
    return "\n".join(f"{i + 1}. {s.name}" for i, s in enumerate(steps))


def build_prompt(instance: Instance, rendered: RenderedInput) -> str:
    """The user prompt for ``instance`` with its rendered window."""
    session = instance.window.session
    common = {
        "profession": session.occupation or "(not recorded)",
        "category": session.domain or "(not recorded)",
        "goal": session.goal or "(not recorded)",
        "steps": _steps_text(instance),
        "rendered": rendered.text or "(only video frames are given; see the images)",
    }
    if instance.is_rating:
        step_name = instance.step_key or ""
        for step in instance.window.steps:
            if step.key == instance.step_key:
                step_name = step.name
        return load_prompt("rating.txt").substitute(
            common, step_name=step_name, aspect=_ASPECTS[instance.task]
        )
    if instance.task.startswith("1c-"):
        description = _WINDOW_DESCRIPTIONS["1c"].format(k=instance.task[-1])
    else:
        description = _WINDOW_DESCRIPTIONS[instance.task.removesuffix("+h")]
    if instance.uses_history:
        earlier = ", ".join(str(h).upper() for h in instance.history) or "none yet"
        description += (
            " How the professional responded to earlier AI outputs in this session, oldest "
            f"first: {earlier}."
        )
    question = _QUESTIONS["1a"] if instance.task == "1a" else _QUESTIONS["forecast"]
    return load_prompt("adoption.txt").substitute(
        common, window_description=description, question=question
    )


def _image_part(path: Path) -> dict[str, Any]:
    mime = mimetypes.guess_type(path.name)[0] or "image/jpeg"
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}


def build_messages(instance: Instance, rendered: RenderedInput) -> list[dict[str, Any]]:
    """Chat messages (system + user); frames become image parts of the user message."""
    system = load_prompt("system.txt").template.strip()
    prompt = build_prompt(instance, rendered)
    if rendered.frames:
        content: Any = [{"type": "text", "text": prompt}] + [
            _image_part(p) for p in rendered.frames
        ]
    else:
        content = prompt
    return [{"role": "system", "content": system}, {"role": "user", "content": content}]


# ----------------------------------------------------------------------------- calling


def _project_client_module() -> Any | None:
    """``collabsim.llm.client`` when it exists, else None."""
    try:
        return importlib.import_module("collabsim.llm.client")
    except ModuleNotFoundError as err:
        if err.name in {"collabsim.llm.client", "collabsim.llm"}:
            return None
        raise


async def _complete_with_litellm(
    messages: list[dict[str, Any]],
    model: str,
    temperature: float,
    max_tokens: int,
    timeout_s: float,
    extra: Mapping[str, Any],
) -> str:
    """Fallback used only while ``collabsim.llm.client`` is absent: one litellm call."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    response = await litellm.acompletion(
        model=model,
        messages=messages,
        temperature=temperature,
        max_tokens=max_tokens,
        timeout=timeout_s,
        **dict(extra),
    )
    return response.choices[0].message.content or ""


class LLMPredictor:
    """Asks an LLM for each instance's label or rating.

    Args:
        model: litellm model name.
        modalities: Input modalities (default graph only).
        runs: Runs per setting (mean and std across runs are reported).
        temperature: Sampling temperature (use > 0 when runs > 1 to see run-to-run spread).
        max_tokens: Reply budget.
        concurrency: Concurrent calls.
        extra: Passed to litellm (e.g. ``{"mock_response": "ADOPT"}``).
        frame_source: Frames for the ``frames`` modality.
        cache_dir: Reply cache directory of the project LLM client (None: no cache).
        progress: Show a progress bar.
    """

    kinds: tuple[TaskKind, ...] = ("adoption", "rating")

    def __init__(
        self,
        model: str,
        modalities: Sequence[Modality] = (Modality.GRAPH,),
        *,
        runs: int = 1,
        temperature: float = 0.0,
        max_tokens: int = 16,
        timeout_s: float = 60.0,
        concurrency: int = 8,
        extra: Mapping[str, Any] | None = None,
        frame_source: FrameSource | None = None,
        cache_dir: Path | None = None,
        progress: bool = True,
    ) -> None:
        self.model = model
        self.modalities = tuple(modalities)
        self.modality = modality_name(self.modalities)
        self.name = f"llm:{model}"
        self.runs = runs
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.concurrency = max(1, concurrency)
        self.extra = dict(extra or {})
        self.frame_source = frame_source
        self.cache_dir = cache_dir
        self.progress = progress
        self._client: Any | None = None

    async def _complete(self, messages: list[dict[str, Any]], tag: str) -> str:
        module = _project_client_module()
        multimodal = any(not isinstance(m["content"], str) for m in messages)
        # collabsim.llm.client flattens message content to text, which would turn image parts
        # into their repr; frames therefore go to litellm directly until it carries them.
        if module is None or multimodal:
            return await _complete_with_litellm(
                messages,
                self.model,
                self.temperature,
                self.max_tokens,
                self.timeout_s,
                self.extra,
            )
        if self._client is None:
            self._client = module.LLMClient(
                cache_dir=self.cache_dir, max_concurrency=self.concurrency
            )
        settings = module.LLMSettings(
            model=self.model,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            timeout_s=self.timeout_s,
            extra=dict(self.extra),
        )
        reply = await self._client.complete(messages, settings, tag=tag)
        return str(reply.text)

    async def _ask_all(
        self, batches: list[list[dict[str, Any]]], tag: str, desc: str
    ) -> list[str | BaseException]:
        semaphore = asyncio.Semaphore(self.concurrency)
        bar = tqdm(total=len(batches), desc=desc, disable=not (self.progress and is_terminal()),
                   leave=False)  # fmt: skip

        async def one(messages: list[dict[str, Any]]) -> str | BaseException:
            async with semaphore:
                try:
                    return await self._complete(messages, tag)
                except Exception as err:  # a failed call is an invalid reply, never a crash
                    return err
                finally:
                    bar.update(1)

        try:
            return list(await asyncio.gather(*(one(m) for m in batches)))
        finally:
            bar.close()

    def predict(self, instances: Sequence[Instance], *, run: int = 0) -> PredictionRun:
        """Ask the model about every instance that has all requested modalities."""
        task = instances[0].task if instances else ""
        asked: list[Instance] = []
        missing: list[str] = []
        lacking: set[Modality] = set()
        batches: list[list[dict[str, Any]]] = []
        for inst in instances:
            rendered = render(inst, self.modalities, frame_source=self.frame_source)
            if not rendered.complete:
                missing.append(inst.instance_id)
                lacking.update(rendered.missing)
                continue
            asked.append(inst)
            batches.append(build_messages(inst, rendered))
        desc = f"{self.name} {task} {self.modality} run {run}"
        self._client = None  # one client per event loop (asyncio.run below)
        replies = (
            asyncio.run(self._ask_all(batches, f"kolab/{task}/run{run}", desc)) if batches else []
        )
        parse = parse_rating if task in {"2a", "2b"} else parse_adoption
        predictions: list[PredictionValue] = []
        raw: list[str] = []
        failures = 0
        for reply in replies:
            if isinstance(reply, BaseException):
                failures += 1
                raw.append(f"<call failed: {type(reply).__name__}: {reply}>")
                predictions.append(None)
                continue
            raw.append(reply)
            value = parse(reply)
            predictions.append(float(value) if isinstance(value, int) else value)
        notes = []
        if failures:
            notes.append(f"{failures} call(s) failed (counted as invalid)")
        if missing:
            notes.append(
                f"{len(missing)} instance(s) lack a requested modality "
                f"({modality_name(lacking)} missing); not asked"
            )
        assert all(p is None or p in RESPONSE_LABELS or isinstance(p, float) for p in predictions)
        return PredictionRun(
            predictor=self.name,
            task=task,
            modality=self.modality,
            run=run,
            instance_ids=tuple(i.instance_id for i in asked),
            predictions=tuple(predictions),
            raw=tuple(raw),
            notes=tuple(notes),
            missing=tuple(missing),
        )
