"""One gate of copies of torch's knapsack.py against torch, shared by the tests that read it.

The copies, judged side by side against torch's functions of their names:

- ``width``: torch's split fixed by naming the profiles' width (a fix; test_repair_fit);
- ``finfo``: a backtrack tolerance of ``8 * torch.finfo(torch.float32).eps``, a new bug;
- ``fix_and_bug``: dp in float64 (a fix) with a backtrack tolerance of 1e-6 (a new bug);
- ``repaired``: torch's file with every repair of its known defects (`knapcheck repair torch`),
  its two dp functions.

``run_once`` runs it once for all xdist workers; test_repair_fit reads how repairs fit, and
test_report_first_screen what a reviewer reads first (report.md and report.html).
"""

from pathlib import Path

from shared_runs import run_once
from torch_copies import BACKTRACK_TOLERANCE, DP_FLOAT64, FINFO_TOLERANCE, torch_source, width_named_split_fix, write_copy

from knapcheck.commands.cli import main

SLIDING = "dp_knapsack_sliding_hirschberg"
FUNCTIONS = {"width": (SLIDING,), "finfo": ("dp_knapsack",), "fix_and_bug": ("dp_knapsack",),
             "repaired": ("dp_knapsack", SLIDING)}


def copy_specs(root: Path) -> dict[str, list[str]]:
    """Each copy's candidate specs, by the copy's name."""
    return {name: [f"{root / name / 'knapsack.py'}:{function}" for function in functions] for name, functions in FUNCTIONS.items()}


def _gate(root: Path) -> None:
    for name in FUNCTIONS:
        (root / name).mkdir()
    (root / "width" / "knapsack.py").write_text(width_named_split_fix(torch_source()))
    write_copy(root / "finfo" / "knapsack.py", FINFO_TOLERANCE)
    write_copy(root / "fix_and_bug" / "knapsack.py", (*DP_FLOAT64, BACKTRACK_TOLERANCE))
    assert main(["repair", "torch", "--out", str(root / "repaired" / "knapsack.py")]) == 0
    candidates = [spec for specs in copy_specs(root).values() for spec in specs]
    status = main(["report", "--candidate", *candidates, "--baseline", f"torch:{SLIDING}", "torch:dp_knapsack",
                   "--families", "tiny", "tight_budget", "float32_limits", "flop_scale", "runtime_span",
                   "--per-family", "30", "--bench-repeats", "0", "--out", str(root / "report")])
    (root / "status").write_text(str(status))


def copies_gate(tmp_path_factory) -> Path:
    """The gate's directory: the copies, ``status`` (the exit status) and ``report/``."""
    return run_once(tmp_path_factory, "copies_gate", _gate)
