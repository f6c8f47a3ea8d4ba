"""Our own solvers, as data: adding one is one entry here, and every check then covers it."""

from .contract import BUDGET_SAFE
from .entry import SolverEntry

FULL_TABLE_MAX_CELLS = 500_000_000
FULL_TABLE_MAX_CAPACITY = (2 * 2**30 - FULL_TABLE_MAX_CELLS) // 16 - 1
"""Beside at most FULL_TABLE_MAX_CELLS bytes of decisions, full_table's two 8-byte value rows of C+1
cells must fit its default max_table_bytes (2 GiB); a larger capacity is refused whatever n is."""

SLIDING_MAX_CAPACITY = 2**28 - 1
"""Two profile rows of 8-byte cells within sliding_hirschberg.MAX_PROFILE_BYTES (4 GiB); larger
capacities may be refused (with narrower cells or a gcd above 1 they are still solved)."""

OURS = (
    SolverEntry(
        name="full_table",
        spec="knapcheck.solvers.full_table:full_table",
        exact=True,
        origin="ours",
        memory_model="n x (C+1) bytes of decisions, refused above max_table_bytes (2 GiB)",
        max_cells=FULL_TABLE_MAX_CELLS,
        max_capacity=FULL_TABLE_MAX_CAPACITY,
    ),
    SolverEntry(
        name="sliding_hirschberg",
        spec="knapcheck.solvers.sliding_hirschberg:sliding_hirschberg",
        exact=True,
        origin="ours",
        memory_model="two profile rows of C+1 cells (decision tables reuse the second): O(C + n)",
        max_capacity=SLIDING_MAX_CAPACITY,
    ),
    SolverEntry(
        name="budget_safe",
        spec="knapcheck.solvers.budget_safe:budget_safe",
        exact=True,
        origin="ours",
        memory_model="sliding_hirschberg's, on weights rounded up and the capacity rounded down",
        max_capacity=SLIDING_MAX_CAPACITY,
        rounding=BUDGET_SAFE,
    ),
    SolverEntry(
        name="expanding_core",
        spec="knapcheck.solvers.expanding_core:expanding_core",
        exact=True,
        origin="ours",
        memory_model="undominated (weight, profit) states of a core around the break item, and a"
        " checkpoint of them every 62 core steps, the same again for a surrogate problem, and at most"
        " 2**16 selections of a group of items when pairing, or, for items of two efficiencies, O(n) subset"
        " sums of their multipliers: independent of C",
    ),
    SolverEntry(
        name="cuda",
        spec="knapcheck.solvers.cuda_solver:cuda_knapsack",
        exact=True,
        origin="ours",
        device="cuda",
        memory_model="on the device: two profile rows of C+1 cells + decision tables of at most 1 GiB;"
        " without a GPU, Triton's interpreter on CPU tensors",
        max_capacity=SLIDING_MAX_CAPACITY,
        requires=(("triton", "cuda"),),
        isolate=True,
        # A worker of its own: without a GPU its kernels run in Triton's interpreter, as much CPU as
        # every other solver of a check together, which the worker spends beside this process; with
        # one, the device's context and its failures stay out of the checking process.
    ),
)
