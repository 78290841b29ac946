"""Load DiscoveryBench tasks (real and synth layouts) and generated suites.

Layouts under a root folder:

* real: ``real/<split>/<dataset>/metadata_<n>.json`` + data files, gold in
  ``eval/answer_key_real.csv``;
* synth: ``synth/<split>/<domain>_<h>_<d>/metadata_<n>.json`` + ``data.csv``, gold in
  ``eval/answer_key_synth.csv``.

A query without an answer-key row takes its gold from the metadata's ``true_hypothesis``
(the development splits real/train and synth/dev keep their golds there).

The answer keys are read from ``<root>/eval/``, or, when the root has none, from the
``eval/`` folder beside the root: the DiscoveryBench repository keeps them there, so
``tasks.root=<clone>/discoverybench`` finds ``<clone>/eval/answer_key_real.csv``
(:func:`answer_key_path`).

Answer keys have the columns ``dataset, metadataid, query_id, gold_hypo``. Tasks are keyed
``<dataset>/<metadata n>/<qid>`` - never by the metadata ``id`` field (0 everywhere). A root
holding ``COLLABSIM_GENERATED.json`` is a generated suite (source ``generated``).

Quirks handled: cp1252 metadata files (UTF-8 is tried first), CSVs with decimal commas
(:func:`read_table`), metadata whose ``columns`` is a list instead of ``{"raw": [...]}``.
Bad data is a listed problem, never a task: a data file that is missing, empty, binary, a
header without rows, or text whose first line names none of the metadata's columns; for a
statistical task also a table with fewer than two rows and a query its data cannot answer
(a column it names missing, an all-missing or constant target, an empty population:
:mod:`collabsim.tasks.datachecks`).
"""

from __future__ import annotations

import csv
import functools
import io
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from collabsim.core import jsonio
from collabsim.core.knowledge import Fact, KnowledgeError
from collabsim.domain import tables as domain_tables
from collabsim.domain.stats.model import ANALYSES, FIX_KEYS, parse_filters
from collabsim.domain.tables import decode_text
from collabsim.domain.time_expr import parse_window
from collabsim.tasks import datachecks
from collabsim.tasks.model import ColumnInfo, DatasetInfo, Task, TaskSource, make_task_id
from collabsim.tasks.suite_cache import MARKER_NAME

GENERATED_MARKER = MARKER_NAME
PACKAGED_REFERENCE_DIR = Path(__file__).resolve().parents[1] / "data" / "reference_workflows"
_HEAD_BYTES = 65536
_MAX_HEAD_BYTES = 64 * 2**20
_HEAD_LINES = 50
_TABLE_SUFFIXES = (".csv", ".tsv")
# The plan parameters a fact's setting may fix (collabsim.core.knowledge.Fact.setting):
# the time-series family's and the statistical family's (collabsim.domain.stats.model).
_SETTING_NAMES = ("ordinal", "relation", "window", "column", *FIX_KEYS)
_METADATA_RE = re.compile(r"^metadata_(\d+)\.json$")
_LAYOUTS: tuple[tuple[str, str, TaskSource], ...] = (
    ("real", "answer_key_real.csv", "discoverybench-real"),
    ("synth", "answer_key_synth.csv", "discoverybench-synth"),
)


class TaskLoadError(Exception):
    """A task file could not be loaded.

    Attributes:
        path: The offending file.
        field: The missing or malformed field (``None`` when the whole file is unusable).
    """

    def __init__(self, path: Path, field: str | None, message: str) -> None:
        where = f"{path}" if field is None else f"{path} (field {field!r})"
        super().__init__(f"{where}: {message}")
        self.path = Path(path)
        self.field = field
        self.detail = message


@dataclass(frozen=True)
class TaskProblem:
    """One problem found while loading a folder of tasks.

    Attributes:
        path: The offending file (a metadata file, a data file, the answer key, the root).
        field: The field of that file (``datasets[0].name``, ``queries[0][1].question``),
            None when the whole file is unusable.
        message: What is wrong.
        task_id: The task left out for it, when the problem concerns one query only.
    """

    path: Path
    field: str | None
    message: str
    task_id: str | None = None


