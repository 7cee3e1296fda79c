"""Line and function scores of returned spans, against values worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_codesearch.agents.contract import Span
from pytest_codesearch.outline import stored as outline_stored
from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.repo.reader import DirectoryReader
from pytest_codesearch.scoring import LINE_METRICS, SourceFiles, locate_spans, score_lines, truth_lines
from pytest_codesearch.scoring.spans import count_lines, function_units, merge, overlap

SHOP = """\
import os

@decorator
def outer(x):
    def inner(y):
        return y
    return inner(x)

class Shop:
    rate = 3

    def price(self):
        return self.rate

async def fetch():
    return 1
"""
# functions of SHOP: outer 3-7 (its decorator on 3), inner 5-6, price 12-13, fetch 15-16; the file has 16 lines
SOURCES = {"shop.py": SHOP, "notes.md": "one\ntwo\nthree\nfour\n", "broken.py": "def (:\n  pass\n"}


def read(path: str) -> str | None:
    return SOURCES.get(path)


@pytest.mark.parametrize(
    ("ranges", "expected"),
    [
        pytest.param([(5, 9), (1, 3)], [(1, 3), (5, 9)], id="sorted"),
        pytest.param([(1, 3), (4, 6)], [(1, 6)], id="adjacent-merge"),
        pytest.param([(1, 10), (3, 4), (9, 12)], [(1, 12)], id="overlapping-merge"),
        pytest.param([(5, 3), (7, 7)], [(7, 7)], id="empty-dropped"),
        pytest.param([(0, 2), (-4, -1)], [(1, 2)], id="clipped-at-line-1"),
        pytest.param([], [], id="nothing"),
    ],
)
def test_merge(ranges: list[tuple[int, int]], expected: list[tuple[int, int]]) -> None:
    assert merge(ranges) == expected


def test_overlap_and_count_work_on_intervals_not_lines() -> None:
    assert overlap([(1, 10), (20, 30)], [(5, 25)]) == 6 + 6
    assert overlap([(1, 10)], [(11, 20)]) == 0
    assert overlap([(1, 10**9)], [(10**9, 2 * 10**9)]) == 1
    assert count_lines([(1, 10**9), (2 * 10**9, 2 * 10**9)]) == 10**9 + 1


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        pytest.param([(5, 6)], [[(5, 6)]], id="inner-function"),
        pytest.param([(4, 4)], [[(3, 7)]], id="outer-function-with-decorator"),
        pytest.param([(3, 6)], [[(3, 7)], [(5, 6)]], id="outer-and-inner"),
        pytest.param([(1, 2)], [[(1, 2)]], id="module-level-lines"),
        pytest.param([(9, 13)], [[(12, 13)]], id="class-body-and-method-is-the-method"),
        pytest.param([(9, 10)], [[(9, 10)]], id="class-body-alone"),
        pytest.param([(14, 20)], [[(15, 16)]], id="past-the-end-of-the-file"),
        pytest.param([(30, 40)], [[(30, 40)]], id="wholly-past-the-end"),
        pytest.param([(1, 2), (12, 12), (13, 13)], [[(12, 13)], [(1, 2)]], id="functions-first-each-once"),
    ],
)
def test_python_functions_come_from_the_ast(lines: list[tuple[int, int]], expected: list[list[tuple[int, int]]]) -> None:
    assert function_units("shop.py", lines, SHOP) == expected


@pytest.mark.parametrize(
    ("path", "text"),
    [("notes.md", SOURCES["notes.md"]), ("broken.py", SOURCES["broken.py"]), ("shop.py", None)],
    ids=["not-python", "does-not-parse", "unreadable"],
)
def test_other_files_count_each_ground_truth_range_as_one_function(path: str, text: str | None) -> None:
    assert function_units(path, [(1, 2), (4, 9)], text) == [[(1, 2)], [(4, 9)]]


def test_score_lines_matches_hand_values() -> None:
    truth = {"shop.py": [(5, 6), (12, 13)], "notes.md": [(2, 4)]}
    returned = {"shop.py": [(6, 8)], "notes.md": [(4, 4)], "other.py": [(1, 100)]}
    scores = score_lines(truth, returned, 2 / 3, read)
    # shared lines: 6 (shop.py) and 4 (notes.md) of 7 ground-truth lines; 4 returned lines in those two files
    # (other.py has no ground-truth lines, so its 100 lines do not count); functions: inner hit, price
    # missed, the notes.md range hit
    assert list(scores) == list(LINE_METRICS)
    assert scores["line_coverage"] == 2 / 7
    assert scores["line_precision"] == 0.5
    assert scores["function_hit_rate"] == 2 / 3
    assert scores["quality_score"] == pytest.approx(0.4 * 2 / 3 + 0.4 * 0.5 + 0.2 * 2 / 3, abs=1e-15)


def test_no_spans_score_zero_and_quality_keeps_file_recall() -> None:
    scores = score_lines({"shop.py": [(5, 6)]}, {}, 0.5, read)
    assert scores == {"line_coverage": 0.0, "line_precision": 0.0, "function_hit_rate": 0.0, "quality_score": 0.2}


def test_spans_only_in_other_files_give_zero_precision() -> None:
    scores = score_lines({"shop.py": [(5, 6)]}, {"other.py": [(5, 6)]}, 0.0, read)
    assert (scores["line_coverage"], scores["line_precision"]) == (0.0, 0.0)


def test_a_span_anywhere_in_a_function_hits_it() -> None:
    # the ground truth is the return line of price (13); the span covers only its def line (12)
    scores = score_lines({"shop.py": [(13, 13)]}, {"shop.py": [(12, 12)]}, 1.0, read)
    assert (scores["line_coverage"], scores["line_precision"], scores["function_hit_rate"]) == (0.0, 0.0, 1.0)


def test_truth_lines_keeps_only_files_with_lines() -> None:
    case = TestCase.model_validate(
        {
            "id": "c",
            "query": "q",
            "ground_truth_files": [{"path": "a.py", "lines": [[7, 9], [1, 3], [2, 4]]}, "b.py"],
        }
    )
    assert truth_lines(case) == {"a.py": [(1, 4), (7, 9)]}


def test_locate_spans_normalises_paths_like_files(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x\n")
    files = frozenset({"src/a.py"})
    spans = [
        Span("./src/a.py", 3, 5),
        Span(str(tmp_path / "src" / "a.py"), 1, 1),
        Span("src\\a.py", 6, 6),
        Span("src", 1, 2),  # a directory
        Span("missing.py", 1, 2),
        Span("src/a.py", 9, 8),  # empty
    ]
    assert locate_spans(spans, tmp_path, files) == {"src/a.py": [(1, 1), (3, 6)]}


def test_source_files_reads_each_file_once(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"caf\xe9\n")
    source = SourceFiles(DirectoryReader(tmp_path, frozenset({"a.py", "missing.py"})).read)
    assert source("a.py") == "caf\ufffd\n"
    (tmp_path / "a.py").write_text("changed")
    assert source("a.py") == "caf\ufffd\n"
    assert source("missing.py") is None


intervals = st.lists(st.tuples(st.integers(1, 40), st.integers(0, 12)).map(lambda p: (p[0], p[0] + p[1])), max_size=5)


@given(truth=st.lists(intervals.filter(bool), min_size=1, max_size=2), spans=st.lists(intervals, max_size=3))
def test_line_scores_are_bounded(truth: list[list[tuple[int, int]]], spans: list[list[tuple[int, int]]]) -> None:
    paths = ["shop.py", "notes.md", "other.py"]
    truth_map = {paths[i]: merge(lines) for i, lines in enumerate(truth)}
    returned = {paths[i]: merge(lines) for i, lines in enumerate(spans)}
    scores = score_lines(truth_map, returned, 1.0, read)
    assert all(0.0 <= value <= 1.0 for value in scores.values())
    exact = score_lines(truth_map, truth_map, 1.0, read)
    assert exact == pytest.approx(dict.fromkeys(LINE_METRICS, 1.0))


JSON_IO = """\
import json

