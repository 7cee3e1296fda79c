"""Per-snapshot indexes on disk by tree id: a second run indexes nothing and answers the same (issue 12 item 4)."""

from __future__ import annotations

import json
import os
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from gitrepo import commit, init_repo

from example_project import read_results
from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.index.corpus import build_token_corpus
from pytest_codesearch.agents.index.indexstore import (
    IndexStore,
    _term_hashes,
    decode_corpora,
    encode_corpora,
    index_key,
    shared_index_store,
    use_index_store,
)
from pytest_codesearch.agents.builtin.keyword import KeywordAgent
from pytest_codesearch.agents.builtin.path import PathAgent
from pytest_codesearch.agents.index.tokencache import TokenCache
from pytest_codesearch.agents.index.tokenstore import TokenStore
from pytest_codesearch.repo import SnapshotStore
from pytest_codesearch.repo.reader import remember_view
from pytest_codesearch.agents.index.storedvocab import StoredVocabulary, lookup_table, lookup_table_of, stable_order

QUERIES = ["login token", "session token check", "parse lexer other2", "src/login.py fails"]


def _postings(corpus_docs: list[tuple[str, Counter[str]]]) -> dict[str, dict[str, int]]:
    """Return term -> path -> count of ``corpus_docs`` (what a corpus must give back)."""
    found: dict[str, dict[str, int]] = {}
    for path, counts in corpus_docs:
        for term, count in counts.items():
            found.setdefault(term, {})[path] = count
    return found


def test_corpora_round_trip_with_the_documents_chosen_in_their_order() -> None:
    documents = [("b.py", Counter({"token": 3, "naïve": 1})), ("a.py", Counter({"login": 2, "token": 1})),
                 ("c.py", Counter({"parse": 70000}))]  # fmt: skip
    corpus = build_token_corpus(documents)
    paths = build_token_corpus([("a.py", Counter({"a": 1, "py": 1})), ("c.py", Counter({"c": 1, "py": 1}))])
    loaded = decode_corpora(encode_corpora([(corpus, np.array([1, 2])), (paths, np.array([0, 1]))]))
    assert loaded is not None and [c.paths for c in loaded] == [("a.py", "c.py"), ("a.py", "c.py")]
    content, path_field = loaded
    assert content.doc_lengths.tolist() == [3, 70000] and content.size == 2 and content.documents == ()
    got = {term: {content.paths[d]: int(f) for d, f in zip(*content.postings(term))} for term in content.vocabulary}
    expected = _postings([documents[1], documents[2]])
    assert {t: p for t, p in got.items() if p} == expected  # "naïve" is b.py's only: not in the file
    assert set(content.vocabulary) == {"login", "token", "parse", "a", "c", "py"}  # one vocabulary, both fields
    assert {t: path_field.postings(t)[0].tolist() for t in ("a", "c", "py", "token")} == {
        "a": [0], "c": [1], "py": [0, 1], "token": []
    }
    assert path_field.df[path_field.vocabulary["py"]] == 2


@pytest.mark.parametrize("damage", ["cut", "garbage", "missing"])
def test_a_damaged_or_missing_file_reads_as_absent(tmp_path: Path, damage: str) -> None:
    store = IndexStore(tmp_path)
    corpus = build_token_corpus([("a.py", Counter({"login": 2}))])
    store.save("d1", "ab" * 20, [(corpus, np.array([0]))])
    path = tmp_path / "i1-d1" / "ab" / ("ab" * 19)
    data = path.read_bytes()
    if damage == "cut":
        path.write_bytes(data[:-1])
    elif damage == "garbage":
        path.write_bytes(b"CSIX" + b"\xff" * (len(data) - 4))
    else:
        path.unlink()
    assert store.load("d1", "ab" * 20) is None and store.loaded == 0


