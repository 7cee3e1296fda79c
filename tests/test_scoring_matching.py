"""Matching answers onto ground truth: exact, and substring as YAML query files use it."""

from __future__ import annotations

from pytest_codesearch.scoring import score_case
from pytest_codesearch.scoring.matching import files_matching, match_paths, match_symbols, unmatched_truth


def test_exact_leaves_answers_alone() -> None:
    assert match_paths(["b.py", "a.py"], ["a.py"], "exact") == ["b.py", "a.py"]
    assert match_symbols(["Foo"], ["foo"], [], "exact") == ["Foo"]


def test_substring_credits_each_entry_once_at_its_first_rank() -> None:
    returned = ["docs/guide.md", "src/physics/collision.cpp", "tests/collision.cpp", "src/app.py"]
    assert match_paths(returned, ["collision.cpp", "app.py"], "substring") == [
        "docs/guide.md",
        "collision.cpp",
        "tests/collision.cpp",
        "app.py",
    ]


def test_substring_prefers_an_equal_path_then_the_longest_entry() -> None:
    returned = ["src/physics/collision.cpp", "physics/collision.cpp"]
    truth = ["collision.cpp", "physics/collision.cpp"]
    assert match_paths(returned, truth, "substring") == ["collision.cpp", "physics/collision.cpp"]
    assert match_paths(["src/physics/collision.cpp"], truth, "substring") == ["physics/collision.cpp"]


def test_substring_changes_the_metrics_as_documented() -> None:
    returned = ["docs/guide.md", "src/physics/collision.cpp", "tests/collision.cpp"]
    relevance = {"collision.cpp": 1, "app.py": 1}
    exact = score_case(returned, relevance, ks=(1, 3), k=None)
    mapped = score_case(match_paths(returned, relevance, "substring"), relevance, ks=(1, 3), k=None)
    assert exact["recall@3"] == 0.0 and exact["mrr"] == 0.0
    assert mapped["recall@3"] == 0.5
    assert mapped["mrr"] == 0.5
    assert mapped["hit@1"] == 0.0 and mapped["hit@3"] == 1.0


def test_substring_symbols_ignore_case() -> None:
    got = match_symbols(["Physics::DetectCollision", "Other", "OldMover"], ["detectcollision"], ["mover"], "substring")
    assert got == ["detectcollision", "Other", "mover"]


def test_unmatched_truth() -> None:
    files = {"src/physics/collision.cpp", "README.md"}
    assert unmatched_truth(["collision.cpp", "gone.py"], files, "substring") == ["gone.py"]
    assert unmatched_truth(["collision.cpp", "README.md"], files, "exact") == ["collision.cpp"]
    assert files_matching("app.py", {"src/app.py", "src/sansio/app.py", "src/cli.py"}, "substring") == [
        "src/app.py", "src/sansio/app.py"
    ]
    assert files_matching("app.py", {"src/app.py"}, "exact") == []
