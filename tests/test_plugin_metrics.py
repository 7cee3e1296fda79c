"""Line, symbol, F-beta and failure-analysis metrics as they reach results.json through the plugin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from example_project import read_results, write_project
from pytest_codesearch.scoring import metric_names

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
"""
# functions: outer 3-7, inner 5-6, price 12-13

CASES: list[dict[str, Any]] = [
    {"id": "price", "query": "price of the shop",
     "ground_truth_files": [{"path": "src/shop.py", "lines": [[5, 6], [12, 13]], "symbols": ["shop.Shop.price"]},
                            "src/app.py"],
     "hard_negatives": ["shop.outer"]},
    {"id": "login", "query": "login view", "ground_truth_files": ["src/auth/login.py"]},
    {"id": "routes", "query": "register login routes", "ground_truth_files": ["src/auth/login.py"]},
    {"id": "invoice", "query": "invoice totals", "ground_truth_files": ["README.md"]},
]  # fmt: skip

CONFTEST = """
import pytest_codesearch as pcs

@pcs.agent(name="spanner")
def spanner():
    def search(query):
        return pcs.RetrievalResult(
            files=["src/shop.py", "src/routes.py", "src/app.py"],
            spans=[pcs.Span("src/shop.py", 6, 8), pcs.Span("./src/routes.py", 1, 2), pcs.Span("nowhere.py", 1, 9)],
            symbols=["shop.outer", "shop.inner", "shop.Shop.price"],
        )
    return search

@pcs.agent(name="broken")
def broken():
    def search(query):
        raise RuntimeError("down")
    return search
"""

LINE_METRICS = ["line_coverage", "line_precision", "function_hit_rate", "quality_score"]
SYMBOL_METRICS = ["symbol_hit@1", "symbol_hit@5", "symbol_hit@10", "symbol_mrr", "hard_negative_rate"]


@pytest.fixture
def shop(pytester: pytest.Pytester) -> Path:
    """The example project plus src/shop.py, the cases above and the two agents."""
    goldset = write_project(pytester.path, cases=CASES)
    (pytester.path / "repo" / "src" / "shop.py").write_text(SHOP)
    pytester.makeconftest(CONFTEST)
    return goldset


def run_cases(pytester: pytest.Pytester, *args: str, passed: int = 0, failed: int = 0) -> dict[str, dict[str, Any]]:
    """Run the plugin, check the outcomes, and return the case records by "agent:id"."""
    pytester.runpytest("-p", "no:randomly", *args).assert_outcomes(passed=passed, failed=failed)
    report_dir = next((a.split("=", 1)[1] for a in args if a.startswith("--codesearch-report-dir=")), "codesearch-report")
    return {f"{c['agent']}:{c['id']}": c for c in read_results(pytester.path, report_dir)["cases"]}


def test_spans_get_exact_line_and_symbol_metrics(pytester: pytest.Pytester, shop: Path) -> None:
    cases = run_cases(pytester, "--codesearch-agent=spanner", "-k", "price", passed=1)
    metrics = cases["spanner:price"]["metrics"]
    assert list(metrics) == [*metric_names((1, 5, 10)), *LINE_METRICS, *SYMBOL_METRICS]
    # ground-truth lines 5-6 and 12-13 of shop.py; the span 6-8 shares line 6 and overlaps inner (5-6),
    # not price (12-13); the routes.py span has no ground-truth lines to compare with and nowhere.py is
    # not in the snapshot. Both ground-truth files were retrieved: file recall 1.
    assert metrics["line_coverage"] == 0.25
    assert metrics["line_precision"] == pytest.approx(1 / 3, abs=1e-15)
    assert metrics["function_hit_rate"] == 0.5
    assert metrics["quality_score"] == pytest.approx(0.4 * 1 + 0.4 / 3 + 0.2 * 0.5, abs=1e-15)
    # symbols: shop.Shop.price at rank 3, below the hard negative shop.outer
    assert [metrics[name] for name in SYMBOL_METRICS] == [0.0, 1.0, 1.0, pytest.approx(1 / 3), 1.0]
    assert cases["spanner:price"]["failure_category"] is None


def test_a_case_without_lines_or_symbols_has_no_such_metrics(pytester: pytest.Pytester, shop: Path) -> None:
    cases = run_cases(pytester, "--codesearch-agent=spanner", "-k", "login and not routes", passed=1)
    assert list(cases["spanner:login"]["metrics"]) == metric_names((1, 5, 10))


def test_an_error_case_scores_zero_on_every_metric_that_applies(pytester: pytest.Pytester, shop: Path) -> None:
    cases = run_cases(pytester, "--codesearch-agent=broken", "-k", "price or login", failed=2)
    price, login = cases["broken:price"], cases["broken:login"]
    assert (price["status"], login["status"]) == ("error", "error")
    assert price["metrics"] == dict.fromkeys([*metric_names((1, 5, 10)), *LINE_METRICS, *SYMBOL_METRICS], 0.0)
    assert login["metrics"] == dict.fromkeys(metric_names((1, 5, 10)), 0.0)
    assert price["failure_category"] is None  # only answered cases are analysed


def test_f_beta_option_adds_the_metric(pytester: pytest.Pytester, shop: Path) -> None:
    cases = run_cases(pytester, "--codesearch-agent=spanner,broken", "--codesearch-f-beta=2", "-k", "price", passed=1, failed=1)
    # P = 2/3 (shop.py and app.py of three), R = 1: F2 = 5 * 2/3 / (4 * 2/3 + 1) = 10/11
    assert cases["spanner:price"]["metrics"]["f_beta"] == pytest.approx(10 / 11, abs=1e-15)
    assert list(cases["spanner:price"]["metrics"])[:5] == ["precision", "recall", "f1", "f1_partial", "f_beta"]
    assert cases["broken:price"]["metrics"]["f_beta"] == 0.0
    # a second partial run writes to partial/: read this one's report from a directory of its own
    without = run_cases(pytester, "--codesearch-agent=spanner", "-k", "price", "--codesearch-report-dir=alone", passed=1)
    assert "f_beta" not in without["spanner:price"]["metrics"]


def test_missed_cases_carry_their_failure_category(pytester: pytest.Pytester, shop: Path) -> None:
    cases = run_cases(pytester, "--codesearch-agent=spanner", passed=4)
    # the answer is always shop.py, routes.py, app.py: none of them is login.py or README.md
    assert {key: case["failure_category"] for key, case in cases.items()} == {
        "spanner:price": None,
        "spanner:login": "specificity_gap",  # routes.py shares {login, view} like login.py, no more
        "spanner:routes": "distractor_overlap",  # routes.py shares {register, login, routes}, login.py {login}
        "spanner:invoice": "vocabulary_mismatch",  # README.md holds neither "invoice" nor "totals"
    }
