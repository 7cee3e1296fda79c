"""RetrievalResult's function- and module-level answers."""

from __future__ import annotations

from pytest_codesearch.agents.adapter import coerce_result
from pytest_codesearch.agents.contract import RetrievalResult, modules_of


def test_modules_are_derived_from_functions_in_first_appearance_order() -> None:
    result = RetrievalResult(
        files=["a.py"], functions=["b.py:Cart.add", "a.py:run", "b.py:Cart.total", "b.py:helper", "bad"]
    )
    assert result.modules == ["b.py:Cart", "a.py:run", "b.py:helper"]


def test_a_go_method_is_its_own_module_as_the_outline_names_it() -> None:
    result = RetrievalResult(files=[], functions=["cart.go:Cart.Add", "cart.go:total", "cart.go:Cart.Add"])
    assert result.modules == ["cart.go:Cart.Add", "cart.go:total"]


def test_given_modules_are_kept() -> None:
    result = RetrievalResult(files=[], functions=["b.py:Cart.add"], modules=["c.py:Other"])
    assert result.modules == ["c.py:Other"]


def test_modules_of_nothing_is_empty() -> None:
    assert modules_of([]) == []


def test_coerce_result_keeps_entities() -> None:
    raw = RetrievalResult(files=["a.py"], functions=["a.py:A.f"])
    coerced = coerce_result("replay", raw)
    assert (coerced.functions, coerced.modules) == (["a.py:A.f"], ["a.py:A"])
