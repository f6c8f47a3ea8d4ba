"""The import graph: data flows one way (solvers <- oracles <- fuzz <- measure <- reports <- commands <-
the package's public modules), no cycle.

The repository's root is the package ``knapcheck`` and each folder the sub-package of its name, so the
graph is read from the tree alone: every first-party import inside the package is relative, and an
absolute ``knapcheck.`` import there fails (a reader of the tree could not resolve it). Inside
``solvers`` and ``fuzz`` the sub-packages are stages that import one way too (``STAGES``).

Every import counts, those inside functions too: a lazy import is still a dependency. A package's
``__init__`` re-exports its modules, so edges into a package itself are not followed for cycles.
"""

import ast
from pathlib import Path

import pytest
from package_tree import FOLDERS, ROOT, imported_from, package_paths

LAYERS = [*FOLDERS, ""]
"""The package's folders, lowest first, then its own modules at the root (``""``: ``knapcheck.testing``,
``knapcheck.strategies``, ``knapcheck.pytest_plugin``, ``knapcheck.__main__``)."""
NOT_THE_PACKAGE = {"tests", "studies", "scripts", "docs", "build"}


def package_files() -> dict[str, Path]:
    """Every module of the package, by its import name, read from the tree."""
    files = {}
    for path in package_paths():
        parts = ["knapcheck", *path.relative_to(ROOT).with_suffix("").parts]
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return files


def layer_of(module: str) -> int:
    """``knapcheck.solvers.contract`` is in the layer ``solvers``; ``knapcheck.testing`` in the root's."""
    parts = module.split(".")
    folder = parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else ""
    return LAYERS.index(folder)


def project_imports(module: str, path: Path, modules: set[str]) -> set[str]:
    """The project modules a file imports (``from pkg import mod`` names the module mod)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            source = imported_from(path, node)
            names = [f"{source}.{alias.name}" for alias in node.names] + [source]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        else:
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


FILES = package_files()


def import_graph() -> dict[str, set[str]]:
    modules = set(FILES)
    return {name: project_imports(name, path, modules) - {name} for name, path in FILES.items()}


def absolute_first_party_imports(path: Path) -> list[int]:
    """Lines of ``path`` that import ``knapcheck`` by its absolute name."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "knapcheck" for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "knapcheck":
            lines.append(node.lineno)
    return lines


GRAPH = import_graph()
PACKAGES = {"knapcheck", *(f"knapcheck.{layer}" for layer in LAYERS if layer)}
STAGES = {
    "knapcheck.solvers": [{"contract"}, {"files"}, {"cache", "core", "dp"}, {""}, {"isolation"}],
    "knapcheck.fuzz": [{"corpus"}, {"instances"}, {"judging"}, {"runs"}, {"campaign", "harvest"}],
    "knapcheck.fuzz.judging": [{"verdicts"}, {"known"}, {""}],
}
"""Each package's stages, lowest first: a module imports its own stage and those before it, never a
sibling of its rank. ``""`` is the package's own modules (``knapcheck.solvers.registry``)."""
PREFIXES = {"knapcheck.solvers": ("core_",), "knapcheck.fuzz": ("campaign_", "trace_", "harvest", "json_"),
            "knapcheck.fuzz.judging": ("known_", "verdict_")}
"""What a module's name once said instead of a sub-package."""
MOST_MODULES = 14


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_never_reach_a_higher_layer(module):
    layer = layer_of(module)
    upward = sorted(m for m in GRAPH[module] if layer_of(m) > layer)
    assert not upward, f"{module} imports {upward}, above its layer {LAYERS[layer] or 'the root'}"


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_first_party_imports_are_relative_so_the_tree_resolves_them(module):
    lines = absolute_first_party_imports(FILES[module])
    assert not lines, f"{module} imports knapcheck by its absolute name on lines {lines}: import it relatively"


def test_the_tree_shows_the_import_graph_between_folders():
    """The structure a plain read of the tree shows: many arrows between folders, every one resolved."""
    between = {(a, b) for a, targets in GRAPH.items() for b in targets if layer_of(a) != layer_of(b)}
    assert len(between) >= 60, f"only {len(between)} import arrows between folders"
    folders = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert folders - NOT_THE_PACKAGE == {layer for layer in LAYERS if layer}, sorted(folders)


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


def staged_in(module: str) -> list[str]:
    """The staged packages a module lies inside (``knapcheck.fuzz`` and ``knapcheck.fuzz.judging`` for
    a module of ``knapcheck.fuzz.judging.known``), outermost first; the staged package itself excluded."""
    return [package for package in STAGES if module.startswith(package + ".")]


def stage_of(module: str, package: str) -> tuple[int | None, str]:
    """(rank, stage) of a module inside a staged package (rank None: a stage ``STAGES`` does not list)."""
    ranks = STAGES[package]
    rest = module[len(package) + 1:].split(".")
    stage = rest[0] if len(rest) > 1 or any(rest[0] in stages for stages in ranks) else ""
    return next((i for i, stages in enumerate(ranks) if stage in stages), None), stage


def test_every_sub_package_has_a_stage():
    for package, ranks in STAGES.items():
        folder = ROOT.joinpath(*package.split(".")[1:])
        subpackages = {p.parent.name for p in folder.glob("*/__init__.py")}
        assert subpackages == set().union(*ranks) - {""}, f"{package}: sub-packages {sorted(subpackages)}"


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if staged_in(m)))
def test_stages_import_one_way(module):
    """At every staged package the module lies in, its imports inside that package."""
    for package in staged_in(module):
        rank, stage = stage_of(module, package)
        assert rank is not None, f"{module}: its stage {stage or package!r} is not in STAGES[{package!r}]"
        wrong = []
        for imported in GRAPH[module]:
            if not imported.startswith(package + "."):
                continue
            other_rank, other_stage = stage_of(imported, package)
            if other_rank is None or other_rank > rank or (other_rank == rank and other_stage != stage):
                wrong.append(imported)
        assert not wrong, f"{module} (stage {stage or package} of {package}) imports {sorted(wrong)}, outside the stages below it"


@pytest.mark.parametrize("package", sorted(STAGES))
def test_staged_packages_hold_few_modules_and_no_prefixed_names(package):
    folder = ROOT.joinpath(*package.split(".")[1:])
    modules = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    assert len(modules) <= MOST_MODULES, f"{package} holds {len(modules)} modules directly: {modules}"
    prefixed = [m for m in modules if m.startswith(PREFIXES[package])]
    assert not prefixed, f"{package}: {prefixed} name a sub-package by a prefix"
