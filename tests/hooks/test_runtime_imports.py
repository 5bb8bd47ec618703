"""Runtime code (hooks, the core package, the CLI) imports only the standard library
(rapidfuzz and pyyaml excepted, and only behind a guarded import)."""
from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUNTIME = [REPO / "hooks", REPO / "scripts"]
ALLOWED_OPTIONAL = {"rapidfuzz", "yaml"}  # yaml: export/import in YAML only


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], node


def _stdlib_names() -> set:
    """The standard library's top-level module names (``sys.stdlib_module_names`` from 3.10; on 3.9,
    what the interpreter's own library folder and its built-in modules hold)."""
    if hasattr(sys, "stdlib_module_names"):
        return set(sys.stdlib_module_names)
    import sysconfig
    names = set(sys.builtin_module_names) | {"_frozen_importlib", "_frozen_importlib_external"}  # frozen
    names |= {"msvcrt", "winreg", "winsound", "_winapi", "nt"}  # Windows-only, not in a Linux library folder
    for folder in (sysconfig.get_paths()["stdlib"], os.path.join(sysconfig.get_paths()["stdlib"], "lib-dynload")):
        for entry in os.listdir(folder):
            if entry != "site-packages":
                names.add(entry.split(".")[0])
    return names


def test_runtime_is_stdlib_only():
    # CPython's C SHA-256 is _sha256 up to 3.11 and _sha2 from 3.12 (base/state.py tries both)
    stdlib = _stdlib_names() | {"team_memory", "launch", "__future__", "_sha2", "_sha256"}  # launch: hooks/launch.py
    bad = []
    for base in RUNTIME:
        for path in base.rglob("*.py"):
            for name, node in _imports(path):
                if name not in stdlib and name not in ALLOWED_OPTIONAL:
                    bad.append(f"{path.relative_to(REPO)}:{node.lineno} imports {name}")
    assert not bad, bad


@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_optional_imports_are_guarded():
    for base in RUNTIME:
        for path in base.rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            guarded = set()  # line numbers: _imports parses the file again, so node ids differ
            for node in ast.walk(tree):
                if isinstance(node, ast.Try):
                    for inner in ast.walk(node):
                        if isinstance(inner, (ast.Import, ast.ImportFrom)):
                            guarded.add(inner.lineno)
            for name, node in _imports(path):
                if name in ALLOWED_OPTIONAL:
                    assert node.lineno in guarded, f"{path}:{node.lineno} imports {name} without a guard"