@dataclass(frozen=True)
class TaskLoadReport:
    """Everything :func:`load_tasks` found: the tasks that loaded and the problems."""

    tasks: tuple[Task, ...]
    problems: tuple[TaskProblem, ...]


def read_table(path: Path) -> pd.DataFrame:
    """Read a data file with :func:`collabsim.domain.tables.read_table` (decimal commas,
    ``;`` separators, cp1252).

    Raises:
        TaskLoadError: The file is missing or cannot be parsed.
    """
    try:
        return domain_tables.read_table(path)
    except domain_tables.TableReadError as err:
        raise TaskLoadError(err.path, None, err.detail) from err


def load_tasks(root: Path) -> TaskLoadReport:
    """Load every task under a DiscoveryBench-style root, collecting problems per file.

    Args:
        root: Folder holding ``real/`` and/or ``synth/`` (and ``eval/``).

    Returns:
        The tasks (sorted by task id) and the problems (a broken metadata file is one
        problem; the other files still load).
    """
    root = Path(root)
    tasks: dict[str, Task] = {}
    problems: list[TaskProblem] = []
    if not root.is_dir():
        return TaskLoadReport((), (TaskProblem(root, None, "task root folder does not exist"),))
    generated = (root / GENERATED_MARKER).is_file()
    found_layout = False
    for layout, key_name, source in _LAYOUTS:
        if not (root / layout).is_dir():
            continue
        found_layout = True
        gold = _read_answer_key(answer_key_path(root, key_name), problems)
        for metadata_path in _metadata_files(root / layout):
            try:
                loaded, unanswerable = _load_metadata(
                    root, metadata_path, "generated" if generated else source, gold
                )
            except TaskLoadError as err:
                problems.append(TaskProblem(err.path, err.field, err.detail))
                continue
            problems.extend(unanswerable)
            for task in loaded:
                if task.task_id in tasks:
                    problems.append(
                        TaskProblem(metadata_path, None, f"duplicate task id {task.task_id}")
                    )
                    continue
                tasks[task.task_id] = task
    if not found_layout:
        problems.append(TaskProblem(root, None, "no real/ or synth/ folder under the root"))
    ordered = tuple(tasks[k] for k in sorted(tasks, key=_task_sort_key))
    return TaskLoadReport(ordered, tuple(problems))


def load_task(root: Path, task_id: str) -> Task:
    """Load one task by its id ``<dataset>/<metadata n>/<qid>``.

    Raises:
        TaskLoadError: The id is malformed, no metadata file matches, or it cannot load.
    """
    root = Path(root)
    parts = task_id.split("/")
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].lstrip("-").isdigit():
        raise TaskLoadError(root, "task_id", f"malformed task id {task_id!r}")
    dataset, number, qid = parts[0], int(parts[1]), int(parts[2])
    generated = (root / GENERATED_MARKER).is_file()
    for layout, key_name, source in _LAYOUTS:
        for split_dir in sorted((root / layout).glob("*")):
            path = split_dir / dataset / f"metadata_{number}.json"
            if not path.is_file():
                continue
            gold = _read_answer_key(answer_key_path(root, key_name), [])
            tasks, unanswerable = _load_metadata(
                root, path, "generated" if generated else source, gold)
            for task in tasks:
                if task.query_id == qid:
                    return task
            for problem in unanswerable:
                if problem.task_id == task_id:
                    raise TaskLoadError(problem.path, problem.field, problem.message)
            raise TaskLoadError(path, "queries", f"no query with qid {qid}")
    raise TaskLoadError(root, "task_id", f"no metadata file for task {task_id!r}")


