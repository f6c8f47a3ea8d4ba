"""knapcheck's pytest plugin: the differential check of a solver, collected as ordinary tests.

    pytest --knapcheck-target pr/knapsack.py --knapcheck-baseline torch -n auto

Each target is tested on every instance of the selected families and of the known-failure corpus,
one test per (target, instance), named ``knapcheck::TARGET::FAMILY[INDEX]`` (so ``-k tight_budget``
selects a family). A test fails when the target fails its promise on the instance; its message is
the verdict, what was wrong and a ready-to-run snippet that reproduces it. Each instance is decided
by the judge ``knapcheck check`` and ``report`` call on it (``knapcheck.fuzz.judging.judge``), and
the gate's status (``knapcheck.fuzz.judging.verdicts.gate``) is the outcome: with a baseline, a failure the
baseline shares, or one a known defect of the baseline explains (the known-failure corpus names its
defects and how far each reaches), is an expected failure; a regression fails; an instance past
the size the target promises is skipped (check does not run it there either).

Installed, the plugin is loaded by every pytest run (a ``pytest11`` entry point), and without
``--knapcheck-target`` it does nothing: it adds options, and its hooks return at once, importing
nothing beyond pytest. Instances are drawn with ``knapcheck.fuzz.instances.seeded_draws``: the same seed gives
the same collection in every process, as pytest-xdist requires of its workers, and no Hypothesis
database or ``.hypothesis`` directory is used. Isolated targets run in worker processes started
once per pytest process when the tests are collected and stopped when the session ends; what
they print goes to one log per run, capped as a command's is (``_SolverLog``), never to pytest's
output.
"""

from __future__ import annotations

import os
import re
import warnings
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .fuzz.corpus.known_failures import KnownFailure
    from .fuzz.judging.verdicts.differential import Check
    from .oracles.result import OracleResult
    from .solvers.contract import Instance
    from .solvers.entry import SolverEntry

DEFAULT_PER_FAMILY = 10
"""Instances drawn from each sampled family unless --knapcheck-per-family says otherwise."""
DEFAULT_FAMILIES = ("tiny", "tight_budget", "zero_items", "heavy_items", "duplicates_ties", "quantization_edges",
                    "flop_scale", "float32_limits", "float_runtimes", "normalized", "huge_capacity", "many_items",
                    "runtime_span", "large_capacity", "scale_extremes", "weight_limits", "runtime_limits", "count_limits")
"""The families tested unless --knapcheck-families names others: every sampled family whose oracle
answers in milliseconds (the three shapes at scale among them: capacities past 65 536 units, more
than 64 items, runtimes from 1e-12 to 1e15), the 144 instances of large_capacity, the 16 of
scale_extremes and the 22 of the boundary families (weight_limits, runtime_limits, count_limits).
exhaustive_small (6 142 instances per target), the harvested and the Pisinger families are there
to be named."""
ROOT_NAME = "knapcheck"
CORPUS = "corpus"
LOG_KEY = "knapcheck_solver_log"
"""Where pytest-xdist's workers are told the run's solver log is."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("knapcheck", "knapcheck: the differential check of knapsack solvers")
    group.addoption(
        "--knapcheck-target", dest="knapcheck_targets", action="extend", nargs="+", default=[], metavar="SPEC",
        help="test these solvers: ours, torch, torch:NAME, FILE.py:NAME, module:NAME, a registered name, or FILE.py"
        " (every function of the file named like one of torch's solvers). Without it the plugin does nothing.",
    )
    group.addoption(
        "--knapcheck-baseline", dest="knapcheck_baselines", action="extend", nargs="+", default=[], metavar="SPEC",
        help="judge each target beside a baseline on every instance: a failure the baseline shares, or that a"
        " known defect of the baseline explains, is an expected failure; a regression fails",
    )
    group.addoption(
        "--knapcheck-families", dest="knapcheck_families", action="extend", nargs="+", default=None, metavar="NAME",
        help=f"instance families to test (default: {' '.join(DEFAULT_FAMILIES)}); the known-failure corpus is always tested",
    )
    group.addoption(
        "--knapcheck-per-family", dest="knapcheck_per_family", type=int, default=DEFAULT_PER_FAMILY, metavar="N",
        help=f"instances drawn from each sampled family (default: {DEFAULT_PER_FAMILY}); an enumerated family is tested in full",
    )
    group.addoption(
        "--knapcheck-seed", dest="knapcheck_seed", type=int, default=0, metavar="N",
        help="seed of the drawn instances (default: 0): the same seed, the same tests in every process",
    )
    group.addoption(
        "--knapcheck-solver-log", dest="knapcheck_solver_log", default=None, metavar="PATH",
        help="where what the targets print goes, appended to (default: a new file in the temporary directory,"
        " named at the end when anything was printed); at most 32 MiB a run, then a note says it was cut",
    )


@dataclass(frozen=True)
class Plan:
    """What the options ask for, checked: the targets with their counterparts, and the instances' sources."""

    targets: tuple[SolverEntry, ...]
    counterparts: dict[str, SolverEntry]
    families: tuple[str, ...]
    per_family: int
    seed: int


