"""What reports say about replayed patches: answers that are unordered sets, and patches that answered nothing."""

from __future__ import annotations

from pytest_codesearch.report.model import RunReport


def patch_problems(report: RunReport) -> list[tuple[str, str, str]]:
    """Return (agent, case id, why) of each replayed patch that was empty or did not apply, in report order."""
    return [(case.agent, case.id, str(case.metadata["patch_problem"]))
            for case in report.cases if "patch_problem" in case.metadata]  # fmt: skip


def replay_notes(report: RunReport) -> list[str]:
    """Return one line on unordered answers (if any), then one line per replayed patch that answered nothing."""
    unordered = sum(case.unordered for case in report.cases)
    if not unordered:
        return []
    lines = [f"{unordered} case(s) answered with an unordered set (replayed patches): metrics that read an "
             "order (hit@k, mrr, ndcg@k, acc@k, ...) are refused for them; set metrics apply"]  # fmt: skip
    lines += [f"{agent} {case_id}: {why}; scored as an empty answer" for agent, case_id, why in patch_problems(report)]
    return lines
