"""What crosses between the judge and a worker: instances as float64s, Outcomes as checked JSON."""

import json
import socket
import time

import pytest

from knapcheck.solvers.contract import Instance
from knapcheck.solvers.contract.answer import Answer
from knapcheck.solvers.contract.outcome import RAISED, RETURNED, Outcome
from knapcheck.solvers.isolation import wire

GOOD = {"kind": "returned", "error": "", "changed_input": "", "answer": {
    "value": 4.0, "saved": [2], "recomputable": [0, 1], "problem": "", "value_problem": "", "shown": ""}}


def test_an_instance_crosses_exactly():
    instance = Instance((0.1, 1e-300, 0.0), (1e20, -0.5, 0.30000000000000004), 0.2)
    assert wire.decode_instance(wire.encode_instance(instance)) == instance


def test_an_outcome_crosses_as_plain_data():
    odd = Outcome(RETURNED, answer=Answer(None, [0], [1, 2], value_problem="not a number", shown="('x', [0], [1, 2])"))
    assert wire.decode_outcome(wire.encode_outcome(odd), 3) == odd
    raised = Outcome(RAISED, error="ValueError: " + "\udcff" * 3000)
    decoded = wire.decode_outcome(wire.encode_outcome(raised), 3)
    assert decoded.error.startswith("ValueError: \\udcff") and "cut to 2000" in decoded.error
    decoded.error.encode("utf-8")


def _with(**changes) -> bytes:
    document = json.loads(json.dumps(GOOD))
    for path, value in changes.items():
        *parents, last = path.split("__")
        target = document
        for name in parents:
            target = target[name]
        target[last] = value
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b"\x80\x04K\x01.", "not JSON"),
        (b"[" * 5000 + b"]" * 5000, "not JSON (RecursionError)"),
        (_with(answer__value=float("nan")), "non-finite"),
        (_with(answer__value=4), "not a finite float"),
        (_with(answer__saved=[True]), "not all integers"),
        (_with(answer__saved=[2**63]), "not all integers below 2**63"),
        (_with(answer__recomputable=[0, 1, 3, 4]), "not a list of at most 3"),
        (_with(answer__shown=7), "text field"),
        (_with(answer__shown="x" * 100_000), "text field"),
        (_with(kind="pickled"), "unknown kind"),
        (_with(kind="raised"), "not an answer"),
        (_with(answer=None), "without its answer"),
        (_with(answer__saved=None), "without a partition"),
        (_with(extra=1), "does not have the fields"),
        (_with(answer__value=None), "without a value"),
    ],
)
def test_anything_but_an_outcome_is_refused(payload, reason):
    with pytest.raises(wire.MessageRefused, match=reason.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        wire.decode_outcome(payload, 3)


def test_a_message_longer_than_its_limit_is_refused_unread():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall((10**12).to_bytes(8, "big"))
        with pytest.raises(wire.MessageRefused, match="1000000000000 bytes, over the limit of 100"):
            wire.receive(ours, 100, time.monotonic() + 5)


def test_a_message_cut_short_times_out_or_ends():
    ours, theirs = socket.socketpair()
    with ours:
        theirs.sendall((10).to_bytes(8, "big") + b"abc")
        with pytest.raises(TimeoutError):
            wire.receive(ours, 100, time.monotonic() + 0.2)
        theirs.close()
        with pytest.raises(EOFError):
            wire.receive(ours, 100, time.monotonic() + 5)
