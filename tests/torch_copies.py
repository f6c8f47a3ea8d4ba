"""Copies of the installed torch's knapsack.py, unchanged or with one realistic edit, as a pull
request would bring them. Each edit replaces one passage of the source, which must be there once."""

import inspect
from pathlib import Path

SPLIT = (
    "        left_capacity = best_split\n",
    "        left_capacity = best_split + 1\n",
)
"""A second off-by-one in the Hirschberg split of dp_knapsack_sliding_hirschberg: the left half
gets one unit more, on top of the unit torch's split already hands out."""

MIP_GAP = (
    """    res = milp(
        c=c, constraints=constraints, integrality=integrality, bounds=Bounds(0, 1)
    )""",
    """    res = milp(
        c=c, constraints=constraints, integrality=integrality, bounds=Bounds(0, 1),
        options={"mip_rel_gap": 1e-2},
    )""",
)
"""ilp_knapsack stops at a relative MIP gap of 1e-2 instead of HiGHS' default 1e-4."""

ITEM_REUSE = (
    """            dp[i, current_memory:] = torch.maximum(
                dp[i - 1, current_memory:],
                dp[i - 1, :-current_memory] + current_runtime,
            )""",
    """            if quantized_max_memory <= 4096:
                dp[i, current_memory:] = torch.maximum(
                    dp[i - 1, current_memory:],
                    dp[i - 1, :-current_memory] + current_runtime,
                )
            else:
                # large capacities: update the row in place, one block of 4096 units at a time
                for lo in range(current_memory, quantized_max_memory + 1, 4096):
                    hi = min(quantized_max_memory + 1, lo + 4096)
                    dp[i, lo:hi] = torch.maximum(
                        dp[i, lo:hi], dp[i, lo - current_memory:hi - current_memory] + current_runtime
                    )""",
)
"""dp_knapsack above 4 096 capacity units updates its row in place by blocks: a block reads the
one below it already updated, so an item is taken more than once."""


def torch_source() -> str:
    from torch._functorch._activation_checkpointing import knapsack

    return Path(inspect.getsourcefile(knapsack)).read_text()


def write_copy(path: Path, edit: tuple[str, str] | None = None) -> Path:
    source = torch_source()
    if edit is not None:
        before, after = edit
        assert source.count(before) == 1, f"torch's knapsack.py no longer holds the passage to edit:\n{before}"
        source = source.replace(before, after)
    path.write_text(source)
    return path
