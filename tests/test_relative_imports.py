"""A candidate file with relative imports loads as a module of its package tree.

PyTorch's own files import relatively (``from .graph_info_provider import ...``), so a pull
request's ``knapsack.py`` may too. The commands run from a temporary directory, through the real
command line and the isolated worker that loads every file target.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from knapcheck.solvers import specs

PACKAGE = Path("pr/torch/_functorch/_activation_checkpointing")
CANDIDATE = f"{PACKAGE}/knapsack.py:dp_knapsack"

ENUMERATING_SOLVER = '''
def dp_knapsack(memory, runtimes, max_memory):
    """Exact by enumeration over the quantized weights (small problems only)."""
    weights, capacity = quantized(memory, max_memory)
    n = len(memory)
    best, chosen = 0.0, []
    for mask in range(1 << n):
        picked = [i for i in range(n) if mask >> i & 1]
        value = sum(runtimes[i] for i in picked)
        if sum(weights[i] for i in picked) <= capacity and value > best:
            best, chosen = value, picked
    return best, chosen, [i for i in range(n) if i not in chosen]
'''


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A pull request's checkout of torch: a package tree whose top __init__.py cannot be imported
    from source, a knapsack.py importing a sibling (``.helpers``) and a module one level up
    (``..config_values``), and the installed torch by its absolute name."""
    _write(tmp_path / "pr/torch/__init__.py", 'raise ImportError("a source checkout of torch cannot be imported")\n')
    _write(tmp_path / "pr/torch/_functorch/__init__.py", "")
    _write(tmp_path / "pr/torch/_functorch/config_values.py", "SCALE = 10_000\n")
    _write(tmp_path / PACKAGE / "__init__.py", "")
    _write(tmp_path / PACKAGE / "helpers.py", (
        "from ..config_values import SCALE\n\n\n"
        "def quantized(memory, max_memory):\n"
        "    return [round(m * SCALE) for m in memory], round(max_memory * SCALE)\n"
    ))
    _write(tmp_path / PACKAGE / "knapsack.py", (
        "from torch._functorch._activation_checkpointing.knapsack import dp_knapsack as upstream  # the installed torch\n"
        "from .helpers import quantized\n" + ENUMERATING_SOLVER
    ))
    _write(tmp_path / "instance.json", '{"memory": [0.1, 0.2, 0.3], "runtimes": [1.0, 2.0, 4.0], "max_memory": 0.4}')
    return tmp_path


def knapcheck(cwd: Path, *args: str, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "knapcheck", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600
    )


def test_solve_loads_a_candidate_that_imports_its_siblings_and_its_parent_package(tree):
    done = knapcheck(tree, "solve", CANDIDATE, "instance.json")
    assert done.returncode == 0, done.stderr
    assert "verdict:      OPTIMAL" in done.stdout


def test_check_loads_it_as_a_target(tree):
    done = knapcheck(tree, "check", "--targets", CANDIDATE, "--families", "tiny", "--per-family", "3")
    assert done.returncode == 0, done.stderr
    assert "passed (1 gated solvers)" in done.stdout


def test_a_directory_without_init_is_still_the_file_s_package(tmp_path):
    _write(tmp_path / "flat/helpers.py", "SCALE = 10_000\n\n\ndef quantized(memory, max_memory):\n"
           "    return [round(m * SCALE) for m in memory], round(max_memory * SCALE)\n")
    _write(tmp_path / "flat/knapsack.py", "from .helpers import quantized\n" + ENUMERATING_SOLVER)
    _write(tmp_path / "instance.json", '{"memory": [0.1, 0.2], "runtimes": [1.0, 2.0], "max_memory": 0.2}')
    done = knapcheck(tmp_path, "solve", "flat/knapsack.py:dp_knapsack", "instance.json")
    assert done.returncode == 0, done.stderr
    assert "verdict:      OPTIMAL" in done.stdout


def test_an_import_beyond_the_tree_says_what_to_do_and_the_advice_works(tmp_path):
    _write(tmp_path / "lib/shared.py", "SCALE = 10_000\n\n\ndef quantized(memory, max_memory):\n"
           "    return [round(m * SCALE) for m in memory], round(max_memory * SCALE)\n")
    _write(tmp_path / "lib/inner/knapsack.py", "from ..shared import quantized\n" + ENUMERATING_SOLVER)
    _write(tmp_path / "instance.json", '{"memory": [0.1, 0.2], "runtimes": [1.0, 2.0], "max_memory": 0.2}')

    failed = knapcheck(tmp_path, "solve", "lib/inner/knapsack.py:dp_knapsack", "instance.json")
    assert failed.returncode == 2
    (line,) = failed.stderr.strip().splitlines()
    assert "attempted relative import beyond top-level package" in line
    assert "name it as package.module:NAME and set PYTHONPATH to the directory that holds the package" in line

    advised = knapcheck(tmp_path, "solve", "lib.inner.knapsack:dp_knapsack", "instance.json", pythonpath=tmp_path)
    assert advised.returncode == 0, advised.stderr
    assert "verdict:      OPTIMAL" in advised.stdout


def test_a_module_that_is_not_on_the_path_says_so(tmp_path):
    done = knapcheck(tmp_path, "check", "--targets", "lib.inner.knapsack:dp_knapsack")
    assert done.returncode == 2
    assert done.stderr.strip().endswith("No module named 'lib' (is the directory that holds it on PYTHONPATH?)")


def test_one_file_is_imported_once_whatever_names_it(tmp_path):
    _write(tmp_path / "pkg/__init__.py", "")
    _write(tmp_path / "pkg/helpers.py", "LOADS = []\n")
    _write(tmp_path / "pkg/knapsack.py", (
        "from .helpers import LOADS\nLOADS.append(1)\n\n\n"
        "def first(memory, runtimes, max_memory):\n    return 0.0, [], list(range(len(memory)))\n\n\n"
        "def second(memory, runtimes, max_memory):\n    return 0.0, [], list(range(len(memory)))\n"
    ))
    first = specs.load(f"{tmp_path}/pkg/knapsack.py:first")
    second = specs.load(f"{tmp_path}/pkg/knapsack.py:second")
    assert first.__globals__ is second.__globals__
    assert first.__globals__["LOADS"] == [1]


def test_a_failed_load_leaves_no_module_behind_and_names_the_package_as_written(tmp_path):
    _write(tmp_path / "mypkg/__init__.py", "helper = 1\n")
    _write(tmp_path / "mypkg/knapsack.py", "from . import helper\n")
    before = set(sys.modules)
    with pytest.raises(ValueError) as raised:
        specs.load(f"{tmp_path}/mypkg/knapsack.py:solve")
    message = str(raised.value)
    assert "cannot import name 'helper' from 'mypkg'" in message and "knapcheck_target" not in message
    assert "name it as package.module:NAME" in message
    assert {name for name in set(sys.modules) - before if name.startswith("knapcheck_target")} == set()
