"""Built-in agents over many snapshots of one history: work shared by blob id, results as if fresh."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import pygit2
import pytest
from gitrepo import commit, init_repo

from example_project import read_results
from pytest_codesearch.agents.index import corpus
from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.index.corpus import IndexCache
from pytest_codesearch.agents.builtin.keyword import KeywordAgent
from pytest_codesearch.agents.index.snapshot_files import SnapshotFile, git_blob_id, list_snapshot
from pytest_codesearch.agents.index.tokencache import TokenCache
from pytest_codesearch.agents.index.tokenstore import TokenStore
from pytest_codesearch.repo import Snapshot, SnapshotStore

Agent = BM25Agent | KeywordAgent
MAKERS: dict[str, Callable[[TokenCache], Agent]] = {
    "bm25": lambda cache: BM25Agent(max_bytes=4_000, token_cache=cache),
    "keyword": lambda cache: KeywordAgent(max_bytes=4_000, token_cache=cache),
}
WORDS = "login token session cache retry parser lexer index snapshot commit branch merge".split()
QUERIES = ["login token", "cache retry retry", "snapshot commit merge", "parser lexer index", "session", "py"]


def _history(path: Path) -> tuple[pygit2.Repository, list[str]]:
    """A repository of three commits: edit, rename (same blob), add, delete, binary and oversized files."""
    repo = init_repo(path)
    first = commit(repo, {
        "src/auth/login.py": "def login(token):\n    return session(token)\n",
        "src/auth/session.py": "class Session:\n    cache = {}\n",
        "src/parse/lexer.py": "def lex(source):\n    return parser_tokens(source)\n",
        "src/util.py": "RETRY = 3\n",
        "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00login token",
        "data/huge.txt": "token " * 1000,
        "empty.py": "",
    }, "First")
    second = commit(repo, {
        "src/auth/login.py": "def login(token, retry):\n    return session(token, retry=retry)\n",
        "src/parse/lexer.py": None,
        "src/parse/scan.py": "def lex(source):\n    return parser_tokens(source)\n",  # renamed, same blob
        "src/index.py": "def build_index(snapshot):\n    return commit_index(snapshot)\n",
    }, "Second")
    third = commit(repo, {"src/util.py": None, "src/merge.py": "def merge(branch):\n    retry(branch)\n"}, "Third")
    return repo, [first, second, third]


@pytest.fixture
def lazy_store(tmp_path: Path) -> SnapshotStore:
    return SnapshotStore(tmp_path / "cache", materialize=False)


def _answers(agent: Agent, snapshot: Snapshot) -> list[tuple[list[str], list[float], list[str], list[str]]]:
    """Files with their scores, and functions and modules (bm25's come from its function documents)."""
    agent.initialize(str(snapshot.root))
    return [(r.files, r.scores, r.functions, r.modules) for r in map(agent.retrieve, QUERIES)]


def test_shared_blobs_are_tokenised_once_across_snapshots_and_agents(tmp_path: Path, lazy_store: SnapshotStore) -> None:
    _, commits = _history(tmp_path / "project")
    first, second = (lazy_store.get(tmp_path / "project", c) for c in commits[:2])
    cache = TokenCache()
    bm25, keyword = MAKERS["bm25"](cache), MAKERS["keyword"](cache)
    bm25.initialize(str(first.root))
    # login, session, lexer, util and the empty file; the PNG is binary, huge.txt is over max_bytes.
    assert cache.tokenized == 5
    keyword.initialize(str(first.root))
    assert cache.tokenized == 5
    bm25.initialize(str(second.root))
    keyword.initialize(str(second.root))
    assert cache.tokenized == 7  # the new login.py and index.py; scan.py is lexer.py's blob
    assert bm25.retrieve("lex source").files == ["src/parse/scan.py"]


@pytest.mark.parametrize("kind", ["bm25", "keyword"])
def test_a_derived_index_answers_exactly_as_a_fresh_agent(tmp_path: Path, lazy_store: SnapshotStore, kind: str) -> None:
    _, commits = _history(tmp_path / "project")
    snapshots = [lazy_store.get(tmp_path / "project", c) for c in commits]
    reused = MAKERS[kind](TokenCache())
    for snapshot in [*snapshots, snapshots[0], snapshots[2]]:
        assert _answers(reused, snapshot) == _answers(MAKERS[kind](TokenCache()), snapshot)
    corpora = [reused._indexer.index(s.root) for s in snapshots]
    assert [c.live is not None for c in corpora] == [True, True, True]  # all derived from the first base


def test_binary_files_do_not_keep_a_snapshot_from_being_derived(
    tmp_path: Path, lazy_store: SnapshotStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(corpus, "MIN_DELTA", 0)
    monkeypatch.setattr(corpus, "MAX_DELTA", 0.1)
    repo = init_repo(tmp_path / "project")
    images: dict[str, bytes | str | None] = {f"img/{n}.png": b"\x89PNG\x00%d" % n for n in range(30)}
    first = commit(repo, {**images, "a.py": "login\n", "b.py": "token\n"}, "First")
    second = commit(repo, {"img/0.png": b"\x89PNG\x00new"}, "Second")
    agent = MAKERS["keyword"](TokenCache())
    for rev in (first, second):
        agent.initialize(str(lazy_store.get(tmp_path / "project", rev).root))
    assert agent.index.live is not None and agent.index.delta is None  # derived: one new blob, and binary
    assert agent.retrieve("token login").files == ["a.py", "b.py"]


@pytest.mark.parametrize("kind", ["bm25", "keyword"])
def test_ties_between_base_and_new_documents_are_broken_by_path(
    tmp_path: Path, lazy_store: SnapshotStore, kind: str
) -> None:
    repo = init_repo(tmp_path / "project")
    others = {f"other{n}.py": "lion\n" for n in range(6)}  # zebra in few files: a positive idf
    first = commit(repo, {"m.py": "zebra\n", "z.py": "zebra\n", **others}, "First")
    second = commit(repo, {"a.py": "zebra\n", "n.py": "zebra\n", "z.py": None}, "Second")
    agent = MAKERS[kind](TokenCache())
    for rev in (first, second):
        agent.initialize(str(lazy_store.get(tmp_path / "project", rev).root))
    derived = agent.index if isinstance(agent, KeywordAgent) else agent.index.corpus
    assert derived.delta is not None and derived.paths[-2:] == ("a.py", "n.py")  # numbered after the base
    result = agent.retrieve("zebra")
    assert result.files == ["a.py", "m.py", "n.py"] and len(set(result.scores)) == 1


def _random_history(path: Path, rng: random.Random, commits: int) -> list[str]:
    """A history of small random edits, adds, deletes and renames over about 40 files."""
    repo = init_repo(path)
    files = {f"pkg{i % 4}/mod{i}.py": " ".join(rng.choices(WORDS, k=rng.randint(0, 30))) for i in range(40)}
    ids = [commit(repo, dict(files), "Initial")]
    for number in range(commits - 1):
        change: dict[str, str | None] = {}
        for _ in range(rng.randint(1, 4)):
            name = rng.choice(sorted(files))
            roll = rng.random()
            if roll < 0.15 and len(files) > 5:
                del files[name]
                change[name] = None
            elif roll < 0.3:
                renamed = f"pkg{rng.randint(0, 5)}/moved{number}_{len(change)}.py"
                files[renamed] = files.pop(name)
                change[name], change[renamed] = None, files[renamed]
            else:
                files[name] = change[name] = " ".join(rng.choices(WORDS, k=rng.randint(1, 30)))
        ids.append(commit(repo, change, f"Change {number}"))
    return ids


@pytest.mark.parametrize(
    ("min_delta", "max_delta"), [(32, 0.05), (0, 0.0), (3, 0.05)], ids=["derive", "rebuild", "mixed"]
)
def test_random_histories_in_random_order_score_exactly_as_fresh(
    tmp_path: Path, lazy_store: SnapshotStore, monkeypatch: pytest.MonkeyPatch, min_delta: int, max_delta: float
) -> None:
    monkeypatch.setattr(corpus, "MIN_DELTA", min_delta)
    monkeypatch.setattr(corpus, "MAX_DELTA", max_delta)
    rng = random.Random(4)
    commits = _random_history(tmp_path / "project", rng, 25)
    order = rng.choices(commits, k=40)
    shared = TokenCache()
    agents = [MAKERS["bm25"](shared), MAKERS["keyword"](shared)]
    for rev in order:
        snapshot = lazy_store.get(tmp_path / "project", rev)
        for agent, kind in zip(agents, MAKERS):
            assert _answers(agent, snapshot) == _answers(MAKERS[kind](TokenCache()), snapshot), rev
    assert shared.tokenized == len({f.blob for rev in set(order) for f in _text_files(lazy_store, tmp_path, rev)})


def _text_files(store: SnapshotStore, tmp_path: Path, rev: str) -> list[SnapshotFile]:
    root = store.get(tmp_path / "project", rev).root
    return list(list_snapshot(root, 4_000).files)


def test_token_cache_keeps_its_postings_bound_and_evicts_least_recently_used() -> None:
    cache = TokenCache(max_postings=6)
    texts = {"a": b"alpha beta gamma", "b": b"delta epsilon", "c": b"zeta eta theta iota"}
    loads: list[str] = []

    def tokens(blob: str) -> None:
        cache.tokens(blob, lambda: loads.append(blob) or texts[blob])

    for blob in "abc":
        tokens(blob)
    assert cache.postings == 6 and len(cache) == 2 and "a" not in cache  # 3 + 2 + 4 > 6: "a" went first
    tokens("b")
    tokens("a")  # read again; "c" is now the least recently used
    assert loads == ["a", "b", "c", "a"] and cache.tokenized == 4
    assert cache.postings == 5 and "c" not in cache


def test_documents_count_towards_the_bound_and_go_before_blobs() -> None:
    cache = TokenCache(max_postings=10)
    document = cache.document("b1", "src/one_two.py", 3, lambda: b"alpha beta")
    assert document is not None
    ids, counts = document
    names = {v: k for k, v in cache.vocabulary.items()}
    assert {names[int(i)]: int(c) for i, c in zip(ids, counts)} == {
        "alpha": 1, "beta": 1, "src": 3, "one": 3, "two": 3, "one_two": 3, "py": 3,
    }
    assert cache.postings == 2 + 7 and cache.documents == 1
    cache.document("b2", "x.py", 3, lambda: b"gamma")  # 1 + 2 more: the first document is dropped
    assert cache.documents == 1 and len(cache) == 2 and cache.postings == 2 + 1 + 2


def test_binary_blobs_are_remembered_and_unreadable_ones_are_not() -> None:
    cache = TokenCache()
    assert cache.tokens("bin", lambda: b"\x00\x01 token") is None
    assert cache.tokens("bin", lambda: pytest.fail("read again")) is None
    assert cache.tokens("gone", lambda: None) is None
    assert "gone" not in cache and cache.tokenized == 0


def test_a_binary_blob_is_tokenised_for_a_file_that_is_text_by_name(tmp_path: Path) -> None:
    cache = TokenCache()
    cache.store = TokenStore(tmp_path)
    content = b"\x00\x01 token"
    assert cache.document("bin", "data/blob.dat", 0, lambda: content) is None  # binary: not indexed
    found = cache.document("bin", "src/fixture.py", 0, lambda: content)  # text by name: indexed all the same
    assert found is not None and [_term(cache, i) for i in found[0]] == ["token"]
    assert cache.tokens("bin", lambda: pytest.fail("read again")) is None  # still binary to other paths
    stored = cache.store.load("bin")
    assert stored is not None and stored.binary and stored.tokens == []  # the store keeps the content's verdict


def _term(cache: TokenCache, term_id: int) -> str:
    return next(term for term, number in cache.vocabulary.items() if number == term_id)


def test_a_full_vocabulary_starts_afresh_and_older_indexes_still_answer(
    tmp_path: Path, lazy_store: SnapshotStore
) -> None:
    _, commits = _history(tmp_path / "project")
    first, second = (lazy_store.get(tmp_path / "project", c) for c in commits[:2])
    cache = TokenCache(max_terms=5)
    agent = MAKERS["bm25"](cache)
    before = _answers(agent, first)
    old_vocabulary = cache.vocabulary
    assert _answers(agent, second) == _answers(MAKERS["bm25"](TokenCache()), second)
    assert cache.vocabulary is not old_vocabulary and agent.index.corpus.live is None  # rebuilt, not derived
    assert _answers(agent, first) == before


def test_index_cache_keeps_the_last_capacity_indexes(tmp_path: Path) -> None:
    built: list[str] = []
    cache: IndexCache[str] = IndexCache(lambda path: built.append(path.name) or path.name, capacity=2)
    for name in ["a", "b", "a", "c", "b", "a"]:
        (tmp_path / name).mkdir(exist_ok=True)
        assert cache.get(tmp_path / name) == name
    assert built == ["a", "b", "c", "b", "a"] and len(cache) == 2
    assert cache.recent() == ["a", "b"]
    with pytest.raises(ValueError, match="capacity"):
        IndexCache(str, capacity=0)


def test_a_listed_snapshot_is_searched_from_the_object_database(tmp_path: Path, lazy_store: SnapshotStore) -> None:
    _, commits = _history(tmp_path / "project")
    snapshot = lazy_store.get(tmp_path / "project", commits[1])
    assert not snapshot.root.exists() and snapshot.root.with_suffix(".json").is_file()
    from_objects = _answers(MAKERS["bm25"](TokenCache()), snapshot)
    eager = SnapshotStore(tmp_path / "eager").get(tmp_path / "project", commits[1])
    assert eager.files == snapshot.files and eager.root.is_dir()
    assert from_objects == _answers(MAKERS["bm25"](TokenCache()), eager)
    assert lazy_store.directory(snapshot) == snapshot.root
    assert {p: (snapshot.root / p).read_bytes() for p in snapshot.files} == {
        p: (eager.root / p).read_bytes() for p in eager.files
    }


def test_a_plain_directory_shares_blobs_with_snapshots_of_the_same_files(
    tmp_path: Path, lazy_store: SnapshotStore
) -> None:
    repo, commits = _history(tmp_path / "project")
    snapshot = SnapshotStore(tmp_path / "eager").get(tmp_path / "project", commits[2])
    copy = tmp_path / "copy"
    for path in snapshot.files:
        (copy / path).parent.mkdir(parents=True, exist_ok=True)
        (copy / path).write_bytes((snapshot.root / path).read_bytes())
    assert git_blob_id(b"def merge") == str(repo.create_blob(b"def merge"))
    cache = TokenCache()
    agent = MAKERS["keyword"](cache)
    agent.initialize(str(lazy_store.get(tmp_path / "project", commits[2]).root))
    tokenized = cache.tokenized
    assert _answers(agent, Snapshot(copy, copy, None, None, frozenset(), frozenset())) == _answers(
        MAKERS["keyword"](TokenCache()), snapshot
    )
    assert cache.tokenized == tokenized


def _mined_goldset(root: Path, commits: list[str]) -> None:
    cases = [
        {"id": f"c{n}-{q}", "query": query, "ground_truth_files": ["src/auth/login.py"], "base_commit": rev}
        for n, rev in enumerate(commits) for q, query in enumerate(QUERIES[:4])
    ]
    lines = [json.dumps({"metadata": {"repo": "project"}})] + [json.dumps(c) for c in cases]
    (root / "mined.jsonl").write_text("\n".join(lines) + "\n")


def test_items_of_one_snapshot_share_an_xdist_group(pytester: pytest.Pytester) -> None:
    _, commits = _history(pytester.path / "project")
    _mined_goldset(pytester.path, commits)
    items, _ = pytester.inline_genitems("--codesearch-agent=bm25", "--codesearch-agent=keyword")
    groups = {item.name: item.get_closest_marker("xdist_group").kwargs["name"] for item in items}  # type: ignore[union-attr]
    assert len(groups) == 24
    by_commit = [{groups[f"c{n}-{q}[{a}]"] for q in range(4) for a in ("bm25", "keyword")} for n in range(3)]
    assert [len(names) for names in by_commit] == [1, 1, 1]
    for rev, (name,) in zip(commits, by_commit):
        assert re.fullmatch(rf"project-{rev[:12]}-[0-9a-f]{{8}}", name), name
    assert len(set.union(*by_commit)) == 3


@pytest.mark.slow
def test_loadgroup_keeps_a_snapshot_on_one_worker_and_matches_the_serial_run(pytester: pytest.Pytester) -> None:
    _, commits = _history(pytester.path / "project")
    _mined_goldset(pytester.path, commits)
    agents = ["--codesearch-agent=bm25,keyword", "--codesearch-runs=1", "-p", "xdist"]
    serial = pytester.runpytest_subprocess(*agents, "--codesearch-report-dir=serial")
    serial.assert_outcomes(passed=24)
    parallel = pytester.runpytest_subprocess(*agents, "-n", "2", "--dist", "loadgroup", "--codesearch-report-dir=par")
    parallel.assert_outcomes(passed=24)

    def records(report_dir: str) -> dict[tuple[str, str], dict[str, object]]:
        return {(c["id"], c["agent"]): c for c in read_results(pytester.path, report_dir)["cases"]}

    one, two = records("serial"), records("par")
    assert one.keys() == two.keys() and len(one) == 24
    for key, case in one.items():
        assert (two[key]["retrieved"], two[key]["metrics"]) == (case["retrieved"], case["metrics"]), key
    workers: dict[object, set[object]] = {}
    for case in two.values():
        workers.setdefault(case["base_commit"], set()).add(case["worker"])
    assert all(len(found) == 1 for found in workers.values()), workers
    assert set.union(*workers.values()) == {"gw0", "gw1"}


def _history_with_tests(path: Path, rng: random.Random, commits: int) -> list[str]:
    """A random history of source and test files (some moved between the two), function by function."""
    repo = init_repo(path)

    def text() -> str:
        return "".join(f"def {rng.choice(WORDS)}_{n}():\n    {' '.join(rng.choices(WORDS, k=8))}\n" for n in range(3))

    files = {(f"tests/test_mod{i}.py" if i % 3 == 0 else f"pkg/mod{i}.py"): text() for i in range(24)}
    ids = [commit(repo, dict(files), "Initial")]
    for number in range(commits - 1):
        change: dict[str, str | None] = {}
        for _ in range(rng.randint(1, 3)):
            name = rng.choice(sorted(files))
            if rng.random() < 0.3:  # moved into tests/ or out of it
                moved = f"tests/test_moved{number}.py" if name.startswith("pkg/") else f"pkg/moved{number}.py"
                files[moved] = files.pop(name)
                change[name], change[moved] = None, files[moved]
            else:
                files[name] = change[name] = text()
        ids.append(commit(repo, change, f"Change {number}"))
    return ids


def test_bm25_reads_no_test_file_it_never_ranks_and_answers_as_an_index_holding_them(
    tmp_path: Path, lazy_store: SnapshotStore
) -> None:
    rng = random.Random(11)
    commits = _history_with_tests(tmp_path / "project", rng, 12)
    shared = TokenCache()
    agent = BM25Agent(token_cache=shared)
    for rev in rng.choices(commits, k=20):
        snapshot = lazy_store.get(tmp_path / "project", rev)
        holding = BM25Agent(token_cache=TokenCache())
        holding._indexer.skip = None  # test files indexed, as before they were skipped
        assert _answers(agent, snapshot) == _answers(holding, snapshot), rev
    sources = {f.blob for rev in commits for f in _text_files(lazy_store, tmp_path, rev) if f.path.startswith("pkg/")}
    assert shared.tokenized <= len(sources) and all(blob in sources for blob in shared._blobs)


def test_bm25_over_a_snapshot_whose_only_source_files_are_tests_answers_nothing_as_before(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_cache.py").write_text("def test_cache():\n    install_cache()\n")
    (tmp_path / "guide.md").write_text("install the cache\n")
    agent = BM25Agent(token_cache=TokenCache())
    agent.initialize(str(tmp_path))
    assert agent.retrieve("install cache").files == []  # the test file is the corpus, and is never ranked
    assert "install_cache" in agent.token_cache.vocabulary and "the" not in agent.token_cache.vocabulary