def load(path):
    with open(path) as f:
        return json.load(f)

def save(path, data):
    with open(path, "w") as f:
        json.dump(data, f)
"""


def test_the_worked_example_of_docs_metrics() -> None:
    # docs/metrics.md, "Worked example": the line and symbol figures
    scores = score_lines({"a.py": [(4, 5), (8, 9)]}, {"a.py": [(5, 7)], "b.py": [(1, 3)]}, 2 / 3, {"a.py": JSON_IO}.get)
    assert scores["line_coverage"] == 0.25
    assert scores["line_precision"] == 1 / 3
    assert scores["function_hit_rate"] == 1.0
    assert round(scores["quality_score"], 4) == 0.6


def test_functions_of_other_languages_come_from_their_outline() -> None:
    go = "package p\n\nfunc A() {\n\tx := 1\n\t_ = x\n}\n\nvar y = 2\n\nfunc B() {}\n"
    assert function_units("p.go", [(4, 5), (8, 8), (10, 10)], go) == [[(3, 6)], [(10, 10)], [(8, 8)]]


def test_function_extents_are_kept_in_the_folder_and_read_back_by_a_later_run(tmp_path: Path) -> None:
    files = {"shop.py": SHOP.encode(), "notes.txt": b"plain\n"}
    first = SourceFiles(files.get, tmp_path / "truth")
    expected = ((3, 7), (5, 6), (12, 13), (15, 16))  # outer before inner, decorators included
    assert first.function_extents("shop.py") == expected
    assert first.function_extents("notes.txt") is None and first.function_extents("gone.py") is None
    (stored,) = [p for p in (tmp_path / "truth").rglob("*") if p.is_file()]  # one file: shop.py's
    kept = json.loads(stored.read_text())
    assert stored.parent.parent.name.startswith("o1-") and kept["extents"] == [list(e) for e in expected]
    outline_stored._MEMORY.clear()  # as a later process: what it finds there is what it uses
    stored.write_text(json.dumps({**kept, "extents": [[3, 16]]}))
    later = SourceFiles(files.get, tmp_path / "truth")
    truth = {"shop.py": [(5, 6), (12, 13)]}
    assert score_lines(truth, {"shop.py": [(5, 5)]}, 1.0, later)["function_hit_rate"] == 1.0  # one unit: 3-16
    outline_stored._MEMORY.clear()
    stored.write_text("not json")  # damaged: outlined again, and stored again
    assert SourceFiles(files.get, tmp_path / "truth").function_extents("shop.py") == expected
    assert json.loads(stored.read_text()) == kept
    assert score_lines(truth, {"shop.py": [(5, 5)]}, 1.0, SourceFiles(files.get))["function_hit_rate"] == 0.5
