"""The knapsacks torch's partitioner solved in a training run, rebuilt from its TORCH_TRACE log.

With ``AOT_PARTITIONER_DEBUG=1`` the memory-budget partitioner logs a ``min_cut_information``
artifact for every knapsack it solves (``choose_saved_values_set`` in
``torch/_functorch/partitioners.py``; the payload is built in
``torch/_functorch/_activation_checkpointing/ac_logging_utils.py``). It holds the solver's inputs
as the partitioner passed them, ``dp_knapsack(memory, runtimes, max_memory)``:

- ``memory`` is "Knapsack Input Memories": each candidate's size in bytes ("Absolute Memories")
  normalized as ``(size / 1e9) / (max_act_size - min_act_size)``, the two sizes being "Max
  Activation Size (GB)" and "Min Activation Size (GB)". Every item is checked against that
  formula, bit for bit: a log whose numbers do not follow it comes from a partitioner we do not know;
- ``runtimes`` is "Knapsack Input Runtimes";
- ``max_memory`` is ``max(memory_budget, 0)`` with ``memory_budget`` the "Memory Budget" logged:
  the global ``activation_memory_budget``, a per-region budget, or a point of the Pareto sweep
  (``visualize_memory_budget_pareto``), whichever the partitioner solved for;

and the answer torch's solver gave: "Knapsack Saved Nodes", "Knapsack Recomputed Nodes" (item
indices) and "Expected Runtime" (the value it reported). torch 2.13.0 and 2.15.0 write these fields
and derive them alike (the same ``ac_logging_utils.py``, the same knapsack call in
``partitioners.py``); 2.14 lies between them.

A graph compiled under ``torch.autograd.graph.region_activation_memory_budget`` carries the budget
as a node annotation, which the ``aot_joint_graph`` record of the same compile prints
(``# Annotation: {'_region_activation_memory_budget': 0.2} File: train.py:12 in f, ...``): the
knapsack's record then names that region. A compile the AOTAutograd cache serves replays the
``min_cut_information`` stored with it and logs ``aotautograd_cache_hit``: its knapsack was solved
by an earlier run, and its record says so (``TraceOrigin.from_cache``).
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from ...solvers.contract import Instance
from ..corpus.harvest_records import Harvested, TraceOrigin, TraceRegion
from .log_records import TraceError, TraceRecord, parse_json, read_records

ARTIFACT = "min_cut_information"
CACHE_HIT = "aotautograd_cache_hit"
"""The artifact a compile the AOTAutograd cache served logs (after replaying the stored ``ARTIFACT``)."""
SUPPORTED_TORCH = "2.13 to 2.15"
BACKEND = "unknown: read from a TORCH_TRACE log"
"""The backend a trace does not record (any that partitions: inductor, aot_eager_decomp_partition, ...)."""
REGION_KEY = "_region_activation_memory_budget"
REGION = re.compile(r"Annotation: \{[^\n]*?'" + REGION_KEY + r"': ([^,}]+)[^\n]*?\}(?: File: (.*?)(?:, code: |$))?", re.MULTILINE)
ENABLE_HINT = (
    "set AOT_PARTITIONER_DEBUG=1 in the environment of the training process, next to TORCH_TRACE=DIR"
    " (it is read when torch is imported), e.g. AOT_PARTITIONER_DEBUG=1 TORCH_TRACE=DIR python train.py"
)

LISTS = {
    "Knapsack Input Memories": numbers.Real,
    "Knapsack Input Runtimes": numbers.Real,
    "Absolute Memories": numbers.Real,
    "Knapsack Saved Nodes": int,
    "Knapsack Recomputed Nodes": int,
    "Recomputable Banned Nodes Order": str,
}
NUMBERS = ("Memory Budget", "Min Activation Size (GB)", "Max Activation Size (GB)", "Expected Runtime")


def _artifact_name(metadata: dict) -> str | None:
    artifact = metadata.get("artifact")
    return artifact.get("name") if isinstance(artifact, dict) else None


def _wanted(metadata: dict) -> bool:
    return "aot_joint_graph" in metadata or _artifact_name(metadata) in (ARTIFACT, "torch_version", "torch._functorch.config")


COMPILE_FIELDS = ("rank", "compiled_autograd_id", "frame_id", "frame_compile_id", "attempt")


def compile_key(metadata: dict) -> tuple[int | None, ...]:
    """Which process rank and compile a record belongs to (fields that are not whole numbers count as absent)."""
    return tuple(_int_or_none(metadata.get(key)) for key in COMPILE_FIELDS)


def compile_id(metadata: dict) -> str:
    """The compile's id as tlparse shows it: ``FRAME/COMPILE``, ``_ATTEMPT`` after a restart, ``!CA/`` under compiled autograd."""
    _, autograd, frame, compile_, attempt = compile_key(metadata)
    shown = f"{frame}/{compile_}" + (f"_{attempt}" if attempt else "") if frame is not None else "-"
    return f"!{autograd}/{shown}" if autograd is not None else shown


