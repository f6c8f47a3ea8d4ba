"""`knapcheck harvest --trace`: the knapsacks of a real TORCH_TRACE log, torch's answers judged, bad logs refused.

One subprocess trains (compiles forward and backward) with TORCH_TRACE and AOT_PARTITIONER_DEBUG=1
set: the built-in ``conv`` model under the global budget 0.3 (compile 0/0), then a function whose
forward is under ``region_activation_memory_budget(0.2)`` (compile 1/0). Another trains ``conv``
without AOT_PARTITIONER_DEBUG. The bad logs are these, cut or edited.
"""

import gzip
import hashlib
import json
import os
import resource
import subprocess
import sys
import textwrap
from dataclasses import replace

import pytest
import torch

from knapcheck.commands.cli import main
from knapcheck.fuzz.corpus.harvest_records import read_harvested_file
from knapcheck.fuzz.corpus.instance_files import read_instances
from knapcheck.fuzz.harvest import log_records as trace_log
from knapcheck.fuzz.harvest.compile_runs import BACKEND
from knapcheck.fuzz.harvest.logged_answers import judge_logged
from knapcheck.fuzz.harvest.logged_knapsacks import harvest_trace
from knapcheck.fuzz.harvest.models import build
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.oracles.optimum import optimum
from knapcheck.solvers.registry import resolve_one
from knapcheck.solvers.torch_plugin import use_solver

MODEL, BUDGET, REGION_BUDGET = "conv", 0.3, 0.2
MIN_CUT = '"name": "min_cut_information"'
TRAIN = textwrap.dedent(
    f"""
    import torch
    import torch._functorch.config
    from knapcheck.fuzz.harvest.models import build, mlp

    torch._functorch.config.activation_memory_budget = {BUDGET}
    module, inputs = build({MODEL!r})
    torch.compile(module, backend={BACKEND!r})(*inputs).sum().backward()

    layers, (x,) = mlp()
    def region(x):
        with torch.autograd.graph.region_activation_memory_budget({REGION_BUDGET}):
            return layers(x)
    torch.compile(region, backend={BACKEND!r})(x).sum().backward()
    """
)


def train(directory, debug: bool):
    env = {k: v for k, v in os.environ.items() if k not in ("AOT_PARTITIONER_DEBUG", "TORCH_TRACE")}
    env["TORCH_TRACE"] = str(directory)
    if debug:
        env["AOT_PARTITIONER_DEBUG"] = "1"
    script = directory.parent / f"{directory.name}-train.py"
    script.write_text(TRAIN)
    subprocess.run([sys.executable, str(script)], env=env, check=True, capture_output=True, timeout=600)
    (log,) = directory.iterdir()
    return log


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    return train(tmp_path_factory.mktemp("trace"), debug=True)


@pytest.fixture(scope="module")
def undebugged_trace(tmp_path_factory):
    return train(tmp_path_factory.mktemp("undebugged"), debug=False)


def knapsacks(records):
    """What records hold, whatever the log they were read from was called."""
    return [(r.instance, r.budget, r.call, replace(r.trace, trace="")) for r in records]


def recorded_by_use_solver():
    """The knapsacks the use_solver plug-in records for the same model and budget, with torch's answers."""
    torch._dynamo.reset()
    module, inputs = build(MODEL)
    with use_solver("torch:dp_knapsack", memory_budget=BUDGET) as calls:
        torch.compile(module, backend=BACKEND)(*inputs)
    torch._dynamo.reset()
    return calls


def test_a_trace_holds_exactly_the_knapsacks_use_solver_records_and_torch_answer_judged_alike(trace):
    harvest = harvest_trace(trace)
    first, region = harvest.records
    (call,) = recorded_by_use_solver()

    assert (first.instance.memory, first.instance.runtimes, first.instance.max_memory) == (
        call.memory, call.runtimes, call.max_memory
    )
    assert (first.budget, first.trace.compile_id, first.trace.frame_id, first.trace.region) == (BUDGET, "0/0", 0, None)
    assert sorted(first.trace.saved) == sorted(call.saved)
    assert sorted(first.trace.saved + first.trace.recomputed) == list(range(first.instance.n))

    solver = check(resolve_one("torch:dp_knapsack"), first.instance)
    logged = judge_logged(first, optimum(first.instance))
    assert (logged.verdict, logged.judgement.gap, logged.judgement.detail) == (
        solver.verdict, solver.judgement.gap, solver.judgement.detail
    )
    assert harvest.torch_version == torch.__version__


