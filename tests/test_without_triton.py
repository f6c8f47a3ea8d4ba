"""A CPU install has no triton: every command still works, and the cuda solver says why it cannot run.

Triton is blocked with a ``sitecustomize`` on PYTHONPATH that sets ``sys.modules["triton"] = None``,
so the command and every process it starts (isolated workers, a campaign's workers) see it missing,
as they would after a plain ``pip install knapcheck``.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys

import pytest
from packaging.requirements import Requirement

from knapcheck.commands.cli import main
from knapcheck.solvers import registry

REASON = "needs triton, which is not installed (knapcheck[cuda] installs it)"


@pytest.fixture
def without_triton(tmp_path):
    """Runs ``knapcheck ARGS`` from an empty directory with triton blocked; returns the finished process."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text('import sys\nsys.modules["triton"] = None\n')
    work = tmp_path / "work"
    work.mkdir()
    (work / "instance.json").write_text('{"memory": [0.1, 0.2], "runtimes": [1.0, 2.0], "max_memory": 0.2}')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(blocker), os.environ.get("PYTHONPATH")])))

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "knapcheck", *args], capture_output=True, text=True, cwd=work, env=env, timeout=600
        )

    probe = run("--version")
    assert probe.returncode == 0, probe.stderr
    return run


def test_triton_comes_only_with_the_cuda_and_test_extras():
    requirements = [Requirement(text) for text in importlib.metadata.requires("knapcheck")]
    triton = [r for r in requirements if r.name == "triton"]
    assert triton, "the cuda extra installs triton"
    for requirement in triton:
        assert "extra" in str(requirement.marker)
        assert not requirement.marker.evaluate({"extra": ""}), "a plain install must not pull triton"
    assert {extra for extra in ("cuda", "test") if any(r.marker.evaluate({"extra": extra}) for r in triton)} == {"cuda", "test"}


def test_solvers_lists_cuda_as_unavailable_and_why(without_triton):
    done = without_triton("solvers")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    cuda = next(i for i, line in enumerate(lines) if line.startswith("cuda "))
    details = lines[cuda + 1 : cuda + 3]
    assert any(f"unavailable here: {REASON}" in d for d in details)
    assert not done.stderr


def test_check_skips_cuda_in_one_line_and_checks_the_others(without_triton):
    done = without_triton("check", "--targets", "ours", "--families", "tiny", "--per-family", "2")
    assert done.returncode == 0, done.stderr
    assert f"knapcheck: cuda skipped: it {REASON}" in done.stderr
    assert "Traceback" not in done.stderr
    assert "passed (4 gated solvers)" in done.stdout
    for solver in ("full_table", "sliding_hirschberg", "budget_safe", "expanding_core"):
        assert solver in done.stdout
    assert "cuda" not in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--targets", "cuda", "--families", "tiny", "--per-family", "1"),
        ("solve", "cuda", "instance.json"),
        ("bench", "--solvers", "cuda", "--rows", "n=100 budget=0.1"),
    ],
    ids=["check", "solve", "bench"],
)
def test_naming_cuda_without_triton_is_one_usage_line(without_triton, args):
    done = without_triton(*args)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"knapcheck {args[0]}: cuda {REASON}"]


def test_the_gpu_bench_without_triton_is_one_usage_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "triton", None)
    monkeypatch.setattr("knapcheck.commands.bench_command._cuda_available", lambda: True)
    assert main(["bench", "--device", "cuda", "--baselines"]) == 2
    assert capsys.readouterr().err.strip() == f"knapcheck bench: --device cuda: the cuda solver {REASON}"


def test_with_triton_the_cuda_entry_is_available():
    pytest.importorskip("triton")
    assert registry.resolve_one("cuda").unavailable() is None
