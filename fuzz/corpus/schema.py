"""Small schemas for the JSON knapcheck reads: each file kind and each campaign event says its shape.

A schema is a function ``check(value, where)`` that raises ``SchemaError`` naming the place
(``cases[3].instance.memory[0]``) and what is wrong. The combinators below build them; objects
accept keys they do not name, so a newer writer may add optional fields without breaking an older
reader. Values come from ``json.loads`` after ``knapcheck.fuzz.corpus.reader`` has bounded their
nesting, so validating recurses no deeper than the schema itself.
"""

from __future__ import annotations

import json
import math
from typing import Callable, NoReturn, cast

Schema = Callable[[object, str], None]

INTEGER_LIMIT = 2**63
"""Integers in knapcheck's files (counts, indices, ids) are below this in magnitude."""


class SchemaError(ValueError):
    """A value that does not have the shape its schema asks for."""


def shown(value: object) -> str:
    """A JSON value for an error message, cut short."""
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _fail(where: str, expected: str, value: object) -> NoReturn:
    raise SchemaError(f"{where or 'the document'} is malformed: expected {expected}, got {shown(value)}")


def string(value: object, where: str) -> None:
    if not isinstance(value, str):
        _fail(where, "a string", value)


def boolean(value: object, where: str) -> None:
    if not isinstance(value, bool):
        _fail(where, "true or false", value)


def number(value: object, where: str) -> None:
    """A finite JSON number (the reader refuses NaN and infinities before this)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(where, "a number", value)
    if isinstance(value, float) and not math.isfinite(value):
        _fail(where, "a finite number", value)


def integer(value: object, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) >= INTEGER_LIMIT:
        _fail(where, "an integer", value)


def whole(value: object, where: str) -> None:
    """An integer of any size (a quantized excess, which may pass 2**63)."""
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(where, "an integer", value)


def natural(value: object, where: str) -> None:
    """An integer >= 0."""
    integer(value, where)
    if cast(int, value) < 0:  # an int: integer() refused anything else
        _fail(where, "an integer >= 0", value)


def checked_later(value: object, where: str) -> None:
    """Any value: a field its reader checks with a schema of its own (a check inside an event)."""


def one_of(*choices: object) -> Schema:
    """Exactly one of the given values (a schema version, a verdict's name)."""

    def check(value: object, where: str) -> None:
        if isinstance(value, bool) or value not in choices:
            listed = ", ".join(shown(c) for c in choices) if len(choices) <= 6 else f"one of {len(choices)} names"
            _fail(where, listed, value)

    return check


def optional(schema: Schema) -> Schema:
    """The schema, or null."""

    def check(value: object, where: str) -> None:
        if value is not None:
            schema(value, where)

    return check


def list_of(item: Schema) -> Schema:
    def check(value: object, where: str) -> None:
        if not isinstance(value, list):
            _fail(where, "a list", value)
        for index, element in enumerate(value):
            item(element, f"{where}[{index}]")

    return check


def mapping_of(key: Schema, item: Schema) -> Schema:
    """An object whose keys and values each follow a schema (verdict counts per solver)."""

    def check(value: object, where: str) -> None:
        if not isinstance(value, dict):
            _fail(where, "an object", value)
        for name, element in value.items():
            key(name, f"{where} key")
            item(element, f"{where}[{json.dumps(name)}]")

    return check


def obj(required: dict[str, Schema], optional_keys: dict[str, Schema] | None = None) -> Schema:
    """An object with these keys (and the optional ones, when present); other keys are allowed."""
    optional_keys = optional_keys or {}

    def check(value: object, where: str) -> None:
        if not isinstance(value, dict):
            _fail(where, "an object", value)
        for key, schema in required.items():
            if key not in value:
                raise SchemaError(f"{where or 'the document'} is malformed: missing key {key!r}")
            schema(value[key], _join(where, key))
        for key, schema in optional_keys.items():
            if key in value:
                schema(value[key], _join(where, key))

    return check


def all_of(*schemas: Schema) -> Schema:
    """Every one of the schemas (an object that is an instance and carries provenance too)."""

    def check(value: object, where: str) -> None:
        for schema in schemas:
            schema(value, where)

    return check


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


INSTANCE = obj({"memory": list_of(number), "runtimes": list_of(number), "max_memory": number})
"""An instance as ``Instance.as_dict`` writes it; the contract's own checks (lengths, signs) come after."""
