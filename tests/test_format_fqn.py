"""FQN retrieval sets: names resolved to files and entities of the tree, graded, with hard negatives."""

from __future__ import annotations

import json
from pathlib import Path

from gitrepo import commit, init_repo

from pytest_codesearch.goldset.formats import reader_for
from pytest_codesearch.goldset.formats.base import ReadOptions
from pytest_codesearch.goldset.formats.fqn import load_fqn
from pytest_codesearch.goldset.fqnames import Resolved, resolve_fqn

TREE = {
    "src/adk/__init__.py": "",
    "src/adk/agents/__init__.py": "from .parallel import ParallelAgent\nfrom adk.agents.sequential import SequentialAgent as Seq\n",
    "src/adk/agents/parallel.py": "class ParallelAgent:\n    def run(self):\n        pass\n",
    "src/adk/agents/sequential.py": "class SequentialAgent:\n    pass\n",
    "src/adk/tools.py": "Tool = object\n\ndef make_tool():\n    pass\n",
    "setup.py": "",
}


def _read(path: str) -> bytes | None:
    text = TREE.get(path)
    return None if text is None else text.encode()


def test_names_resolve_to_modules_definitions_and_reexports() -> None:
    assert resolve_fqn("adk.tools", _read) == Resolved("src/adk/tools.py", None)
    assert resolve_fqn("adk.tools.make_tool", _read) == Resolved("src/adk/tools.py", "src/adk/tools.py:make_tool")
    assert resolve_fqn("adk.tools.Tool", _read) == Resolved("src/adk/tools.py", None)
    parallel = Resolved("src/adk/agents/parallel.py", "src/adk/agents/parallel.py:ParallelAgent.run")
    assert resolve_fqn("adk.agents.ParallelAgent.run", _read) == parallel
    assert resolve_fqn("adk.agents.parallel.ParallelAgent.run", _read) == parallel
    sequential = Resolved("src/adk/agents/sequential.py", "src/adk/agents/sequential.py:SequentialAgent")
    assert resolve_fqn("adk.agents.Seq", _read) == sequential
    assert resolve_fqn("adk", _read) == Resolved("src/adk/__init__.py", None)
    assert resolve_fqn("adk.agents.Missing", _read) is None
    assert resolve_fqn("setup", _read) == Resolved("setup.py", None)
    assert resolve_fqn("not a name", _read) is None


def _goldset(tmp_path: Path, lines: list[object], base: str | None) -> Path:
    repo = init_repo(tmp_path / "repo")
    first = commit(repo, TREE, "Add the package")
    meta = {"repo": "repo", **({"base_commit": first} if base == "commit" else {})}
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(v) for v in [{"metadata": meta}, *lines]) + "\n", encoding="utf-8")
    if base != "commit":
        for name, text in TREE.items():
            (tmp_path / "repo" / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "repo" / name).write_text(text)
    return path


QUERY = {
    "id": "parallel",
    "query": "Which class runs agents concurrently?",
    "positive_ctxs": [
        {"fqn": "adk.agents.ParallelAgent", "text": "runs...", "rank_relevance": 1},
        {"fqn": "adk.tools.make_tool", "rank_relevance": 2},
    ],
    "negative_ctxs": [
        {"fqn": "adk.agents.Seq", "is_hard_negative": True},
        {"fqn": "adk.tools.Tool", "is_hard_negative": False},
    ],
    "metadata": {"difficulty": "medium"},
}


def test_reads_a_query_against_a_commit(tmp_path: Path) -> None:
    path = _goldset(tmp_path, [QUERY], "commit")
    assert reader_for(path) is not None and reader_for(path).name == "fqn"  # type: ignore[union-attr]
    loaded = load_fqn(path, ReadOptions())
    assert loaded.error is None
    case = loaded.entries[0].case
    assert case is not None and loaded.entries[0].line == 2
    assert [(f.path, f.symbols, f.relevance) for f in case.ground_truth_files] == [
        ("src/adk/agents/parallel.py", ["adk.agents.ParallelAgent", "src/adk/agents/parallel.py:ParallelAgent"], 2),
        ("src/adk/tools.py", ["adk.tools.make_tool", "src/adk/tools.py:make_tool"], 1),
    ]
    assert case.hard_negatives == ["adk.agents.Seq", "src/adk/agents/sequential.py:SequentialAgent"]
    assert case.complexity == "medium"


def test_a_name_missing_from_the_tree_fails_its_query_alone(tmp_path: Path) -> None:
    broken = {**QUERY, "id": "gone", "positive_ctxs": [{"fqn": "adk.agents.Gone"}]}
    odd = {"id": "odd", "query": "q", "positive_ctxs": [{"fqn": "adk.tools", "rank_relevance": 0}]}
    loaded = load_fqn(_goldset(tmp_path, [QUERY, broken, odd, [1]], None), ReadOptions())
    assert [(e.line, e.error) for e in loaded.entries] == [
        (2, None),
        (3, "positive_ctxs[0].fqn: 'adk.agents.Gone' is not a module, class or function of the tree "
            "(looked under the root, 'src/', 'lib/', 'python/')"),
        (4, "positive_ctxs[0].rank_relevance: must be an integer >= 1 (1 = primary), got 0"),
        (5, "a query must be a JSON object, got array"),
    ]


def test_a_blob_missing_from_a_partial_clone_fails_only_the_queries_needing_it(tmp_path: Path) -> None:
    import pygit2

    sequential = {"id": "seq", "query": "q", "positive_ctxs": [{"fqn": "adk.agents.sequential.SequentialAgent"}]}
    path = _goldset(tmp_path, [QUERY, sequential], "commit")
    repository = pygit2.Repository(str(tmp_path / "repo"))
    blob = str(repository.revparse_single("HEAD").peel(pygit2.Commit).tree["src/adk/agents/parallel.py"].id)
    (tmp_path / "repo" / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # as a partial clone lacks it
    entries = load_fqn(path, ReadOptions()).entries
    assert [(e.line, e.error) for e in entries] == [
        (2, f"repo: 'src/adk/agents/parallel.py' (blob {blob[:12]}) is missing from {repository.path} (a partial clone?)"),
        (3, None),
    ]
