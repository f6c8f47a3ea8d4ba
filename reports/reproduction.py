"""A failing check as a short Python snippet that reproduces it: it fails when run as shown.

The snippet binds ``solve`` to the target, defines the instance and ``reproduce(solve)``, which
calls it and asserts what the failure broke. For a regression against a baseline that passed on
the instance, the snippet runs the baseline through the same ``reproduce`` first: it passes, and
the target then fails, so the snippet shows the defect is the target's own.

A file target is named by its path relative to the working directory (``knapcheck.solvers.specs.shown``),
so the snippet runs from the directory the report was produced in. A file with relative imports is
loaded the way knapcheck loaded it, as a module of its package tree (``knapcheck.solvers.specs.load``),
and so is a target read from another file (``SPEC<SOURCE.py``); any other target is imported with
nothing of knapcheck.
"""

from __future__ import annotations

import ast
import math

from ..fuzz.corpus.reader import read_bytes
from ..fuzz.judging.verdicts.differential import Check
from ..solvers import specs
from ..solvers.contract import SCALE, UPSTREAM, float_tolerance, rounding_named
from ..solvers.isolation import hash_seeds
from ..solvers.isolation.worker import limits_for


def import_lines(spec_text: str, bound: str = "solve") -> list[str]:
    """Lines that bind ``bound`` to the solver a spec names, run from the working directory."""
    spec = specs.parse(spec_text)
    if spec.source:
        return [
            "from knapcheck.solvers.specs import load  # the code of the file after '<', loaded where the spec names",
            f"{bound} = load({specs.shown(str(spec.target))!r})",
        ]
    if spec.kind != "file":
        return [f"from {spec.module} import {spec.name} as {bound}"]
    path = specs.shown_path(spec.where)
    if _imports_relatively(spec.where):
        return [
            "from knapcheck.solvers.specs import load  # as a module of its package tree, for its relative imports",
            f"{bound} = load({specs.shown(str(spec.target))!r})",
        ]
    return [
        "import importlib.util",
        f"spec = importlib.util.spec_from_file_location('target', {path!r})",
        "target = importlib.util.module_from_spec(spec)",
        "spec.loader.exec_module(target)",
        f"{bound} = target.{spec.name}",
    ]


def _imports_relatively(path: str) -> bool:
    """Whether the file has a relative import (``from . import x``); a file that cannot be read or
    parsed counts as having one, so that its reproduction loads it the way knapcheck did."""
    try:
        tree = ast.parse(read_bytes(path))
    except (SyntaxError, ValueError):
        return True
    return any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree))


def _assertion(failure: Check) -> list[str]:
    verdict = failure.verdict.value
    optimum = float(failure.oracle.value)
    if verdict == "OVER_BUDGET" and failure.oracle.rounding != UPSTREAM:
        lines = [
            "from knapcheck.solvers.contract import ROUNDINGS",
            f"weights, capacity = ROUNDINGS[{failure.oracle.rounding!r}].quantize(memory, max_memory)",
            "weight = sum(weights[i] for i in saved)",
            "assert weight <= capacity, f'OVER_BUDGET: saved weight {weight} > capacity {capacity}'",
        ]
        if rounding_named(failure.oracle.rounding).keeps_real_budget:
            lines += [
                "real = math.fsum(memory[i] for i in saved)",
                "assert real <= max_memory, f'OVER_BUDGET: saved real memory {real} > max_memory'",
            ]
        return lines
    if verdict == "OVER_BUDGET":
        return [
            f"weight = sum(round(memory[i] * {SCALE}) for i in saved)",
            f"assert weight <= round(max_memory * {SCALE}), f'OVER_BUDGET: saved weight {{weight}} > capacity'",
        ]
    tolerance = float_tolerance(failure.instance.runtimes)
    if verdict == "SUBOPTIMAL":
        least = optimum - tolerance - float(failure.oracle.slack)
        note = "" if least == optimum else "  # the optimum less the float-summation tolerance"
        return [
            "got = math.fsum(runtimes[i] for i in saved)",
            f"assert got >= {least!r}, f'SUBOPTIMAL: {{got}} < optimum {optimum!r}'{note}",
        ]
    if verdict == "WRONG_VALUE":
        if tolerance == 0:
            return [
                "assert value == math.fsum(runtimes[i] for i in saved), "
                "f'WRONG_VALUE: reported {value}, saved items sum to {math.fsum(runtimes[i] for i in saved)}'",
            ]
        return [
            f"assert abs(value - math.fsum(runtimes[i] for i in saved)) <= {tolerance!r}, "
            "f'WRONG_VALUE: reported {value}, saved items sum to {math.fsum(runtimes[i] for i in saved)}'"
            "  # the float-summation tolerance of this inexact instance",
        ]
    if verdict == "BAD_PARTITION":
        return ["assert sorted(list(saved) + list(recomputable)) == list(range(len(memory))), 'BAD_PARTITION'"]
    return []


def _limit_lines(failure: Check) -> list[str]:
    """An isolated call ran under a memory cap and a time limit; the snippet sets the same ones."""
    if not failure.solver.isolate:
        return []
    limits = limits_for(failure.solver)
    if failure.verdict.value == "OUT_OF_MEMORY" and limits.memory is not None:
        return [
            "import resource",
            "mapped = int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize()",
            f"cap = mapped + {limits.memory}  # the cap it ran under: what it mapped once loaded, plus the limit",
            "resource.setrlimit(resource.RLIMIT_AS, (cap, resource.getrlimit(resource.RLIMIT_AS)[1]))",
        ]
    if failure.verdict.value == "TIMEOUT":
        return ["import signal", f"signal.alarm({math.ceil(limits.time)})  # the time limit it ran under"]
    return []


