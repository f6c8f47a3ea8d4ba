"""The exit statuses every knapcheck command uses, documented once and shown in every command's help.

Status 1 means "what this command checks failed"; each command says what that is for it (check: a
named exact target failed; report: the candidate regressed; fuzz: one of our solvers failed).
"""

OK = 0
"""Ran as asked, and what it checks passed."""
FAILED = 1
"""Ran as asked, and what it checks failed (each command's help says what that is)."""
USAGE = 2
"""A mistake in the command line or its inputs (a bad option, a target that cannot be loaded, a
malformed corpus, an output path that cannot be written): one line on stderr, before any work."""
INCOMPLETE = 3
"""The run did not go as asked: workers or work lost, findings or results that could not be
written, or knapcheck itself failed (a traceback on stderr)."""
INTERRUPTED = 130
"""Stopped by Ctrl-C (128 + SIGINT, as shells report it)."""
TERMINATED = 143
"""Stopped by SIGTERM (128 + SIGTERM)."""


def help_text(failed: str | None) -> str:
    """The exit statuses as a help epilog, with what status 1 means for one command (None: not used)."""
    return (
        "exit status:\n"
        "  0    ran as asked; everything it checks passed\n"
        f"  1    {failed or 'not used by this command'}\n"
        "  2    usage error: a bad option or input, a target that cannot be loaded, an output path\n"
        "       that cannot be written (one line on stderr, before any work)\n"
        "  3    incomplete: work lost, results not written, or knapcheck itself failed (traceback)\n"
        "  130  interrupted (Ctrl-C); check, report and fuzz write a partial report first\n"
        "  143  terminated (SIGTERM); likewise"
    )
