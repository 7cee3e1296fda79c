"""Functions, methods and top-level definitions containing changed lines (goldset/entities.py)."""

from __future__ import annotations

import pytest

from pytest_codesearch.goldset.entities import Entities, changed_entities
from pytest_codesearch.goldset.patch import Insertion

SOURCE = '''\
"""Module docstring."""
import os

LIMIT = 3


@decorator
@other(
    arg=1,
)
def top(x):
    return x


class Shop:
    rate = 2

    def buy(self):
        def helper():
            return 1
        return helper()

    @property
    def total(self):
        return 0

    class Inner:
        def deep(self):
            pass


if os.name == "nt":
    def windows_only():
        pass

async def fetch():
    return None
'''
# line numbers: top's decorators 7-10, def 11-12; Shop 15-29 (rate 16, buy 18-21, helper 19-20,
# total 23-25 with decorator 23, Inner 27-29, deep 28-29); windows_only 33-34; fetch 36-37.


@pytest.mark.parametrize(
    ("lines", "functions", "modules"),
    [
        ([2, 4], (), ()),  # outside every definition: file level only
        ([8], ("m.py:top",), ("m.py:top",)),  # a decorator belongs to its definition
        ([12], ("m.py:top",), ("m.py:top",)),
        ([16], (), ("m.py:Shop",)),  # a class attribute: the class, no function
        ([20], ("m.py:Shop.buy",), ("m.py:Shop",)),  # a nested function counts for its enclosing method
        ([23], ("m.py:Shop.total",), ("m.py:Shop",)),
        ([29], ("m.py:Shop.Inner.deep",), ("m.py:Shop",)),
        ([34], ("m.py:windows_only",), ("m.py:windows_only",)),  # defined under an if: still top level
        ([37, 12, 21], ("m.py:top", "m.py:Shop.buy", "m.py:fetch"), ("m.py:top", "m.py:Shop", "m.py:fetch")),
        ([], (), ()),
    ],
)
def test_entities_containing_lines(lines: list[int], functions: tuple[str, ...], modules: tuple[str, ...]) -> None:
    assert changed_entities("m.py", SOURCE, lines) == Entities(functions, modules)


def test_bytes_are_parsed_like_text() -> None:
    expected = Entities(("pkg/m.py:Shop.Inner.deep",), ("pkg/m.py:Shop",))
    assert changed_entities("pkg/m.py", SOURCE.encode(), [28]) == expected


@pytest.mark.parametrize("source", [b"\xff\xfe\x00binary", "int main() { return 0; }\n", "x = 1\0\n"])
def test_unparseable_sources_give_no_entities(source: str | bytes) -> None:
    assert changed_entities("m.py", source, [1]) == Entities((), ())


def test_a_python_file_ast_cannot_parse_gets_what_tree_sitter_recovers() -> None:
    source = "def broken(:\n    pass\n\n\ndef fine():\n    return 1\n"
    assert changed_entities("m.py", source, [2, 6]) == Entities(("m.py:broken", "m.py:fine"), ("m.py:broken", "m.py:fine"))


@pytest.mark.parametrize(
    "source",
    [
        "x = " + "(" * 300 + ")" * 300 + "\n",  # SyntaxError: too many nested parentheses
        "x = " + "+".join(["1"] * 200_000) + "\n",  # RecursionError while building the tree
        "x = " + "-" * 100_000 + "1\n",  # MemoryError in the parser
    ],
)
def test_code_too_deep_for_the_parser_gives_no_entities(source: str) -> None:
    assert changed_entities("deep.py", source, [1]) == Entities((), ())


@pytest.mark.parametrize(
    ("before", "indent", "functions", "modules"),
    [
        (20, 12, ("m.py:Shop.buy",), ("m.py:Shop",)),  # between two lines of buy
        (22, 4, (), ("m.py:Shop",)),  # a new method between buy and total: the class only
        (22, 8, ("m.py:Shop.buy",), ("m.py:Shop",)),  # appended to buy's body, past a blank line
        (13, 0, (), ()),  # a new top-level function after top
        (13, 4, ("m.py:top",), ("m.py:top",)),  # appended to top's body
        (7, 0, (), ()),  # before top's first decorator
        (11, 0, ("m.py:top",), ("m.py:top",)),  # between its decorators and its def line
        (36, None, (), ()),  # only blank lines before fetch
    ],
)
def test_entities_around_inserted_lines(
    before: int, indent: int | None, functions: tuple[str, ...], modules: tuple[str, ...]
) -> None:
    """Inserted lines change no base line: they count for the definition they go into or extend."""
    inserted = [Insertion(before, indent)]
    assert changed_entities("m.py", SOURCE, [], inserted) == Entities(functions, modules)
