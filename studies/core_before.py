"""expanding_core as it was at a git revision, as a solver file any knapcheck command can load.

    python studies/core_before.py REVISION [DIRECTORY]

writes DIRECTORY/expanding_core_before.py (and the search it calls, core_search_before.py) from
that revision's solvers/expanding_core.py and solvers/core/search.py, and prints the spec to pass
to ``knapcheck bench --solvers`` or ``--baselines``, so that the implementation before a change is
measured side by side with today's in one run, e.g.

    knapcheck bench --solvers expanding_core --baselines "$(python studies/core_before.py 22b7c0c)" \\
        --rows "harvested corpus" small --repeats 5

DIRECTORY defaults to one under the system's temporary folder named after the revision, so that
numba's on-disk cache of the old search survives between runs. Only revisions whose search is the
single module core.search.py (this study's starting point, 22b7c0c, and those before it) load.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMPORT = "from knapcheck.solvers.core.search import compiled_search, search"
LOCAL_IMPORT = """import sys as _sys
from pathlib import Path as _Path

# An importable module, so that numba's cache of the old search loads in every process.
_sys.path.insert(0, str(_Path(__file__).parent))
from core_search_before import compiled_search, search"""


def source(revision: str, path: str) -> str:
    done = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"core_before.py: no {path} at {revision!r}: {done.stderr.strip()}")
    return done.stdout


def materialize(revision: str, directory: Path) -> Path:
    wrapper = source(revision, "solvers/expanding_core.py")
    if IMPORT not in wrapper:
        raise SystemExit(f"core_before.py: solvers/expanding_core.py at {revision!r} does not import the search as expected")
    directory.mkdir(parents=True, exist_ok=True)
    search = directory / "core_search_before.py"
    text = source(revision, "solvers/core/search.py")
    if not search.exists() or search.read_text() != text:
        search.write_text(text)
    target = directory / "expanding_core_before.py"
    text = wrapper.replace(IMPORT, LOCAL_IMPORT)
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
    return target


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    revision = argv[0]
    commit = subprocess.run(["git", "rev-parse", "--short", f"{revision}^{{commit}}"], cwd=ROOT, capture_output=True, text=True)
    if commit.returncode != 0:
        print(f"core_before.py: unknown revision {revision!r}", file=sys.stderr)
        return 2
    directory = Path(argv[1]) if len(argv) == 2 else Path(tempfile.gettempdir()) / f"knapcheck-core-{commit.stdout.strip()}"
    print(f"{materialize(revision, directory)}:expanding_core")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
