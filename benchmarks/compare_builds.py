"""Check that two builds of the plugin write the same results: ``results.json``, ``results.csv`` and the JUnit XML
properties, serial and under ``-n 2``, on the harness benchmark's cases and on the repository's ``goldsets/``.

Each build is a source tree (a checkout of another commit, e.g. ``git archive <rev> | tar -x -C DIR``) put first
on ``PYTHONPATH``, run with this interpreter. What a run measures or stamps differs between any two runs and is
masked: timestamps, wall-clock figures (``*_ms``, latency summaries and what derives from them: costs and the
"fastest"/"balanced" picks), worker ids, run tokens and versions.

Usage: ``python benchmarks/compare_builds.py BASE_TREE [NEW_TREE] [--cases 300]`` (NEW_TREE: this checkout).
Prints one line per scenario and file, and exits 1 when any differs.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_harness import build_project  # noqa: E402

HERE = Path(__file__).resolve().parent.parent
MASKED_KEYS = frozenset({
    "started_at", "finished_at", "versions", "timer_resolution_ns", "timing_overhead_ns", "worker", "workers",
    "run_token", "costs", "recommendations", "source", "indexed",
})  # fmt: skip
"""Keys whose values change from run to run (any key holding ``latency`` or ``_ms`` too); under xdist, which case
of a snapshot pays for indexing (``indexed``) depends on the schedule."""
MASKED_COLUMNS = ("latency_ms", "elapsed_ms", "index_ms", "indexed")


def _masked(value: Any) -> Any:
    """Return ``value`` with every run-dependent key (``MASKED_KEYS``, ``*_ms*``, ``*latency*``) dropped, recursively."""
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items() if k not in MASKED_KEYS and "_ms" not in k and "latency" not in k}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def _csv_rows(text: str) -> list[list[str]]:
    """Return the CSV's rows without its timing columns."""
    rows = list(csv.reader(io.StringIO(text)))
    keep = [i for i, name in enumerate(rows[0]) if name not in MASKED_COLUMNS]
    return [[row[i] for i in keep] for row in rows]


def _junit_properties(path: Path) -> dict[str, list[tuple[str, str | None]]]:
    """Return each test case's properties (timings left out), by class name and name."""
    found = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        props = [(p.get("name", ""), p.get("value")) for p in case.iter("property") if "_ms" not in p.get("name", "")]
        found[f"{case.get('classname')}::{case.get('name')}"] = props
    return found


def _first_difference(a: Any, b: Any, where: str = "") -> str:
    """Return where ``a`` and ``b`` first differ, as a path of keys and indexes, with both values."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{where}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{where}[{i}]")
    return f"{where}: {str(a)[:150]} != {str(b)[:150]}"


def outputs(tree: Path, project: Path, out: Path, args: list[str]) -> dict[str, Any]:
    """Run pytest with the build at ``tree`` in ``project``; return its masked outputs."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(project)])}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [
        sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--codesearch-no-save",
        f"--codesearch-report-dir={out}", f"--codesearch-cache-dir={out.parent / 'cache'}", "--codesearch-seed=7",
        f"--junitxml={out / 'junit.xml'}", *args,
    ]  # fmt: skip
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    if not (out / "results.json").exists():
        raise SystemExit(f"{' '.join(command)} wrote no report:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return {
        "results.json": _masked(json.loads((out / "results.json").read_text())),
        "results.csv": _csv_rows((out / "results.csv").read_text()),
        "junit properties": _junit_properties(out / "junit.xml"),
        "exit status": done.returncode,
    }


def main() -> None:
    """Run every scenario with both builds and print whether their outputs are the same."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path, nargs="?", default=HERE)
    parser.add_argument("--cases", type=int, default=300)
    options = parser.parse_args()
    goldsets = [str(HERE / "goldsets" / name) for name in ("self.jsonl", "history.jsonl")]
    agents = ["--codesearch-agent=bm25", "--codesearch-agent=keyword", "--codesearch-agent=path",
              "--codesearch-agent=oracle", "--codesearch-agent=random"]  # fmt: skip
    different = False
    with tempfile.TemporaryDirectory() as tmp:
        bench = Path(tmp) / "bench"
        build_project(bench, options.cases)
        scenarios = {
            "bench": (bench, ["--codesearch-agent=instant", "--codesearch-runs=1", "cases.jsonl"]),
            "goldsets": (HERE, [*agents, *goldsets]),
        }
        for name, (project, args) in scenarios.items():
            for dist in (["-n", "0"], ["-n", "2"]):
                found = [
                    outputs(tree.resolve(), project, Path(tmp) / f"{name}{dist[1]}-{side}" / "report", [*dist, *args])
                    for side, tree in (("base", options.base), ("new", options.new))
                ]
                for key in found[0]:
                    same = found[0][key] == found[1][key]
                    different |= not same
                    shown = "same" if same else f"DIFFERENT at {_first_difference(found[0][key], found[1][key])}"
                    print(f"{name:9} -n {dist[1]}  {key:17} {shown}")
    raise SystemExit(1 if different else 0)


if __name__ == "__main__":
    main()
