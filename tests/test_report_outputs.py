"""What a reviewer reads: targets named as typed, reproductions that run from where the report was
made, failures before information, and nothing a target supplies read as Markdown or HTML.

The targets are files in a directory whose name is itself Markdown and HTML (a backtick, a ``|``,
``<i>``, ``*``), planted in ``planted/markdown_payloads.py``: one raises, one returns an answer
that prints as a forged report ("Gate: passed", a fence, a table row, ``<script>``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from reproductions import assert_each_fails

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.reports.svg_plot import line_chart, wrapped
from knapcheck.reports.tables import SCROLLS
from knapcheck.solvers import specs

PLANTED = Path(__file__).resolve().parent / "planted"
ODD_DIRECTORY = "pr`s |<i>*x*"
HOSTILE = [f"{ODD_DIRECTORY}/payloads.py:raises_markdown", f"{ODD_DIRECTORY}/payloads.py:prints_markdown"]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A directory to run from, holding the planted files and an empty corpus."""
    (tmp_path / ODD_DIRECTORY).mkdir()
    shutil.copy(PLANTED / "markdown_payloads.py", tmp_path / ODD_DIRECTORY / "payloads.py")
    shutil.copy(PLANTED / "wrong_answers.py", tmp_path / "wrong_answers.py")
    (tmp_path / "empty.json").write_text('{"schema_version": 1, "cases": []}')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def report(*options: str) -> tuple[int, str, dict, str]:
    status = main(["report", *options, "--families", "tight_budget", "--per-family", "5", "--corpus", "empty.json",
                   "--bench-repeats", "0", "--out", "out"])
    out = Path("out")
    return (status, (out / "report.md").read_text(), json.loads((out / "report.json").read_text()),
            (out / "report.html").read_text())


def _markdown_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def test_the_specs_a_user_typed_are_shown_relative_to_the_working_directory(tmp_path):
    name = str(specs.parse(f"{tmp_path}/pr/knapsack.py:dp_knapsack@exact"))
    assert specs.shown(name, cwd=tmp_path) == "pr/knapsack.py:dp_knapsack@exact"
    assert specs.shown(name, cwd=tmp_path / "a") == "../pr/knapsack.py:dp_knapsack@exact"
    assert specs.shown("/k.py:f", cwd=tmp_path) == "/k.py:f", "the absolute path where it is the shorter"
    assert specs.shown("torch:dp_knapsack") == "torch:dp_knapsack" and specs.shown("not a spec!") == "not a spec!"
    assert specs.shown_in(f"raised at {tmp_path}/pr/knapsack.py:3", [name], cwd=tmp_path) == "raised at pr/knapsack.py:3"


def test_a_report_names_file_targets_as_typed_and_its_reproductions_run_from_there(workdir):
    status, markdown, data, html = report("--candidate", "wrong_answers.py:takes_everything")
    assert status == exit_status.FAILED
    assert str(workdir) not in markdown and str(workdir) not in html
    assert markdown.startswith("# knapcheck report: wrong_answers.py:takes_everything\n")
    (solver,) = data["correctness"]["solvers"]
    assert solver["name"] == f"{workdir}/wrong_answers.py:takes_everything", "the identity stays absolute"
    assert solver["display_name"] == "wrong_answers.py:takes_everything"
    assert data["working_directory"] == str(workdir)
    failures = data["correctness"]["failures"]
    assert failures and all(str(workdir) not in f["reproduction"] for f in failures)
    assert "runs as shown with Python from the directory this report was produced in" in markdown
    assert_each_fails(failures, cwd=workdir)


def test_check_names_file_targets_as_typed(workdir, capsys):
    main(["check", "--targets", "wrong_answers.py:takes_everything", "--families", "tight_budget", "--per-family", "5",
          "--corpus", "empty.json"])
    out = capsys.readouterr().out
    assert str(workdir) not in out and "wrong_answers.py:takes_everything: OVER_BUDGET" in out


