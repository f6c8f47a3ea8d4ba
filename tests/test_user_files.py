"""Every file a user names is read by the one reader (``knapcheck.solvers.files.reader``): a FIFO or
a file over the cap named as a target, as a source or to repair is one line and exit status 2, in
seconds, never a hang or a MemoryError; and no module of knapcheck's reads a file any other way.

The commands run in one child, one after the other (a child per command would cost a second each
of its own start), each under an alarm, so that one that hangs fails its test instead of blocking
the run.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from package_tree import ROOT, imported_from, package_paths

from knapcheck.solvers.files.reader import MAX_BYTES

COMMAND_SECONDS = 30
"""A command still running after this hangs."""
SOLVER = "def dp_knapsack(memory, runtimes, max_memory):\n    return 0.0, [], list(range(len(memory)))\n"
INSTANCE = {"memory": [0.1], "runtimes": [1.0], "max_memory": 0.2}

FORMS = {
    "FILE.py:NAME": "{bad}:dp_knapsack",
    "FILE.py": "{bad}",
    "FILE.py:NAME<SOURCE.py": "solver.py:dp_knapsack<{bad}",
    "module:NAME<SOURCE.py": "os.path:join<{bad}",
    "torch:NAME<SOURCE.py": "torch:dp_knapsack<{bad}",
}
"""Each spec form, with the hostile file where the form reads a file."""
COMMANDS = {
    "check": ["check", "--targets", "{spec}", "--families", "tiny", "--per-family", "1"],
    "report": ["report", "--candidate", "{spec}", "--baseline", "torch:dp_knapsack", "--families", "tiny",
               "--per-family", "1", "--time", "5s", "--bench-repeats", "0", "--out", "report"],
    "solve": ["solve", "{spec}", "instance.json"],
    "repair": ["repair", "{spec}", "--out", "repaired.py"],
}
KINDS = {"a FIFO": "not a regular file", "a file over the cap": f"more than the {MAX_BYTES} knapcheck reads"}
"""Each hostile file, and what the one line says of it."""
BATCH = """
import contextlib, json, os, signal, sys
from knapcheck.commands.cli import main

class Hangs(BaseException):
    pass

def alarm(signum, frame):
    raise Hangs

signal.signal(signal.SIGALRM, alarm)
results = {}
for key, argv in json.loads(sys.argv[1]).items():
    with open(f"{key}.err", "w+") as err:
        saved = os.dup(1), os.dup(2)
        os.dup2(err.fileno(), 1)
        os.dup2(err.fileno(), 2)
        signal.alarm(int(sys.argv[2]))
        try:
            status = main(argv)
        except Hangs:
            status = "hangs"
        except BaseException as exc:
            status = f"raised {type(exc).__name__}"
        finally:
            signal.alarm(0)
            sys.stdout.flush(), sys.stderr.flush()
            os.dup2(saved[0], 1), os.dup2(saved[1], 2)
        err.seek(0)
        results[key] = [status, err.read()]
