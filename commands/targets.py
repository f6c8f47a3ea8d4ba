"""The command line's solver specs: turned into registry entries and loaded before any work.

A spec that names nothing, a file that does not exist or does not import, a missing function or
something that is not a solver (``os:getcwd``) is a usage error, reported before the first instance
is drawn: a table of verdicts about code that never ran would mislead. So is a solver named
explicitly that cannot run here (``cuda`` without triton); ``ours`` means every solver of ours that
can, and says on stderr which it skipped and why.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .usage import UsageError

if TYPE_CHECKING:
    from ..solvers.entry import SolverEntry

DEFAULT_TARGETS = ("ours", "torch")
SPEC_FORMS = "ours, torch, torch:NAME, FILE.py:NAME, FILE.py (its functions named like torch's), module:NAME or a registered name"
PROMISE_HELP = """\
promises:
  each target is judged on what it promises: exact (the optimum) or heuristic (a valid selection;
  SUBOPTIMAL is no failure). A FILE.py:NAME or module:NAME target named like one of torch's solvers
  takes that solver's promise (greedy_knapsack: heuristic; the others: exact), any other is exact.
  Append @exact or @heuristic to declare it: pr/knapsack.py:greedy_knapsack@exact. The output says
  which promise each target was judged on, and why."""


def entries_for(specs: list[str] | None, option: str) -> list[SolverEntry]:
    """The registry entries the specs given to ``option`` name (``ours``: every solver of ours; a
    bare ``FILE.py``: its functions named like torch's), each once, in order."""
    from ..solvers.registry import ours, resolve_all

    specs = specs or list(DEFAULT_TARGETS)
    expanded: list[str] = []
    for spec in specs:
        expanded += [e.name for e in available(ours())] if spec == "ours" else [spec]
    try:
        entries = resolve_all(functions_of_files(expanded, option))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    unavailable = [f"{e.name} {reason}" for e in entries if (reason := e.unavailable())]
    if unavailable:
        raise UsageError("; ".join(unavailable))
    return entries


def targets_and_baselines(
    target_specs: list[str] | None, baseline_specs: list[str] | None, option: str
) -> tuple[list[SolverEntry], list[SolverEntry]]:
    """The entries the specs of ``option`` and of ``--baseline`` name, keeping only the baselines
    some target is compared with (``knapcheck.fuzz.judging.verdicts.gate.counterparts``); a target without a single
    counterpart is a UsageError."""
    from ..fuzz.judging.verdicts.gate import counterparts

    targets = entries_for(target_specs, option)
    baselines = entries_for(baseline_specs, "--baseline") if baseline_specs else []
    try:
        return targets, counterparts(targets, baselines)
    except ValueError as exc:
        raise UsageError(f"--baseline: {exc}") from None


def prepare_workers(target_specs: list[str] | None, baseline_specs: list[str] | None, all_isolated: bool = False) -> None:
    """Start the zygotes the targets' workers will be forked from (``knapcheck.solvers.isolation.zygote_pool``),
    for both hash seeds (the determinism check's second workers), with torch if a spec may use it:
    they import it while this process imports the modules that judge, instead of after. None where
    every spec names one of our solvers that runs in this process (unless ``all_isolated``: a report
    isolates every target). ``load_targets`` forks the workers. A command calls it once its inputs
    and specs are checked: a mistake is one line without a zygote started (two torch imports, 1.4 s
    of CPU, for nothing); a spec whose file turns out wrong when loaded costs only the zygotes, which
    end with this process."""
    from ..solvers.catalog import OURS
    from ..solvers.isolation import hash_seeds, zygote_pool
    from ..solvers.isolation.torch_use import uses_torch
    from ..solvers.isolation.worker import worker_environment

    in_process = set() if all_isolated else {entry.name for entry in OURS if not entry.isolate}
    given = [*(target_specs or DEFAULT_TARGETS), *(baseline_specs or [])]
    specs = [spec for spec in given if spec not in in_process]
    if not specs:
        return
    with_torch = any(uses_torch(spec) for spec in specs)
    for seed in (hash_seeds.FIRST, hash_seeds.SECOND):
        zygote_pool.prepare(worker_environment(seed), with_torch)


def functions_of_files(specs: list[str], option: str) -> list[str]:
    """The specs, a bare ``FILE.py`` made into ``FILE.py:NAME`` for each function it defines that is
    named like one of torch's solvers (read from its syntax tree, without running it)."""
    from ..fuzz.corpus.reader import read_bytes
    from ..solvers.registry import TORCH_SOLVER_NAMES

    expanded = []
    for spec in specs:
        if ":" in spec or "<" in spec or not spec.endswith(".py"):
            expanded.append(spec)
            continue
        path = Path(spec).expanduser()
        if not path.is_file():
            raise ValueError(f"{option} {spec}: no such file" if not path.exists() else f"{option} {spec}: not a regular file")
        try:
            tree = ast.parse(read_bytes(path), filename=str(path))
        except (SyntaxError, ValueError) as exc:
            raise ValueError(f"{option} {spec}: cannot read the file: {exc}") from None
        defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        names = [name for name in TORCH_SOLVER_NAMES if name in defined]
        if not names:
            raise ValueError(f"{option} {spec}: the file defines none of {', '.join(TORCH_SOLVER_NAMES)};"
                             " name a function as FILE.py:NAME")
        expanded += [f"{spec}:{name}" for name in names]
    return expanded


def available(entries: list[SolverEntry]) -> list[SolverEntry]:
    """The entries that can run here; one line on stderr for each one skipped, saying why."""
    kept = []
    for entry in entries:
        reason = entry.unavailable()
        if reason:
            print(f"knapcheck: {entry.name} skipped: it {reason}", file=sys.stderr)
        else:
            kept.append(entry)
    return kept


def load_targets(entries: list[SolverEntry], *, determinism: bool = False) -> None:
    """Load every entry's solver now: isolated ones in their worker processes (started side by
    side, with ``determinism`` the second workers of exact ones too), the others here. UsageError
    naming each one that cannot be loaded."""
    from ..solvers.isolation.worker import current_pool

    problems = [
        _reason(name, outcome.error) for name, outcome in current_pool().start(entries, second_for_exact=determinism).items()
    ]
    for entry in entries:
        if not entry.isolate:
            try:
                entry.load()
            except ValueError as exc:
                problems.append(_reason(entry.name, str(exc)))
    if problems:
        raise UsageError("cannot load " + "; ".join(problems))


def _reason(name: str, error: str) -> str:
    """The loader's own words (``knapcheck.solvers.specs``), without the layers a worker wraps them in."""
    for wrapper in ("while loading the target: ", f"cannot load {name}: ", "ValueError: "):
        error = error.removeprefix(wrapper)
    return error if error.startswith(name) else f"{name}: {error}"


def promise_help() -> str:
    """The promise declaration, for a help epilog."""
    return PROMISE_HELP


def add_targets_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--targets",
        nargs="+",
        metavar="SPEC",
        help=f"solvers to check: {SPEC_FORMS} (default: {' '.join(DEFAULT_TARGETS)})",
    )
