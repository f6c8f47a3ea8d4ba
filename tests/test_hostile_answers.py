"""Whatever a target returns or raises, the judge sees plain data and gives the right verdict.

The planted targets (tests/planted/hostile_answers.py) return odd or hostile objects; each is run
in a worker (as every target that is not ours is) and in this process (as ours are), and must end
in the verdict the contract implies, never a traceback, never OPTIMAL when it is not. One carries
a pickle payload that, if it ever ran in the judging process, would write a marker file and make
every later verdict OPTIMAL.
"""

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from knapcheck.commands.solver_log import solver_log
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.oracles.verdict import Verdict
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.registry import resolve_one

PLANTED = Path(__file__).parent / "planted"
HOSTILE = PLANTED / "hostile_answers.py"
INSTANCE = Instance((0.1, 0.2, 0.3), (1.0, 2.0, 4.0), 0.3)
"""The optimum saves item 2 alone (4.0); saving everything is over budget."""
LOW_INDICES = Instance((0.1, 0.2, 0.3), (1.0, 2.0, 2.5), 0.3)
"""The optimum saves items 0 and 1 (3.0), indices a bool can pose as."""

EXPECTED = [
    ("over_budget_with_a_payload", INSTANCE, Verdict.OVER_BUDGET, "saved weight 6000 > capacity 3000"),
    ("tensors", INSTANCE, Verdict.OPTIMAL, ""),
    ("tensors_over_budget", INSTANCE, Verdict.OVER_BUDGET, "saved weight 6000 > capacity 3000"),
    ("numpy_values", INSTANCE, Verdict.OPTIMAL, ""),
    ("lying_length", INSTANCE, Verdict.BAD_PARTITION, "saved: len() says 0, but it holds 3 items"),
    ("value_that_cannot_be_read", INSTANCE, Verdict.WRONG_VALUE, "cannot be read as a float (RuntimeError: planted"),
    ("index_that_cannot_be_read", INSTANCE, Verdict.BAD_PARTITION, "must hold integer indices, got UnreadableIndex"),
    ("array_that_cannot_be_read", INSTANCE, Verdict.BAD_PARTITION, "cannot be read (RuntimeError: planted: tolist fails)"),
    ("indices_that_lie", INSTANCE, Verdict.BAD_PARTITION, "indices [3] are outside range(3)"),
    ("indices_in_a_generator", INSTANCE, Verdict.BAD_PARTITION, "saved must be a sequence"),
    ("huge_lists", INSTANCE, Verdict.BAD_PARTITION, "saved holds 10000000 items, more than the 3 the instance has"),
    ("huge_index", INSTANCE, Verdict.BAD_PARTITION, "indices below 2**63 in size"),
    ("not_a_number", INSTANCE, Verdict.WRONG_VALUE, "must be finite, got nan"),
    ("booleans", LOW_INDICES, Verdict.BAD_PARTITION, "must hold integer indices, got bool False"),
    ("raises_an_unprintable_error", INSTANCE, Verdict.REJECTED, "UnprintableError: (its message cannot be printed"),
    ("raises_a_huge_error", INSTANCE, Verdict.REJECTED, "characters, cut to 2000)"),
    ("raises_a_payload", INSTANCE, Verdict.REJECTED, "PayloadError: planted: an exception carrying a pickle payload"),
    ("unprintable_answer", INSTANCE, Verdict.BAD_PARTITION, "expected a (value, saved, recomputable) tuple"),
]

FORGED_MESSAGES = [
    ("announces_a_terabyte", "refused: a message of 1099511627776 bytes, over the limit of"),
    ("sends_a_pickle", "refused: not JSON"),
    ("sends_deep_json", "refused: not JSON (RecursionError)"),
    ("sends_a_forged_answer", "refused: indices that are not all integers"),
]
"""What a target that writes to the judge's socket itself gets: a CRASH, its message unread."""


@pytest.fixture(scope="session")
def marker_path(tmp_path_factory) -> Path:
    """One path for every test of a pytest process: the workers' environment stays the same from
    test to test, so one zygote forks them all (a new value would start one, a torch import, per test)."""
    return tmp_path_factory.mktemp("payload") / "payload-ran"


