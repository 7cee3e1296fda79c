"""Mining a history built with pygit2 whose commits exercise every rule: the exact cases and counts produced."""

from __future__ import annotations

import json
import re
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest
from gitrepo import GITLINK, SYMLINK, Entry, branch, commit, init_repo, signature

from pytest_codesearch.goldset.formats import load
from pytest_codesearch.goldset.writer import case_to_json
from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.generate import MiningStats, ProgressEvent, format_stats, generate_goldset
from pytest_codesearch.mining.miner import DROP_REASONS, MinedCommit

APP = "def app():\n    return 'form'\n"
UTIL = "".join(f"def helper_{n}(value):\n    return value + {n}\n\n" for n in range(12))
SUBMODULE_A = "1" * 40
SUBMODULE_B = "2" * 40
BOT = ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com")


def _history(repo: pygit2.Repository) -> dict[str, str]:
    """Write the history; return the commit ids by name (c1 is the root, M the merge)."""
    ids: dict[str, str] = {}

    def add(name: str, files: dict[str, Any], message: str | bytes, **options: Any) -> None:
        ids[name] = commit(repo, files, message, **options)

    add("c1", {"src/app.py": APP, "src/util.py": UTIL, "src/db/models.py": "class Model:\n    pass\n",
               "src/version.py": "VERSION = '1.1'\n", "README.md": "# app\n", "docs/guide.md": "guide\n",
               "tests/test_app.py": "def test(): pass\n", "data/blob.bin": b"\x00\x01\x02",
               "link": Entry(b"src/app.py", SYMLINK), "ext/lib": Entry(commit=SUBMODULE_A, mode=GITLINK),
               **{f"src/gen/m{n}.py": f"M = {n}\n" for n in range(51)}}, "Initial import")  # fmt: skip
    add("c2", {"src/app.py": APP + "FORM = 1\n", "src/forms.py": "class Form: ...\n", "README.md": "# app!\n"},
        "feat(app): add a login form to the app (#12)\n\nSigned-off-by: Ada <ada@example.com>\n")  # fmt: skip
    add("c3", {"src/util.py": UTIL.replace("    return", "        return")}, "Tidy the helpers")
    add("c4", {"src/util.py": None, "src/helpers.py": UTIL + "def extra():\n    pass\n", "src/app.py": APP + "X = 2\n"},
        "Move the helpers into their own module and use them in the app")  # fmt: skip
    add("c5", {"src/db/models.py": None, "src/app.py": APP + "X = 3\n"},
        "Remove the unused database models\n\nFixes GH-7\n")  # fmt: skip
    add("c6", {"src/cache.py": "CACHE = {}\n"}, "Add a cache for parsed templates")
    add("c7", {"docs/guide.md": "guide 2\n", "tests/test_app.py": "def test(): assert 1\n"}, "Describe the login form")
    bot = signature(*BOT, time=repo[pygit2.Oid(hex=ids["c7"])].peel(pygit2.Commit).commit_time + 60)
    add("c8", {"src/app.py": APP + "X = 4\n"}, "Bump requests from 2.0 to 2.1", author=bot)
    add("c9", {"src/version.py": "VERSION = '1.2'\n"}, "Bump version to 1.2.0")
    add("c10", {"src/cache.py": None},
        f'Revert "Add a cache for parsed templates"\n\nThis reverts commit {ids["c6"]}.\n')  # fmt: skip
    add("c11", {"src/app.py": APP + "X = 5\n"}, "Fix the crash in app.py when the form is empty")
    add("c12", {"src/app.py": APP + "X = 6\n"}, "Fix typo in the login message")
    add("c13", {"src/helpers.py": UTIL + "def extra():\n    return 1\n"}, "style: reformat the helpers")
    add("c14", {"src/app.py": APP + "X = 7\n", "src/helpers.py": UTIL + "def extra():\n    return 2\n"},
        "fix(auth)!: reject expired session tokens (closes #41)\n\nSee https://example.com/issues/41 for details.\n\n"
        "Reviewed-by: Grace <grace@example.com>\nCo-authored-by: Alan <alan@example.com>\n")  # fmt: skip
    add("c15", {"src/app.py": APP + "X = 8\n"}, "Fix login\n\nThe session cookie was written before the user id was "
        "known. It is now set last.\n\nRefs: PROJ-12\n")  # fmt: skip
    add("c16", {"data/blob.bin": b"\x00\x01\x03"}, "Update the sample data blob")
    add("c17", {"link": Entry(b"src/helpers.py", SYMLINK), "ext/lib": Entry(commit=SUBMODULE_B, mode=GITLINK)},
        "Point the link and the library at their new versions")  # fmt: skip
    add("c18", {f"src/gen/m{n}.py": f"M = {n + 1}\n" for n in range(51)}, "Regenerate every message table")
    add("c19", {"src/app.py": APP + "X = 9\n"}, "Fix it")
    add("c20", {}, "Trigger the build again")
    add("c21", {"src/helpers.py": UTIL + "def extra():\n    return 3\n"}, b"Handle caf\xe9 names in the parser\n")
    time = repo[pygit2.Oid(hex=ids["c21"])].peel(pygit2.Commit).commit_time
    branch(repo, "topic", ids["c21"])
    add("t1", {"src/app.py": APP + "X = 10\n"}, "Cache the parsed templates per request", branch="topic")
    add("c22", {"src/app.py": APP + "X = 10\n"}, "Cache the parsed templates per request\n\n(cherry picked from commit "
        f"{ids['t1']})\n", author=signature(time=time + 120))  # fmt: skip
    add("M", {}, "Merge branch 'topic'", parents=[ids["c22"], ids["t1"]])
    return ids


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    path = tmp_path_factory.mktemp("mining") / "project"
    return path, _history(init_repo(path))


