"""Showing a long run's progress: a live display on a terminal, plain periodic lines elsewhere.

On a terminal, ``rich`` redraws one display in place, kept to the terminal's width, and messages
scroll above it. When the stream is not a terminal (a log, CI), each update is one plain line and
messages are lines too, so the output reads well as a file.
"""

from __future__ import annotations

from typing import TextIO

from rich.console import Console, RenderableType
from rich.live import Live


class ProgressDisplay:
    def __init__(self, stream: TextIO, live: bool | None = None) -> None:
        self.stream = stream
        self.live = stream.isatty() if live is None else live
        self._live: Live | None = None
        if self.live:
            self._live = Live(console=Console(file=stream), auto_refresh=False, redirect_stdout=False, redirect_stderr=False)

    def __enter__(self) -> "ProgressDisplay":
        if self._live is not None:
            self._live.start()
        return self

    def __exit__(self, *exc_info) -> None:
        if self._live is not None:
            self._live.stop()

    def update(self, view: RenderableType, line: str) -> None:
        """Show the current state: ``view`` on a terminal, else ``line``."""
        if self._live is not None:
            self._live.update(view, refresh=True)
        else:
            print(line, file=self.stream, flush=True)

    def message(self, text: str) -> None:
        if self._live is not None:
            self._live.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=self.stream, flush=True)
