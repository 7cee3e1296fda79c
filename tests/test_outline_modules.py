"""The module of a function, per language: one rule (``outline/modules.py``) for patch-derived truth and for
the modules of agents' answers. Expectations are by hand, from each language's nesting."""

from __future__ import annotations

import pytest

from pytest_codesearch.agents.contract import RetrievalResult, modules_of
from pytest_codesearch.goldset.entities import changed_entities
from pytest_codesearch.outline import outline
from pytest_codesearch.outline.modules import module_names, module_of, modules_of_functions

SOURCES = {
    "shop.cpp": (
        "namespace shop { namespace cart {\nclass Cart {\n public:\n  int add(int x) { return x; }\n"
        "  struct Line { int price() const { return 1; } };\n  int total() const;\n};\n"
        "int Cart::total() const { return 2; }\nint free_total() { return 3; }\n}}\n"
    ),
    "shop.rb": (
        "module Shop\n  module Billing\n    class Cart\n      def add(x); x; end\n      class Line\n"
        "        def price; 1; end\n      end\n    end\n    def self.helper; 2; end\n  end\nend\n"
        "class Shop::Order\n  def place; 3; end\nend\n"
    ),
    "shop.ts": (
        "namespace Shop.Billing {\n  export class Cart { add(x: number) { return x; } }\n"
        "  export function helper() { return 2; }\n}\nconst api = {\n  get() { return 1; },\n  put: () => 2,\n};\n"
        "function Legacy() {}\nLegacy.prototype.run = function () { return 3; };\n"
    ),
    "shop.rs": (
        "mod store {\n    pub struct Cart;\n    impl Cart { pub fn add(&self) {} }\n    pub fn total() {}\n"
        "    mod inner { pub fn deep() {} }\n}\nimpl std::fmt::Display for Order { fn fmt(&self) {} }\n"
    ),
    "Shop.cs": "namespace Shop.Billing {\n  class Cart { void Add() {} class Line { int Price() { return 1; } } }\n}\n",
    "Shop.php": (
        "<?php\nnamespace Shop\\Billing;\nclass Cart { function add($x) { return $x; } }\n"
        "function helper() { return 2; }\n"
    ),
    "Shop.java": "package shop.billing;\nclass Cart { void add() {} static class Line { int price() { return 1; } } }\n",
    "shop.go": "package cart\ntype Cart struct{}\nfunc (c *Cart) Add() {}\nfunc Total() int { return 1 }\n",
    "shop.py": (
        "class Cart:\n    def add(self):\n        def inner(): pass\n    class Line:\n        def price(self): pass\n"
        "def helper(): pass\n"
    ),
    "shop.js": "class Cart { add() {} }\nCart.prototype.legacy = function () {};\nconst api = { get() {} };\n",
    "shop.c": "struct cart {\n  int n;\n};\nint cart_add(struct cart *c) {\n  return c->n;\n}\n",
}

EXPECTED = {  # function -> module, by each file's outline
    "shop.cpp": {
        "shop::cart::Cart::add": "shop::cart::Cart",  # nested namespaces prefix, the class is the module
        "shop::cart::Cart::Line::price": "shop::cart::Cart",
        "shop::cart::Cart::total": "shop::cart::Cart::total",  # defined outside its class: top level
        "shop::cart::free_total": "shop::cart::free_total",
    },
    "shop.rb": {
        "Shop.Billing.Cart.add": "Shop.Billing.Cart",  # modules prefix, the class is the module
        "Shop.Billing.Cart.Line.price": "Shop.Billing.Cart",
        "Shop.Billing.helper": "Shop.Billing.helper",  # a module's method is top level
        "Shop.Order.place": "Shop.Order",  # class Shop::Order
    },
    "shop.ts": {
        "Shop.Billing.Cart.add": "Shop.Billing.Cart",  # namespaces prefix
        "Shop.Billing.helper": "Shop.Billing.helper",
        "api.get": "api.get",  # an object literal is a namespace
        "api.put": "api.put",
        "Legacy.run": "Legacy.run",  # a prototype assignment is top level
    },
    "shop.rs": {"store::Cart.add": "store::Cart", "store::total": "store::total",
                "store::inner::deep": "store::inner::deep", "Order.fmt": "Order"},  # fmt: skip
    "Shop.cs": {"Cart.Add": "Cart", "Cart.Line.Price": "Cart"},  # the namespace is left out
    "Shop.php": {"Cart.add": "Cart", "helper": "helper"},
    "Shop.java": {"Cart.add": "Cart", "Cart.Line.price": "Cart"},  # the package is left out
    "shop.go": {"Cart.Add": "Cart.Add", "Total": "Total"},  # a method is top level
    "shop.py": {"Cart.add": "Cart", "Cart.Line.price": "Cart", "helper": "helper"},
    "shop.js": {"Cart.add": "Cart", "Cart.legacy": "Cart.legacy", "api.get": "api.get"},
    "shop.c": {"cart_add": "cart_add"},
}


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_the_module_of_each_function_follows_its_languages_nesting(path: str) -> None:
    definitions = outline(path, SOURCES[path]).definitions
    found = {name: module_of(path, name, definitions) for name in EXPECTED[path]}
    assert found == EXPECTED[path]
    functions = [f"{path}:{name}" for name in EXPECTED[path]]
    names = module_names(definitions)
    assert modules_of_functions(functions, lambda p: names if p == path else None) == list(
        dict.fromkeys(f"{path}:{module}" for module in EXPECTED[path].values())
    )


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_the_truth_of_a_change_in_each_function_names_the_same_module(path: str) -> None:
    definitions = outline(path, SOURCES[path]).definitions
    for name, module in EXPECTED[path].items():
        (function,) = [d for d in definitions if d.qualname == name]
        entities = changed_entities(path, SOURCES[path], [function.end])
        assert f"{path}:{module}" in entities.modules, name
        assert [m for m in entities.modules if m != f"{path}:{module}"] == [], name


def test_names_alone_give_the_module_where_the_name_shows_it() -> None:
    functions = ["a.py:Cart.add", "a.py:Cart.Line.price", "b.go:Cart.Add", "c.rs:store::Cart.add", "d.cpp:ns::f",
                 "e.java:Cart.add", "f.cs:Cart.Add", "g.php:Cart.add", "h.c:cart_add", "no_path", "i.txt:x.y"]  # fmt: skip
    assert modules_of(functions) == ["a.py:Cart", "b.go:Cart.Add", "c.rs:store::Cart", "d.cpp:ns::f", "e.java:Cart",
                                     "f.cs:Cart", "g.php:Cart", "h.c:cart_add", "i.txt:x"]  # fmt: skip
    assert modules_of(["C:/repo/a.py:Cart.add", "lib.rs:store::inner::Cart.add"]) == [
        "C:/repo/a.py:Cart", "lib.rs:store::inner::Cart"]  # fmt: skip
    assert RetrievalResult(files=[], functions=["a.py:Cart.add"]).modules == ["a.py:Cart"]
    assert module_of("shop.rb", "Shop.Order.place") == "Shop"  # without the outline: the name's first part
    assert module_of("shop.rb", "Shop.Order.place", outline("shop.rb", SOURCES["shop.rb"]).definitions) == "Shop.Order"
    assert module_of("shop.py", "Gone.f", outline("shop.py", SOURCES["shop.py"]).definitions) == "Gone"
