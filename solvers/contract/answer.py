"""A solver's answer as plain data: a float and two lists of Python ints, or why it is not that.

The judge never looks at the object a solver returned. ``plain_answer`` reads it once, in the
process that ran the solver, into an ``Answer`` of Python floats, ints and strings only: that is
what crosses to the judging process (``knapcheck.solvers.isolation.wire``) and what the judge judges.
Reading runs the target's own code (its ``__len__``, ``__iter__``, ``__float__``, ``tolist``), so
every step is guarded: whatever the object does, reading ends in an Answer, and a step that fails
is the reason in it. What is read:

- the answer: a tuple or a list (a subclass too, a NamedTuple say) of three items, read from its
  own storage, whatever its ``__len__``, ``__iter__`` or ``__getitem__`` say (and ``len()`` must agree);
- the value: a real number other than a bool (a Python, numpy or 0-d torch number), by ``float()``;
  it must be finite;
- saved and recomputable: each a list or tuple (read from its storage, ``len()`` agreeing), a 1-D
  numpy array or torch tensor (read with ``tolist()``), or another sequence (read by iterating,
  ``len()`` agreeing); at most n items, since a partition of range(n) has no more;
- each index: an ``int`` other than a bool, a numpy integer or a 0-d integer tensor. An int
  subclass counts as the int it holds, which is what indexing a list uses, whatever its
  ``__index__``, ``__int__``, ``__eq__`` or ``__hash__`` claim. Indices of 2**63 or more in size
  are refused (no list has them; and Python will not print an int of over 4300 digits).

An index that cannot be read makes the partition unreadable (the judge's BAD_PARTITION); a value
that cannot be read is the judge's WRONG_VALUE, decided after the selection is judged.
"""

from __future__ import annotations

import math
import numbers
import reprlib
import sys
from collections.abc import Sequence, Sized
from dataclasses import dataclass
from typing import Any, SupportsInt, TypeGuard, cast

TEXT_LIMIT = 2000
"""Characters kept of any text a target supplies: an error message, the way an answer prints."""
INDEX_LIMIT = 2**63
"""Indices must be smaller than this in size."""

TARGETS_OWN: tuple[type[BaseException], ...] = (Exception,)
"""What reading an answer takes for a failure of the target's own code. In a worker process
(``in_worker``) a KeyboardInterrupt is one too: the worker runs in a session of its own, where no
Ctrl-C reaches it, so only the target raises one there. In the judging process it is a Ctrl-C, and
must stop the run."""

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxtuple, _SHORT.maxstring, _SHORT.maxother = 3, 20, 6, 80, 200


@dataclass(frozen=True)
class Answer:
    """What a solver returned, read as plain data. It unpacks and indexes as ``(value, saved, recomputable)``."""

    value: float | None
    """The reported total; None when it is not a finite real number (``value_problem`` says why)."""
    saved: list[int] | None
    recomputable: list[int] | None
    """None (both) when they are not two sequences of indices (``problem`` says why)."""
    problem: str = ""
    value_problem: str = ""
    shown: str = ""
    """How what the solver returned prints (cut to TEXT_LIMIT), when something could not be read."""

    def __iter__(self):
        return iter((self.value, self.saved, self.recomputable))

    def __getitem__(self, index):
        return (self.value, self.saved, self.recomputable)[index]

    def __len__(self) -> int:
        return 3

    def __repr__(self) -> str:
        if self.problem or self.value_problem:
            return self.shown
        return repr((self.value, self.saved, self.recomputable))


def in_worker() -> None:
    """Take a KeyboardInterrupt for the target's own failure from now on, like any exception (``TARGETS_OWN``)."""
    global TARGETS_OWN
    TARGETS_OWN = (Exception, KeyboardInterrupt)


