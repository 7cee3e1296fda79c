"""The metric registry is the one list of metrics: names, order, docs and definitions derive from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_codesearch.scoring import (
    LINE_METRICS,
    level_metric_names,
    metric_names,
    optional_metric_names,
    symbol_metric_names,
)
from pytest_codesearch.scoring.registry import (
    METRICS,
    expand,
    find_metric,
    higher_is_better,
    markdown_table,
    update_docs,
)
from pytest_codesearch.scoring.symbols import HARD_NEGATIVE_METRIC

DOCS = Path(__file__).parent.parent / "docs" / "metrics.md"


def test_docs_tables_are_the_registry() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert text.count("<!-- metrics:") == 7  # one table per section of the registry
    assert update_docs(text) == text, "run: python -m pytest_codesearch.scoring docs/metrics.md"


def test_every_metric_is_documented_in_prose_too() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for metric in METRICS:
        assert f"`{metric.label()}`" in text


def test_labels_are_unique_and_every_file_metric_has_a_formula() -> None:
    labels = [metric.label() for metric in METRICS]
    assert len(labels) == len(set(labels))
    for metric in METRICS:
        assert metric.definition.endswith(".") and "\n" not in metric.definition
        assert (metric.formula is not None) == (metric.section in ("set", "ranking", "modules", "functions")), metric.name


def test_names_keep_report_order() -> None:
    assert metric_names((1, 5))[:4] == ["precision", "recall", "f1", "f1_partial"]
    assert metric_names((1, 5), f_beta=True)[4] == "f_beta"
    assert metric_names((1, 5))[-3:] == ["mrr", "map", "r_precision"]
    at_k = [name for name in metric_names((5, 1)) if "@" in name]
    assert [name.split("@")[1] for name in at_k] == sorted(
        [name.split("@")[1] for name in at_k], key=lambda k: k != "5"
    )  # every metric at 5, then every metric at 1: cut-offs keep the given order
    assert at_k[:2] == ["precision@5", "recall@5"]


def test_optional_names_match_the_modules_that_compute_them() -> None:
    assert optional_metric_names((1, 5)) == [
        *LINE_METRICS, *symbol_metric_names((1, 5)), HARD_NEGATIVE_METRIC, *level_metric_names((1, 5))
    ]


def test_expand_repeats_each_block_of_cut_off_metrics_per_k() -> None:
    names = [name for name, _, _ in expand(METRICS[:7], (1, 2))]
    assert names[5:] == ["precision@1", "recall@1", "precision@2", "recall@2"]


@pytest.mark.parametrize(
    ("name", "label", "higher"),
    [("recall@10", "recall@k", True), ("mrr", "mrr", True), ("hard_negative_rate", "hard_negative_rate", False)],
)
def test_find_metric(name: str, label: str, higher: bool) -> None:
    metric = find_metric(name)
    assert metric is not None and metric.label() == label
    assert higher_is_better(name) is higher


def test_unknown_names() -> None:
    assert find_metric("recall@x") is None
    assert find_metric("nope") is None
    assert higher_is_better("nope") is True


def test_markdown_table_leaves_out_an_empty_trec_eval_column() -> None:
    assert markdown_table("lines").splitlines()[0] == "| name | formula |"
    assert "| `hit@k` | 1 if hits(k) > 0, else 0 | `success_k` |" in markdown_table("ranking")
    assert "(lower is better)" in markdown_table("symbols")
