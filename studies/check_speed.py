"""How fast knapcheck's loops run, two installs side by side in one run:

    python studies/check_speed.py --before OTHER/.venv/bin/knapcheck [--after knapcheck] [--rounds 1] PART ...

``--before`` and ``--after`` name the ``knapcheck`` command of two installs (another checkout's
virtual environment, say main's, and this one's); each part runs them in turn, ``--rounds``
times, each run in a fresh empty temporary directory, and prints each one's figure and the ratio
(before / after). The parts:

- ``first``: the newcomer's first check, ``knapcheck check --per-family 2 --families tiny``.
- ``marginal``: ``knapcheck check --targets torch:dp_knapsack --families tiny`` at two
  ``--per-family`` counts (``--low``, ``--high``); the difference in wall time over the difference
  in instances is the marginal cost of one tiny instance. Each command runs once untimed first, so
  each install's sample is drawn and kept (its draw cache), as it is for any run after the first. Beside it (``--after``'s Python), the
  plain loop: the same tiny instances judged in one process by torch's solver, a brute-force
  optimum and the feasibility and value checks, nothing else.
- ``campaign``: ``knapcheck fuzz --time T --jobs 1 --families tiny --targets torch:dp_knapsack``
  (``--campaign-time``, default 60 s): cases per second, from campaign.json.
- ``main``: the README's main job, ``knapcheck check``.
- ``gate``: ``knapcheck report --candidate knapsack.py:F --baseline torch:F --out r`` on an
  unchanged copy of torch's knapsack.py, for each of torch's four functions (``--functions``).
- ``suite``: the README's test command, ``pytest -n auto``, in the checkout each install was made
  from (the folder holding its ``.venv``): wall seconds and pytest's last line. The two checkouts
  may hold different tests; pytest's count says so.

Every run starts with the two installs' numba caches warm (the parts run one ``first`` check of
each install beforehand), so neither pays a compilation the other does not. With ``--cold``, each
run of ``first``, ``main`` and ``gate`` starts instead with an empty numba cache (``NUMBA_CACHE_DIR``
in its fresh directory), as on a fresh clone: the figure a newcomer's first run gets.
Run it under the team's lock (``flock /work/heavy.lock python studies/check_speed.py ...``): the
figures are only comparable with nothing else running; ``uptime`` is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

TORCH_FUNCTIONS = ("greedy_knapsack", "ilp_knapsack", "dp_knapsack", "dp_knapsack_sliding_hirschberg")

PLAIN_LOOP = r"""
import json, math, sys, time
from knapcheck.fuzz.instances import families
from knapcheck.oracles.brute_force import brute_force
from knapcheck.solvers.contract import quantize
from torch._functorch._activation_checkpointing.knapsack import dp_knapsack

low, high = int(sys.argv[1]), int(sys.argv[2])
instances = families.get("tiny").draw(high, 0)[low:]
start = time.perf_counter()
for instance in instances:
    value, saved, _ = dp_knapsack(list(instance.memory), list(instance.runtimes), instance.max_memory)
    best = brute_force(instance)
    weights, capacity = quantize(instance.memory, instance.max_memory)
    feasible = sum(weights[i] for i in saved) <= capacity
    right = value == math.fsum(instance.runtimes[i] for i in saved)
    optimal = math.fsum(instance.runtimes[i] for i in saved) >= best.value
