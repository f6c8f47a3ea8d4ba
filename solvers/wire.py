"""Messages between the judging process and a worker: JSON, length-prefixed, size-limited.

Nothing that crosses is an object: the parent sends an instance, the worker sends back an Outcome
of plain data (``knapcheck.solvers.answer``). JSON cannot run code when it is read, and every
message from a worker is refused unless it is smaller than the limit the parent sets for it (before
any of it is read), parses, and has exactly the Outcome's shape and types; a refused message is
the worker's failure, never the parent's.

Framing: an 8-byte big-endian length, then that many bytes of UTF-8 JSON.
"""

from __future__ import annotations

import json
import math
import select
import socket
import time

from knapcheck.solvers.answer import INDEX_LIMIT, TEXT_LIMIT, Answer
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.outcome import KINDS, RETURNED, Outcome

_HEADER = 8
_TEXT_BYTES = 6 * (TEXT_LIMIT + 100)
"""The most bytes one text field takes in JSON (every character escaped as \\uXXXX), with room for
the note ``clipped`` adds."""
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
    return json.dumps(instance.as_dict(), allow_nan=False).encode()


def decode_instance(payload: bytes) -> Instance:
    return Instance.from_dict(json.loads(payload))


def encode_outcome(outcome: Outcome) -> bytes:
    answer = outcome.answer
    document = {
        "kind": outcome.kind,
        "error": outcome.error,
        "changed_input": outcome.changed_input,
        "answer": None if answer is None else {
            "value": answer.value,
            "saved": answer.saved,
            "recomputable": answer.recomputable,
            "problem": answer.problem,
            "value_problem": answer.value_problem,
            "shown": answer.shown,
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
    if type(value) is not str or len(value) > TEXT_LIMIT + 100:
        raise MessageRefused("a text field that is not a string of at most the text limit")
    return value


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
    if not all(type(i) is int and -INDEX_LIMIT < i < INDEX_LIMIT for i in values):
        raise MessageRefused("indices that are not all integers below 2**63 in size")
    return values