def clipped(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was, and printable as UTF-8 (a lone
    surrogate, which no UTF-8 output takes, is written as its escape)."""
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text)} characters, cut to {limit})"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def shown(value: object, limit: int = TEXT_LIMIT) -> str:
    """How ``value`` prints, shortened; a plain description when its repr fails."""
    try:
        text = _SHORT.repr(value)
        if not isinstance(text, str):
            raise TypeError("repr did not return a str")
    except TARGETS_OWN as exc:
        return f"a {_type_name(value)} that cannot be printed ({_type_name(exc)})"
    return clipped(text, limit)


def exception_text(exc: BaseException) -> str:
    """``Type: message`` of an exception, cut to TEXT_LIMIT; its message may itself fail to print."""
    try:
        message = str(exc)
        if not isinstance(message, str):
            raise TypeError("str did not return a str")
    except TARGETS_OWN as failure:
        message = f"(its message cannot be printed: {_type_name(failure)})"
    return clipped(f"{_type_name(exc)}: {message}" if message else _type_name(exc))


def _type_name(value: object) -> str:
    name = type(value).__name__
    return name if isinstance(name, str) else "object"


class _Unreadable(Exception):
    """A part of an answer that is not what the contract asks, with the reason."""


class _LyingLength(_Unreadable):
    """A container whose ``len()`` disagrees with the items it holds."""


def plain_answer(returned: object, n: int) -> Answer:
    """Read what a solver returned on an instance of ``n`` items; never raises."""
    try:
        return _read(returned, n)
    except TARGETS_OWN as exc:
        return Answer(None, None, None, problem=f"the answer cannot be read ({exception_text(exc)})",
                      shown=shown(returned))


def _read(returned: object, n: int) -> Answer:
    try:
        value, saved, recomputable = _items(returned, 3, "the answer")
    except _Unreadable as exc:
        problem = f"expected a (value, saved, recomputable) tuple, got {shown(returned)}"
        if isinstance(exc, _LyingLength):
            problem += f": {exc}"
        return Answer(None, None, None, problem=problem, shown=shown(returned))
    read_saved: list[int] | None
    read_recomputable: list[int] | None
    try:
        read_saved, read_recomputable = _indices(saved, "saved", n), _indices(recomputable, "recomputable", n)
        problem = ""
    except _Unreadable as exc:
        read_saved, read_recomputable, problem = None, None, str(exc)
    try:
        number, value_problem = _value(value), ""
    except _Unreadable as exc:
        number, value_problem = None, str(exc)
    if not (problem or value_problem):
        return Answer(number, read_saved, read_recomputable)
    return Answer(number, read_saved, read_recomputable, problem=problem, value_problem=value_problem, shown=shown(returned))


def _items(values: object, expected: int, name: str) -> list[object]:
    """The items of a tuple or list, from its own storage, when it holds ``expected`` of them."""
    kind = type(values)
    base: type[Sequence[object]] | None = tuple if issubclass(kind, tuple) else list if issubclass(kind, list) else None
    if base is None:
        raise _Unreadable(f"{name} is a {_type_name(values)}")
    stored = cast(Sequence[object], values)  # its type subclasses tuple or list (above), whatever isinstance() would say
    size = base.__len__(stored)
    if size != expected:
        raise _Unreadable(f"{name} holds {size} items")
    _check_length(stored, size, name)
    return list(base.__getitem__(stored, slice(None)))


def _check_length(values: Sized, size: int, name: str) -> None:
    """``len()`` of a container must agree with the items it holds (a caller may trust either)."""
    try:
        claimed = len(values)
    except TARGETS_OWN as exc:
        raise _LyingLength(f"{name}: len() fails ({exception_text(exc)})") from None
    if claimed != size:
        raise _LyingLength(f"{name}: len() says {shown(claimed, 60)}, but it holds {size} items")


def _module_type(value: object, module: str, name: str) -> bool:
    """Whether ``value`` is exactly ``module.name`` (only if that module is loaded: nothing is imported)."""
    loaded = sys.modules.get(module)
    return loaded is not None and type(value) is getattr(loaded, name, None)


def _indices(values: object, name: str, n: int) -> list[int]:
    """A sequence of indices as a list of ints, or _Unreadable saying what is wrong."""
    kind = type(values)
    if issubclass(kind, (str, bytes, bytearray)):
        raise _Unreadable(f"{name} must be a sequence of indices, got {_type_name(values)} {shown(values, 60)}")
    items: Sequence[object]
    if issubclass(kind, (list, tuple)):
        base: type[Sequence[object]] = list if issubclass(kind, list) else tuple
        stored = cast(Sequence[object], values)  # its type subclasses list or tuple (above), whatever isinstance() would say
        size = base.__len__(stored)
        _check_size(size, name, n)
        _check_length(stored, size, name)
        items = base.__getitem__(stored, slice(None))
    elif _module_type(values, "numpy", "ndarray") or _module_type(values, "torch", "Tensor") or _looks_like_an_array(values):
        items = _array_items(values, name, n)
    elif isinstance(values, Sequence):
        items = _iterated(values, name, n)
    else:
        raise _Unreadable(
            f"{name} must be a sequence (a list, a tuple, a 1-D numpy array or torch tensor), got {_type_name(values)}"
        )
    exact = cast(Sequence[int], items)  # relied on only once each item's type is found to be exactly int
    if set(map(type, items)) <= {int} and (not exact or -INDEX_LIMIT < min(exact) and max(exact) < INDEX_LIMIT):
        return list(exact)
    return [_index(item) for item in items]


def _check_size(size: int, name: str, n: int) -> None:
    if size > n:
        raise _Unreadable(f"{name} holds {size} items, more than the {n} the instance has")


def _looks_like_an_array(values: object) -> bool:
    try:
        return hasattr(values, "ndim") and hasattr(values, "tolist")
    except TARGETS_OWN:
        return False


def _array_items(values: Any, name: str, n: int) -> list[object]:
    """A 1-D array's items as Python numbers (``tolist()``). ``values`` is any object that may act as
    an array (hence Any): each attribute it lacks or call that fails is caught below."""
    try:
        ndim = values.ndim
        if ndim != 1:
            raise _Unreadable(f"{name} must be one-dimensional, got a {shown(ndim, 20)}-dimensional {_type_name(values)}")
        _check_size(len(values), name, n)
        items = values.tolist()
    except _Unreadable:
        raise
    except TARGETS_OWN as exc:
        raise _Unreadable(f"{name}: a {_type_name(values)} that cannot be read ({exception_text(exc)})") from None
    if type(items) is not list:
        raise _Unreadable(f"{name}: tolist() returned a {_type_name(items)}, not a list")
    _check_size(len(items), name, n)
    return items


def _iterated(values: Sequence[object], name: str, n: int) -> list[object]:
    """Up to n + 1 items of a sequence, by iterating it."""
    items: list[object] = []
    try:
        for item in values:
            items.append(item)
            if len(items) > n:
                raise _Unreadable(f"{name} holds more than the {n} items the instance has")
    except _Unreadable:
        raise
    except TARGETS_OWN as exc:
        raise _Unreadable(f"{name}: iterating it fails ({exception_text(exc)})") from None
    _check_length(values, len(items), name)
    return items


def _stray(item: object) -> _Unreadable:
    return _Unreadable(f"saved and recomputable must hold integer indices, got {_type_name(item)} {shown(item, 60)}")


def _index(item: object) -> int:
    kind = type(item)
    index: int
    if kind is int:
        index = cast(int, item)  # its type is int
    elif kind is bool:
        raise _stray(item)
    elif issubclass(kind, int):
        index = int.__index__(cast(int, item))  # its type subclasses int
    elif _numpy_integer(item):
        index = int(item)
    elif _module_type(item, "torch", "Tensor"):
        index = _tensor_integer(item)
    else:
        raise _stray(item)
    if not -INDEX_LIMIT < index < INDEX_LIMIT:
        raise _Unreadable("saved and recomputable must hold indices below 2**63 in size, got one of "
                          f"{index.bit_length()} bits")
    return index


def _numpy_integer(item: object) -> TypeGuard[SupportsInt]:
    numpy = sys.modules.get("numpy")
    return numpy is not None and type(item).__module__ == "numpy" and isinstance(item, numpy.integer)


def _tensor_integer(item: Any) -> int:
    """A 0-d integer tensor's value; ``item`` is typed Any as it may be a torch tensor or a target's
    stand-in for one: whatever it lacks or fails at makes it a stray."""
    try:
        dtype = item.dtype
        if item.ndim != 0 or dtype.is_floating_point or dtype.is_complex or str(dtype) == "torch.bool":
            raise _stray(item)
        index = item.item()
    except _Unreadable:
        raise
    except TARGETS_OWN:
        raise _stray(item) from None
    if type(index) is not int:
        raise _stray(item)
    return index


def _value(value: object) -> float:
    """The reported total as a finite float."""
    kind = type(value)
    number: float
    if kind is float:
        number = cast(float, value)  # its type is float
    elif kind is bool or not (isinstance(value, numbers.Real) or _module_type(value, "torch", "Tensor")):
        raise _Unreadable(f"the reported value must be a real number, got {_type_name(value)} {shown(value, 60)}")
    elif _module_type(value, "torch", "Tensor"):
        number = _tensor_number(value)
    else:
        try:
            number = float(cast(numbers.Real, value))  # a numbers.Real: neither a bool nor a tensor (above)
        except OverflowError:
            raise _Unreadable(f"the reported value {shown(value, 60)} is beyond float64's range") from None
        except TARGETS_OWN as exc:
            raise _Unreadable(
                f"the reported value, a {_type_name(value)}, cannot be read as a float ({exception_text(exc)})"
            ) from None
        if type(number) is not float:
            raise _Unreadable(f"the reported value, a {_type_name(value)}, does not convert to a float")
    if not math.isfinite(number):
        raise _Unreadable(f"the reported value must be finite, got {number!r}")
    return number


def _tensor_number(value: Any) -> float:
    """A 0-d real tensor's value as a float; ``value`` is typed Any as a target's tensor may misbehave:
    whatever it lacks or fails at is _Unreadable."""
    try:
        dtype = value.dtype
        if value.ndim != 0 or dtype.is_complex or str(dtype) == "torch.bool":
            raise _Unreadable(
                f"the reported value must be a real number, got a {value.ndim}-dimensional {dtype} tensor"
            )
        number = value.item()
    except _Unreadable:
        raise
    except TARGETS_OWN as exc:
        raise _Unreadable(f"the reported value, a tensor, cannot be read ({exception_text(exc)})") from None
    if type(number) not in (int, float):
        raise _Unreadable(f"the reported value, a tensor, reads as a {_type_name(number)}")
    try:
        return float(number)
    except OverflowError:
        raise _Unreadable("the reported value is beyond float64's range") from None
