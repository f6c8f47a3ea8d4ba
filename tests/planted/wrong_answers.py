"""Planted wrong solvers that return quickly: what a check must catch, as module specs for tests."""


def takes_everything(memory, runtimes, max_memory):
    """Saves every item, whatever the budget."""
    return float(sum(runtimes)), list(range(len(memory))), []


def takes_nothing(memory, runtimes, max_memory):
    """Saves nothing: suboptimal whenever something fits."""
    return 0.0, [], list(range(len(memory)))