@pytest.fixture
def marker(marker_path, monkeypatch):
    monkeypatch.setenv("KNAPCHECK_PLANTED_MARKER", str(marker_path))
    yield marker_path
    ran = marker_path.read_text() if marker_path.exists() else ""
    marker_path.unlink(missing_ok=True)
    assert not ran, ran


@pytest.mark.parametrize("isolate", [True, False], ids=["isolated", "in process"])
@pytest.mark.parametrize("name, instance, verdict, detail", EXPECTED, ids=[e[0] for e in EXPECTED])
def test_every_odd_answer_gets_the_verdict_the_contract_implies(name, instance, verdict, detail, isolate, marker):
    entry = replace(resolve_one(f"{HOSTILE}:{name}"), isolate=isolate)
    done = check(entry, instance)
    assert (done.verdict, done.failed) == (verdict, verdict is not Verdict.OPTIMAL), done.judgement.detail
    assert detail in done.judgement.detail
    assert done.outcome.answer is None or all(
        part is None or type(part) is float or (type(part) is list and all(type(i) is int for i in part))
        for part in done.outcome.answer
    )
    assert len(done.outcome.error) <= 2100 and len(repr(done.outcome.answer)) <= 2100


@pytest.mark.parametrize("name, detail", FORGED_MESSAGES, ids=[f[0] for f in FORGED_MESSAGES])
def test_a_message_forged_on_the_judges_socket_is_refused(name, detail, marker):
    done = check(resolve_one(f"{HOSTILE}:{name}"), INSTANCE)
    assert done.verdict is Verdict.CRASH and done.failed
    assert detail in done.judgement.detail


def test_the_judge_of_a_later_call_is_still_ours(marker):
    """The payload, had it run, would make every later verdict OPTIMAL."""
    payload = resolve_one(f"{HOSTILE}:over_budget_with_a_payload")
    assert check(payload, INSTANCE).verdict is Verdict.OVER_BUDGET
    assert check(resolve_one("planted.wrong_answers:takes_everything"), INSTANCE).verdict is Verdict.OVER_BUDGET


def knapcheck(*arguments: str, cwd: Path, marker: Path) -> subprocess.CompletedProcess:
    """The installed command, from a directory outside the repository."""
    environment = dict(os.environ, KNAPCHECK_PLANTED_MARKER=str(marker))
    return subprocess.run(
        [sys.executable, "-m", "knapcheck", *arguments], cwd=cwd, env=environment, capture_output=True, text=True,
        timeout=600,
    )


def test_solve_judges_a_payload_over_budget_and_does_not_run_it(tmp_path, marker):
    instance = tmp_path / "instance.json"
    instance.write_text(json.dumps(INSTANCE.as_dict()))
    run = knapcheck("solve", f"{HOSTILE}:over_budget_with_a_payload", str(instance), "--json", cwd=tmp_path, marker=marker)
    assert run.returncode == 1, run.stderr
    (result,) = json.loads(run.stdout)["results"]
    assert (result["verdict"], result["failed"]) == ("OVER_BUDGET", True)
    assert "Traceback" not in run.stderr


def test_solve_judges_tensor_answers(tmp_path, marker):
    instance = tmp_path / "instance.json"
    instance.write_text(json.dumps(INSTANCE.as_dict()))
    specs = [f"{HOSTILE}:tensors", f"{HOSTILE}:tensors_over_budget"]
    verdicts = []
    for spec in specs:
        run = knapcheck("solve", spec, str(instance), "--json", cwd=tmp_path, marker=marker)
        assert "Traceback" not in run.stderr, run.stderr
        (result,) = json.loads(run.stdout)["results"]
        verdicts.append((result["verdict"], result.get("value"), result.get("saved")))
    assert verdicts == [("OPTIMAL", 4.0, [2]), ("OVER_BUDGET", 7.0, [0, 1, 2])]


