"""Time the miner against ``git log --no-merges --name-status -M`` on the same synthetic history.

Builds once (cached under the temp directory, keyed by its parameters) a repository of ``--commits``
commits over about ``--files`` files in nested directories, written object by object with pygit2 (no
working tree, no ref update per commit, packed at the end with ``git repack``). Its history mixes feature
and fix commits with what the miner must drop: merges, bot commits, version bumps, reverts, docs-only and
whitespace-only commits, additions, deletions and renames.

Then, in the same run, it times ``git log`` and ``generate_goldset`` on the same commits (HEAD of the same
repository; git skips merges, the miner drops them), each the best of ``--repeat`` runs interleaved, so
both sides run with warm caches. The miner's time is the whole ``generate_goldset`` call in a fresh process
(writing and publishing the gold set included; interpreter start and imports are not, as git's start is a
few milliseconds). It prints the ratio, and the miner's peak memory for a quarter, half and all of the
history. Run it from the repository root::

    python benchmarks/bench_mining.py [--commits 10000] [--files 2000] [--repeat 3] [--workers N]

Given a repository path instead, it mines that real history (all of it, from HEAD) and times
``git log --no-merges --name-status -M`` on it in the same run, the best of ``--repeat`` each, with CPU
time and peak RSS of both, and the miner's RSS (one process) at 25%, 50% and 100% of the walk::

    python benchmarks/bench_mining.py ~/mirrors/git.git [--repeat 3] [--workers N]

Cases record their changed lines, functions and modules, as ``--codesearch-generate`` does by default;
``--no-lines`` mines files only, to show what that costs. ``--patch`` compares a real history with
``git log --no-merges -p -M`` instead (git writing every patch: the work lines and functions stand for;
issue 22's yardstick, at most 1.5x its wall time) and skips the memory run. ``--both`` measures both
modes in one run, each beside its reference (files only against ``--name-status``, the default against
``-p``), with wall, CPU and peak RSS as ratios to git's, then the memory along the walk of each mode.
On a shared machine, compare CPU times: wall times follow the load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import pygit2

BUILDER_VERSION = 2
EPOCH = 1_600_000_000
_TREE = pygit2.enums.FileMode.TREE
_BLOB = pygit2.enums.FileMode.BLOB
_HUMANS = [("Ada Lovelace", "ada@example.com"), ("Alan Turing", "alan@example.com"), ("Grace Hopper", "grace@x.org")]
_BOT = ("renovate[bot]", "29139614+renovate[bot]@users.noreply.github.com")
_SYLLABLES = "ba ce di fo gu ka le mi no pu ra se ti vo zu xan qel vor tim nup".split()


class _Builder:
    """A synthetic project held in memory; each commit rewrites only the trees on the changed paths."""

    def __init__(self, repo: pygit2.Repository, files: int, seed: int) -> None:
        self.repo = repo
        self.rng = random.Random(seed)
        self.words = sorted({"".join(self.rng.choice(_SYLLABLES) for _ in range(3)) for _ in range(3000)})
        self.lines = [self._make_line() for _ in range(20_000)]
        self.dirs: dict[str, dict[str, tuple[pygit2.Oid, int]]] = {"": {}}
        self.trees: dict[str, pygit2.Oid] = {}
        self.dirty: set[str] = set()
        self.text: dict[str, list[str]] = {}
        self.source: list[str] = []
        self.time = EPOCH
        self.serial = 0
        for _ in range(files):
            self.put(self.new_path(), self.body())
        for name in ("README.md", "docs/guide.md", "tests/test_core.py", "pyproject.toml"):
            self.put(name, self.body())

    def new_path(self) -> str:
        """Return a fresh path ``src/<a>/<b>/<word>_<n>.py``: 10 folders of 10 folders of about 20 files."""
        n, words = self.serial, self.words
        self.serial += 1
        return f"src/{words[n // 200 % 10]}/{words[10 + n // 20 % 100]}/{self.rng.choice(words)}_{n}.py"

    def line(self) -> str:
        """Return one line of pseudo-Python from a fixed pool (generating each costs more than writing it)."""
        return self.lines[self.rng.randrange(len(self.lines))]

    def _make_line(self) -> str:
        a, b, c = (self.rng.choice(self.words) for _ in range(3))
        return self.rng.choice(
            (f"def {a}_{b}({c}):\n", f"    {a} = {b}.{c}({self.rng.randint(0, 999)})\n", f"    return {a}_{c}\n",
             f"class {a.title()}{b.title()}:\n", f"    # {a} the {b} when {c} is missing\n")
        )  # fmt: skip

    def body(self) -> str:
        """Return the text of a new file: 30 to 90 lines."""
        return "".join(self.line() for _ in range(self.rng.randint(30, 90)))

    def put(self, path: str, text: str | None) -> None:
        """Write (or, with None, delete) one file and mark its directories for rewriting."""
        folder, _, name = path.rpartition("/")
        parts = folder.split("/") if folder else []
        for depth in range(len(parts) + 1):
            self.dirty.add("/".join(parts[:depth]))
        for depth in range(1, len(parts) + 1):
            parent, child = "/".join(parts[: depth - 1]), parts[depth - 1]
            self.dirs.setdefault("/".join(parts[:depth]), {})
            self.dirs[parent].setdefault(child, (pygit2.Oid(hex="0" * 40), _TREE))
        if text is None:
            del self.dirs[folder][name]
            del self.text[path]
            if path.startswith("src/"):
                self.source.remove(path)
        else:
            if path.startswith("src/") and path not in self.text:
                self.source.append(path)
            self.text[path] = text.splitlines(keepends=True)
            self.dirs[folder][name] = (self.repo.create_blob(text.encode()), _BLOB)

    def write_tree(self, folder: str = "") -> pygit2.Oid:
        """Return the tree of ``folder``, rewriting it (and dirty subfolders) if it changed."""
        if folder in self.dirty or folder not in self.trees:
            builder = self.repo.TreeBuilder()
            for name, (oid, mode) in list(self.dirs[folder].items()):
                if mode == _TREE:
                    child = f"{folder}/{name}" if folder else name
                    if not self.dirs[child]:
                        del self.dirs[folder][name]
                        continue
                    oid = self.write_tree(child)
                builder.insert(name, oid, mode)
            self.trees[folder] = builder.write()
            self.dirty.discard(folder)
        return self.trees[folder]

    def commit(self, message: str, who: tuple[str, str], parents: list[pygit2.Oid]) -> pygit2.Oid:
        """Write the current state as a commit (no ref moved); return its id."""
        self.time += self.rng.randint(60, 3600)
        sig = pygit2.Signature(who[0], who[1], self.time, 0)
        return self.repo.create_commit(None, sig, sig, message, self.write_tree(), parents)

    def change(self) -> tuple[str, tuple[str, str]]:
        """Apply one random change; return its message and author."""
        rng, who = self.rng, self.rng.choice(_HUMANS)
        roll = rng.random()
        source = self.source
        pick = source[rng.randrange(len(source))]
        stem = pick.rsplit("/", 1)[1][:-3]
        if roll < 0.02:
            self.put("pyproject.toml", f'version = "1.{rng.randint(0, 99)}.0"\n')
            return "Bump version to 1.x", who
        if roll < 0.04:
            self.put("requirements.lock", f"numpy=={rng.randint(1, 2)}.{rng.randint(0, 30)}\n")
            return "chore(deps): update numpy", _BOT
        if roll < 0.07:
            self.put("docs/guide.md", self.body())
            return "docs: explain the configuration", who
        if roll < 0.08:
            self.put(pick, "".join(line.rstrip() + "  \n" for line in self.text[pick]))
            return f"Clean up spacing in {stem}", who
        if roll < 0.13:
            self.put(self.new_path(), self.body())
            return f"feat: add the {rng.choice(self.words)} reader (#{rng.randint(1, 999)})", who
        if roll < 0.15:
            self.put(pick, None)
            return f"Remove the unused {stem} helpers", who
        if roll < 0.18:
            text = "".join(self.text[pick])
            self.put(pick, None)
            self.put(pick.rsplit("/", 1)[0] + f"/{rng.choice(self.words)}_{self.serial}.py", text + self.line())
            self.serial += 1
            return f"refactor: move {stem} into its own module", who
        return self.edit(source, who)

    def edit(self, source: list[str], who: tuple[str, str]) -> tuple[str, tuple[str, str]]:
        """Add lines to one to five source files; return a feature or fix message and the author."""
        rng = self.rng
        for path in {source[rng.randrange(len(source))] for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 5)))}:
            lines = self.text[path]
            for _ in range(rng.randint(1, 4)):
                lines.insert(rng.randrange(len(lines) + 1), self.line())
            self.put(path, "".join(lines))
        a, b = rng.choice(self.words), rng.choice(self.words)
        subject = rng.choice((f"fix: handle empty {a} in {b}", f"Speed up {a} lookups", f"Support {a} {b} options",
                              f"Validate the {a} before {b}", f"[core] retry {a} on {b} errors"))  # fmt: skip
        body = [f"The {a} was wrong when the {b} was empty.", f"Fixes #{rng.randint(1, 999)}"]
        body = body if rng.random() < 0.4 else []
        trailer = [f"Signed-off-by: {who[0]} <{who[1]}>"] if rng.random() < 0.3 else []
        return "\n\n".join([subject, *body, *trailer]) + "\n", who


def build_repo(path: Path, commits: int, files: int, seed: int) -> Path:
    """Return ``path`` holding the synthetic history, building it first unless a matching one is cached."""
    params = {"version": BUILDER_VERSION, "commits": commits, "files": files, "seed": seed}
    marker = path / "synthetic.json"
    if marker.is_file() and json.loads(marker.read_text()) == params:
        return path
    shutil.rmtree(path, ignore_errors=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Loose objects are one file each: write them in memory when /dev/shm exists, then keep only the pack.
    memory = Path("/dev/shm")
    scratch = Path(tempfile.mkdtemp(prefix=f".{path.name}-", dir=memory if memory.is_dir() else path.parent))
    staged = path.parent / f".{path.name}.staged"
    pygit2.settings.enable_strict_object_creation(False)  # we create every object we refer to
    try:
        repo = pygit2.init_repository(str(scratch), bare=True, initial_head="main")
        builder = _Builder(repo, files, seed)
        tip = builder.commit("Initial import", _HUMANS[0], [])
        for number in range(1, commits):
            if number % 97 == 0:  # a side commit merged back: a merge for --no-merges to skip
                side = builder.commit(*builder.change(), [tip])
                tip = builder.commit("Merge branch 'topic'", _HUMANS[1], [tip, side])
            else:
                tip = builder.commit(*builder.change(), [tip])
        repo.references.create("refs/heads/main", tip, force=True)
        if shutil.which("git"):
            subprocess.run(["git", "-C", str(scratch), "repack", "-adq"], check=True)
        (scratch / "synthetic.json").write_text(json.dumps(params))
        shutil.rmtree(staged, ignore_errors=True)
        shutil.copytree(scratch, staged)
        staged.rename(path)
    finally:
        pygit2.settings.enable_strict_object_creation(True)
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(staged, ignore_errors=True)
    return path


def _timed(args: list[str]) -> tuple[float, float, float]:
    """Run ``args`` (output discarded); return its wall seconds, CPU seconds and peak RSS in MiB."""
    started = time.perf_counter()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, args)
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _git_commit_count(repo: Path, merges: bool = False) -> int:
    """Return how many commits ``git log --no-merges`` lists, or with ``merges`` all of them (not timed)."""
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "--count", *([] if merges else ["--no-merges"]), "HEAD"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return int(done.stdout)


def mine_once(
    repo: Path, max_commits: int | None, trace: bool, workers: int | None, total: int = 0, lines: bool = True
) -> dict[str, float]:
    """Mine in this process; return seconds, counts and memory (peak RSS growth, Python heap peak).

    With ``total`` (the commits the walk will meet), also the RSS when a quarter, half and all of them
    were walked (``rss_25``, ``rss_50``, ``rss_100``, MiB; one process only sees its own), and the
    anonymous part of each (``anon_25``...: what the miner allocates, without the mapped pack files).
    """
    from pytest_codesearch.mining.filters import FilterConfig
    from pytest_codesearch.mining.generate import ProgressEvent, generate_goldset

    output = Path(tempfile.mkdtemp()) / "mined.jsonl"
    config = FilterConfig(max_commits=max_commits)
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if trace:
        tracemalloc.start()
    started = time.perf_counter()
    marks: dict[str, float] = {}

    def progress(event: ProgressEvent) -> None:
        for share in (25, 50, 100):
            if f"rss_{share}" not in marks and (event.walked * 100 >= total * share or event.done):
                status = _proc_status()
                marks[f"rss_{share}"] = status.get("VmRSS", 0.0) / 1024
                marks[f"anon_{share}"] = status.get("RssAnon", 0.0) / 1024

    stats = generate_goldset(repo, output, config, workers=workers, progress=progress if total else None, lines=lines)
    seconds = time.perf_counter() - started
    peak_heap = tracemalloc.get_traced_memory()[1] if trace else 0
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - baseline
    shutil.rmtree(output.parent)
    merges = stats.dropped.get("merge commit", 0)
    return {"seconds": seconds, "walked": stats.walked, "merges": merges, "kept": stats.kept, "workers": stats.workers,
            "rss_growth_kib": grown, "heap_peak_kib": peak_heap / 1024, **_proc_status(), **marks}  # fmt: skip


def _proc_status() -> dict[str, float]:
    """Return RssAnon and RssFile (KiB) on Linux: mapped pack pages are file memory, not growth."""
    status = Path("/proc/self/status")
    if not status.is_file():
        return {}
    fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
    return {key: float(fields[key].split()[0]) for key in ("VmRSS", "RssAnon", "RssFile") if key in fields}


def mine_in_child(
    repo: Path, max_commits: int | None, trace: bool, workers: int | None, total: int = 0, lines: bool = True
) -> dict[str, float]:
    """Run ``mine_once`` in a fresh interpreter, so caches and peak RSS start from nothing; add its CPU time
    and peak RSS (``cpu``, ``peak_mib``: of its largest process, the mining processes included)."""
    args = [sys.executable, __file__, "--child", str(repo), "--max-commits", str(max_commits or 0)]
    args += ["--trace"] if trace else []
    args += ["--workers", str(workers)] if workers is not None else []
    args += ["--total", str(total)] if total else []
    args += [] if lines else ["--no-lines"]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(args, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code:
            err.seek(0)
            raise subprocess.CalledProcessError(code, args, stderr=err.read())
        out.seek(0)
        result: dict[str, float] = json.loads(out.read().strip().splitlines()[-1])
    result["cpu"] = usage.ru_utime + usage.ru_stime
    result["peak_mib"] = usage.ru_maxrss / 1024
    return result


def bench_real(repo: Path, repeat: int, workers: int | None, lines: bool = True, patch: bool = False) -> None:
    """Time git log and the miner on a real history, best of ``repeat`` each, interleaved; print the figures."""
    listed, total = _git_commit_count(repo), _git_commit_count(repo, merges=True)
    print(f"repository: {repo} ({total:,} commits from HEAD, {listed:,} without merges)")
    _compare(repo, repeat, workers, lines, patch)
    if patch:
        return
    _memory_marks(repo, total, lines)


def bench_both(repo: Path, repeat: int, workers: int | None) -> None:
    """Both modes in one run: files only against ``git log --name-status``, the default (lines, functions and
    modules) against ``git log -p``; then the RSS of one mining process along the walk in each mode."""
    listed, total = _git_commit_count(repo), _git_commit_count(repo, merges=True)
    print(f"repository: {repo} ({total:,} commits from HEAD, {listed:,} without merges)")
    for lines in (False, True):
        _compare(repo, repeat, workers, lines, patch=lines)
    for lines in (False, True):
        _memory_marks(repo, total, lines)


def _compare(repo: Path, repeat: int, workers: int | None, lines: bool, patch: bool) -> None:
    """Print git log's figures and the miner's, each with its ratio to git's (wall, CPU, peak RSS)."""
    git_args = ["log", "--no-merges", "-p" if patch else "--name-status", "-M"]
    git_runs, ours = [], []
    for _ in range(max(repeat, 1)):
        git_runs.append(_timed(["git", "-C", str(repo), *git_args]))
        ours.append(mine_in_child(repo, None, False, workers, lines=lines))
    git_s, git_cpu, git_rss = min(git_runs)
    best = min(ours, key=lambda run: run["seconds"])
    target = "1.5x wall (issue 22)" if patch else "2.5x wall (issue 23)"
    print(f"git {' '.join(git_args)}: {git_s:.2f} s wall, CPU {git_cpu:.2f} s, peak RSS {git_rss:.0f} MiB")
    print(f"miner ({'with' if lines else 'without'} lines, functions and modules), {best['workers']:.0f} "
          f"process(es): {best['seconds']:.2f} s wall ({best['seconds'] / git_s:.2f}x git), CPU {best['cpu']:.2f} s "
          f"({best['cpu'] / git_cpu:.2f}x git), peak RSS of its largest process {best['peak_mib']:.0f} MiB "
          f"({best['peak_mib'] / git_rss:.2f}x git); {best['walked']:,.0f} commits, {best['kept']:,.0f} cases "
          f"(target <= {target})")  # fmt: skip