def _differs(where: str, what: str, version: str) -> TraceError:
    return TraceError(
        f"{where}: {ARTIFACT} {what}: its fields differ from those torch {SUPPORTED_TORCH} writes"
        f" (this log is from torch {version})"
    )


def _fields(payload: object, where: str, version: str) -> dict:
    """The artifact's knapsack fields, checked against those torch 2.13 to 2.15 write."""
    if not isinstance(payload, dict):
        raise _differs(where, f"is a JSON {type(payload).__name__}, not an object", version)
    missing = sorted((set(LISTS) | set(NUMBERS)) - set(payload))
    if missing:
        raise _differs(where, f"has no {', '.join(map(repr, missing))}", version)
    for key, kind in LISTS.items():
        values = payload[key]
        if not isinstance(values, list) or not all(isinstance(v, kind) and not isinstance(v, bool) for v in values):
            raise _differs(where, f"{key!r} is not a list of {'numbers' if kind is numbers.Real else kind.__name__}", version)
    for key in NUMBERS:
        if isinstance(payload[key], bool) or not isinstance(payload[key], numbers.Real) or not _finite(payload[key]):
            raise _differs(where, f"{key!r} is not a finite number", version)
    n = len(payload["Knapsack Input Memories"])
    for key in ("Knapsack Input Runtimes", "Absolute Memories", "Recomputable Banned Nodes Order"):
        if len(payload[key]) != n:
            raise _differs(where, f"has {len(payload[key])} {key!r} for {n} knapsack items", version)
    return payload


def _finite(value: numbers.Real) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _check_derivation(fields: dict, where: str, version: str) -> None:
    """Each item's memory is its size normalized as torch 2.13 to 2.15 normalize it, bit for bit."""
    budget = fields["Memory Budget"]
    if not 0 <= budget <= 1:
        raise _differs(where, f"'Memory Budget' is {budget!r}, outside [0, 1]", version)
    span = fields["Max Activation Size (GB)"] - fields["Min Activation Size (GB)"]
    for i, (size, memory) in enumerate(zip(fields["Absolute Memories"], fields["Knapsack Input Memories"])):
        try:
            derived = (size / 1e9) / span
        except (ZeroDivisionError, OverflowError):
            derived = math.nan
        if derived != memory:
            raise _differs(
                where,
                f"'Knapsack Input Memories'[{i}] is {memory!r}, but 'Absolute Memories'[{i}] normalized by the"
                f" logged activation sizes is {derived!r}",
                version,
            )


def _region(payload: str | None) -> TraceRegion | None:
    """The region budget a joint graph's annotations carry, and the first place torch printed for one."""
    matches = list(REGION.finditer(payload or ""))
    if not matches:
        return None
    try:
        budget = float(matches[0].group(1))
    except ValueError:
        return None
    source = next((m.group(2).strip() for m in matches if m.group(2)), "")
    return TraceRegion(budget, source)


@dataclass(frozen=True)
class TraceHarvest:
    """One log's knapsacks, in the order torch logged them."""

    path: Path
    model: str
    """The log's name, without ``.log`` / ``.log.gz``: the model name its records carry."""
    torch_version: str
    records: list[Harvested]


def model_name(path: Path) -> str:
    name = Path(path).name
    for suffix in (".gz", ".log"):
        name = name.removesuffix(suffix)
    return name or "trace"


