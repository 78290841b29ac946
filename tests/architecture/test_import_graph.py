"""The import graph: every module imports; neither subpackages nor modules form a cycle.

Imports are read from the source (``ast``), including imports inside functions and under
``TYPE_CHECKING``: a lazy import is still a dependency, and a cycle through one is still a
tangle. A subpackage is the first name below ``collabsim`` (``collabsim.session``); a
top-level module (``collabsim.tracking``) counts as its own node. The module graph has one
node per module (a package's ``__init__`` is the package's node).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path

import networkx as nx
import pytest

import collabsim
import collabsim.envs

ROOT = Path(collabsim.__file__).parent


def _modules() -> dict[str, Path]:
    """Every module of collabsim (``collabsim.envs`` included) -> its source file.

    In the repository ``collabsim.envs`` lives in the top-level ``envs/`` folder (a wheel puts it
    inside ``collabsim/``), so it is walked from its own path.
    """
    out: dict[str, Path] = {"collabsim": ROOT / "__init__.py"}
    roots = [([str(ROOT)], "collabsim.")]
    if not (ROOT / "envs").is_dir():
        out["collabsim.envs"] = Path(collabsim.envs.__file__)
        roots.append((list(collabsim.envs.__path__), "collabsim.envs."))
    for path, prefix in roots:
        for info in pkgutil.walk_packages(path, prefix=prefix):
            spec = importlib.util.find_spec(info.name)
            assert spec is not None and spec.origin is not None, info.name
            out[info.name] = Path(spec.origin)
    return out


MODULES = _modules()


def _imports(module: str, path: Path) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Each import statement of ``module`` as (absolute module name, names imported from it;
    empty for ``import x``), relative imports resolved."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            yield name, tuple(a.name for a in node.names)


def _imported(module: str, path: Path) -> set[str]:
    """Absolute names of the collabsim modules ``module`` imports (relative ones resolved)."""
    found: set[str] = set()
    for name, names in _imports(module, path):
        found.add(name)
        found.update(f"{name}.{n}" for n in names)
    return {n for n in found if n == "collabsim" or n.startswith("collabsim.")}


def _node(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "collabsim"


def package_graph() -> tuple[nx.DiGraph, dict[tuple[str, str], set[str]]]:
    """Subpackage dependency graph, with the modules behind each edge."""
    graph = nx.DiGraph()
    why: dict[tuple[str, str], set[str]] = defaultdict(set)
    for module, path in MODULES.items():
        src = _node(module)
        graph.add_node(src)
        for target in _imported(module, path):
            dst = _node(target)
            if dst not in ("collabsim", src):
                graph.add_edge(src, dst)
                why[(src, dst)].add(f"{module} -> {target}")
    return graph, why


def _module_targets(module: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    """The modules of ``known`` that ``module`` imports: ``from pkg import mod`` is ``pkg.mod``."""
    found: set[str] = set()
    for name, names in _imports(module, path):
        if not names:
            found.add(name)
        found.update(f"{name}.{n}" if f"{name}.{n}" in known else name for n in names)
    return {n for n in found if n in known and n != module}


def module_graph(modules: Mapping[str, Path]) -> nx.DiGraph:
    """Module dependency graph: an edge for every import of one module by another."""
    graph = nx.DiGraph()
    for module, path in modules.items():
        graph.add_node(module)
        graph.add_edges_from((module, t) for t in _module_targets(module, path, modules))
    return graph


# modules that need an optional extra (imported by collabsim only when that extra's feature
# is used): without the extra, importing them fails on exactly that package, nothing else
NEEDS_EXTRA = {"collabsim.cli.ray_launcher": "ray"}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_imports(module: str) -> None:
    extra = NEEDS_EXTRA.get(module)
    if extra is not None and importlib.util.find_spec(extra) is None:
        with pytest.raises(ModuleNotFoundError) as missing:
            importlib.import_module(module)
        assert missing.value.name == extra
        return
    assert importlib.import_module(module).__name__ == module


def test_no_cycle_between_subpackages() -> None:
    graph, why = package_graph()
    cycles = list(nx.simple_cycles(graph))
    detail = [
        " | ".join(sorted(why[(c[i], c[(i + 1) % len(c)])])[0] for i in range(len(c)))
        for c in cycles
    ]
    assert cycles == [], detail


def test_no_cycle_between_modules() -> None:
    cycles = sorted(" -> ".join([*c, c[0]]) for c in nx.simple_cycles(module_graph(MODULES)))
    assert cycles == [], cycles


def test_module_cycle_check_sees_a_type_checking_cycle(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    a.write_text("from collabsim.x import b\n")
    b.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                 "    from collabsim.x.a import A\n")
    c.write_text("import collabsim.x.a\n")
    graph = module_graph({"collabsim.x.a": a, "collabsim.x.b": b, "collabsim.x.c": c})
    assert sorted(map(sorted, nx.simple_cycles(graph))) == [["collabsim.x.a", "collabsim.x.b"]]


def test_core_imports_nothing_else_from_collabsim() -> None:
    graph, why = package_graph()
    assert "core" in graph
    assert sorted(graph.successors("core")) == [], {k: v for k, v in why.items() if k[0] == "core"}


def test_graphs_and_metrics_read_the_chat_tags_from_core_not_from_participants() -> None:
    # The chat-tag protocol is shared by the participants that write it and the graph
    # builder and metrics that parse it, so it lives in core; what a participant is stays
    # out of what is measured of it.
    graph, why = package_graph()
    for package in ("graphs", "metrics"):
        assert "participants" not in set(graph.successors(package)), \
            {k: v for k, v in why.items() if k == (package, "participants")}


def test_llm_client_knows_no_domain() -> None:
    graph, why = package_graph()
    allowed = {"core"}
    extra = set(graph.successors("llm")) - allowed
    assert extra == set(), {k: v for k, v in why.items() if k[0] == "llm"}


def test_the_engine_never_imports_the_edges() -> None:
    graph, _ = package_graph()
    engine = {"core", "session", "tasks", "participants", "metrics"}
    for package in engine:
        reached = nx.descendants(graph, package) | {package}
        assert not reached & {"cli", "envs", "experiment", "tracking"}, package


def test_import_reader_sees_plain_and_lazy_imports(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from collabsim.session import x\n")
    b.write_text("def f():\n    from collabsim.core.events import TraceEvent\n")
    assert _imported("collabsim.core.a", a) == {"collabsim.session", "collabsim.session.x"}
    assert "collabsim.core.events" in _imported("collabsim.session.b", b)
