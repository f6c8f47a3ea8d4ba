"""Command-line mistakes: one line on stderr and exit status ``exit_status.USAGE``, no traceback."""


class UsageError(Exception):
    """Raised by a command for a mistake in its arguments; ``knapcheck.cli`` prints it as one line."""
