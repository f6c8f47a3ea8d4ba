"""The `knapcheck` command line, run in-process: check's gate, usage errors, help, solve, promote."""

import json
import os
import re
import shlex
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import knapcheck.fuzz.runs.check
from knapcheck.commands import exit_status
from knapcheck.commands.cli import COMMANDS, build_parser, main
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.instances import families
from knapcheck.fuzz.judging.verdicts.differential import size_allows
from knapcheck.oracles.result import OracleResult
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.registry import register, resolve_one, unregister

CORPUS_CASES = len(load_known_failures())

ROOT = Path(__file__).resolve().parent.parent
INSTANCE = {"memory": [0.0001, 0.0004, 0.0003, 0.0003], "runtimes": [1, 1, 3, 3], "max_memory": 0.001}


@pytest.fixture
def planted_ours():
    entry = register(SolverEntry("planted_takes_everything", "planted.wrong_answers:takes_everything", exact=True, origin="ours"))
    yield entry
    unregister(entry.name)


@pytest.fixture
def empty_corpus(tmp_path):
    path = tmp_path / "empty-corpus.json"
    path.write_text('{"schema_version": 1, "cases": []}')
    return path


def one_line_usage_error(capsys, argv) -> str:
    """Run ``argv``: it must exit 2 with one line on stderr and nothing on stdout; the line."""
    assert main(argv) == exit_status.USAGE
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    return err


