"""Agents' function answers read against the outline of the case's snapshot, through the plugin: their modules
are the truth's (C++ namespaces, Ruby modules), and functions their file does not define are counted."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest
from example_project import read_results
from gitrepo import commit, init_repo

CART_CPP = (
    "namespace shop {\nnamespace billing {\nclass Cart {\n public:\n  int add(int item) {\n    return item + 1;\n  }\n"
    "  int total() const;\n};\n\nint Cart::total() const {\n  return 2;\n}\n}  // namespace billing\n}  // namespace shop\n"
)
SHOP_RB = "module Shop\n  class Cart\n    def add(item)\n      item + 1\n    end\n  end\nend\n"
FUNCTIONS = ["lib/shop.rb:Shop.Cart.add", "src/cart.cpp:shop::billing::Cart::add", "src/cart.cpp:shop::billing::Cart::total"]
MODULES = ["lib/shop.rb:Shop.Cart", "src/cart.cpp:shop::billing::Cart", "src/cart.cpp:shop::billing::Cart::total"]

AGENT = """
import pytest_codesearch as pcs

FUNCTIONS = {functions!r}

@pcs.agent(name="named")
def named():
    return lambda query: pcs.RetrievalResult(files=["src/cart.cpp", "lib/shop.rb"], functions=FUNCTIONS)
"""


def _instance(pytester: pytest.Pytester) -> None:
    """Write the repository ``acme__shop`` (a C++ and a Ruby file) and one SWE-bench instance fixing both."""
    repo = init_repo(pytester.path / "acme__shop")
    base = commit(repo, {"src/cart.cpp": CART_CPP, "lib/shop.rb": SHOP_RB}, "Add the cart")
    fixed = {"src/cart.cpp": CART_CPP.replace("item + 1", "item + 2").replace("return 2", "return 4"),
             "lib/shop.rb": SHOP_RB.replace("item + 1", "item + 2")}  # fmt: skip
    fix = commit(repo, fixed, "Fix the cart")
    instance = {"repo": "acme/shop", "instance_id": "acme__shop-1", "base_commit": base,
                "patch": repo.diff(base, fix).patch, "problem_statement": "Cart totals are wrong in both shops."}  # fmt: skip
    (pytester.path / "instances.jsonl").write_text(json.dumps(instance) + "\n")


def test_answered_modules_are_the_truths_and_undefined_functions_are_counted(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    _instance(pytester)
    make_conftest(AGENT.format(functions=[*FUNCTIONS, "src/cart.cpp:shop::billing::Cart::gone", "lib/shop.rb:Shop.add"]))
    result = pytester.runpytest("--codesearch-agent=named", "--codesearch-runs=1", "--junitxml=junit.xml")
    result.assert_outcomes(passed=1)
    (record,) = read_results(pytester.path)["cases"]
    assert (record["ground_truth_functions"], record["ground_truth_modules"]) == (FUNCTIONS, MODULES)
    assert record["retrieved_modules"] == [*MODULES, "src/cart.cpp:shop::billing::Cart::gone", "lib/shop.rb:Shop"]
    assert {name: record["metrics"][name] for name in ("module_acc@5", "module_mrr", "function_acc@5")} == {
        "module_acc@5": 1.0, "module_mrr": 1.0, "function_acc@5": 1.0,
    }  # fmt: skip
    assert (record["undefined_functions"], record["invalid_paths"]) == (2, 0)
    properties = ET.parse(pytester.path / "junit.xml").getroot().iter("property")
    assert ("undefined_functions", "2") in {(p.get("name"), p.get("value")) for p in properties}
    result.stdout.fnmatch_lines(["*agent named: named 2 function(s) that do not exist at their snapshot (1 case(s))*"])


def test_an_answer_of_existing_functions_counts_none(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    _instance(pytester)
    make_conftest(AGENT.format(functions=FUNCTIONS))
    result = pytester.runpytest("--codesearch-agent=named", "--codesearch-runs=1")
    result.assert_outcomes(passed=1)
    (record,) = read_results(pytester.path)["cases"]
    assert record["retrieved_modules"] == MODULES
    assert "undefined_functions" not in record or record["undefined_functions"] == 0
    assert "do not exist" not in result.stdout.str()
