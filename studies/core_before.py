"""expanding_core as it was at a git revision, as a solver file any knapcheck command can load.

    python studies/core_before.py REVISION [DIRECTORY]

copies that revision's solvers/expanding_core.py and its search (the package solvers/core/, or
before it was one, the single module solvers/core_search.py) into DIRECTORY, under a package name
of their own so that they import nothing of today's search, and prints the spec to pass to
``knapcheck bench --solvers`` or ``--baselines``, so that the implementation before a change is
measured side by side with today's in one run, e.g.

    knapcheck bench --solvers expanding_core --baselines "$(python studies/core_before.py main)" \\
        --rows pisinger-classes --clock cpu --repeats 3

Everything else (the contract's validation and quantization) is today's. DIRECTORY defaults to one
under the system's temporary folder named after the revision's commit, so that numba's on-disk cache
of the old search survives between runs: the copies' cache digests (``HELPERS_DIGEST``,
``ENTRY_DIGEST``) are recomputed for the copied sources, or every process would compile the old
search again.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SINGLE_IMPORT = "from knapcheck.solvers.core_search import "
SINGLE_LOCAL_IMPORT = """import sys as _sys
from pathlib import Path as _Path

# An importable module, so that numba's cache of the old search loads in every process.
_sys.path.insert(0, str(_Path(__file__).parent))
from core_search_before import """
SPEC_FILE = '''"""expanding_core at {commit}, copied by studies/core_before.py."""
import sys as _sys
from pathlib import Path as _Path

# An importable package, so that numba's cache of the old search loads in every process.
_sys.path.insert(0, str(_Path(__file__).parent))
from {package}.expanding_core import expanding_core
'''
DIGESTS = (("core/search.py", "HELPERS_DIGEST", "core.search", "helpers_digest"),
           ("expanding_core.py", "ENTRY_DIGEST", "expanding_core", "entry_digest"))
"""Each copied file that names a cache digest, the constant, its module and the function that computes it."""


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def source(revision: str, path: str) -> str:
    done = git("show", f"{revision}:{path}")
    if done.returncode != 0:
        raise SystemExit(f"core_before.py: no {path} at {revision!r}: {done.stderr.strip()}")
    return done.stdout


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def core_modules(revision: str) -> list[str]:
    """The modules of the revision's search package (empty before the search was a package)."""
    listed = git("ls-tree", "--name-only", f"{revision}:solvers/core")
    if listed.returncode != 0:
        return []
    return sorted(name for name in listed.stdout.split() if name.endswith(".py"))


def materialize_single(revision: str, directory: Path) -> Path:
    wrapper = source(revision, "solvers/expanding_core.py")
    if SINGLE_IMPORT not in wrapper:
        raise SystemExit(f"core_before.py: solvers/expanding_core.py at {revision!r} does not import the search as expected")
    write_if_changed(directory / "core_search_before.py", source(revision, "solvers/core_search.py"))
    target = directory / "expanding_core_before.py"
    write_if_changed(target, wrapper.replace(SINGLE_IMPORT, SINGLE_LOCAL_IMPORT))
    return target


def materialize_package(revision: str, commit: str, modules: list[str], directory: Path) -> Path:
    package = f"knapcheck_core_{commit}"
    local = directory / package
    (local / "core").mkdir(parents=True, exist_ok=True)
    write_if_changed(local / "__init__.py", "")

    def rewritten(text: str) -> str:
        return re.sub(r"\bknapcheck\.solvers\.core\b", f"{package}.core", text)

    for name in modules:
        write_if_changed(local / "core" / name, rewritten(source(revision, f"solvers/core/{name}")))
    wrapper = rewritten(source(revision, "solvers/expanding_core.py"))
    if f"{package}.core" not in wrapper:
        raise SystemExit(f"core_before.py: solvers/expanding_core.py at {revision!r} does not import the search as expected")
    write_if_changed(local / "expanding_core.py", wrapper)
    for path, constant, module, function in DIGESTS:
        # In order: the entry's digest covers core/search.py, whose helpers' digest is set first.
        digest = subprocess.run(
            [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(directory)!r}); import {package}.{module} as m; print(m.{function}())"],
            capture_output=True,
            text=True,
        )
        text = (local / path).read_text()
        if digest.returncode == 0 and f"{constant} = " in text:
            write_if_changed(local / path, re.sub(rf'{constant} = "[0-9a-f]*"', f'{constant} = "{digest.stdout.strip()}"', text))
    target = directory / "expanding_core_before.py"
    write_if_changed(target, SPEC_FILE.format(commit=commit, package=package))
    return target


def materialize(revision: str, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    modules = core_modules(revision)
    if not modules:
        return materialize_single(revision, directory)
    commit = git("rev-parse", "--short", f"{revision}^{{commit}}").stdout.strip()
    return materialize_package(revision, commit, modules, directory)


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    revision = argv[0]
    commit = git("rev-parse", "--short", f"{revision}^{{commit}}")
    if commit.returncode != 0:
        print(f"core_before.py: unknown revision {revision!r}", file=sys.stderr)
        return 2
    directory = Path(argv[1]) if len(argv) == 2 else Path(tempfile.gettempdir()) / f"knapcheck-core-{commit.stdout.strip()}"
    print(f"{materialize(revision, directory)}:expanding_core")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