def test_a_per_region_budget_is_the_knapsacks_budget_and_named_with_where_it_begins(trace):
    region = harvest_trace(trace).records[1]
    assert (region.budget, region.instance.max_memory, region.trace.compile_id) == (REGION_BUDGET, REGION_BUDGET, "1/0")
    assert region.trace.region.budget == REGION_BUDGET
    line = next(i for i, text in enumerate(TRAIN.splitlines(), start=1) if "return layers(x)" in text)
    assert region.trace.region.source.endswith(f"-train.py:{line} in region")


def test_the_command_writes_instance_files_every_command_reads_and_prints_the_summary(trace, tmp_path, capsys):
    status = main(["harvest", "--trace", str(trace), "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    written = tmp_path / "out" / (trace.stem + ".json")
    records = harvest_trace(trace).records
    assert read_harvested_file(written) == records
    assert [labelled.instance for labelled in read_instances(written)] == [r.instance for r in records]
    verdicts = [judge_logged(r, optimum(r.instance)) for r in records]
    assert status == (1 if any(v.judgement.failed(exact=True) for v in verdicts) else 0)
    assert f"{trace.name} (torch {torch.__version__}): 2 knapsacks from 2 compiles (0/0, 1/0)" in out
    assert "1 under a per-region budget" in out
    optimal = sum(v.verdict.value == "OPTIMAL" for v in verdicts)
    assert f"torch's answers: {optimal} of 2 OPTIMAL" in out
    assert "expanding_core: 2 of 2 OPTIMAL" in out and "budget_safe: 2 of 2 OPTIMAL" in out


def test_gzip_logs_and_directories_of_logs(trace, tmp_path, capsys):
    compressed = tmp_path / "logs" / "nested" / (trace.name + ".gz")
    compressed.parent.mkdir(parents=True)
    compressed.write_bytes(gzip.compress(trace.read_bytes()))
    assert knapsacks(harvest_trace(compressed).records) == knapsacks(harvest_trace(trace).records)
    (tmp_path / "logs" / "plain.log").write_bytes(trace.read_bytes())
    (tmp_path / "logs" / "notes.txt").write_text("not a log")

    assert main(["harvest", "--trace", str(tmp_path / "logs"), "--out", str(tmp_path / "out")]) in (0, 1)
    out = capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [trace.stem + ".json", "plain.json"]
    assert out.count("2 knapsacks from 2 compiles") == 2


def _rewrite(trace, target, marker, edit):
    """A copy of ``trace`` whose records with ``marker`` in their header have their payload text
    through ``edit`` (None drops the record), their MD5 kept right."""
    out, lines, i = [], trace.read_text().split("\n"), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if marker not in line:
            out.append(line)
            continue
        payload = []
        while i < len(lines) and lines[i].startswith("\t"):
            payload.append(lines[i][1:])
            i += 1
        text = edit("\n".join(payload))
        if text is None:
            continue
        prefix, metadata = line.split("] ", 1)
        header = json.loads(metadata)
        header["has_payload"] = hashlib.md5(text.encode()).hexdigest()
        out += [prefix + "] " + json.dumps(header)] + ["\t" + part for part in text.split("\n")]
    target.write_text("\n".join(out))
    return target


def _edit_artifact(trace, target, edit):
    """A copy of ``trace`` whose first min_cut_information payload went through ``edit`` (on its JSON)."""
    edited = []

    def once(text):
        if edited:
            return text
        edited.append(True)
        return json.dumps(edit(json.loads(text)))

    return _rewrite(trace, target, MIN_CUT, once)


def _refused(path, tmp_path, capsys) -> str:
    """The one line `harvest --trace` gives a bad log, having checked it exits 2 and writes nothing."""
    assert main(["harvest", "--trace", str(path), "--out", str(tmp_path / "out")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and list((tmp_path / "out").iterdir()) == []
    (line,) = err.splitlines()
    return line


def test_not_a_trace_file(tmp_path, capsys):
    (tmp_path / "instance.json").write_text(json.dumps({"memory": [0.5], "runtimes": [1], "max_memory": 1}))
    assert "line 1 is no record header: not a structured trace" in _refused(tmp_path / "instance.json", tmp_path, capsys)
    (tmp_path / "empty.log").write_text("")
    assert "is empty, not a structured trace" in _refused(tmp_path / "empty.log", tmp_path, capsys)
    (tmp_path / "binary.log").write_bytes(bytes(range(256)) * 4)
    assert "not a structured trace" in _refused(tmp_path / "binary.log", tmp_path, capsys)
    assert "does not exist" in _refused(tmp_path / "missing.log", tmp_path, capsys)
    (tmp_path / "empty-dir").mkdir()
    assert "no trace log in it" in _refused(tmp_path / "empty-dir", tmp_path, capsys)


def test_a_trace_without_the_artifacts_says_to_set_aot_partitioner_debug(undebugged_trace, tmp_path, capsys):
    line = _refused(undebugged_trace, tmp_path, capsys)
    assert "holds no min_cut_information artifact: AOT_PARTITIONER_DEBUG=1 was not set" in line
    assert "AOT_PARTITIONER_DEBUG=1 TORCH_TRACE=DIR python train.py" in line


def test_a_trace_without_a_budget_below_one_says_so(trace, tmp_path, capsys):
    without = _rewrite(trace, tmp_path / "without.log", MIN_CUT, lambda text: None)
    _rewrite(without, without, '{"aot_joint_graph"', lambda text: text.replace("_region_activation_memory_budget", "other"))
    budget = f'"activation_memory_budget": {BUDGET},'
    _rewrite(without, without, '"name": "torch._functorch.config"', lambda text: text.replace(budget, '"activation_memory_budget": 1.0,'))
    assert "compiled with activation_memory_budget 1.0" in _refused(without, tmp_path, capsys)


def test_a_truncated_payload(trace, tmp_path, capsys):
    text = trace.read_text()
    start = text.index("\t", text.index('"min_cut_information"'))
    (tmp_path / "cut.log").write_text(text[: start + 1000])
    assert "payload is truncated" in _refused(tmp_path / "cut.log", tmp_path, capsys)
    end = text.index("\n", start)
    (tmp_path / "changed.log").write_text(text[:end].replace('"Memory Budget": 0.3', '"Memory Budget": 0.4') + text[end:])
    assert "payload is truncated" in _refused(tmp_path / "changed.log", tmp_path, capsys)
    (tmp_path / "cut.log.gz").write_bytes(gzip.compress(text.encode())[:-100])
    assert "gzip stream ends early" in _refused(tmp_path / "cut.log.gz", tmp_path, capsys)


def test_a_log_cut_short_after_its_artifacts_still_gives_them(trace, tmp_path):
    text = trace.read_text()
    last_header = text.rindex("\nV")
    (tmp_path / "killed.log").write_text(text[: last_header + 40])
    assert knapsacks(harvest_trace(tmp_path / "killed.log").records) == knapsacks(harvest_trace(trace).records)


def test_an_answer_over_the_budget_is_judged_so_with_its_real_overshoot(trace, tmp_path, capsys):
    def save_everything(payload):
        payload["Knapsack Saved Nodes"] = list(range(len(payload["Knapsack Input Memories"])))
        payload["Knapsack Recomputed Nodes"] = []
        return payload

    greedy = _edit_artifact(trace, tmp_path / "greedy.log", save_everything)
    record = harvest_trace(greedy).records[0]
    logged = judge_logged(record, optimum(record.instance))
    assert logged.verdict.value == "OVER_BUDGET"
    assert logged.overshoot == pytest.approx(sum(record.instance.memory) / BUDGET - 1)
    assert main(["harvest", "--trace", str(greedy), "--out", str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out
    assert "1 OVER_BUDGET" in out and "worst real overshoot" in out.split("expanding_core")[0]
    assert "#0 (compile 0/0, line" in out


def test_a_knapsack_replayed_from_the_aotautograd_cache_says_so(trace, tmp_path, capsys):
    prefix = trace.read_text().split("\n", 1)[0].split("] ", 1)[0]
    hit = {"artifact": {"name": "aotautograd_cache_hit", "encoding": "json"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    replayed = tmp_path / "replayed.log"
    replayed.write_text(trace.read_text() + f"{prefix}] {json.dumps(hit)}\n")
    assert [r.trace.from_cache for r in harvest_trace(replayed).records] == [True, False]
    main(["harvest", "--trace", str(replayed), "--out", str(tmp_path / "out")])
    assert "1 replayed from the AOTAutograd cache" in capsys.readouterr().out


def test_an_artifact_whose_fields_differ_names_the_supported_versions(trace, tmp_path, capsys):
    def renamed(payload):
        payload["Knapsack Memories"] = payload.pop("Knapsack Input Memories")
        return payload

    line = _refused(_edit_artifact(trace, tmp_path / "renamed.log", renamed), tmp_path, capsys)
    assert "has no 'Knapsack Input Memories': its fields differ from those torch 2.13 to 2.15 write" in line
    assert f"(this log is from torch {torch.__version__})" in line

    def underived(payload):
        payload["Knapsack Input Memories"][1] *= 1.5
        return payload

    line = _refused(_edit_artifact(trace, tmp_path / "underived.log", underived), tmp_path, capsys)
    assert "'Knapsack Input Memories'[1]" in line and "normalized by the logged activation sizes" in line

    def not_a_number(payload):
        payload["Knapsack Input Runtimes"][0] = "fast"
        return payload

    line = _refused(_edit_artifact(trace, tmp_path / "text.log", not_a_number), tmp_path, capsys)
    assert "'Knapsack Input Runtimes' is not a list of numbers" in line


def test_hostile_logs(trace, tmp_path, capsys, monkeypatch):
    def nan(payload):
        payload["Knapsack Input Runtimes"][2] = float("nan")
        return payload

    line = _refused(_edit_artifact(trace, tmp_path / "nan.log", nan), tmp_path, capsys)
    assert "nan.log: line" in line and "NaN is not a number JSON allows" in line

    def huge(payload):
        payload["Absolute Memories"][0] = 10**400
        payload["Expected Runtime"] = 10**400
        return payload

    assert "'Expected Runtime' is not a finite number" in _refused(_edit_artifact(trace, tmp_path / "huge.log", huge), tmp_path, capsys)

    os.mkfifo(tmp_path / "fifo.log")
    assert "is a FIFO, not a regular file" in _refused(tmp_path / "fifo.log", tmp_path, capsys)

    header = trace.read_text().split("\n", 1)[0].split("] ", 1)[0] + "] "
    (tmp_path / "deep.log").write_text(header + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "\n")
    assert "nested more than 64 levels deep" in _refused(tmp_path / "deep.log", tmp_path, capsys)

    monkeypatch.setattr(trace_log, "MAX_LINE_BYTES", 4096)
    assert "is longer than" in _refused(trace, tmp_path, capsys)


def test_every_bad_log_of_a_directory_gets_its_line_and_nothing_is_written(trace, undebugged_trace, tmp_path, capsys):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "good.log").write_bytes(trace.read_bytes())
    (logs / "undebugged.log").write_bytes(undebugged_trace.read_bytes())
    (logs / "junk.log").write_text("hello\n")
    assert main(["harvest", "--trace", str(logs), "--out", str(tmp_path / "out")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and list((tmp_path / "out").iterdir()) == []
    assert [line.split(": ")[1].rsplit("/", 1)[1] for line in err.splitlines() if line.startswith("knapcheck")] == [
        "junk.log", "undebugged.log"
    ]


def test_usage_mistakes(trace, tmp_path, capsys):
    assert main(["harvest", "--trace", str(trace), "--budgets", "0.3", "--out", str(tmp_path)]) == 2
    assert "--budgets: only with --model" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["harvest", "--trace", str(trace), "--model", "mlp", "--out", str(tmp_path)])
    assert exit_info.value.code == 2


def test_a_stored_trace_origin_is_validated(trace, tmp_path):
    path = tmp_path / "out"
    main(["harvest", "--trace", str(trace), "--out", str(path)])
    written = path / (trace.stem + ".json")
    document = json.loads(written.read_text())
    document["records"][0]["trace"]["saved"] = ["addmm"]
    written.write_text(json.dumps(document))
    with pytest.raises(ValueError, match=r"records\[0\] is malformed: trace.saved must be a list of item indices"):
        read_harvested_file(written)


def test_a_gzip_bomb_in_a_payload_is_one_line_within_a_memory_cap(tmp_path):
    """2 GiB of payload lines in 2 MB of gzip, read by the command under a 1.5 GiB address-space
    limit: it stops at the payload cap with one line, where it used to grow to a MemoryError."""
    header = json.dumps({"artifact": {"name": "min_cut_information", "encoding": "json"}, "frame_id": 0,
                         "frame_compile_id": 0, "attempt": 0, "has_payload": "0" * 32})
    line = gzip.compress(b"\t" + b"0" * 2**26 + b"\n", compresslevel=9)
    bomb = tmp_path / "bomb.log.gz"
    bomb.write_bytes(gzip.compress(f"V1201 10:19:20.105000 1 torch/x.py:1] {header}\n".encode()) + line * 32)
    limit = 1536 * 2**20
    run = subprocess.run(
        [sys.executable, "-m", "knapcheck", "harvest", "--trace", str(bomb), "--out", str(tmp_path / "out")],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)),
    )
    assert run.returncode == 2, run.stderr[-2000:]
    assert run.stderr.splitlines() == [
        f"knapcheck harvest: --trace {bomb}: the payload of the record at line 1 holds more than"
        f" {trace_log.MAX_PAYLOAD_BYTES:,} bytes, the most a payload is read to"
    ]


def test_a_log_whose_name_is_too_long_for_a_file_name_is_written_under_a_shortened_one(trace, tmp_path, capsys):
    """A valid log named with 251 characters: MODEL.json would be 256 bytes, over the 255 a file
    name may have. The file takes the start of the name and a digest of it, the same every time."""
    long = tmp_path / ("x" * 251 + ".log")
    long.write_bytes(trace.read_bytes())
    names = []
    for out in ("out", "again"):
        assert main(["harvest", "--trace", str(long), "--out", str(tmp_path / out)]) in (0, 1)
        assert "Traceback" not in capsys.readouterr().err
        (written,) = (tmp_path / out).iterdir()
        names.append(written.name)
        assert [record.model for record in read_harvested_file(written)] == ["x" * 251] * 2
    assert names[0] == names[1] and len(names[0]) == 255 and names[0].startswith("x" * 200)


def test_a_link_where_a_log_file_goes_is_refused_and_nothing_is_written(trace, tmp_path, capsys):
    """The link pointed outside --out, and the file there used to be overwritten."""
    outside = tmp_path / "outside.txt"
    outside.write_text("the user's own file\n")
    link = tmp_path / "out" / (trace.stem + ".json")
    link.parent.mkdir()
    link.symlink_to(outside)
    assert main(["harvest", "--trace", str(trace), "--out", str(tmp_path / "out")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [f"knapcheck harvest: --out {link}: is a symbolic link; knapcheck writes through none"]
    assert outside.read_text() == "the user's own file\n" and list(link.parent.iterdir()) == [link]
