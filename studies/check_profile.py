"""Where the time of a check and of a campaign unit goes: ``python studies/check_profile.py [check|unit] [N]``.

- ``check``: cProfile of ``knapcheck check --targets torch:dp_knapsack --families tiny
  --per-family N`` (default 1000) in this process, in an empty temporary directory.
- ``unit``: cProfile of one campaign FUZZ unit on ``tiny`` against torch's dp_knapsack (isolated,
  as a campaign runs it) for N seconds (default 20), its events kept in a list, with an example
  database in a temporary directory as a campaign's (so Hypothesis keeps its Pareto front).

Either prints the wall time and the cumulative seconds of the stages a check is made of (the
stage's function, summed over its calls, in the main thread: threads that wait on workers are
not profiled, and what the workers compute is not in this process at all), then the 30
functions of most cumulative time. cProfile slows pure-Python code (Hypothesis, the judge) far
more than C (torch, the solvers' kernels): read the shares, not the seconds, and time with
``studies/check_speed.py``. Run it under the team's lock.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import sys
import tempfile
import time

STAGES = {
    "importing": ("<frozen importlib._bootstrap>", "_find_and_load"),
    "starting workers": ("worker.py", "start"),
    "drawing instances": ("strategies.py", "sample"),
    "Hypothesis's engine (unit)": ("engine.py", "run"),
    "  of which targeting (unit)": ("engine.py", "optimise_targets"),
    "  of which drawing (unit)": ("control.py", "prep_args_kwargs_from_strategies"),
    "  of which its Pareto front (unit)": ("pareto.py", "add"),
    "the oracle": ("optimum.py", "optimum"),
    "judging": ("differential.py", "judged"),
    "by cause": ("by_cause.py", "explained"),
    "waiting for a worker's answer": ("worker.py", "_receive"),
    "solvers in this process": ("outcome.py", "call_in_process"),
    "shrinking": ("check.py", "shrink"),
}


def stage_seconds(stats: pstats.Stats) -> dict[str, float]:
    found = dict.fromkeys(STAGES, 0.0)
    # pstats keeps its table in Stats.stats, an attribute typeshed does not declare.
    for (filename, _, function), (_, _, _, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        for stage, (file_end, name) in STAGES.items():
            if filename.endswith(file_end) and function == name:
                found[stage] = max(found[stage], cumulative)
    return found


def profile_check(count: int) -> cProfile.Profile:
    from knapcheck.commands.cli import main

    profile = cProfile.Profile()
    with tempfile.TemporaryDirectory() as directory:
        os.chdir(directory)
        profile.enable()
        try:
            main(["check", "--targets", "torch:dp_knapsack", "--families", "tiny", "--per-family", str(count)])
        except SystemExit:
            pass
        profile.disable()
    return profile


def profile_unit(seconds: float) -> cProfile.Profile:
    from knapcheck.fuzz.campaign.events import Tally
    from knapcheck.fuzz.campaign.run import campaign_entries
    from knapcheck.fuzz.campaign.units import FUZZ, Setup, Unit, UnitRun
    from knapcheck.solvers.isolation.worker import current_pool
    from knapcheck.solvers.registry import resolve

    entries = campaign_entries(resolve("torch:dp_knapsack"), 60.0)
    current_pool().start(list(entries))
    cases = []
    profile = cProfile.Profile()
    with tempfile.TemporaryDirectory() as database:
        setup = Setup(entries, time.time() + seconds, database, "events", "stop", 60.0)
        unit = UnitRun(setup, Unit(1, FUZZ, family="tiny", seed=1, seconds=seconds),
                       lambda event: cases.append(event.cases) if isinstance(event, Tally) else None, lambda: False)
        profile.enable()
        unit.run()
        profile.disable()
    print(f"{sum(cases)} cases in {seconds:g} s")
    return profile


def main() -> None:
    what = sys.argv[1] if len(sys.argv) > 1 else "check"
    amount = float(sys.argv[2]) if len(sys.argv) > 2 else (1000 if what == "check" else 20)
    start = time.monotonic()
    profile = profile_check(int(amount)) if what == "check" else profile_unit(amount)
    wall = time.monotonic() - start
    stats = pstats.Stats(profile, stream=sys.stdout)
    print(f"\n{what}: {wall:.1f} s under cProfile; cumulative seconds by stage (main thread):")
    for stage, seconds in stage_seconds(stats).items():
        print(f"  {stage:32} {seconds:7.2f}")
    stats.sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
