"""Mine one history with several processes, for the same output as one process would write.

Every worker opens its own repository (PITFALLS 24) and examines contiguous ranges of the walk
(``shares.py`` says how they are chosen and rebalanced). Worker 1 walks the whole history once, listing
the ids of its commits to a file as it goes; every range is read by id from that list, worker 0 reading
its own while the list grows (issue 23: the history is walked once, not by two processes). libgit2's
time-sorted walk reads the whole history before its first commit, so until the list holds one, worker 0
judges commits of a lazy walk of its own ahead of their turn (``_judge_ahead``) instead of waiting.
Workers write the cases of each range to a scratch file of its own in the writer's folder, and the
position in the walk and key of each to another; this process reads the keys back in walk order to drop
duplicates there, so the result does not depend on the number of workers or on how the ranges fell, and
the writer copies the lines once, when it publishes (issue 23: not merged into a scratch file first).
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
import time
import traceback
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

import pygit2

from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.heap import map_large_blocks_alone
from pytest_codesearch.mining.miner import DUPLICATE, Counts, Miner
from pytest_codesearch.mining.objects import fast_reads
from pytest_codesearch.mining.output import GoldsetWriter
from pytest_codesearch.mining.progress import INTERVAL_S, Reporter
from pytest_codesearch.mining.shares import LEASE, Plan, Share, new_plan, planned_total, publish_plan
from pytest_codesearch.mining.walk import (
    MiningError,
    bounded_cache,
    in_window,
    newest_first,
    open_repository,
    uncached,
)

_ID_SIZE = 20
"""Bytes of a raw commit id in the list of the walk's commits."""
_IDS_READ = 4096
"""Commit ids read from that list at a time."""
_LIST_WAIT_S = 0.002
"""How long worker 0 waits before reading the list again when it has read all that was written."""
AHEAD_MOST = 8192
"""Most commits worker 0 judges ahead while the list is still empty (``_judge_ahead``)."""


@dataclass(frozen=True)
class _Job:
    repo_path: Path
    head: str
    config: FilterConfig
    case_repo: str | None
    name: str
    index: int
    workers: int
    scratch: Path
    """The folder of the workers' scratch files."""
    lease: int
    lead: int | None
    lines: bool
    ids: Path
    """The list of the walk's commit ids, written by worker 1 before the plan."""
    ahead: int = 0
    """Commits worker 0 judges ahead even once the list holds some (tests: the split does not depend on timing)."""


def mine_in_processes(
    repo_path: Path,
    head: str,
    config: FilterConfig,
    case_repo: str | None,
    name: str,
    workers: int,
    writer: GoldsetWriter,
    reporter: Reporter,
    chunk: int = LEASE,
    lead: int | None = None,
    lines: bool = True,
    ahead: int = 0,
) -> Counts:
    """Mine with ``workers`` processes, adding the cases to ``writer`` in walk order; return the counts.

    Each worker examines contiguous ranges of the walk; ``chunk`` is the lease each claims at a time (what
    another may not take from it), and ``lead`` (tests) makes worker 0 wait for the plan at that position. With
    ``lines``, workers record each case's changed lines, functions and modules. ``ahead`` (tests) is how many
    commits worker 0 judges ahead at least (``_judge_ahead``).
    """
    context = _context()
    scratch = writer.workspace()  # removed with the writer's scratch file, after it copied the cases
    ids = scratch / "walk.ids"
    ids.touch()  # worker 0 reads it while worker 1 writes it
    jobs = [
        _Job(repo_path, head, config, case_repo, name, index, workers, scratch, chunk, lead, lines, ids, ahead)
        for index in range(workers)
    ]
    plan = new_plan(context, workers)
    progress: Any = context.Queue()
    results: Any = context.Queue()
    processes = [
        context.Process(target=_work, args=(job, plan, progress, results), daemon=True)  # type: ignore[attr-defined]
        for job in jobs
    ]
    try:
        for process in processes:
            process.start()
        counts = _collect(processes, progress, results, reporter, plan)
        _merge(list(scratch.glob("*.keys")), writer, counts)
        return counts
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
            process.join()