def test_the_reproduction_of_a_candidate_with_relative_imports_runs_as_shown(tmp_path):
    """It used to load the file on its own, so its relative import failed before the defect showed."""
    package = tmp_path / "pr" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text("def everything(memory):\n    return list(range(len(memory)))\n")
    (package / "knapsack.py").write_text(
        "from .helpers import everything\n\n\n"
        "def dp_knapsack(memory, runtimes, max_memory):\n"
        "    saved = everything(memory)\n"
        "    return sum(runtimes[i] for i in saved), saved, []\n"
    )
    (tmp_path / "empty.json").write_text('{"schema_version": 1, "cases": []}')
    done = subprocess.run(
        [sys.executable, "-m", "knapcheck", "check", "--targets", "pr/pkg/knapsack.py:dp_knapsack", "--families",
         "tight_budget", "--per-family", "3", "--corpus", "empty.json", "--json", "check.json"],
        capture_output=True, text=True, cwd=tmp_path, timeout=600,
    )
    assert done.returncode == exit_status.FAILED, done.stderr
    failures = json.loads((tmp_path / "check.json").read_text())["failures"]
    assert {f["verdict"] for f in failures} >= {"OVER_BUDGET"}
    assert all("load('pr/pkg/knapsack.py:dp_knapsack')" in f["reproduction"] for f in failures)
    assert_each_fails(failures, cwd=tmp_path)


def test_a_target_s_text_cannot_forge_report_md(workdir):
    status, markdown, data, html = report("--candidate", *HOSTILE)
    assert status == exit_status.FAILED
    lines = markdown.splitlines()
    assert lines[2].startswith("**Gate: FAILED**")
    assert not [line for line in lines if re.match(r"\W*(gate|\| x)", line, re.IGNORECASE) and line is not lines[2]]
    tokens = _markdown_parser().parse(markdown)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings[-4:] == ["Performance", "How the gate decides", "Real memory against max_memory", "Environment"], \
        "no fence swallowed the rest"
    fences = [t for t in tokens if t.type == "fence"]
    reproductions = [t.content for t in fences if t.info == "python"]
    assert len(reproductions) == len(data["correctness"]["failures"]) == 2
    for source in reproductions:
        compile(source, "<reproduction>", "exec")
    assert fences[-1].content.startswith("knapcheck report --candidate"), "the command is the last fence"
    rendered = _markdown_parser().render(markdown)
    assert "<script" not in rendered and "<i>" not in rendered
    assert re.findall(r"<strong>[^<]*</strong>", rendered) == ["<strong>Gate: FAILED</strong>"]
    assert rendered.count("<table>") == 3, "the per-function, verdict and environment tables, no table of the target's"


def test_a_target_s_text_is_escaped_in_report_html(workdir):
    status, markdown, data, html = report("--candidate", *HOSTILE)
    assert "<script" not in html.lower() and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<i>" not in html and "&lt;i&gt;" in html


def test_a_target_s_text_cannot_start_a_line_of_check_output(workdir, capsys):
    main(["check", "--targets", *HOSTILE, "--families", "tiny", "--per-family", "3", "--corpus", "empty.json"])
    lines = capsys.readouterr().out.splitlines()
    (gate,) = [line for line in lines if line.startswith("gate on ")]
    assert gate.startswith("gate on the named targets, under no baseline: every failure of a gated target counts: FAILED")
    assert f"{ODD_DIRECTORY}/payloads.py:raises_markdown REJECTED" in gate
    assert not [line for line in lines if line.startswith(("Gate", "**Gate", "```", "| x", "<script"))]


def test_failures_and_the_gate_come_before_information_in_every_output(workdir, capsys):
    status, markdown, data, html = report("--candidate", "wrong_answers.py:takes_everything", "--baseline",
                                          "wrong_answers.py:takes_nothing")
    lines = markdown.splitlines()
    order = [lines.index(h) for h in ("## Failures of the candidate", "## Performance", "## Candidate against baseline,"
                                      " instance by instance", "## The baseline's known defects on these instances",
                                      "## Real memory against max_memory", "## Environment")]
    assert order == sorted(order)
    at = [html.index(h) for h in ("<h2>Failures of the candidate</h2>", "<h2>Performance</h2>", "<h2>Candidate against baseline",
                                  "<h2>The baseline&#x27;s known defects on these instances</h2>",
                                  "<h2>Real memory against max_memory</h2>", "<h2>Environment</h2>")]
    assert at == sorted(at)
    capsys.readouterr()
    main(["check", "--targets", "wrong_answers.py:takes_everything", "--baseline", "wrong_answers.py:takes_nothing",
          "--families", "tight_budget", "--per-family", "5", "--corpus", "empty.json"])
    out = capsys.readouterr().out.splitlines()
    gate = next(i for i, line in enumerate(out) if line.startswith("gate on "))
    failures = next(i for i, line in enumerate(out) if "regressions: failures whose cause is new" in line)
    information = [next(i for i, line in enumerate(out) if marker in line)
                   for marker in ("selection changes (information, not failures)", "Real memory against max_memory")]
    assert failures < gate < min(information)