@pytest.fixture(scope="module")
def mined(project: tuple[Path, dict[str, str]]) -> tuple[MiningStats, list[dict[str, Any]], dict[str, Any]]:
    path, _ = project
    output = path.parent / "out" / "project.jsonl"
    stats = generate_goldset(path, output, FilterConfig(), workers=1)
    lines = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    return stats, lines[1:], lines[0]["metadata"]


def _short(ids: dict[str, str], name: str) -> str:
    return f"project-{ids[name][:12]}"


def _paths(entries: list[Any]) -> list[str]:
    """Return the paths of ``ground_truth_files`` entries (plain strings, or objects with lines)."""
    return [entry if isinstance(entry, str) else entry["path"] for entry in entries]


def test_kept_cases_are_exactly_these(project: tuple[Path, dict[str, str]], mined: Any) -> None:
    _, ids = project
    _, cases, _ = mined
    got = [(c["id"], c["query"], _paths(c["ground_truth_files"]), c["base_commit"], c["complexity"],
            c.get("added_files", [])) for c in cases]  # fmt: skip
    assert got == [
        (_short(ids, "c22"), "Cache the parsed templates per request", ["src/app.py"], ids["c21"], "low", []),
        (_short(ids, "c21"), "Handle caf\ufffd names in the parser", ["src/helpers.py"], ids["c20"], "low", []),
        (_short(ids, "c15"), "Fix login: The session cookie was written before the user id was known",
         ["src/app.py"], ids["c14"], "low", []),
        (_short(ids, "c14"), "reject expired session tokens", ["src/app.py", "src/helpers.py"], ids["c13"],
         "medium", []),
        (_short(ids, "c5"), "Remove the unused database models", ["src/app.py", "src/db/models.py"], ids["c4"],
         "medium", []),
        (_short(ids, "c4"), "Move the helpers into their own module and use them in the app",
         ["src/app.py", "src/util.py"], ids["c3"], "medium", []),
        (_short(ids, "c2"), "add a login form to the app", ["src/app.py"], ids["c1"], "low", ["src/forms.py"]),
    ]  # fmt: skip


