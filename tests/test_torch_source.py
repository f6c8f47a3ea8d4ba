"""Naming torch's solvers reads torch's source instead of importing torch, and gives what the import gives."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest
import torch
from torch._functorch._activation_checkpointing import knapsack

from knapcheck.solvers import torch_source


def test_the_installed_torch_s_solvers_and_version_read_from_source_are_those_the_import_gives():
    imported = [name for name, fn in inspect.getmembers(knapsack, inspect.isfunction)
                if fn.__module__ == knapsack.__name__ and not name.startswith("_")]
    imported.sort(key=lambda name: getattr(knapsack, name).__code__.co_firstlineno)
    assert torch_source.solver_names() == imported
    assert torch_source.version() == torch.__version__


RESOLVES_TORCH = """
import sys
from knapcheck.solvers.registry import resolve_all
entries = resolve_all(["torch", "torch:dp_knapsack"])
print([(e.name, e.origin) for e in entries], "torch" in sys.modules)
"""


def test_a_process_that_names_torch_s_solvers_does_not_import_torch():
    done = subprocess.run([sys.executable, "-c", RESOLVES_TORCH], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    names = [f"torch:{name}" for name in torch_source.solver_names() or []]
    assert done.stdout.strip() == f"{[(name, f'torch {torch.__version__}') for name in names]} False"


PLAIN = '''"""A module."""
import torch
from typing import Optional

LIMIT: int = 3


class Helper:
    pass


def _private(x):
    return x


def first(memory, runtimes, max_memory):
    return 0.0, [], []


def second(memory, runtimes, max_memory):
    return first(memory, runtimes, max_memory)
'''


def test_a_module_of_plain_definitions_is_read_in_definition_order():
    assert torch_source.functions_defined(PLAIN) == ["first", "second"]


@pytest.mark.parametrize("added", [
    "@torch.no_grad()\ndef third(memory, runtimes, max_memory):\n    pass\n",
    "if LIMIT:\n    def third(memory, runtimes, max_memory):\n        pass\n",
    "first = Helper()\n",
    "from elsewhere import second\n",
    "globals()['third'] = first\n",
    "third = staticmethod(first)\n",
    "async def third(memory, runtimes, max_memory):\n    pass\n",
    "def broken(:\n",
], ids=["decorated", "conditional", "rebound", "imported over", "a subscript bound", "a call", "async", "not Python"])
def test_what_the_source_cannot_settle_is_left_to_the_import(added):
    assert torch_source.functions_defined(PLAIN + added) is None


@pytest.mark.parametrize("source, version", [
    ("__version__ = '2.13.0+cpu'\ndebug = False\n", "2.13.0+cpu"),
    ("__version__ = '2.13.0'\n__version__ = '2.14.0'\n", None),
    ("__version__ = compute()\n", None),
    ("if True:\n    __version__ = '2.13.0'\n", None),
    ("version = '2.13.0'\n", None),
])
def test_the_version_is_read_only_where_it_is_one_plain_string(source, version):
    assert torch_source.version_set(source) == version
