"""The built-in BM25 and keyword agents, and the corpus they read, on a small tree."""

from __future__ import annotations

import math
import os
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rank_bm25 import BM25Okapi  # type: ignore[import-untyped]

from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.index.bm25score import bm25_scores, build_bm25_index
from pytest_codesearch.agents.contract import RetrievalAgent
from pytest_codesearch.agents.index.corpus import IndexCache, build_token_corpus, iter_text_files
from pytest_codesearch.agents.builtin.keyword import KeywordAgent
from pytest_codesearch.agents.index.tokenize import path_tokens, tokenize

MAX_BYTES = 2_000

TEXT_FILES = {
    "src/storage/snapshot_store.py": (
        "class SnapshotStore:\n"
        "    def persist(self, snapshot):\n"
        "        # write the snapshot to disk and verify its checksum\n"
        "        return checksum(snapshot)\n"
    ),
    "src/network/http_client.py": (
        "class HttpClient:\n"
        "    def get(self, url, timeout):\n"
        "        # retry with exponential backoff on HTTPServerError\n"
        "        retry(url, timeout=timeout, backoff=2)\n"
    ),
    "src/parsing/lexer.py": "def lex(source):\n    # split source into grammar tokens\n    return scan(source)\n",
    "docs/guide.md": "# Guide\n\nInstallation and quickstart for new users.\n",
    "src/kangaroo.py": "value = 1\n",
    "dup/one.txt": "zebra crossing\n",
    "dup/two.txt": "zebra crossing\n",
}

SKIPPED_FILES = {
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00checksum retry grammar",
    "assets/blob.dat": bytes(range(0x80, 0x100)) * 4 + b"\x00 grammar checksum",
    "data/huge.txt": b"retry checksum grammar kangaroo\n" * 200,
    ".git/config": b"[core]\n\tchecksum = retry grammar kangaroo\n",
    "src/.git": b"gitdir: ../.git/modules/src checksum\n",
}