def answer_key_path(root: Path, name: str) -> Path:
    """Where a task root's answer key ``name`` is: ``<root>/eval/<name>``, else the
    ``eval/`` beside the root when it holds one (a DiscoveryBench clone,
    ``<clone>/discoverybench`` + ``<clone>/eval/``); the first path when neither exists."""
    root = Path(root)
    inside = root / "eval" / name
    beside = root.parent / "eval" / name
    return beside if not inside.is_file() and beside.is_file() else inside


def reference_workflow_path(root: Path, dataset: str, metadata_id: int, qid: int) -> Path | None:
    """Locate a task's reference workflow graph: under the root first, then packaged."""
    relative = Path(dataset) / str(metadata_id) / f"{qid}.json"
    for base in (Path(root) / "reference_workflows", PACKAGED_REFERENCE_DIR):
        candidate = base / relative
        if candidate.is_file():
            return candidate
    return None


# ---------------------------------------------------------------------------------- helpers


def _outside_dataset(file_path: Path, folder: Path) -> str | None:
    """Why a data file may not be copied into the participants' sandbox, else None.

    The file, with every symlink on its way resolved, must be a regular file inside its
    dataset folder and no judge's file: a name such as ``../../eval/answer_key_real.csv``, an
    absolute path, or a symlink to the answer key would otherwise hand the gold to the
    participants.
    """
    try:
        target = file_path.resolve(strict=True)
        home = folder.resolve(strict=True)
    except (OSError, RuntimeError):
        return "data file cannot be resolved"
    if not target.is_relative_to(home):
        return "data file lies outside its dataset folder"
    if not target.is_file():
        return "data file is not a regular file"
    if _is_judge_file(target):
        return "data file is an answer key or a reference workflow, never task data"
    return None


def _is_judge_file(path: Path) -> bool:
    """True for what only the judges read: an answer key or a reference workflow."""
    name = path.name.lower()
    return (name.startswith("answer_key") or "reference_workflows" in path.parts
            or path.is_relative_to(PACKAGED_REFERENCE_DIR.resolve()))


def _unreadable_data(path: Path) -> str | None:
    """Why a data file cannot be a table (empty, or binary with NUL bytes and not a Stata
    ``.dta`` file), else None."""
    with path.open("rb") as fh:
        head = fh.read(8192)
    if not head.strip():
        return "data file is empty"
    if b"\x00" in head and not (domain_tables.is_stata(path) and domain_tables.looks_stata(head)):
        return "data file is binary, not text"
    return None


@functools.lru_cache(maxsize=1024)
def _head_lines(path: str, _mtime_ns: int, _size: int) -> tuple[str, ...]:
    """The first non-blank lines of a text file (cached per file version).

    Read block by block until two non-blank lines are complete, so a header longer than one
    block (a table with thousands of columns) is not taken for a file without data rows; at
    most ``_MAX_HEAD_BYTES`` are read.
    """
    blocks: list[bytes] = []
    read = complete = 0
    open_line = False  # the last block ended inside a non-blank line
    with open(path, "rb") as fh:
        while complete < 2 and read < _MAX_HEAD_BYTES:
            block = fh.read(_HEAD_BYTES)
            if not block:
                break
            blocks.append(block)
            read += len(block)
            *ended, rest = block.split(b"\n")
            for part in ended:
                complete += bool(open_line or part.strip())
                open_line = False
            open_line = open_line or bool(rest.strip())
    text = decode_text(b"".join(blocks))
    return tuple(line for line in text.splitlines()[:_HEAD_LINES] if line.strip())


def _not_a_table(path: Path, declared: tuple[ColumnInfo, ...]) -> str | None:
    """Why a ``.csv``/``.tsv`` data file is not a table the task can use, else None: a header without
    data rows, or (when the metadata names columns) a first line naming none of them, as in
    prose saved under a ``.csv`` name."""
    if path.suffix.lower() not in _TABLE_SUFFIXES:
        return None  # other text data (e.g. a Newick tree in a .txt file) is not a table
    info = path.stat()
    lines = _head_lines(str(path), info.st_mtime_ns, info.st_size)
    if len(lines) < 2 and info.st_size > _MAX_HEAD_BYTES:
        return (f"data file's first line is longer than {_MAX_HEAD_BYTES // 2**20} MiB: not a "
                "table collabsim reads")
    if len(lines) < 2:
        return "data file has a header but no data rows"
    names = [c.name.strip() for c in declared if c.name.strip()]
    if names and not any(name in lines[0] for name in names):
        return (f"data file is not the table the metadata describes: its first line names "
                f"none of its columns (e.g. {names[0]!r})")
    return None