def test_the_gate_fails_on_a_payload_and_on_tensors(tmp_path, marker):
    run = knapcheck(
        "check", "--targets", f"{HOSTILE}:over_budget_with_a_payload", f"{HOSTILE}:tensors_over_budget",
        "--families", "tiny", "--per-family", "3", "--json", str(tmp_path / "check.json"), cwd=tmp_path, marker=marker,
    )
    assert run.returncode == 1, run.stderr
    gate = json.loads((tmp_path / "check.json").read_text())["gate"]
    failed = {(target, verdict) for target, verdict, _baseline_verdict in gate["failing"]}
    assert {(f"{HOSTILE}:over_budget_with_a_payload", "OVER_BUDGET"), (f"{HOSTILE}:tensors_over_budget", "OVER_BUDGET")} <= failed
    assert not any(verdict in ("CRASH", "REJECTED") for _, verdict in failed), failed
    assert "Traceback" not in run.stderr


def test_the_report_lists_a_payload_over_budget_and_judges_tensors(tmp_path, marker):
    out = tmp_path / "report"
    run = knapcheck(
        "report", "--candidate", f"{HOSTILE}:over_budget_with_a_payload", f"{HOSTILE}:tensors",
        "--families", "tiny", "--per-family", "3", "--bench-repeats", "0", "--out", str(out), cwd=tmp_path, marker=marker,
    )
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    document = json.loads((out / "report.json").read_text())
    text = json.dumps(document)
    assert "over_budget_with_a_payload" in text and "OVER_BUDGET" in text
    assert f"{HOSTILE}:tensors" in text
    assert "CRASH" not in text and "REJECTED" not in text


def test_a_campaign_keeps_the_findings_of_tensors_and_payloads(tmp_path, marker):
    """The campaign's units judge answers as plain data too (they call the same run()): a torch
    tensor answer is judged, not lost, and a payload's findings are kept."""
    targets = [f"{HOSTILE}:over_budget_with_a_payload", f"{HOSTILE}:tensors_over_budget", f"{HOSTILE}:tensors"]
    run = knapcheck(
        "fuzz", "--time", "5", "--jobs", "1", "--db", str(tmp_path / "db"), "--out", str(tmp_path / "out"),
        "--targets", *targets, "--families", "tiny", "--seed", "1", cwd=tmp_path, marker=marker,
    )
    assert "Traceback" not in run.stderr, run.stderr
    campaign = json.loads((tmp_path / "out" / "campaign.json").read_text())
    assert campaign["as_asked"] and campaign["cases"] > 0 and not campaign["units_lost"]
    signatures = sorted((f["solver"], f["verdict"]) for f in campaign["findings"])
    assert signatures == [(targets[0], "OVER_BUDGET"), (targets[1], "OVER_BUDGET")], signatures
    verdicts = {solver["name"]: solver["verdicts"] for solver in campaign["solvers"]}
    assert set(verdicts[targets[2]]) == {"OPTIMAL"}, verdicts


INTERRUPTS = [
    ("value_that_interrupts", Verdict.WRONG_VALUE,
     "cannot be read as a float (KeyboardInterrupt: planted: reading this number interrupts)"),
    ("interrupts", Verdict.REJECTED, "KeyboardInterrupt: planted: the solver interrupts at "),
]


@pytest.mark.parametrize("name, verdict, detail", INTERRUPTS, ids=[i[0] for i in INTERRUPTS])
def test_a_keyboard_interrupt_a_target_raises_is_a_verdict_like_any_exception(name, verdict, detail, tmp_path, marker):
    """In its worker, where no Ctrl-C reaches it, a KeyboardInterrupt is the target's own doing: the
    verdict says so in one line, and the worker prints no traceback (its log stays empty)."""
    log = tmp_path / "solvers.log"
    with solver_log(log, "test"):
        done = check(resolve_one(f"{HOSTILE}:{name}"), INSTANCE)
        again = check(resolve_one(f"{HOSTILE}:numpy_values"), INSTANCE)
    assert (done.verdict, done.failed) == (verdict, True), done.judgement.detail
    assert detail in done.judgement.detail and "\n" not in done.judgement.detail
    assert again.verdict is Verdict.OPTIMAL
    assert not log.exists(), log.read_text()[-2000:]


def test_in_the_judging_process_a_keyboard_interrupt_stops_the_run():
    """There it may be a real Ctrl-C, which must never become a verdict."""
    entry = replace(resolve_one(f"{HOSTILE}:value_that_interrupts"), isolate=False)
    with pytest.raises(KeyboardInterrupt):
        check(entry, INSTANCE)
