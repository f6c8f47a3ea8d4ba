"""The hash seeds of worker processes: a determinism check calls a target in two processes whose
``hash()`` of a str differs.

Python salts the hash of str and bytes once per process (``PYTHONHASHSEED``), so a solver whose
tie-break depends on it (iterating a set of strings, say) answers alike within one process and
differently in the next: two calls in one worker never show it. A target's worker runs with
``FIRST``: the integer PYTHONHASHSEED of knapcheck's own environment, else 0, so that a run is
reproducible; the call of a determinism check that goes to another process
(``knapcheck.solvers.isolation.running.run``) runs in a worker of its own with ``SECOND``.
"""

from __future__ import annotations

import os

LARGEST = 2**32 - 1
"""The largest seed Python accepts."""


def _given() -> int:
    text = os.environ.get("PYTHONHASHSEED", "")
    return int(text) if text.isdigit() and int(text) <= LARGEST else 0


FIRST = _given()
SECOND = (FIRST + 1) % (LARGEST + 1)