def _task_sort_key(task_id: str) -> tuple[str, int, int]:
    dataset, number, qid = task_id.split("/")
    return dataset, int(number), int(qid)


def _metadata_files(layout_dir: Path) -> Iterator[Path]:
    for split_dir in sorted(p for p in layout_dir.iterdir() if p.is_dir()):
        for dataset_dir in sorted(p for p in split_dir.iterdir() if p.is_dir()):
            files = [p for p in dataset_dir.iterdir() if _METADATA_RE.match(p.name)]
            yield from sorted(files, key=lambda p: int(_METADATA_RE.match(p.name).group(1)))


def _read_answer_key(
    path: Path, problems: list[TaskProblem]
) -> dict[tuple[str, int, int], str]:
    gold: dict[tuple[str, int, int], str] = {}
    if not path.is_file():
        return gold
    text = decode_text(path.read_bytes())
    reader = csv.DictReader(io.StringIO(text))
    required = ("dataset", "metadataid", "query_id", "gold_hypo")
    missing = [c for c in required if c not in (reader.fieldnames or ())]
    if missing:
        problems.append(TaskProblem(path, missing[0], "answer key lacks this column"))
        return gold
    for line, row in enumerate(reader, start=2):
        try:
            key = (row["dataset"], int(row["metadataid"]), int(row["query_id"]))
        except (TypeError, ValueError):
            problems.append(TaskProblem(path, "metadataid", f"bad ids on line {line}"))
            continue
        gold[key] = row["gold_hypo"]
    return gold


def _require(data: Mapping[str, Any], key: str, path: Path, field: str) -> Any:
    if not isinstance(data, Mapping) or key not in data or data[key] is None:
        raise TaskLoadError(path, field, "required field is missing")
    return data[key]


def _columns(entry: Mapping[str, Any], path: Path, field: str) -> tuple[ColumnInfo, ...]:
    columns = entry.get("columns") or ()
    if isinstance(columns, Mapping):
        columns = columns.get("raw") or ()
    if not isinstance(columns, list | tuple):
        raise TaskLoadError(path, f"{field}.columns", "expected a list of columns")
    out: list[ColumnInfo] = []
    for j, col in enumerate(columns):
        if isinstance(col, str):
            out.append(ColumnInfo(col, ""))
            continue
        name = _require(col, "name", path, f"{field}.columns.raw[{j}].name")
        out.append(ColumnInfo(str(name), str(col.get("description") or "")))
    return tuple(out)


def _read_metadata(path: Path) -> Mapping[str, Any]:
    """The metadata file's JSON object; raises TaskLoadError when unreadable or not an object."""
    try:
        data = jsonio.loads(decode_text(path.read_bytes()))
    except OSError as err:
        raise TaskLoadError(path, None, f"cannot read metadata file: {err}") from err
    except jsonio.JSONInputError as err:
        raise TaskLoadError(path, None, str(err)) from err
    if not isinstance(data, Mapping):
        raise TaskLoadError(path, None, "metadata must be a JSON object")
    return data