def _history(root: Path) -> list[str]:
    repo = init_repo(root)
    fillers = {f"src/other{n}.py": f"def other{n}(): parse(lexer)\n" for n in range(4)}
    files = {**fillers, "src/login.py": "def login(token): check(token)\n", "tests/test_login.py": "login token\n"}
    first = commit(repo, {**files, "README.md": "login with a token\n", "logo.png": b"\x89PNG\x00"}, "1")
    second = commit(repo, {"src/session.py": "class Session: token = None\n"}, "2")
    third = commit(repo, {"src/login.py": "def login(token, session): check(session.token)\n"}, "3")
    return [first, second, third]


@pytest.fixture
def index_store(tmp_path: Path) -> Iterator[Path]:
    restore = use_index_store(tmp_path / "cache", None)
    yield tmp_path / "cache" / "indexes"
    restore()


def test_a_second_process_reads_no_file_and_answers_the_same(tmp_path: Path, index_store: Path) -> None:
    revs = _history(tmp_path / "project")
    snapshots = SnapshotStore(tmp_path / "snapshots", materialize=False)
    answers, caches = [], []
    for _ in range(2):  # fresh agents and token caches over one store: two runs, or two xdist workers
        cache = TokenCache()
        cache.store = TokenStore(tmp_path / "tokens")
        agents = [BM25Agent(token_cache=cache), BM25Agent(token_cache=cache, files="all", exclude_tests=False,
                  fields="bm25f"), KeywordAgent(token_cache=cache), PathAgent()]  # fmt: skip
        for rev in revs:
            view = snapshots.get(tmp_path / "project", rev).view()
            remember_view(view)
            for agent in agents:
                if not isinstance(agent, PathAgent):
                    agent.use_snapshot(view)
                agent.initialize(str(view.root))
                answers.append([(r.files, r.scores) for r in map(agent.retrieve, QUERIES)])
        caches.append(cache)
    store = shared_index_store()
    assert store is not None and (store.saved, store.loaded) == (12, 12)  # 4 agents x 3 trees, each way
    assert [(c.tokenized, c.store.loaded if c.store else -1) for c in caches] == [(9, 0), (0, 0)]  # nothing read again
    assert answers[:12] == answers[12:]
    assert answers[0][0][0][0] == "src/login.py" and "tests/test_login.py" in answers[1][0][0]


def test_a_directory_searched_as_it_is_is_not_saved(tmp_path: Path, index_store: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "login.py").write_text("def login(token): pass\n")
    (tmp_path / "work" / "other.py").write_text("def other(): pass\n")
    agent = KeywordAgent()
    agent.initialize(str(tmp_path / "work"))
    assert agent.retrieve("login").files == ["login.py"]
    assert not index_store.exists()


def test_keys_differ_by_tree_agent_and_parameters() -> None:
    keys = {index_key("a" * 40, "bm25", "source", True), index_key("b" * 40, "bm25", "source", True),
            index_key("a" * 40, "keyword", "source", True), index_key("a" * 40, "bm25", "source", False)}  # fmt: skip
    assert len(keys) == 4


def test_the_store_keeps_the_most_recently_used_files_under_its_bound(tmp_path: Path) -> None:
    store = IndexStore(tmp_path / "indexes", limit=64 * 4096)
    corpus = build_token_corpus([(f"f{n}.py", Counter({f"w{n}": 1})) for n in range(300)])
    for n in range(100):
        store.save("d", f"{n:02x}" + "0" * 38, [(corpus, np.arange(300))])
    files = [p for p in (tmp_path / "indexes").rglob("*") if p.is_file()]
    used = sum(os.lstat(p).st_blocks * 512 for p in files)
    assert 0 < used <= 64 * 4096 * 9 // 8 and len(files) < 100  # checked each eighth written: an eighth over at most
    assert store.load("d", "63" + "0" * 38) is not None  # the last written is kept


