"""Records under faults: no string, tree or record ends the run; every case item leaves its record."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from example_project import CASES, read_results, write_project

ODD_AGENT = """
import pytest_codesearch as pcs

def _answer(query):
    if query == "check password hashing":
        raise ValueError("no index for \\udcff")
    return pcs.RetrievalResult(
        files=["src/app.py", "src/\\udcff.py"],
        spans=[pcs.Span("src/\\udcff.py", 1, 2)],
        symbols=["app.\\udcff"],
        metadata={"note \\udcff": ["\\ud800"]},
    )

@pcs.agent(name="odd")
def odd():
    return _answer
"""


@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_surrogates_in_queries_file_names_and_answers_are_recorded_escaped(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None], dist: str
) -> None:
    cases = [dict(CASES[0], query="login \ud800 view"), *CASES[1:]]
    write_project(pytester.path, cases)
    latin1 = bytes(pytester.path / "repo" / "src") + b"/caf\xe9"
    Path(latin1.decode("utf-8", "surrogateescape")).mkdir()
    Path((latin1 + b"/x\xff.py").decode("utf-8", "surrogateescape")).write_text("def login(): pass\n")
    make_conftest(ODD_AGENT)
    result = pytester.runpytest("--codesearch-agent=random,keyword,odd", "--codesearch-runs=1", dist)
    result.assert_outcomes(passed=8, failed=1)
    assert "INTERNALERROR" not in result.stdout.str()
    cases_by = {(c["agent"], c["id"]): c for c in read_results(pytester.path)["cases"]}
    assert len(cases_by) == 9
    assert {c["query"] for (_, i), c in cases_by.items() if i == "login"} == {"login \\ud800 view"}
    assert cases_by["odd", "password"]["status"] == "error"
    assert cases_by["odd", "password"]["error"] == "ValueError: no index for \\xff"
    odd = cases_by["odd", "login"]
    assert (odd["status"], odd["dropped"], odd["symbols"]) == ("ok", ["src/\\xff.py"], ["app.\\xff"])
    assert odd["spans"] == [["src/\\xff.py", 1, 2]]
    assert odd["metadata"] == {"note \\xff": ["\\ud800"]}
    listed = {p for c in cases_by.values() if c["agent"] == "random" for p in c["retrieved"]}
    assert "src/caf\\xe9/x\\xff.py" in listed
    journal = (pytester.path / "codesearch-report" / "journal.jsonl").read_text(encoding="utf-8")
    assert sum(1 for line in journal.splitlines() if line.startswith('{"case"')) == 9


DEEP = '{"a": ' * 3000 + "1" + "}" * 3000


@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_json_nested_3000_levels_deep_is_one_broken_entry_and_the_rest_runs(
    pytester: pytest.Pytester, dist: str
) -> None:
    goldset = write_project(pytester.path)
    (pytester.path / "deep.jsonl").write_text(goldset.read_text().replace('"example"', '"deep"') + DEEP + "\n")
    document = {"metadata": {"name": "doc", "repo": "repo"}, "test_cases": [CASES[0]]}
    text = json.dumps(document)[:-2] + ", " + DEEP.replace('"a"', '"b"') + "]}"
    (pytester.path / "doc.json").write_text(text)
    column = text.index('{"b"') + 62 * len('{"b": ') + 1  # its 65th bracket: the document's object and list, 63 more
    result = pytester.runpytest("--codesearch-agent=oracle", dist)
    result.assert_outcomes(passed=6, failed=2)
    result.stdout.fnmatch_lines_random([
        "deep.jsonl:5: invalid JSON: nested more than 64 levels deep (column 385)",
        f"doc.json: line 1: invalid JSON: nested more than 64 levels deep (column {column})",
    ])
    assert "RecursionError" not in result.stdout.str()
    assert len(read_results(pytester.path)["cases"]) == 6


def test_a_file_the_sniffer_cannot_read_is_skipped_with_a_warning(tmp_path: Path) -> None:
    from pytest_codesearch.goldset.formats import Format, SkippedFileWarning, load

    def sniff(path: Path) -> bool:
        raise MemoryError("too big")

    odd = Format(name="odd", suffixes=(".json",), sniff=sniff, read=lambda path, options: load(path))
    path = tmp_path / "big.json"
    path.write_text("{}")
    with pytest.warns(SkippedFileWarning, match=r"big.json: skipped, cannot read it \(MemoryError: too big\)$"):
        assert odd.claims(path) is False


DEEP_METADATA_AGENT = """
import pytest_codesearch as pcs

def _answer(query):
    deep = node = {}
    for _ in range(3000):
        node["a"] = node = {}
    return pcs.RetrievalResult(files=["src/app.py"], metadata=deep)

@pcs.agent(name="deepmeta")
def deepmeta():
    return _answer
"""


@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_failures_outside_the_agent_call_are_error_records_with_their_text(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None], dist: str
) -> None:
    import pygit2

    from example_project import SOURCE_FILES
    from gitrepo import commit, init_repo

    write_project(pytester.path, CASES[:1], name="proc.jsonl", metadata={"name": "proc", "repo": "/proc/self"})
    repo = init_repo(pytester.path / "broken")
    head = commit(repo, SOURCE_FILES, "Add the app")
    src = repo[head].peel(pygit2.Commit).tree["src"].id
    loose = pytester.path / "broken" / ".git" / "objects" / str(src)[:2] / str(src)[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"garbage")  # the tree cannot be read
    write_project(pytester.path, CASES[:1], name="git.jsonl", metadata={"name": "git", "repo": "broken",
                                                                         "base_commit": head})
    write_project(pytester.path, CASES[:1], name="meta.jsonl")
    make_conftest(DEEP_METADATA_AGENT)
    result = pytester.runpytest("--codesearch-agent=deepmeta", dist)
    result.assert_outcomes(failed=3)
    assert "Traceback" not in result.stdout.str()
    errors = {c["goldset"]: (c["status"], c["error"]) for c in read_results(pytester.path)["cases"]}
    assert read_results(pytester.path)["not_run"] == []
    assert errors["git.jsonl"] == ("error", f"{pytester.path / 'broken'}: cannot list {head!r}: {src}: failed to "
                                            "inflate loose object; the clone may be incomplete")
    assert errors["meta.jsonl"] == ("error", "agent 'deepmeta' returned metadata nested more than 64 levels deep: "
                                             "use str, int, float, bool, None, list or dict")
    assert errors["proc.jsonl"][0] == "error" and errors["proc.jsonl"][1]
