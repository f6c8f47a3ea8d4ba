"""Copies of the installed torch's knapsack.py, unchanged or with one realistic edit, as a pull
request would bring them. Each edit replaces one passage of the source, which must be there once."""

import inspect
from pathlib import Path
from typing import cast

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


SPLIT_FIX = (
    "        right_capacity = capacity - best_split\n",
    "        right_capacity = (capacity - 1) - best_split\n",
)
"""The fix of torch's Hirschberg split: the two halves share the segment's capacity, not one unit more."""

ILP_HALF = (
    "        if i == 1:\n",
    "        if i > 0.5:\n",
)
"""ilp_knapsack reads HiGHS' solution with ``x > 0.5`` instead of ``x == 1`` (a fix of the items at
0.9999999 it dropped from the saved set)."""

GREEDY_ZERO_MEMORY = (
    "    items = sorted(items, key=lambda i: runtimes[i] / memory[i], reverse=True)\n",
    "    items = sorted(items, key=lambda i: runtimes[i] / memory[i] if memory[i] else float(\"inf\"), reverse=True)\n",
)
"""greedy_knapsack ranks a zero-memory item first instead of dividing by its zero memory."""

DP_FLOAT64 = (
    ("    runtimes = torch.tensor(runtime, dtype=torch.float32, device=\"cpu\")\n",
     "    runtimes = torch.tensor(runtime, dtype=torch.float64, device=\"cpu\")\n"),
    ("        (n + 1, quantized_max_memory + 1), dtype=torch.float32, device=\"cpu\"\n",
     "        (n + 1, quantized_max_memory + 1), dtype=torch.float64, device=\"cpu\"\n"),
)
"""dp_knapsack's table and runtimes in float64 instead of float32."""

DP_ASCENDING_MEMORY = (
    ("""    quantized_memory = torch.tensor(
        [round(m * S) for m in memory], dtype=torch.long, device="cpu"
    )
    runtimes = torch.tensor(runtime, dtype=torch.float32, device="cpu")
""", """    order = sorted(range(len(memory)), key=lambda i: round(memory[i] * S))
    quantized_memory = torch.tensor(
        [round(memory[i] * S) for i in order], dtype=torch.long, device="cpu"
    )
    runtimes = torch.tensor([runtime[i] for i in order], dtype=torch.float32, device="cpu")
"""),
    ("            saved_items.append(i - 1)  # Include this item (indexing from 0)\n",
     "            saved_items.append(order[i - 1])  # Include this item (indexing from 0)\n"),
    ("            recomputable_items.append(i - 1)\n",
     "            recomputable_items.append(order[i - 1])\n"),
)
"""A refactor of dp_knapsack: the items in ascending memory order, their indices mapped back.
Exact wherever torch's dp_knapsack is exact; float32 absorbs other runtimes than torch's order does."""

GREEDY_STRICT_FIT = (
    "        if total_memory + memory[i] <= max_memory:\n",
    "        if total_memory + memory[i] < max_memory:\n",
)
"""greedy_knapsack's fit test with ``<``: an item that fills the budget exactly is left out (valid,
saves less)."""


BACKTRACK_TOLERANCE = (
    "        if dp[i][j] != dp[i - 1][j]:\n",
    "        if abs(dp[i][j] - dp[i - 1][j]) > 1e-6:\n",
)
"""dp_knapsack's backtrack compares table cells with a tolerance of 1e-6: an item whose runtime is
below it is never saved."""


def torch_source() -> str:
    from torch._functorch._activation_checkpointing import knapsack

    return Path(cast(str, inspect.getsourcefile(knapsack))).read_text()  # torch ships the module's source


def write_copy(path: Path, edit: tuple | None = None) -> Path:
    """``edit``: one (before, after) passage, or a tuple of them for a change of several hunks."""
    source = torch_source()
    hunks = () if edit is None else (edit,) if isinstance(edit[0], str) else edit
    for before, after in hunks:
        assert source.count(before) == 1, f"torch's knapsack.py no longer holds the passage to edit:\n{before}"
        source = source.replace(before, after)
    path.write_text(source)
    return path


