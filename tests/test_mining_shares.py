"""How two or more mining processes split the walk: contiguous ranges, planned once the walk is counted."""

from __future__ import annotations

import json
import multiprocessing
from datetime import datetime, timezone
from pathlib import Path

import pygit2
import pytest
from gitrepo import EPOCH, commit, init_repo

from pytest_codesearch.goldset.formats import load
from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.generate import generate_goldset
from pytest_codesearch.mining.miner import Miner
from pytest_codesearch.mining.shares import Share, new_plan, publish_plan, split_points
from pytest_codesearch.mining.walk import walk


@pytest.mark.parametrize(
    ("claimed", "total", "workers", "walk_cost", "points"),
    [
        (0, 1000, 2, 0.0, [0, 500, 1000]),
        (0, 1000, 3, 0.0, [0, 333, 667, 1000]),
        (100, 1100, 2, 0.0, [0, 600, 1100]),
        (100, 10100, 2, 0.04, [0, 5302, 10100]),  # a cost before its range: 404 commits' worth
        (0, 1000, 4, 0.04, [0, 280, 520, 760, 1000]),
        (50, 10, 3, 0.04, [0, 10, 10, 10]),  # process 0 claimed everything before the plan
        (0, 10, 2, 0.9, [0, 10, 10]),  # walking again costs more than sharing saves
        (0, 0, 2, 0.04, [0, 0, 0]),
        (0, 7, 1, 0.04, [0, 7]),
    ],
)
def test_split_points_give_equal_finishing_times(
    claimed: int, total: int, workers: int, walk_cost: float, points: list[int]
) -> None:
    assert split_points(claimed, total, workers, walk_cost) == points


def test_process_zero_renews_its_lease_until_the_plan_fixes_its_end() -> None:
    plan = new_plan(multiprocessing.get_context("spawn"), 2)
    first = Share(plan, 0, lease=4)
    assert [first.covers(position) for position in range(6)] == [True] * 6
    assert plan.claimed[0] == 8  # leases [0, 4) and [4, 8)
    publish_plan(plan, 30, 2)
    end = split_points(8, 30, 2)[1]
    assert (list(plan.ends), list(plan.starts), list(plan.claimed)) == ([end, 30], [0, end], [8, end])
    assert first.covers(end - 1) and not first.covers(end) and not first.covers(end + 1)
    second = Share(plan, 1)
    assert (second.start, second.covers(29), second.covers(30)) == (end, True, False)


def test_a_process_done_early_takes_the_second_half_of_what_another_left_unclaimed() -> None:
    plan = new_plan(multiprocessing.get_context("spawn"), 3)
    first = Share(plan, 0, lease=32)
    assert first.covers(0) and plan.claimed[0] == 32
    publish_plan(plan, 332, 3)  # ranges [0, 132), [132, 232), [232, 332)
    assert list(plan.ends) == [132, 232, 332]
    third = Share(plan, 2, lease=32)
    assert third.covers(232) and third.covers(263) and third.covers(264)  # claimed up to 296
    second = Share(plan, 1, lease=32)
    assert all(second.covers(position) for position in range(132, 232)) and not second.covers(232)
    assert second.steal()  # process 0 left 100 unclaimed (32..132), process 2 left 36 (296..332)
    assert (second.start, list(plan.ends), plan.claimed[1]) == (82, [82, 132, 332], 82)
    assert not first.covers(82) and first.covers(81)
    assert all(second.covers(position) for position in range(82, 132)) and not second.covers(132)
    assert not second.steal()  # 36 left to process 2, and 50 to process 0: too little to be worth a cold start
    assert list(plan.ends) == [82, 132, 332]


def _history(path: Path, commits: int) -> None:
    """Write a root, ``commits`` one-file changes, then a repeat of the oldest change (a duplicate)."""
    repo = init_repo(path)
    commit(repo, {f"src/m{n}.py": "VALUE = None\n" for n in range(5)}, "Start")
    for n in range(commits):
        commit(repo, {f"src/m{n % 5}.py": f"VALUE = {n}\n"}, f"Set the value of module {n % 5} to {n}")
    commit(repo, {"src/m0.py": "VALUE = 'zero'\n"}, "Set the value of module 0 to 0")