_PLAN = pytest.StashKey[Plan]()


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("knapcheck_targets"):
        return
    config.stash[_PLAN] = _plan(config)
    config.pluginmanager.register(_Session(config.stash[_PLAN], config), "knapcheck-session")


def _plan(config: pytest.Config) -> Plan:
    """The options read into a Plan; pytest.UsageError (one line) for anything wrong with them."""
    from .commands.targets import entries_for, functions_of_files
    from .commands.usage import UsageError
    from .fuzz.instances import families
    from .fuzz.judging.verdicts.gate import pair
    from .solvers.registry import resolve_all

    per_family, seed = config.getoption("knapcheck_per_family"), config.getoption("knapcheck_seed")
    if per_family < 1:
        raise pytest.UsageError(f"--knapcheck-per-family must be at least 1, got {per_family}")
    if seed < 0:
        raise pytest.UsageError(f"--knapcheck-seed must be at least 0, got {seed}")
    names = config.getoption("knapcheck_families") or list(DEFAULT_FAMILIES)
    try:
        for name in names:
            families.get(name)
        targets = entries_for(config.getoption("knapcheck_targets"), "--knapcheck-target")
        baselines = resolve_all(functions_of_files(config.getoption("knapcheck_baselines"), "--knapcheck-baseline"))
        counterparts = pair(targets, baselines)
    except (ValueError, UsageError) as exc:
        raise pytest.UsageError(f"knapcheck: {exc}") from None
    unavailable = [f"{entry.name} {reason}" for entry in baselines if (reason := entry.unavailable())]
    if unavailable:
        raise pytest.UsageError("knapcheck: " + "; ".join(unavailable))
    return Plan(tuple(targets), counterparts, tuple(dict.fromkeys(names)), per_family, seed)


