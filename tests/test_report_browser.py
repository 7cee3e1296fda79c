"""report.html in a real browser: headless Chromium draws every chart, fills the tables, logs nothing.

Chromium runs as a subprocess (``--dump-dom`` for the DOM after the page script ran,
``--screenshot`` for a picture) with ``--enable-logging=stderr``, which prints every console
message, so an uncaught script error shows up there. Without Chromium the tests skip, unless
``CODESEARCH_REQUIRE_BROWSER=1`` (set by ``.ci/run``) makes them fail. ``CODESEARCH_CHROMIUM``
names another binary; ``CODESEARCH_SCREENSHOT_DIR`` keeps the screenshot for a human to look at.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Collection
from pathlib import Path

import pytest
from report_cases import make_report, priced

from pytest_codesearch.atomic import write_atomic
from pytest_codesearch.report.render.html import render_html
from pytest_codesearch.report.model import RunReport

pytestmark = pytest.mark.slow
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
)  # fmt: skip
"""Without the networking flags Chromium waits on lookups in a closed network."""


def chromium() -> str:
    """Return the Chromium binary, or skip (fail under CODESEARCH_REQUIRE_BROWSER=1) without one."""
    named = os.environ.get("CODESEARCH_CHROMIUM")
    found = named or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
    )
    if found:
        return found
    reason = "Chromium not found (Debian: apt-get install chromium; or set CODESEARCH_CHROMIUM)"
    if os.environ.get("CODESEARCH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason}, and CODESEARCH_REQUIRE_BROWSER=1 forbids skipping")
    pytest.skip(reason)


def run_chromium(tmp_path: Path, url: str, *args: str) -> tuple[str, list[str]]:
    """Return Chromium's stdout and the console lines it logged, for ``url`` with ``args``."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    done = subprocess.run(
        [chromium(), *FLAGS, f"--user-data-dir={profile}", *args, url],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, [line for line in done.stderr.splitlines() if ":CONSOLE" in line]


@pytest.fixture(scope="module")
def report() -> RunReport:
    """Three agents over 120 cases, hostile queries first."""
    return make_report(120)


@pytest.fixture
def page(tmp_path: Path, report: RunReport) -> Path:
    """The written report.html."""
    target = tmp_path / "report.html"
    write_atomic(target, render_html(report))
    return target


def expected_matches(report: RunReport, wanted: dict[str, str], skip: Collection[str] = ()) -> int:
    """Return how many cases (but ``skip``) have each agent of ``wanted`` in the given outcome."""
    outcomes: dict[str, dict[str, str]] = {}
    for case in report.cases:
        if case.id in skip:
            continue
        outcome = "error" if case.status != "ok" else "hit" if case.metrics["hit@10"] > 0 else "miss"
        outcomes.setdefault(case.id, {})[case.agent] = outcome
    return sum(all(o.get(a) == w for a, w in wanted.items()) for o in outcomes.values())


def test_page_draws_charts_fills_tables_and_logs_nothing(tmp_path: Path, page: Path) -> None:
    dom, console = run_chromium(tmp_path, page.as_uri(), "--dump-dom")
    assert console == []
    assert 'data-pwned="' not in dom  # the attribute a hostile query would set if it ran
    assert re.search(r'<html lang="en" data-rows="50" data-matches="120" data-ready-ms="[\d.]+"', dom)
    charts = re.findall(r'<svg class="chart (\w+)".*?</svg>', dom, flags=re.S)
    assert charts == ["distribution", "histogram", "scatter", "bars", "bars", "bars"]
    for svg in re.findall(r'<svg class="chart \w+".*?</svg>', dom, flags=re.S):
        assert svg.count('class="mark"') >= 3
    body = dom.split('id="case-table"')[1].split("</table>")[0]
    assert body.count("<tr>") == 1 + 50  # the header and one page of cases
    assert "&lt;/script&gt;&lt;script&gt;document.documentElement" in body  # shown, not run
    assert "<img" not in body
    assert " tokens" not in body and 'value="cost:' not in dom  # no agent returned a cost