def test_check_passes_our_reference_and_writes_json(tmp_path, capsys):
    path = tmp_path / "check.json"
    assert main(["check", "--targets", "full_table", "--per-family", "3", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "full_table" in out and f"{CORPUS_CASES} cases of the known-failure corpus" in out
    data = json.loads(path.read_text())
    assert data["schema_version"] == 2 and data["failures"] == []
    sources = {s["name"]: (s["kind"], s["instances"]) for s in data["sources"]}
    assert sources["regression corpus"] == ("stored", CORPUS_CASES)
    assert sources["exhaustive_small"] == ("enumerated", 6142) and sources["tiny"] == ("sampled", 3)
    entry = resolve_one("full_table")
    declined = [i for i in families.get("weight_limits").draw(3, 0) if not size_allows(entry, i)]
    assert declined, "weight_limits holds capacities past what full_table's table can take"
    assert data["solvers"][0]["verdicts"] == {"OPTIMAL": data["instances"] - len(declined)}
    assert data["gate"]["passed"] and data["gate"]["rule"] == "no baseline"


def gate_line(out: str) -> str:
    """The gate's line: after the failures, before the information (the real-memory table) that fails nothing."""
    lines = out.splitlines()
    (index,) = [i for i, line in enumerate(lines) if line.startswith("gate on ")]
    assert index < lines.index("Real memory against max_memory:")
    return lines[index]


def test_check_exits_1_and_shows_a_reproduction_when_ours_fails(planted_ours, capsys):
    assert main(["check", "--targets", planted_ours.name, "--per-family", "5", "--families", "tight_budget"]) == 1
    out = capsys.readouterr().out
    assert "planted_takes_everything: OVER_BUDGET" in out
    assert "from planted.wrong_answers import takes_everything as solve" in out


def test_a_named_upstream_target_that_fails_fails_the_check(capsys):
    """It used to exit 0: only our solvers' failures counted, even for the targets named."""
    status = main(["check", "--targets", "torch:dp_knapsack_sliding_hirschberg", "--families", "tiny", "--per-family", "2"])
    out = capsys.readouterr().out
    assert status == exit_status.FAILED
    assert "torch:dp_knapsack_sliding_hirschberg: OVER_BUDGET" in out
    assert gate_line(out).startswith("gate on the named targets, under no baseline: every failure of a"
                                     " gated target counts: FAILED")


def test_without_targets_only_our_failures_fail_the_check(monkeypatch, capsys):
    monkeypatch.setattr("knapcheck.commands.targets.DEFAULT_TARGETS", ("full_table", "torch:dp_knapsack_sliding_hirschberg"))
    assert main(["check", "--families", "tiny", "--per-family", "1"]) == exit_status.OK
    out = capsys.readouterr().out
    assert "torch:dp_knapsack_sliding_hirschberg: OVER_BUDGET" in out
    assert gate_line(out).startswith("gate on our solvers (upstream's are shown, not counted")


@pytest.mark.parametrize(
    "target, source, expected",
    [
        ("missing.py:solve", None, "does not exist"),
        ("broken.py:solve", "def solve(:\n", "SyntaxError"),
        ("other.py:solve", "def answer(memory, runtimes, max_memory):\n    return 0.0, [], []\n", "defines no 'solve'"),
        ("os:getcwd", None, "cannot be called as solve(memory, runtimes, max_memory)"),
    ],
)
def test_a_target_that_cannot_be_loaded_is_a_usage_error_before_any_work(tmp_path, capsys, target, source, expected):
    """It used to mark every instance REJECTED, with a made-up reproduction, and exit 0."""
    if source is not None:
        (tmp_path / target.partition(":")[0]).write_text(source)
    spec = target if target.startswith("os:") else f"{tmp_path / target.partition(':')[0]}:solve"
    err = one_line_usage_error(capsys, ["check", "--targets", spec, "--families", "tiny", "--per-family", "1"])
    assert err.startswith("knapcheck check: cannot load") and expected in err


def test_a_bare_file_names_its_functions_named_like_torchs_solvers(tmp_path, capsys):
    """`report --candidate knapsack.py`, as the pytest plugin takes it: every function of the file
    named like one of torch's solvers, read from its syntax without running it."""
    from knapcheck.commands.targets import entries_for

    source = tmp_path / "knapsack.py"
    source.write_text("def dp_knapsack(m, r, c):\n    return 0.0, [], list(range(len(m)))\n"
                      "def greedy_knapsack(m, r, c):\n    return 0.0, [], list(range(len(m)))\n"
                      "def helper():\n    pass\n")
    names = [entry.spec for entry in entries_for([str(source)], "--candidate")]
    assert names == [f"{source}:greedy_knapsack", f"{source}:dp_knapsack"]
    (tmp_path / "other.py").write_text("def solve(m, r, c):\n    return 0.0, [], []\n")
    err = one_line_usage_error(capsys, ["report", "--candidate", str(tmp_path / "other.py"), "--out", str(tmp_path / "r")])
    assert "--candidate" in err and "defines none of greedy_knapsack" in err and "FILE.py:NAME" in err
    err = one_line_usage_error(capsys, ["check", "--targets", str(tmp_path / "missing.py")])
    assert "--targets" in err and "no such file" in err


def test_an_unknown_solver_name_is_a_usage_error(capsys):
    assert "unknown solver 'nope'" in one_line_usage_error(capsys, ["check", "--targets", "nope"])


def test_an_unwritable_output_is_refused_before_any_work(tmp_path, capsys):
    """A bad --json used to fail with a traceback after the whole check had run."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    err = one_line_usage_error(capsys, ["check", "--targets", "full_table", "--json", str(blocker / "check.json")])
    assert "--json" in err and "cannot write there" in err
    err = one_line_usage_error(capsys, ["check", "--targets", "full_table", "--json", str(tmp_path)])
    assert "is a directory" in err
    err = one_line_usage_error(capsys, ["report", "--candidate", "full_table", "--out", str(blocker / "report")])
    assert "--out" in err and "cannot write there" in err


def test_a_missing_or_malformed_corpus_is_a_usage_error(tmp_path, capsys):
    """A --corpus path that did not exist used to be ignored silently."""
    err = one_line_usage_error(capsys, ["check", "--targets", "full_table", "--corpus", str(tmp_path / "nope.json")])
    assert "does not exist" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "cases": [{"id": "x"}]}')
    assert "cases[0] is malformed" in one_line_usage_error(capsys, ["check", "--corpus", str(bad)])
    bad.write_text("{not json")
    assert "not valid JSON" in one_line_usage_error(capsys, ["report", "--candidate", "full_table", "--corpus",
                                                              str(bad), "--out", str(tmp_path / "out")])


@pytest.mark.parametrize("argv", [
    ["check"], ["report", "--candidate", "x.py", "--out", "out"], ["fuzz", "--time", "1s", "--db", "db", "--out", "out"],
    ["export-tests", "--out", "x.py"], ["repair", "torch", "--out", "x.py"],
], ids=lambda argv: argv[0])
def test_the_corpus_s_old_option_name_still_names_it_and_help_lists_the_new_one(argv, tmp_path, capsys):
    """--regressions was --corpus's name while the corpus was called the regression corpus."""
    from knapcheck.commands.cli import build_parser

    parser = build_parser(argv[0])
    corpus = tmp_path / "corpus.json"
    assert parser.parse_args([*argv, "--regressions", str(corpus)]).corpus == corpus
    assert parser.parse_args([*argv, "--corpus", str(corpus)]).corpus == corpus
    assert parser.parse_args(argv).corpus is None
    with pytest.raises(SystemExit):
        parser.parse_args([argv[0], "--help"])
    listed = capsys.readouterr().out
    assert "--corpus PATH" in listed and "--regressions" not in listed


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["check", "--families", "tiny", "nope"], "--families: unknown 'nope'"),
        (["bench", "--rows", "no such row"], "--rows: unknown 'no such row'"),
        (["report", "--candidate", "full_table", "--time", "5d", "--out", "x"], "positive duration"),
        (["check", "--per-family", "0"], "must be at least 1"),
        (["harvest", "--model", "mlp", "--budgets", "0.1,half", "--out", "x"], "--budgets: item 1"),
        (["harvest", "--model", "resnet", "--out", "x"], "--model: unknown 'resnet'"),
    ],
)
def test_command_line_mistakes_are_one_line_and_exit_2(capsys, argv, expected):
    try:
        status = main(argv)
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    assert status == exit_status.USAGE and expected in err and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


