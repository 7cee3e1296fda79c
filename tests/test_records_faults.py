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
    assert errors["git.jsonl"] == ("error", f"base_commit: {pytester.path / 'broken'}: cannot list {head!r}: {src}: failed to "
                                            "inflate loose object; the clone may be incomplete")
    assert errors["meta.jsonl"] == ("error", "agent 'deepmeta' returned metadata nested more than 64 levels deep: "
                                             "use str, int, float, bool, None, list or dict")
    assert errors["proc.jsonl"][0] == "error" and errors["proc.jsonl"][1]


KILLER = """
import os
import signal
from pathlib import Path
import pytest_codesearch as pcs

os.environ.setdefault("PYTEST_PID", str(os.getpid()))  # pytest's own: agents in a child inherit it

def search(query):
    with open("answered.log", "a") as log:
        log.write(query + "\\n")
    if Path("kill").exists():
        os.kill(int(os.environ["PYTEST_PID"]), signal.SIGKILL)
    return ["src/app.py"]

@pcs.agent(name="steady")
def steady():
    return search
"""


def test_a_killed_run_marks_the_previous_report_superseded_before_its_first_case(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    write_project(pytester.path)
    make_conftest(KILLER)
    pytester.runpytest_subprocess("--codesearch-agent=steady", "-p", "no:cacheprovider").assert_outcomes(passed=3)
    assert read_results(pytester.path)["incomplete"] is False
    (pytester.path / "kill").touch()
    killed = pytester.runpytest_subprocess("--codesearch-agent=steady", "-p", "no:cacheprovider")
    assert killed.ret == -9
    journal = (pytester.path / "codesearch-report" / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    started = json.loads(journal[0])["header"]["run"]["started_at"]
    stale = read_results(pytester.path)
    assert (stale["incomplete"], stale["superseded_by"]) == (True, started)
    assert len(stale["cases"]) == 3  # the old report is kept, marked
    (pytester.path / "kill").unlink()
    resumed = pytester.runpytest_subprocess("--codesearch-agent=steady", "--codesearch-resume", "-p", "no:cacheprovider")
    resumed.assert_outcomes(passed=3)
    final = read_results(pytester.path)
    assert (final["incomplete"], final["superseded_by"]) == (False, None)


def test_a_second_run_on_a_locked_report_directory_is_refused_naming_the_holder(pytester: pytest.Pytester) -> None:
    import os

    from pytest_codesearch.runs.reportdir import ReportLock

    write_project(pytester.path)
    report_dir = pytester.path / "codesearch-report"
    held = ReportLock.acquire(report_dir, "2026-11-26T14:00:00+00:00")
    try:
        refused = pytester.runpytest("--codesearch-agent=oracle")
    finally:
        held.release()
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines([
        f"ERROR: codesearch: the report directory {report_dir} is in use by the run of pid {os.getpid()}, started "
        "2026-11-26T14:00:00+00:00; wait for it to end or give another --codesearch-report-dir"
    ])
    assert not (report_dir / "journal.jsonl").exists()
    pytester.runpytest("--codesearch-agent=oracle").assert_outcomes(passed=3)  # released: the next run goes


def test_resume_skips_a_garbled_journal_line_with_a_warning_and_reuses_the_rest(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    write_project(pytester.path)
    make_conftest(KILLER)
    common = ["--codesearch-agent=steady", "--codesearch-seed=3", "--codesearch-runs=1", "-p", "no:cacheprovider"]
    pytester.runpytest(*common).assert_outcomes(passed=3)
    path = pytester.path / "codesearch-report" / "journal.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    cases = [i for i, line in enumerate(lines) if line.startswith('{"case"')]
    lines[cases[0]] = lines[cases[0]][:40] + lines[cases[1]]  # two writers interleaved: one record lost
    path.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # and no end line: killed
    (pytester.path / "answered.log").unlink()
    resumed = pytester.runpytest(*common, "--codesearch-resume")
    resumed.assert_outcomes(passed=1)
    resumed.stdout.fnmatch_lines([
        f"codesearch: resuming the run of *: 2 completed case(s) reused; skipped 1 garbled journal line(s), the "
        f"first {path}:{cases[0] + 1}: not a journal record: *"
    ])
    assert len((pytester.path / "answered.log").read_text().splitlines()) == 1
    assert len(read_results(pytester.path)["cases"]) == 3


class _FullDisk:
    """An unbuffered journal file on a disk that fills after ``room`` writes (then every write is ENOSPC)."""

    def __init__(self, path: Path, room: int) -> None:
        self.stream = open(path, "wb", buffering=0)
        self.room = room

    def write(self, data: bytes) -> int:
        import errno
        import os

        if self.room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= 1
        written: int = self.stream.write(data)
        return written

    def close(self) -> None:
        self.stream.close()


@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_a_full_disk_at_the_journal_stops_the_run_cleanly_and_resume_finishes_it(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None], monkeypatch: pytest.MonkeyPatch, dist: str
) -> None:
    from pytest_codesearch.runs.journal import JournalWriter

    cases = [{"id": f"c{i}", "query": f"q{i}", "ground_truth_files": ["src/app.py"]} for i in range(12)]
    write_project(pytester.path, cases)
    make_conftest(KILLER)
    common = ["--codesearch-agent=steady", "--codesearch-runs=1", "--codesearch-seed=3", "-p", "no:cacheprovider", dist]
    # header, collected node ids, gold-set digests, then 4 case records fit; the 5th finds the disk full
    unbuffered = JournalWriter.open_file
    monkeypatch.setattr(JournalWriter, "open_file", staticmethod(lambda path: _FullDisk(path, 3 + 4)))
    full = pytester.runpytest(*common)
    journal = pytester.path / "codesearch-report" / "journal.jsonl"
    line = (f"codesearch: cannot write the journal {journal}: No space left on device; the run stopped, and the "
            "journal keeps 4 case record(s): make room, then finish it with --codesearch-resume")
    # serial: the run stops at the 5th record. -n 2: the workers journal their records themselves (on another
    # disk here), the controller's journal takes them at the end and finds the disk full there (exit 1)
    assert full.ret == (pytest.ExitCode.INTERRUPTED if dist == "-n0" else pytest.ExitCode.TESTS_FAILED)
    full.stdout.fnmatch_lines([line])
    output = full.stdout.str() + full.stderr.str()
    assert "INTERNALERROR" not in output and "Traceback" not in output
    assert len(journal.read_text(encoding="utf-8").splitlines()) == 7
    monkeypatch.setattr(JournalWriter, "open_file", staticmethod(unbuffered))  # the disk has room again
    answered = (pytester.path / "answered.log").read_text().splitlines()
    (pytester.path / "answered.log").unlink()
    resumed = pytester.runpytest(*common, "--codesearch-resume")
    # serial: the 4 records the journal kept; the 5th answer, whose write failed, is asked again.
    # -n 2: the workers' own journals (on another disk here) also kept every other case they answered
    reused = len(answered) if dist == "-n2" else 4
    resumed.stdout.fnmatch_lines([f"codesearch: resuming the run of *: {reused} completed case(s) reused"])
    resumed.assert_outcomes(passed=12 - reused)
    final = read_results(pytester.path)
    assert (len(final["cases"]), final["incomplete"]) == (12, False)
    asked = pytester.path / "answered.log"
    assert (len(asked.read_text().splitlines()) if asked.exists() else 0) == 12 - reused
    assert dist == "-n0" or reused == 12  # under -n every case was answered before the journal filled


HUGE_AGENT = """
import pytest_codesearch as pcs

def _answer(query):
    if query.startswith("check"):
        raise ValueError("e" * 200_000)
    return pcs.RetrievalResult(files=["src/app.py", "s" * 10_000], symbols=["y" * 10_000],
                               metadata={"note": "m" * 60_000})

@pcs.agent(name="huge")
def huge():
    return _answer
"""


def test_huge_strings_are_cut_in_records_and_output_with_a_note(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    from pytest_codesearch.recordtext import MAX_QUERY_CHARS, MAX_TEXT_CHARS

    query = "login " + "q" * 99_994
    failing = "check " + "p" * 99_994  # a failed case's record is cut once, like an answered one's
    write_project(pytester.path, [dict(CASES[0], query=query), dict(CASES[1], query=failing, tags=["t" * 5_000])])
    make_conftest(HUGE_AGENT)
    result = pytester.runpytest("--codesearch-agent=huge", "--codesearch-runs=1")
    result.assert_outcomes(passed=1, failed=1)
    assert max(len(line) for line in result.stdout.lines) < 70_000
    cases = {c["id"]: c for c in read_results(pytester.path)["cases"]}
    assert cases["login"]["query"] == query[:MAX_QUERY_CHARS] + "... [83,616 more characters cut]"
    assert cases["login"]["symbols"] == ["y" * MAX_TEXT_CHARS + "... [5,904 more characters cut]"]
    assert cases["login"]["dropped"] == ["s" * MAX_TEXT_CHARS + "... [5,904 more characters cut]"]
    assert cases["login"]["metadata"] == {"note": "m" * MAX_TEXT_CHARS + "... [55,904 more characters cut]"}
    error = "ValueError: " + "e" * 200_000
    assert cases["password"]["error"] == error[:MAX_TEXT_CHARS] + "... [195,916 more characters cut]"
    assert cases["password"]["query"] == failing[:MAX_QUERY_CHARS] + "... [83,616 more characters cut]"
    assert cases["password"]["tags"] == ["t" * MAX_TEXT_CHARS + "... [904 more characters cut]"]
    journal = pytester.path / "codesearch-report" / "journal.jsonl"
    assert journal.stat().st_size < 100_000


def test_the_history_keeps_the_newest_runs_and_prunes_the_oldest(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    pytester.makeini("[pytest]\ncodesearch_history_keep = 2\n")
    history = pytester.path / ".codesearch" / "history"
    saved = []
    for _ in range(3):
        result = pytester.runpytest("--codesearch-agent=oracle")
        result.assert_outcomes(passed=3)
        saved += [line.split()[4] for line in result.stdout.lines if line.startswith("codesearch: run saved as")]
    assert sorted(p.name for p in history.iterdir()) == sorted(saved[1:])
    result.stdout.fnmatch_lines([
        f"codesearch: removed the 1 oldest saved run(s) beyond 2 (--codesearch-history-keep), the oldest {saved[0]}"
    ])
    once = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-history-keep=1")
    once.assert_outcomes(passed=3)
    assert len(list(history.iterdir())) == 1


INTERRUPTER = """
import os
import signal
import time
from pathlib import Path
import pytest_codesearch as pcs

def search(query):
    if query == "q7" and Path("interrupt").exists():
        Path("interrupt").unlink()
        os.kill(os.getppid(), signal.SIGINT)  # Ctrl-C reaches the controller; this worker finishes its case
        time.sleep(1)
    with open("answered.log", "a") as log:
        log.write(query + "\\n")
    return ["src/app.py"]

@pcs.agent(name="steady")
def steady():
    return search
"""


def test_under_xdist_an_interrupt_loses_no_answered_case(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    cases = [{"id": f"c{i}", "query": f"q{i}", "ground_truth_files": ["src/app.py"]} for i in range(12)]
    write_project(pytester.path, cases)
    make_conftest(INTERRUPTER)
    (pytester.path / "interrupt").touch()
    common = ["--codesearch-agent=steady", "--codesearch-runs=1", "--codesearch-seed=3", "-p", "no:cacheprovider",
              "-n", "2"]
    first = pytester.runpytest_subprocess(*common)
    assert first.ret == pytest.ExitCode.INTERRUPTED
    answered = (pytester.path / "answered.log").read_text().split()
    journal = (pytester.path / "codesearch-report" / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    recorded = [json.loads(line)["case"]["query"] for line in journal if line.startswith('{"case"')]
    assert "q7" in answered and sorted(recorded) == sorted(answered)  # every answer the workers had is kept
    resumed = pytester.runpytest_subprocess(*common[:-2], "--codesearch-resume")  # serial: what is left, if any
    assert resumed.ret == pytest.ExitCode.OK
    assert sorted((pytester.path / "answered.log").read_text().split()) == sorted(f"q{i}" for i in range(12))
    assert not (pytester.path / "codesearch-report" / ".workers").exists()
    assert len(read_results(pytester.path)["cases"]) == 12


CARRIER = """
import os
import pytest_codesearch as pcs

@pcs.agent(name="steady")
def steady():
    def search(query):
        if query == "q5":
            os._exit(3)  # the worker running this case dies with it
        return ["src/app.py"]
    return search

def pytest_runtest_logreport(report):
    if hasattr(report, "node"):  # the controller, reading a worker's report
        with open("carried.log", "a") as log:
            names = sorted(n for n in vars(report) if n.startswith("codesearch_"))
            log.write(f"{report.when} {','.join(names) or '-'}\\n")
"""


def test_under_xdist_records_travel_in_worker_journals_and_every_case_is_reported(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    cases = [{"id": f"c{i}", "query": f"q{i}", "ground_truth_files": ["src/app.py"]} for i in range(12)]
    write_project(pytester.path, cases)
    make_conftest(CARRIER)
    result = pytester.runpytest("--codesearch-agent=steady", "--codesearch-isolate=none", "--codesearch-runs=1",
                                "--junitxml=junit.xml", "-n", "2")
    result.assert_outcomes(passed=11, failed=1)
    carried = (pytester.path / "carried.log").read_text().splitlines()
    assert carried.count("call -") + carried.count("call codesearch_index_ms") == 11  # no record on any report
    assert carried.count("??? -") == 1  # the crashed case's report from xdist
    assert all(not line.startswith("call") or line in ("call -", "call codesearch_index_ms") for line in carried)
    data = read_results(pytester.path)
    statuses = {c["id"]: c["status"] for c in data["cases"]}
    assert statuses == {f"c{i}": "crashed" if i == 5 else "ok" for i in range(12)}
    assert (data["not_run"], data["incomplete"]) == ([], False)
    assert {c["worker"] for c in data["cases"] if c["status"] == "ok"} <= {"gw0", "gw1", "gw2"}
    journal = (pytester.path / "codesearch-report" / "journal.jsonl").read_text(encoding="utf-8")
    assert sum(1 for line in journal.splitlines() if line.startswith('{"case"')) == 12
    assert not (pytester.path / "codesearch-report" / ".workers").exists()
    junit = (pytester.path / "junit.xml").read_text()
    assert junit.count('<property name="recall" value="1.0"') == 11  # JUnit XML still has every figure