print(json.dumps({"instances": len(instances), "seconds": time.perf_counter() - start}))
"""


def uptime() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(command: list[str], directory: Path, env: dict | None = None) -> tuple[float, int]:
    start = time.monotonic()
    done = subprocess.run(command, cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.monotonic() - start, done.returncode


def cold_environment(directory: Path, cold: bool) -> dict | None:
    """With ``cold``, this environment with an empty numba cache in ``directory``; else None (this one)."""
    return dict(os.environ, NUMBA_CACHE_DIR=str(directory / "numba-cache")) if cold else None


def in_empty_directory(command: list[str], keep: str | None = None, cold: bool = False) -> tuple[float, int, dict | None]:
    """Wall seconds and exit status of ``command`` in a fresh empty directory (with ``cold``, its
    numba cache there too), and the JSON file ``keep`` it wrote there (None when not asked or not written)."""
    with tempfile.TemporaryDirectory() as directory:
        seconds, status = timed(command, Path(directory), cold_environment(Path(directory), cold))
        found = Path(directory) / keep if keep else None
        document = json.loads(found.read_text()) if found is not None and found.exists() else None
    return seconds, status, document


def side_by_side(label: str, installs: dict[str, str], rounds: int, run) -> None:
    """``run(knapcheck)`` -> (figure, text) for each install in turn, ``rounds`` times; the ratio of figures."""
    figures: dict[str, list[float]] = {name: [] for name in installs}
    for round_number in range(rounds):
        for name, knapcheck in installs.items():
            figure, text = run(knapcheck)
            figures[name].append(figure)
            print(f"{label} round {round_number + 1} {name}: {text}", flush=True)
    best = {name: min(values) for name, values in figures.items()}
    if len(best) == 2 and best["after"]:
        print(f"{label}: before/after = {best['before'] / best['after']:.2f} (best of {rounds})", flush=True)


def python_of(knapcheck: str) -> str:
    return str(Path(knapcheck).with_name("python"))


def first(installs, rounds, args) -> None:
    def run(knapcheck):
        seconds, status, _ = in_empty_directory([knapcheck, "check", "--per-family", "2", "--families", "tiny"],
                                                cold=args.cold)
        return seconds, f"{seconds:.1f} s (exit {status})"

    side_by_side("first check", installs, rounds, run)


def marginal(installs, rounds, args) -> None:
    low, high = args.low, args.high
    for knapcheck in installs.values():
        for count in (low, high):
            in_empty_directory([knapcheck, "check", "--targets", "torch:dp_knapsack", "--families", "tiny",
                                "--per-family", str(count)])

    def run(knapcheck):
        walls = []
        for count in (low, high):
            seconds, status, _ = in_empty_directory([knapcheck, "check", "--targets", "torch:dp_knapsack",
                                                     "--families", "tiny", "--per-family", str(count)])
            walls.append(seconds)
        per = (walls[1] - walls[0]) / (high - low) * 1000
        return per, f"{walls[0]:.1f} s at {low}, {walls[1]:.1f} s at {high}: {per:.2f} ms a tiny instance"

    side_by_side("marginal cost", installs, rounds, run)
    plain = subprocess.run([python_of(installs["after"]), "-c", PLAIN_LOOP, str(low), str(high)],
                           capture_output=True, text=True, check=True)
    loop = json.loads(plain.stdout)
    print(f"plain loop: {loop['seconds'] / loop['instances'] * 1000:.3f} ms a tiny instance"
          f" ({loop['instances']} instances, {loop['seconds']:.2f} s)", flush=True)


def campaign(installs, rounds, args) -> None:
    def run(knapcheck):
        seconds, status, report = in_empty_directory(
            [knapcheck, "fuzz", "--time", f"{args.campaign_time:g}s", "--jobs", "1", "--families", "tiny",
             "--targets", "torch:dp_knapsack", "--db", "db", "--out", "out"], keep="out/campaign.json")
        if report is None:
            return 0.0, f"no campaign.json (exit {status}, {seconds:.0f} s)"
        rate = report["cases_per_second"]
        return -rate, f"{rate:.1f} cases/s ({report['cases']} cases; wall {seconds:.0f} s, exit {status})"

    figures: dict[str, float] = {}
    for round_number in range(rounds):
        for name, knapcheck in installs.items():
            figure, text = run(knapcheck)
            figures[name] = max(figures.get(name, 0.0), -figure)
            print(f"campaign round {round_number + 1} {name}: {text}", flush=True)
    if len(figures) == 2 and figures["before"]:
        print(f"campaign: after/before = {figures['after'] / figures['before']:.1f}x the cases per second", flush=True)


def main_job(installs, rounds, args) -> None:
    def run(knapcheck):
        seconds, status, _ = in_empty_directory([knapcheck, "check"], cold=args.cold)
        return seconds, f"{seconds:.0f} s (exit {status})"

    side_by_side("main job", installs, rounds, run)


def torch_knapsack_file(python: str) -> Path:
    found = subprocess.run([python, "-c", "import inspect; from torch._functorch._activation_checkpointing import"
                            " knapsack; print(inspect.getsourcefile(knapsack))"], capture_output=True, text=True, check=True)
    return Path(found.stdout.strip())


def gate(installs, rounds, args) -> None:
    source = torch_knapsack_file(python_of(installs["after"]))
    for function in args.functions:
        def run(knapcheck, function=function):
            with tempfile.TemporaryDirectory() as directory:
                shutil.copy(source, Path(directory) / "knapsack.py")
                seconds, status = timed([knapcheck, "report", "--candidate", f"knapsack.py:{function}",
                                         "--baseline", f"torch:{function}", "--out", "r"], Path(directory),
                                        cold_environment(Path(directory), args.cold))
                report = json.loads((Path(directory) / "r" / "report.json").read_text())
            checking = report["correctness"]["seconds"]
            bench = sum(pair["seconds"] for pair in report["performance"]["pairs"])
            return seconds, f"{seconds:.0f} s (check and shrink {checking:.0f} s, benchmark {bench:.0f} s, exit {status})"

        side_by_side(f"gate {function}", installs, rounds, run)


def checkout_of(knapcheck: str) -> Path:
    """The checkout whose ``.venv`` holds ``knapcheck`` (CHECKOUT/.venv/bin/knapcheck)."""
    venv = Path(knapcheck).absolute().parent.parent
    if venv.name != ".venv" or not (venv.parent / "tests").is_dir():
        raise SystemExit(f"suite: {knapcheck} is not CHECKOUT/.venv/bin/knapcheck of a checkout with tests/")
    return venv.parent


def suite(installs, rounds, args) -> None:
    def run(knapcheck):
        start = time.monotonic()
        done = subprocess.run([python_of(knapcheck), "-m", "pytest", "-n", "auto", "-q", "-p", "no:cacheprovider"],
                              cwd=checkout_of(knapcheck), capture_output=True, text=True)
        seconds = time.monotonic() - start
        last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "no output"
        return seconds, f"{seconds:.0f} s (exit {done.returncode}): {last}"

    side_by_side("suite", installs, rounds, run)


PARTS = {"first": first, "marginal": marginal, "campaign": campaign, "main": main_job, "gate": gate, "suite": suite}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="+", choices=sorted(PARTS))
    parser.add_argument("--before", help="the knapcheck command of the install to compare with (omit: --after alone)")
    parser.add_argument("--after", default=shutil.which("knapcheck"), help="this install's knapcheck command")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--low", type=int, default=100)
    parser.add_argument("--high", type=int, default=2100)
    parser.add_argument("--campaign-time", type=float, default=60.0)
    parser.add_argument("--functions", nargs="+", default=list(TORCH_FUNCTIONS))
    parser.add_argument("--cold", action="store_true",
                        help="first, main and gate: each run with an empty numba cache, as on a fresh clone")
    args = parser.parse_args()
    installs = {"before": args.before, "after": args.after} if args.before else {"after": args.after}
    print(f"{os.cpu_count()} cores; load {uptime()}", flush=True)
    for knapcheck in installs.values():
        in_empty_directory([knapcheck, "check", "--per-family", "1", "--families", "tiny", "--targets", "expanding_core"])
    for part in args.parts:
        PARTS[part](installs, args.rounds, args)
    print(f"load {uptime()}", flush=True)


if __name__ == "__main__":
    main()