@pytest.mark.parametrize("option, text, seconds", [("--time", "30", 30), ("--time", "30s", 30), ("--time", "10m", 600)])
def test_every_time_option_reads_one_duration_syntax(option, text, seconds):
    """fuzz --time 30 used to be refused, and bench --time-limit 2m."""
    assert build_parser("fuzz").parse_args(["fuzz", option, text, "--db", "d", "--out", "o"]).time == seconds
    assert build_parser("bench").parse_args(["bench", "--time-limit", "2m"]).time_limit == 120
    assert build_parser("report").parse_args(["report", "--candidate", "x", "--bench-time-limit", text, "--out", "o"]).bench_time_limit == seconds
    assert build_parser("report").parse_args(["report", "--candidate", "x", "--time", "1h", "--out", "o"]).time == 3600


def test_version_names_knapcheck_torch_and_ortools(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    out = capsys.readouterr().out
    for package in ("knapcheck", "torch", "ortools"):
        assert f"{package} " in out


def test_help_of_every_command_imports_no_torch_and_shows_examples_and_exit_statuses():
    """Printing help used to import torch (3.5 s); families were dumped into every usage line."""
    script = (
        "import contextlib, io, sys, json\n"
        "from knapcheck.commands.cli import main\n"
        "helps = {}\n"
        "for command in sys.argv[1:]:\n"
        "    text = io.StringIO()\n"
        "    with contextlib.redirect_stdout(text), contextlib.suppress(SystemExit):\n"
        "        main([command, '--help'])\n"
        "    helps[command] = text.getvalue()\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'helps': helps}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, *COMMANDS], capture_output=True, text=True, cwd=ROOT, check=True)
    found = json.loads(done.stdout)
    assert not found["torch"], "printing help imported torch"
    for command, text in found["helps"].items():
        assert "exit status:" in text and "  2    usage error" in text, command
        if command != "solvers":
            assert "examples:" in text, command
    for command in ("check", "report", "fuzz"):
        usage = found["helps"][command].split("\n\n")[0]
        assert "pisinger" not in usage and found["helps"][command].count("pisinger_circle") == 1
    assert found["helps"]["bench"].count('"n=2000 C=1e7"') == 1


def test_solve_prints_the_same_shape_for_every_solver(tmp_path, capsys):
    """Ours printed Solution(...), torch's a bare tuple."""
    path = tmp_path / "instance.json"
    path.write_text(json.dumps(INSTANCE))
    assert main(["solve", "full_table", str(path)]) == 0
    ours = capsys.readouterr().out
    assert main(["solve", "torch", str(path)]) == 1
    theirs = capsys.readouterr().out
    assert "verdict:      OPTIMAL" in ours and "verdict:      OVER_BUDGET" in theirs
    blocks = [ours, *theirs.split("\n\n")]
    assert len(blocks) == 5 and "solver:       torch:greedy_knapsack" in theirs
    for block in blocks:
        assert [line.split(":")[0] for line in block.strip().splitlines()] == [
            "instance", "solver", "value", "saved", "recomputable", "optimum", "verdict"
        ]
        assert "Solution(" not in block
    assert main(["solve", "full_table", str(path), "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert (result["value"], result["saved"], result["recomputable"]) == (7.0, [0, 2, 3], [1])
    assert {"optimum", "verdict", "detail", "failed", "instance", "solver"} <= set(result)


def test_solve_reads_a_harvested_file(capsys):
    """harvest's files used to be readable by no command."""
    harvested = ROOT / "fuzz" / "corpus" / "harvested" / "mlp.json"
    assert main(["solve", "full_table", str(harvested), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["results"]) == len(json.loads(harvested.read_text())["records"])
    assert all(r["verdict"] == "OPTIMAL" and r["instance"].startswith("mlp.json record") for r in data["results"])


def test_check_reads_instance_and_harvested_files(tmp_path, empty_corpus, capsys):
    instance = tmp_path / "instance.json"
    instance.write_text(json.dumps(INSTANCE))
    harvested = ROOT / "fuzz" / "corpus" / "harvested" / "conv.json"
    status = main(["check", "--targets", "planted.wrong_answers:takes_everything", "--families", "tiny", "--per-family", "1",
                   "--corpus", str(empty_corpus), "--instances", str(instance), str(harvested)])
    out = capsys.readouterr().out
    records = len(json.loads(harvested.read_text())["records"])
    assert status == 1 and f"1 from {instance}, {records} from {harvested}" in out
    assert f"{1 + records + 1} instances" in out


def test_bad_instance_files_are_usage_errors(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"memory": [0.1], "runtimes": [1.0, 2.0], "max_memory": 1}))
    assert "same length" in one_line_usage_error(capsys, ["solve", "full_table", str(path)])
    path.write_text(json.dumps({"records": []}))
    assert "neither an instance file" in one_line_usage_error(capsys, ["check", "--instances", str(path)])


def test_solvers_lists_ours_and_torchs(capsys):
    assert main(["solvers"]) == 0
    out = capsys.readouterr().out
    assert "full_table" in out and "torch:greedy_knapsack" in out and "heuristic" in out


def test_solve_judges_weights_beyond_int64_without_crashing(tmp_path, capsys):
    path = tmp_path / "instance.json"
    memory = [1e15 * (1 + i % 5) for i in range(13)]
    path.write_text(json.dumps({"memory": memory, "runtimes": [i + 1 for i in range(13)], "max_memory": 1e16}))
    assert main(["solve", "sliding_hirschberg", str(path), "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert (result["optimum"]["value"], result["optimum"]["oracle"], result["verdict"]) == (50.0, "cpsat", "OPTIMAL")


def test_an_oracle_shown_wrong_is_reported_with_its_instance_and_the_check_goes_on(
    monkeypatch, capsys, tmp_path, empty_corpus
):
    def lying_oracle(instance: Instance) -> OracleResult:
        return OracleResult("lying", Fraction(0), (), proven=True)

    monkeypatch.setattr(knapcheck.fuzz.runs.check, "optimum", lying_oracle)
    path = tmp_path / "check.json"
    assert main(["check", "--targets", "full_table", "--per-family", "3", "--families", "tight_budget",
                 "--corpus", str(empty_corpus), "--json", str(path)]) == 1
    out = capsys.readouterr().out
    assert "an oracle shown wrong" in gate_line(out)
    assert "ORACLE FINDINGS" in out and "lying proved 0.0 optimal, but a feasible answer is worth" in out
    data = json.loads(path.read_text())
    verdicts = data["solvers"][0]["verdicts"]
    assert data["instances"] == 3 and set(verdicts) <= {"OPTIMAL", "UNVERIFIED"} and data["failures"] == []
    assert len(data["oracle_findings"]) == verdicts["UNVERIFIED"] >= 1
    finding = data["oracle_findings"][0]
    assert finding["oracle"] == "lying" and Instance.from_dict(finding["instance"]).n >= 1


def test_the_example_workflow_runs_a_report_command_that_parses():
    workflow = (ROOT / "docs" / "pr-gate.yml").read_text()
    command = re.search(r"^ *(knapcheck report .*)$", workflow.replace("\\\n", ""), re.M)[1]
    argv = shlex.split(command.replace("$KNAPSACK", "torch/_functorch/_activation_checkpointing/knapsack.py"))
    args = build_parser("report").parse_args(argv[1:])
    assert [spec.split("/")[0] for spec in args.candidate + args.baseline] == ["pr", "pr", "base", "base"]
    assert not args.strict and "GITHUB_STEP_SUMMARY" in workflow
    assert '>> "$GITHUB_STEP_SUMMARY"' not in workflow, "the report appends its first screen to the job summary itself"


def test_a_reader_that_stops_early_is_one_line_and_an_incomplete_exit(tmp_path):
    read, write = os.pipe()
    os.close(read)
    done = subprocess.run([sys.executable, "-m", "knapcheck", "solvers"], stdout=write, stderr=subprocess.PIPE,
                          text=True, cwd=tmp_path, timeout=120)
    os.close(write)
    assert done.returncode == exit_status.INCOMPLETE
    assert done.stderr.strip().splitlines() == [
        "knapcheck solvers: standard output was closed before all was written to it (a reader such as `head` stopped early)"
    ]
