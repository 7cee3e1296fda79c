"""The plugin as users run it: options, collection, items, results in reports and files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_codesearch.runs.finish import report_from_journal

from example_project import CASES, read_results, write_project

CALLABLE_CONFTEST = """
import pytest_codesearch as pcs

@pcs.agent(name="lister")
def lister():
    def search(query):
        return ["./src/auth/login.py", "src/app.py", "src\\\\app.py", "not/there.py"]
    return search
"""


def test_no_agent_means_no_benchmark(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert not (pytester.path / "codesearch-report").exists()


def test_disabled_plugin_collects_nothing(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("-p", "no:codesearch")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_oracle_scores_one_everywhere(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-seed=7")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*codesearch: agents oracle; seed 7*", "*oracle*"])
    data = read_results(pytester.path)
    assert data["run"]["seed"] == 7
    for case in data["cases"]:
        relevant = len(case["relevance"])
        for name, value in case["metrics"].items():
            # trec_eval's P_k divides by k and recall_k by R: a perfect answer reaches 1.0 only where k allows
            expected = 1.0
            if name.startswith("precision@"):
                expected = min(1.0, relevant / int(name.split("@")[1]))
            elif name.startswith("recall@"):
                expected = min(1.0, int(name.split("@")[1]) / relevant)
            elif name.startswith("all_hit@"):
                expected = float(relevant <= int(name.split("@")[1]))
            elif name.startswith("f1@"):
                p, r = min(1.0, relevant / int(name.split("@")[1])), min(1.0, int(name.split("@")[1]) / relevant)
                expected = 2 * p * r / (p + r)
            assert value == pytest.approx(expected), (case["id"], name)
    assert data["agents"]["oracle"]["counts"] == {
        "cases": 3, "ok": 3, "error": 0, "timeout": 0, "crashed": 0, "not_run": 0, "nondeterministic": 0
    }
    assert {p.name for p in (pytester.path / "codesearch-report").iterdir()} == {
        "results.json", "results.csv", "summary.md", "report.html", "journal.jsonl", ".codesearch.lock"
    }
    # the journal alone rebuilds the very report the run wrote, without a pytest session
    rebuilt = report_from_journal(pytester.path / "codesearch-report" / "journal.jsonl")
    assert rebuilt.model_dump(mode="json") == data


def test_node_ids_and_keywords(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("--codesearch-agent=oracle,random", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["cases.jsonl::login[[]oracle[]]", "cases.jsonl::login[[]random[]]"])
    selected = pytester.runpytest("--codesearch-agent=oracle,random", "-k", "random and medium")
    selected.assert_outcomes(passed=1)
    assert [c["id"] for c in read_results(pytester.path)["cases"]] == ["password"]


def test_unknown_agent_is_a_usage_error(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("--codesearch-agent=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown agent 'nope'; available agents: bm25, embedding, hybrid, keyword, oracle, path, random*"])


def test_bad_runs_value_is_a_usage_error(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--codesearch-runs: must be at least 1, got 0*"])


def test_callable_agent_answer_is_normalised(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(CALLABLE_CONFTEST)
    result = pytester.runpytest("--codesearch-agent=lister", "--codesearch-runs=2", "-k", "login")
    result.assert_outcomes(passed=1)
    (case,) = read_results(pytester.path)["cases"]
    assert case["retrieved"] == ["src/auth/login.py", "src/app.py"]
    assert case["dropped"] == ["not/there.py"]
    assert len(case["latencies_ms"]) == 2
    assert case["metrics"]["mrr"] == 1.0
    assert case["metrics"]["precision"] == 0.5


def test_parametrized_agent_is_one_agent_per_param(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import pytest_codesearch as pcs

        class Fixed:
            def __init__(self, files): self.files = files
            def initialize(self, repo_path): pass
            def retrieve(self, query): return pcs.RetrievalResult(files=list(self.files))
            def reset(self): pass

        @pcs.agent(name="fixed", params=[["src/app.py"], ["src/auth/login.py"]], ids=["first", "second"])
        def fixed(request):
            return Fixed(request.param)
        """
    )
    result = pytester.runpytest("--codesearch-agent=fixed", "-k", "login")
    result.assert_outcomes(passed=2)
    data = read_results(pytester.path)
    assert list(data["agents"]) == ["fixed[first]", "fixed[second]"]
    assert data["run"]["agents"]["fixed[second]"]["param"] == "['src/auth/login.py']"
    assert data["agents"]["fixed[second]"]["metrics"]["f1"]["mean"] == 1.0
    assert data["agents"]["fixed[first]"]["metrics"]["f1"]["mean"] == 0.0
    one = pytester.runpytest("--codesearch-agent=fixed[first]", "-k", "login")
    one.assert_outcomes(passed=1)


