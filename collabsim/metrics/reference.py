"""Reference workflow graphs: schema, loading and validation against a task.

A reference workflow G = (V, E, P, C) (docs/design.md "Metrics", contracts schema) lists the
evidence and reasoning nodes V of a task's analysis, dependencies E, acceptable solution
paths P and completion criteria C. Files live at
``<root>/reference_workflows/<dataset>/<n>/<qid>.json`` (generated suites) or are packaged
under ``collabsim/data/reference_workflows/`` (DiscoveryBench archaeology).

Node keywords are case-insensitive substrings a trace action must mention; one keyword may
list alternatives separated by ``|`` (``"Dagger|ZDolch"``). ``evidence_code`` is
self-contained Python run with the task's files in the working directory; it must print
every ``expected_output`` substring.

Relation categories (``completion.relation``) and the claim tags they require are in
:data:`RELATION_REQUIREMENTS`.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from collabsim.domain.time_expr import TimeAnchor
from collabsim.domain.variables import canonical_column, variables_match
from collabsim.metrics.judge_rules import RuleJudge
from collabsim.tasks.model import Task

PACKAGED_DIR = Path(__file__).resolve().parents[1] / "data" / "reference_workflows"

#: Relation category -> groups of relation tags; a claim must hit one tag of every group.
RELATION_REQUIREMENTS: Mapping[str, tuple[frozenset[str], ...]] = {
    "peak": (frozenset({"extreme"}),),
    "first_peak": (frozenset({"extreme"}),),
    "first_rise": (frozenset({"increase"}),),
    "nth_rise": (frozenset({"increase"}),),
    "first_fall": (frozenset({"decrease"}),),
    "nth_fall": (frozenset({"decrease"}),),
    "simultaneous": (frozenset({"simultaneous", "opposite"}),),
    "plateau": (frozenset({"sustained"}),),
    "low_stable": (frozenset({"sustained"}), frozenset({"low", "decrease"})),
    "growth_max": (frozenset({"extreme"}),),
    "growth_min": (frozenset({"trough", "decrease"}),),
    "growth_dip_recovery": (frozenset({"decrease", "trough"}),
                            frozenset({"increase", "extreme"})),
    "pca_scores": (frozenset({"positive", "negative"}),),
    "pca_loadings": (frozenset({"positive", "negative", "opposite"}),),
    "relationship": (frozenset({"increase", "decrease", "high", "low", "simultaneous",
                                "opposite"}),),
}


class RefNode(BaseModel):
    """One node of a reference workflow."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    kind: Literal["evidence", "reasoning"]
    description: str
    keywords: list[str] = Field(default_factory=list)
    evidence_code: str | None = None
    expected_output: list[str] = Field(default_factory=list)


class Completion(BaseModel):
    """Completion criteria: what a supported hypothesis must state."""

    model_config = ConfigDict(extra="allow")

    variables: list[str] = Field(default_factory=list)
    relation: str
    years: list[int] = Field(default_factory=list)
    tolerance_years: int = 100
    ordinal: int | None = None
    directions: list[str] = Field(default_factory=list)
    window: list[int] | None = None


class ReferenceWorkflow(BaseModel):
    """A task's reference workflow graph (file schema in contracts.md)."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    category: str
    nodes: list[RefNode]
    edges: list[tuple[str, str]] = Field(default_factory=list)
    paths: list[list[str]]
    completion: Completion

    def node(self, node_id: str) -> RefNode:
        """The node with this id (KeyError when absent)."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    @functools.cached_property
    def _evidence_code(self) -> str:
        # one reference serves every session of its task: joined once
        return "\n".join(n.evidence_code or "" for n in self.nodes)

    def used_columns(self, names: Iterable[str]) -> frozenset[str]:
        """The columns among ``names`` the reference analysis reads: those its nodes'
        ``evidence_code`` quotes (``'Depot'`` or ``"Depot"``)."""
        code = self._evidence_code
        return frozenset(name for name in names
                         if f"'{name}'" in code or f'"{name}"' in code)

    @property
    def required_ordinal(self) -> int | None:
        """Ordinal the claim must state: ``completion.ordinal`` for ``first_*``, ``nth_*``
        and ``simultaneous`` relations (1 for ``first_*`` when unset), else None."""
        rel = self.completion.relation
        if rel.startswith(("first_", "nth_")) or rel == "simultaneous":
            if self.completion.ordinal is not None:
                return self.completion.ordinal
            return 1 if rel.startswith("first_") else None
        return None


