"""Our own solvers: adding one is one entry here, and every check then covers it."""

from solvers.registry import SolverEntry


def _full_table():
    from solvers.full_table import full_table

    return full_table


def _sliding_hirschberg():
    from solvers.sliding_hirschberg import sliding_hirschberg

    return sliding_hirschberg


def _cuda():
    from solvers.cuda_solver import cuda_knapsack

    return cuda_knapsack


ENTRIES = [
    SolverEntry(
        name="full_table",
        load=_full_table,
        exact=True,
        origin="ours",
        memory_model="n x (C+1) bytes of decisions, refused above max_table_bytes (2 GiB)",
        max_cells=500_000_000,
    ),
    SolverEntry(
        name="sliding_hirschberg",
        load=_sliding_hirschberg,
        exact=True,
        origin="ours",
        memory_model="two profile rows of C+1 cells (decision tables reuse the second): O(C + n)",
    ),
    SolverEntry(
        name="cuda",
        load=_cuda,
        exact=True,
        origin="ours",
        device="cuda",
        memory_model="on the device: two profile rows of C+1 cells + decision tables of at most 1 GiB;"
        " without a GPU, Triton's interpreter on CPU tensors",
    ),
]