def test_async_agent_and_yield_teardown(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import asyncio
        import pathlib
        import pytest_codesearch as pcs

        class AsyncAgent:
            def initialize(self, repo_path): self.root = repo_path
            async def retrieve(self, query):
                await asyncio.sleep(0)
                return ["src/app.py"]
            def reset(self): pass

        @pcs.agent(name="async-agent")
        def async_agent(tmp_path_factory):
            assert tmp_path_factory.getbasetemp().is_dir()
            yield AsyncAgent()
            (pathlib.Path(__file__).parent / "torn-down").write_text("yes")
        """
    )
    result = pytester.runpytest("--codesearch-agent=async-agent")
    result.assert_outcomes(passed=3)
    cases = {c["id"]: c for c in read_results(pytester.path)["cases"]}
    assert cases["app"]["metrics"]["f1"] == 1.0
    assert (pytester.path / "torn-down").read_text() == "yes"


def test_agent_that_raises_fails_with_its_own_traceback(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import pytest_codesearch as pcs

        class Flaky:
            def initialize(self, repo_path): pass
            def retrieve(self, query):
                if "password" in query:
                    return explode(query)
                return ["src/app.py"]
            def reset(self): pass

        def explode(query):
            raise RuntimeError("index corrupted for " + query)

        @pcs.agent(name="flaky")
        def flaky():
            return Flaky()
        """
    )
    result = pytester.runpytest("--codesearch-agent=flaky")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*def explode(query):*", "E*RuntimeError: index corrupted for check password hashing"])
    assert "evaluate.py" not in result.stdout.str()
    cases = {c["id"]: c for c in read_results(pytester.path)["cases"]}
    assert cases["password"]["status"] == "error"
    assert cases["password"]["error"] == "RuntimeError: index corrupted for check password hashing"
    summary = read_results(pytester.path)["agents"]["flaky"]
    assert summary["counts"]["error"] == 1
    # the error case scores 0 and stays in the mean: app scores 1, login 0, password 0
    assert summary["metrics"]["f1"]["mean"] == pytest.approx(1 / 3)


