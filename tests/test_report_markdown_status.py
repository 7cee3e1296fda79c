"""summary.md shows per-agent status counts, nondeterministic cases and index time."""

from __future__ import annotations

from pytest_codesearch.report.render.markdown import render_summary
from pytest_codesearch.report.render.markdown_status import status_section
from report_cases import make_report


def test_every_agent_has_its_status_counts_and_index_time() -> None:
    report = make_report(100)
    section = status_section(report)
    lines = section.splitlines()
    assert lines[0] == "## Statuses and indexing"
    assert lines[2] == "| agent | cases | ok | error | timeout | crashed | not_run | nondeterministic | index s | indexed |"
    rows = {line.split(" | ")[0].removeprefix("| "): line for line in lines[4:7]}
    counts = report.agents["dense"].counts
    assert counts["timeout"] == 2 and counts["error"] == 1  # cases 7 and 96 time out, case 5 errs
    assert rows["dense"] == "| dense | 100 | 97 | 1 | 2 | 0 | 0 | 0 | 0.10 | 1 |"
    assert rows["keyword"] == "| keyword | 100 | 99 | 1 | 0 | 0 | 0 | 0 | 0.10 | 1 |"
    assert section in render_summary(report)


def test_an_agent_name_cannot_break_the_table() -> None:
    report = make_report(6, agents=("a|b\nc",))
    row = status_section(report).splitlines()[4]
    assert row.startswith("| a\\|b c | 6 |") and row.count(" | ") == 9  # ten cells


def test_a_metric_over_fewer_cases_says_its_denominator() -> None:
    """module_acc@5 carried by 5 of 6 cases: summary.md says the mean is over those 5, and why."""
    from pytest_codesearch.report.aggregate import build_run_report
    from pytest_codesearch.report.render.markdown import render_markdown
    from pytest_codesearch.scoring import metric_names
    from report_cases import KS

    report = make_report(6, agents=("bm25",))
    cases = [c.model_copy(update={"metrics": {**c.metrics, "module_acc@5": 1.0}}) if i < 5 else c
             for i, c in enumerate(report.cases)]  # fmt: skip
    built = build_run_report(report.run, cases, metric_names(KS), headline=["ndcg@10", "module_acc@5"])
    assert built.agents["bm25"].metrics["module_acc@5"].n == 5
    text = render_markdown(built)
    assert ("module_acc@5 is the mean over the 5 of 6 cases whose ground truth lists modules (results.json "
            "`metrics.module_acc@5.n`): a case without them is left out, not scored 0. A table that divides "
            "by all 6 cases gives 5/6 of it for the same answers.") in text
    assert "ndcg@10 is the mean over" not in text
