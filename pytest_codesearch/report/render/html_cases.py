"""The case table's data in ``report.html``: every case as compact JSON, safe inside ``<script>``.

Paths are interned (given by index), each agent's answer is a short list, and the text is
escaped so that no case can close the script element (see ``script_safe_json``). The page's
script (``templates/report.js``) reads the same field order.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from itertools import count
from typing import Any

from markupsafe import Markup

from pytest_codesearch.report.cost import COST_KEYS, case_cost
from pytest_codesearch.report.model import CaseResult, RunReport
from pytest_codesearch.report.table import case_latency
from pytest_codesearch.status import STATUS_VALUES, Status

SHOWN_PATHS = 10
"""Retrieved paths per agent and case carried into the page (the rest are counted)."""
ERROR_CHARS = 300
"""Longest error text carried into the page."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def case_json(report: RunReport, metric: str | None) -> Markup:
    """Return the cases as JSON safe inside a ``<script>`` element: one row per (gold set, case).

    ``{"agents", "metric", "hit", "statuses", "answered", "paths", "cases"}``: ``hit`` is the
    report's success metric, ``statuses`` every status value (``Status`` order) and ``answered`` the
    one whose answers are scored (the page's outcome filter offers hit, miss and the others).
    Paths are interned in ``paths`` and given by index. A case row is ``[goldset, id, query,
    ground truth, complexity, category, repo, answers]`` with one answer per agent (null when the
    agent was not given the case): ``[status, latency, metric, f1, hit, first retrieved paths,
    retrieved count, error, failure]``, the latency as the report counts it (``table.case_latency``).
    When some agent returned a cost or tokens (``report.costs``), the data also holds
    ``"cost": true`` and every answer three more fields: ``cost_usd, tokens_in, tokens_out`` (each
    null when the answer's metadata did not hold that number; see ``cost.case_cost``).
    """
    column = {agent: i for i, agent in enumerate(report.agents)}
    hit = report.success_metric
    paths: defaultdict[str, int] = defaultdict(count().__next__)  # path -> its index, in first-seen order
    answer = _Answers(paths.__getitem__, metric, hit, costs=bool(report.costs))
    rows: dict[tuple[str, str], list[Any]] = {}
    for case in report.cases:
        key = (case.goldset, case.id)
        row = rows.get(key)
        if row is None:
            truth = list(map(paths.__getitem__, case.ground_truth))
            row = [case.goldset, case.id, case.query, truth, case.complexity, case.category,
                   case.repo, [None] * len(column)]  # fmt: skip
            rows[key] = row
        at = column.get(case.agent)
        if at is not None and row[7][at] is None:
            row[7][at] = answer(case)
    data: dict[str, Any] = {
        "agents": list(column), "metric": metric, "hit": hit, "statuses": STATUS_VALUES, "answered": Status.OK.value,
    }  # fmt: skip
    if report.costs:
        data["cost"] = True
    data |= {"paths": list(paths), "cases": list(rows.values())}
    return Markup(script_safe_json(data))


def script_safe_json(data: Any) -> str:
    """Return compact JSON safe in a ``<script>`` block and in UTF-8.

    ``<``, ``>``, ``&`` and the line separators are written as ``\\u`` escapes, and so is any lone
    surrogate (a gold set's JSON may hold one), which UTF-8 cannot encode.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):  # fmt: skip
        text = text.replace(raw, escaped)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class _Answers:
    """One agent's answer to a case as a compact list (see ``case_json``); scores to 4 decimals.

    Rounded scores are kept per distinct value: at 100,000 records, rounding every one of them
    was a tenth of the page's time. (A score of -0.0, which no scorer produces, shows as 0.0.)
    """

    def __init__(self, path_index: Callable[[str], int], metric: str | None, hit: str | None, *, costs: bool) -> None:
        self.path_index, self.metric, self.hit, self.costs = path_index, metric or "", hit or "", costs
        self.rounded = _Rounded()

    def __call__(self, case: CaseResult) -> list[Any]:
        scores, latency, rounded = case.metrics, case_latency(case), self.rounded
        answer = [
            case.status,  # a str: JSON holds its value
            None if latency is None else round(latency, 3),
            rounded[scores.get(self.metric)],
            rounded[scores.get("f1")],
            scores.get(self.hit),
            list(map(self.path_index, case.retrieved[:SHOWN_PATHS])),
            len(case.retrieved),
            None if case.error is None else case.error[:ERROR_CHARS],
            case.failure_category,
        ]
        if self.costs:
            answer += _cost_fields(case)
        return answer


def _cost_fields(case: CaseResult) -> list[float | int | None]:
    """Return the answer's ``[cost_usd, tokens_in, tokens_out]``, tokens as integers, null where absent."""
    found = case_cost(case)
    cost, tokens_in, tokens_out = (found.get(key) for key in COST_KEYS)
    return [cost, None if tokens_in is None else int(tokens_in), None if tokens_out is None else int(tokens_out)]


class _Rounded(dict[float | None, float | None]):
    """``round(score, 4)`` computed once per distinct score; None stays None."""

    def __init__(self) -> None:
        super().__init__({None: None, 0.0: 0.0})

    def __missing__(self, score: float | None) -> float | None:
        value = self[score] = None if score is None else round(score, 4)
        return value