class _SolverLog:
    """Where the targets' workers print: one log per pytest run, capped as a command's solver log is
    (``knapcheck.commands.solver_log``), never pytest's own output.

    The process pytest was started in makes the log (or checks the file --knapcheck-solver-log
    names) and tells pytest-xdist's workers its path as they start. Every process that runs tests
    appends to it, each at most its share of LOG_LIMIT, so that one run keeps at most LOG_LIMIT
    bytes. At the end the log is named in the summary, or removed if the run made it and nothing
    was printed.
    """

    def __init__(self, config: pytest.Config) -> None:
        from .commands.solver_log import LOG_LIMIT, capped_worker_output, default_path, open_log
        from .commands.usage import UsageError

        worker = getattr(config, "workerinput", None)
        given = worker[LOG_KEY] if worker else config.getoption("knapcheck_solver_log")
        self.path = Path(given) if given else default_path("pytest")
        try:
            descriptor, self.created = open_log(self.path, "--knapcheck-solver-log")
        except UsageError as exc:
            raise pytest.UsageError(f"knapcheck: {exc}") from None
        self.discarded = os.path.samestat(os.fstat(descriptor), os.stat(os.devnull))
        self.owner = worker is None
        share = LOG_LIMIT // (worker["workercount"] if worker else 1)
        self._open = ExitStack()
        self.log = self._open.enter_context(capped_worker_output(descriptor, share))

    def close(self) -> None:
        """Stop the workers and finish the copy."""
        self._open.close()

    def summary(self) -> str:
        """The line that names the log, when this process made or checked it and something was printed; else ''."""
        if not self.owner or self.discarded:
            return ""
        try:
            if os.lstat(self.path).st_size == 0:
                return ""
        except OSError:
            return ""
        truncated = f" (truncated at {self.log.limit} bytes; {self.log.dropped} more were dropped)" if self.log.truncated else ""
        return f"knapcheck: what the targets printed is in {self.path}{truncated}"

    def remove_if_unused(self) -> None:
        from .commands.solver_log import remove_if_empty

        if self.owner and self.created:
            remove_if_empty(self.path)


class _Session:
    """The plugin's hooks while a target is given (registered by pytest_configure, so inert otherwise).

    The session's workers are one pool (``knapcheck.solvers.isolation.worker.WorkerPool``), the
    current one from configure to the session's end: the targets are loaded when the suite is
    collected and serve every test after."""

    def __init__(self, plan: Plan, config: pytest.Config) -> None:
        from .solvers.isolation.worker import WorkerPool

        self.plan = plan
        self._workers = ExitStack()
        self._workers.enter_context(WorkerPool())
        try:
            self.log = _SolverLog(config)
        except BaseException:
            self._workers.close()
            raise

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector):
        """The session's collection report, with the knapcheck suite among its nodes: its tests are
        then collected as any others are (counted, listed by --collect-only, selected by -k and
        -m, compared across xdist workers), although no file holds them."""
        report = yield
        if isinstance(collector, pytest.Session) and report.passed:
            report.result.append(Suite.from_parent(collector, name=ROOT_NAME, nodeid=ROOT_NAME, plan=self.plan))
        return report

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:
        """pytest-xdist's: each worker it starts appends to this run's log."""
        node.workerinput[LOG_KEY] = str(self.log.path)

    def pytest_sessionfinish(self) -> None:
        self.log.close()
        self._workers.close()

    def pytest_terminal_summary(self, terminalreporter) -> None:
        line = self.log.summary()
        if line:
            terminalreporter.write_line(line)

    def pytest_unconfigure(self) -> None:
        self.log.remove_if_unused()

    def pytest_report_header(self) -> list[str]:
        plan = self.plan
        against = {t.name: plan.counterparts[t.name].name for t in plan.targets if t.name in plan.counterparts}
        lines = [f"knapcheck: targets {', '.join(t.name for t in plan.targets)}"]
        if against:
            lines.append("knapcheck: baselines " + ", ".join(f"{t} against {b}" for t, b in against.items()))
        lines.append(f"knapcheck: families {' '.join(plan.families)}, {plan.per_family} per sampled family,"
                     f" seed {plan.seed}, and the known-failure corpus")
        return lines


def _label(entry: SolverEntry, targets: tuple[SolverEntry, ...]) -> str:
    """A target's node name: its function name when no other target has it, else its full name."""
    from .fuzz.judging.verdicts.gate import function_name

    name = function_name(entry) or entry.name
    return name if sum(function_name(t) == name for t in targets) == 1 else entry.name.replace("::", ":")