def test_case_table_shows_cost_and_tokens_beside_latency(tmp_path: Path, report: RunReport) -> None:
    page = tmp_path / "priced.html"
    write_atomic(page, render_html(priced(report)))
    dom, console = run_chromium(tmp_path, page.as_uri() + "#sort=cost:0", "--dump-dom")
    assert console == []
    body = dom.split('id="case-table"')[1].split("</table>")[0]
    first = re.search(r"<tbody><tr>(.*?)</tr>", body, flags=re.S)
    assert first is not None
    bm25 = re.findall(r"<td>(.*?)</td>", first.group(1), flags=re.S)[2]  # case, ground truth, bm25 (query has a class)
    assert re.search(r" ms · \$0\.0012 · 1,200 in / 80 out tokens", bm25)
    assert '<option value="cost:0">bm25: cost</option>' in dom
    assert body.count(" out tokens") == 50  # bm25's answers on the page; keyword and dense gave none


def test_fragment_filters_cases_where_one_agent_hit_and_another_missed(
    tmp_path: Path, page: Path, report: RunReport
) -> None:
    dom, console = run_chromium(tmp_path, page.as_uri() + "#hit=bm25&miss=keyword", "--dump-dom")
    assert console == []
    matches = expected_matches(report, {"bm25": "hit", "keyword": "miss"})
    assert 0 < matches < 120
    assert f'data-rows="{min(matches, 50)}" data-matches="{matches}"' in dom
    assert '<option value="hit">hit</option>' in dom


def test_fragment_sorts_and_searches(tmp_path: Path, page: Path, report: RunReport) -> None:
    url = page.as_uri() + "#miss=dense&sort=latency:0&desc=1"
    dom, console = run_chromium(tmp_path, url, "--dump-dom")
    assert console == []
    missed = {c.id for c in report.cases if c.agent == "dense" and c.status == "ok" and not c.metrics["hit@10"]}
    slowest = max((c for c in report.cases if c.agent == "bm25" and c.id in missed),
                  key=lambda c: c.latency_ms or 0.0)  # fmt: skip
    first = re.search(r'<tbody><tr><td><div>([^<]+)</div>', dom.split('id="case-table"')[1])
    assert first is not None and first.group(1) == slowest.id
    dom, console = run_chromium(tmp_path, page.as_uri() + "#q=A%20%7C%20B", "--dump-dom")
    assert console == [] and 'data-rows="1" data-matches="1"' in dom


CLICKS = """<script>
(function () {
  var selects = document.querySelectorAll("#agent-filters select");
  selects[0].value = "hit"; selects[0].dispatchEvent(new Event("change"));
  selects[1].value = "miss"; selects[1].dispatchEvent(new Event("change"));
  var sort = document.getElementById("sort");
  sort.value = "metric:2"; sort.dispatchEvent(new Event("change"));
  document.getElementById("direction").click();
  var search = document.getElementById("search");
  search.value = "Feature"; search.dispatchEvent(new Event("input"));
  document.documentElement.setAttribute("data-hash", location.hash);
})();
</script>"""
"""Appended to a copy of the page: a user choosing filters, a sort, its direction and a search."""


def test_controls_filter_and_keep_the_view_in_the_address(
    tmp_path: Path, page: Path, report: RunReport
) -> None:
    clicked = page.with_name("clicked.html")
    clicked.write_text(page.read_text(encoding="utf-8").replace("</body>", CLICKS + "</body>"), encoding="utf-8")
    dom, console = run_chromium(tmp_path, clicked.as_uri(), "--dump-dom")
    assert console == []
    no_feature = {c.id for c in report.cases if "feature" not in c.query}
    matches = expected_matches(report, {"bm25": "hit", "keyword": "miss"}, skip=no_feature)
    assert f'data-matches="{matches}"' in dom
    assert 'data-hash="#hit=bm25&amp;miss=keyword&amp;q=feature&amp;sort=metric%3A2&amp;desc=1"' in dom


def test_screenshot(tmp_path: Path, page: Path) -> None:
    shot = tmp_path / "report.png"
    _, console = run_chromium(tmp_path, page.as_uri(), "--window-size=1400,3600", f"--screenshot={shot}")
    assert console == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 50_000  # a blank page of that size is a few kB
    keep = os.environ.get("CODESEARCH_SCREENSHOT_DIR")
    if keep:
        shutil.copy(shot, Path(keep) / "report.png")
