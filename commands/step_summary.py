"""The job summary of a GitHub Actions run: `knapcheck report` appends its first screen to it.

GitHub Actions names a file in GITHUB_STEP_SUMMARY; what a step appends there (Markdown) is shown
on the run's page. The report's files are written first, and a summary that cannot be appended to
is one warning line on stderr: never a lost report, never another exit status.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

VARIABLE = "GITHUB_STEP_SUMMARY"


def append_summary(markdown: str, environ: Mapping[str, str] = os.environ) -> None:
    """Append ``markdown`` to the file GITHUB_STEP_SUMMARY names, if it names one."""
    path = environ.get(VARIABLE)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as summary:
            summary.write(markdown)
    except OSError as error:
        why = error.strerror or str(error)
        print(f"knapcheck report: warning: the job summary was not written ({VARIABLE}={path!r}: {why});"
              " the report is complete", file=sys.stderr)
