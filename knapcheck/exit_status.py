"""Exit statuses every knapcheck command uses, so scripts can tell the outcomes apart."""

OK = 0
"""Ran as asked; none of our solvers failed."""
OURS_FAILED = 1
"""One of our own solvers failed (upstream failures never set this)."""
USAGE = 2
"""A command-line mistake (a bad option, an unwritable output): one line on stderr, nothing run."""
INCOMPLETE = 3
"""The run did not go as asked: workers or work lost, or results that could not be written."""
INTERRUPTED = 130
"""Stopped by Ctrl-C (128 + SIGINT, as shells report it)."""