def load_reference(path: Path | str) -> ReferenceWorkflow:
    """Load and schema-check a reference workflow JSON file.

    Raises:
        pydantic.ValidationError: The file does not follow the schema.
        OSError, json.JSONDecodeError: The file cannot be read or decoded.
    """
    return ReferenceWorkflow.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))


def packaged_reference_path(task_id: str) -> Path:
    """Packaged file of a DiscoveryBench task id (``archaeology/27/0``); may not exist."""
    dataset, n, qid = task_id.split("/")
    return PACKAGED_DIR / dataset / n / f"{qid}.json"


@dataclass(frozen=True)
class EvidenceRun:
    """Output of one evidence code run."""

    output: str
    error: str | None
    status: str


_DRIVER = r"""
import contextlib, io, json, sys, traceback
import numpy as np
import pandas as pd
codes = json.load(open(sys.argv[1], encoding="utf-8"))
results = []
for code in codes:
    buf = io.StringIO()
    err = None
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(code, "<evidence>", "exec"), {"pd": pd, "np": np, "__name__": "__main__"})
        except BaseException:
            err = traceback.format_exc(limit=3)
    results.append({"output": buf.getvalue(), "error": err})
json.dump(results, open(sys.argv[2], "w", encoding="utf-8"))
"""


def run_evidence(
    codes: Sequence[str], files: Sequence[Path], sandbox: Any | None = None,
    timeout_s: float = 120.0,
) -> list[EvidenceRun]:
    """Run evidence code cells with the task's files in the working directory.

    With a ``collabsim.sandbox.Sandbox`` (given, or created from ``files`` when the sandbox
    package is available) each cell runs through ``sandbox.execute``; otherwise all cells run
    in one subprocess (fresh namespace per cell, ``pd``/``np`` pre-imported) in a temporary
    directory holding symlinks to the files.

    Returns:
        One :class:`EvidenceRun` per cell, in order.
    """
    if sandbox is not None:
        return [_from_exec(sandbox.execute(code)) for code in codes]
    try:
        from collabsim.sandbox import Sandbox  # lazy: built by the sandbox helper
    except ImportError:
        return run_evidence_subprocess(codes, files, timeout_s)
    with Sandbox(list(files)) as sb:
        return [_from_exec(sb.execute(code)) for code in codes]


def _from_exec(result: Any) -> EvidenceRun:
    return EvidenceRun(str(result.output), result.error, str(result.status))


def run_evidence_subprocess(
    codes: Sequence[str], files: Sequence[Path], timeout_s: float = 120.0
) -> list[EvidenceRun]:
    """Run evidence cells in one subprocess (fresh namespace per cell) in a temporary
    directory holding symlinks to ``files``; the fallback of :func:`run_evidence`."""
    with tempfile.TemporaryDirectory(prefix="collabsim-evidence-") as tmp:
        work = Path(tmp)
        for f in files:
            (work / Path(f).name).symlink_to(Path(f).resolve())
        (work / "_codes.json").write_text(json.dumps(list(codes)), encoding="utf-8")
        (work / "_driver.py").write_text(_DRIVER, encoding="utf-8")
        try:
            proc = subprocess.run(
                [sys.executable, "_driver.py", "_codes.json", "_results.json"],
                cwd=work, capture_output=True, text=True, timeout=timeout_s, check=False,
            )
        except subprocess.TimeoutExpired:
            return [EvidenceRun("", "timeout", "timeout") for _ in codes]
        out = work / "_results.json"
        if proc.returncode != 0 or not out.is_file():
            return [EvidenceRun("", proc.stderr[-2000:], "crashed") for _ in codes]
        data = json.loads(out.read_text(encoding="utf-8"))
    return [
        EvidenceRun(d["output"], d["error"], "ok" if d["error"] is None else "error")
        for d in data
    ]


def _structure_problems(ref: ReferenceWorkflow) -> list[str]:
    """Problems of the workflow's graph and its nodes, in the order of the checks."""
    known = {n.id for n in ref.nodes}
    return [
        *_node_id_problems(ref),
        *_edge_problems(ref, known),
        *_path_problems(ref, known),
        *_evidence_problems(ref),
        *_relation_problems(ref),
    ]


