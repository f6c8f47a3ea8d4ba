"""No command writes through a symbolic link or over a file it did not write (knapcheck.commands.output_checks).

Each command is run with a symbolic link, and then with a file of the user's, where one of its
outputs goes: it refuses in one line, exit status 2, before any work, and the file stays as it
was. A command run again replaces its own earlier outputs."""

import json
import os
import stat
from pathlib import Path

import pytest

from knapcheck.commands.cli import main
from knapcheck.commands.output_checks import (
    CHECK_JSON,
    HARVESTED,
    REPORT_HTML,
    REPORT_JSON,
    REPORT_MARKDOWN,
    OutputTaken,
    writable_file,
    write_output,
)
from knapcheck.commands.usage import UsageError

REPOSITORY = Path(__file__).parent.parent
USERS = "the user's own file\n"
EMPTY_CORPUS = '{"schema_version": 1, "cases": []}\n'

QUICK = ["--families", "tiny", "--per-family", "1"]
COMMANDS = {
    "harvest": (["harvest", "--model", "mlp", "--budgets", "0.5", "--out", "{tmp}/out"], ["out/mlp.json"]),
    "report": (["report", "--candidate", "full_table", *QUICK, "--bench-repeats", "0", "--out", "{tmp}/out"],
               ["out/report.md", "out/report.json", "out/report.html", "out/solvers.log"]),
    "fuzz": (["fuzz", "--time", "1", "--jobs", "1", "--db", "{tmp}/db", "--out", "{tmp}/out"],
             ["out/campaign.md", "out/campaign.json", "out/campaign.log"]),
    "export-tests": (["export-tests", "--corpus", "{tmp}/corpus.json", "--out", "{tmp}/out/test_x.py"],
                     ["out/test_x.py"]),
    "bench": (["bench", "--solvers", "full_table", "--rows", "n=100 budget=0.1", "--repeats", "1",
               "--json", "{tmp}/out/bench.json"], ["out/bench.json"]),
    "check": (["check", "--targets", "full_table", *QUICK, "--json", "{tmp}/out/check.json",
               "--solver-log", "{tmp}/out/solvers.log"], ["out/check.json", "out/solvers.log"]),
    "promote": (["promote", "--db", "{tmp}/db", "--corpus", "{tmp}/out/corpus.json"], ["out/corpus.json"]),
}
LOGS = {"out/solvers.log", "out/campaign.log"}
"""Appended to, never replaced: a regular file of the user's there is appended to, as documented."""
CASES = [(command, output) for command, (_, outputs) in COMMANDS.items() for output in outputs]


@pytest.fixture
def quick(monkeypatch):
    """Were a refusal missed, the commands would run: as little as they can."""
    monkeypatch.setattr("knapcheck.fuzz.runs.export_plan.ENUMERATED", {})


def run(command: str, tmp: Path, capsys) -> tuple[int, str]:
    (tmp / "corpus.json").write_text(EMPTY_CORPUS)
    (tmp / "db" / "failures").mkdir(parents=True, exist_ok=True)
    status = main([word.format(tmp=tmp) for word in COMMANDS[command][0]])
    return status, capsys.readouterr().err


@pytest.mark.parametrize("command, output", CASES, ids=[f"{c} {o}" for c, o in CASES])
def test_a_symbolic_link_at_an_output_is_refused_and_what_it_points_to_is_untouched(command, output, tmp_path, capsys, quick):
    outside = tmp_path / ("outside.json" if command == "promote" else "outside.txt")
    outside.write_text(EMPTY_CORPUS if command == "promote" else USERS)
    link = tmp_path / output
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    status, err = run(command, tmp_path, capsys)
    assert status == 2, err[-2000:]
    (line,) = err.splitlines()
    assert f"{link}: is a symbolic link; knapcheck writes through none" in line
    assert link.is_symlink() and outside.read_text() == (EMPTY_CORPUS if command == "promote" else USERS)


OTHERS = [(command, output) for command, output in CASES if output not in LOGS and command != "promote"]


@pytest.mark.parametrize("command, output", OTHERS, ids=[f"{c} {o}" for c, o in OTHERS])
def test_a_file_of_the_users_at_an_output_is_refused_and_left_as_it_was(command, output, tmp_path, capsys, quick):
    users = tmp_path / output
    users.parent.mkdir(parents=True, exist_ok=True)
    users.write_text(USERS)
    status, err = run(command, tmp_path, capsys)
    assert status == 2, err[-2000:]
    (line,) = err.splitlines()
    assert f"{users}: exists and is not " in line and "knapcheck replaces only its own" in line
    assert users.read_text() == USERS


def test_a_command_run_again_replaces_its_own_outputs(tmp_path, capsys):
    argv = ["check", "--targets", "full_table", *QUICK, "--json", str(tmp_path / "check.json")]
    assert main(argv) == 0
    first = json.loads((tmp_path / "check.json").read_text())
    (tmp_path / "check.json").write_text(json.dumps(first) + "\n")
    assert main(argv) == 0, capsys.readouterr().err
    assert json.loads((tmp_path / "check.json").read_text()) == first
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "check.json").stat().st_mode) == 0o666 & ~umask, "as any file the user makes"
    assert [p.name for p in tmp_path.iterdir()] == ["check.json"]


@pytest.mark.parametrize("kind, path", [
    (REPORT_MARKDOWN, "docs/published/torch-2.13.0/report.md"),
    (REPORT_JSON, "docs/published/torch-2.13.0/report.json"),
    (REPORT_HTML, "docs/published/torch-2.13.0/report.html"),
    (HARVESTED, "fuzz/corpus/harvested/mlp.json"),
])
def test_the_files_knapcheck_wrote_are_told_as_its_own(kind, path):
    """The published reports and the harvested corpus, written by report and harvest, may be written again."""
    assert kind.is_ours((REPOSITORY / path).read_bytes())
    assert not kind.is_ours(USERS.encode())


def test_a_file_that_appears_while_the_command_runs_is_kept_and_the_output_written_beside_it(tmp_path):
    path = writable_file(tmp_path / "check.json", "--json", CHECK_JSON)
    path.write_text(USERS)
    with pytest.raises(OutputTaken) as raised:
        write_output(path, '{"the": "output"}\n', CHECK_JSON)
    assert path.read_text() == USERS
    (kept,) = [p for p in tmp_path.iterdir() if p != path]
    assert kept.read_text() == '{"the": "output"}\n' and str(kept) in str(raised.value)


def test_a_link_that_appears_while_the_command_runs_is_not_written_through(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text(USERS)
    path = writable_file(tmp_path / "out" / "check.json", "--json", CHECK_JSON)
    path.symlink_to(outside)
    with pytest.raises(OutputTaken):
        write_output(path, "{}\n", CHECK_JSON)
    assert outside.read_text() == USERS and path.is_symlink()
    with pytest.raises(UsageError, match="is a symbolic link"):
        writable_file(path, "--json", CHECK_JSON)