print(json.dumps(results))
"""


def _key(kind: str, form: str, command: str) -> str:
    return re.sub(r"\W+", "_", f"{kind} {form} {command}")


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> dict[str, list]:
    """Each command on each hostile file in each spec form: [exit status, what it printed]."""
    directory = tmp_path_factory.mktemp("hostile")
    (directory / "solver.py").write_text(SOLVER)
    (directory / "instance.json").write_text(json.dumps(INSTANCE))
    subprocess.run(["mkfifo", directory / "fifo.py"], check=True)
    subprocess.run(["truncate", "-s", str(MAX_BYTES + 1), directory / "big.py"], check=True)
    bad = {"a FIFO": "fifo.py", "a file over the cap": "big.py"}
    runs = {_key(kind, form, command): [word.format(spec=spec.format(bad=bad[kind])) for word in words]
            for kind in KINDS for form, spec in FORMS.items() for command, words in COMMANDS.items()}
    done = subprocess.run([sys.executable, "-c", BATCH, json.dumps(runs), str(COMMAND_SECONDS)], cwd=directory,
                          capture_output=True, text=True, timeout=COMMAND_SECONDS * len(runs))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_hostile_file_named_in_any_spec_form_is_one_line_and_exit_2(answers, kind, form, command):
    status, printed = answers[_key(kind, form, command)]
    lines = printed.strip().splitlines()
    assert status == 2 and len(lines) == 1, printed[-2000:]
    assert lines[0].startswith(f"knapcheck {command}: ") and KINDS[kind] in lines[0], lines[0]


READS = re.compile(r"(?<![\w.])open\(|\.open\(|\.read_text\(|\.read_bytes\(|fdopen\(")
"""A file opened or read in Python: the builtin ``open``, ``os.open``, ``Path.read_text`` and the like."""
THE_READER = "solvers/files/reader.py"
NOT_A_USERS_FILE = re.compile(
    r"/proc/|self\.directory / |directory / \"cgroup|task / \"children|entry / \"stat\""  # the kernel's files
    r"|O_WRONLY|O_RDWR|O_DIRECTORY|os\.devnull|, \"(a|w|ab|wb)\""  # written, or no file's contents
)
"""A line that reads the kernel's files (/proc, cgroups) or opens a file to write it."""
KNAPCHECKS_OWN = {
    "solvers/core/search.py": "the digest of knapcheck's own helper modules",
    "solvers/expanding_core.py": "the digest of knapcheck's own search module",
    "fuzz/instances/draw_cache.py": "the digest of knapcheck's own instance modules",
    "reports/environment.py": "knapcheck's own pyproject.toml, for its version",
    "fuzz/corpus/atomic_write.py": "the directory of a file knapcheck has just written, opened to sync it",
}
"""Modules that read files of knapcheck's own, never one a user names."""
THROUGH_THE_READER = {
    "solvers/specs.py": "readable_problem(",
    "solvers/isolation/torch_use.py": "read_bytes(",
    "fuzz/judging/known/repaired.py": "read_text(",
    "fuzz/corpus/reader.py": "read_bytes(",
    "fuzz/harvest/log_records.py": "open_stream(",
    "commands/targets.py": "read_bytes(",
    "commands/output_checks.py": "read_bytes(",
    "commands/promote_command.py": "read_bytes(",
    "reports/reproduction.py": "read_bytes(",
    "fuzz/campaign/store.py": "read_bytes(",
    "fuzz/campaign/example_database.py": "read_bytes(",
    "fuzz/campaign/cluster.py": "regular_file_problem(",
}
"""The places that read a file a user names (a target, a source, a file to repair, an instance
file, a corpus, a trace log, a store's entry), each with the reader's function it calls."""
READERS = {"knapcheck.solvers.files.reader", "knapcheck.fuzz.corpus.reader"}


def imported_modules(path: Path) -> set[str]:
    """The absolute names of the modules ``path`` imports from, its relative imports resolved
    (``from .files import reader`` in solvers/specs.py is ``knapcheck.solvers.files.reader``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            source = imported_from(path, node)
            found |= {source} | {f"{source}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_no_module_reads_a_file_but_through_the_one_reader():
    elsewhere = []
    for path in package_paths():
        name = str(path.relative_to(ROOT))
        if name == THE_READER or name in KNAPCHECKS_OWN:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if READS.search(line) and not NOT_A_USERS_FILE.search(line):
                elsewhere.append(f"{name}:{number}: {line.strip()}")
    assert not elsewhere, "read without knapcheck.solvers.files.reader:\n" + "\n".join(elsewhere)


@pytest.mark.parametrize("module", sorted(THROUGH_THE_READER))
def test_each_place_that_reads_a_users_file_calls_the_one_reader(module):
    assert imported_modules(ROOT / module) & READERS, module
    assert THROUGH_THE_READER[module] in (ROOT / module).read_text(), module


def test_the_reader_refuses_without_reading_or_waiting(tmp_path):
    """A FIFO with no writer is refused at once (its open would wait forever without O_NONBLOCK), a
    sparse file over the cap unread; a file that is not UTF-8 is no source."""
    from knapcheck.solvers.files.reader import UnreadableFile, open_stream, read_text, readable_problem

    subprocess.run(["mkfifo", tmp_path / "fifo.py"], check=True)
    subprocess.run(["truncate", "-s", str(MAX_BYTES + 1), tmp_path / "big.py"], check=True)
    (tmp_path / "latin1.py").write_bytes(b"# caf\xe9\n")
    assert readable_problem(tmp_path / "fifo.py") == "is a FIFO, not a regular file; refused unread"
    assert readable_problem(tmp_path / "big.py") == f"holds {MAX_BYTES + 1} bytes, more than the {MAX_BYTES} knapcheck reads"
    assert readable_problem(tmp_path / "missing.py") == "does not exist"
    assert readable_problem(tmp_path / "latin1.py") == ""
    with pytest.raises(UnreadableFile, match="is not UTF-8 text"):
        read_text(tmp_path / "latin1.py", what="source")
    with pytest.raises(UnreadableFile, match="FIFO"):
        open_stream(tmp_path / "fifo.py")