def test_contract_violation_names_agent_and_method(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import pytest_codesearch as pcs

        class Half:
            def initialize(self, repo_path): pass
            def retrieve(self, query): return []

        @pcs.agent(name="half")
        def half():
            return Half()
        """
    )
    result = pytester.runpytest("--codesearch-agent=half,oracle")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: agent 'half' cannot be used: agent 'half' returned Half, which lacks reset*"])
    assert "TypeError" not in result.stdout.str() and "passed" not in result.stdout.str()


@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_agent_that_cannot_be_built_is_one_usage_error_before_any_case(
    pytester: pytest.Pytester, project: Path, dist: str
) -> None:
    (pytester.path / "agents_mod.py").write_text(
        "class Grep:\n"
        "    def __init__(self, top=10): self.top = top\n"
        "    def initialize(self, repo_path): pass\n"
        "    def retrieve(self, query): return []\n"
        "    def reset(self): pass\n"
    )
    (pytester.path / "bench.yaml").write_text(
        "agents:\n  - name: grep\n    class: agents_mod:Grep\n    config: {topp: 5}\n"
    )
    result = pytester.runpytest_subprocess("--codesearch-config=bench.yaml", "--codesearch-agent=grep", dist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1
    assert errors[0].startswith("ERROR: agent 'grep' cannot be built (")
    assert errors[0].endswith("TypeError: Grep.__init__() got an unexpected keyword argument 'topp'")
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()


def test_broken_goldset_line_fails_alone(pytester: pytest.Pytester) -> None:
    goldset = write_project(pytester.path)
    lines = goldset.read_text().splitlines()
    lines.insert(2, json.dumps({"id": "broken", "query": "x", "ground_truth_files": []}))
    goldset.write_text("\n".join(lines) + "\n")
    result = pytester.runpytest("--codesearch-agent=oracle")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*cases.jsonl:3: ground_truth_files*"])
    data = read_results(pytester.path)
    assert len(data["cases"]) == 3
    assert data["invalid"][0]["line"] == 3 and data["invalid"][0]["case_id"] == "broken"


def test_missing_ground_truth_file_is_named(pytester: pytest.Pytester) -> None:
    write_project(pytester.path, [{"id": "typo", "query": "q", "ground_truth_files": ["src/ap.py"]}])
    result = pytester.runpytest("--codesearch-agent=oracle")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cases.jsonl:2: ground_truth_files: 'src/ap.py' is not in directory*(did you mean 'src/app.py'?)"])


def test_last_failed_reruns_only_failures(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import pytest_codesearch as pcs

        @pcs.agent(name="picky")
        def picky():
            def search(query):
                if query.startswith("login"):
                    raise ValueError("no")
                return []
            return search
        """
    )
    pytester.runpytest("--codesearch-agent=picky").assert_outcomes(passed=2, failed=1)
    rerun = pytester.runpytest("--codesearch-agent=picky", "--lf")
    rerun.assert_outcomes(failed=1)
    # the rerun is partial: its report goes to partial/, the full report stays
    assert [c["id"] for c in read_results(pytester.path, "codesearch-report/partial")["cases"]] == ["login"]
    assert len(read_results(pytester.path)["cases"]) == 3


def test_maxfail_stops_and_report_is_still_written(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import pytest_codesearch as pcs

        @pcs.agent(name="broken")
        def broken():
            def search(query):
                raise ValueError("down")
            return search
        """
    )
    result = pytester.runpytest("--codesearch-agent=broken", "-x")
    result.assert_outcomes(failed=1)
    data = read_results(pytester.path)
    assert len(data["cases"]) == 1
    assert len(data["not_run"]) == 2


def test_nondeterministic_agent_is_flagged(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import itertools
        import pytest_codesearch as pcs

        @pcs.agent(name="wobbly")
        def wobbly():
            flip = itertools.cycle([["src/app.py"], ["README.md"]])
            return lambda query: next(flip)
        """
    )
    pytester.runpytest("--codesearch-agent=wobbly", "-k", "app").assert_outcomes(passed=1)
    data = read_results(pytester.path)
    assert data["cases"][0]["nondeterministic"] is True
    assert data["cases"][0]["retrieved"] == ["src/app.py"]  # the first run's answer is scored


def test_same_seed_same_order(pytester: pytest.Pytester) -> None:
    cases = [{"id": f"c{i}", "query": "login", "ground_truth_files": ["src/app.py"]} for i in range(12)]
    write_project(pytester.path, cases)

    def order(seed: str) -> list[str]:
        result = pytester.runpytest("--codesearch-agent=oracle", f"--codesearch-seed={seed}", "--collect-only", "-q")
        return [line for line in result.stdout.lines if "::" in line]

    assert order("1") == order("1")
    assert order("1") != order("2")
    assert sorted(order("1")) == sorted(order("2"))


