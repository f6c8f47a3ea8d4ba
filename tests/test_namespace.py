"""Everything installs under the one name knapcheck, and what was written before that still loads.

Before the namespace our modules were top-level (``solvers``, ``oracles``, ``fuzz``, ``reports``):
a spec, a stored record or a corpus case naming ``solvers.full_table:full_table`` must still mean
our ``full_table``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from knapcheck.fuzz.campaign.store import SCHEMA_VERSION, FailureStore, group_name, record_name
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.known.known import replay
from knapcheck.fuzz.judging.verdicts.signature import Signature
from knapcheck.solvers import registry, specs
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.full_table import full_table

ROOT = Path(__file__).resolve().parent.parent
OLD_SPEC = "solvers.full_table:full_table"
INSTANCE = Instance((0.0003, 0.0002), (1.0, 2.0), 0.0004)


def test_an_old_module_spec_names_the_same_solver():
    assert specs.load(OLD_SPEC) is full_table
    assert registry.resolve_one(OLD_SPEC) is registry.resolve_one("full_table")
    assert specs.current_name(OLD_SPEC) == "knapcheck.solvers.full_table:full_table"


def test_a_module_knapcheck_does_not_have_keeps_its_own_name():
    assert specs.parse("solvers.mine:solve").where == "solvers.mine"
    assert specs.current_name("torch:dp_knapsack") == "torch:dp_knapsack"
    assert specs.current_name("full_table") == "full_table"


def test_a_record_stored_before_the_namespace_is_read_under_the_current_name(tmp_path):
    old_signature = ("solvers.variants:sliding_hirschberg_dp_only", "SUBOPTIMAL")
    record = {
        "schema_version": SCHEMA_VERSION, "solver": old_signature[0], "verdict": old_signature[1],
        "family": "tiny", "ours": False, "exact": True, "origin": "module solvers.variants",
        "detail": "", "found_at": "2026-11-30T00:00:00Z", "instance": INSTANCE.as_dict(),
    }
    group = tmp_path / "failures" / group_name(Signature(*old_signature))
    group.mkdir(parents=True)
    (group / record_name(INSTANCE)).write_text(json.dumps(record))

    store = FailureStore(tmp_path)
    (stored,) = store.groups().values()
    assert stored.solver == "knapcheck.solvers.variants:sliding_hirschberg_dp_only"
    assert stored.instance == INSTANCE and not store.bad_files
    assert registry.resolve_one(stored.solver).load().__module__ == "knapcheck.solvers.variants"


def test_a_corpus_written_before_the_namespace_loads_and_runs(tmp_path):
    corpus = tmp_path / "known_failures.json"
    corpus.write_text(json.dumps({"schema_version": 1, "cases": [{
        "id": "full_table-OVER_BUDGET-0123456789", "solver": OLD_SPEC, "ours": True,
        "verdict": "OVER_BUDGET", "family": "tiny", "origin": "ours", "found_at": "2026-11-30T00:00:00Z",
        "instance": INSTANCE.as_dict(),
    }]}))
    (case,) = load_known_failures(corpus)
    done = replay(case)
    assert done.solver.name == "full_table" and not done.failed


def test_the_wheel_installs_knapcheck_and_nothing_else_at_the_top(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__", ".hypothesis"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(tmp_path), str(source)],
        check=True, capture_output=True, cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("knapcheck-*.whl")
    top = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in top if not t.endswith(".dist-info")} == {"knapcheck"}
    names = set(zipfile.ZipFile(wheel).namelist())
    folders = ["solvers", "oracles", "fuzz", "measure", "reports", "commands"]
    tree = {f"knapcheck/{path.relative_to(ROOT)}" for path in
            [*ROOT.glob("*.py"), *(p for folder in folders for p in (ROOT / folder).rglob("*.py"))]
            if "__pycache__" not in path.parts}
    assert tree - names == set(), "every module of the tree is installed (a sub-package missing from pyproject's list is not)"
    assert not any(name.split("/")[1] in {"tests", "studies", "scripts", "docs"} for name in names), "only the package installs"
    assert {"knapcheck/fuzz/corpus/known_failures.json", "knapcheck/py.typed"} <= names


def test_outside_the_repository_only_knapcheck_is_importable(tmp_path):
    probe = "import importlib.util as u; print([m for m in ('solvers', 'oracles', 'fuzz', 'reports') if u.find_spec(m)])"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert found.stdout.strip() == "[]"
    imported = subprocess.run(
        [sys.executable, "-c", "import knapcheck.solvers.full_table, knapcheck.fuzz.instances.families"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert imported.returncode == 0, imported.stderr
