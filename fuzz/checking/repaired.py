"""A candidate with its baseline's known defects repaired in its own source: the intervention.

For a candidate compared with a baseline, every known defect of the baseline that carries a repair
for the baseline's function (``knapcheck.fuzz.checking.defects``) is tried on the candidate's own
function (``knapcheck.fuzz.checking.source_repair``). Those that apply make the repaired
candidate: the candidate's file with the repairs, written to a directory of knapcheck's own, and
loaded where the candidate's file or module sits (``<SOURCE.py`` in ``knapcheck.solvers.specs``),
so that it imports what the candidate imports. ``knapcheck.fuzz.checking.by_cause`` checks it on
the candidate's failures.

``repaired_file`` applies every known defect's repair to each function of one file that has it:
the upstream patch `knapcheck repair` writes.
"""

from __future__ import annotations

import atexit
import importlib.util
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from knapcheck.fuzz.checking.defects import Cause, catalogue
from knapcheck.fuzz.checking.source_repair import Applied, Repair, RepairedSource, function_lines, repaired
from knapcheck.fuzz.corpus.atomic_write import write_atomically
from knapcheck.fuzz.corpus.regression import RegressionCase
from knapcheck.solvers import specs
from knapcheck.solvers.cache import content_names
from knapcheck.solvers.cache.user_directory import keep, private_directory
from knapcheck.solvers.entry import SolverEntry


@dataclass(frozen=True)
class Intervention:
    """What repairing the baseline's known defects did to one candidate."""

    candidate: str
    """The candidate's name."""
    results: tuple[Applied, ...]
    """Every repair tried: the lines it changed, or why it did not apply."""
    entry: SolverEntry | None = None
    """The repaired candidate; None when no repair applies."""

    @property
    def applied(self) -> tuple[str, ...]:
        """The defects repaired."""
        return tuple(r.cause for r in self.results if r.applied)

    @property
    def not_applied(self) -> tuple[Applied, ...]:
        return tuple(r for r in self.results if not r.applied)


def source_file(spec: specs.Spec) -> Path | str:
    """The file of a ``file``, ``torch`` or ``module`` spec's code, or why it has none that can be read."""
    if spec.kind == "file":
        return Path(spec.where)
    try:
        found = importlib.util.find_spec(spec.module)
    except (ImportError, ValueError) as exc:
        return f"its module {spec.module} cannot be found ({type(exc).__name__}: {exc})"
    origin = getattr(found, "origin", None)
    if origin is None or not origin.endswith(".py"):
        return f"its module {spec.module} has no Python source file"
    return Path(origin)


def repaired_source(spec: specs.Spec, function: str, repairs: Iterable[tuple[str, Repair]]) -> RepairedSource | str:
    """The file of ``spec`` with ``repairs`` applied to ``function``, or why its source cannot be read."""
    path = source_file(spec)
    if isinstance(path, str):
        return path
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"its source {path} cannot be read ({exc})"
    return repaired(text, function, repairs)


def intervention(candidate: SolverEntry, baseline: SolverEntry, defects: Iterable[Cause]) -> Intervention:
    """The candidate with every defect of ``defects`` that has a repair for the baseline's function
    repaired in the candidate's own function."""
    base_function = specs.parse(baseline.spec).name
    repairs = [(cause.name, cause.repairs[base_function]) for cause in dict.fromkeys(defects)
               if base_function in cause.repairs]
    if not repairs:
        return Intervention(candidate.name, ())
    spec = specs.parse(candidate.spec)
    if spec.kind not in ("file", "torch", "module"):
        why = f"{candidate.name} is not loaded from a source file knapcheck could edit"
        return Intervention(candidate.name, tuple(Applied(cause, spec.name, why_not=why) for cause, _ in repairs))
    done = repaired_source(spec, spec.name, repairs)
    if isinstance(done, str):
        return Intervention(candidate.name, tuple(Applied(cause, spec.name, why_not=done) for cause, _ in repairs))
    if not done.applied:
        return Intervention(candidate.name, done.results)
    written = _write(done.source)
    entry = replace(candidate, name=f"{candidate.name}, repaired ({', '.join(r.cause for r in done.applied)})",
                    spec=str(replace(spec, source=str(written))))
    return Intervention(candidate.name, done.results, entry)


@dataclass(frozen=True)
class FileRepair:
    """One file with the known defects of its solvers repaired."""

    path: Path
    original: str
    source: str
    results: tuple[Applied, ...]
    """Every repair tried, in the order of the file's lines."""


def repaired_file(entries: Iterable[SolverEntry], cases: Iterable[RegressionCase]) -> FileRepair:
    """The one file of ``entries``' solvers with each one's known defects (its regression corpus
    cases' causes) repaired in its own function. ValueError (one line) when the solvers' code is not
    in one Python file that can be read."""
    cases = list(cases)
    entries = list(entries)
    paths = set()
    for entry in entries:
        spec = specs.parse(entry.spec)
        path = source_file(spec) if spec.kind in ("file", "torch", "module") else f"{entry.name} has no source file"
        if isinstance(path, str):
            raise ValueError(f"{entry.name}: {path}")
        paths.add(path)
    if len(paths) != 1:
        raise ValueError(f"the solvers named are in {len(paths)} files ({', '.join(sorted(map(str, paths)))}); name one file")
    path = paths.pop()
    try:
        original = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} cannot be read ({exc})") from None
    functions = {specs.parse(e.spec).name: e for e in entries}
    ordered = sorted(functions, key=lambda name: _first_line(original, name), reverse=True)
    source, results = original, []
    for name in ordered:
        defects = [cause for causes in catalogue(functions[name].name, cases).values() for cause in causes]
        done = repaired(source, name, [(c.name, c.repairs[name]) for c in dict.fromkeys(defects) if name in c.repairs])
        source, results = done.source, [*done.results, *results]
    return FileRepair(path, original, source, tuple(results))


def _first_line(source: str, function: str) -> int:
    """Where a function starts in the file (0 where it does not parse or is not there)."""
    lines = function_lines(source, function)
    return 0 if isinstance(lines, str) else lines[0]


_TEMPORARY: list[Path] = []


def _write(source: str) -> Path:
    """``source`` in a file named by its content (``knapcheck.solvers.cache.content_names``: a
    worker runs it only while it holds that content), in knapcheck's cache (``repaired``): every
    process of a run, a campaign's workers too, finds it there, and a run killed before it could
    clean up leaves nothing behind but this one file per repaired source. Where the cache is
    unusable or the file cannot be written there (a full disk), in a private temporary directory
    removed at exit; OSError where it cannot be written there either."""
    content = source.encode()
    name = content_names.name_for(content)
    place = private_directory("repaired")
    if place is not None and (content_names.holds(place / name, content) or keep(place / name, source)):
        return place / name
    path = _temporary_directory() / name
    if not content_names.holds(path, content):
        write_atomically(path, source)
    return path


def _temporary_directory() -> Path:
    """A private directory of this process's own in the temporary directory, removed at exit."""
    if not _TEMPORARY:
        directory = Path(tempfile.mkdtemp(prefix="knapcheck-repaired-"))
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
        _TEMPORARY.append(directory)
    return _TEMPORARY[0]