def _memory_marks(repo: Path, total: int, lines: bool) -> None:
    memory = mine_in_child(repo, None, False, 1, total, lines)  # one process: its RSS is all of it
    marks = ", ".join(f"{share}% {memory.get(f'rss_{share}', 0):.0f} MiB" for share in (25, 50, 100))
    anonymous = " / ".join(f"{memory.get(f'anon_{share}', 0):.0f}" for share in (25, 50, 100))
    print(f"miner RSS ({'with' if lines else 'without'} lines), one process, at {marks} of the walk (mapped pack "
          f"files included, as in git's figure; anonymous {anonymous} MiB); peak {memory['peak_mib']:.0f} MiB")


def main() -> None:
    """Build or reuse the repository, time git and the miner, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repository", type=Path, nargs="?", help="a real repository to mine (default: synthetic)")
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=None, help="miner processes (default: the miner's choice)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--max-commits", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--total", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--no-lines", dest="lines", action="store_false",
                        help="mine files only (--codesearch-generate-lines=false), to see what lines cost")
    parser.add_argument("--patch", action="store_true", help="compare with git log --no-merges -p -M (real history)")
    parser.add_argument("--both", action="store_true",
                        help="real history: files only against --name-status and the default against -p, one run")
    args = parser.parse_args()
    if args.child:
        found = mine_once(args.child, args.max_commits or None, args.trace, args.workers, args.total, args.lines)
        print(json.dumps(found))
        return
    if args.repository and args.both:
        bench_both(args.repository.absolute(), args.repeat, args.workers)
        return
    if args.repository:
        bench_real(args.repository.absolute(), args.repeat, args.workers, args.lines, args.patch)
        return
    cache = Path(tempfile.gettempdir()) / "pytest-codesearch-bench"
    started = time.perf_counter()
    repo = build_repo(cache / f"mining-c{args.commits}-f{args.files}-s{args.seed}", args.commits, args.files, args.seed)
    print(f"repository: {repo} (ready in {time.perf_counter() - started:.1f} s)")
    modes = [args.workers] if args.workers is not None else [None, 1]
    git_times: list[tuple[float, float, float]] = []
    ours: dict[int | None, list[dict[str, float]]] = {mode: [] for mode in modes}
    for _ in range(max(args.repeat, 2)):  # interleaved, so both see the same load; twice at least: warm caches
        git_times.append(_timed(["git", "-C", str(repo), "log", "--no-merges", "--name-status", "-M"]))
        for mode in modes:
            ours[mode].append(mine_in_child(repo, None, False, mode, lines=args.lines))
    git_s, git_cpu, _ = min(git_times)
    listed = _git_commit_count(repo)
    print(f"git log --no-merges --name-status -M: {git_s:.3f} s (CPU {git_cpu:.3f} s) for {listed} commits "
          f"({listed / git_s:,.0f} commits/s)")  # fmt: skip
    for runs in ours.values():
        best = min(runs, key=lambda run: run["seconds"])
        seconds, walked = best["seconds"], best["walked"]
        same = "the same commits" if walked - best["merges"] == listed else "NOT the commits git listed"
        print(f"miner, {best['workers']:.0f} process(es): {seconds:.3f} s for {walked:.0f} commits, "
              f"{best['merges']:.0f} of them merges ({same}; {walked / seconds:,.0f} commits/s, "
              f"{best['kept']:.0f} cases): {seconds / git_s:.2f}x git (target <= 4x); "
              f"CPU {best['cpu']:.2f} s, {best['cpu'] / git_cpu:.2f}x git's")  # fmt: skip
    points = [(f"{args.commits // 4} commits", args.commits // 4), (f"{args.commits // 2} commits", args.commits // 2)]
    for label, limit in [*points, (f"{args.commits} commits (all)", None)]:
        run = mine_in_child(repo, limit, False, 1, lines=args.lines)  # one process: its RSS is all of it
        heap = mine_in_child(repo, limit, True, 1, lines=args.lines)["heap_peak_kib"]
        print(f"memory, {label}, one process: peak RSS growth {run['rss_growth_kib'] / 1024:.1f} MiB "
              f"(at the end: anonymous {run.get('RssAnon', 0) / 1024:.1f} MiB, mapped files "
              f"{run.get('RssFile', 0) / 1024:.1f} MiB), Python heap peak {heap / 1024:.1f} MiB")  # fmt: skip


if __name__ == "__main__":
    main()