def _dataset(entry: Any, path: Path, field: str) -> DatasetInfo:
    """One ``datasets`` entry with its data file checked (present, readable, a usable table).

    Args:
        entry: The entry as read from the metadata.
        path: The metadata file.
        field: The entry's place in the metadata (``datasets[i]``).

    Raises:
        TaskLoadError: On a missing name or columns, or bad data.
    """
    name = str(_require(entry, "name", path, f"{field}.name"))
    file_path = path.parent / name
    if not file_path.is_file():
        raise TaskLoadError(path, f"{field}.name", f"data file not found: {file_path}")
    refused = _outside_dataset(file_path, path.parent)
    if refused:
        raise TaskLoadError(path, f"{field}.name", f"{refused}: {name}")
    unreadable = _unreadable_data(file_path)
    columns = _columns(entry, path, field)
    if not unreadable:
        unreadable = _not_a_table(file_path, columns)
    if unreadable:
        raise TaskLoadError(path, f"{field}.name", f"{unreadable}: {file_path}")
    return DatasetInfo(
        name=name,
        description=str(entry.get("description") or "").strip(),
        columns=columns,
        path=file_path,
    )


def _datasets(data: Mapping[str, Any], path: Path) -> list[DatasetInfo]:
    """The metadata's datasets, in order; raises TaskLoadError on none or a bad one."""
    raw_datasets = _require(data, "datasets", path, "datasets")
    if not isinstance(raw_datasets, list) or not raw_datasets:
        raise TaskLoadError(path, "datasets", "expected a non-empty list of datasets")
    return [_dataset(entry, path, f"datasets[{i}]") for i, entry in enumerate(raw_datasets)]


def _queries(data: Mapping[str, Any], path: Path) -> list[tuple[str, Mapping[str, Any]]]:
    """Every query with its place (``queries[i][j]``); a group may be a bare query.

    Raises:
        TaskLoadError: When ``queries`` is missing, not a list, or holds no query.
    """
    raw_queries = _require(data, "queries", path, "queries")
    if not isinstance(raw_queries, list):
        raise TaskLoadError(path, "queries", "expected a list of query lists")
    flat: list[tuple[str, Mapping[str, Any]]] = []
    for i, group in enumerate(raw_queries):
        items = group if isinstance(group, list) else [group]
        flat.extend((f"queries[{i}][{j}]", q) for j, q in enumerate(items))
    if not flat:
        raise TaskLoadError(path, "queries", "no queries in metadata file")
    return flat


def _query_fields(query: Mapping[str, Any], path: Path, field: str) -> tuple[int, str]:
    """The query's integer ``qid`` and its question (stripped).

    Raises:
        TaskLoadError: When either is missing (``qid`` checked first) or ``qid`` is not an
            integer.
    """
    qid_raw = _require(query, "qid", path, f"{field}.qid")
    question = _require(query, "question", path, f"{field}.question")
    try:
        return jsonio.as_int(qid_raw), str(question).strip()
    except ValueError as err:
        raise TaskLoadError(path, f"{field}.qid", str(err)) from err


def _load_metadata(
    root: Path, path: Path, source: TaskSource, gold: Mapping[tuple[str, int, int], str]
) -> tuple[list[Task], list[TaskProblem]]:
    """Parse one metadata file into its tasks (one per query) and the problems of the
    queries its data cannot answer (those are no tasks); raises TaskLoadError when the
    whole file is unusable."""
    data = _read_metadata(path)
    dataset = path.parent.name
    metadata_id = int(_METADATA_RE.match(path.name).group(1))
    datasets = _datasets(data, path)
    unusable = datachecks.table_problem(datasets)
    if unusable is not None:
        raise TaskLoadError(path, f"datasets[{unusable[0]}].name", unusable[1])
    tasks: list[Task] = []
    problems: list[TaskProblem] = []
    for field, query in _queries(data, path):
        qid, question = _query_fields(query, path, field)
        facts = _facts(query, path, f"{field}.facts", datasets)
        task = Task(
            task_id=make_task_id(dataset, metadata_id, qid),
            dataset=dataset,
            metadata_id=metadata_id,
            query_id=qid,
            query=question,
            question_type=str(query.get("question_type") or ""),
            domain=str(data.get("domain") or ""),
            domain_knowledge=str(data.get("domain_knowledge") or ""),
            workflow_tags=str(data.get("workflow_tags") or ""),
            datasets=tuple(datasets),
            source=source,
            gold_hypothesis=_gold_of(gold, (dataset, metadata_id, qid), query),
            reference_workflow_path=reference_workflow_path(root, dataset, metadata_id, qid),
            metadata_path=path,
            facts=facts,
        )
        reasons = datachecks.query_problems(task)
        problems += [TaskProblem(path, f"{field}.question", reason, task.task_id)
                     for reason in reasons]
        if not reasons:
            tasks.append(task)
    return tasks, problems


