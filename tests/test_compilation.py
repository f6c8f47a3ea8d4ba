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
from knapcheck.solvers import expanding_core as expanding_core_module
from knapcheck.solvers.cache import compiled_in_background
from knapcheck.solvers.cache.compiled_in_background import CompiledInBackground
from knapcheck.solvers.contract import SCALE

pytestmark = pytest.mark.usefixtures("numba_compiled")

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
def cold(tmp_path, monkeypatch) -> CompiledInBackground:
    """expanding_core's compiled functions as a process sees them that starts with knapcheck's
    cache in tmp_path, which holds no mark."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    real = expanding_core_module.COMPILED
    fresh = CompiledInBackground(real.name, real.sources, real.cached, real.entries, real.compile_entry, real.background)
    monkeypatch.setattr(expanding_core_module, "COMPILED", fresh)
    monkeypatch.setattr(compiled_in_background, "_LOADED", [fresh])
    assert fresh.mark is not None and not fresh.mark.exists()
    return fresh


def test_a_cold_cache_is_compiled_in_the_background_while_calls_run_in_plain_python(cold, monkeypatch):
    compiled_calls = []
    real_compiled = expanding_core_module.compiled_solve
    monkeypatch.setattr(expanding_core_module, "compiled_solve", lambda *a: compiled_calls.append(a) or real_compiled(*a))
    answers = [expanding_core_module.expanding_core([0.1, 0.2], [1.0, 2.0], 0.2) for _ in range(50)]
    background = cold._started
    assert compiled_calls == [] and background is not None, "plain Python, and a background compilation"
    # (the background process imports expanding_core afresh, so it finds the mark where XDG_CACHE_HOME says)
    assert background.wait(BACKGROUND_SECONDS) == 0 and cold.mark.exists()
    cold._next_look = 0.0
    assert expanding_core_module.expanding_core([0.1, 0.2], [1.0, 2.0], 0.2) == answers[0]
    assert compiled_calls and cold._started is background, "the compiled code once the mark is there"


def test_a_second_background_compilation_leaves_it_to_the_one_that_holds_the_lock(cold):
    with open(cold.lock, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run([sys.executable, "-c", cold.background], timeout=120)
    assert done.returncode == compiled_in_background.LEFT_TO_ANOTHER and not cold.mark.exists(), (
        "it says it left them, so that the process that started it does not take them as compiled")


def test_a_call_that_finds_another_process_compiling_starts_no_compilation_of_its_own(cold):
    with open(cold.lock, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert not cold.ready() and cold._started is None
    cold._next_look = 0.0
    assert not cold.ready() and cold._started is not None, "once the lock is free, it starts one"
    assert cold._started.wait(BACKGROUND_SECONDS) == 0


def test_the_mark_follows_numba_s_cache_directory(cold, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cold.mark.parent / "elsewhere"))
    elsewhere = CompiledInBackground(cold.name, cold.sources, cold.cached, cold.entries, cold.compile_entry, cold.background)
    assert elsewhere.mark != cold.mark


def test_a_process_that_times_solvers_compiles_first(cold, monkeypatch):
    compiled = []
    cold.compile_entry = compiled.append
    compiled_in_background.compile_where_loaded()
    assert compiled == list(cold.entries) and cold.mark.exists() and cold.ready()
    monkeypatch.setattr(time, "monotonic", lambda: 0.0)
    assert cold.ready() and cold._started is None, "ready for good, without a background compilation"


def test_compiling_again_does_not_trust_a_mark(cold):
    """A mark is a hint: numba's cache under it may have been emptied (the test suite's warm-up compiles again)."""
    compiled = []
    cold.compile_entry = compiled.append
    cold.mark_ready()
    cold.compile_here()
    assert compiled == [], "a mark is enough for a plain compile_here"
    cold.compile_here(again=True)
    assert compiled == list(cold.entries) and cold.mark.exists() and cold.ready()


def test_a_lock_that_cannot_be_opened_costs_a_compilation_never_an_error(cold):
    """(A directory where the lock would be: opening it fails as on a read-only or full cache.)
    Calls run in plain Python while this process's own background compilation runs, which compiles
    without the lock and says so by its exit status."""
    cold.lock.mkdir()
    assert not cold.ready() and cold._started is not None
    assert cold._started.wait(BACKGROUND_SECONDS) == 0
    cold._next_look = 0.0
    assert cold.ready()


def test_without_a_usable_cache_directory_a_process_compiles_in_the_background_for_itself(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    real = expanding_core_module.COMPILED
    alone = CompiledInBackground(real.name, real.sources, real.cached, real.entries, real.compile_entry, real.background)
    assert alone.mark is None
    assert not alone.ready() and alone._started is not None, "plain Python while it compiles"
    assert alone._started.wait(BACKGROUND_SECONDS) == 0
    alone._next_look = 0.0
    assert alone.ready()


def test_a_mark_that_cannot_be_written_is_not_an_error(cold, monkeypatch):
    compiled = []
    cold.compile_entry = compiled.append
    monkeypatch.setattr(compiled_in_background, "keep", lambda path, text: False)
    assert cold.compile_here() and compiled == list(cold.entries) and cold.ready()
