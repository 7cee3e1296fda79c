"""Failure categories of missed cases, one rule at a time."""

from __future__ import annotations

import pytest

from pytest_codesearch.scoring import FAILURE_CATEGORIES, classify_miss, is_miss, miss_cutoff

SOURCES = {
    "auth/login.py": "def login_view(request): check_password(request.user)\n",
    "auth/password.py": "def hash_password(raw): return sha256(raw)\n",
    "billing/invoice.py": "def render_invoice(order): return total + price * tax\n",
    "docs/guide.md": "login password reset flow: the reset link is sent by email\n",
}
PASSWORD = {"auth/password.py": 1}


def read(path: str) -> str | None:
    return SOURCES.get(path)


# query, retrieved (ranked, all wrong), category; the ground truth is auth/password.py, cutoff 2
MISS_TABLE = [
    # no term of the query is in password.py's text or path
    pytest.param("render invoice totals", ["billing/invoice.py"], "vocabulary_mismatch", id="vocabulary"),
    # password.py shares {password}; the guide at rank 1 shares {reset, password, login}
    pytest.param("reset password after login", ["docs/guide.md", "auth/login.py"], "distractor_overlap",
                 id="distractor"),
    # login.py shares {password} too, not more: one term is too few to tell the files apart
    pytest.param("password", ["auth/login.py"], "specificity_gap", id="one-term"),
    # only stop words: no terms at all is a specificity gap, not a vocabulary mismatch
    pytest.param("the of and", ["auth/login.py"], "specificity_gap", id="no-terms"),
    # six shared terms, no wrong file shares more, and the query is specific
    pytest.param("hash the raw password with sha256", ["billing/invoice.py"], "other", id="other"),
    # a wrong file that shares more but sits below the cutoff is no distractor
    pytest.param("reset password after login", ["billing/invoice.py", "src", "docs/guide.md"], "other",
                 id="distractor-below-cutoff"),
    pytest.param("reset password after login", [], "other", id="empty-answer"),
]  # fmt: skip


@pytest.mark.parametrize(("query", "retrieved", "expected"), MISS_TABLE)
def test_missed_cases_get_the_first_matching_category(query: str, retrieved: list[str], expected: str) -> None:
    assert classify_miss(query, PASSWORD, retrieved, frozenset({"src"}), read, cutoff=2) == expected


def test_a_directory_is_never_a_distractor() -> None:
    # as a file, this path alone would share {reset, password, login}, more than password.py's {password}
    folder = "reset/password/login"
    category = classify_miss("reset password after login", PASSWORD, [folder], frozenset({folder}), read, cutoff=10)
    assert category == "other"
    assert classify_miss("reset password after login", PASSWORD, [folder], frozenset(), read, 10) == "distractor_overlap"


def test_a_ground_truth_path_counts_even_when_its_text_cannot_be_read() -> None:
    category = classify_miss("password", {"auth/password.py": 1}, [], frozenset(), lambda path: None, cutoff=10)
    assert category == "specificity_gap"  # the path holds "password": no vocabulary mismatch


def test_the_best_ground_truth_file_sets_the_bar() -> None:
    # login.py shares {password, login}: more than password.py alone ({password}), but not more than the
    # guide ({reset, password, login}) once the guide is ground truth too
    assert classify_miss("reset password after login", PASSWORD, ["auth/login.py"], frozenset(), read, 10) == (
        "distractor_overlap"
    )
    two = {"auth/password.py": 1, "docs/guide.md": 1}
    assert classify_miss("reset password after login", two, ["auth/login.py"], frozenset(), read, cutoff=10) == "other"


def test_categories_are_listed_in_rule_order() -> None:
    assert FAILURE_CATEGORIES == ("vocabulary_mismatch", "distractor_overlap", "specificity_gap", "other")


@pytest.mark.parametrize(("ks", "cutoff"), [((1, 5, 10), 10), ((10, 20), 10), ((1, 5), 5), ((20, 3), 20)])
def test_miss_cutoff_is_10_or_the_largest_k(ks: tuple[int, ...], cutoff: int) -> None:
    assert miss_cutoff(ks) == cutoff


def test_is_miss_looks_at_the_top_cutoff_only() -> None:
    assert is_miss(["x.py", "auth/password.py"], PASSWORD, 1)
    assert not is_miss(["x.py", "auth/password.py"], PASSWORD, 2)
    assert is_miss([], PASSWORD, 10)
