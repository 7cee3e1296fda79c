"""TREC files: ``qrels`` and one ``run.<agent>`` file per agent, so trec_eval users can check our numbers.

``qrels`` holds one line ``<query> 0 <entry> <relevance>`` per ground-truth entry of every case (the
graded relevance of the gold set); a query id is ``<gold set>::<case id>``. A run file holds one
line ``<query> Q0 <path> <rank> <score> <agent>`` per path an agent retrieved, for the cases it
answered, as it was scored: under a gold set's ``substring`` rule (YAML query files) a path that
found a ground-truth entry is written as that entry (``src/flask/config.py`` as ``config.py``,
``CaseResult.scored_answer``), the other paths as they are, so the qrels and the run name the same
documents whatever the rule. trec_eval ignores the rank column and re-sorts by score (PITFALLS 27), so the score is
``len(answer) - rank + 1``: strictly decreasing in list order. Ids must not hold whitespace: ``%``
and every whitespace character are percent-encoded (``a b.py`` becomes ``a%20b.py``).
Our ``map``, ``mrr`` and ``ndcg@10`` equal trec_eval's ``map``, ``recip_rank`` and ``ndcg_cut_10``
per query; run ``trec_eval -c`` so that cases an agent did not answer count as 0, as they do here.
"""

from __future__ import annotations

import re

from pytest_codesearch.report.model import CaseResult, RunReport

QRELS_FILE = "qrels"
_SPACE = re.compile(r"[%\s]")
_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]")


def trec_id(text: str) -> str:
    """Return ``text`` usable as a TREC query or document id: ``%`` and whitespace percent-encoded."""
    return _SPACE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8")), text)


def query_id(case: CaseResult) -> str:
    """Return the TREC query id of a case: ``<gold set>::<case id>``, encoded."""
    return trec_id(f"{case.goldset}::{case.id}")


def run_filename(agent: str) -> str:
    """Return the run file's name for ``agent``: ``run.<agent>`` with unsafe characters as ``_``."""
    return f"run.{_UNSAFE_FILENAME.sub('_', agent)}"


def render_qrels(report: RunReport) -> str:
    """Return the qrels of every case in the report (each query once, whichever agents answered it)."""
    lines: dict[str, list[str]] = {}
    for case in report.cases:
        qid = query_id(case)
        if qid in lines:
            continue
        relevance = case.relevance or dict.fromkeys(case.ground_truth, 1)
        lines[qid] = [f"{qid} 0 {trec_id(path)} {grade}" for path, grade in relevance.items()]
    return "".join(line + "\n" for qid in sorted(lines) for line in lines[qid])


def render_run(report: RunReport, agent: str) -> str:
    """Return ``agent``'s run file: its ranked answers, as scored, with strictly decreasing scores."""
    lines = []
    for case in sorted((c for c in report.cases if c.agent == agent), key=query_id):
        answer = case.scored_answer()
        qid, tag, size = query_id(case), trec_id(agent), len(answer)
        for rank, path in enumerate(answer, start=1):
            lines.append(f"{qid} Q0 {trec_id(path)} {rank} {size - rank + 1} {tag}\n")
    return "".join(lines)


def render_trec(report: RunReport) -> dict[str, str]:
    """Return the TREC files of ``report``: ``qrels`` and one run file per agent, by file name."""
    return {QRELS_FILE: render_qrels(report), **{run_filename(a): render_run(report, a) for a in report.agents}}
