"""A whole run fed hostile text ends with a complete report and no traceback of ours (issue 18 item 5).

Gold-set fields (queries, categories, tags, case ids), repository file names and agent answers and
errors hold control characters, escape sequences and Markdown/HTML markup, drawn from a seeded
generator. Every run must end normally (exit 0 or 1), write every report file, record every case,
and print no escape byte and no traceback from ``pytest_codesearch``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from gitrepo import write_files

HOSTILE = [
    "\x1b[2J\x1b[H", "\x07", "\x00", "\x7f", "\x9b31m", "<script>alert(1)</script>", "<img src=x onerror=y>",
    "[link](https://evil.example)", "![img](https://evil.example/p.png)", "[ref]: https://evil.example",
    "www.evil.example", "| a | b |", "**bold**", "`code`", "=cmd()", "+1", "-x", "@SUM(A1)", "\t", "\r\n",
    "&amp;", "\\](x)", "\u202e", "é", "'", '"',
]
AGENT = """
import random
import pytest_codesearch as pcs

HOSTILE = {hostile!r}
FILES = {files!r}

def _answer(query):
    rng = random.Random(query)
    if rng.random() < 0.2:
        raise RuntimeError("agent failed: " + "".join(rng.choice(HOSTILE) for _ in range(3)))
    files = [rng.choice(FILES + HOSTILE) for _ in range(rng.randint(0, 6))]
    symbols = [rng.choice(HOSTILE) for _ in range(rng.randint(0, 2))]
    functions = [rng.choice(FILES) + ":" + rng.choice(HOSTILE) for _ in range(rng.randint(0, 2))]
    return pcs.RetrievalResult(files=files, symbols=symbols, functions=functions,
                               metadata={{"note": rng.choice(HOSTILE)}})

@pcs.agent(name="hostile")
def hostile():
    return _answer
"""


def _text(rng: random.Random, size: int = 3) -> str:
    return "".join(rng.choice([*HOSTILE, "word", "login", " "]) for _ in range(size))


def _project(root: Path, rng: random.Random) -> list[str]:
    names = ["src/app.py", "src/<b>bold</b>.py", "src/[x](y).py", "src/esc\x1bape.py", "src/=sum.py", "src/a&b.py"]
    write_files(root / "repo", {name: f"def f():\n    return {rng.random()!r}  # {_text(rng)!r}\n" for name in names})
    lines = [json.dumps({"metadata": {"name": "fuzz", "repo": "repo"}})]
    for index in range(24):
        case = {
            "id": f"c{index}" if index % 8 else f"c{index}{rng.choice(HOSTILE)}",  # some ids are invalid
            "query": _text(rng, 4),
            "ground_truth_files": [rng.choice(names)],
            "category": _text(rng, 2),
            "tags": [_text(rng, 1)],
            "complexity": rng.choice(["low", "medium", "high"]),
        }
        lines.append(json.dumps(case))
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return names


@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_run_fed_hostile_text_ends_with_a_complete_report(pytester: pytest.Pytester, dist: list[str]) -> None:
    rng = random.Random(18)
    names = _project(pytester.path, rng)
    pytester.makeconftest(AGENT.format(hostile=HOSTILE, files=names))
    result = pytester.runpytest("--codesearch-agent=hostile,oracle,random", "--codesearch-runs=1", *dist)
    assert result.ret == 1  # agent errors and invalid ids fail their items, never the run
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output and not {"\x1b", "\x07", "\u202e"} & set(output)
    assert "pytest_codesearch/" not in output.replace("/pytest_codesearch/plugin.py:", "")  # no traceback of ours
    report = pytester.path / "codesearch-report"
    assert sorted(p.name for p in report.iterdir() if p.suffix in {".json", ".md", ".csv", ".html"}) == [
        "report.html", "results.csv", "results.json", "summary.md",
    ]
    results = json.loads((report / "results.json").read_text())
    assert len(results["cases"]) == 21 * 3 and len(results["invalid"]) == 3 and not results["incomplete"]
    summary = (report / "summary.md").read_text()
    assert "<script>" not in summary and "<img" not in summary and "\x1b" not in summary
    assert "[link](https" not in summary and "![img](https" not in summary