def test_kept_cases_record_changed_lines_functions_and_modules(mined: Any) -> None:
    """Old-side spans of git's diff, and the definitions of the parent's Python holding them (issue 10, item 6)."""
    _, cases, _ = mined
    got = [(c["ground_truth_files"], c.get("ground_truth_functions"), c.get("ground_truth_modules")) for c in cases]
    app = {"path": "src/app.py", "lines": [[3, 3]]}
    extra = {"path": "src/helpers.py", "lines": [[38, 38]]}
    helpers = [f"src/util.py:helper_{n}" for n in range(12)]
    returns = [[line, line] for line in range(2, 33, 3)] + [[35, 36]]  # each helper's return; after the last
    assert got == [
        ([app], None, None),
        ([extra], ["src/helpers.py:extra"], ["src/helpers.py:extra"]),
        ([app], None, None),  # a module-level assignment: file and line level only
        ([app, extra], ["src/helpers.py:extra"], ["src/helpers.py:extra"]),
        ([app, {"path": "src/db/models.py", "lines": [[1, 2]]}], None, ["src/db/models.py:Model"]),  # deleted
        ([app, {"path": "src/util.py", "lines": returns}], helpers, helpers),  # renamed to helpers.py and edited
        ([{"path": "src/app.py", "lines": [[2, 2]]}], ["src/app.py:app"], ["src/app.py:app"]),  # appended after 2
    ]


def test_without_lines_cases_name_files_only(project: tuple[Path, dict[str, str]], mined: Any, tmp_path: Path) -> None:
    path, _ = project
    _, cases, _ = mined
    output = tmp_path / "files.jsonl"
    generate_goldset(path, output, FilterConfig(), workers=1, lines=False)
    plain = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()[1:]]
    assert [case["ground_truth_files"] for case in plain] == [_paths(case["ground_truth_files"]) for case in cases]
    assert not any("ground_truth_functions" in case or "ground_truth_modules" in case for case in plain)


def test_every_dropped_commit_is_counted_under_its_first_reason(mined: Any) -> None:
    stats, _, _ = mined
    assert {reason if not reason.startswith("message: ") else "message: <rule>" for reason in stats.dropped} == set(
        DROP_REASONS
    ) - {"shallow boundary", "missing objects", "too few files"}
    assert (stats.walked, stats.kept) == (24, 7)
    assert stats.dropped == {
        "only excluded files": 3,
        "merge commit": 1,
        "duplicate (same query and files)": 1,
        "no changes": 1,
        "query too short": 1,
        "too many files": 1,
        "message: style": 1,
        "message: typo": 1,
        "leaky query": 1,
        "message: revert": 1,
        "message: version-bump": 1,
        "bot author": 1,
        "only added files": 1,
        "whitespace-only": 1,
        "root commit": 1,
    }
    assert stats.excluded_files == {"excluded pattern": 3, "binary": 1, "symlink": 1, "submodule": 1}
    assert (stats.repaired_messages, stats.hook_failures, stats.rename_limit_hits, stats.outside_window) == (1, 0, 0, 0)


def test_cases_record_commit_message_category_rule_and_source(project: tuple[Path, dict[str, str]], mined: Any) -> None:
    _, ids = project
    _, cases, _ = mined
    first, fix = cases[0], cases[3]
    assert first == {
        "id": _short(ids, "c22"),
        "query": "Cache the parsed templates per request",
        "ground_truth_files": [{"path": "src/app.py", "lines": [[3, 3]]}],
        "repo": "../project",
        "base_commit": ids["c21"],
        "commit_hash": ids["c22"],
        "complexity": "low",
        "category": "change",
        "timestamp": first["timestamp"],
        "query_source": "rules",
        "leaky": False,
        "rule": "default",
        "commit_message": f"Cache the parsed templates per request\n\n(cherry picked from commit {ids['t1']})\n",
    }
    assert first["timestamp"].endswith("Z")
    assert (fix["category"], fix["rule"]) == ("fix", "conventional-fix")
    assert [(c["category"], c["rule"]) for c in cases[4:]] == [
        ("change", "default"), ("refactor", "keyword-refactor"), ("feature", "conventional-feat")
    ]  # fmt: skip


