"""Line charts as inline SVG: one line per solver, no plotting dependency, embeddable in HTML.

The legend sits under the plot, one entry per solver with its whole name: a name too long for one
line of the legend (a path) is wrapped, at a ``/``, ``:`` or ``_`` where it can be, over as many
lines as it needs. Names are set in a monospace font, so their width is known without a browser.
"""

from __future__ import annotations

import math
from html import escape

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
WIDTH, HEIGHT = 780, 380
"""The plot's size; the legend adds LEGEND_LINE pixels under it for each line of names."""
MARGIN = {"left": 78, "right": 24, "top": 34, "bottom": 52}
LEGEND_LINE = 16
LEGEND_TEXT_X = MARGIN["left"] + 24
LEGEND_CHARS = int((WIDTH - LEGEND_TEXT_X - 8) / (12 * 0.6))
"""Characters of a legend line: monospace at 12 px is 0.6 x 12 px a character."""


def _ticks(low: float, high: float, log: bool) -> list[float]:
    if log:
        return [10.0**k for k in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)]
    if high == low:
        return [low]
    step = 10 ** math.floor(math.log10((high - low) / 4))
    for factor in (1, 2, 5, 10):
        if (high - low) / (step * factor) <= 6:
            step *= factor
            break
    first = math.floor(low / step) * step
    return [first + k * step for k in range(int((high - first) / step) + 2)]


def _label(value: float) -> str:
    return f"{value:.3g}"


def wrapped(name: str, width: int = LEGEND_CHARS) -> list[str]:
    """``name`` in lines of at most ``width`` characters, each break after a ``/``, ``:`` or ``_``
    where one falls in the line's second half; joined, the lines are the name."""
    lines = []
    while len(name) > width:
        cut = max(name.rfind(mark, width // 2, width) for mark in "/:_") + 1 or width
        lines.append(name[:cut])
        name = name[cut:]
    return [*lines, name]


def line_chart(
    title: str,
    series: dict[str, list[tuple[float, float]]],
    x_label: str,
    y_label: str,
    *,
    log_x: bool = False,
    log_y: bool = False,
) -> str:
    """An SVG document; points with a non-positive coordinate on a log axis are left out."""
    usable = {
        name: sorted((x, y) for x, y in points if (x > 0 or not log_x) and (y > 0 or not log_y))
        for name, points in series.items()
    }
    usable = {name: points for name, points in usable.items() if points}
    legend = {name: wrapped(name) for name in usable}
    height = HEIGHT + LEGEND_LINE * sum(len(lines) for lines in legend.values()) + (8 if legend else 0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">',
        f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
    ]
    if not usable:
        parts += [f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle">no data</text>', "</svg>"]
        return "\n".join(parts)

    xs = [x for points in usable.values() for x, _ in points]
    ys = [y for points in usable.values() for _, y in points]
    x_ticks = _ticks(min(xs), max(xs), log_x)
    y_ticks = _ticks(min(ys) if log_y else min(0.0, min(ys)), max(ys), log_y)
    x_low, x_high = x_ticks[0], x_ticks[-1]
    y_low, y_high = y_ticks[0], y_ticks[-1]
    left, top = MARGIN["left"], MARGIN["top"]
    plot_w = WIDTH - MARGIN["left"] - MARGIN["right"]
    plot_h = HEIGHT - MARGIN["top"] - MARGIN["bottom"]

    def scale(value: float, low: float, high: float, log: bool) -> float:
        if log:
            value, low, high = math.log10(value), math.log10(low), math.log10(high)
        return 0.5 if high == low else (value - low) / (high - low)

    def px(x: float) -> float:
        return left + plot_w * scale(x, x_low, x_high, log_x)

    def py(y: float) -> float:
        return top + plot_h * (1 - scale(y, y_low, y_high, log_y))

    parts.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#444"/>')
    for x in x_ticks:
        parts.append(f'<line x1="{px(x):.1f}" y1="{top}" x2="{px(x):.1f}" y2="{top + plot_h}" stroke="#ddd"/>')
        parts.append(f'<text x="{px(x):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{_label(x)}</text>')
    for y in y_ticks:
        parts.append(f'<line x1="{left}" y1="{py(y):.1f}" x2="{left + plot_w}" y2="{py(y):.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{_label(y)}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{HEIGHT - 12}" text-anchor="middle">{escape(x_label)}</text>')
    parts.append(
        f'<text x="16" y="{top + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {top + plot_h / 2})">{escape(y_label)}</text>'
    )
    legend_y = HEIGHT + 4
    for index, (name, points) in enumerate(usable.items()):
        colour = COLOURS[index % len(COLOURS)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts += [f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>' for x, y in points]
        parts.append(
            f'<line x1="{left}" y1="{legend_y - 4}" x2="{left + 18}" y2="{legend_y - 4}" stroke="{colour}" stroke-width="3"/>'
        )
        lines = "".join(
            f'<tspan x="{LEGEND_TEXT_X}" dy="{0 if number == 0 else LEGEND_LINE}">{escape(line)}</tspan>'
            for number, line in enumerate(legend[name])
        )
        parts.append(f'<text class="legend" y="{legend_y}" font-family="monospace">{lines}</text>')
        legend_y += LEGEND_LINE * len(legend[name])
    parts.append("</svg>")
    return "\n".join(parts)
