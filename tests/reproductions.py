"""Running a report's reproductions as shown, each in a fresh interpreter with the installed torch."""

import subprocess
import sys

TIME_LIMIT = 120


def outcome_of(reproduction: str) -> tuple[int, str]:
    """Exit status and stderr of running the snippet with ``python -c``."""
    done = subprocess.run([sys.executable, "-c", reproduction], capture_output=True, text=True, timeout=TIME_LIMIT)
    return done.returncode, done.stderr