def _node_name(text: str) -> str:
    """A corpus case id as part of a test name: letters, digits, ``_.-`` only."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:80] or "case"


class Suite(pytest.Collector):
    """Every target's tests. Collecting them loads the targets (each isolated one in its worker
    process), unless only collecting: a target that cannot be loaded is one collection error."""

    def __init__(self, *, plan: Plan, **kwargs) -> None:
        super().__init__(**kwargs)
        self.plan = plan

    def collect(self):
        from .fuzz.corpus.known_failures import read_known_failures
        from .fuzz.instances import families

        plan = self.plan
        if not self.config.option.collectonly:
            self._load()
        sources = [(name, families.get(name).draw(plan.per_family, plan.seed)) for name in plan.families]
        try:
            corpus = read_known_failures()
        except ValueError as exc:
            raise self.CollectError(f"knapcheck: {exc}") from None
        for line in corpus.notes():
            warnings.warn(pytest.PytestWarning(f"knapcheck: {line}"))
        cases = list(corpus.cases)
        oracles = _Oracles()
        for target in plan.targets:
            yield TargetTests.from_parent(
                self, name=_label(target, plan.targets), entry=target, counterpart=plan.counterparts.get(target.name),
                sources=sources, cases=cases, oracles=oracles,
            )

    def _load(self) -> None:
        """Every target and baseline loaded now, so one that cannot be is a collection error, said once."""
        from .solvers.isolation.worker import current_pool

        entries = [*self.plan.targets, *self.plan.counterparts.values()]
        unloadable = current_pool().start(entries, second_for_exact=True)
        problems = [f"{name}: {outcome.error}" for name, outcome in unloadable.items()]
        for entry in entries:
            if not entry.isolate:
                try:
                    entry.load()
                except ValueError as exc:
                    problems.append(str(exc))
        if problems:
            raise self.CollectError("knapcheck: cannot load " + "; ".join(dict.fromkeys(problems)))

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, self.CollectError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class TargetTests(pytest.Collector):
    """One target's tests: a test per instance of each source, then one per corpus case."""

    def __init__(self, *, entry, counterpart, sources, cases, oracles, **kwargs) -> None:
        from .fuzz.judging.known.by_cause import Causes

        super().__init__(**kwargs)
        self.entry = entry
        self.counterpart = counterpart
        self.sources = sources
        self.cases = cases
        self.oracles = oracles
        self.causes = Causes([counterpart] if counterpart is not None else [], cases)

    def collect(self):
        from .fuzz.runs.check import determinism_positions

        for family, instances in self.sources:
            twice = determinism_positions(instances)
            for index, instance in enumerate(instances):
                yield InstanceTest.from_parent(self, name=f"{family}[{index}]", family=family, instance=instance,
                                               calls=2 if index in twice else 1)
        twice = determinism_positions([case.instance for case in self.cases])
        for index, case in enumerate(self.cases):
            yield InstanceTest.from_parent(self, name=f"{CORPUS}[{_node_name(case.id)}]", family=case.family,
                                           instance=case.instance, calls=2 if index in twice else 1)


class _Oracles:
    """Each instance's optimum, computed once per process for all the targets tested on it."""

    def __init__(self) -> None:
        self._found: dict[Instance, OracleResult] = {}

    def __call__(self, instance: Instance) -> OracleResult:
        from .oracles.optimum import optimum

        if instance not in self._found:
            self._found[instance] = optimum(instance)
        return self._found[instance]


class KnapcheckFailure(AssertionError):
    """A target failed its promise on an instance; the message says how, and how to reproduce it."""


