"""File kinds have one owner: the miner and the built-in agents judge test, source and binary files alike."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pytest_codesearch import filekinds
from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.builtin.keyword import KeywordAgent
from pytest_codesearch.agents.index.tokencache import TokenCache
from pytest_codesearch.filekinds import (
    DEFAULT_EXCLUDE,
    extension,
    is_binary,
    is_known_text_path,
    is_source_path,
    is_test_path,
    looks_binary,
)
from pytest_codesearch.mining import filters
from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.generate import generate_goldset

sys.path.insert(0, str(Path(__file__).parent))
from gitrepo import commit, init_repo, write_files  # noqa: E402

DOCS = Path(__file__).parent.parent / "docs" / "mining.md"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tests/test_app.py", True),
        ("src/pkg/testing/helpers.py", True),
        ("pkg/test_util.py", True),
        ("pkg/util_test.py", True),
        ("conftest.py", True),
        ("Tests/helpers.py", True),  # case-insensitive, as every exclude pattern
        ("web/__tests__/app.js", True),
        ("web/app.test.ts", True),
        ("spec/models/user_spec.rb", True),
        ("app/tests.py", True),
        ("go/testdata/input.go", True),
        ("pkg/test_utils/helpers.py", True),  # a directory named test_*
        ("pkg/run_test", False),  # no extension: not ``*_test.*``
        ("pkg/contest.py", False),
        ("pkg/latest.py", False),
        ("pkg/testament/notes.py", False),
        ("pytest/main.py", False),
    ],
)
def test_is_test_path(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


@pytest.mark.parametrize(
    ("path", "tests", "expected"),
    [
        ("src/cache.py", False, True),
        ("src/native/evict.c", False, True),
        ("web/app.TS", False, True),
        ("CHANGELOG.md", False, False),
        ("docs/conf.py", False, False),
        ("locale/fr/messages.po", False, False),
        ("setup.cfg", False, False),
        ("Makefile", False, False),
        (".py", False, False),
        ("build/lib/cache.py", False, False),
        ("vendor/six.py", False, False),
        ("tests/test_cache.py", False, False),
        ("tests/test_cache.py", True, True),
        ("pkg/conftest.py", True, True),
        ("web/__tests__/app.js", True, True),
        ("web/__tests__/app.js", False, False),
    ],
)
def test_is_source_path(path: str, tests: bool, expected: bool) -> None:
    assert is_source_path(path, tests=tests) is expected


@pytest.mark.parametrize(
    ("path", "ext"),
    [("src/App.PY", "py"), ("a/b.tar.gz", "gz"), ("Makefile", ""), (".bashrc", ""), ("..py", ""), ("d.x/README", "")],
)
def test_extension(path: str, ext: str) -> None:
    assert extension(path) == ext


def test_text_by_name() -> None:
    paths = ("src/App.PY", "po/de.po", "git-send-email.perl", "data/blob.bin", "Makefile")
    assert [is_known_text_path(path) for path in paths] == [True, True, True, False, False]


def test_binary_is_a_nul_among_the_first_8000_bytes_unless_text_by_name() -> None:
    assert looks_binary(b"abc\x00def") and looks_binary(b"x" * 7999 + b"\x00")
    assert not looks_binary(b"x" * 8000 + b"\x00") and not looks_binary(bytes(range(0x80, 0x100)) * 40)
    assert is_binary("data/blob.dat", b"\x00") and not is_binary("src/fixture.py", b"\x00")
    assert not is_binary("src/app.py", lambda: pytest.fail("a file text by name is not read"))


def test_default_exclude_is_the_groups_in_order_and_the_miners_default() -> None:
    assert DEFAULT_EXCLUDE == tuple(p for group in filekinds.PATH_GROUPS for p in group.patterns)
    assert filters.DEFAULT_EXCLUDE is DEFAULT_EXCLUDE and FilterConfig().exclude == list(DEFAULT_EXCLUDE)
    assert (DEFAULT_EXCLUDE[:3], DEFAULT_EXCLUDE[-1], len(DEFAULT_EXCLUDE)) == (("*.md", "*.rst", "*.txt"), "*.mov", 102)


def test_docs_table_is_the_data() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert text.count("<!-- file-kinds table: generated") == 1
    assert filekinds.render_docs(text) == text, "run: python -m pytest_codesearch.filekinds, commit docs/mining.md"


BEFORE = {
    "src/app.py": b"def evict(entry):\n    drop(entry)\n",
    "src/fixture.py": b"SENTINEL = b'\x00'  # evict marker\n",  # text by name: never binary
    "web/__tests__/app.js": b"evict(entry)\n",  # a test to the miner only, before
    "Tests/helpers.py": b"def helper():\n    evict(entry)\n",  # a test to the miner only, before
    "data/late_nul.dat": b"evict " + b"x" * 8100 + b"\x00",  # binary to the agents only, before (8192 bytes)
    "data/latin.dat": bytes(range(0x80, 0x100)) * 4 + b" evict",  # binary to the agents only, before (U+FFFD)
    "data/blob.dat": b"\x00\x01\x02 evict",  # binary to both
}


def test_mining_and_the_agents_judge_each_file_alike(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    unchanged = {"src/store.py": b"def put(key):\n    save(key)\n"}  # without the query's word: idf > 0
    commit(repo, {**BEFORE, **unchanged}, "Add the cache")
    changed = {path: data + b" oldest\n" for path, data in BEFORE.items()}
    commit(repo, changed, "Make eviction drop the oldest entry first")
    output = tmp_path / "mined.jsonl"
    stats = generate_goldset(tmp_path / "project", output, FilterConfig(), workers=1, lines=False)
    [case] = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()[1:]]
    truth = ["data/late_nul.dat", "data/latin.dat", "src/app.py", "src/fixture.py"]
    assert case["ground_truth_files"] == truth
    assert stats.excluded_files == {"excluded pattern": 2, "binary": 1}  # the two tests, data/blob.dat

    snapshot = tmp_path / "snapshot"  # the parent's tree, as the agents search it
    write_files(snapshot, {**BEFORE, **unchanged})
    answers = {}
    for name, agent in [
        ("keyword", KeywordAgent(token_cache=TokenCache())),
        ("keyword, tests kept", KeywordAgent(exclude_tests=False, token_cache=TokenCache())),
        ("bm25", BM25Agent(token_cache=TokenCache())),
    ]:
        agent.initialize(str(snapshot))
        answers[name] = sorted(agent.retrieve("evict").files)
    assert answers == {
        "keyword": truth,  # every text file but the tests: what the miner keeps
        "keyword, tests kept": sorted([*truth, "Tests/helpers.py", "web/__tests__/app.js"]),
        "bm25": [path for path in truth if is_source_path(path)],
    }
