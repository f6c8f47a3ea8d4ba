"""The CPU time of a command and of every process it starts, by process, against its wall time.

    cd /tmp && python studies/cpu_by_process.py knapcheck check

Samples /proc every 0.2 s while the command runs and keeps each process's last user + system time:
processes that live less than 0.2 s may be missed, so the total is a lower bound. The command's
output goes to /dev/null. Linux only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import defaultdict

SAMPLE_SECONDS = 0.2


def descendants(root: int) -> set[int]:
    """``root`` and every process below it, from each process's parent in /proc."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    parents[int(name)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    found, grown = {root}, True
    while grown:
        below = {pid for pid, parent in parents.items() if parent in found} - found
        found |= below
        grown = bool(below)
    return found


def cpu_seconds(pid: int) -> tuple[str, float] | None:
    """The process's command line and its user + system seconds so far; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            command = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return None
    return command, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(command: list[str]) -> None:
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen: dict[int, tuple[str, float]] = {}
    while process.poll() is None:
        for pid in descendants(process.pid):
            now = cpu_seconds(pid)
            if now is not None:
                seen[pid] = now
        time.sleep(SAMPLE_SECONDS)
    wall = time.monotonic() - started
    total = sum(seconds for _, seconds in seen.values())
    print(f"wall {wall:.1f} s, CPU {total:.1f} s ({total / wall:.2f} CPUs busy on average), exit status {process.returncode}")
    for pid, (line, seconds) in sorted(seen.items(), key=lambda item: -item[1][1])[:12]:
        print(f"{seconds:7.1f} s  pid {pid}  {line[-90:]}")
    kinds: defaultdict[str, float] = defaultdict(float)
    for line, seconds in seen.values():
        kinds["the command" if line.split()[-len(command):] == command else line[-60:]] += seconds
    print("by command line:")
    for line, seconds in sorted(kinds.items(), key=lambda item: -item[1])[:6]:
        print(f"{seconds:7.1f} s  {line}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python studies/cpu_by_process.py COMMAND [ARGUMENT ...]")
    main(sys.argv[1:])
