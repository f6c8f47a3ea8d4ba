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


def errors_of(failures: list[dict], cwd: Path | None = None) -> list[str]:
    """For each failure of a report.json, what running its reproduction (from ``cwd``, the directory
    the report was produced in) printed as the error; '' if it passed."""
    errors = [""] * len(failures)
    shared = [i for i, f in enumerate(failures) if f["verdict"] not in OWN_PROCESS]
    if shared:
        done = subprocess.run(
            [sys.executable, "-c", _DRIVER],
            input=json.dumps([failures[i]["reproduction"] for i in shared]),
            capture_output=True,
            text=True,
            timeout=TIME_LIMIT,
            cwd=cwd,
        )
        assert done.returncode == 0, done.stderr
        for i, error in zip(shared, json.loads(done.stdout.splitlines()[-1])):
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
