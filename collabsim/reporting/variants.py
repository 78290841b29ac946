"""What a report's variants are: structure × team × every setting that differs between sessions.

A sweep such as ``collabsim run -m policy.agent.mistakes.wrong_column_variant=0,1 team=D``
runs two settings of one structure and team. Pooling their sessions as if they were seeds
would average two different experiments and understate the spread, so a report keys its
variants by everything that changes a session's outcome:

1. Every session's **outcome settings** (the ``settings`` its store key was computed from,
   :func:`collabsim.experiment.plan.outcome_settings`) are flattened to dotted config names
   (``policy.agent.deference``, ``run.max_turns``, ``structure.overrides.…``,
   ``team.profiles.…``). The names whose values are not the same for every session are the
   **swept settings**; sessions differing in any of them are never pooled.
2. The columns that *name* the variants come from the jobs' command-line overrides where they
   can: an override whose value differs between jobs (``sensitivity=deference_0.75``, an
   Optuna trial's ``policy.agent.patience_seconds=123.4``) is a column when the overrides
   pick out exactly the same groups of sessions as the swept settings (an override that
   differs between jobs of the same settings is dropped: it changed nothing). Otherwise (sessions found only in a store, a
   config file edited between runs) the swept settings themselves are the columns.

3. The **task suite** (:data:`SUITE_COLUMN`: the task kind and its root, or a generated
   suite's size and seed) is a variant column whenever the sessions come from more than one
   suite: a generated and an archaeology run are different experiments even under the same
   structure, team and settings, so their tasks are never averaged into one row.

Seeds and tasks are never variant columns: seeds pool within a variant, tasks are the units
the standard errors and intervals are taken over.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

#: ``outcome_settings`` keys -> the config names a user types.
SETTING_NAMES: Mapping[str, str] = {
    "max_turns": "run.max_turns",
    "max_virtual_seconds": "run.max_virtual_seconds",
    "structure_overrides": "structure.overrides",
    "profiles": "team.profiles",
}
#: Overrides that never name a variant: identifiers (rows say them), task selection, seeds,
#: and settings that do not change a session's outcome.
_IGNORED_OVERRIDES = ("hydra", "team", "structure", "seeds", "tasks", "run", "tracking",
                      "launcher")
_KEPT_RUN_OVERRIDES = frozenset({"run.max_turns", "run.max_virtual_seconds"})
_KEPT_PREFIXES = ("structure.overrides.", "team.profiles.")
SETTINGS_COLUMN = "_settings"
#: The task suite a session's task came from (see :func:`collabsim.experiment.tasksource.suite_label`).
SUITE_COLUMN = "task_suite"
OVERRIDES_COLUMN = "_overrides"
_MISSING = "<unset>"


@dataclass(frozen=True)
class Variants:
    """The variant key of a sessions table.

    Attributes:
        columns: The setting columns added to the table (besides ``structure`` and ``team``),
            in display order; empty when every session ran the same settings.
        swept: The flattened outcome settings that differ between sessions.
        by: ``("structure", "team", *columns)``: what a variant is grouped by.
    """

    columns: tuple[str, ...]
    swept: tuple[str, ...]

    @property
    def by(self) -> tuple[str, ...]:
        """The grouping columns of a variant."""
        return ("structure", "team", *self.columns)


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested mappings -> ``{"a.b.c": value}``; lists become JSON text (hashable)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{SETTING_NAMES.get(str(key), key) if not prefix else key}"
        if isinstance(value, Mapping):
            if value:
                out.update(flatten(value, name + "."))
            else:
                out[name] = "{}"
        elif isinstance(value, list | tuple):
            out[name] = json.dumps(list(value), sort_keys=True, default=str)
        else:
            out[name] = value
    return out


def _text(value: Any) -> str:
    """Canonical text of a value, so 1 and 1.0 (int vs float in YAML) compare equal."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        number = float(value)
        if math.isfinite(number) and number == int(number):
            return str(int(number))
        return repr(number)
    return str(value)


