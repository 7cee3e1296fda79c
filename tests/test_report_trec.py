"""TREC qrels and run files: trec_eval (through pytrec_eval) reproduces our map, mrr and ndcg@10."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import pytrec_eval

from pytest_codesearch.report.render.csv_report import render_csv
from pytest_codesearch.report.model import RunReport
from pytest_codesearch.report.render.formats import REPORT_FORMATS
from pytest_codesearch.report.render.trec import render_qrels, render_run, run_filename, trec_id
from report_cases import make_report

TREC_MEASURES = {"map": "map", "mrr": "recip_rank", "ndcg@10": "ndcg_cut_10"}
"""Our metric -> trec_eval's measure."""


def read_qrels(text: str) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        qid, zero, doc, grade = line.split(" ")
        assert zero == "0"
        qrels.setdefault(qid, {})[doc] = int(grade)
    return qrels


def read_run(text: str) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        qid, q0, doc, _rank, score, _tag = line.split(" ")
        assert q0 == "Q0" and doc not in run.get(qid, {})
        run.setdefault(qid, {})[doc] = float(score)
    return run


def check_against_trec_eval(report: RunReport) -> int:
    """Assert that trec_eval's measures equal ours on every answered case; return how many were checked."""
    qrels = read_qrels(render_qrels(report))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES.values()))
    checked = 0
    for agent in report.agents:
        theirs = evaluator.evaluate(read_run(render_run(report, agent)))
        for case in report.cases:
            if case.agent != agent or not case.retrieved:
                continue  # trec_eval -c counts an unanswered query as 0, as we do
            measures = theirs[trec_id(f"{case.goldset}::{case.id}")]
            for ours, trec in TREC_MEASURES.items():
                assert case.metrics[ours] == pytest.approx(measures[trec], abs=1e-12), (case.nodeid, ours)
            checked += 1
    return checked


def test_trec_eval_reproduces_our_ranking_metrics() -> None:
    report = make_report(60)
    assert check_against_trec_eval(report) > 150


def test_ids_hold_no_whitespace_and_scores_fall_strictly() -> None:
    report = make_report(3, agents=("bm25",))
    case = report.cases[0].model_copy(
        update={"goldset": "my sets/a.jsonl", "id": "c 1", "retrieved": ["a b.py", "x%y.py", "c\td.py"]}
    )
    report = report.model_copy(update={"cases": [case]})
    lines = render_run(report, "bm25").splitlines()
    assert lines == [
        "my%20sets/a.jsonl::c%201 Q0 a%20b.py 1 3 bm25",
        "my%20sets/a.jsonl::c%201 Q0 x%25y.py 2 2 bm25",
        "my%20sets/a.jsonl::c%201 Q0 c%09d.py 3 1 bm25",
    ]
    assert run_filename("bm25[k1=1.2, b=0.75]") == "run.bm25_k1_1.2__b_0.75_"


def test_write_trec_writes_qrels_and_one_run_per_agent(tmp_path: Path) -> None:
    report = make_report(6)
    paths = REPORT_FORMATS["trec"].write(report, tmp_path / "trec")
    assert [p.name for p in paths] == ["qrels", "run.bm25", "run.keyword", "run.dense"]
    assert len(read_qrels(paths[0].read_text())) == 6


def test_csv_keeps_the_named_columns_and_every_metric() -> None:
    report = make_report(6)
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    assert {"id", "agent", "retrieved", "f1", "latency_ms"} <= set(rows[0])
    assert set(report.metric_names()) <= set(rows[0])
    assert len(rows) == len(report.cases)