def _node_id_problems(ref: ReferenceWorkflow) -> list[str]:
    """Duplicate node ids, or no nodes at all."""
    problems: list[str] = []
    ids = [n.id for n in ref.nodes]
    if len(set(ids)) != len(ids):
        problems.append(f"duplicate node ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    if not ref.nodes:
        problems.append("no nodes")
    return problems


def _edge_problems(ref: ReferenceWorkflow, known: set[str]) -> list[str]:
    """Edge ends that are no node (one problem per unknown end)."""
    return [
        f"edge ({u}, {v}) uses unknown node {end!r}"
        for u, v in ref.edges
        for end in (u, v)
        if end not in known
    ]


def _path_problems(ref: ReferenceWorkflow, known: set[str]) -> list[str]:
    """No paths, empty paths, paths through unknown nodes or along steps that are no edge."""
    problems: list[str] = []
    edges = {(u, v) for u, v in ref.edges}
    if not ref.paths:
        problems.append("no acceptable paths")
    for i, path in enumerate(ref.paths):
        if not path:
            problems.append(f"path {i} is empty")
        problems += [f"path {i} uses unknown node {node!r}" for node in path if node not in known]
        problems += [
            f"path {i} step {u}->{v} is not an edge"
            for u, v in zip(path, path[1:], strict=False)
            if (u, v) not in edges
        ]
    return problems


def _evidence_problems(ref: ReferenceWorkflow) -> list[str]:
    """Evidence nodes without code or expected output."""
    return [
        f"evidence node {n.id!r} needs evidence_code and expected_output"
        for n in ref.nodes
        if n.kind == "evidence" and (not n.evidence_code or not n.expected_output)
    ]


def _relation_problems(ref: ReferenceWorkflow) -> list[str]:
    """An unknown completion relation category."""
    if ref.completion.relation not in RELATION_REQUIREMENTS:
        return [f"unknown completion relation {ref.completion.relation!r}"]
    return []


def _gold_problems(ref: ReferenceWorkflow, task: Task, judge: RuleJudge) -> list[str]:
    problems: list[str] = []
    if task.gold_hypothesis is None:
        return ["task has no gold hypothesis to check the completion criteria against"]
    seen = judge.extract(task.gold_hypothesis, task)
    anchors: list[TimeAnchor] = seen["anchors"]  # type: ignore[assignment]
    gold_vars: list[str] = seen["variables"]  # type: ignore[assignment]
    tol = ref.completion.tolerance_years
    for year in ref.completion.years:
        if not any(a.lo - tol <= year <= a.hi + tol for a in anchors):
            problems.append(f"completion year {year} is not within {tol} years of the gold")
    lex = judge.lexicon(task)
    for var in ref.completion.variables:
        names = {canonical_column(var)} | lex.variables(var)
        if not any(variables_match(n, g) for n in names for g in gold_vars):
            problems.append(f"completion variable {var!r} is not among gold variables {gold_vars}")
    return problems


def validate_reference(
    ref: ReferenceWorkflow | Mapping[str, Any] | Path | str,
    task: Task,
    sandbox: Any | None = None,
    run_code: bool = True,
) -> list[str]:
    """Check a reference workflow against its task; return the problems found (empty = ok).

    Checks: the schema; task id; unique node ids; edges and paths use known nodes and paths
    follow edges; evidence nodes have code and expected output; the relation category is
    known; every evidence code runs (in ``sandbox`` when given) and prints each of its
    expected outputs; completion years lie within ``tolerance_years`` of a time anchor of
    the gold; completion variables are among the gold's variables (judge vocabulary).

    Args:
        ref: The workflow (model, decoded JSON or a file path).
        task: Its task (files for the code, gold for the completion criteria).
        sandbox: A ``collabsim.sandbox.Sandbox`` over the task's files (one is created when
            None and the sandbox package exists; else a subprocess runs the code).
        run_code: False skips running evidence code.
    """
    if not isinstance(ref, ReferenceWorkflow):
        try:
            ref = load_reference(ref) if isinstance(ref, (Path, str)) else (
                ReferenceWorkflow.model_validate(ref))
        except (ValidationError, OSError, json.JSONDecodeError) as exc:
            return [f"schema: {exc}"]
    problems = []
    if ref.task_id != task.task_id:
        problems.append(f"task_id {ref.task_id!r} does not match task {task.task_id!r}")
    problems += _structure_problems(ref)
    problems += _gold_problems(ref, task, RuleJudge(tolerance_years=ref.completion.tolerance_years))
    evidence = [n for n in ref.nodes if n.evidence_code]
    if run_code and evidence:
        runs = run_evidence([n.evidence_code or "" for n in evidence],
                            [d.path for d in task.datasets], sandbox)
        for node, run in zip(evidence, runs, strict=True):
            if run.status != "ok":
                problems.append(f"evidence code of {node.id!r} failed ({run.status}): "
                                f"{(run.error or '')[-300:]}")
                continue
            for expected in node.expected_output:
                if expected not in run.output:
                    problems.append(f"evidence code of {node.id!r} does not print {expected!r}")
    return problems
