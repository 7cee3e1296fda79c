"""The path and hybrid agents, and the test-file rule the built-in agents share, on small trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.agents.builtin.hybrid import HybridAgent, reciprocal_rank_fusion
from pytest_codesearch.agents.builtin.path import MENTION_WEIGHT, PathAgent, mention_scores, mentioned_components

FILES = {
    "src/app/db/models/query.py": "class QuerySet: pass\n",
    "src/app/db/models/fields.py": "class Field: pass\n",
    "src/app/http/query.py": "def parse_qs(): pass\n",
    "src/app/http/request.py": "class Request: pass\n",
    "src/app/tests/test_query.py": "def test_query(): pass\n",
    "docs/index.rst": "Welcome\n",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for relative, text in FILES.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    return tmp_path


def test_mentioned_components_reads_paths_modules_and_file_names() -> None:
    found = mentioned_components('File "/usr/lib/app/db/models/query.py", line 3; see app.http and fields.py')
    assert ("app", "db", "models", "query") in found
    assert ("models", "query") in found and ("query",) in found
    assert ("app", "http") in found and ("http",) in found
    assert ("fields",) in found
    assert mentioned_components("no mention here") == set()


def test_mention_scores_count_the_longest_trailing_run_named() -> None:
    paths = list(FILES)
    scores = mention_scores(paths, "the bug is in app.db.models.query, not http")
    assert dict(zip(paths, scores.tolist())) == {
        "src/app/db/models/query.py": 4.0,
        "src/app/db/models/fields.py": 0.0,
        "src/app/http/query.py": 1.0,
        "src/app/http/request.py": 0.0,
        "src/app/tests/test_query.py": 0.0,
        "docs/index.rst": 0.0,
    }


def test_path_agent_ranks_the_mentioned_module_first_and_leaves_out_tests(tree: Path) -> None:
    agent = PathAgent()
    agent.initialize(str(tree))
    result = agent.retrieve("Traceback: src/app/db/models/query.py line 12 in filter")
    assert result.files[:2] == ["src/app/db/models/query.py", "src/app/http/query.py"]
    assert result.scores[0] > 4 * MENTION_WEIGHT
    assert "src/app/tests/test_query.py" not in result.files
    everything = PathAgent(exclude_tests=False)
    everything.initialize(str(tree))
    assert "src/app/tests/test_query.py" in everything.retrieve("test_query").files


def test_path_agent_uses_path_words_without_a_mention(tree: Path) -> None:
    agent = PathAgent()
    agent.initialize(str(tree))
    assert agent.retrieve("the http request object loses headers").files[0] == "src/app/http/request.py"
    assert agent.retrieve("nothing in common").files == []
def test_reciprocal_rank_fusion_sums_one_over_k_plus_rank() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d"]], k=1.0)
    assert fused.files == ["b", "a", "d", "c"]
    assert fused.scores == pytest.approx([1 / 3 + 1 / 2, 1 / 2, 1 / 3, 1 / 4])
    assert reciprocal_rank_fusion([["x", "y"], ["y", "x"]], top_n=1).files == ["x"]  # a tie goes by path


class _Fixed:
    """An agent answering the same list every time, recording what it was told."""

    def __init__(self, files: list[str], needs_directory: bool) -> None:
        self.files = files
        self.needs_directory = needs_directory
        self.calls: list[str] = []

    def initialize(self, repo_path: str) -> None:
        self.calls.append(f"initialize {repo_path}")

    def retrieve(self, query: str) -> RetrievalResult:
        return RetrievalResult(files=self.files)

    def reset(self) -> None:
        self.calls.append("reset")


def test_hybrid_agent_fuses_its_members_and_passes_calls_on() -> None:
    first, second = _Fixed(["a", "b"], False), _Fixed(["b", "c"], False)
    hybrid = HybridAgent([("first", first), ("second", second)], k=60)
    hybrid.initialize("/snapshot")
    hybrid.reset()
    assert hybrid.retrieve("q").files == ["b", "a", "c"]
    assert first.calls == second.calls == ["initialize /snapshot", "reset"]
    assert hybrid.needs_directory is False
    assert HybridAgent([("x", first), ("y", _Fixed([], True))]).needs_directory is True


def test_a_hybrid_of_callables_never_told_the_directory_needs_none() -> None:
    def asks(query: str) -> list[str]:
        return []

    def reads(query: str, repo_path: str) -> list[str]:
        return []

    assert HybridAgent([("a", asks), ("b", asks)]).needs_directory is False
    assert HybridAgent([("a", asks), ("b", reads)]).needs_directory is True


def test_hybrid_of_names_builds_built_in_members(tree: Path) -> None:
    hybrid = HybridAgent.of_names("bm25+path")
    assert [name for name, _ in hybrid.members] == ["bm25", "path"]
    hybrid.initialize(str(tree))
    assert hybrid.retrieve("QuerySet in app.db.models.query").files[0] == "src/app/db/models/query.py"
    with pytest.raises(ValueError, match=r"unknown \['grep'\]; choose from bm25, embedding, keyword, path"):
        HybridAgent.of_names("bm25+grep")
