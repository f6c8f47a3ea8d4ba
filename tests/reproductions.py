"""Running a report's reproductions as shown, with the installed torch.

Each snippet runs as a whole script in a fresh namespace. Those that end the interpreter or change
its limits (CRASH, TIMEOUT, OUT_OF_MEMORY) get a fresh interpreter each; the others share one, so
that torch is imported once rather than once per reproduction.
"""

import json
import subprocess
import sys
from pathlib import Path

TIME_LIMIT = 300
OWN_PROCESS = ("CRASH", "TIMEOUT", "OUT_OF_MEMORY")

_DRIVER = """
import json, sys, traceback
errors = []
for source in json.load(sys.stdin):
    try:
        exec(compile(source, "<reproduction>", "exec"), {"__name__": "__main__"})
    except BaseException:
        errors.append(traceback.format_exc())
    else:
        errors.append("")
print(json.dumps(errors))
"""


def _errors_together(sources: list[str], cwd: Path | None) -> list[str]:
    """What each script raised, run one after the other in one interpreter ('' if it ran through)."""
    if not sources:
        return []
    done = subprocess.run([sys.executable, "-c", _DRIVER], input=json.dumps(sources), capture_output=True, text=True,
                          timeout=TIME_LIMIT, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def errors_of(failures: list[dict], cwd: Path | None = None) -> list[str]:
    """For each failure of a report.json, what running its reproduction (from ``cwd``, the directory
    the report was produced in) printed as the error; '' if it passed."""
    errors = [""] * len(failures)
    shared = [i for i, f in enumerate(failures) if f["verdict"] not in OWN_PROCESS]
    for i, error in zip(shared, _errors_together([failures[i]["reproduction"] for i in shared], cwd)):
        errors[i] = error
    for i, failure in enumerate(failures):
        if failure["verdict"] in OWN_PROCESS:
            done = subprocess.run(
                [sys.executable, "-c", failure["reproduction"]], capture_output=True, text=True, timeout=TIME_LIMIT, cwd=cwd
            )
            errors[i] = (done.stderr or f"exit status {done.returncode}") if done.returncode else ""
    return errors


def assert_each_fails(failures: list[dict], cwd: Path | None = None) -> None:
    for failure, error in zip(failures, errors_of(failures, cwd)):
        assert error, f"this reproduction does not fail:\n{failure['reproduction']}"
        if failure["verdict"] not in ("REJECTED", *OWN_PROCESS):
            assert failure["verdict"] in error, error


def baseline_and_candidate_errors(failures: list[dict], cwd: Path | None = None) -> list[tuple[str, str]]:
    """For each regression of a report.json (its reproduction calls the baseline, then the
    candidate, on its last line): what it raised without its last line, and whole."""
    sources = []
    for failure in failures:
        assert failure["verdict"] not in OWN_PROCESS, failure["verdict"]
        lines = failure["reproduction"].splitlines()
        assert lines[-2] == "reproduce(baseline)" and lines[-1].startswith("reproduce(solve)"), lines[-2:]
        sources += ["\n".join(lines[:-1]), failure["reproduction"]]
    errors = _errors_together(sources, cwd)
    return list(zip(errors[::2], errors[1::2]))


def assert_fails_on_the_candidate_alone(failure: dict, errors: tuple[str, str]) -> None:
    """The reproduction passes on the baseline, and its last line, the candidate's call, fails:
    REJECTED by what the candidate raised, any other verdict by the assertion that names it."""
    on_baseline, on_candidate = errors
    assert on_baseline == "", f"the reproduction fails on the baseline:\n{on_baseline}"
    assert on_candidate, f"the reproduction passes on the candidate:\n{failure['reproduction']}"
    last = len(failure["reproduction"].splitlines())
    assert f'File "<reproduction>", line {last}, in <module>' in on_candidate, "it is the candidate's call that fails"
    if failure["verdict"] != "REJECTED":
        assert f"AssertionError: {failure['verdict']}" in on_candidate, on_candidate
