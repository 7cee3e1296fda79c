"""Outlines derived from a neighbouring version equal those of the whole file parsed, on random sources."""

from __future__ import annotations

import ast
import random

import pytest

from pytest_codesearch.goldset.entities import definition_spans
from pytest_codesearch.mining import outline as outline_module
from pytest_codesearch.mining.outline import Outline, derive_outline, parse_outline
from pytest_codesearch.mining.outlines import Outlines, affix_hunks
from pytest_codesearch.mining.spans import diff_hunks
from pytest_codesearch.outline.model import Definition
from pytest_codesearch.outline.python import parse_module

_BLOCKS = [
    ["def f{n}(x):", "    return x"],
    ["@decorate", "@other(", "    1)", "def g{n}(", "    a, b,", "):", "    def inner():", "        pass",
     "    return 1"],
    ["class C{n}(Base):", '    """Doc."""', "", "    x = 1", "", "    def m(self):", "        return 2", "",
     "    @property", "    def p(self):", "        '''", "def fake():", "        '''", "        return 3",
     "    class Inner:", "        def deep(self): pass"],
    ["class D{n}:", "    def a(self): pass", "    # a comment", "    def b(self):", "        pass"],
    ["if X:", "    def h{n}(): pass", "else:", "    class E{n}: pass"],
    ['S{n} = """', "def not_a_function():", "class NotAClass:", '"""'],
    ["try:", "    import x", "except ImportError:", "    def fallback{n}(): pass"],
    ["async def co{n}():", "    await x"],
    ["V{n} = (", "    1,", ")", "W{n} = 1; Z{n} = 2"],
    ["class K{n}(", "    Base,", "): pass"],
    ["def long{n}(a):", "    x = 1", "    if a:", "        return x", "    def helper():", "        return 2",
     "    class Local:", "        def m(self):", "            return 3", "", "    return helper"],
    ["# comment {n}", ""],
]  # fmt: skip
_NOISE = [
    "", "    pass", "def loose():", "        return 4", "class Late:", "    def late(self): pass", "else:",
    '"""', "x = (", ")", "print 'py2'", "\tdef tabbed(self): pass", "    @property", "  odd = 1", "@decorate",
    "    def added(self):", "        return 5", "def top(): pass", "# -*- coding: latin-1 -*-", "y = 1 \\",
]  # fmt: skip


def _source(rng: random.Random) -> list[str]:
    lines: list[str] = []
    for n in range(rng.randint(1, 8)):
        lines += [line.format(n=n) for line in rng.choice(_BLOCKS)]
    return lines


def _edited(rng: random.Random, lines: list[str]) -> list[str]:
    """Return ``lines`` with a few edits: most keep the file valid (inside methods, between members)."""
    lines = list(lines)
    for _ in range(rng.randint(1, 3)):
        at, roll = rng.randint(0, len(lines)), rng.random()
        starts = ("    def ", "    @", "    x = ", "    class ")
        members = [i for i, line in enumerate(lines) if line.startswith(starts)]
        bodies = [i for i, line in enumerate(lines) if line.startswith("        return")]
        if bodies and roll < 0.3:
            lines[rng.choice(bodies)] = rng.choice(["        return 9", "        x = (", "        pass"])
        elif members and roll < 0.45:  # a member goes: up to the next line indented 4 or less
            at = rng.choice(members)
            end = next((i for i in range(at + 1, len(lines)) if lines[i][:5].strip() or not lines[i][4:5]), len(lines))
            del lines[at:end]
        elif members and roll < 0.6:
            at = rng.choice(members)
            lines[at:at] = rng.choice([["    def added(self):", "        return 5"], ["    y = 2"], ["  z = 3"]])
        elif roll < 0.8:
            tops = [i for i, line in enumerate(lines) if line[:1].isalpha()] or [0]
            at = rng.choice(tops) if roll < 0.7 else at
            lines[at:at] = [line.format(n=99) for line in rng.choice(_BLOCKS)] if roll < 0.7 else [rng.choice(_NOISE)]
        elif lines and roll < 0.9:
            del lines[min(at, len(lines) - 1) : at + rng.randint(1, 4)]
        elif lines:
            lines[min(at, len(lines) - 1)] = rng.choice(_NOISE)
    return lines


def _text(lines: list[str], rng: random.Random) -> bytes:
    return ("\n".join(lines) + rng.choice(["\n", ""])).encode()


def _definitions(outline: Outline | None) -> tuple[Definition, ...]:
    return () if outline is None else outline.definitions


