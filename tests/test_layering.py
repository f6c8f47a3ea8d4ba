"""The import graph: data flows one way (solvers <- oracles <- fuzz <- reports <- knapcheck), no cycle.

Every import counts, those inside functions too: a lazy import is still a dependency. A package's
``__init__`` re-exports its modules, so edges into a package itself are not followed for cycles.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["solvers", "oracles", "fuzz", "reports", "knapcheck"]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_imports(path: Path, modules: set[str]) -> set[str]:
    """The project modules a file imports (``from pkg import mod`` names the module mod)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        else:
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for layer in LAYERS for p in (ROOT / layer).rglob("*.py")}
    modules = set(files)
    return {name: project_imports(path, modules) - {name} for name, path in files.items()}


GRAPH = import_graph()


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_never_reach_a_higher_layer(module):
    layer = LAYERS.index(module.split(".")[0])
    upward = sorted(m for m in GRAPH[module] if LAYERS.index(m.split(".")[0]) > layer)
    assert not upward, f"{module} imports {upward}, above its layer {LAYERS[layer]}"


def test_no_import_cycle():
    visiting, done = [], set()

    def visit(module):
        if module in done:
            return
        assert module not in visiting, "import cycle: " + " -> ".join(visiting[visiting.index(module):] + [module])
        visiting.append(module)
        for imported in sorted(m for m in GRAPH[module] if "." in m):
            visit(imported)
        visiting.pop()
        done.add(module)

    for module in sorted(GRAPH):
        visit(module)