def parse_override(text: str) -> tuple[str, str] | None:
    """``"+a.b=1"`` -> ``("a.b", "1")``; None for a deletion or a line without ``=``."""
    text = text.strip()
    if text.startswith("~"):
        return None
    key, sep, value = text.lstrip("+").partition("=")
    if not sep:
        return None
    key = key.split("@", 1)[0].strip()
    return key, value.strip()


def _ignored(key: str) -> bool:
    if key in _KEPT_RUN_OVERRIDES or key.startswith(_KEPT_PREFIXES):
        return False
    head = key.replace("/", ".").split(".", 1)[0]
    return head in _IGNORED_OVERRIDES


def _lookup(config: Mapping[str, Any] | None, dotted: str) -> tuple[bool, Any]:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def override_keys(overrides: Iterable[str]) -> list[str]:
    """The keys of a job's overrides that may name a variant (not ids, tasks, seeds, run)."""
    keys = []
    for text in overrides:
        parsed = parse_override(text)
        if parsed is not None and not _ignored(parsed[0]):
            keys.append(parsed[0])
    return keys


def override_values(keys: Iterable[str], overrides: Iterable[str],
                    config: Mapping[str, Any] | None,
                    choices: Mapping[str, Any] | None) -> dict[str, Any]:
    """The value of every key in ``keys`` (overrides of any job of the report) for one job.

    A config group (``sensitivity=…``) takes the job's chosen option (Hydra's runtime
    choices), a config value (``policy.agent.deference=…``) the value the job resolved, so a
    job that did not override the key still has its value; else the override's text.
    """
    given = dict(p for t in overrides if (p := parse_override(t)) is not None)
    out: dict[str, Any] = {}
    for key in keys:
        if choices is not None and key in choices:
            out[key] = choices[key]
            continue
        found, value = _lookup(config, key)
        if found:
            out[key] = value
        elif key in given:
            out[key] = given[key]
    return out


def _normalise(value: Any) -> Any:
    if isinstance(value, list | tuple | Mapping):
        return json.dumps(value, sort_keys=True, default=str)
    return value


def derive_variants(sessions: pd.DataFrame) -> tuple[pd.DataFrame, Variants]:
    """Add the variant setting columns to a collected sessions table.

    Args:
        sessions: One row per session with ``structure``, ``team`` and the private columns
            :data:`SETTINGS_COLUMN` (canonical JSON of the outcome settings, or empty) and
            :data:`OVERRIDES_COLUMN` (JSON ``{key: value}`` of the job's variant-naming
            overrides, or empty for sessions found only in a store).

    Returns:
        The table with one column per variant setting (typed values) and the key. The task
        suite (:data:`SUITE_COLUMN`, when the table has it) leads the key when the sessions
        come from more than one suite.
    """
    sessions, variants = _derive_settings(sessions)
    if SUITE_COLUMN in sessions and sessions[SUITE_COLUMN].astype(str).nunique() > 1:
        sessions[SUITE_COLUMN] = sessions[SUITE_COLUMN].astype(str)
        variants = Variants((SUITE_COLUMN, *variants.columns), variants.swept)
    return sessions, variants


def suite_warning(sessions: pd.DataFrame) -> str | None:
    """One line when the sessions come from different task suites, else None."""
    if SUITE_COLUMN not in sessions:
        return None
    counts = sessions.groupby(SUITE_COLUMN)["task_id"].nunique()
    if len(counts) < 2:
        return None
    shown = "; ".join(f"{suite} ({n} tasks)" for suite, n in counts.items())
    return (f"warning: these inputs ran {len(counts)} different task suites ({shown}); "
            f"rows are split by {SUITE_COLUMN}, never pooled")