class _Elements(HTMLParser):
    """Each element's tag, attributes and the tags it sits in."""

    def __init__(self):
        super().__init__()
        self.open: list[tuple[str, dict]] = []
        self.found: list[tuple[str, dict, list[tuple[str, dict]]]] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("wbr", "meta", "circle", "line", "rect", "polyline"):
            self.found.append((tag, dict(attrs), list(self.open)))
            return
        self.found.append((tag, dict(attrs), list(self.open)))
        self.open.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        while self.open and self.open.pop()[0] != tag:
            pass


def test_report_html_tables_scroll_in_their_container_and_headers_can_wrap(workdir):
    status, markdown, data, html = report("--candidate", *HOSTILE)
    parser = _Elements()
    parser.feed(html)
    tables = [parents for tag, _, parents in parser.found if tag == "table"]
    assert tables and all(parents[-1] == ("div", {"class": SCROLLS}) for parents in tables)
    assert f".{SCROLLS} {{ max-width: 100%; overflow-x: auto;" in html
    assert "<th>BAD_<wbr>PARTITION</th>" in html


def test_chart_legends_show_every_name_whole_and_escaped():
    """Four names sharing a long prefix used to be cut by the chart's edge to the same prefix."""
    prefix = "pull-requests/pr-123456-knapsack-memory-lean-rewrite/torch/_functorch/_activation_checkpointing/knapsack"
    names = [f"{prefix}.py:dp_knapsack", f"{prefix}.py:dp_knapsack_sliding_hirschberg", f"{prefix}_v2.py:dp_knapsack",
             "<script>alert(1)</script>"]
    svg = line_chart("Median time", {name: [(1000, 0.1), (10_000, 1.0)] for name in names}, "C", "s", log_x=True)
    assert "<script>" not in svg
    legends = re.findall(r'<text class="legend"[^>]*>(.*?)</text>', svg)
    shown = [re.sub(r"<tspan[^>]*>|</tspan>", "", legend) for legend in legends]
    assert shown == [name.replace("<", "&lt;").replace(">", "&gt;") for name in names]
    assert all(len(line) <= 93 for name in names for line in wrapped(name))
    height = int(re.search(r'height="(\d+)"', svg).group(1))
    last = max(int(float(y)) for y in re.findall(r'<text class="legend" y="([\d.]+)"', svg))
    assert last + 16 * (len(wrapped(names[-1])) - 1) < height, "the last legend line is inside the chart"


def test_a_stored_solver_name_cannot_forge_campaign_md():
    from knapcheck.fuzz.campaign.run import CampaignResult, Finding
    from knapcheck.fuzz.campaign.store import StoredFailure
    from knapcheck.fuzz.judging.verdicts.differential import CheckResult
    from knapcheck.reports.campaign_report import render_markdown
    from knapcheck.solvers.contract import Instance

    name = "/x/pr`s |<script>alert(1)</script>\n## Gate: passed/k.py:solve"
    stored = StoredFailure(name, "CRASH", "tiny", Instance((), (), 0.0), False, True, "file", "", "", Path("/s/1.json"))
    result = CampaignResult(CheckResult([]), ["tiny"], "local cluster of 1 worker", 1.0, 1.0, 0, 0, 1.0, 1.0,
                            findings=[Finding("fixed", stored)])
    markdown = render_markdown(result)
    assert not [line for line in markdown.splitlines() if line.startswith("## Gate")]
    rendered = _markdown_parser().render(markdown)
    assert "<script" not in rendered
    (row,) = [line for line in markdown.splitlines() if line.startswith("| fixed |")]
    assert len(re.split(r"(?<!\\)\|", row)) == 10, "eight cells: the name stays in one"