Agent = BM25Agent | KeywordAgent
AGENTS: list[Callable[[], Agent]] = [
    lambda: BM25Agent(max_bytes=MAX_BYTES, files="all"),
    lambda: KeywordAgent(max_bytes=MAX_BYTES),
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small checkout: distinctive text files, plus files every agent must skip."""
    root = tmp_path / "repo"
    for relative, text in TEXT_FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    for relative, data in SKIPPED_FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(data)
    (root / ".git" / "objects").mkdir()
    (root / ".git" / "objects" / "grammar.txt").write_text("grammar checksum\n")
    try:
        (root / "linked_kangaroo.py").symlink_to(root / "src" / "kangaroo.py")
        (root / "linked_dir").symlink_to(root / "src", target_is_directory=True)
    except OSError:  # no symlinks on this file system; the rest still applies
        pass
    return root


@pytest.fixture(params=AGENTS, ids=["bm25", "keyword"])
def agent(request: pytest.FixtureRequest, repo: Path) -> Agent:
    """An agent of each kind, initialized on ``repo``."""
    made: Agent = request.param()
    made.initialize(str(repo))
    return made


def test_iter_text_files_yields_sorted_text_files_and_skips_the_rest(repo: Path) -> None:
    files = dict(iter_text_files(repo, max_bytes=MAX_BYTES))
    assert list(files) == sorted(TEXT_FILES)
    assert files == TEXT_FILES


def test_iter_text_files_keeps_a_few_undecodable_bytes(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes("café crème brûlée, naïve résumé".encode("latin-1"))
    [(path, text)] = iter_text_files(tmp_path)
    assert path == "latin1.txt"
    assert text.count("\ufffd") == 7


def test_iter_text_files_takes_undecodable_bytes_without_a_nul_for_text(tmp_path: Path) -> None:
    (tmp_path / "blob.dat").write_bytes(bytes(range(0x80, 0x100)) + b" checksum")  # git's rule: text
    assert list(iter_text_files(tmp_path)) == [("blob.dat", "\ufffd" * 128 + " checksum")]


def test_iter_text_files_rejects_a_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError, match="missing"):
        list(iter_text_files(tmp_path / "missing"))


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("verify the checksum of a snapshot", "src/storage/snapshot_store.py"),
        ("retry with backoff on timeout", "src/network/http_client.py"),
        ("HTTPServerError", "src/network/http_client.py"),
        ("grammar tokens", "src/parsing/lexer.py"),
        ("installation quickstart", "docs/guide.md"),
    ],
)
def test_the_best_file_ranks_first(agent: Agent, query: str, best: str) -> None:
    result = agent.retrieve(query)
    assert result.files[0] == best
    assert len(result.scores) == len(result.files)
    assert all(score > 0 for score in result.scores)
    assert result.scores == sorted(result.scores, reverse=True)


def test_a_word_of_the_path_alone_finds_the_file(agent: Agent) -> None:
    assert agent.retrieve("kangaroo").files == ["src/kangaroo.py"]


def test_bm25_without_path_weight_ignores_paths(repo: Path) -> None:
    agent = BM25Agent(path_weight=0, max_bytes=MAX_BYTES)
    agent.initialize(str(repo))
    assert agent.retrieve("kangaroo").files == []


def test_skipped_files_never_answer(agent: Agent) -> None:
    answered = agent.retrieve("checksum retry grammar kangaroo gitdir core").files
    assert set(answered) <= set(TEXT_FILES)


def test_a_query_matching_nothing_answers_nothing(agent: Agent) -> None:
    assert agent.retrieve("platypus").files == []
    assert agent.retrieve("the of and").files == []


def test_ties_are_broken_by_path(agent: Agent) -> None:
    result = agent.retrieve("zebra")
    assert result.files == ["dup/one.txt", "dup/two.txt"]
    assert result.scores[0] == result.scores[1]


def test_keyword_scores_sum_the_idf_of_distinct_query_tokens_present(repo: Path) -> None:
    agent = KeywordAgent(max_bytes=MAX_BYTES)
    agent.initialize(str(repo))
    result = agent.retrieve("timeout timeout retry")
    assert result.files == ["src/network/http_client.py"]
    # 7 text files, each token in one of them: ln(7 / 1) twice, however often it occurs.
    assert result.scores == pytest.approx([2 * math.log(7)], rel=1e-12)


def test_keyword_ranks_a_rare_token_above_common_ones(tmp_path: Path) -> None:
    for name, text in [("a.py", "value value value value"), ("b.py", "value"), ("c.py", "frobnicate value")]:
        (tmp_path / name).write_text(text)
    agent = KeywordAgent()
    agent.initialize(str(tmp_path))
    assert agent.retrieve("frobnicate value").files[0] == "c.py"


def test_top_n_caps_the_answer(repo: Path) -> None:
    for made in (BM25Agent(top_n=2, max_bytes=MAX_BYTES), KeywordAgent(top_n=2, max_bytes=MAX_BYTES)):
        made.initialize(str(repo))
        assert len(made.retrieve("snapshot retry zebra grammar guide").files) == 2


@pytest.mark.parametrize("make", AGENTS, ids=["bm25", "keyword"])
def test_two_agents_answer_identically(repo: Path, make: Callable[[], Agent]) -> None:
    first, second = make(), make()
    first.initialize(str(repo))
    second.initialize(str(repo))
    for query in ("snapshot checksum", "retry timeout", "zebra", "src"):
        assert first.retrieve(query) == second.retrieve(query)


def test_initialize_again_reuses_the_index(agent: Agent, repo: Path, tmp_path: Path) -> None:
    index = agent.index
    other = tmp_path / "other"
    other.mkdir()
    for name, text in [("readme.txt", "zebra\n"), ("notes.txt", "lion\n"), ("todo.txt", "okapi\n")]:
        (other / name).write_text(text)
    agent.initialize(str(other))
    assert agent.retrieve("zebra").files == ["readme.txt"]
    agent.initialize(os.path.join(str(repo), "src", ".."))
    assert agent.index is index
    agent.reset()
    assert agent.index is index


def test_index_cache_builds_each_directory_once(repo: Path) -> None:
    built: list[Path] = []

    def build(directory: Path) -> int:
        built.append(directory)
        return len(built)

    cache: IndexCache[int] = IndexCache(build)
    assert cache.get(repo) == cache.get(str(repo / "src" / "..")) == 1
    assert cache.get(repo / "src") == 2
    assert built == [repo.resolve(), (repo / "src").resolve()] and len(cache) == 2


@pytest.mark.parametrize("make", AGENTS, ids=["bm25", "keyword"])
def test_retrieve_before_initialize_says_what_to_do(make: Callable[[], Agent]) -> None:
    agent = make()
    assert isinstance(agent, RetrievalAgent)
    with pytest.raises(RuntimeError, match=r"initialize\(repo_path\)"):
        agent.retrieve("anything")


def test_an_empty_directory_answers_nothing(tmp_path: Path) -> None:
    for made in (BM25Agent(), KeywordAgent()):
        made.initialize(str(tmp_path))
        assert made.retrieve("anything").files == []


def test_bad_parameters_are_rejected() -> None:
    with pytest.raises(ValueError, match="path_weight"):
        BM25Agent(path_weight=-1)
    with pytest.raises(ValueError, match="top_n"):
        KeywordAgent(top_n=0)


def _random_corpus(rng: random.Random) -> list[list[str]]:
    """Documents over a skewed vocabulary: a few terms sit in most documents (negative idf)."""
    vocabulary = [f"t{i}" for i in range(60)]
    weights = [1 / (rank + 1) ** 1.2 for rank in range(len(vocabulary))]
    documents = [rng.choices(vocabulary, weights, k=rng.randint(1, 80)) for _ in range(150)]
    return [*documents, []]


@pytest.mark.parametrize(("k1", "b"), [(1.5, 0.75), (1.2, 0.3), (2.0, 0.9)])
def test_bm25_scores_equal_rank_bm25(k1: float, b: float) -> None:
    rng = random.Random(7)
    documents = _random_corpus(rng)
    corpus = build_token_corpus((f"doc{i}", Counter(doc)) for i, doc in enumerate(documents))
    index = build_bm25_index(corpus, k1=k1, b=b)
    reference = BM25Okapi(documents, k1=k1, b=b)
    assert (corpus.document_frequencies() > len(documents) / 2).any()  # the idf floor is used
    for _ in range(30):
        query = rng.choices([f"t{i}" for i in range(70)], k=rng.randint(1, 6)) + ["t0", "t0"]
        expected = reference.get_scores(query)
        np.testing.assert_allclose(bm25_scores(index, query), expected, rtol=1e-12, atol=1e-12)


BM25_ONLY: dict[str, Any] = {"definition_weight": 0.0, "mention_weight": 0.0}
"""Parameters that leave files in BM25's order (no re-ranking of the best files by their definitions)."""


@pytest.mark.parametrize(("k1", "b", "path_weight"), [(1.2, 0.75, 4.0), (1.5, 0.3, 0.5)])
def test_bm25_agent_scores_equal_rank_bm25_of_text_plus_weighted_path(
    repo: Path, k1: float, b: float, path_weight: float
) -> None:
    files = list(iter_text_files(repo, max_bytes=MAX_BYTES))
    text = BM25Okapi([tokenize(text) for _, text in files], k1=k1, b=b)
    paths = BM25Okapi([path_tokens(path) for path, _ in files], k1=k1, b=b)
    # the BM25 stage alone: no re-ranking by definitions (tests/test_bm25_definitions.py)
    agent = BM25Agent(k1=k1, b=b, path_weight=path_weight, max_bytes=MAX_BYTES, files="all", **BM25_ONLY)
    agent.initialize(str(repo))
    query = "snapshot checksum retry src storage"
    result = agent.retrieve(query)
    combined = text.get_scores(tokenize(query)) + path_weight * paths.get_scores(tokenize(query))
    expected = dict(zip([path for path, _ in files], combined))
    assert result.files == sorted((p for p in expected if expected[p] > 0), key=lambda p: (-expected[p], p))
    np.testing.assert_allclose(result.scores, [expected[path] for path in result.files], rtol=1e-12)


TESTS_TOO = {
    "pkg/cache.py": "def evict(entry):\n    drop(entry)\n",
    "pkg/tests/test_cache.py": "def test_evict():\n    evict(entry)\n    evict(entry)\n",
    "tests/conftest.py": "evict evict evict\n",
}
UNRELATED = {"pkg/store.py": "def put(key):\n    save(key)\n", "pkg/clock.py": "def now():\n    tick()\n"}


@pytest.mark.parametrize("make", [BM25Agent, KeywordAgent])
def test_test_files_are_left_out_unless_asked_for(tmp_path: Path, make: Callable[..., Agent]) -> None:
    for relative, text in {**TESTS_TOO, **UNRELATED}.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    default, everything = make(), make(exclude_tests=False)
    default.initialize(str(tmp_path))
    everything.initialize(str(tmp_path))
    assert default.retrieve("evict").files == ["pkg/cache.py"]
    assert set(everything.retrieve("evict").files) == set(TESTS_TOO)


def _reference_bm25f(
    files: list[tuple[str, str]], query: list[str], k1: float, b: float, weight: float
) -> dict[str, float]:
    """BM25F written out term by term: text and weighted path counts saturated together."""
    texts = [tokenize(text) for _, text in files]
    paths = [path_tokens(path) for path, _ in files]
    text_idf, path_idf = BM25Okapi(texts, k1=k1, b=b).idf, BM25Okapi(paths, k1=k1, b=b).idf
    text_avg, path_avg = sum(map(len, texts)) / len(texts), sum(map(len, paths)) / len(paths)
    scores = {}
    for (path, _), text, words in zip(files, texts, paths):
        total = 0.0
        for token in query:
            tf = text.count(token) / (1 - b + b * len(text) / text_avg)
            tf += weight * words.count(token) / (1 - b + b * len(words) / path_avg)
            idf = text_idf[token] if token in text_idf else path_idf.get(token, 0.0)
            total += idf * tf * (k1 + 1) / (k1 + tf)
        scores[path] = total
    return scores


@pytest.mark.parametrize("weight", [0.0, 2.0, 4.0])
def test_bm25f_scores_equal_a_term_by_term_reference(repo: Path, weight: float) -> None:
    files = list(iter_text_files(repo, max_bytes=MAX_BYTES))
    agent = BM25Agent(path_weight=weight, fields="bm25f", max_bytes=MAX_BYTES, files="all", **BM25_ONLY)
    agent.initialize(str(repo))
    query = "snapshot checksum retry src storage kangaroo snapshot"
    result = agent.retrieve(query)
    expected = _reference_bm25f(files, tokenize(query), 1.2, 0.75, weight)
    assert result.files == sorted((p for p in expected if expected[p] > 0), key=lambda p: (-expected[p], p))
    np.testing.assert_allclose(result.scores, [expected[path] for path in result.files], rtol=1e-12)
    assert ("src/kangaroo.py" in result.files) is (weight > 0)


def test_an_unknown_field_mode_is_rejected() -> None:
    with pytest.raises(ValueError, match="fields='bm25x': choose one of sum, bm25f"):
        BM25Agent(fields="bm25x")