def test_output_loads_as_a_valid_goldset_with_metadata(project: tuple[Path, dict[str, str]], mined: Any) -> None:
    path, ids = project
    stats, _, metadata = mined
    loaded = load(stats.output)
    assert loaded.error is None
    assert [entry.error for entry in loaded.entries] == [None] * 7
    assert loaded.cases[0].query_source == "rules"
    for line in stats.output.read_text(encoding="utf-8").splitlines()[1:]:  # written as write_goldset_jsonl would
        assert json.dumps(case_to_json(TestCase.model_validate_json(line)), ensure_ascii=False) == line
    assert metadata["name"] == metadata["repository"] == "project"
    assert (metadata["rev"], metadata["head"]) == ("HEAD", ids["M"])
    assert metadata["generator"].startswith("pytest-codesearch ")
    assert metadata["config"] == FilterConfig().model_dump(mode="json")
    assert metadata["counts"]["dropped"] == stats.dropped
    assert (metadata["counts"]["walked"], metadata["counts"]["kept"]) == (24, 7)
    assert sorted(p.name for p in stats.output.parent.iterdir()) == ["project.jsonl"]  # no scratch file left


def test_two_processes_write_the_same_cases(project: tuple[Path, dict[str, str]], mined: Any, tmp_path: Path) -> None:
    from pytest_codesearch.mining import parallel
    from pytest_codesearch.mining.output import GoldsetWriter
    from pytest_codesearch.mining.progress import Reporter

    path, ids = project
    stats, cases, _ = mined
    output = tmp_path / "two.jsonl"
    with GoldsetWriter(output) as writer:  # blocks of 2 commits, so both workers find cases and duplicates
        counts = parallel.mine_in_processes(path, ids["M"], FilterConfig(), "../p", "project", 2, writer, Reporter(None), chunk=2)
        writer.publish(load(stats.output).metadata)
    assert [json.loads(line)["id"] for line in output.read_text().splitlines()[1:]] == [c["id"] for c in cases]
    assert (counts.walked, counts.kept, dict(counts.dropped), dict(counts.excluded_files)) == (
        stats.walked, stats.kept, stats.dropped, stats.excluded_files
    )  # fmt: skip


