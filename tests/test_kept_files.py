"""What knapcheck keeps in its cache is checked before it is used (docs/threat-model-data.md,
"What a hand-edited cache can change"): a repaired source runs from the bytes whose digest was
checked, never from bytecode beside it; a cache directory that cannot be used is said in one line
and never raises. Kept draws: tests/test_draw_cache.py; compiled marks: tests/test_compilation.py."""

from __future__ import annotations

import importlib.util
import os
import py_compile
import subprocess
import sys

import pytest

from knapcheck.fuzz.judging.known import repaired as repaired_module
from knapcheck.solvers import specs
from knapcheck.solvers.cache import content_names, user_directory

SOLVER = "def solve(memory, runtimes, max_memory):\n    return ({value}, [], list(range(len(memory))))\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(user_directory, "_SAID", [])
    return tmp_path / "cache" / "knapcheck"


def _loaded(target, source) -> float:
    """The value the solver of ``target`` run from ``source``'s code returns (a fresh load)."""
    specs._load.cache_clear()
    for name in [n for n in sys.modules if "_read_from_" in n]:
        del sys.modules[name]
    return specs.load(f"{target}:solve<{source}")([], [], 0.0)[0]


def test_a_repaired_source_runs_from_its_bytes_not_from_bytecode_beside_it(tmp_path, cache):
    """A .pyc of other code, stamped with the source's size and time, lies in its __pycache__:
    Python's own loader would run it."""
    target = tmp_path / "knapsack.py"
    target.write_text(SOLVER.format(value="1.0"))
    written = repaired_module._write(SOLVER.format(value="2.0"))
    other = tmp_path / "other.py"
    other.write_text(SOLVER.format(value="3.0"))
    stamp = written.stat()
    os.utime(other, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    py_compile.compile(str(other), cfile=importlib.util.cache_from_source(str(written)), doraise=True)
    assert _loaded(target, written) == 2.0


def test_loading_a_target_writes_no_bytecode_beside_it(tmp_path):
    target = tmp_path / "knapsack.py"
    target.write_text(SOLVER.format(value="1.0"))
    assert specs.load(f"{target}:solve")([], [], 0.0)[0] == 1.0
    assert not (tmp_path / "__pycache__").exists()


def test_a_repaired_source_edited_after_it_was_written_is_refused_not_run(tmp_path, cache):
    target = tmp_path / "knapsack.py"
    target.write_text(SOLVER.format(value="1.0"))
    written = repaired_module._write(SOLVER.format(value="2.0"))
    written.write_text(SOLVER.format(value="4.0"))
    with pytest.raises(ValueError, match="has changed since knapcheck wrote it"):
        _loaded(target, written)
    assert repaired_module._write(SOLVER.format(value="2.0")) == written, "written again before it is used"
    assert _loaded(target, written) == 2.0


def test_a_content_name_is_the_digest_of_the_content():
    name = content_names.name_for(b"x = 1\n")
    assert name.startswith(content_names.PREFIX) and name.endswith(".py")
    assert content_names.holds_its_content(content_names.Path(name), b"x = 1\n")
    assert not content_names.holds_its_content(content_names.Path(name), b"x = 2\n")
    assert content_names.holds_its_content(content_names.Path("knapsack.py"), b"anything")


def test_a_cache_directory_under_a_file_is_not_used_and_said_once(tmp_path, monkeypatch, capsys):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    monkeypatch.setattr(user_directory, "_SAID", [])
    assert user_directory.private_directory("draws") is None
    assert user_directory.private_directory("compiled") is None
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("knapcheck: the cache ") and "Not a directory" in line


def test_a_cache_directory_others_may_write_is_not_used(cache, capsys):
    cache.joinpath("draws").mkdir(parents=True)
    cache.joinpath("draws").chmod(0o777)
    assert user_directory.private_directory("draws") is None
    assert "no one else may write" in capsys.readouterr().err


def test_a_cache_directory_that_is_a_symbolic_link_is_not_used(cache, tmp_path, capsys):
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    cache.mkdir(parents=True)
    (cache / "draws").symlink_to(tmp_path / "elsewhere")
    assert user_directory.private_directory("draws") is None
    assert "no one else may write" in capsys.readouterr().err


def test_without_a_home_directory_nothing_is_kept_and_nothing_raises(tmp_path):
    """No HOME and no entry in the password database (a container's arbitrary uid)."""
    code = ("import os, pathlib; pathlib.Path.home = lambda: (_ for _ in ()).throw(RuntimeError('no home'));"
            "from knapcheck.solvers.cache.user_directory import private_directory;"
            "print(private_directory('draws'))")
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CACHE_HOME")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "None\n" and "no home directory" in done.stderr


def test_a_write_that_fails_keeps_nothing_and_says_why(cache, capsys):
    place = user_directory.private_directory("repaired")
    assert not user_directory.keep(place / "missing" / "x.py", "x = 1\n")
    assert "No such file or directory" in capsys.readouterr().err
    assert list(place.iterdir()) == []
