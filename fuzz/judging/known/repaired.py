"""A candidate with its baseline's known defects repaired in its own source: the intervention.

For a candidate compared with a baseline, every known defect of the baseline that carries a repair
for the baseline's function (``knapcheck.fuzz.judging.known.defects``) is tried on the candidate's own
function (``knapcheck.fuzz.judging.known.source_repair``). Those that apply make the repaired
candidate: the candidate's file with the repairs, written to a directory of knapcheck's own, and
loaded where the candidate's file or module sits (``<SOURCE.py`` in ``knapcheck.solvers.specs``),
so that it imports what the candidate imports. ``knapcheck.fuzz.judging.known.by_cause`` checks it on
the candidate's failures.

``repaired_file`` applies every known defect's repair to each function of one file that has it:
the upstream patch `knapcheck repair` writes.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from ....solvers import specs
from ....solvers.cache import content_names
from ....solvers.cache.user_directory import keep, private_directory
from ....solvers.entry import SolverEntry
from ....solvers.files.reader import UnreadableFile, read_text
from ...corpus.atomic_write import write_atomically
from ...corpus.known_failures import KnownFailure
from .defects import Cause, catalogue
from .source_repair import Applied, Repair, function_lines, repaired


@dataclass(frozen=True)
class Intervention:
    """What repairing the baseline's known defects did to one candidate."""

    candidate: str
    """The candidate's name."""
    results: tuple[Applied, ...]
    """Every repair tried, each alone on the candidate's source: the lines it changed, or why it
    does not apply (or does not fit: ``knapcheck.fuzz.judging.known.repair_fit``)."""
    source: str = ""
    """The candidate's source the repairs were made in: the text read once, when the intervention was made."""
    digest: str = ""
    """sha256 of ``source``."""

    @property
    def applied(self) -> tuple[str, ...]:
        """The defects repaired."""
        return tuple(r.cause for r in self.results if r.applied)

    @property
    def not_applied(self) -> tuple[Applied, ...]:
        return tuple(r for r in self.results if not r.applied)


def source_file(spec: specs.Spec) -> Path | str:
    """The file of a ``file``, ``torch`` or ``module`` spec's code (its ``<SOURCE.py`` where it has
    one), or why it has none that can be read."""
    if spec.source:
        return Path(spec.source)
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


def read_source(spec: specs.Spec) -> str | ValueError:
    """The text of the file of ``spec``'s code, or why it cannot be read (a ValueError, returned)."""
    path = source_file(spec)
    if isinstance(path, str):
        return ValueError(path)
    try:
        return read_text(path)
    except UnreadableFile as exc:
        return ValueError(f"its source {path} cannot be read ({exc.reason})")


def source_digest(spec_text: str) -> str:
    """sha256 of the source a ``file`` spec (or one read from ``<SOURCE.py``) names; '' for any
    other spec or a file that cannot be read."""
    try:
        spec = specs.parse(spec_text)
    except ValueError:
        return ""
    if spec.kind != "file" and not spec.source:
        return ""
    text = read_source(spec)
    return "" if isinstance(text, ValueError) else hashlib.sha256(text.encode()).hexdigest()


def _repairs_of(baseline: SolverEntry, defects: Iterable[Cause]) -> list[tuple[str, Repair]]:
    base_function = specs.parse(baseline.spec).name
    return [(cause.name, cause.repairs[base_function]) for cause in dict.fromkeys(defects) if base_function in cause.repairs]


def intervention(candidate: SolverEntry, baseline: SolverEntry, defects: Iterable[Cause]) -> Intervention:
    """Each defect of ``defects`` that has a repair for the baseline's function, tried alone in the
    candidate's own function (whether it fits is asked by ``knapcheck.fuzz.judging.known.by_cause``)."""
    repairs = _repairs_of(baseline, defects)
    if not repairs:
        return Intervention(candidate.name, ())
    spec = specs.parse(candidate.spec)
    if spec.kind not in ("file", "torch", "module"):
        why = f"{candidate.name} is not loaded from a source file knapcheck could edit"
        return Intervention(candidate.name, tuple(Applied(cause, spec.name, why_not=why) for cause, _ in repairs))
    text = read_source(spec)
    if isinstance(text, ValueError):
        return Intervention(candidate.name, tuple(Applied(cause, spec.name, why_not=str(text)) for cause, _ in repairs))
    results = tuple(repaired(text, spec.name, [one]).results[0] for one in repairs)
    return Intervention(candidate.name, results, text, hashlib.sha256(text.encode()).hexdigest())


def variant(candidate: SolverEntry, done: Intervention, repairs: Iterable[tuple[str, Repair]]) -> SolverEntry | str:
    """The candidate with ``repairs`` applied together to the source ``done`` was made from, or why
    they do not apply together. Without repairs: the candidate as read then, loaded in a worker of
    its own (the candidate's own worker may be busy with calls begun ahead)."""
    repairs = list(repairs)
    spec = specs.parse(candidate.spec)
    together = repaired(done.source, spec.name, repairs)
    if together.not_applied:
        return "; ".join(f"{r.cause}: {r.why_not}" for r in together.not_applied)
    try:
        written = _write(together.source)
    except OSError as exc:
        return f"the repaired source cannot be written anywhere ({exc.strerror or exc})"
    name = f"{candidate.name}, repaired ({', '.join(cause for cause, _ in repairs)})" if repairs else f"{candidate.name}, as read"
    return replace(candidate, name=name, spec=str(replace(spec, source=str(written))))


@dataclass(frozen=True)
class FileRepair:
    """One file with the known defects of its solvers repaired."""

    path: Path
    original: str
    source: str
    results: tuple[Applied, ...]
    """Every repair tried, in the order of the file's lines."""


def repaired_file(entries: Iterable[SolverEntry], cases: Iterable[KnownFailure],
                  fitted: Callable[[SolverEntry], Iterable[Applied]] = lambda entry: ()) -> FileRepair:
    """The one file of ``entries``' solvers with each one's known defects (its known-failure corpus
    cases' causes) repaired in its own function. ``fitted(entry)``: each repair of the entry's
    defects, tried alone, as the judge sees it; one that it says does not apply (it does not fit
    the code, say) is not written, and its result says why. ValueError (one line) when the solvers'
    code is not in one Python file that can be read."""
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
        original = read_text(path)
    except UnreadableFile as exc:
        raise ValueError(f"{path} cannot be read: it {exc.reason}") from None
    functions = {specs.parse(e.spec).name: e for e in entries}
    ordered = sorted(functions, key=lambda name: _first_line(original, name), reverse=True)
    source = original
    results: list[Applied] = []
    for name in ordered:
        refused = {r.cause: r for r in fitted(functions[name]) if not r.applied}
        defects = [cause for causes in catalogue(functions[name].name, cases).values() for cause in causes]
        repairs = [(c.name, c.repairs[name]) for c in dict.fromkeys(defects) if name in c.repairs and c.name not in refused]
        done = repaired(source, name, repairs)
        source, results = done.source, [*done.results, *refused.values(), *results]
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
