"""A planted exact solver that prints as it works, from Python and from C (straight to file
descriptor 1), the way HiGHS does under scipy's milp in torch's ilp_knapsack."""

import ctypes
import sys

CHATTER = "Running HiGHS 1.0: planted chatter"


def chatters(memory, runtimes, max_memory):
    from knapcheck.solvers.full_table import full_table

    print(CHATTER + " (Python)")
    sys.stdout.flush()
    ctypes.CDLL(None).printf((CHATTER + " (C)\n").encode())
    ctypes.CDLL(None).fflush(None)
    return full_table(memory, runtimes, max_memory)


FLOOD_MIB = 96


def floods(memory, runtimes, max_memory):
    """Writes FLOOD_MIB MiB to file descriptor 1, then answers exactly."""
    import os

    from knapcheck.solvers.full_table import full_table

    line = b"planted flood " * 74 + b"\n"
    chunk = line * (2**20 // len(line)) + b"." * (2**20 % len(line))
    for _ in range(FLOOD_MIB):
        os.write(1, chunk)
    return full_table(memory, runtimes, max_memory)


def prints_a_lot(memory, runtimes, max_memory):
    """Writes 2 MiB to file descriptor 1 on every call, then answers exactly."""
    import os

    from knapcheck.solvers.full_table import full_table

    os.write(1, (b"planted output " * 64 + b"\n") * (2**21 // 961) + b"." * (2**21 % 961))
    return full_table(memory, runtimes, max_memory)
