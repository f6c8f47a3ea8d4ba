"""A planted candidate that rebinds the installed torch's ``dp_knapsack`` when it is imported, as a pull
request's file may: whoever calls ``torch:dp_knapsack`` in the same process afterwards calls the
rebound function, which appends a line to the file KNAPCHECK_PLANTED_MARKER names (then solves as
torch does). Its own ``dp_knapsack`` is torch's, unchanged."""

import os

import torch._functorch._activation_checkpointing.knapsack as upstream

dp_knapsack = upstream.dp_knapsack


def _rebound(memory, runtime, max_memory):
    with open(os.environ["KNAPCHECK_PLANTED_MARKER"], "a") as marker:
        marker.write(f"the rebound dp_knapsack ran in process {os.getpid()}\n")
    return dp_knapsack(memory, runtime, max_memory)


upstream.dp_knapsack = _rebound