def _context() -> BaseContext:
    """Return fork where it is safe (no other thread running), else spawn."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _collect(processes: list[Any], progress: Any, results: Any, reporter: Reporter, plan: Plan) -> Counts:
    """Wait for every worker's counts, reporting their summed progress (with the walk's total once the plan
    counted it); raise ``MiningError`` if one fails."""
    figures = {index: (0, 0) for index in range(len(processes))}
    done: dict[int, Counts] = {}
    while len(done) < len(processes):
        try:
            index, counts, error = results.get(timeout=INTERVAL_S / 2)
        except queue.Empty:
            if any(not process.is_alive() and process.exitcode != 0 for process in processes):
                codes = [process.exitcode for process in processes]
                raise MiningError(f"a mining process ended unexpectedly (exit codes {codes})") from None
        else:
            if error is not None:
                raise MiningError(error)
            done[index] = counts
        _drain(progress, figures)
        if reporter.total is None:
            reporter.total = planned_total(plan)
        reporter.report(sum(walked for walked, _ in figures.values()), sum(kept for _, kept in figures.values()))
    total = Counts()
    for index in sorted(done):
        total.merge(done[index])
    return total


def _drain(progress: Any, figures: dict[int, tuple[int, int]]) -> None:
    while True:
        try:
            index, walked, kept = progress.get_nowait()
        except queue.Empty:
            return
        figures[index] = (walked, kept)


def _merge(paths: list[Path], writer: GoldsetWriter, counts: Counts) -> None:
    """Have ``writer`` copy the workers' cases in walk order, without repeated (query, files) pairs.

    Each range's keys file holds (position in the walk, key) for each of its cases, in walk order, beside
    its lines (``_examine_range``). Ranges are disjoint runs of positions, so walk order is the order of
    their first positions; only the keys are read here, the lines are read once, by ``writer.publish``.
    """
    ranges: list[tuple[int, Path, array[int]]] = []
    for path in paths:
        pairs = array("Q")
        pairs.frombytes(path.read_bytes())
        if pairs:
            ranges.append((pairs[0], path.with_suffix(".jsonl"), pairs))
    ranges.sort(key=lambda found: found[0])
    seen: set[int] = set()
    for _, lines, pairs in ranges:
        repeated: set[int] = set()
        for index, key in enumerate(pairs[1::2]):
            if key in seen:
                repeated.add(index)
            else:
                seen.add(key)
        if repeated:
            counts.kept -= len(repeated)
            counts.dropped[DUPLICATE] += len(repeated)
        writer.take(lines, repeated, len(pairs) // 2 - len(repeated))


def _work(job: _Job, plan: Plan, progress: Any, results: Any) -> None:
    """Examine this worker's range of the walk, writing its cases to ``job.scratch``; put its counts."""
    if job.lines:
        map_large_blocks_alone()  # this process exits when done: the heap setting ends with it
    try:
        with bounded_cache(), fast_reads():  # a spawned process starts from libgit2's defaults
            counts = _examine_share(job, plan, progress)
    except MiningError as exc:
        results.put((job.index, None, str(exc)))
    except BaseException:  # a bug: show it, the parent ends the run
        results.put((job.index, None, f"mining process {job.index} failed:\n{traceback.format_exc()}"))
    else:
        results.put((job.index, counts, None))


def _examine_share(job: _Job, plan: Plan, progress: Any) -> Counts:
    """Examine this worker's range, then ranges taken from the others until none is worth taking."""
    repo = open_repository(job.repo_path)
    miner = Miner(repo, job.config, None, job.case_repo, job.name, job.lines)
    head = repo[pygit2.Oid(hex=job.head)].peel(pygit2.Commit)
    outside = 0
    if job.index == 1:  # count what there is to examine while worker 0 starts, then plan the ranges
        listed = _list_commits(miner, head, job.ids)
        publish_plan(plan, listed, job.workers, miner.counts.walked + listed)
        outside = miner.counts.outside_window  # this walk went to the end, as one process's would
    elif job.index == 0:
        _judge_ahead(miner, head, job.ids, job.ahead)
    share = Share(plan, job.index, job.lease, job.lead)
    commits = _listed_commits(repo, job.ids, share.start, plan if job.index == 0 else None)
    ranges = 0
    while True:
        _examine_range(miner, share, commits, job.scratch / f"{job.index}-{ranges}", (progress, job.index))
        if not share.steal():
            break
        ranges += 1
        commits = _listed_commits(repo, job.ids, share.start)
    miner.counts.outside_window = outside  # counted once, by the walk that went to the end
    return miner.counts