FLOAT16_PROFILES = (
    """    dp_profile = torch.zeros(dp_profile_size, dtype=torch.float32, device="cpu")
    # Store a candidate for next dp_profile - current dp row + item
    candidate_profile = torch.empty(dp_profile_size, dtype=torch.float32, device="cpu")
    left_profile = torch.empty(dp_profile_size, dtype=torch.float32, device="cpu")
    right_profile = torch.empty(dp_profile_size, dtype=torch.float32, device="cpu")
""",
    """    # Past 65 536 units, half the memory: float16 profiles
    dtype = torch.float16 if q_max_memory > 65536 else torch.float32
    dp_profile = torch.zeros(dp_profile_size, dtype=dtype, device="cpu")
    # Store a candidate for next dp_profile - current dp row + item
    candidate_profile = torch.empty(dp_profile_size, dtype=dtype, device="cpu")
    left_profile = torch.empty(dp_profile_size, dtype=dtype, device="cpu")
    right_profile = torch.empty(dp_profile_size, dtype=dtype, device="cpu")
""",
)
"""dp_knapsack_sliding_hirschberg keeps its profiles in float16 when the capacity exceeds 65 536
units: float16 rounds 2049 to 2048 and overflows past 65 504, so the split picks the wrong item."""

INDEX_MAPPING = (
    ("""    # Quantize the memory weights
    quantized_memory = torch.tensor(""", """    # Many items: lightest first, then map the indices back
    order = sorted(range(len(memory)), key=lambda i: memory[i]) if len(memory) > 64 else None
    if order is not None:
        memory, runtime = [memory[i] for i in order], [runtime[i] for i in order]

    # Quantize the memory weights
    quantized_memory = torch.tensor("""),
    ("""    max_runtime = dp[n][quantized_max_memory].item()
""", """    max_runtime = dp[n][quantized_max_memory].item()
    if order is not None:
        saved_items = [order.index(i) for i in saved_items]
        recomputable_items = [order.index(i) for i in recomputable_items]
"""),
)
"""dp_knapsack sorts more than 64 items by memory and maps the indices back with the inverse
permutation (``order.index(i)``) where ``order[i]`` is meant: the saved set is wrong only past 64 items."""


SPLIT_HALVES_EXCHANGED = (
    ("        left_start, left_end = middle, end\n", "        left_start, left_end = start, middle\n"),
    ("        right_start, right_end = start, middle\n", "        right_start, right_end = middle, end\n"),
)
"""dp_knapsack_sliding_hirschberg with its two halves exchanged: correct, and torch's split defect
is still there, over-filling other instances than torch's."""

SPLIT_LAST_BEST = (
    "        best_split = int(torch.argmax(left_dp_local).item())\n",
    "        best_split = capacity - 1 - int(torch.argmax(left_dp_local.flip(-1)).item())\n",
)
"""dp_knapsack_sliding_hirschberg takes the last of several best split points instead of the first."""

SPLIT_BY_WEIGHT = (
    "        middle = start + (length // 2)\n",
    """        # Split where the items' weights balance, not at the middle item
        total = sum(q_memory[item_indices[k]] for k in range(start, end))
        middle, running = start + 1, q_memory[item_indices[start]]
        while middle < end - 1 and 2 * running < total:
            running += q_memory[item_indices[middle]]
            middle += 1
""",
)
"""dp_knapsack_sliding_hirschberg splits a segment where its items' weights balance, not at its
middle item: correct, with torch's split defect moved."""

SPLIT_ROUNDED_UP = (
    "        middle = start + (length // 2)\n",
    "        middle = start + (length + 1) // 2\n",
)
"""dp_knapsack_sliding_hirschberg gives the odd item of a segment to its first half."""

RUNTIMES_FLOAT16 = (
    "    runtimes = torch.tensor(runtime, dtype=torch.float32, device=\"cpu\")\n",
    "    runtimes = torch.tensor(runtime, dtype=torch.float16, device=\"cpu\")\n",
)
"""dp_knapsack reads the runtimes in float16 (its table stays float32): float16 rounds 2049 to 2048."""


DP_WEIGHTS = """    quantized_memory = torch.tensor(
        [round(m * S) for m in memory], dtype=torch.long, device="cpu"
    )
"""


def dp_weights_in(dtype: str) -> tuple[str, str]:
    """dp_knapsack's quantized weights in ``dtype`` (``int32``, ``int16``) instead of int64: torch
    refuses to convert a weight past the type's largest value."""
    return DP_WEIGHTS, DP_WEIGHTS.replace("torch.long", f"torch.{dtype}")