def test_a_forced_split_gives_each_process_a_range_and_the_same_gold_set(tmp_path: Path) -> None:
    from pytest_codesearch.mining import parallel
    from pytest_codesearch.mining.output import GoldsetWriter
    from pytest_codesearch.mining.progress import Reporter

    _history(tmp_path / "p", 30)
    one = generate_goldset(tmp_path / "p", tmp_path / "one.jsonl", FilterConfig(), workers=1)
    head = str(pygit2.Repository(str(tmp_path / "p")).head.target)
    with GoldsetWriter(tmp_path / "two.jsonl") as writer:  # process 0 stops at 4 and waits for the plan
        counts = parallel.mine_in_processes(tmp_path / "p", head, FilterConfig(), "p", "p", 2, writer, Reporter(None), 2, 4)
        writer.publish(load(one.output).metadata)
    assert split_points(4, 32, 2) == [0, 18, 32]  # process 1 examined the 14 oldest commits, the duplicate too
    cases = [(tmp_path / name).read_text().splitlines()[1:] for name in ("one.jsonl", "two.jsonl")]
    assert cases[0] == cases[1] and len(cases[0]) == 30
    queries = [json.loads(case)["query"] for case in cases[0]]
    assert (queries[0], queries[-1]) == ("Set the value of module 0 to 0", "Set the value of module 1 to 1")
    assert (counts.walked, counts.kept, dict(counts.dropped)) == (
        32, 30, {"duplicate (same query and files)": 1, "root commit": 1}
    )  # fmt: skip


def test_three_processes_write_what_one_writes(tmp_path: Path) -> None:
    _history(tmp_path / "p", 12)
    one = generate_goldset(tmp_path / "p", tmp_path / "one.jsonl", FilterConfig(), workers=1)
    three = generate_goldset(tmp_path / "p", tmp_path / "three.jsonl", FilterConfig(), workers=3)
    cases = [(tmp_path / name).read_text().splitlines()[1:] for name in ("one.jsonl", "three.jsonl")]
    assert cases[0] == cases[1] and len(cases[0]) == 12  # 12 changes, the oldest repeated by the newest
    assert (three.walked, three.kept, three.dropped, three.workers) == (one.walked, one.kept, one.dropped, 3)


def test_processes_that_take_ranges_from_each_other_write_what_one_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_codesearch.mining import parallel, shares
    from pytest_codesearch.mining.output import GoldsetWriter
    from pytest_codesearch.mining.progress import Reporter

    monkeypatch.setattr(shares, "SMALLEST_STEAL", 1)  # forked processes inherit it: a range of 2 is worth taking
    _history(tmp_path / "p", 150)
    one = generate_goldset(tmp_path / "p", tmp_path / "one.jsonl", FilterConfig(), workers=1)
    head = str(pygit2.Repository(str(tmp_path / "p")).head.target)
    with GoldsetWriter(tmp_path / "three.jsonl") as writer:
        counts = parallel.mine_in_processes(tmp_path / "p", head, FilterConfig(), "p", "p", 3, writer, Reporter(None), 2)
        writer.publish(load(one.output).metadata)
    cases = [(tmp_path / name).read_text().splitlines()[1:] for name in ("one.jsonl", "three.jsonl")]
    assert cases[0] == cases[1] and len(cases[0]) == 150
    assert (counts.walked, counts.kept, dict(counts.dropped)) == (
        152, 150, {"duplicate (same query and files)": 1, "root commit": 1}
    )  # fmt: skip


def test_worker_zero_reads_the_list_of_commits_while_it_is_written(tmp_path: Path) -> None:
    import threading

    from pytest_codesearch.mining.parallel import _id_chunks

    ids = [bytes([n]) * 20 for n in range(1, 8)]
    path = tmp_path / "walk.ids"
    path.write_bytes(ids[0] + ids[1][:7])  # the lister is in the middle of an id
    plan = new_plan(multiprocessing.get_context("spawn"), 2)

    def lister() -> None:
        with path.open("ab") as out:
            out.write(ids[1][7:] + b"".join(ids[2:]))
        plan.ready.set()  # published once the list is complete

    chunks = _id_chunks(path, 0, plan)
    first = next(chunks)
    thread = threading.Thread(target=lister)
    thread.start()
    rest = b"".join(chunks)
    thread.join()
    assert first == ids[0]  # whole ids only
    assert first + rest == b"".join(ids)
    assert b"".join(_id_chunks(path, 5, None)) == ids[5] + ids[6]  # a complete list, from position 5


