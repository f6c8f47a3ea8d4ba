"""One seed, one list: the same instances in every process, whatever it imported, and nothing
written into the user's directory.

Hypothesis's own provider draws, now and then, a literal collected from the source of the modules
the process has imported (and caches them in ``.hypothesis/constants`` in the working directory):
`check` and `report` judged different samples from the same seed (torch's dp_knapsack: 851/78/104
verdicts against 854/80/99), and a finding of a report could not be re-run with `check --seed`.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.instances import families

ROOT = Path(__file__).resolve().parent.parent
DRAW = """
import hashlib, sys
{imports}
from knapcheck.fuzz.judging.verdicts.differential import instance_id
from knapcheck.fuzz.instances import families
ids = [instance_id(i) for name in {names!r} for i in families.get(name).draw(25, 7)]
print(hashlib.sha256(",".join(ids).encode()).hexdigest())
"""
NAMES = ["tiny", "tight_budget", "zero_items", "float_runtimes", "pisinger_spanner_uncorrelated"]
CONSTANTS = "ODD = [4099, 0.0003, 123456789, -77, 2.5e-7, 16777217]\n"
"""A local module full of literals Hypothesis's provider would pick up."""


def draw_in_a_fresh_process(cwd: Path, imports: str = "") -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(cwd), str(ROOT / "tests")]))
    done = subprocess.run([sys.executable, "-c", DRAW.format(imports=imports, names=NAMES)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_two_processes_that_import_different_modules_draw_the_same_instances(tmp_path):
    (tmp_path / "user_constants.py").write_text(CONSTANTS)
    plain = draw_in_a_fresh_process(tmp_path)
    loaded = draw_in_a_fresh_process(
        tmp_path,
        "import user_constants, knapcheck.reports.regression_report, knapcheck.measure.bench, knapcheck.fuzz.campaign.run",
    )
    assert plain == loaded
    assert not (tmp_path / ".hypothesis").exists()


def test_the_draw_is_the_same_in_this_process_as_in_a_fresh_one(tmp_path):
    import hashlib

    from knapcheck.fuzz.judging.verdicts.differential import instance_id

    here = [instance_id(i) for name in NAMES for i in families.get(name).draw(25, 7)]
    assert hashlib.sha256(",".join(here).encode()).hexdigest() == draw_in_a_fresh_process(tmp_path)


def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tests"))
    return subprocess.run([sys.executable, "-m", "knapcheck", *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)


def test_check_and_report_judge_the_same_instances_and_write_nothing_in_the_working_directory(tmp_path):
    """Every JSON output names its instances by a hash of their content."""
    work = tmp_path / "checkout"
    work.mkdir()
    (work / "user_constants.py").write_text(CONSTANTS)
    (work / "instance.json").write_text(json.dumps({"memory": [0.0001, 0.0002], "runtimes": [1, 2], "max_memory": 0.0002}))
    options = ["--families", "tiny", "zero_items", "--per-family", "15", "--seed", "3"]
    checked = run(work, "check", "--targets", "full_table", *options, "--json", str(tmp_path / "check.json"))
    assert checked.returncode == 0, checked.stderr
    reported = run(work, "report", "--candidate", "full_table", *options, "--bench-repeats", "0", "--out", str(tmp_path / "r"))
    assert reported.returncode == 0, reported.stderr
    solved = run(work, "solve", "full_table", "instance.json", "--json")
    assert solved.returncode == 0, solved.stderr
    assert sorted(p.name for p in work.iterdir()) == ["instance.json", "user_constants.py"]

    check_json = json.loads((tmp_path / "check.json").read_text())
    report_json = json.loads((tmp_path / "r" / "report.json").read_text())["correctness"]
    assert check_json["sources"] == report_json["sources"]
    assert {s["name"]: s["instances"] for s in check_json["sources"]} == {
        "tiny": 15, "zero_items": 15, "regression corpus": len(load_known_failures())}
    (result,) = json.loads(solved.stdout)["results"]
    assert len(result["instance_id"]) == 16


FUZZ_UNITS = """
import hashlib
{imports}
from knapcheck.fuzz.campaign.units import FUZZ, Setup, Unit, UnitRun
from knapcheck.fuzz.judging.verdicts.differential import instance_id

DRAWS = 60


class Recording(UnitRun):
    # A FUZZ unit that only notes the instances it draws, and stops after DRAWS of them.

    seen = None

    def examine(self, chunk, name, oracles=None):
        self.seen.extend(instance_id(instance) for instance in chunk)
        del self.seen[DRAWS:]
        self.stopping = len(self.seen) >= DRAWS
        return []


ids = []
setup = Setup((), float("inf"), None, "events", "stop", 60.0, seeded=True)
for family in {names!r}:
    unit = Recording(setup, Unit(1, FUZZ, family=family, seed=11, seconds=1e9), lambda event: None, lambda: False)
    unit.seen = []
    unit.run()
    ids += unit.seen
print(hashlib.sha256(",".join(ids).encode()).hexdigest(), len(ids))
"""


def test_a_campaign_s_shards_draw_the_same_instances_from_the_same_seed_whatever_the_process_imported(tmp_path):
    """A campaign run again with its --seed draws its shards' instances again: the seeded provider,
    as check and report use; Hypothesis's own drew literals from the modules the process imported."""
    (tmp_path / "user_constants.py").write_text(CONSTANTS)
    script = FUZZ_UNITS.format(imports="{imports}", names=NAMES)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT / "tests")]))

    def draw(imports: str) -> str:
        done = subprocess.run([sys.executable, "-c", script.format(imports=imports)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    plain = draw("")
    assert plain.endswith(f" {60 * len(NAMES)}")
    assert draw("import user_constants, knapcheck.reports.campaign_report, knapcheck.measure.bench") == plain
    assert not (tmp_path / ".hypothesis").exists()
