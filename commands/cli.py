"""The `knapcheck` command line: parses arguments and hands them to one command module each.

A command module gives its help (``DESCRIPTION``, ``epilog()``: examples, lists, exit statuses) and
its options (``add_arguments``); its one-line summary is in ``COMMANDS``.

Only the module of the command being run is imported (and each imports torch, the oracles and the
solvers only when it runs), so `knapcheck CMD --help` and `knapcheck --version` answer at once.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import traceback

from ..solvers.isolation.child import INTRA_OP_THREADS
from ..solvers.isolation.worker import WorkerPool
from . import exit_status
from .output_checks import OutputTaken
from .stop_signals import STATUSES, raise_terminated, stopped_by
from .usage import ArgumentParser, UsageError

COMMANDS = {
    "check": ("check_command", "cross-check solvers against the exact oracles"),
    "report": ("report_command", "regression report and gate: a candidate solver against a baseline"),
    "solve": ("solve_command", "run solvers on an instance file and judge each answer"),
    "solvers": ("solvers_command", "list the registered solvers and the installed torch's"),
    "bench": ("bench_command", "time and peak memory of solvers side by side, with ratios"),
    "fuzz": ("fuzz_command", "run a fuzz campaign, storing every failure as it is found"),
    "promote": ("promote_command", "turn a campaign's stored failures into cases of the known-failure corpus"),
    "export-tests": ("export_tests_command", "write the corpus's upstream cases as a PyTorch test file"),
    "repair": ("repair_command", "write a solver's file with its known defects repaired (the upstream patch)"),
    "harvest": ("harvest_command", "record the knapsacks torch.compile solves, for built-in models or from trace logs"),
}

DESCRIPTION = """\
knapcheck: a correctness suite for PyTorch's 0/1 knapsack solvers (activation checkpointing).
Run `knapcheck COMMAND --help` for a command's options, examples and exit statuses."""


def version_text() -> str:
    """knapcheck's version and those of torch and ortools, read without importing them."""
    from ..reports.environment import installed_version, knapcheck_version

    versions = [f"knapcheck {knapcheck_version()}"]
    versions += [f"{name} {installed_version(name) or 'not installed'}" for name in ("torch", "ortools")]
    return ", ".join(versions)


class _Version(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the versions of knapcheck, torch and ortools")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(version_text())
        parser.exit()


def _command_in(argv: list[str]) -> str | None:
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(command: str | None) -> ArgumentParser:
    """The parser, with full options for ``command`` only (the others are listed by name)."""
    parser = ArgumentParser(
        prog="knapcheck",
        description=DESCRIPTION,
        epilog=exit_status.help_text("what the command checks failed (each command's help says what)"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, summary) in COMMANDS.items():
        if name == command:
            module = importlib.import_module(f".{module_name}", __package__)
            module.add_arguments(commands.add_parser(
                name, help=summary, description=module.DESCRIPTION, epilog=module.epilog(),
                formatter_class=argparse.RawDescriptionHelpFormatter,
            ))
        else:
            commands.add_parser(name, help=summary)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    os.environ.setdefault("OMP_NUM_THREADS", INTRA_OP_THREADS)
    args = build_parser(_command_in(argv)).parse_args(argv)
    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        with WorkerPool():
            return args.run(args)
    except UsageError as exc:
        print(f"knapcheck {args.command}: " + " ".join(str(exc).split()), file=sys.stderr)
        return exit_status.USAGE
    except KeyboardInterrupt as interrupt:
        reason = stopped_by(interrupt)
        print(f"knapcheck {args.command}: {reason}", file=sys.stderr)
        return STATUSES[reason]
    except OutputTaken as exc:
        print(f"knapcheck {args.command}: {exc}", file=sys.stderr)
        return exit_status.INCOMPLETE
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"knapcheck {args.command}: standard output was closed before all was written to it (a reader such"
              " as `head` stopped early)", file=sys.stderr)
        return exit_status.INCOMPLETE
    except Exception:
        traceback.print_exc()
        print(f"knapcheck {args.command}: stopped by an internal error (above); please report it", file=sys.stderr)
        return exit_status.INCOMPLETE
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
