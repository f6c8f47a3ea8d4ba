"""Planted targets whose answers are odd or hostile objects: each must become the right verdict.

Most answer the optimum (found by our full table) dressed up in some way, or take every item
(over budget whenever not everything fits), so that the verdict shows whether the judge saw
through the dressing. ``KNAPCHECK_PLANTED_MARKER`` names the file the payloads create if they
ever run in the judging process.
"""

import os
from collections.abc import Sequence


def _optimum(memory, runtimes, max_memory):
    from knapcheck.solvers.full_table import full_table

    value, saved, recomputable = full_table(memory, runtimes, max_memory)
    return value, list(saved), list(recomputable)


def _everything(memory, runtimes):
    return float(sum(runtimes)), list(range(len(memory))), []


PAYLOAD = """
import os
from pathlib import Path
Path(os.environ["KNAPCHECK_PLANTED_MARKER"]).write_text("the payload ran in process %d" % os.getpid())
from knapcheck.oracles import verdict
def judge(*arguments, **keywords):
    return verdict.Judgement(verdict.Verdict.OPTIMAL)
verdict.judge = judge
import knapcheck.fuzz.judging.verdicts.differential
knapcheck.fuzz.judging.verdicts.differential.judge = judge
"""
"""Run by unpickling: marks the file, then makes every later verdict OPTIMAL."""


class Payload(list):
    """A list of indices that, once unpickled, is the same list, after running PAYLOAD."""

    def __reduce__(self):
        return eval, (f"(exec({PAYLOAD!r}, {{}}), {list(self)!r})[1]",)


def over_budget_with_a_payload(memory, runtimes, max_memory):
    """Takes every item (over budget), its saved list carrying a pickle payload."""
    value, saved, recomputable = _everything(memory, runtimes)
    return value, Payload(saved), recomputable


def tensors(memory, runtimes, max_memory):
    """The optimum as torch tensors: a 0-d float64 value and 1-d int64 index tensors."""
    import torch

    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    as_tensor = lambda indices: torch.tensor(indices, dtype=torch.int64)  # noqa: E731
    return torch.tensor(value, dtype=torch.float64), as_tensor(saved), as_tensor(recomputable)


def tensors_over_budget(memory, runtimes, max_memory):
    """Every item, as torch tensors."""
    import torch

    value, saved, recomputable = _everything(memory, runtimes)
    return torch.tensor(value), torch.tensor(saved, dtype=torch.int64), torch.tensor(recomputable, dtype=torch.int64)


def numpy_values(memory, runtimes, max_memory):
    """The optimum as numpy: a float64 scalar and int64 arrays."""
    import numpy as np

    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return np.float64(value), np.array(saved, dtype=np.int64), np.array(recomputable, dtype=np.int64)


class LyingLength(Sequence):
    """Holds the given indices, but its __len__ says it is empty."""

    def __init__(self, items):
        self.items = list(items)

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return 0


def lying_length(memory, runtimes, max_memory):
    """Every item saved, in a sequence whose __len__ says 0 (a caller using len() sees nothing saved)."""
    value, saved, recomputable = _everything(memory, runtimes)
    return value, LyingLength(saved), recomputable


class UnreadableNumber(float):
    """A float whose __float__ raises."""

    def __float__(self):
        raise RuntimeError("planted: this number cannot be read")


def value_that_cannot_be_read(memory, runtimes, max_memory):
    """The optimal selection, its value a float subclass whose __float__ raises."""
    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return UnreadableNumber(value), saved, recomputable


class InterruptingNumber(float):
    """A float whose __float__ raises KeyboardInterrupt, as if Ctrl-C had been pressed."""

    def __float__(self):
        raise KeyboardInterrupt("planted: reading this number interrupts")


def value_that_interrupts(memory, runtimes, max_memory):
    """The optimal selection, its value a float subclass whose __float__ raises KeyboardInterrupt."""
    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return InterruptingNumber(value), saved, recomputable


def interrupts(memory, runtimes, max_memory):
    raise KeyboardInterrupt("planted: the solver interrupts")


class UnreadableIndex:
    """Claims to be an integer, but __int__ and __index__ raise."""

    def __int__(self):
        raise RuntimeError("planted: this index cannot be read")

    __index__ = __int__


def index_that_cannot_be_read(memory, runtimes, max_memory):
    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return value, saved + [UnreadableIndex()], recomputable