def test_a_store_that_fits_its_bound_is_never_trimmed(tmp_path: Path) -> None:
    corpus = build_token_corpus([(f"f{n}.py", Counter({f"w{n}": 1})) for n in range(300)])
    probe = IndexStore(tmp_path / "probe")
    probe.save("d", "00" * 20, [(corpus, np.arange(300))])
    size = sum(os.lstat(p).st_blocks * 512 for p in (tmp_path / "probe").rglob("*") if p.is_file())
    store = IndexStore(tmp_path / "indexes", limit=20 * size)  # 19 files fit: more than 3/4 of the bound
    for n in range(19):
        store.save("d", f"{n:02x}" + "0" * 38, [(corpus, np.arange(300))])
    assert sum(1 for p in (tmp_path / "indexes").rglob("*") if p.is_file()) == 19  # all kept
    assert store.prune() == 0


@pytest.mark.slow
@pytest.mark.parametrize("dist", [[], ["-n", "2"]])
def test_a_warm_run_loads_every_index_and_ranks_the_same(pytester: pytest.Pytester, dist: list[str]) -> None:
    revs = _history(pytester.path / "repo")
    cases = [{"id": f"c{n}-{q}", "query": query, "ground_truth_files": ["src/login.py"], "base_commit": rev}
             for n, rev in enumerate(revs) for q, query in enumerate(QUERIES)]  # fmt: skip
    lines = [json.dumps({"metadata": {"repo": "repo"}})] + [json.dumps(c) for c in cases]
    (pytester.path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    runs = []
    for _ in range(2):
        result = pytester.runpytest_subprocess("--codesearch-agent=bm25,keyword,path", "--codesearch-runs=1",
                                               "cases.jsonl", *dist)  # fmt: skip
        result.assert_outcomes(passed=3 * len(cases))
        records = sorted(read_results(pytester.path)["cases"], key=lambda c: (c["id"], c["agent"]))
        runs.append([(c["id"], c["agent"], c["retrieved"], c["scores"]) for c in records])
        stored = sorted(p for p in (pytester.path / ".codesearch" / "indexes").rglob("*") if p.is_file())
        if len(runs) == 1:
            first = [(p, p.stat().st_ino) for p in stored]
    assert runs[0] == runs[1] and len(runs[0]) == 36
    assert [(p, p.stat().st_ino) for p in stored] == first  # read only: the second run wrote nothing
    indexes = [p for p, _ in first if p.relative_to(pytester.path / ".codesearch" / "indexes").parts[0].startswith("i1-")]
    assert len(indexes) == 9 and len(first) == 9 + 7  # 3 agents x 3 trees; bm25's functions of 7 source blobs


@pytest.mark.parametrize("bound", [1 << 10, 1 << 16, 1 << 24])
def test_the_radix_order_is_numpys_stable_order(bound: int) -> None:
    keys = np.random.default_rng(7).integers(0, bound, 50_000).astype(np.int32)
    assert np.array_equal(stable_order(keys, bound), np.argsort(keys, kind="stable"))


def test_the_radix_order_of_hashes_is_numpys_stable_order() -> None:
    """The lookup table's order of CRC-32 hashes (any 32 bits, some repeated) is numpy's stable one."""
    keys = np.random.default_rng(7).integers(0, 1 << 32, 50_000, dtype=np.uint64).astype(np.uint32)
    keys[25_000:] = keys[:25_000]  # equal hashes keep their order
    assert np.array_equal(stable_order(keys, 1 << 32), np.argsort(keys, kind="stable"))


def test_a_term_only_later_corpora_hold_is_one_term_of_the_file() -> None:
    first = build_token_corpus([("a.py", Counter({"login": 1}))])
    second = build_token_corpus([("a.py", Counter({"session": 2, "login": 1}))])
    third = build_token_corpus([("a.py", Counter({"session": 5}))])
    loaded = decode_corpora(encode_corpora([(c, np.array([0])) for c in (first, second, third)]))
    assert loaded is not None and list(loaded[0].vocabulary) == ["login", "session"]
    assert [c.postings("session")[1].tolist() for c in loaded] == [[], [2], [5]]


def test_an_agent_in_a_child_process_uses_the_runs_stores(pytester: pytest.Pytester) -> None:
    revs = _history(pytester.path / "repo")
    cases = [{"id": f"c{n}", "query": QUERIES[0], "ground_truth_files": ["src/login.py"], "base_commit": rev}
             for n, rev in enumerate(revs)]  # fmt: skip
    lines = [json.dumps({"metadata": {"repo": "repo"}})] + [json.dumps(c) for c in cases]
    (pytester.path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    isolated = ["--codesearch-agent=bm25", "--codesearch-runs=1", "--codesearch-isolate=process", "cases.jsonl"]
    pytester.runpytest(*isolated).assert_outcomes(passed=3)
    cache = pytester.path / ".codesearch"
    indexes = [p for p in (cache / "indexes").rglob("*") if p.is_file() and p.parts[-3].startswith("i1-")]
    assert len(indexes) == 3 and any((cache / "tokens").rglob("*"))  # the child saved what it built
    first = read_results(pytester.path)["cases"]
    pytester.runpytest(*isolated).assert_outcomes(passed=3)
    again = read_results(pytester.path)["cases"]
    assert [c["retrieved"] for c in again] == [c["retrieved"] for c in first]
    assert sorted(p for p in (cache / "indexes").rglob("*") if p.is_file() and p.parts[-3].startswith("i1-")) == sorted(indexes)
    # the child read each commit through the view it was sent, as bm25 does in this process
    pytester.runpytest(*isolated[:2], "--codesearch-isolate=none", "cases.jsonl").assert_outcomes(passed=3)
    assert [c["retrieved"] for c in read_results(pytester.path)["cases"]] == [c["retrieved"] for c in first]
    assert not [p for p in (cache / "snapshots").iterdir() if p.is_dir()]  # no snapshot directory was written


def test_a_stored_vocabulary_finds_every_term_by_hash_and_tells_apart_terms_that_share_one() -> None:
    terms = ["plumless", "token", "naïve", "buckeroo", "", "x" * 300, "\udcff-surrogate"]
    assert zlib.crc32(b"plumless") == zlib.crc32(b"buckeroo")  # a known CRC-32 collision
    encoded = [term.encode("utf-8", "surrogatepass") for term in terms]
    vocabulary = StoredVocabulary(b"\n".join(encoded), lookup_table(encoded), len(terms))
    assert {term: vocabulary[term] for term in terms} == {term: i for i, term in enumerate(terms)}
    assert vocabulary.get("plumles") is None and "buckeroos" not in vocabulary and 3 not in vocabulary
    assert list(vocabulary) == terms and len(vocabulary) == 7
    with pytest.raises(KeyError):
        vocabulary["missing"]
    with pytest.raises(ValueError, match="takes 88 bytes"):
        StoredVocabulary(b"", b"", 7)
    empty = StoredVocabulary(b"", lookup_table([]), 0)
    assert empty.get("token") is None and list(empty) == []


def test_the_lookup_table_of_joined_terms_and_their_hashes_is_that_of_the_terms() -> None:
    for terms in (["plumless", "token", "naïve", "buckeroo", "", "x" * 300, "\udcff-surrogate"], [""], ["", ""], []):
        encoded = [term.encode("utf-8", "surrogatepass") for term in terms]
        hashes = np.array([zlib.crc32(term) for term in encoded], dtype=np.uint32)
        assert lookup_table_of(b"\n".join(encoded), hashes) == lookup_table(encoded)


def test_a_growing_vocabularys_terms_are_hashed_as_they_are_added() -> None:
    vocabulary = {"login": 0, "token": 1}
    terms = ["token", "naïve", "extra"]  # the vocabulary's terms 1 and 2, then one only a later corpus holds
    for added in ("naïve", "session"):
        vocabulary[added] = len(vocabulary)
        found = _term_hashes(vocabulary, np.array([1, 2]), terms)
        assert found.tolist() == [zlib.crc32(term.encode()) for term in terms] and found.dtype == np.uint32
