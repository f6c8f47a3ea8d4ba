"""The report's first screen as a reviewer sees it: ``python studies/report_screenshots.py``.

In a fresh temporary directory it runs, as a PyTorch developer would,

    knapcheck repair torch --out knapsack.py
    knapcheck report --candidate knapsack.py --baseline torch --out passing
    knapcheck report --candidate planted.py --baseline torch --out failing

where planted.py is the repaired file with a new bug planted in dp_knapsack (its capacity one unit
too large), then opens each report.html in headless Chromium with a 1280x800 window and writes
that first screen to docs/report-passing.png and docs/report-failing.png. It prints each report's
exit status, the size of its report.md, and the lines where its verdict and its per-function table
end. Needs Chromium (Debian's ``chromium``); takes about 6 minutes on 2 cores.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
PLANTED_FROM = "    quantized_max_memory = round(max_memory * S)\n"
PLANTED_TO = "    quantized_max_memory = round(max_memory * S) + 1\n"
WINDOW = "1280,800"


def run(command: list[str], cwd: Path) -> int:
    start = time.monotonic()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    print(f"$ {' '.join(command)}  (exit {done.returncode}, {time.monotonic() - start:.0f} s)", flush=True)
    if done.returncode not in (0, 1):
        sys.exit(done.stderr.strip())
    return done.returncode


def screenshot(chromium: str, page: Path, png: Path) -> None:
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={WINDOW}",
                    f"--screenshot={png}", page.as_uri()], check=True, capture_output=True, timeout=120)


def first_screen_lines(markdown: str) -> tuple[int, int]:
    """The (1-based) lines of the verdict and of the per-function table's last row."""
    lines = markdown.splitlines()
    verdict = next(i for i, line in enumerate(lines) if line.startswith("**Gate: ")) + 1
    table = next(i for i, line in enumerate(lines) if line.startswith("| function |"))
    end = next(i for i in range(table, len(lines)) if not lines[i].startswith("|"))
    return verdict, end


def main() -> None:
    knapcheck = shutil.which("knapcheck") or sys.exit("knapcheck is not on PATH: install it (pip install -e .)")
    chromium = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    if chromium is None:
        sys.exit("no Chromium: apt-get install chromium")
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        run([knapcheck, "repair", "torch", "--out", "knapsack.py"], work)
        source = (work / "knapsack.py").read_text()
        assert source.count(PLANTED_FROM) == 1, "the planted line is not in the repaired file"
        (work / "planted.py").write_text(source.replace(PLANTED_FROM, PLANTED_TO))
        for outcome, candidate in (("passing", "knapsack.py"), ("failing", "planted.py")):
            status = run([knapcheck, "report", "--candidate", candidate, "--baseline", "torch", "--out", outcome], work)
            markdown = (work / outcome / "report.md").read_text()
            verdict, table_end = first_screen_lines(markdown)
            print(f"  {outcome}: exit {status}; report.md {len(markdown.encode())} bytes; verdict on line {verdict},"
                  f" the per-function table ends on line {table_end}")
            png = DOCS / f"report-{outcome}.png"
            screenshot(chromium, work / outcome / "report.html", png)
            print(f"  wrote {png.relative_to(DOCS.parent)}")


if __name__ == "__main__":
    main()
