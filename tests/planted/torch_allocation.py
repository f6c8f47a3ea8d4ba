"""A planted target that asks torch for a terabyte: torch raises "can't allocate memory"."""

import torch


def allocates_a_terabyte(memory, runtimes, max_memory):
    return torch.empty(2**40, dtype=torch.uint8)
