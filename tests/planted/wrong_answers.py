"""Planted wrong solvers that return quickly: what a check must catch, as module specs for tests."""


def takes_everything(memory, runtimes, max_memory):
    """Saves every item, whatever the budget."""
    return float(sum(runtimes)), list(range(len(memory))), []


def takes_nothing(memory, runtimes, max_memory):
    """Saves nothing: suboptimal whenever something fits."""
    return 0.0, [], list(range(len(memory)))


def _optimum(memory, runtimes, max_memory):
    from knapcheck.solvers.full_table import full_table

    return full_table(memory, runtimes, max_memory)


def value_as_text(memory, runtimes, max_memory):
    """The optimal selection, its total given as a string."""
    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return str(value), saved, recomputable


def saved_as_a_dict(memory, runtimes, max_memory):
    """The optimal selection as the keys of a dict (iterating it yields the right indices)."""
    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return value, dict.fromkeys(saved, "saved"), recomputable


def zeroes_the_runtimes_it_was_given(memory, runtimes, max_memory):
    """The optimal answer, after which the caller's runtimes list reads all zeros."""
    answer = _optimum(memory, runtimes, max_memory)
    runtimes[:] = [0.0] * len(runtimes)
    return answer


def refuses_everything(memory, runtimes, max_memory):
    """Declines every problem with the contract's documented refusal."""
    from knapcheck.solvers.contract import ProblemTooLarge

    raise ProblemTooLarge("planted: refuses every size")


def saves_only_the_first(memory, runtimes, max_memory):
    """Saves item 0 alone, reporting its runtime."""
    return float(runtimes[0]), [0], list(range(1, len(memory)))


def saves_nothing_past_tiny_runtimes(memory, runtimes, max_memory):
    """Optimal while every runtime is at most 60, the most the tiny family draws; saves nothing
    beyond. Only an image of a tiny instance with its runtimes tripled reaches there."""
    if max(runtimes, default=0) > 60:
        return takes_nothing(memory, runtimes, max_memory)
    return _optimum(memory, runtimes, max_memory)
