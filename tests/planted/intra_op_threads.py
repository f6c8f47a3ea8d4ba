"""A solver that answers with the number of intra-op threads torch gives it, as its value."""

import torch


def threads_as_value(memory, runtimes, max_memory):
    return float(torch.get_num_threads()), [], list(range(len(memory)))