REPEATS = 20
"""Calls a NONDETERMINISTIC reproduction makes: two answers that differ show in far fewer."""
CALL = "value, saved, recomputable = solve(list(memory), list(runtimes), max_memory)"
ANSWER = "(float(value), tuple(sorted(int(i) for i in saved)))"


def _across_processes(failure: Check) -> bool:
    """Whether knapcheck called the solver in a second process too (an isolated NONDETERMINISTIC one)."""
    return failure.verdict.value == "NONDETERMINISTIC" and failure.solver.isolate


def _program(spec: str, failure: Check) -> str:
    """A program that prints the answer of the solver ``spec`` names on the failure's instance."""
    return "\n".join([
        *import_lines(spec), f"memory, runtimes, max_memory = {_instance_literal(failure)}", CALL, f"print(repr({ANSWER}))",
    ])


def _other_processes(failure: Check) -> list[str]:
    """``program``, a solver's own, run in fresh interpreters with the two hash seeds knapcheck
    used: their answers must agree with the ones above."""
    if not _across_processes(failure):
        return []
    seeds = (str(hash_seeds.FIRST), str(hash_seeds.SECOND))
    return [
        f"for seed in {seeds!r}:  # fresh processes whose str hashes differ (PYTHONHASHSEED), as knapcheck called it",
        "    done = subprocess.run([sys.executable, '-c', program], env=dict(os.environ, PYTHONHASHSEED=seed),",
        "                          capture_output=True, text=True, check=True)",
        "    answers.add(ast.literal_eval(done.stdout.splitlines()[-1]))",
        f"assert len(answers) == 1, f'NONDETERMINISTIC: in processes with PYTHONHASHSEED {seeds[0]} and {seeds[1]}: {{answers}}'",
    ]


def _instance_literal(failure: Check) -> str:
    instance = failure.instance
    return f"{list(instance.memory)!r}, {list(instance.runtimes)!r}, {instance.max_memory!r}"


def _body(failure: Check) -> list[str]:
    """The lines of ``reproduce(solve)``: the call and what it must satisfy."""
    verdict = failure.verdict.value
    if verdict == "NONDETERMINISTIC":
        return [
            "answers = set()",
            f"for _ in range({REPEATS}):",
            f"    {CALL}",
            f"    answers.add({ANSWER})",
            f"assert len(answers) == 1, f'NONDETERMINISTIC: {{len(answers)}} different answers in {REPEATS} calls: {{answers}}'",
            *_other_processes(failure),
        ]
    if verdict == "MUTATED_INPUT":
        return [
            "given_memory, given_runtimes = list(memory), list(runtimes)",
            "value, saved, recomputable = solve(given_memory, given_runtimes, max_memory)",
            "assert (given_memory, given_runtimes) == (memory, runtimes), "
            "f'MUTATED_INPUT: the lists it was given are now {given_memory}, {given_runtimes}'",
        ]
    if verdict in ("REJECTED", "CRASH", "TIMEOUT", "OUT_OF_MEMORY"):
        detail = specs.shown_in(failure.judgement.detail, [failure.solver.name])
        return [f"{CALL}  # {verdict}: {_comment(detail)}"]
    return [CALL, *_assertion(failure)]


def _comment(text: str) -> str:
    """Text a target supplied, as the rest of a comment line: line breaks and control characters
    escaped, so that it cannot end the comment and add code."""
    return repr(text)[1:-1]


def _baseline_lines(failure: Check) -> list[str]:
    """For a regression against a baseline that passed on the instance: that baseline, reproduced first."""
    base = failure.baseline
    if base is None or base.failed or base.verdict.value == "UNVERIFIED" or base.verdict is failure.verdict:
        return []
    called = f"reproduce(baseline, {_program(base.solver.spec, failure)!r})" if _across_processes(failure) else "reproduce(baseline)"
    return [
        f"# the baseline, {_comment(specs.shown(base.solver.name))}, passes on this instance ({base.verdict.value}):",
        *import_lines(base.solver.spec, "baseline"),
        called,
    ]


def snippet(failure: Check) -> str:
    instance = failure.instance
    imports, signature, called = ["import math"], "reproduce(solve)", "reproduce(solve)"
    if _across_processes(failure):
        imports = ["import ast", "import math", "import os", "import subprocess", "import sys"]
        signature, called = "reproduce(solve, program)", f"reproduce(solve, {_program(failure.solver.spec, failure)!r})"
    lines = [*imports, *import_lines(failure.solver.spec), *_limit_lines(failure)]
    lines += [
        f"memory = {list(instance.memory)!r}",
        f"runtimes = {list(instance.runtimes)!r}",
        f"max_memory = {instance.max_memory!r}",
        "",
        "",
        f"def {signature}:",
        *("    " + line for line in _body(failure)),
        "",
        "",
        *_baseline_lines(failure),
        f"{called}  # {_comment(specs.shown(failure.solver.name))}: {failure.verdict.value}",
    ]
    return "\n".join(lines)