class InstanceTest(pytest.Item):
    """One target on one instance, judged against the oracle and beside its counterpart baseline."""

    def __init__(self, *, family: str, instance: Instance, calls: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.family = family
        self.instance = instance
        self.calls = calls

    def runtest(self) -> None:
        """The instance decided by the judge ``knapcheck check`` calls (``knapcheck.fuzz.judging.judge``),
        the gate's status read as an outcome: a pass, a failure that counts fails, one that does not
        (shared with the baseline, a known defect of it made visible) is an expected failure, and an
        instance past what the target promises to solve is skipped."""
        from .fuzz.judging.judge import Judge
        from .fuzz.judging.known.defects import describe
        from .fuzz.judging.verdicts import gate
        from .fuzz.judging.verdicts.differential import call, determinism_calls
        from .oracles.verdict import Verdict
        from .reports.repairs import repaired_sentence

        tests = cast(TargetTests, self.parent)  # a TargetTests collects its cases
        target, counterpart = tests.entry, tests.counterpart
        judge = Judge({} if counterpart is None else {target.name: counterpart}, tests.causes)
        entries = judge.runnable([target] if counterpart is None else [target, counterpart], self.instance)
        if target not in entries:
            from .solvers.specs import shown

            weights, capacity = self.instance.quantized(target.rounding)
            pytest.skip(f"not run: {shown(target.name)} does not promise to solve {len(weights)} items of capacity {capacity}"
                        " units (knapcheck check does not run it there either)")
        called = [(entry, call(entry, self.instance, min(self.calls, determinism_calls(entry)))) for entry in entries]
        done = judge.outcomes(self.instance, self.family, tests.oracles(self.instance), called)[target.name]
        if done.oracle_disagreement:
            raise KnapcheckFailure(f"the oracle, not {done.solver.name}, is shown wrong on this instance:"
                                   f" {done.oracle_disagreement}\ninstance: {self.instance.as_dict()}")
        if done.verdict is Verdict.UNVERIFIED:
            pytest.skip(f"UNVERIFIED (never a pass): {done.judgement.detail}")
        if gate.counts(done):
            raise KnapcheckFailure(failure_message(done, self.name, tests.cases))
        if not done.failed:
            return
        baseline = cast("SolverEntry", done.counterpart)  # a failure that does not count has a baseline (gate.counts)
        if gate.status(done, gate.CANDIDATE) == gate.SHARED:
            pytest.xfail(f"also in baseline {baseline.name}: {done.verdict.value}: {done.judgement.detail}")
        repaired = repaired_sentence(done)
        pytest.xfail(f"known defect of the baseline {baseline.name}, now visible ({describe(done.causes)}):"
                     f" {done.verdict.value}: {done.judgement.detail}{'; ' + repaired if repaired else ''}")

    def repr_failure(self, excinfo, style=None):
        """Our failure's message alone. An expected failure is reported as a failure here too, before
        pytest's xfail hook reads its reason: its message alone as well, where pytest's own traceback
        of the plugin's frames took 0.2 s each, most of a run on a copy of torch's file."""
        if isinstance(excinfo.value, (KnapcheckFailure, pytest.xfail.Exception)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, self.nodeid


def failure_message(done: Check, test: str, cases: Sequence[KnownFailure] = ()) -> str:
    """The verdict on the instance of ``test`` (``tiny[3]``, ``corpus[ID]``), what was wrong, the
    baseline's verdict on the instance, and the reproduction. Without a baseline, the corpus case
    that explains the failure, if one does (``knapcheck.fuzz.judging.known.known``)."""
    from .fuzz.judging.known.known import known_case
    from .fuzz.judging.verdicts import gate
    from .reports.repairs import repaired_sentence
    from .reports.reproduction import snippet

    returned = done.outcome.answer if done.outcome.returned else done.outcome.error
    status = ""
    if gate.is_regression(done):
        status = " (a regression)"
    elif done.counterpart is None and (case := known_case(done, cases)) is not None:
        status = f" (known: corpus case {case.id!r})"
    lines = [
        f"{done.solver.name}: {done.verdict.value} on {test} (instance {done.instance_id}){status}",
        f"  what was wrong: {done.judgement.detail}",
        f"  expected: {float(done.oracle.value)!r} with saved={list(done.oracle.saved)} ({done.oracle.name})",
        f"  returned: {returned!r}"[:600],
    ]
    if done.counterpart is not None:
        base = done.baseline
        if base is None:
            lines.append(f"  baseline {done.counterpart.name}: not run on this size")
        else:
            lines.append(f"  baseline {done.counterpart.name}: {base.verdict.value} on the same instance")
        if repaired_sentence(done):
            lines.append(f"  repaired: {repaired_sentence(done)}")
    lines += ["  reproduce with this snippet (it fails when run as shown):", "", snippet(done)]
    return "\n".join(lines)