def test_the_list_of_commits_for_several_processes_leaves_merges_out_and_counts_them(
    project: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    from pytest_codesearch.mining import parallel
    from pytest_codesearch.mining.miner import Miner

    path, ids = project
    repo = pygit2.Repository(str(path))
    head = repo[pygit2.Oid(hex=ids["M"])].peel(pygit2.Commit)
    for include, listed, counted in ((False, 23, (1, {"merge commit": 1})), (True, 24, (0, {}))):
        miner = Miner(repo, FilterConfig(include_merges=include), None, None, "p", lines=False)
        assert parallel._list_commits(miner, head, tmp_path / "walk.ids") == listed
        written = (tmp_path / "walk.ids").read_bytes()
        assert (bytes.fromhex(ids["M"]) in {written[at : at + 20] for at in range(0, len(written), 20)}) is include
        assert (miner.counts.walked, dict(miner.counts.dropped)) == counted


def test_generate_with_two_workers_matches_one(
    project: tuple[Path, dict[str, str]], mined: Any, tmp_path: Path
) -> None:
    path, _ = project
    _, cases, _ = mined
    stats = generate_goldset(path, tmp_path / "w2.jsonl", FilterConfig(), workers=2)
    lines = [json.loads(line) for line in (tmp_path / "w2.jsonl").read_text().splitlines()[1:]]
    assert stats.workers == 2
    assert [p.name for p in tmp_path.iterdir()] == ["w2.jsonl"]  # the workers' files are gone
    assert [case.pop("repo") for case in lines] == [Path(os.path.relpath(path, tmp_path)).as_posix()] * 7
    assert lines == [{key: value for key, value in case.items() if key != "repo"} for case in cases]


def test_gold_set_inside_the_repository_names_no_repo(project: tuple[Path, dict[str, str]]) -> None:
    path, _ = project
    output = path / "goldsets" / "mined.json"
    try:
        generate_goldset(path, output, FilterConfig(max_commits=3), workers=1)
        document = json.loads(output.read_text())
    finally:
        output.unlink(missing_ok=True)
        output.parent.rmdir()
    assert [case["id"][:8] for case in document["test_cases"]] == ["project-"]
    assert "repo" not in document["test_cases"][0]
    assert document["metadata"]["counts"]["walked"] == 3


def test_bounds_since_until_and_max_commits(project: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, ids = project
    repo = pygit2.Repository(str(path))
    times = {name: repo[pygit2.Oid(hex=oid)].peel(pygit2.Commit).commit_time for name, oid in ids.items()}
    from datetime import datetime, timezone

    def at(name: str) -> datetime:
        return datetime.fromtimestamp(times[name], timezone.utc)

    window = FilterConfig(since=at("c14"), until=at("c15"))
    stats = generate_goldset(path, tmp_path / "w.jsonl", window, workers=1)
    assert (stats.walked, stats.kept, stats.outside_window) == (2, 2, 22)
    stats = generate_goldset(path, tmp_path / "m.jsonl", FilterConfig(max_commits=4), workers=1)
    assert (stats.walked, stats.kept) == (4, 2)
    assert stats.dropped == {"merge commit": 1, "duplicate (same query and files)": 1}


def test_strict_medium_only_and_unbounded_high(project: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, _ = project
    strict = generate_goldset(path, tmp_path / "s.jsonl", FilterConfig(min_files=2, max_files=20), workers=1)
    assert (strict.kept, strict.dropped["too few files"], strict.dropped["too many files"]) == (3, 8, 1)
    unbounded = generate_goldset(path, tmp_path / "u.jsonl", FilterConfig(max_files=None), workers=1)
    cases = [json.loads(line) for line in (tmp_path / "u.jsonl").read_text().splitlines()[1:]]
    high = [case for case in cases if case["complexity"] == "high"]
    assert unbounded.kept == 8
    assert [(case["query"], len(case["ground_truth_files"])) for case in high] == [
        ("Regenerate every message table", 51)
    ]


def test_keep_leaky_and_fewer_rules(project: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, ids = project
    config = FilterConfig(keep_leaky=True, drop_rules=["revert", "merge"], bot_authors=[])
    stats = generate_goldset(path, tmp_path / "l.jsonl", config, workers=1)
    cases = {c["commit_hash"]: c for c in map(json.loads, (tmp_path / "l.jsonl").read_text().splitlines()[1:])}
    assert cases[ids["c11"]]["leaky"] is True
    assert cases[ids["c11"]]["query"] == "Fix the crash in app.py when the form is empty"
    assert {name for name, oid in ids.items() if oid in cases} == {
        "c22", "c21", "c15", "c14", "c13", "c12", "c11", "c9", "c8", "c5", "c4", "c2"
    }  # fmt: skip
    assert cases[ids["c13"]]["query"] == "reformat the helpers"
    assert "message: revert" in stats.dropped


@pytest.mark.parametrize(
    ("result", "source", "failures"),
    [
        (lambda q, c: f"where is {c.ground_truth[0]} {q}".lower(), "hook", 0),
        (lambda q, c: None, "rules", 0),
        # 11: every commit past the file rules, the whitespace-only one too (content is read after the query rules)
        (lambda q, c: "   ", "rules (hook failed: returned '   ')", 11),
        (lambda q, c: 1 / 0, "rules (hook failed: ZeroDivisionError: division by zero)", 11),
    ],
)
def test_transform_hook_rewrites_or_falls_back(
    project: tuple[Path, dict[str, str]], tmp_path: Path, result: Any, source: str, failures: int
) -> None:
    path, _ = project
    seen: list[MinedCommit] = []

    def transform(query: str, mined: MinedCommit) -> str | None:
        seen.append(mined)
        return result(query, mined)  # type: ignore[no-any-return]

    stats = generate_goldset(path, tmp_path / "h.jsonl", FilterConfig(keep_leaky=True), transform=transform, workers=2)
    cases = [json.loads(line) for line in (tmp_path / "h.jsonl").read_text().splitlines()[1:]]
    assert stats.workers == 1  # a transform keeps mining in this process
    assert {case["query_source"] for case in cases} == {source}
    assert stats.hook_failures == failures
    assert seen[0].subject == "Cache the parsed templates per request" and seen[0].ground_truth == ("src/app.py",)
    if source == "hook":
        assert cases[0]["query"] == "where is src/app.py cache the parsed templates per request"
        assert all(case["leaky"] for case in cases)


def test_cases_stream_to_a_scratch_file_and_a_killed_run_keeps_the_old_gold_set(
    project: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, _ = project
    output = tmp_path / "kept.jsonl"
    output.write_text("previous\n")
    during: list[list[str]] = []

    def interrupt(query: str, mined: MinedCommit) -> str | None:
        during.append(sorted(p.name.split(".")[-2] for p in tmp_path.iterdir() if p.name != "kept.jsonl"))
        if len(during) == 3:
            raise KeyboardInterrupt
        return None

    with pytest.raises(KeyboardInterrupt):
        generate_goldset(path, output, FilterConfig(), transform=interrupt)
    assert during == [["cases"]] * 3  # the cases go to a scratch file beside the output while mining
    assert output.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.jsonl"]


def test_progress_ends_with_the_final_figures(project: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, _ = project
    events: list[ProgressEvent] = []
    generate_goldset(path, tmp_path / "p.jsonl", FilterConfig(), progress=events.append, workers=1)
    assert events[-1].done and (events[-1].walked, events[-1].kept, events[-1].dropped) == (24, 7, 17)
    assert events[-1].rate > 0
    assert events[-1].total == 24  # the walk is counted first, so every line has a total and a time left


def test_progress_of_two_processes_has_the_planned_total(project: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, _ = project
    events: list[ProgressEvent] = []
    generate_goldset(path, tmp_path / "p.jsonl", FilterConfig(), progress=events.append, workers=2)
    assert events[-1].done and (events[-1].walked, events[-1].total) == (24, 24)


def test_a_progress_line_says_total_rate_and_time_left() -> None:
    from pytest_codesearch.commands.generate import progress_text

    event = ProgressEvent(walked=12_288, kept=7_804, dropped=4_484, elapsed_s=4.0, total=61_440)
    assert progress_text(event) == (
        "mining: 12,288 of 61,440 commits (20%), 3,072 commits/s, about 16 s left; 7,804 kept, 4,484 dropped"
    )
    assert progress_text(ProgressEvent(10, 4, 6, 2.0)) == "mining: 10 commits, 5 commits/s; 4 kept, 6 dropped"


def test_format_stats_is_a_table_of_every_reason(mined: Any) -> None:
    stats, _, _ = mined
    lines = format_stats(stats).splitlines()
    width = len("dropped: duplicate (same query and files)")
    assert lines[0].startswith(f"mined {stats.output} in ")
    assert lines[1:4] == [
        f"  {'commits examined':<{width}}  24",
        f"  {'kept (cases written)':<{width}}   7",
        f"  {'dropped: only excluded files':<{width}}   3",
    ]
    assert f"  {'messages decoded with replacement':<{width}}   1" in lines
    assert re.fullmatch(r"  functions from python files \(\d+\.\d\d s\) +11", lines[-1])
    assert len(lines) == 1 + 2 + 15 + 4 + 1 + 1


@pytest.fixture
def shallow(tmp_path: Path) -> Iterator[tuple[Path, list[str]]]:
    repo = init_repo(tmp_path / "shallow")
    ids = [commit(repo, {"src/a.py": f"A = {n}\n"}, f"Change the answer to {n} everywhere") for n in range(3)]
    (tmp_path / "shallow" / ".git" / "shallow").write_text(ids[1] + "\n")
    yield tmp_path / "shallow", ids


def test_shallow_boundary_is_skipped_not_blamed(shallow: tuple[Path, list[str]], tmp_path: Path) -> None:
    path, ids = shallow
    stats = generate_goldset(path, tmp_path / "s.jsonl", FilterConfig(), workers=1)
    assert (stats.walked, stats.kept, stats.dropped) == (2, 1, {"shallow boundary": 1})


def test_bare_repository_is_mined(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "bare.git", bare=True)
    first = commit(repo, {"src/a.py": "A = 1\n"}, "Start")
    second = commit(repo, {"src/a.py": "A = 2\n"}, "Change the answer to two everywhere")
    stats = generate_goldset(tmp_path / "bare.git", tmp_path / "out" / "b.jsonl", FilterConfig())
    case = json.loads((tmp_path / "out" / "b.jsonl").read_text().splitlines()[1])
    assert stats.kept == 1
    assert (case["id"], case["repo"], case["base_commit"]) == (f"bare-{second[:12]}", "../bare.git", first)


def test_caches_that_fill_up_change_no_case(
    project: tuple[Path, dict[str, str]], mined: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_codesearch.mining import files, miner, treediff

    path, _ = project
    stats, cases, _ = mined
    for module, name in ((files, "PATH_CACHE_SIZE"), (miner, "AUTHOR_CACHE_SIZE"), (treediff, "_TREE_CACHE_SIZE")):
        monkeypatch.setattr(module, name, 1)  # every verdict, author and tree is forgotten at once
    again = generate_goldset(path, tmp_path / "project.jsonl", FilterConfig(), workers=1)
    lines = [json.loads(line) for line in (tmp_path / "project.jsonl").read_text(encoding="utf-8").splitlines()[1:]]
    assert [{**case, "repo": None} for case in lines] == [{**case, "repo": None} for case in cases]
    assert (again.dropped, again.excluded_files) == (stats.dropped, stats.excluded_files)


_PYTHON_2 = (
    "import sys\n\n\nclass Cart(object):\n    def add(self, item):\n        print 'adding', item\n        return item\n\n"
    "    def total(self):\n        print >>sys.stderr, 'total'\n        return 2\n\n\ndef fmt(v):\n    print v\n"
    "    return str(v)\n"
)


def test_python_2_files_record_the_functions_tree_sitter_finds(tmp_path: Path) -> None:
    """A file ``ast`` cannot parse (Python 2) still gets functions and modules: what tree-sitter's grammar finds,
    the newer version's tree reparsed for its parent."""
    repo = init_repo(tmp_path / "py2")
    commit(repo, {"src/cart.py": _PYTHON_2, "README.md": "# cart\n"}, "Initial import")
    fixed = _PYTHON_2.replace("return item\n", "return item + 1\n").replace("return 2\n", "return 3\n")
    commit(repo, {"src/cart.py": fixed}, "Fix the totals of the cart when an item repeats")
    commit(repo, {"src/cart.py": fixed.replace("str(v)", "repr(v)")}, "Fix the format of the values in the report")
    output = tmp_path / "out.jsonl"
    generate_goldset(tmp_path / "py2", output, FilterConfig(), workers=1)
    cases = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()[1:]]
    got = [(c["query"], c["ground_truth_files"], c["ground_truth_functions"], c["ground_truth_modules"]) for c in cases]
    assert got == [
        ("Fix the format of the values in the report", [{"path": "src/cart.py", "lines": [[16, 16]]}], ["src/cart.py:fmt"],
         ["src/cart.py:fmt"]),
        ("Fix the totals of the cart when an item repeats", [{"path": "src/cart.py", "lines": [[7, 7], [11, 11]]}],
         ["src/cart.py:Cart.add", "src/cart.py:Cart.total"], ["src/cart.py:Cart"]),
    ]  # fmt: skip
