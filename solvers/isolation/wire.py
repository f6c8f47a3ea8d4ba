"""Messages between the judging process and a worker: JSON, length-prefixed, size-limited.

Nothing that crosses is an object: the parent sends an instance as numbers, the worker sends back
an Outcome of plain data (``knapcheck.solvers.contract.answer``). JSON cannot run code when it is read, and every
message from a worker is refused unless it is smaller than the limit the parent sets for it (before
any of it is read), parses, and has exactly the Outcome's shape and types; a refused message is
the worker's failure, never the parent's.

Framing: an 8-byte big-endian length, then that many bytes: UTF-8 JSON from a worker, an
instance's float64s (``array``) to it.
"""

from __future__ import annotations

import json
import math
import select
import socket
import time
from array import array
from typing import cast

from ..contract import Instance
from ..contract.answer import INDEX_LIMIT, TEXT_LIMIT, Answer, clipped
from ..contract.outcome import KINDS, RETURNED, Outcome

_HEADER = 8
_TEXT_CHARACTERS = 6 * (TEXT_LIMIT + 100)
"""The longest text field: text ``clipped`` to TEXT_LIMIT characters and its note, each of which may
be a lone surrogate, written as a 6-character escape."""
_TEXT_BYTES = 12 * _TEXT_CHARACTERS
"""What such a field takes in JSON: at most 12 bytes a character (a character beyond the BMP, escaped)."""
_INDEX_BYTES = len(str(-INDEX_LIMIT)) + 2


class MessageRefused(Exception):
    """A worker's message that is too long, malformed or not an Outcome; the text says which."""


def outcome_limit(n: int) -> int:
    """The most bytes an Outcome for an instance of ``n`` items takes: its texts, a float and two
    lists of at most n indices each."""
    return 4096 + 5 * _TEXT_BYTES + 2 * n * _INDEX_BYTES


def send(connection: socket.socket, payload: bytes) -> None:
    connection.sendall(len(payload).to_bytes(_HEADER, "big") + payload)


def wait_readable(connection: socket.socket, timeout: float) -> bool:
    """Whether a message has started to arrive (or the other end closed) within ``timeout`` seconds."""
    poller = select.poll()
    poller.register(connection, select.POLLIN)
    return bool(poller.poll(max(0, int(timeout * 1000))))


def receive(connection: socket.socket, limit: int, deadline: float | None) -> bytes:
    """One message of at most ``limit`` bytes, complete by ``time.monotonic()`` ``deadline`` (None: no hurry).

    Raises EOFError when the other end closed, TimeoutError past the deadline, MessageRefused when
    the message announces more than ``limit`` bytes (none of it is read).
    """
    try:
        size = int.from_bytes(_exactly(connection, _HEADER, deadline), "big")
        if size > limit:
            raise MessageRefused(f"a message of {size} bytes, over the limit of {limit}")
        return _exactly(connection, size, deadline)
    finally:
        connection.settimeout(None)


def _exactly(connection: socket.socket, size: int, deadline: float | None) -> bytes:
    chunks, left = [], size
    while left:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the message did not arrive in time")
            connection.settimeout(remaining)
        try:
            chunk = connection.recv(min(left, 1 << 20))
        except socket.timeout:
            raise TimeoutError("the message did not arrive in time") from None
        if not chunk:
            raise EOFError("the other end closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def encode_instance(instance: Instance) -> bytes:
    """An instance as float64s: max_memory, then the memories, then the runtimes (exact, and fast)."""
    return array("d", [instance.max_memory, *instance.memory, *instance.runtimes]).tobytes()


def decode_instance(payload: bytes) -> Instance:
    numbers = array("d")
    numbers.frombytes(payload)
    n = (len(numbers) - 1) // 2
    return Instance(tuple(numbers[1 : n + 1]), tuple(numbers[n + 1 :]), numbers[0])


def encode_outcome(outcome: Outcome) -> bytes:
    """The Outcome as JSON, every text clipped (``clipped``) so that it is within what the parent takes."""
    answer = cast("Answer | None", outcome.answer)  # a worker's own outcome: call_in_process read the answer into an Answer
    document = {
        "kind": outcome.kind,
        "error": clipped(outcome.error),
        "changed_input": clipped(outcome.changed_input),
        "answer": None if answer is None else {
            "value": answer.value,
            "saved": answer.saved,
            "recomputable": answer.recomputable,
            "problem": clipped(answer.problem),
            "value_problem": clipped(answer.value_problem),
            "shown": clipped(answer.shown),
        },
    }
    return json.dumps(document, allow_nan=False).encode()


def _refuse_constant(name: str) -> None:
    raise MessageRefused(f"a non-finite number ({name})")


def decode_outcome(payload: bytes, n: int | None) -> Outcome:
    """An Outcome for an instance of ``n`` items from a worker's message; MessageRefused unless it is one.

    ``n`` None: the worker's first message, saying whether it loaded its target (no answer in it).
    """
    try:
        document = json.loads(payload, parse_constant=_refuse_constant)
    except MessageRefused:
        raise
    except (ValueError, RecursionError) as exc:
        raise MessageRefused(f"not JSON ({type(exc).__name__})") from None
    _fields(document, {"kind", "error", "changed_input", "answer"}, "the message")
    if document["kind"] not in KINDS:
        raise MessageRefused("an unknown kind of outcome")
    answer = document["answer"]
    if answer is not None:
        if document["kind"] != RETURNED or n is None:
            raise MessageRefused("an answer with an outcome that is not an answer")
        _fields(answer, {"value", "saved", "recomputable", "problem", "value_problem", "shown"}, "the answer")
        answer = Answer(
            _value(answer["value"]),
            _indices(answer["saved"], n),
            _indices(answer["recomputable"], n),
            problem=_text(answer["problem"]),
            value_problem=_text(answer["value_problem"]),
            shown=_text(answer["shown"]),
        )
        if (answer.saved is None) != (answer.recomputable is None) or (answer.saved is None and not answer.problem):
            raise MessageRefused("an answer without a partition, or without the reason")
        if answer.value is None and not (answer.value_problem or answer.problem):
            raise MessageRefused("an answer without a value, or without the reason")
    elif document["kind"] == RETURNED and n is not None:
        raise MessageRefused("a returned outcome without its answer")
    return Outcome(
        document["kind"], answer=answer, error=_text(document["error"]), changed_input=_text(document["changed_input"])
    )


def _fields(document: object, names: set[str], what: str) -> None:
    if type(document) is not dict or set(document) != names:
        raise MessageRefused(f"{what} does not have the fields {sorted(names)}")


def _text(value: object) -> str:
    if type(value) is not str or len(value) > _TEXT_CHARACTERS:
        raise MessageRefused("a text field that is not a string of at most the text limit")
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


def _value(value: object) -> float | None:
    if value is None:
        return None
    if type(value) is not float or not math.isfinite(value):
        raise MessageRefused("a value that is not a finite float")
    return value


def _indices(values: object, n: int) -> list[int] | None:
    if values is None:
        return None
    if type(values) is not list or len(values) > n:
        raise MessageRefused(f"indices that are not a list of at most {n}")
    if values and not (set(map(type, values)) == {int} and -INDEX_LIMIT < min(values) and max(values) < INDEX_LIMIT):
        raise MessageRefused("indices that are not all integers below 2**63 in size")
    return values
