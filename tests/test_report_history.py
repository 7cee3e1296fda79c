"""Saved runs, their comparison and the quality gates, as library functions (no pytest session)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from gitrepo import commit, init_repo
from pytest_codesearch.runs.history import (
    HistoryError,
    git_commit,
    list_runs,
    load_report,
    render_history,
    resolve_run,
    save_run,
)
from pytest_codesearch.report.model import RunReport
from report_cases import make_report


def _save(history: Path, report: RunReport, second: int, journal: Path | None = None) -> str:
    moment = datetime(2026, 11, 23, 10, 0, second, tzinfo=timezone.utc)
    return save_run(history, report, journal, commit="abc123", goldsets={"g.jsonl": "f" * 64}, now=moment).id


def test_a_saved_run_holds_results_journal_and_its_description(tmp_path: Path) -> None:
    report = make_report(12)
    journal = tmp_path / "journal.jsonl"
    journal.write_text('{"header": {}}\n')
    run_id = _save(tmp_path / "history", report, 5, journal)
    run_dir = tmp_path / "history" / run_id
    assert run_id.startswith("20261123T100005Z-") and len(run_id) == len("20261123T100005Z-") + 8
    assert {p.name for p in run_dir.iterdir()} == {"results.json", "journal.jsonl", "run.json"}
    assert (run_dir / "journal.jsonl").read_text() == '{"header": {}}\n'
    assert load_report(run_dir / "results.json") == report
    (saved,) = list_runs(tmp_path / "history")
    assert (saved.id, saved.commit, saved.goldsets, saved.cases) == (run_id, "abc123", {"g.jsonl": "f" * 64}, 36)
    assert saved.agents == ["bm25", "keyword", "dense"] and saved.complete and not saved.partial
    assert [p.name for p in (tmp_path / "history").iterdir()] == [run_id]  # no temporary directory left


def test_runs_list_oldest_first_and_resolve_by_name(tmp_path: Path) -> None:
    history = tmp_path / "history"
    report = make_report(6)
    first, second, third = (_save(history, report, s) for s in (1, 2, 3))
    assert [r.id for r in list_runs(history)] == [first, second, third]
    assert resolve_run("latest", history, tmp_path) == history / third / "results.json"
    assert resolve_run("previous", history, tmp_path) == history / second / "results.json"
    assert resolve_run(first[-8:], history, tmp_path) == history / first / "results.json"
    assert resolve_run(f"history/{first}", history, tmp_path) == history / first / "results.json"
    assert resolve_run(f"history/{first}/results.json", history, tmp_path) == history / first / "results.json"
    with pytest.raises(HistoryError, match="20261123T1000: names 3 saved runs"):
        resolve_run("20261123T1000", history, tmp_path)
    with pytest.raises(HistoryError, match="nope: no such file, run directory or saved run.*--codesearch-history"):
        resolve_run("nope", history, tmp_path)


def test_previous_needs_two_runs(tmp_path: Path) -> None:
    _save(tmp_path, make_report(6), 1)
    with pytest.raises(HistoryError, match="previous: .* holds 1 saved run"):
        resolve_run("previous", tmp_path, tmp_path)


def test_history_lines_name_id_cases_commit_state_and_agents(tmp_path: Path) -> None:
    run_id = _save(tmp_path, make_report(6), 1)
    lines = render_history(list_runs(tmp_path))
    assert lines[0].split() == ["id", "saved", "(UTC)", "cases", "commit", "state", "agents"]
    assert lines[1].split() == [run_id, "2026-11-23T10:00:01", "18", "abc123", "complete", "bm25,", "keyword,", "dense"]
    assert render_history([]) == ["no saved runs"]


def test_a_broken_results_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"schema_version": 1}')
    with pytest.raises(HistoryError, match=r"results.json: not a results.json: run: Field required"):
        load_report(path)


def test_git_commit_is_head_of_the_enclosing_repository(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    head = commit(repo, {"a.py": "x = 1\n"}, "Add a")
    (tmp_path / "project" / "sub").mkdir()
    assert git_commit(tmp_path / "project" / "sub") == head
    assert git_commit(tmp_path / "elsewhere") is None
    init_repo(tmp_path / "empty")
    assert git_commit(tmp_path / "empty") is None
