"""SVG charts: axis arithmetic exactly, then each chart well-formed, with marks, labels escaped."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from pytest_codesearch.report.render import charts

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    """Return the parsed SVG root (fails on malformed markup)."""
    return ET.fromstring(svg)


def marks(root: ET.Element) -> list[ET.Element]:
    """Return the elements drawn for data (class 'mark')."""
    return [e for e in root.iter() if e.get("class") == "mark"]


def test_nice_ticks_use_round_steps() -> None:
    assert charts.nice_ticks(0.0, 1.0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert charts.nice_ticks(-0.05, 1.05) == [0.0, 0.5, 1.0]
    assert charts.nice_ticks(3.0, 3.0) == [3.0]


def test_log_ticks_are_powers_of_ten_or_125_when_few() -> None:
    assert charts.log_ticks(0.5, 2000.0) == [1.0, 10.0, 100.0, 1000.0]
    assert charts.log_ticks(3.0, 30.0) == [5.0, 10.0, 20.0]


def test_bin_edges_linear_log_and_degenerate() -> None:
    assert charts.bin_edges([0.0, 4.0], 4, log=False) == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert [round(e, 9) for e in charts.bin_edges([1.0, 100.0], 2, log=True)] == [1.0, 10.0, 100.0]
    assert charts.bin_edges([2.0, 2.0], 2, log=False) == [1.5, 2.0, 2.5]


def test_bin_counts_close_the_last_bin_and_skip_outside() -> None:
    assert charts.bin_counts([0.0, 0.5, 1.0, 1.5, 2.0, 9.0], [0.0, 1.0, 2.0]) == [2, 3]


def test_quantiles_and_five_numbers() -> None:
    assert charts.quantiles([3.0, 1.0, 2.0], 5) == [1.0, 2.0, 3.0]
    assert charts.quantiles([float(i) for i in range(101)], 3) == [0.0, 50.0, 100.0]
    assert charts.five_numbers([1.0, 2.0, 3.0, 4.0]) == (1.0, 1.75, 2.5, 3.25, 4.0)


def test_wants_log_only_for_positive_spread_values() -> None:
    assert charts.wants_log([1.0, 100.0])
    assert not charts.wants_log([1.0, 10.0])
    assert not charts.wants_log([0.0, 100.0])
    assert not charts.wants_log([])


def test_histogram_draws_one_bar_per_non_empty_bin_and_series() -> None:
    svg = charts.histogram({"a": [1.0, 1.0, 2.0], "b": [3.0]}, label="ms", bins=2)
    root = parse(svg)
    assert root.get("class") == "chart histogram"
    bars = marks(root)
    assert sorted(bar.findtext(f"{SVG}title") or "" for bar in bars) == ["a: 1", "a: 2", "b: 1"]
    assert all(float(bar.get("height", "0")) > 0 for bar in bars)


def test_distribution_has_box_mean_and_bounded_strip() -> None:
    values = [i / 999 for i in range(1000)]
    root = parse(charts.distribution({"agent": values, "idle": []}, label="f1"))
    dots = [e for e in marks(root) if e.tag == f"{SVG}circle"]
    assert len(dots) == charts.STRIP_POINTS
    assert len([e for e in marks(root) if e.tag == f"{SVG}path"]) == 1  # the mean, for 'agent' only
    assert len(root.findall(f".//{SVG}rect")) == 1


def test_scatter_rings_the_marked_point_and_uses_a_log_axis() -> None:
    points = [
        charts.Point("fast", 1.0, 0.2, (0.1, 0.3)),
        charts.Point("slow", 500.0, 0.6, (0.5, 0.7), marked=True),
    ]
    root = parse(charts.scatter(points, x_label="p50", y_label="ndcg", log_x=True))
    assert len(marks(root)) == 2
    assert len([e for e in root.iter() if e.get("class") == "ring"]) == 1
    texts = [e.text for e in root.iter(f"{SVG}text")]
    assert {"1", "10", "100"} <= set(texts)


def test_grouped_bars_draw_one_bar_per_group_and_present_series() -> None:
    groups = {"low": {"a": 0.5, "b": 1.0}, "high": {"a": 0.25}}
    root = parse(charts.grouped_bars(groups, ["a", "b"], label="ndcg"))
    bars = marks(root)
    assert [bar.findtext(f"{SVG}title") for bar in bars] == ["low, a: 0.500", "low, b: 1.000", "high, a: 0.250"]
    widths = [float(bar.get("width", "0")) for bar in bars]
    assert widths[1] == pytest.approx(2 * widths[0]) and widths[0] == pytest.approx(2 * widths[2])
    assert [bar.get("fill") for bar in bars] == [charts.PALETTE[0], charts.PALETTE[1], charts.PALETTE[0]]


@pytest.mark.parametrize("label", ["<script>alert(1)</script>", 'a"b&c', "</svg><img src=x>"])
def test_labels_are_escaped(label: str) -> None:
    for svg in (
        charts.histogram({label: [1.0, 2.0]}, label=label),
        charts.distribution({label: [0.5]}, label=label),
        charts.scatter([charts.Point(label, 1.0, 0.5)], x_label=label, y_label=label),
        charts.grouped_bars({label: {label: 0.5}}, [label], label=label),
    ):
        root = parse(svg)  # would fail if the label had opened or closed an element
        assert all(e.tag.startswith(SVG) for e in root.iter())
        assert "<script" not in svg and "<img" not in svg


def test_empty_series_say_no_data() -> None:
    for svg in (charts.histogram({"a": []}, label="x"), charts.distribution({}, label="x"),
                charts.scatter([], x_label="x", y_label="y"), charts.grouped_bars({}, [], label="x")):  # fmt: skip
        assert parse(svg).get("class") == "chart empty"
        assert "no data" in svg


def test_frame_maps_log_values_evenly() -> None:
    frame = charts._Frame(148, 100, (1.0, 100.0), (0.0, 1.0), log_x=True)
    left, middle, right = frame.x(1.0), frame.x(10.0), frame.x(100.0)
    assert math.isclose(middle - left, right - middle)
    assert (left, right) == (48.0, 134.0)
