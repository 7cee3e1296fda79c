"""bm25 ranks source files by default: which files those are, and scores over them alone."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi  # type: ignore[import-untyped]

from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.index.tokencache import TokenCache
from pytest_codesearch.agents.index.tokenize import path_tokens, tokenize

sys.path.insert(0, str(Path(__file__).parent))
from gitrepo import commit, init_repo  # noqa: E402

FILES = {
    "src/cache.py": "def evict(entry):\n    # drop the oldest entry when the cache is full\n    drop(entry)\n",
    "src/store.py": "def put(key, value):\n    save(key, value)\n",
    "src/native/evict.c": "void evict_oldest(void) { drop_entry(); }\n",
    "CHANGELOG.md": "Fixed: evict drops the oldest entry, the cache no longer grows when full.\n",
    "docs/cache.rst": "The cache evicts the oldest entry when full.\n",
    "locale/fr/messages.po": 'msgid "cache full: evict oldest entry"\n',
    "setup.cfg": "[cache]\nevict = oldest entry\n",
    "tests/test_cache.py": "def test_evict():\n    evict(entry)\n    evict(entry)\n",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for relative, text in FILES.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    return tmp_path


def _answer(tree: Path, query: str, **kwargs: object) -> list[str]:
    agent = BM25Agent(**kwargs)  # type: ignore[arg-type]
    agent.initialize(str(tree))
    return agent.retrieve(query).files


def test_default_bm25_ranks_source_files_only(tree: Path) -> None:
    assert _answer(tree, "evict the oldest entry when the cache is full") == ["src/cache.py", "src/native/evict.c"]


def test_exclude_tests_false_puts_test_files_back(tree: Path) -> None:
    # src/cache.py defines evict, a word of the query: that lifts it above the test (tests/test_bm25_definitions.py)
    assert _answer(tree, "evict entry", exclude_tests=False) == [
        "src/native/evict.c", "src/cache.py", "tests/test_cache.py"
    ]


def test_files_all_ranks_every_text_file_but_tests(tree: Path) -> None:
    answer = _answer(tree, "evict the oldest entry when the cache is full", files="all")
    assert sorted(answer) == sorted(path for path in FILES if path not in ("src/store.py", "tests/test_cache.py"))


def test_a_snapshot_without_source_files_ranks_its_text_files(tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text("install the cache\n")
    (tmp_path / "notes.txt").write_text("cache notes\n")
    (tmp_path / "LICENSE").write_text("permission is granted\n")
    assert _answer(tmp_path, "install cache") == ["guide.md", "notes.txt"]


def test_files_that_cannot_be_ranked_are_never_read(tree: Path) -> None:
    agent = BM25Agent(token_cache=TokenCache())
    agent.initialize(str(tree))
    vocabulary = agent.token_cache.vocabulary
    assert {"evict", "drop", "put"} <= vocabulary.keys()  # sources
    assert not {"fixed", "grows", "msgid", "evicts", "test_evict"} & vocabulary.keys()  # CHANGELOG, docs, .po, tests
    with_tests = BM25Agent(token_cache=TokenCache(), exclude_tests=False)
    with_tests.initialize(str(tree))
    assert "test_evict" in with_tests.token_cache.vocabulary  # ranked, so read
    assert BM25Agent(files="all", token_cache=TokenCache()).token_cache is not agent.token_cache


def test_a_source_file_holding_nul_bytes_is_ranked_as_text(tmp_path: Path) -> None:
    (tmp_path / "blob.py").write_bytes(b"\x00\x01install the cache")  # text by name: never binary
    (tmp_path / "store.py").write_text("def put(key): pass\n")
    (tmp_path / "queue.py").write_text("def push(item): pass\n")
    (tmp_path / "guide.md").write_text("install the cache\n")
    assert _answer(tmp_path, "install cache") == ["blob.py"]


def test_scores_are_bm25_over_the_source_files_alone(tree: Path) -> None:
    ranked = ["src/cache.py", "src/native/evict.c", "src/store.py"]
    text = BM25Okapi([tokenize(FILES[path]) for path in ranked], k1=1.2, b=0.75)
    paths = BM25Okapi([path_tokens(path) for path in ranked], k1=1.2, b=0.75)
    query = "evict oldest entry src cache save"
    combined = text.get_scores(tokenize(query)) + 2.0 * paths.get_scores(tokenize(query))
    expected = dict(zip(ranked, combined))
    agent = BM25Agent(definition_weight=0.0, mention_weight=0.0)  # the BM25 stage alone
    agent.initialize(str(tree))
    result = agent.retrieve(query)
    assert result.files == sorted(expected, key=lambda p: (-expected[p], p))
    np.testing.assert_allclose(result.scores, [expected[path] for path in result.files], rtol=1e-12)


def test_an_unknown_file_set_is_rejected() -> None:
    with pytest.raises(ValueError, match="files='docs': choose one of source, all"):
        BM25Agent(files="docs")


def test_default_bm25_ranks_the_file_whose_function_body_matches_first(pytester: pytest.Pytester) -> None:
    repo = init_repo(pytester.path / "project")
    base = commit(repo, {
        "app/retry.py": "def fetch(url):\n    # back off exponentially after a timeout, then retry\n    return backoff(url)\n",
        "app/http.py": "def get(url):\n    return fetch(url)\n",
        "app/cli.py": "def main(argv):\n    parse(argv)\n",
        "app/log.py": "def info(message):\n    write(message)\n",
        "README.md": "Retry with exponential back off after a timeout.\n",
        "tests/test_retry.py": "def test_backoff_retry_timeout():\n    backoff(timeout)\n",
    })
    case = {"id": "c1", "query": "retry with exponential back off after a timeout",
            "ground_truth_files": ["app/retry.py"], "base_commit": base}
    lines = [json.dumps({"metadata": {"repo": "project"}}), json.dumps(case)]
    pytester.makefile(".jsonl", cases="\n".join(lines) + "\n")
    result = pytester.runpytest("--codesearch-agent=bm25", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    report = json.loads((pytester.path / "codesearch-report" / "results.json").read_text())
    assert report["cases"][0]["retrieved"] == ["app/retry.py"]
