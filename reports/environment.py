"""Where a report was made: Python, torch and its device, the CPU, versions of knapcheck and its oracle."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import subprocess
from pathlib import Path

from ..solvers.isolation import hash_seeds
from ..solvers.isolation.worker import worker_environment

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("torch", "ortools", "hypothesis", "numpy", "scipy")


def installed_version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def knapcheck_version() -> str:
    """The installed distribution's version, else the one in the source tree's pyproject.toml."""
    installed = installed_version("knapcheck")
    if installed:
        return installed
    pyproject = ROOT / "pyproject.toml"
    found = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(), re.M) if pyproject.is_file() else None
    return found.group(1) if found else "unknown"


def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _torch() -> dict:
    import torch

    cuda = torch.cuda.is_available()
    return {
        "version": torch.__version__,
        "cuda_build": torch.version.cuda,
        "cuda_available": cuda,
        "gpu": torch.cuda.get_device_name(0) if cuda else None,
        "threads": torch.get_num_threads(),
        "worker_threads": worker_environment(hash_seeds.FIRST)["OMP_NUM_THREADS"],
    }


def environment() -> dict:
    return {
        "knapcheck": knapcheck_version(),
        "knapcheck_commit": _git_commit(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "torch": _torch(),
        "versions": {package: installed_version(package) for package in PACKAGES},
    }