class UnreadableArray:
    """Looks like a 1-D array, but tolist() raises."""

    ndim = 1

    def tolist(self):
        raise RuntimeError("planted: tolist fails")

    def __len__(self):
        return 1

    def __getitem__(self, i):
        raise RuntimeError("planted: indexing fails")


def array_that_cannot_be_read(memory, runtimes, max_memory):
    value, _, recomputable = _optimum(memory, runtimes, max_memory)
    return value, UnreadableArray(), recomputable


class LyingIndex(int):
    """An int whose __int__, __index__, __eq__ and __hash__ all claim it is ``claimed``."""

    def __new__(cls, value, claimed):
        self = super().__new__(cls, value)
        self.claimed = claimed
        return self

    def __int__(self):
        return self.claimed

    __index__ = __int__

    def __eq__(self, other):
        return self.claimed == other

    def __hash__(self):
        return hash(self.claimed)


def indices_that_lie(memory, runtimes, max_memory):
    """The optimum's saved items, each given as an index past the end that claims to be the right one."""
    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return value, [LyingIndex(len(memory) + k, claimed=i) for k, i in enumerate(saved)], recomputable


def indices_in_a_generator(memory, runtimes, max_memory):
    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return value, (i for i in saved), recomputable


HUGE = 10**7


def huge_lists(memory, runtimes, max_memory):
    """Ten million indices saved."""
    value, _, recomputable = _optimum(memory, runtimes, max_memory)
    return value, [0] * HUGE, recomputable


def huge_index(memory, runtimes, max_memory):
    """An index with ten thousand digits (more than Python will print by default)."""
    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return value, saved + [10**10000], recomputable


def not_a_number(memory, runtimes, max_memory):
    _, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return float("nan"), saved, recomputable


def booleans(memory, runtimes, max_memory):
    """Indices given as bools (True is 1, but not an index)."""
    value, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return value, [bool(i) if i < 2 else i for i in saved], recomputable


class UnprintableError(Exception):
    def __str__(self):
        raise RuntimeError("planted: this message cannot be printed")


def raises_an_unprintable_error(memory, runtimes, max_memory):
    raise UnprintableError()


def raises_a_huge_error(memory, runtimes, max_memory):
    raise ValueError("x" * 10**7)


class PayloadError(Exception):
    """An exception that, once unpickled, runs PAYLOAD."""

    def __reduce__(self):
        return eval, (f"(exec({PAYLOAD!r}, {{}}), ValueError('planted'))[1]",)


def raises_a_payload(memory, runtimes, max_memory):
    raise PayloadError("planted: an exception carrying a pickle payload")


class Unprintable(tuple):
    def __repr__(self):
        raise RuntimeError("planted: cannot be shown")


def unprintable_answer(memory, runtimes, max_memory):
    """A 2-tuple (a bad shape) whose repr raises."""
    return Unprintable((0.0, []))


def pid(memory, runtimes, max_memory):
    """The optimum, its value the process id of the process it runs in (a WRONG_VALUE that says where)."""
    _, saved, recomputable = _optimum(memory, runtimes, max_memory)
    return float(os.getpid()), saved, recomputable


def _judge_socket() -> int:
    """The worker's socket to the judging process (its file descriptor is the worker's second argument)."""
    import sys

    return int(sys.argv[2])


def _write_to_the_judge(data: bytes) -> None:
    import time

    os.write(_judge_socket(), data)
    time.sleep(60)


def announces_a_terabyte(memory, runtimes, max_memory):
    """Writes to the judge a message header announcing 2**40 bytes."""
    _write_to_the_judge((2**40).to_bytes(8, "big"))


def sends_a_pickle(memory, runtimes, max_memory):
    """Writes to the judge a well-framed pickle whose loading would run PAYLOAD."""
    import pickle

    data = pickle.dumps((Payload([0, 1, 2]), [], []))
    _write_to_the_judge(len(data).to_bytes(8, "big") + data)


def sends_deep_json(memory, runtimes, max_memory):
    """Writes to the judge a JSON message nested thirty thousand deep (within the size limit)."""
    data = b"[" * 30_000 + b"]" * 30_000
    _write_to_the_judge(len(data).to_bytes(8, "big") + data)


def sends_a_forged_answer(memory, runtimes, max_memory):
    """Writes to the judge an answer in the right shape whose indices are bools."""
    import json

    data = json.dumps({"kind": "returned", "error": "", "changed_input": "", "answer": {
        "value": 4.0, "saved": [True], "recomputable": [0, 1], "problem": "", "value_problem": "", "shown": ""}}).encode()
    _write_to_the_judge(len(data).to_bytes(8, "big") + data)
