"""A failing check as a short Python snippet that reproduces it: it fails when run as shown."""

from __future__ import annotations

import math

from knapcheck.fuzz.differential import Check
from knapcheck.solvers.contract import SCALE, UPSTREAM, rounding_named
from knapcheck.solvers import specs
from knapcheck.solvers.isolation import limits_for


def import_lines(spec_text: str) -> list[str]:
    """Lines that bind ``solve`` to the solver a spec names, with nothing of knapcheck imported."""
    spec = specs.parse(spec_text)
    if spec.kind == "file":
        return [
            "import importlib.util",
            f"spec = importlib.util.spec_from_file_location('target', {spec.where!r})",
            "target = importlib.util.module_from_spec(spec)",
            "spec.loader.exec_module(target)",
            f"solve = target.{spec.name}",
        ]
    return [f"from {spec.module} import {spec.name} as solve"]


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
    if verdict == "SUBOPTIMAL":
        return [
            "got = math.fsum(runtimes[i] for i in saved)",
            f"assert got >= {optimum!r}, f'SUBOPTIMAL: {{got}} < optimum {optimum!r}'",
        ]
    if verdict == "WRONG_VALUE":
        return [
            "assert value == math.fsum(runtimes[i] for i in saved), "
            "f'WRONG_VALUE: reported {value}, saved items sum to {math.fsum(runtimes[i] for i in saved)}'",
        ]
    if verdict == "BAD_PARTITION":
        return ["assert sorted(list(saved) + list(recomputable)) == list(range(len(memory))), 'BAD_PARTITION'"]
    if verdict == "MUTATED_INPUT":
        return ["assert (memory, runtimes) == given, f'MUTATED_INPUT: the lists it was given are now {memory}, {runtimes}'"]
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


def snippet(failure: Check) -> str:
    instance = failure.instance
    lines = ["import math", *import_lines(failure.solver.spec), *_limit_lines(failure)]
    lines += [
        f"memory = {list(instance.memory)!r}",
        f"runtimes = {list(instance.runtimes)!r}",
        f"max_memory = {instance.max_memory!r}",
    ]
    if failure.verdict.value == "MUTATED_INPUT":
        lines.append("given = (list(memory), list(runtimes))")
    call = "value, saved, recomputable = solve(memory, runtimes, max_memory)"
    if failure.verdict.value in ("REJECTED", "CRASH", "TIMEOUT", "OUT_OF_MEMORY"):
        lines.append(f"{call}  # {failure.verdict.value}: {failure.judgement.detail}")
    else:
        lines += [call, *_assertion(failure)]
    return "\n".join(lines)