def _gold_of(
    gold: Mapping[tuple[str, int, int], str], key: tuple[str, int, int],
    query: Mapping[str, Any],
) -> str | None:
    """A query's gold hypothesis: its answer-key row, else the metadata's ``true_hypothesis``.

    The DiscoveryBench development splits (real/train, synth/dev) ship no answer key; their
    gold sits inside each query of the metadata. Only judges and metrics read it
    (:meth:`Task.brief` leaves it out).
    """
    if key in gold:
        return gold[key]
    text = query.get("true_hypothesis")
    if isinstance(text, str) and text.strip():
        return text.strip()
    return None


def _facts(query: Mapping[str, Any], path: Path, field: str,
           datasets: list[DatasetInfo]) -> tuple[Fact, ...]:
    """The facts of a query entry (``"facts"``: a list of fact objects; absent = none)."""
    raw = query.get("facts")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise TaskLoadError(path, field, "expected a list of facts")
    columns = {c.name for d in datasets for c in d.columns}
    facts = []
    for k, item in enumerate(raw):
        where = f"{field}[{k}]"
        if not isinstance(item, Mapping):
            raise TaskLoadError(path, where, "a fact must be a JSON object")
        try:
            fact = Fact.from_json(item, where)
        except KnowledgeError as err:
            raise TaskLoadError(path, where, str(err).removeprefix(f"{where}: ")) from None
        problem = _setting_problem(fact, columns)
        if problem:
            raise TaskLoadError(path, f"{where}.setting", problem)
        facts.append(fact)
    return tuple(facts)


def _setting_problem(fact: Fact, columns: set[str]) -> str | None:
    """Why a fact's setting cannot be applied to a plan (None: it can)."""
    for name, value in fact.setting:
        if name not in _SETTING_NAMES:
            return f"unknown parameter {name!r}; known: {list(_SETTING_NAMES)}"
        problem = (_stats_setting_problem(name, value, columns) if name in FIX_KEYS
                   else _series_setting_problem(name, value, columns))
        if problem:
            return problem
    return None


def _series_setting_problem(name: str, value: str, columns: set[str]) -> str | None:
    """Why a time-series fix value (ordinal, window, column, relation) cannot apply."""
    if name == "ordinal" and not (value.isdigit() and int(value) >= 1):
        return f"ordinal must be a positive integer, got {value!r}"
    if name == "window" and parse_window(value) is None:
        return f"window must be written start..end (CE years), got {value!r}"
    if name == "column":
        missing = [c for c in value.split("+") if c not in columns]
        if missing or not value:
            return f"column(s) {missing or [value]} not among the task's data columns"
    if name == "relation" and not value.strip():
        return "relation is empty"
    return None


def _stats_setting_problem(name: str, value: str, columns: set[str]) -> str | None:
    """Why a statistical fix value (``StatPlan.with_fix`` syntax) cannot apply, else None."""
    if name == "analysis":
        return None if value in ANALYSES else (
            f"analysis must be one of {list(ANALYSES)}, got {value!r}")
    if name == "filters":
        try:
            named = [column for column, _, _ in parse_filters(value)]
        except ValueError as err:
            return str(err)
    elif name == "target":
        named = [value.strip()]
    else:
        named = [] if value.strip() == "none" and name == "controls" else value.split("+")
    missing = [c for c in named if c not in columns]
    if missing:
        return f"{name}: column(s) {missing} not among the task's data columns"
    return None