@pytest.mark.slow
def test_xdist_gives_the_serial_aggregates_and_junit_properties(pytester: pytest.Pytester, project: Path) -> None:
    args = ["--codesearch-agent=keyword,oracle", "--codesearch-seed=3", "-p", "xdist"]
    serial = pytester.runpytest_subprocess(*args, "--codesearch-report-dir=serial")
    serial.assert_outcomes(passed=6)
    parallel = pytester.runpytest_subprocess(
        *args, "-n", "2", "--codesearch-report-dir=parallel", "--junitxml=out.xml"
    )
    parallel.assert_outcomes(passed=6)
    hint = "codesearch: --dist load spreads the cases of one snapshot over several workers*--dist loadgroup*"
    parallel.stdout.fnmatch_lines([hint])  # -n alone means --dist load
    assert "spreads the cases" not in serial.stdout.str()
    one, two = read_results(pytester.path, "serial"), read_results(pytester.path, "parallel")
    assert two["run"]["workers"] == 2 and one["run"]["workers"] == 1
    for agent in ("keyword", "oracle"):
        assert one["agents"][agent]["metrics"] == two["agents"][agent]["metrics"]
        assert one["agents"][agent]["counts"] == two["agents"][agent]["counts"]
    assert [c["nodeid"] for c in one["cases"]] == [c["nodeid"] for c in two["cases"]]
    xml = (pytester.path / "out.xml").read_text()
    assert xml.count("<testcase") == 6
    assert xml.count('<property name="f1"') == 6
    assert xml.count('<property name="latency_ms"') == 6


def test_cases_listed_in_goldset_order_in_report(pytester: pytest.Pytester, project: Path) -> None:
    pytester.runpytest("--codesearch-agent=random", "--codesearch-seed=5").assert_outcomes(passed=3)
    data = read_results(pytester.path)
    assert sorted(c["id"] for c in data["cases"]) == sorted(c["id"] for c in CASES)
    assert all(0.0 <= v <= 1.0 for c in data["cases"] for v in c["metrics"].values())


def test_unwritable_report_directory_is_reported_not_an_internal_error(
    pytester: pytest.Pytester, project: Path
) -> None:
    (pytester.path / "blocked").write_text("a file where the report directory should be\n")
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-report-dir=blocked/out")
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["codesearch: cannot write the report to *blocked*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_timeout_fails_the_slow_case_and_the_run_goes_on(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import time
        import pytest_codesearch as pcs

        @pcs.agent(name="sleepy")
        def sleepy():
            def search(query):
                if query == "login view":
                    time.sleep(30)
                return ["src/app.py"]
            return search
        """
    )
    result = pytester.runpytest("--codesearch-agent=sleepy", "--codesearch-timeout=0.5", "--codesearch-runs=1")
    result.assert_outcomes(passed=2, failed=1)
    cases = {c["id"]: c for c in read_results(pytester.path)["cases"]}
    assert cases["login"]["status"] == "timeout"
    # a budget runs agents that can be rebuilt in a child process, which is killed at the deadline
    assert cases["login"]["error"] == "retrieving took longer than its budget of 0.5 s (the child process was killed)"
    assert cases["login"]["metrics"]["f1"] == 0.0
    assert cases["app"]["metrics"]["f1"] == 1.0


def test_randomize_false_keeps_the_goldset_order(pytester: pytest.Pytester) -> None:
    cases = [{"id": f"c{i}", "query": "login", "ground_truth_files": ["src/app.py"]} for i in range(8)]
    write_project(pytester.path, cases)
    (pytester.path / "bench.yaml").write_text("evaluation:\n  randomize: false\n")
    result = pytester.runpytest(
        "--codesearch-agent=oracle", "--codesearch-config=bench.yaml", "--collect-only", "-q"
    )
    assert [line for line in result.stdout.lines if "::" in line] == [
        f"cases.jsonl::c{i}[oracle]" for i in range(8)
    ]
