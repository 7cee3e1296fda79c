"""Entity answers (``functions``, ``modules``) follow the rules of file answers: cleaned paths, dropped
entries that name no file of the snapshot, and the ``--codesearch-max-answer`` cut."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from example_project import read_results, write_project

from pytest_codesearch.agents.normalize import normalize_entities

FILES = frozenset({"src/app.py", "src/auth/login.py"})


def test_entity_paths_are_cleaned_like_file_paths() -> None:
    raw = ["./src/app.py:create_app", "src\\auth\\login.py:login_view", "/snap/t1/src/app.py:create_app",
           "/elsewhere/src/app.py:other", "gone.py:f", "no_path_at_all", "src/app.py:",
           "src//app.py: spaced "]  # fmt: skip
    kept, dropped = normalize_entities(raw, Path("/snap/t1"), FILES)
    assert kept == ["src/app.py:create_app", "src/auth/login.py:login_view", "src/app.py:spaced"]
    assert dropped == ["/elsewhere/src/app.py:other", "gone.py:f", "no_path_at_all", "src/app.py:"]


def test_names_with_colons_keep_them_and_their_path() -> None:
    files = frozenset({"src/cart.cpp", "src/lib.rs"})
    raw = ["src/cart.cpp:shop::Cart::add", "/snap/t1/src/lib.rs:store::Cart.add", "src/cart.cpp::f", "x::y"]
    kept, dropped = normalize_entities(raw, Path("/snap/t1"), files)
    assert kept == ["src/cart.cpp:shop::Cart::add", "src/lib.rs:store::Cart.add", "src/cart.cpp::f"]
    assert dropped == ["x::y"]


AGENT = """
import os
import pytest_codesearch as pcs

class Spelled:
    needs_directory = True

    def initialize(self, repo_path):
        self.root = repo_path

    def reset(self):
        pass

    def retrieve(self, query):
        absolute = os.path.join(self.root, "src", "app.py")
        functions = ["gone.py:f", "./src/app.py:create_app", absolute + ":create_app",
                     "src\\\\routes.py:register_routes"]
        return pcs.RetrievalResult(files=["src/app.py"], functions=functions, modules=[absolute + ":create_app"])

@pcs.agent(name="spelled")
def spelled():
    return Spelled()
"""


@pytest.mark.parametrize(("limit", "functions", "cut_from"), [
    ("1000", ["src/app.py:create_app", "src/routes.py:register_routes"], None),
    ("2", ["src/app.py:create_app"], 4),  # the cut comes first: 'gone.py:f' took one of the two places
])  # fmt: skip
def test_entity_answers_are_normalised_and_cut_through_the_plugin(
    pytester: pytest.Pytester,
    make_conftest: Callable[[str], None],
    limit: str,
    functions: list[str],
    cut_from: int | None,
) -> None:
    truth = {"ground_truth_functions": ["src/app.py:create_app"], "ground_truth_modules": ["src/app.py:create_app"]}
    case = {"id": "app", "query": "create the app", "ground_truth_files": ["src/app.py"], **truth}
    write_project(pytester.path, [case])
    make_conftest(AGENT)
    result = pytester.runpytest("--codesearch-agent=spelled", "--codesearch-runs=1", f"--codesearch-max-answer={limit}")
    result.assert_outcomes(passed=1)
    (record,) = read_results(pytester.path)["cases"]
    assert record["retrieved_functions"] == functions
    assert record["retrieved_modules"] == ["src/app.py:create_app"]
    assert (record["invalid_paths"], record["dropped"]) == (1, ["gone.py:f"])
    assert record.get("answer_cut_from") == cut_from
    assert (record["metrics"]["function_acc@1"], record["metrics"]["module_mrr"]) == (1.0, 1.0)


DERIVED = """
import pytest_codesearch as pcs

def _answer(query):
    return pcs.RetrievalResult(files=["src/app.py"], functions=["gone.py:f", "src/app.py:create_app", "gone.py:C.m"])

@pcs.agent(name="derived")
def derived():
    return _answer
"""


def test_a_dropped_function_is_listed_once_when_modules_are_derived_from_it(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    case = {"id": "app", "query": "create the app", "ground_truth_files": ["src/app.py"],
            "ground_truth_functions": ["src/app.py:create_app"]}  # fmt: skip
    write_project(pytester.path, [case])
    make_conftest(DERIVED)
    pytester.runpytest("--codesearch-agent=derived", "--codesearch-runs=1").assert_outcomes(passed=1)
    (record,) = read_results(pytester.path)["cases"]
    assert record["retrieved_modules"] == ["src/app.py:create_app"]
    assert (record["invalid_paths"], record["dropped"]) == (2, ["gone.py:f", "gone.py:C.m"])
