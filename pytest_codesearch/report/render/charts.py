"""Inline SVG charts for ``report.html``: histogram, box-and-strip distribution, scatter.

Pure functions: plain numbers in, one ``<svg>`` element out (a ``markupsafe.Markup``, so jinja2
inserts it as is). Every text in the SVG passes through ``markupsafe.escape``; numbers are
formatted by us. Charts scale with ``viewBox`` and carry a ``<title>`` for screen readers.
Series colours come from ``PALETTE`` by position, so an agent has the same colour everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from markupsafe import Markup, escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
"""Series colours, one per agent in report order (repeats after eight)."""
STRIP_POINTS = 200
"""At most this many points per strip: evenly spaced quantiles of the values, so size stays fixed."""
_MARGIN = (48, 14, 16, 40)  # left, right, top, bottom
_FONT = 'font-family="system-ui,sans-serif" font-size="11"'


@dataclass(frozen=True)
class Point:
    """One labelled point of a scatter: an agent at (x, y), optionally with a y interval."""

    label: str
    x: float
    y: float
    y_interval: tuple[float, float] | None = None
    marked: bool = False


@dataclass(frozen=True)
class _Frame:
    """Plot area inside the margins, mapping data to pixels (y grows upwards)."""

    width: int
    height: int
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    log_x: bool = False

    def x(self, value: float) -> float:
        """Return the pixel column of data value ``value``."""
        lo, hi = self.x_range
        if self.log_x:
            value, lo, hi = math.log10(value), math.log10(lo), math.log10(hi)
        left, right = _MARGIN[0], self.width - _MARGIN[1]
        return left + (value - lo) / (hi - lo) * (right - left)

    def y(self, value: float) -> float:
        """Return the pixel row of data value ``value``."""
        lo, hi = self.y_range
        top, bottom = _MARGIN[2], self.height - _MARGIN[3]
        return bottom - (value - lo) / (hi - lo) * (bottom - top)


def colour(index: int) -> str:
    """Return the colour of the series at ``index``."""
    return PALETTE[index % len(PALETTE)]


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Return round tick values covering [lo, hi], about ``count`` of them (steps 1, 2, 5 x 10^n)."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, count)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step - 1e-9)
    return [round(i * step, 12) for i in range(first, int(math.floor(hi / step + 1e-9)) + 1)]


def log_ticks(lo: float, hi: float) -> list[float]:
    """Return the powers of ten (and 2x, 5x when few) within [lo, hi] for a log axis."""
    ticks = [10.0**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]
    inside = [t for t in ticks if lo <= t <= hi]
    if len(inside) < 3:
        inside = sorted(t * m for t in ticks for m in (1, 2, 5) if lo <= t * m <= hi)
    return inside


def bin_edges(values: Sequence[float], bins: int, *, log: bool) -> list[float]:
    """Return ``bins + 1`` edges spanning the values, evenly spaced (in log10 when ``log``)."""
    lo, hi = min(values), max(values)
    if log:
        lo, hi = math.log10(lo), math.log10(hi)
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    edges = [lo + (hi - lo) * i / bins for i in range(bins + 1)]
    return [10.0**e for e in edges] if log else edges


def bin_counts(values: Sequence[float], edges: Sequence[float]) -> list[int]:
    """Return how many values fall in each [edge_i, edge_i+1) bin, the last bin closed."""
    counts, _ = np.histogram(np.asarray(values, dtype=np.float64), bins=np.asarray(edges, dtype=np.float64))
    return [int(c) for c in counts.tolist()]


def wants_log(values: Sequence[float]) -> bool:
    """Return True when positive values span more than a factor of 20 (a log axis reads better)."""
    return bool(values) and min(values) > 0 and max(values) / min(values) > 20


def histogram(
    series: Mapping[str, Sequence[float]], *, label: str, bins: int = 24, title: str = ""
) -> Markup:
    """Return an SVG histogram of each series over shared bins, outlines overlaid, log x when skewed."""
    values = [v for vs in series.values() for v in vs]
    if not values:
        return _empty(title or label)
    log = wants_log(values)
    edges = bin_edges(values, bins, log=log)
    counts = {name: bin_counts(vs, edges) for name, vs in series.items()}
    top = max(max(c, default=0) for c in counts.values()) or 1
    frame = _Frame(640, 260, (edges[0], edges[-1]), (0.0, top * 1.05), log_x=log)
    parts = [_x_axis(frame, label), _y_axis(frame, "cases")]
    for index, (name, bars) in enumerate(counts.items()):
        parts.append(_bars(frame, edges, bars, colour(index), name))
    parts.append(_legend(frame, list(series)))
    return _svg(frame, title or label, parts, "histogram")


def _bars(frame: _Frame, edges: Sequence[float], counts: Sequence[int], fill: str, name: str) -> str:
    """Return one series of histogram bars as translucent rectangles."""
    rects = []
    for i, count in enumerate(counts):
        if count == 0:
            continue
        x0, x1, y = frame.x(edges[i]), frame.x(edges[i + 1]), frame.y(count)
        rects.append(
            f'<rect class="mark" x="{x0:.1f}" y="{y:.1f}" width="{max(x1 - x0 - 1, 1):.1f}" '
            f'height="{frame.y(0) - y:.1f}"><title>{escape(name)}: {count}</title></rect>'
        )
    return f'<g fill="{fill}" fill-opacity="0.45" stroke="{fill}">{"".join(rects)}</g>'


def quantiles(values: Sequence[float], count: int) -> list[float]:
    """Return ``count`` evenly spaced quantiles of ``values`` (all values, sorted, when fewer)."""
    ordered = sorted(values)
    if len(ordered) <= count:
        return ordered
    return [ordered[round(i * (len(ordered) - 1) / (count - 1))] for i in range(count)]


def five_numbers(values: Sequence[float]) -> tuple[float, float, float, float, float]:
    """Return (min, q1, median, q3, max), quartiles by linear interpolation."""
    ordered = sorted(values)

    def at(q: float) -> float:
        pos = q * (len(ordered) - 1)
        low = math.floor(pos)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)

    return ordered[0], at(0.25), at(0.5), at(0.75), ordered[-1]


def distribution(
    series: Mapping[str, Sequence[float]], *, label: str, value_range: tuple[float, float] = (0.0, 1.0)
) -> Markup:
    """Return an SVG with one row per series: a box plot over a strip of quantile points and the mean."""
    rows = [name for name, vs in series.items() if vs]
    if not rows:
        return _empty(label)
    row_height = 44
    height = _MARGIN[2] + _MARGIN[3] + row_height * len(series)
    frame = _Frame(640, height, value_range, (0.0, float(len(series))))
    parts = [_x_axis(frame, label)]
    for index, (name, values) in enumerate(series.items()):
        centre = frame.y(len(series) - index - 0.5)
        parts.append(f'<text x="{_MARGIN[0]}" y="{centre - 14:.1f}">{escape(_short(name, 60))}</text>')
        if values:
            parts.append(_box_row(frame, values, centre, colour(index), name))
    return _svg(frame, label, parts, "distribution")


def _box_row(frame: _Frame, values: Sequence[float], centre: float, fill: str, name: str) -> str:
    """Return one distribution row: jittered quantile points, the box, whiskers and a mean mark."""
    points = quantiles(values, STRIP_POINTS)
    dots = "".join(
        f'<circle class="mark" cx="{frame.x(v):.1f}" cy="{centre + 3 + ((i * 7) % 11 - 5):.1f}" r="2"/>'
        for i, v in enumerate(points)
    )
    low, q1, med, q3, high = five_numbers(values)
    mean = sum(values) / len(values)
    x = frame.x
    tip = f"{escape(name)}: median {med:.3f}, mean {mean:.3f}, n {len(values)}"
    return (
        f'<g fill="{fill}" fill-opacity="0.35">{dots}</g>'
        f'<g stroke="#222" fill="none"><title>{tip}</title>'
        f'<line x1="{x(low):.1f}" x2="{x(high):.1f}" y1="{centre:.1f}" y2="{centre:.1f}"/>'
        f'<rect x="{x(q1):.1f}" y="{centre - 9:.1f}" width="{max(x(q3) - x(q1), 1):.1f}" height="18"/>'
        f'<line x1="{x(med):.1f}" x2="{x(med):.1f}" y1="{centre - 9:.1f}" y2="{centre + 9:.1f}" '
        f'stroke-width="2.5"/></g>'
        f'<path class="mark" d="M{x(mean):.1f} {centre + 12:.1f}l4 6h-8z" fill="#222"/>'
    )


def grouped_bars(
    groups: Mapping[str, Mapping[str, float]], series: Sequence[str], *, label: str
) -> Markup:
    """Return horizontal bars in [0, 1]: one cluster per group, one bar per series (by position colour)."""
    if not groups:
        return _empty(label)
    cluster = 8 * len(series) + 22
    height = _MARGIN[2] + _MARGIN[3] + cluster * len(groups)
    frame = _Frame(640, height, (0.0, 1.0), (0.0, float(height - _MARGIN[2] - _MARGIN[3])))
    parts = [_x_axis(frame, label), _legend(frame, list(series))]
    for g, (group, values) in enumerate(groups.items()):
        top = _MARGIN[2] + g * cluster
        parts.append(f'<text x="{_MARGIN[0]}" y="{top + 12}">{escape(_short(group, 60))}</text>')
        for index, name in enumerate(series):
            if name not in values:
                continue
            y, width = top + 16 + 8 * index, frame.x(values[name]) - frame.x(0.0)
            parts.append(
                f'<rect class="mark" x="{_MARGIN[0]}" y="{y}" width="{max(width, 0.5):.1f}" height="7" '
                f'fill="{colour(index)}"><title>{escape(group)}, {escape(name)}: {values[name]:.3f}</title></rect>'
            )
    return _svg(frame, label, parts, "bars")


def scatter(points: Sequence[Point], *, x_label: str, y_label: str, log_x: bool = False) -> Markup:
    """Return an SVG scatter of labelled points with y error bars; marked points get a ring."""
    if not points:
        return _empty(f"{y_label} against {x_label}")
    xs = [p.x for p in points]
    ys = [v for p in points for v in (p.y, *(p.y_interval or ()))]
    x_range = _padded(min(xs), max(xs), log=log_x)
    y_range = _padded(min(ys), max(ys), log=False)
    frame = _Frame(640, 320, x_range, y_range, log_x=log_x)
    parts = [_x_axis(frame, x_label), _y_axis(frame, y_label)]
    for index, point in enumerate(points):
        parts.append(_scatter_point(frame, point, colour(index)))
    return _svg(frame, f"{y_label} against {x_label}", parts, "scatter")


def _scatter_point(frame: _Frame, point: Point, fill: str) -> str:
    """Return one point: its error bar, the dot, an optional ring and its label."""
    cx, cy = frame.x(point.x), frame.y(point.y)
    parts = []
    if point.y_interval is not None:
        lo, hi = (frame.y(v) for v in point.y_interval)
        parts.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{lo:.1f}" y2="{hi:.1f}" stroke="{fill}"/>')
    parts.append(
        f'<circle class="mark" cx="{cx:.1f}" cy="{cy:.1f}" r="6" fill="{fill}">'
        f"<title>{escape(point.label)}: {point.x:.4g}, {point.y:.3f}</title></circle>"
    )
    if point.marked:
        parts.append(f'<circle class="ring" cx="{cx:.1f}" cy="{cy:.1f}" r="11" fill="none" '
                     'stroke="#222" stroke-width="2"/>')  # fmt: skip
    anchor = "end" if cx > frame.width * 0.75 else "start"
    dx = -10 if anchor == "end" else 10
    parts.append(f'<text x="{cx + dx:.1f}" y="{cy - 8:.1f}" text-anchor="{anchor}">'
                 f"{escape(_short(point.label, 24))}</text>")  # fmt: skip
    return "".join(parts)


def _padded(lo: float, hi: float, *, log: bool) -> tuple[float, float]:
    """Return [lo, hi] widened by a tenth on each side (by a factor on a log axis), never empty."""
    if log:
        lo, hi = max(lo, 1e-6), max(hi, 1e-6)
        factor = max((hi / lo) ** 0.1, 1.5)
        return lo / factor, hi * factor
    pad = (hi - lo) * 0.1 or max(abs(hi) * 0.1, 0.05)
    return lo - pad, hi + pad


def _x_axis(frame: _Frame, label: str) -> str:
    """Return the x axis line, ticks with labels, and the axis title."""
    lo, hi = frame.x_range
    ticks = log_ticks(lo, hi) if frame.log_x else nice_ticks(lo, hi)
    base = frame.height - _MARGIN[3]
    parts = [f'<line x1="{_MARGIN[0]}" x2="{frame.width - _MARGIN[1]}" y1="{base}" y2="{base}" stroke="#444"/>']
    for tick in ticks:
        x = frame.x(tick)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{base}" y2="{base + 4}" stroke="#444"/>'
                     f'<text x="{x:.1f}" y="{base + 15}" text-anchor="middle">{_fmt(tick)}</text>')  # fmt: skip
    centre = (_MARGIN[0] + frame.width - _MARGIN[1]) / 2
    parts.append(f'<text x="{centre:.1f}" y="{frame.height - 4}" text-anchor="middle">{escape(label)}</text>')
    return "".join(parts)


def _y_axis(frame: _Frame, label: str) -> str:
    """Return the y axis line, ticks with labels and light grid lines, and the axis title."""
    top, base = _MARGIN[2], frame.height - _MARGIN[3]
    parts = [f'<line x1="{_MARGIN[0]}" x2="{_MARGIN[0]}" y1="{top}" y2="{base}" stroke="#444"/>']
    for tick in nice_ticks(*frame.y_range):
        y = frame.y(tick)
        parts.append(f'<line x1="{_MARGIN[0]}" x2="{frame.width - _MARGIN[1]}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="#ddd"/><text x="{_MARGIN[0] - 4}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{_fmt(tick)}</text>')  # fmt: skip
    parts.append(f'<text transform="rotate(-90)" x="{-(top + base) / 2:.1f}" y="11" '
                 f'text-anchor="middle">{escape(label)}</text>')  # fmt: skip
    return "".join(parts)


def _legend(frame: _Frame, names: Sequence[str]) -> str:
    """Return a row of colour swatches with series names along the top right."""
    parts, x = [], frame.width - _MARGIN[1]
    for index in reversed(range(len(names))):
        text = _short(names[index], 16)
        x -= 24 + 7 * len(text)
        parts.append(f'<rect x="{x}" y="{_MARGIN[2]}" width="10" height="10" fill="{colour(index)}"/>'
                     f'<text x="{x + 13}" y="{_MARGIN[2] + 9}">{escape(text)}</text>')  # fmt: skip
    return "".join(parts)


def _svg(frame: _Frame, title: str, parts: Sequence[str], kind: str) -> Markup:
    """Return the SVG element around ``parts``."""
    return Markup(
        f'<svg class="chart {kind}" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'viewBox="0 0 {frame.width} {frame.height}" {_FONT}><title>{escape(title)}</title>'
        f'{"".join(parts)}</svg>'
    )


def _empty(title: str) -> Markup:
    """Return a small SVG saying there is nothing to draw."""
    return Markup(
        f'<svg class="chart empty" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 40" {_FONT}>'
        f'<title>{escape(title)}</title><text x="8" y="24">no data</text></svg>'
    )


def _short(text: str, limit: int) -> str:
    """Return ``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fmt(value: float) -> str:
    """Return a tick label: up to four significant digits, no trailing zeros."""
    return f"{value:.4g}"
