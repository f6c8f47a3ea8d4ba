"""expanding_core while numba's cache is cold: plain Python, with the same answers, while one
background process compiles the compiled functions and leaves the mark."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings

from knapcheck.fuzz.instances import families
from knapcheck.solvers import compilation
from knapcheck.solvers import expanding_core as expanding_core_module
from knapcheck.solvers.contract import SCALE

BACKGROUND_SECONDS = 300


def _answer(instance, compiled: bool):
    try:
        return expanding_core_module.solve(instance.memory, instance.runtimes, instance.max_memory, SCALE, compiled=compiled)
    except Exception as exc:
        return type(exc), str(exc)


@settings(max_examples=300)
@given(families.any_instance())
def test_the_plain_path_answers_as_the_compiled_one(instance):
    """The same saved set, not only the same value: an exact target's two calls that differ are
    NONDETERMINISTIC, and the cache may become warm between them."""
    assert _answer(instance, compiled=False) == _answer(instance, compiled=True)


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """This process as it starts with knapcheck's cache in tmp_path, which holds no mark."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    compilation.mark.cache_clear()
    monkeypatch.setattr(compilation, "_ready", False)
    monkeypatch.setattr(compilation, "_started", False)
    monkeypatch.setattr(compilation, "_next_look", 0.0)
    yield compilation.mark()
    compilation.mark.cache_clear()


def test_a_cold_cache_is_compiled_in_the_background_while_calls_run_in_plain_python(cold, monkeypatch):
    compiled_calls, started = [], []
    real_compiled, real_popen = expanding_core_module.compiled_solve, subprocess.Popen
    monkeypatch.setattr(expanding_core_module, "compiled_solve", lambda *a: compiled_calls.append(a) or real_compiled(*a))
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(real_popen(*a, **k)) or started[-1])
    answers = [expanding_core_module.expanding_core([0.1, 0.2], [1.0, 2.0], 0.2) for _ in range(50)]
    assert compiled_calls == [] and len(started) == 1, "plain Python, and one background compilation"
    assert started[0].wait(BACKGROUND_SECONDS) == 0 and cold.exists()
    monkeypatch.setattr(compilation, "_next_look", 0.0)
    assert expanding_core_module.expanding_core([0.1, 0.2], [1.0, 2.0], 0.2) == answers[0]
    assert compiled_calls and len(started) == 1, "the compiled code once the mark is there"


def test_a_second_background_compilation_leaves_it_to_the_one_that_holds_the_lock(cold):
    with open(cold.with_name(f".{cold.name}.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run([sys.executable, "-c", compilation._COMPILE_ALL], timeout=120)
    assert done.returncode == 0 and not cold.exists()


def test_the_mark_follows_numba_s_cache_directory(cold, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cold.parent / "elsewhere"))
    compilation.mark.cache_clear()
    assert compilation.mark() != cold


def test_a_process_that_times_solvers_compiles_first(cold, monkeypatch):
    monkeypatch.setattr(compilation, "compile_entry", lambda name: None)
    compilation.compile_where_loaded()
    assert cold.exists() and compilation.ready()
    monkeypatch.setattr(time, "monotonic", lambda: 0.0)
    assert compilation.ready(), "ready for good, without looking again"