@pytest.mark.parametrize("chunk_bytes", [outline_module.CHUNK_BYTES, 40], ids=["whole", "chunked"])
@pytest.mark.parametrize("cut_lines", [0, 4, outline_module.CUT_LINES])
@pytest.mark.parametrize("seed", range(4))
def test_derived_outlines_equal_whole_parses_along_a_history(
    seed: int, cut_lines: int, chunk_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each version is derived from the next newer one, itself derived: as the miner walks a history
    (with every body cut, with those of 4 lines or more, and with the default's; with pieces parsed at once,
    and in chunks of a few statements)."""
    monkeypatch.setattr(outline_module, "CUT_LINES", cut_lines)
    monkeypatch.setattr(outline_module, "CHUNK_BYTES", chunk_bytes)
    rng = random.Random(seed)
    for _ in range(300):
        child = _text(_source(rng), rng)
        outline = parse_outline(child)
        for _ in range(8):
            parent = _text(_edited(rng, child.decode().split("\n")), rng)
            hunks = diff_hunks(parent, child) if rng.random() < 0.7 else affix_hunks(parent, child)
            found = derive_outline(parent, child, outline, hunks) if outline is not None else parse_outline(parent)
            assert _definitions(found) == definition_spans(parent), (parent, child)
            if found is not None:
                whole = parse_outline(parent)
                assert whole is not None and found.bodies == whole.bodies, (parent, child)
                assert set(whole.boundaries) <= set(found.boundaries), (parent, child)  # and the cuts between pieces
            if found is None:
                break  # a version that does not parse: start a new history
            child, outline = parent, found


@pytest.mark.parametrize("seed", range(4))
def test_sources_parsed_in_chunks_outline_as_parsed_at_once(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut before top-level definitions into chunks of a few statements, random sources (strings holding
    ``def`` lines, decorators over several lines, continued lines, Python 2) give the outline of one parse:
    definitions, bodies and cuts alike, and None for a source that does not parse."""
    rng = random.Random(f"{seed}-chunks")
    chunked = 0
    for _ in range(300):
        source = _text(_edited(rng, _source(rng)), rng)
        monkeypatch.setattr(outline_module, "CHUNK_BYTES", 1 << 30)
        whole = parse_outline(source)
        monkeypatch.setattr(outline_module, "CHUNK_BYTES", rng.choice([20, 40, 80]))
        chunked += outline_module._chunks(source, 0) is not None
        assert parse_outline(source) == whole, source
        assert _definitions(whole) == definition_spans(source)
    assert chunked > 200  # most sources were cut


def test_a_large_source_is_cut_before_lines_of_code_at_its_column(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cuts fall before a line of code at the statements' column, at least ``CHUNK_BYTES`` apart: never before a
    comment, a closing bracket, a clause (``else:``), a deeper line, or between a decorator and what it decorates."""
    monkeypatch.setattr(outline_module, "CHUNK_BYTES", 100)
    comments = b"# a comment line of twenty bytes\n" * 4  # 132 bytes: no cut inside
    source = comments + b"x = (\n    1,\n)\n" + comments + b"if a:\n    b = 1\n" + comments + b"else:\n    c = 2\n"
    source += comments + b"@a\n@b\ndef f():\n    pass\n" + comments + b"y = 3\n"
    cuts = outline_module._chunks(source, 0)
    firsts = [source[start:past].split(b"\n")[0] for start, past, _ in cuts]
    assert firsts == [b"# a comment line of twenty bytes", b"x = (", b"if a:", b"@a", b"y = 3"]
    assert [before for _, _, before in cuts] == [0, 4, 11, 23, 31]
    member = b"    x = 1\n" * 30 + b"        deeper = 1\n" * 10 + b"    # c\n    y = 2\n"
    starts = [start for start, _, _ in outline_module._chunks(member, 4)]
    assert starts == [0, 100, 200, 290, 498]  # 290: a statement over 200 bytes, alone
    assert outline_module._chunks(member, 0) is None  # nothing at the module's own column


def test_one_large_statement_is_outlined_from_its_body_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shape of sympy's generated rule files: a large function (or ``if``) alone, with no line at the
    module's column to cut it at, is read from its header and its body's chunks, as one parse reads it."""
    assignments = b"".join(b"    pattern%d = Pattern(Int(x_), cons%d)\n" % (n, n) for n in range(300))
    source = b"if matchpy:\n    from x import y\n\n" + b"def sine(rubi):\n" + assignments
    source += b"    def cons(a):\n        return a\n" + assignments + b"    return rubi\n"
    whole = parse_outline(source)
    assert whole is not None
    assert [(d.qualname, d.start, d.end) for d in whole.definitions] == [("sine", 4, 607), ("sine.cons", 305, 306)]
    monkeypatch.setattr(outline_module, "CHUNK_BYTES", 1_000)
    assert outline_module._chunks(source, 0) == [(0, 33, 0), (33, len(source), 3)]
    assert outline_module._one_statement(source[33:], 3) is not None
    assert parse_outline(source) == whole
    monkeypatch.setattr(outline_module, "CHUNK_BYTES", 100)
    assert parse_outline(source) == whole
    assert outline_module._one_statement(b"@decorated\n" + source[33:], 3) is None  # a decorator: parsed at once


def test_a_class_losing_its_last_method_ends_where_its_new_last_one_does() -> None:
    child = b"class A:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n\n\n"
    child += b"class B:\n    pass\n"
    parent = b"class A:\n    def a(self):\n        return 1\n\nclass B:\n    pass\n"
    outline = parse_outline(child)
    assert outline is not None
    found = derive_outline(parent, child, outline, diff_hunks(parent, child))
    assert found is not None and found.definitions == definition_spans(parent)
    assert (found.definitions[0].start, found.definitions[0].end) == (1, 3)


def _derived_parsing(monkeypatch: pytest.MonkeyPatch, parent: bytes, child: bytes) -> tuple[Outline, list[bytes]]:
    """Return ``parent``'s outline derived from ``child``'s with every body cut (``CUT_LINES`` 0), checked
    against a whole parse, and the texts the derivation parsed, in order."""
    monkeypatch.setattr(outline_module, "CUT_LINES", 0)
    outline = parse_outline(child)
    assert outline is not None
    parsed: list[bytes] = []

    def parse(text: bytes) -> ast.Module | None:
        parsed.append(text)
        return parse_module(text)

    monkeypatch.setattr(outline_module, "parse_module", parse)
    found = derive_outline(parent, child, outline, diff_hunks(parent, child))
    assert found is not None and found.definitions == definition_spans(parent)
    return found, parsed


def test_a_function_added_after_a_class_is_outside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines the diff puts at the end of a class's body, less indented than it, are read at the top level."""
    child = b"class A:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n\nx = 1\n"
    parent = child.replace(b"\nx = 1", b"\ndef f():\n    class B:\n        pass\n\nx = 1").replace(b"1\n\n", b"5\n\n")
    found, parsed = _derived_parsing(monkeypatch, parent, child)
    assert parsed == [b"class _:\n        return 5\n\n", b"def f():\n    class B:\n        pass\n\n"]
    assert [(d.qualname, d.start, d.end) for d in found.definitions] == [
        ("A", 1, 6), ("A.a", 2, 3), ("A.b", 5, 6), ("f", 8, 10), ("f.B", 9, 10)
    ]


def test_a_changed_header_is_parsed_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A class whose decorator changed keeps its unchanged members: its header is parsed with a stub body."""
    child = b"x = 1\n\n@old\nclass A(B):\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n"
    parent = child.replace(b"@old\nclass A(B):", b"# new\n@new(\n    1)\nclass A(B, C):").replace(b"2\n", b"3\n")
    found, parsed = _derived_parsing(monkeypatch, parent, child)
    assert [(d.qualname, d.start, d.end) for d in found.definitions] == [("A", 4, 11), ("A.a", 7, 8), ("A.b", 10, 11)]
    assert parsed == [b"# new\n@new(\n    1)\nclass A(B, C):\n    pass\n", b"class _:\n        return 3\n"]


def test_outlines_follow_each_path() -> None:
    """The outline kept for a path is derived from through the hunks when it is the child's, else by a diff."""
    blobs = {
        b"new": b"class A:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n",
        b"old": b"class A:\n    def a(self):\n        return 0\n\n    def b(self):\n        return 2\n",
        b"older": b"class A:\n    def a(self):\n        return 0\n\n    def c(self):\n        return 2\n",
        b"bad": b"class A:\n    def a(self)\n",
    }
    outlines = Outlines(blobs.__getitem__, lambda source, base: affix_hunks(blobs[source], blobs[base]))
    for old, new in [(b"new", None), (b"old", b"new"), (b"older", b"elsewhere"), (b"bad", b"older")]:
        hunks = diff_hunks(blobs[old], blobs[new] if new in blobs else b"")
        assert _definitions(outlines.outline("m.py", old, new, hunks)) == definition_spans(blobs[old])
    assert [d.qualname for d in _definitions(outlines.outline("m.py", b"older", None, []))] == ["A", "A.a", "A.c"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (b"x = 1\r\ny = 2\r\n", True),
        (b"x = 1\ry = 2\n", False),  # Python counts a bare carriage return as a line end; a diff does not
        (b"# -*- coding: utf-8 -*-\nx = 1\n", True),
        (b"#!/usr/bin/env python\n# coding: latin-1\nx = 1\n", False),
        (b"x = 1\n\n# coding: latin-1\n", True),  # past the second line: no declaration
        (b"from __future__ import barry_as_FLUFL\n", False),
    ],
)
def test_which_sources_are_cut(source: bytes, expected: bool) -> None:
    from pytest_codesearch.mining.outline import sliceable

    assert sliceable(source) is expected
