"""TREC qrels and run files: trec_eval (through pytrec_eval) reproduces our map, mrr and ndcg@10."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
import pytrec_eval

from pytest_codesearch.report.render.csv_report import render_csv
from pytest_codesearch.report.model import RunReport
from pytest_codesearch.report.render.formats import REPORT_FORMATS
from pytest_codesearch.report.render.trec import render_qrels, render_run, run_filename, trec_id
from example_project import read_results, write_project
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




DATA = Path(__file__).parent / "data"
RANKED_AGENT = """
import json, pathlib
import pytest_codesearch as pcs

ANSWERS = json.loads(pathlib.Path("answers.json").read_text())

class Ranked:
    def initialize(self, repo_path):
        pass
    def retrieve(self, query):
        return pcs.RetrievalResult(files=ANSWERS[query])
    def reset(self):
        pass

@pcs.agent(name="ranked")
def ranked():
    return Ranked()
"""
RANKED_ANSWERS = {
    "login view": ["README.md", "src/routes.py", "src/auth/login.py"],
    "check password hashing": ["src/auth/login.py", "src/app.py", "src/auth/password.py"],
    "create the flask app": ["src/routes.py"],
    "How are passwords hashed before they are stored?": ["README.md", "auth/hashing.py", "cart.py"],
    "Where is the cart total computed with discounts?": ["auth/hashing.py", "cart.py"],
    "Which class runs agents concurrently?": ["src/adk/agents/sequential.py", "src/adk/agents/parallel.py"],
    "Which class runs agents one after another?": ["src/adk/__init__.py", "src/adk/agents/sequential.py"],
}


def test_exported_files_give_trec_eval_our_figures_for_every_match_mode(pytester: pytest.Pytester) -> None:
    """A native set (exact, graded), a YAML query file (substring) and an FQN set: trec_eval -c on the
    exported qrels and run files gives each query exactly our ndcg@10, map and mrr."""
    shutil.copytree(DATA / "yaml", pytester.path / "yaml")
    shutil.copytree(DATA / "fqn", pytester.path / "fqn")
    write_project(pytester.path)
    pytester.makeconftest(RANKED_AGENT)
    (pytester.path / "answers.json").write_text(json.dumps(RANKED_ANSWERS))
    result = pytester.runpytest(
        "--codesearch-agent=ranked", "--codesearch-runs=1", "--codesearch-trec=trec",
        "cases.jsonl", "yaml/queries.yaml", "fqn/retrieval.jsonl",
    )  # fmt: skip
    result.assert_outcomes(passed=7)
    qrels = read_qrels((pytester.path / "trec" / "qrels").read_text())
    assert qrels["yaml/queries.yaml::hashing"] == {"hashing.py": 1}  # the entries the gold set gives
    run = read_run((pytester.path / "trec" / "run.ranked").read_text())
    assert run["yaml/queries.yaml::hashing"] == {"README.md": 3.0, "hashing.py": 2.0, "cart.py": 1.0}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES.values())).evaluate(run)
    cases = read_results(pytester.path)["cases"]
    for case in cases:
        measures = theirs[trec_id(f"{case['goldset']}::{case['id']}")]
        assert {ours: measures[trec] for ours, trec in TREC_MEASURES.items()} == pytest.approx(
            {ours: case["metrics"][ours] for ours in TREC_MEASURES}, abs=1e-12
        ), case["nodeid"]
    assert {c["id"]: round(c["metrics"]["ndcg@10"], 3) for c in cases} == {
        "login": 0.5, "password": 0.76, "app": 0.0, "hashing": 0.631, "cart-total": 0.631,
        "parallel": 0.631, "sequential": 0.631,
    }  # fmt: skip
