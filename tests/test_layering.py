"""The import graph: data flows one way (solvers <- oracles <- fuzz <- measure <- reports <- knapcheck), no cycle.

Every import counts, those inside functions too: a lazy import is still a dependency. A package's
``__init__`` re-exports its modules, so edges into a package itself are not followed for cycles.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["solvers", "oracles", "fuzz", "measure", "reports", "knapcheck"]
"""The repository's folders, lowest first; each installs as ``knapcheck.FOLDER`` (``knapcheck/`` as ``knapcheck``)."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] != "knapcheck":
        parts.insert(0, "knapcheck")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    """``knapcheck.solvers.contract`` is in the layer ``solvers``; ``knapcheck.cli`` in ``knapcheck``."""
    folder = module.split(".")[1] if module.count(".") else ""
    return LAYERS.index(folder) if folder in LAYERS[:-1] else LAYERS.index("knapcheck")


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
PACKAGES = {"knapcheck", *(f"knapcheck.{layer}" for layer in LAYERS[:-1])}


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_never_reach_a_higher_layer(module):
    layer = layer_of(module)
    upward = sorted(m for m in GRAPH[module] if layer_of(m) > layer)
    assert not upward, f"{module} imports {upward}, above its layer {LAYERS[layer]}"


def test_no_import_cycle():
    visiting, done = [], set()

    def visit(module):
        if module in done:
            return
        assert module not in visiting, "import cycle: " + " -> ".join(visiting[visiting.index(module):] + [module])
        visiting.append(module)
        for imported in sorted(m for m in GRAPH[module] if m not in PACKAGES):
            visit(imported)
        visiting.pop()
        done.add(module)

    for module in sorted(GRAPH):
        visit(module)