INT32_WEIGHTS = dp_weights_in("int32")
"""dp_knapsack with int32 weights ("half the memory"): it raises on an item past 2**31 - 1 units,
though such an item fits nowhere the table reaches."""
INT16_WEIGHTS = dp_weights_in("int16")
"""dp_knapsack with int16 weights: it raises on an item past 32 767 units."""


def dp_table_coarsened(columns: int) -> tuple[str, str]:
    """dp_knapsack bounds its table at ``columns`` columns: past it, weights and capacity are counted
    in coarser units (weights rounded up, the capacity down), so the selection still fits but an
    optimum that fills the capacity exactly may not."""
    return (
        "    quantized_max_memory = round(max_memory * S)\n",
        f"""    quantized_max_memory = round(max_memory * S)

    # Bound the table at {columns} columns: past it, count in coarser units (items rounded up)
    unit = -(-quantized_max_memory // {columns})
    if unit > 1:
        quantized_memory = -(-quantized_memory // unit)
        quantized_max_memory //= unit
""",
    )


def sliding_profile_capped(cells: int) -> tuple[str, str]:
    """dp_knapsack_sliding_hirschberg bounds its profiles at ``cells`` + 1 cells: the capacity is cut to ``cells``."""
    return (
        "    q_max_memory = int(round(max_memory * S))\n",
        f"    # Profiles of at most {cells} + 1 cells\n    q_max_memory = min(int(round(max_memory * S)), {cells})\n",
    )


def width_named_split_fix(source: str) -> str:
    """torch's Hirschberg split fixed by naming the profiles' width ``width = capacity + 1`` and
    keeping ``capacity`` the segment's: the line ``right_capacity = capacity - best_split`` stays,
    now right."""
    edits = [
        ("        capacity = capacity + 1\n", "        width = capacity + 1\n", 1),
        ("_profile[:capacity]\n", "_profile[:width]\n", 4),
        ("            if memory_item >= capacity:\n", "            if memory_item >= width:\n", 2),
        ("candidate_view[: capacity - memory_item]\n", "candidate_view[: width - memory_item]\n", 2),
    ]
    for before, after, count in edits:
        assert source.count(before) == count, f"torch's knapsack.py no longer holds {before!r} {count} times"
        source = source.replace(before, after)
    return source


FINFO_TOLERANCE = (
    "        if dp[i][j] != dp[i - 1][j]:\n",
    "        if abs(dp[i][j] - dp[i - 1][j]) > 8 * torch.finfo(torch.float32).eps * abs(dp[n][quantized_max_memory]):\n",
)
"""dp_knapsack's backtrack ignores differences within 8 float32 epsilons of the total: a new bug that
drops the item of runtime 1 beside 1048576 and 4, float32-exact runtimes torch is optimal on."""

SPLIT_IN_HELPER = (
    ("def dp_knapsack_sliding_hirschberg(\n", '''def _split_capacities(best_split: int, capacity: int) -> tuple[int, int]:
    left_capacity = best_split
    right_capacity = capacity - best_split
    return left_capacity, right_capacity


def dp_knapsack_sliding_hirschberg(
'''),
    ("""        left_capacity = best_split
        right_capacity = capacity - best_split
""", """        left_capacity, right_capacity = _split_capacities(best_split, capacity)
"""),
)
"""dp_knapsack_sliding_hirschberg with torch's split, off-by-one and all, moved into a module-level helper."""

SPLIT_QUOTED = (
    ("""    # Scaling factor to convert floating point weights to integers
    S = 10000

    # q_ prefix stands for quantized""", '''    """Sliding-window DP with Hirschberg's split. Upstream's split reads
    ``right_capacity = capacity - best_split`` (see below)."""
    # Scaling factor to convert floating point weights to integers
    S = 10000

    # q_ prefix stands for quantized'''),
    ("        right_capacity = capacity - best_split\n",
     "        # right_capacity = capacity - best_split hands out one unit too many?\n"
     "        right_capacity = capacity - best_split\n"),
)
"""dp_knapsack_sliding_hirschberg with a docstring and a comment that quote torch's split line."""
