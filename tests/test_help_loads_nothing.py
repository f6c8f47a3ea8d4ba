"""`knapcheck CMD --help` and `knapcheck --version` load nothing they do not print.

Each runs in a fresh interpreter that records, with an audit hook, every file it opens; afterwards
it reports which heavy packages ended up in ``sys.modules``. Help is read by someone deciding what
to run: it must answer at once, without torch, Hypothesis, OR-Tools or the corpora.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import cast

import pytest

from knapcheck.commands.cli import COMMANDS

HEAVY = ("torch", "hypothesis", "ortools", "numpy", "numba", "scipy", "dask", "distributed", "redis", "rich", "triton")


def _package_folder(name: str) -> Path:
    """An installed package's folder, found without importing it."""
    spec = cast(ModuleSpec, importlib.util.find_spec(name))  # installed: found
    return Path(cast("list[str]", spec.submodule_search_locations)[0]).resolve()  # a package's spec has its folders


CORPUS = _package_folder("knapcheck.fuzz.corpus")
"""The corpora's folder: their JSON files lie there beside the code that reads them."""

PROBE = """\
import contextlib, io, json, sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" and isinstance(args[0], str) else None)
from knapcheck.commands.cli import main
shown = io.StringIO()
with contextlib.redirect_stdout(shown):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exit:
        code = exit.code
heavy = sorted({name.split(".")[0] for name in sys.modules} & set(HEAVY))
print(json.dumps({"code": code, "shown": shown.getvalue(), "heavy": heavy, "opened": opened}))
"""


def _probe(args: list[str], cwd: Path) -> dict:
    script = f"HEAVY = {HEAVY!r}\n{PROBE}"
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=cwd, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("args", [["--help"], ["--version"], *([name, "--help"] for name in COMMANDS)], ids=" ".join)
def test_help_and_version_import_no_heavy_package_and_read_no_corpus(args, tmp_path):
    found = _probe(args, tmp_path)
    assert found["code"] == 0
    assert found["shown"].startswith("usage: knapcheck") or args == ["--version"]
    assert found["heavy"] == [], f"knapcheck {' '.join(args)} imported {found['heavy']}"
    corpus_files = [path for path in found["opened"] if Path(path).resolve().is_relative_to(CORPUS) and path.endswith(".json")]
    assert corpus_files == [], f"knapcheck {' '.join(args)} read {corpus_files}"


def test_the_probe_sees_what_a_real_command_loads(tmp_path):
    """The same probe on a command that does work: it must see the corpus read and Hypothesis imported."""
    found = _probe(["check", "--targets", "full_table", "--families", "tiny", "--per-family", "1"], tmp_path)
    assert found["code"] == 0
    assert any(Path(path).name == "known_failures.json" for path in found["opened"])