def _varied_history(path: Path) -> list[pygit2.Commit]:
    """Write commits that count something each (an excluded file, renames past the limit, a dropped message,
    a whitespace-only edit); return them newest first."""
    repo = init_repo(path)
    body = "".join(f"def f{n}():\n    return {n}\n" for n in range(20))
    commit(repo, {"src/a.py": body, "src/b.py": body + "# b\n", "docs/x.md": "x\n"}, "Start")
    commit(repo, {"src/a.py": body + "# a\n", "docs/x.md": "y\n"}, "Document and change the module a")
    moves = {"src/a.py": None, "src/b.py": None, "pkg/a.py": body + "# a2\n", "pkg/b.py": body + "# b2\n"}
    commit(repo, {**moves, "src/c.py": "C = 1\n"}, "Move the modules into their package")
    commit(repo, {"pkg/b.py": body + "# b3\n"}, "Fix a typo in the module b")
    commit(repo, {"pkg/a.py": body.replace("    return", "        return") + "# a2\n"}, "Indent the module a more")
    commit(repo, {"src/c.py": "C = 2\n"}, "Set the constant of the module c")
    return [found for found, _ in walk(repo, repo.head.peel(pygit2.Commit), None, None)]


def test_commits_judged_ahead_count_once_when_the_walk_meets_them(tmp_path: Path) -> None:
    commits = _varied_history(tmp_path / "p")
    repo, config = pygit2.Repository(str(tmp_path / "p")), FilterConfig(rename_limit=1)
    in_turn = Miner(repo, config, None, None, "p", lines=False)
    expected = [in_turn.examine(found) for found in commits[:-1]]
    ahead = Miner(repo, config, None, None, "p", lines=False)
    for found in commits[1::2]:  # the root (last) is judged ahead but never met: it counts nothing
        ahead.judge_ahead(found)
    assert [ahead.examine(found) for found in commits[:-1]] == expected
    assert ahead.counts == in_turn.counts and list(ahead.ahead) == [commits[-1].id.raw]
    assert (in_turn.counts.walked, in_turn.counts.kept, in_turn.counts.rename_limit_hits) == (5, 3, 1)
    assert dict(in_turn.counts.dropped) == {"message: typo": 1, "whitespace-only": 1}
    assert dict(in_turn.counts.excluded_files) == {"excluded pattern": 1}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (FilterConfig(max_commits=30), (30, 30, {}, 0)),  # 36 judged ahead: the walk never meets 6 of them
        (FilterConfig(until=datetime.fromtimestamp(EPOCH + 60 * 31, timezone.utc)), (32, 31, {"root commit": 1}, 10)),
    ],
    ids=["max_commits", "until"],
)
def test_worker_zero_judging_ahead_writes_what_one_process_writes(
    tmp_path: Path, config: FilterConfig, expected: tuple[int, int, dict[str, int], int]
) -> None:
    from pytest_codesearch.mining import parallel
    from pytest_codesearch.mining.output import GoldsetWriter
    from pytest_codesearch.mining.progress import Reporter

    _history(tmp_path / "p", 40)
    one = generate_goldset(tmp_path / "p", tmp_path / "one.jsonl", config, workers=1, lines=False)
    head = str(pygit2.Repository(str(tmp_path / "p")).head.target)
    with GoldsetWriter(tmp_path / "two.jsonl") as writer:
        counts = parallel.mine_in_processes(
            tmp_path / "p", head, config, "p", "p", 2, writer, Reporter(None), 2, lines=False, ahead=36
        )  # fmt: skip
        writer.publish(load(one.output).metadata)
    cases = [(tmp_path / name).read_text().splitlines()[1:] for name in ("one.jsonl", "two.jsonl")]
    assert cases[0] == cases[1] and len(cases[0]) == expected[1]
    found = (counts.walked, counts.kept, dict(counts.dropped), counts.outside_window)
    assert found == (one.walked, one.kept, one.dropped, one.outside_window) == expected