def _derive_settings(sessions: pd.DataFrame) -> tuple[pd.DataFrame, Variants]:
    sessions = sessions.copy()
    settings = [flatten(json.loads(s)) if isinstance(s, str) and s else {}
                for s in sessions.get(SETTINGS_COLUMN, pd.Series([""] * len(sessions)))]
    names = sorted({k for s in settings for k in s})
    swept = [k for k in names if len({_text(s.get(k, _MISSING)) for s in settings}) > 1]
    if not swept:
        return sessions, Variants((), ())
    truth = [tuple(_text(s.get(k, _MISSING)) for k in swept) for s in settings]
    overrides = [json.loads(o) if isinstance(o, str) and o else None
                 for o in sessions.get(OVERRIDES_COLUMN, pd.Series([""] * len(sessions)))]
    columns = _naming_overrides(overrides, truth)
    if columns is None:
        values = {k: [_normalise(s.get(k)) for s in settings] for k in swept}
        columns = list(swept)
    else:
        values = {k: [_normalise(o.get(k)) for o in overrides] for k in columns}  # type: ignore[union-attr]
    used = set(sessions.columns)
    renamed = []
    for name in columns:
        column = name if name not in used else f"setting:{name}"
        sessions[column] = pd.Series(values[name], index=sessions.index, dtype=object)
        sessions[column] = _typed(sessions[column])
        renamed.append(column)
    return sessions, Variants(tuple(renamed), tuple(swept))


def _typed(column: pd.Series) -> pd.Series:
    """Numbers stay numbers (for line plots); anything else becomes text."""
    values = list(column)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return pd.Series(values, index=column.index, dtype="float64" if any(
            isinstance(v, float) for v in values) else "int64")
    return pd.Series([_text(v) for v in values], index=column.index, dtype=object)


def _naming_overrides(overrides: Sequence[Mapping[str, Any] | None],
                      truth: Sequence[tuple[str, ...]]) -> list[str] | None:
    """Override keys that pick out exactly the sessions groups ``truth`` does, or None."""
    if any(o is None for o in overrides):
        return None
    keys = list(dict.fromkeys(k for o in overrides for k in o))  # type: ignore[union-attr]
    keys = [k for k in keys
            if len({_text(o.get(k, _MISSING)) for o in overrides}) > 1]  # type: ignore[union-attr]

    def labels(cols: Sequence[str]) -> list[tuple[str, ...]]:
        return [tuple(_text(o.get(k, _MISSING)) for k in cols) for o in overrides]  # type: ignore[union-attr]

    def determines(a: Sequence[tuple[str, ...]], b: Sequence[tuple[str, ...]]) -> bool:
        seen: dict[tuple[str, ...], tuple[str, ...]] = {}
        return all(seen.setdefault(x, y) == y for x, y in zip(a, b, strict=True))

    # an override that does not follow from the settings (two jobs of the same settings differ
    # in it) changes nothing a session does: it names nothing
    keys = [k for k in keys if determines(truth, labels([k]))]
    if not keys or not determines(labels(keys), truth):
        return None
    return keys


def short_names(columns: Sequence[str]) -> dict[str, str]:
    """Display names: the last dotted part of each column when that is unambiguous."""
    last = [c.split(".")[-1] for c in columns]
    return {c: (s if last.count(s) == 1 else c) for c, s in zip(columns, last, strict=True)}


def variant_label(row: Mapping[str, Any] | pd.Series, columns: Sequence[str],
                  with_identity: bool = True) -> str:
    """``"default/D wrong_column_variant=0"``: the name of a variant in figures."""
    short = short_names(columns)
    parts = [f"{short[c]}={display(row[c])}" for c in columns]
    head = [f"{row['structure']}/{row['team']}"] if with_identity else []
    return " ".join(head + parts)


def display(value: Any) -> str:
    """A setting's value for labels: numbers to 4 significant digits."""
    if isinstance(value, float) and math.isfinite(value) and not value.is_integer():
        return f"{value:.4g}"
    return _text(value)


def same_value(value: Any, wanted: str) -> bool:
    """Whether a table value equals a value typed on the command line (``0`` == ``0.0``)."""
    if _text(value) == wanted:
        return True
    try:
        return math.isclose(float(value), float(wanted))
    except (TypeError, ValueError):
        return False