def harvest_trace(path: Path) -> TraceHarvest:
    """Every knapsack logged in the TORCH_TRACE log at ``path``; TraceError (one line) for a bad log.

    Bad: not a structured trace; a trace with no ``min_cut_information`` artifact (the message says
    why, from the ``torch._functorch.config`` the log holds: AOT_PARTITIONER_DEBUG not set, no
    budget below 1, or no graph partitioned); an artifact whose payload was cut short or changed; an
    artifact whose fields differ from those torch 2.13 to 2.15 write.
    """
    path = Path(path)
    model = model_name(path)
    version = "unknown"
    regions: dict[tuple, TraceRegion | None] = {}
    configs: list[dict] = []
    records: list[Harvested] = []
    cache_hits: set[tuple] = set()
    keys: list[tuple] = []
    for record in read_records(path, _wanted):
        name = _artifact_name(record.metadata)
        if name == CACHE_HIT:
            cache_hits.add(compile_key(record.metadata))
        elif name == "torch_version" and record.complete:
            info = parse_json(cast(str, record.payload), f"{path}: line {record.line}")  # complete: its payload was read
            if isinstance(info, dict) and isinstance(info.get("pytorch_version"), str):
                version = info["pytorch_version"]
        elif name == "torch._functorch.config" and record.complete:
            config = parse_json(cast(str, record.payload), f"{path}: line {record.line}")  # complete: its payload was read
            configs.append(config if isinstance(config, dict) else {})
        elif "aot_joint_graph" in record.metadata:
            regions[compile_key(record.metadata)] = _region(record.payload) if record.complete else None
        elif name == ARTIFACT:
            keys.append(compile_key(record.metadata))
            records.append(_knapsack(record, path, model, version, regions.get(keys[-1]), len(records)))
    if not records:
        raise TraceError(f"{path}: {_why_no_knapsack(configs, any(regions.values()))}")
    records = [  # each made by _knapsack, with its trace
        replace(r, trace=replace(cast(TraceOrigin, r.trace), from_cache=True)) if keys[i] in cache_hits else r
        for i, r in enumerate(records)
    ]
    return TraceHarvest(path, model, version, records)


def _knapsack(record: TraceRecord, path: Path, model: str, version: str, region: TraceRegion | None, call: int) -> Harvested:
    where = f"{path}: line {record.line}"
    if record.payload is None:
        raise TraceError(f"{where}: the {ARTIFACT} artifact has no payload")
    if not record.complete:
        raise TraceError(
            f"{where}: the {ARTIFACT} payload is truncated (its MD5 is not the has_payload torch logged):"
            " the log was cut short or changed"
        )
    fields = _fields(parse_json(record.payload, where), where, version)
    _check_derivation(fields, where, version)
    budget = float(fields["Memory Budget"])
    try:
        instance = Instance(fields["Knapsack Input Memories"], fields["Knapsack Input Runtimes"], max(budget, 0.0))
    except ValueError as exc:
        raise TraceError(f"{where}: the logged knapsack is not a valid instance: {exc}") from None
    metadata = record.metadata
    origin = TraceOrigin(
        trace=path.name,
        line=record.line,
        compile_id=compile_id(metadata),
        frame_id=_int_or_none(metadata.get("frame_id")),
        frame_compile_id=_int_or_none(metadata.get("frame_compile_id")),
        rank=_int_or_none(metadata.get("rank")),
        region=region,
        nodes=tuple(fields["Recomputable Banned Nodes Order"]),
        saved=tuple(fields["Knapsack Saved Nodes"]),
        recomputed=tuple(fields["Knapsack Recomputed Nodes"]),
        expected_runtime=float(fields["Expected Runtime"]),
    )
    return Harvested(instance, model, budget, call, version, BACKEND, origin)


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _why_no_knapsack(configs: list[dict], regions: bool) -> str:
    none = f"holds no {ARTIFACT} artifact"
    if not configs:
        return (
            f"{none} and no graph reached the partitioner (only graphs that need a backward are partitioned:"
            f" compile the training step, forward and backward); to log the knapsacks, {ENABLE_HINT}"
        )
    if not any(config.get("debug_partitioner") is True for config in configs):
        return f"{none}: AOT_PARTITIONER_DEBUG=1 was not set; {ENABLE_HINT}"
    budgets = {config.get("activation_memory_budget") for config in configs}
    if budgets <= {1.0} and not regions:
        return (
            f"{none}: every graph was compiled with activation_memory_budget 1.0, where the partitioner"
            " solves no knapsack; set torch._functorch.config.activation_memory_budget below 1"
        )
    return (
        f"{none}: the partitioner solved no knapsack, either because the runtime-optimized cut already fit"
        " every budget or because debug_partitioner was switched on after torch was imported (set"
        " AOT_PARTITIONER_DEBUG=1 in the environment instead)"
    )


def unique_models(harvests: list[TraceHarvest]) -> list[TraceHarvest]:
    """The harvests, the second and later of logs with one name renamed ``NAME-2``, ``NAME-3``, ...
    (each becomes its own ``MODEL.json``)."""
    seen: dict[str, int] = {}
    renamed = []
    for harvest in harvests:
        seen[harvest.model] = seen.get(harvest.model, 0) + 1
        if seen[harvest.model] == 1:
            renamed.append(harvest)
            continue
        model = f"{harvest.model}-{seen[harvest.model]}"
        records = [replace(record, model=model) for record in harvest.records]
        renamed.append(replace(harvest, model=model, records=records))
    return renamed
