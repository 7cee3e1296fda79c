"""Marking the last report superseded at a run's start (``runs/reportdir.supersede``)."""

from __future__ import annotations

import json
from pathlib import Path

from report_cases import make_report
from pytest_codesearch.report.render.json_report import render_json
from pytest_codesearch.runs.reportdir import supersede

STARTED = "2026-11-26T18:00:00+00:00"


def test_a_report_as_written_gets_its_two_keys_marked_and_keeps_every_other_byte(tmp_path: Path) -> None:
    written = render_json(make_report(12))
    (tmp_path / "results.json").write_bytes(written)
    assert supersede(tmp_path, STARTED) is True
    marked = (tmp_path / "results.json").read_bytes()
    expected = {**json.loads(written), "incomplete": True, "superseded_by": STARTED}
    assert json.loads(marked) == expected
    assert marked.replace(b'"incomplete": true,\n  "superseded_by": "' + STARTED.encode() + b'"', b"") == written.replace(
        b'"incomplete": false,\n  "superseded_by": null', b""
    )
    assert supersede(tmp_path, "2026-11-26T19:00:00+00:00") is True  # a report superseded before
    assert json.loads((tmp_path / "results.json").read_text())["superseded_by"] == "2026-11-26T19:00:00+00:00"


def test_a_report_written_otherwise_is_parsed_and_marked(tmp_path: Path) -> None:
    report = json.loads(render_json(make_report(3)))
    (tmp_path / "results.json").write_text(json.dumps(report), encoding="utf-8")  # one line, another spacing
    assert supersede(tmp_path, STARTED) is True
    assert json.loads((tmp_path / "results.json").read_text()) == {**report, "incomplete": True, "superseded_by": STARTED}


def test_a_report_that_is_not_whole_is_left_as_it_is(tmp_path: Path) -> None:
    cut = render_json(make_report(3))[:-200]
    (tmp_path / "results.json").write_bytes(cut)
    assert supersede(tmp_path, STARTED) is False
    assert (tmp_path / "results.json").read_bytes() == cut
    assert supersede(tmp_path / "absent", STARTED) is False
