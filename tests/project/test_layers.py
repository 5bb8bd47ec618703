"""The package's layers: imports point down, never up, and never in a circle.

``LAYERS`` is the one statement of the order (CLAUDE.md's "Layers" draws it):
a module may import modules of its own layer and of any layer in an earlier tier; layers that
share a tier know nothing of each other. The graph is read with ``ast`` from every import in a
module, at its top or inside a function, relative or absolute.
"""
from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "scripts" / "team_memory"

LAYERS = (
    ("base",),
    ("records",),
    ("text",),
    ("derived",),
    ("edits", "recall", "guards"),
    ("capture",),
    ("cli", "handlers"),
)
TIER = {layer: tier for tier, layers in enumerate(LAYERS) for layer in layers}


def modules(package: Path) -> dict:
    """``{"layer.module": path}`` for every module of the package (``""`` for its ``__init__``)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imported(name: str, path: Path, known: dict) -> set:
    """The package's modules ``name`` imports anywhere in its file."""
    package = name.split(".")[:-1] if path.name != "__init__.py" else name.split(".") if name else []
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and (node.module + ".").startswith("team_memory."):
                target = node.module[len("team_memory."):] if node.module != "team_memory" else ""
            else:
                continue
            for alias in node.names:
                child = f"{target}.{alias.name}" if target else alias.name
                found.add(child if child in known else target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("team_memory."):
                    found.add(alias.name[len("team_memory."):])
    found.discard(name)
    return {f for f in found if f in known}


def graph(package: Path) -> dict:
    known = modules(package)
    return {name: imported(name, path, known) for name, path in known.items()}


def layer_of(name: str) -> str:
    return name.split(".")[0]


def upward(edges: dict) -> list:
    """Imports that reach a layer not below (or beside) the importer's."""
    bad = []
    for name, targets in edges.items():
        for target in targets:
            mine, theirs = layer_of(name), layer_of(target)
            if theirs == "" or mine == theirs:
                continue  # the package root (``__version__``) is below everything
            if mine == "" or TIER[theirs] >= TIER[mine]:
                bad.append(f"{name} -> {target}")
    return sorted(bad)


def cycles(edges: dict) -> list:
    """Every import cycle, as the modules on it (one per strongly connected component)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_every_module_lives_in_a_layer():
    loose = [name for name in modules(PACKAGE) if name and layer_of(name) not in TIER]
    assert not loose, f"modules outside the layer folders {sorted(TIER)}: {loose}"
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(TIER), f"layer folders {sorted(folders)} differ from LAYERS {sorted(TIER)}"


@pytest.fixture(scope="module")
def _package_graph():
    return graph(PACKAGE)


@pytest.fixture
def package_graph(_package_graph):
    """The package's import graph, parsed once for the module; each test gets its own copy."""
    return {name: set(targets) for name, targets in _package_graph.items()}


def test_no_import_goes_up_a_layer(package_graph):
    assert upward(package_graph) == []


def test_no_import_cycle(package_graph):
    assert cycles(package_graph) == []


def test_the_check_sees_upward_imports_and_cycles(tmp_path):
    """A planted upward import (also inside a function) and a planted cycle are both reported."""
    pkg = tmp_path / "team_memory"
    for layer in ("base", "records", "recall"):
        (pkg / layer).mkdir(parents=True)
        (pkg / layer / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "base" / "low.py").write_text("def f():\n    from ..recall import high\n")
    (pkg / "records" / "mid.py").write_text("from .other import g\n")
    (pkg / "records" / "other.py").write_text("import os\ndef g():\n    from . import mid\n")
    (pkg / "recall" / "high.py").write_text("from team_memory.records.mid import g\nfrom .. import __version__\n")
    edges = graph(pkg)
    assert upward(edges) == ["base.low -> recall.high"]
    assert cycles(edges) == [["records.mid", "records.other"]]
