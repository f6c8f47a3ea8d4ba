"""The float tolerance counts only what can be saved: items that never fit cannot hide a real gap."""

import math

from knapcheck.oracles.optimum import optimum
from knapcheck.oracles.verdict import Verdict, judge
from knapcheck.solvers.contract import UPSTREAM, Instance, float_tolerance
from knapcheck.solvers.contract.outcome import RETURNED, Outcome
from knapcheck.solvers.registry import ours

N = 200
NEVER_FIT = Instance((1e-4, 1e-4) + (10.0,) * (N - 2), (1e20, 8e8) + (1e20,) * (N - 2), 2e-4)
"""Two items fit the budget together (runtimes 1e20 and 8e8); 198 of runtime 1e20 never fit."""


def test_a_gap_of_8e8_is_suboptimal_though_items_that_never_fit_sum_to_2e22():
    oracle = optimum(NEVER_FIT)
    assert oracle.value == 10**20 + 8 * 10**8 and float(oracle.value) == 1.000000000008e20
    assert oracle.slack > 8e8, "CP-SAT's rounded model cannot tell the gap; its exact witness can"
    only_the_first = Outcome(RETURNED, answer=(1e20, [0], list(range(1, N))))
    judgement = judge(NEVER_FIT, only_the_first, oracle)
    assert judgement.verdict is Verdict.SUBOPTIMAL, judgement.detail
    assert judgement.gap == 8e8


def test_the_tolerance_is_that_of_the_two_items_that_fit():
    weights, capacity = NEVER_FIT.quantized()
    two_items = 2 * (2 * 2.0**-53 / (1 - 2 * 2.0**-53)) * (1e20 + 8e8)
    assert math.isclose(float_tolerance(NEVER_FIT.runtimes, weights, capacity), two_items, rel_tol=1e-12)
    assert float_tolerance(NEVER_FIT.runtimes) > 8e8, "counting every item, the gap would be lost"


def test_the_bound_is_dantzigs_when_not_everything_that_fits_fits_together():
    runtimes = [3.0, 2.0, 0.1]
    weights, capacity = [2, 2, 2], 3
    gamma = 2.0**-53 / (1 - 2.0**-53)
    assert math.isclose(float_tolerance(runtimes, weights, capacity), 2 * gamma * (3.0 + 2.0 / 2), rel_tol=1e-12)


def test_nothing_that_fits_means_no_tolerance():
    assert float_tolerance([0.1, 0.3], [5, 6], 4) == 0.0


def test_our_exact_solvers_find_the_optimum_the_judge_demands():
    for entry in ours():
        if entry.exact and entry.rounding == UPSTREAM and entry.accepts(N, NEVER_FIT.quantized()[1]):
            value, saved, _ = entry.load()(NEVER_FIT.memory, NEVER_FIT.runtimes, NEVER_FIT.max_memory)
            assert sorted(saved) == [0, 1] and value == 1.000000000008e20, entry.name


def test_knapcheck_solve_says_suboptimal_on_the_issues_instance(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    instance = tmp_path / "never_fit.json"
    instance.write_text(json.dumps(NEVER_FIT.as_dict()))
    target = f"{Path(__file__).parent / 'planted' / 'wrong_answers.py'}:saves_only_the_first"
    run = subprocess.run(
        [sys.executable, "-m", "knapcheck", "solve", target, str(instance), "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 1, run.stderr
    (result,) = json.loads(run.stdout)["results"]
    assert (result["verdict"], result["detail"]) == ("SUBOPTIMAL", "value 1e+20 < optimum 1.000000000008e+20")