def _judge_ahead(miner: Miner, head: pygit2.Commit, ids: Path, least: int) -> None:
    """Judge commits newest first (``walk.newest_first``) while the list of the walk's commits is still empty.

    Worker 1's walk reads the whole history before it lists the first commit (0.9 s on git's), so worker 0
    would wait idle; the outcomes it finds are kept by commit id (``Miner.judge_ahead``) and taken when the
    list reaches them. At least ``least`` commits, at most ``AHEAD_MOST`` (and ``max_commits``), each inside
    the since/until window (those outside are never examined).
    """
    config = miner.config
    most, inside = min(AHEAD_MOST, config.max_commits or AHEAD_MOST), in_window(config.since, config.until)
    count = 0
    for commit in newest_first(miner.repo, head):
        if count >= least and (count >= most or ids.stat().st_size >= _ID_SIZE):
            return
        if inside(commit.commit_time):
            miner.judge_ahead(commit)
            count += 1


def _examine_range(
    miner: Miner, share: Share, commits: Iterator[tuple[int, pygit2.Commit]], path: Path, progress: tuple[Any, int]
) -> None:
    """Examine the commits of ``share``'s current range, writing its cases in walk order to ``path`` with
    the suffix ``.jsonl``, and the position in the walk and key of each to ``path`` with ``.keys``.

    Duplicates are dropped within the range only (``seen``); the merge drops those across ranges in walk
    order, so the newest of a repeated case is kept whichever range examined it first.
    """
    seen: set[int] = set()
    keys = array("Q")
    next_report = time.perf_counter() + INTERVAL_S / 2
    with path.with_suffix(".jsonl").open("w", encoding="utf-8", newline="\n") as out:
        for position, commit in commits:
            if position < share.start:
                continue
            if not share.covers(position):
                break
            case = miner.examine_new(commit, seen)
            if case is not None:
                out.write(case.line + "\n")
                keys.extend((position, case.key))
            if miner.counts.walked % 64 == 0 and time.perf_counter() >= next_report:
                next_report = time.perf_counter() + INTERVAL_S / 2
                progress[0].put((progress[1], miner.counts.walked, miner.counts.kept))
    path.with_suffix(".keys").write_bytes(keys.tobytes())


def _list_commits(miner: Miner, head: pygit2.Commit, path: Path) -> int:
    """Write the raw id of every commit to examine to ``path``, in walk order; return how many there are.

    A merge commit (unless merges are mined) is counted here, dropped, and left out: the first test a
    commit meets drops it, so no process need look it up again (issue 23: a quarter of git's history).
    libgit2's object cache is off meanwhile (``walk.uncached``): the walk reads each commit once.
    """
    count = 0
    with path.open("wb") as out, uncached():
        for _, commit in miner.commits(head):
            if miner.drop_merge(commit):
                continue
            out.write(commit.id.raw)
            count += 1
    return count


def _listed_commits(
    repo: pygit2.Repository, path: Path, start: int, growing: Plan | None = None
) -> Iterator[tuple[int, pygit2.Commit]]:
    """Yield (position, commit) from position ``start`` on, reading the ids ``_list_commits`` wrote.

    Looking a commit up by id costs less than half of walking to it (issue 12), and the list is read a
    few thousand ids at a time, so memory does not grow with the history. With ``growing``, the list may
    still be being written: at its end, wait for more until that plan is published (the list complete).
    """
    position = start
    for ids in _id_chunks(path, start, growing):
        for offset in range(0, len(ids), _ID_SIZE):
            try:
                commit = repo[pygit2.Oid(raw=ids[offset : offset + _ID_SIZE])].peel(pygit2.Commit)
            except (KeyError, ValueError, pygit2.GitError) as exc:
                hint = "is the repository complete? try git fsck"
                raise MiningError(f"cannot read the history: {exc} ({hint})") from None
            yield position, commit
            position += 1


def _id_chunks(path: Path, start: int, growing: Plan | None) -> Iterator[bytes]:
    """Yield the list's raw ids from position ``start`` on, a few thousand whole ids at a time.

    With ``growing``, the file is read as it is written: a read that comes short waits for more (or for
    the plan, published once the list is complete); a partly written id is kept for the next read.
    """
    with path.open("rb") as stream:
        stream.seek(start * _ID_SIZE)
        held = b""
        while True:
            complete = growing is None or growing.ready.is_set()  # before the read: then nothing follows it
            data = held + stream.read(_IDS_READ * _ID_SIZE)
            whole = len(data) - len(data) % _ID_SIZE
            held = data[whole:]
            if whole:
                yield data[:whole]
            elif complete:
                return
            else:
                growing.ready.wait(_LIST_WAIT_S)  # type: ignore[union-attr]  # not complete: growing is set
