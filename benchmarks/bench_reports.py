"""Time report.html: its size and render time at 10,000 cases, its opening in Chromium, 100,000 records.

Builds a run report of three agents over ``--cases`` gold-set cases (scored for real by
``tests/report_cases.py``; building it is not timed), then prints:

1. ``render_html`` time (best of ``--repeat``) and the size of ``report.html``;
2. opening it in headless Chromium: the wall time of ``chromium --dump-dom`` on the page, the same
   on an empty page (browser start-up, the part that is not ours), and the time the page itself
   reports from navigation start until its case table is drawn (``data-ready-ms``);
3. the HTML writer's share of "all reports for 100,000 case records": ``render_html`` on a report
   whose cases are the built ones repeated under new case ids up to ``--records`` records (the
   aggregates stay those of the built report: they do not change what the writer does);
4. on that report, each registered format's best time (of ``--repeat``) to produce its file's bytes
   (``ReportFormat.content``, what ``write_reports`` writes: encoding included), their total, and
   ``write_reports`` itself writing every file atomically into a temporary directory (fsync
   included; the sys part is the kernel's copying).

Targets (issue 11): report.html for 10,000 cases under 10 MB and opening in Chromium in under 3 s;
all writers together under 5 s for 100,000 records. Run it from the repository root::

    python benchmarks/bench_reports.py [--cases 10000] [--records 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from report_cases import make_report  # noqa: E402

from pytest_codesearch.report.render.html import render_html  # noqa: E402
from pytest_codesearch.report.model import CaseResult, RunReport  # noqa: E402

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)  # fmt: skip


def best_time(report: RunReport, repeat: int) -> tuple[float, float, str]:
    """Return the best wall and CPU times of ``render_html`` over ``repeat`` runs, and the page.

    CPU time is printed beside wall time because a shared machine's load inflates wall time.
    """
    wall, cpu, page = float("inf"), float("inf"), ""
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        page = render_html(report)
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu, page


def open_in_chromium(binary: str, url: str) -> tuple[float, float, str]:
    """Return the wall and CPU times of ``chromium --dump-dom url`` and the DOM it printed.

    CPU time is that of Chromium and every process it started and reaped (``RUSAGE_CHILDREN``).
    """
    with tempfile.TemporaryDirectory() as profile:
        start, before = time.perf_counter(), _children_cpu()
        done = subprocess.run(
            [binary, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
            capture_output=True, text=True, timeout=300, check=True,
        )  # fmt: skip
        return time.perf_counter() - start, _children_cpu() - before, done.stdout


def _children_cpu() -> float:
    """Return the user + system CPU seconds of this process's reaped descendants."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def chromium_figures(page: Path, repeat: int) -> None:
    """Print the start-up, open and in-page times of ``page`` in headless Chromium."""
    binary = os.environ.get("CODESEARCH_CHROMIUM") or shutil.which("chromium")
    if binary is None:
        print("chromium: not found, open time not measured (apt-get install chromium)")
        return
    blank = page.with_name("blank.html")
    blank.write_text("<!DOCTYPE html><title>blank</title>", encoding="utf-8")
    empty = [open_in_chromium(binary, blank.as_uri()) for _ in range(repeat)]
    runs = [open_in_chromium(binary, page.as_uri()) for _ in range(repeat)]
    wall, cpu = min(t for t, _, _ in runs), min(c for _, c, _ in runs)
    ready = min(float(m.group(1)) for *_, dom in runs if (m := re.search(r'data-ready-ms="([\d.]+)"', dom)))
    rows = re.search(r'data-rows="(\d+)" data-matches="(\d+)"', runs[0][2])
    print(f"chromium open (dump-dom, best of {repeat}): {wall:.2f} s wall, {cpu:.2f} s CPU; an empty page: "
          f"{min(t for t, _, _ in empty):.2f} s wall, {min(c for _, c, _ in empty):.2f} s CPU (target < 3 s)")  # fmt: skip
    print(f"page script: case table drawn {ready / 1000:.2f} s after navigation start; "
          f"rows shown / matching: {rows.group(1) if rows else '?'} / {rows.group(2) if rows else '?'}")


def repeated(report: RunReport, records: int) -> RunReport:
    """Return ``report`` with its cases repeated under new ids until it holds ``records`` records."""
    cases: list[CaseResult] = []
    copy = 0
    while len(cases) < records:
        cases += [c.model_copy(update={"id": f"{c.id}-{copy}"}) for c in report.cases]
        copy += 1
    return report.model_copy(update={"cases": cases[:records]})


def main() -> None:
    """Parse the options, run the measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    start = time.perf_counter()
    report = make_report(args.cases)
    print(f"built a report of {len(report.cases):,} records ({args.cases:,} cases x 3 agents) "
          f"in {time.perf_counter() - start:.1f} s (not timed below); load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    seconds, cpu, page = best_time(report, args.repeat)
    size = len(page.encode("utf-8"))
    print(f"report.html at {args.cases:,} cases: {size / 1e6:.2f} MB (target < 10 MB), "
          f"rendered in {seconds:.2f} s wall, {cpu:.2f} s CPU (best of {args.repeat})")  # fmt: skip
    with tempfile.TemporaryDirectory() as directory:
        target = Path(directory) / "report.html"
        target.write_text(page, encoding="utf-8")
        chromium_figures(target, args.repeat)
    big = repeated(report, args.records)
    seconds, cpu, page = best_time(big, args.repeat)
    print(f"HTML writer's share at {len(big.cases):,} records: {seconds:.2f} s wall, {cpu:.2f} s CPU "
          f"of the 5 s for all writers ({len(page.encode('utf-8')) / 1e6:.1f} MB); "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    all_writers(big, args.repeat)


def all_writers(report: RunReport, repeat: int) -> None:
    """Print each format's best time (of ``repeat``) to produce its bytes, their total (target 5 s), and a real write."""
    from pytest_codesearch.report.render.formats import REPORT_FORMATS, write_reports

    total_wall = total_cpu = 0.0
    for entry in REPORT_FORMATS.values():
        wall = cpu = float("inf")
        for _ in range(repeat):
            cpu_start, start = time.process_time(), time.perf_counter()
            content = entry.content(report)
            wall, cpu = min(wall, time.perf_counter() - start), min(cpu, time.process_time() - cpu_start)
        total_wall, total_cpu = total_wall + wall, total_cpu + cpu
        print(f"  {entry.filename:<13} {wall:6.2f} s wall {cpu:6.2f} s CPU  {len(content) / 1e6:7.1f} MB")
    print(f"all writers at {len(report.cases):,} records (best of {repeat} each): {total_wall:.2f} s wall, "
          f"{total_cpu:.2f} s CPU (target 5 s); "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    with tempfile.TemporaryDirectory() as directory:
        before, start = os.times(), time.perf_counter()
        write_reports(report, Path(directory), REPORT_FORMATS)
        after = os.times()
    print(f"write_reports (all files, atomic, fsync): {time.perf_counter() - start:.2f} s wall, "
          f"{after.user - before.user:.2f} s user + {after.system - before.system:.2f} s sys CPU")


if __name__ == "__main__":
    main()
