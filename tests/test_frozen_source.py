"""The file judged is the file repaired and reported: a candidate whose file changes during the run
(a checkout switching branches, an editor saving) never passes on the other version.

The copy here has a new split bug and, on its first call, replaces its own file with torch's
unchanged source, which would pass. The run ends incomplete, exit 3, with a partial report that
names the change.
"""

import json

from torch_copies import SPLIT, torch_source, write_copy

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main

SLIDING = "dp_knapsack_sliding_hirschberg"


def test_a_file_swapped_after_its_workers_loaded_it_makes_the_report_partial_and_exit_3(tmp_path):
    unchanged = tmp_path / "unchanged.py"
    unchanged.write_text(torch_source())
    copy = write_copy(tmp_path / "knapsack.py", SPLIT)
    source = copy.read_text().replace(
        f"def {SLIDING}(\n    memory: list[float], runtime: list[float], max_memory: float\n) -> tuple[float, list[int], list[int]]:\n",
        f"def {SLIDING}(\n    memory: list[float], runtime: list[float], max_memory: float\n) -> tuple[float, list[int], list[int]]:\n"
        f"    import shutil\n    shutil.copyfile({str(unchanged)!r}, __file__)\n", 1)
    assert "shutil.copyfile" in source
    copy.write_text(source)
    out = tmp_path / "report"
    status = main(["report", "--candidate", f"{copy}:{SLIDING}", "--baseline", f"torch:{SLIDING}",
                   "--families", "tiny", "tight_budget", "--per-family", "5", "--bench-repeats", "0", "--out", str(out)])
    assert status == exit_status.INCOMPLETE
    data = json.loads((out / "report.json").read_text())
    assert data["partial"] and list(data["sources_changed"]) == [f"{copy}:{SLIDING}"]
    assert "its file changed during the run" in data["sources_changed"][f"{copy}:{SLIDING}"]
    assert "PARTIAL" in (out / "report.md").read_text()
