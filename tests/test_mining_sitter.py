"""Mining outlines of non-Python files reparse each version from the tree of the version met before:
they must find what outlining each version whole finds, along random histories."""

from __future__ import annotations

import hashlib
import random

import pytest
from language_samples import SAMPLES, Sample

from pytest_codesearch.goldset.entities import Entities, entities_in_spans
from pytest_codesearch.mining.hunkcompose import composed
from pytest_codesearch.mining.regions import Text, _child_after, _grow, region_definitions, top_level
from pytest_codesearch.mining.sitter import TREE_BUDGET, TreeOutlines, edited, line_offsets
from pytest_codesearch.mining.spans import diff_hunks, old_side
from pytest_codesearch.outline import grammar, language_of, outline, source_language
from pytest_codesearch.outline.model import Definition

TREE_SAMPLES = [s for s in SAMPLES if s.language != "python"]


def _mutate(rng: random.Random, text: bytes, pool: list[bytes]) -> bytes:
    """Return ``text`` with a few lines deleted, duplicated or taken from ``pool`` (code of the language)."""
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(lines) + 1)
        action = rng.random()
        if action < 0.3 and lines:
            del lines[min(at, len(lines) - 1)]
        elif action < 0.6:
            lines.insert(at, rng.choice(pool))
        elif lines:
            lines.insert(at, lines[min(at, len(lines) - 1)])
    return b"".join(lines)


REGRESSIONS = [("java", 13), ("typescript", 65), ("c", 168), ("c", 274), ("cpp", 117), ("cpp", 185)]
"""Histories that found what whole outlines do not: seeds 13, 65 and 168 reparsed a tree with errors
incrementally (tree-sitter's recovery then differs from a whole parse's); 274, 117 and 185 took a region
whose own parse recovered from an error (the whole file's recovery ended a node elsewhere, over a frame)."""
BY_LANGUAGE = {s.language: s for s in TREE_SAMPLES}
HISTORIES = [(s, 7) for s in TREE_SAMPLES] + [(BY_LANGUAGE[language], seed) for language, seed in REGRESSIONS]


@pytest.mark.parametrize("tree_budget", [TREE_BUDGET, 0], ids=["trees-kept", "trees-let-go"])
@pytest.mark.parametrize(("sample", "seed"), HISTORIES, ids=[f"{s.language}-{seed}" for s, seed in HISTORIES])
def test_reparsed_outlines_find_what_whole_outlines_find(sample: Sample, seed: int, tree_budget: int) -> None:
    """Along a random history, newest first, each parent's definitions around its changed lines are those a
    whole outline finds: with clean trees kept, and with every tree let go at once (the entries keep their
    top-level nodes alone, as past ``TREE_BUDGET``)."""
    _check_random_history(sample, f"{seed}-{sample.language}", tree_budget)


ERROR_ROOTS = [("rust", "4-rust-x"), ("ruby", "17-ruby-x"), ("ruby", "236-ruby-x")]
"""Histories (random seeds of a wider search) that found what whole outlines do not: the first two took a region
whose own parse was an error root; the third read Ruby from regions framed by an ``end`` the whole file gives
to an earlier ``def`` (Ruby is no longer read from regions)."""


@pytest.mark.parametrize("tree_budget", [TREE_BUDGET, 0], ids=["trees-kept", "trees-let-go"])
@pytest.mark.parametrize(("language", "seed"), ERROR_ROOTS, ids=[seed for _, seed in ERROR_ROOTS])
def test_regions_that_misled_random_histories_are_not_trusted(language: str, seed: str, tree_budget: int) -> None:
    _check_random_history(BY_LANGUAGE[language], seed, tree_budget)


def _check_random_history(sample: Sample, seed: str, tree_budget: int) -> None:
    """Outline a random history of ``sample`` newest first and check each parent against a whole outline."""
    rng = random.Random(seed)
    path, text = next(iter(sample.fixed().items()))
    pool = [line for file in (*sample.files.values(), *sample.fixed().values()) for line in file.encode().splitlines(True)]
    versions = [text.encode()]
    for _ in range(40):
        versions.append(_mutate(rng, versions[-1], pool))
    _outline_history(path, versions, tree_budget)


def _outline_history(
    path: str, versions: list[bytes], tree_budget: int = TREE_BUDGET, language: str | None = None
) -> int:
    """Outline each parent of ``versions`` (oldest first) newest first, as the miner does, and check it against
    a whole outline (``outline``'s, or the tree-sitter grammar's of ``language`` when given); return how many were
    answered from regions (the kept version stayed the child's)."""
    blobs = {hashlib.sha1(v).digest(): v for v in versions}
    ids = [hashlib.sha1(v).digest() for v in versions]
    trees = TreeOutlines(blobs.__getitem__, lambda a, b: diff_hunks(blobs[a], blobs[b]), tree_budget=tree_budget)
    reference = None if language is None else grammar(language)
    from_regions = 0
    for index in range(len(versions) - 1, 0, -1):  # newest first: the parent is versions[index - 1]
        parent, child = ids[index - 1], ids[index]
        hunks = diff_hunks(blobs[parent], blobs[child])
        spans = old_side(blobs[parent], hunks)
        if not spans:
            continue
        read_as = language or source_language(path, blobs[parent])  # as the miner reads it: a header by its content
        assert read_as is not None
        found = trees.definitions(path, read_as, (parent, child), hunks, spans)
        whole = outline(path, blobs[parent]).definitions if reference is None else reference.outline(blobs[parent])[0]
        assert entities_in_spans(path, found, spans) == entities_in_spans(path, whole, spans), index
        kept = trees._by_path.get(path)
        from_regions += kept is not None and kept.blob != parent
    return from_regions


def test_edits_that_do_not_account_for_every_byte_are_refused() -> None:
    base_text, source_text = b"int a;\nint b;\n", b"int a;\nint c = 1;\n"
    base, source = (base_text, line_offsets(base_text)), (source_text, line_offsets(source_text))
    tree = grammar("c").parse(base_text)
    assert edited(tree, base, source, [(2, 1, 2, 1)]) is not None
    assert edited(grammar("c").parse(base_text), base, source, [(1, 1, 1, 1)]) is None  # the wrong line
    assert edited(grammar("c").parse(base_text), base, source, [(5, 1, 5, 1)]) is None  # past the end
    assert list(line_offsets(b"a\nbc")) == [0, 2, 4]
    assert list(line_offsets(b"a\nbc\n")) == [0, 2, 5]
    assert list(line_offsets(b"")) == [0]


_C_FILE = b"#include <stdio.h>\n\n" + b"".join(
    b"static int f%d(int a)\n{\n\treturn a + %d;\n}\n\n" % (n, n) for n in range(1, 9)
)  # eight functions of five lines, from line 3 on: f4 holds lines 18 to 21


def test_a_change_inside_one_c_function_is_outlined_from_its_region_alone() -> None:
    """The parent of a commit that edits ``f4`` is outlined from ``f4`` and its neighbours only, finding
    what outlining it whole finds; the kept tree stays the child's, mapped to the parent."""
    child = _C_FILE.replace(b"a + 4;", b"a + 4 + 1;")
    blobs = {b"p": _C_FILE, b"c": child}
    trees = TreeOutlines(blobs.__getitem__, lambda a, b: diff_hunks(blobs[a], blobs[b]))
    trees.definitions("x.c", "c", (b"c", None), [], [(1, 1)])  # the child, met first, parsed whole
    hunks = diff_hunks(_C_FILE, child)
    found = trees.definitions("x.c", "c", (b"p", b"c"), hunks, old_side(_C_FILE, hunks))
    assert [(d.qualname, d.start, d.end) for d in found] == [("f4", 18, 21)]
    kept = trees._by_path["x.c"]
    assert (kept.blob, kept.version, kept.edits) == (b"c", b"p", ((20, 1, 20, 1),))


def _parent_outlined_after(
    parent: bytes, child: bytes, path: str = "x.c"
) -> tuple[TreeOutlines, tuple[Definition, ...], tuple[tuple[int, int], ...]]:
    """Outline ``child`` whole, then ``parent`` from it as the miner does; return the outlines, the parent's
    definitions and the old-side spans of the change."""
    blobs = {b"p": parent, b"c": child}
    trees = TreeOutlines(blobs.__getitem__, lambda a, b: diff_hunks(blobs[a], blobs[b]))
    language = language_of(path)
    assert language is not None
    trees.definitions(path, language, (b"c", None), [], [(1, 1)])
    hunks = diff_hunks(parent, child)
    spans = old_side(parent, hunks)
    return trees, trees.definitions(path, language, (b"p", b"c"), hunks, spans), spans


def test_a_region_that_does_not_parse_is_not_trusted() -> None:
    """A function that does not parse (``int x = ;``) is not read from its region, even with both neighbours
    coming back whole: how tree-sitter recovers inside it depends on the text after it. The file is
    reparsed whole (not from the child's tree: it has an error too), and that tree kept."""
    parent = _C_FILE.replace(b"\treturn a + 4;", b"\tint x = ;\n\treturn a + 4;")
    child = parent.replace(b"a + 4;", b"a + 4 + 1;")
    trees, found, spans = _parent_outlined_after(parent, child)
    assert entities_in_spans("x.c", found, spans) == entities_in_spans("x.c", outline("x.c", parent).definitions, spans)
    assert [(d.qualname, d.start, d.end) for d in found] == [("f4", 18, 22)]
    assert trees._by_path["x.c"].blob == b"p"  # parsed whole: the parent's tree is kept


def test_a_region_whose_frame_does_not_come_back_falls_back_to_the_whole_file() -> None:
    """A parent whose ``f4`` opens a block it never closes swallows the functions after it: its region's
    parse loses the frame ``f5``, so the file is reparsed whole (and that tree kept)."""
    parent = _C_FILE.replace(b"a + 4;", b"a + 4; {")
    trees, found, spans = _parent_outlined_after(parent, _C_FILE)
    assert entities_in_spans("x.c", found, spans) == entities_in_spans("x.c", outline("x.c", parent).definitions, spans)
    assert [d.qualname for d in found] == ["f4"] and found[0].end > 30  # to the end of the file
    assert trees._by_path["x.c"].blob == b"p"


def test_a_region_whose_parse_is_an_error_root_is_not_trusted() -> None:
    """A parent that opens a Rust function it never closes (``fn inner() -> u32 {``) before an ``impl``: the
    region's own parse comes back as an error root holding the frame whole beside fragments, but the whole
    file's ``inner`` swallows the ``impl``. The region is not trusted; the whole parse names ``inner``."""
    child = (
        b"pub struct Cart {\n    n: u32,\n}\n\nimpl Cart {\n    pub fn add(&mut self, item: u32) -> u32 {\n"
        b"        keep(item)\n    }\n    }\n    }\n    }\n        fn inner() -> u32 {\n\n"
        b"    pub fn total(&self) -> u32 {\n        4\n    }\n    }\n"
        + b"".join(b"\nfn f%d() -> u32 {\n    %d\n}\n" % (n, n) for n in range(6))
    )  # from a random history: braces astray after the impl (the child keeps no tree), the region under half
    parent = child.replace(b"}\n\nimpl", b"}\n        fn inner() -> u32 {\n\nimpl")
    trees, found, spans = _parent_outlined_after(parent, child, "cart.rs")
    whole = outline("cart.rs", parent).definitions
    assert entities_in_spans("cart.rs", found, spans) == entities_in_spans("cart.rs", whole, spans)
    assert [d.qualname for d in found if d.start == 4] == ["inner"]
    assert trees._by_path["cart.rs"].blob == b"p"  # parsed whole


def test_composed_hunks_map_the_first_version_onto_the_third() -> None:
    first = b"a\nb\nc\nd\n"
    second = b"a\nB\nc\nd\ne\n"
    third = b"x\na\nB\nc\ne\n"
    hunks = composed(diff_hunks(first, second), diff_hunks(second, third), (4, 5, 5))
    assert hunks == [(0, 0, 1, 1), (2, 1, 3, 1), (4, 1, 5, 1)]  # x added; b, d replaced
    assert composed([(9, 1, 9, 1)], [], (4, 4, 4)) is None  # a hunk past the end does not fit


def test_a_version_met_again_on_another_branch_is_answered_from_what_was_kept() -> None:
    """Two branches edit ``f4`` of the same parent: the second meets a version the first already outlined.
    A parent parsed whole answers from its kept tree (no parse); one outlined from a region maps to the
    kept tree through the kept edits. Both find what outlining the parent whole finds. A parent with an
    error is kept as its top-level nodes alone (never reparsed): met again, it is parsed again."""
    broken = _C_FILE.replace(b"\treturn a + 4;", b"\tint x = ;\n\treturn a + 4;")
    for parent, first, kept_blob in ((_C_FILE, b"p", b"p"), (_C_FILE, b"c", b"c"), (broken, b"c", b"p")):
        child, other = parent.replace(b"a + 4;", b"a + 4 + 1;"), parent.replace(b"a + 4;", b"a + 4 + 2;")
        blobs = {b"p": parent, b"c": child, b"o": other}
        trees = TreeOutlines(blobs.__getitem__, lambda a, b: diff_hunks(blobs[a], blobs[b]))
        trees.definitions("x.c", "c", (first, None), [], [(1, 1)])  # parsed whole
        for branch in (b"c", b"o"):
            hunks = diff_hunks(parent, blobs[branch])
            spans = old_side(parent, hunks)
            found = trees.definitions("x.c", "c", (b"p", branch), hunks, spans)
            whole = outline("x.c", parent).definitions
            assert entities_in_spans("x.c", found, spans) == entities_in_spans("x.c", whole, spans)
            assert entities_in_spans("x.c", found, spans) == Entities(("x.c:f4",), ("x.c:f4",))
            if branch == b"c":
                kept = trees._by_path["x.c"]
        again = trees._by_path["x.c"]
        assert again.blob == kept_blob
        if parent is broken:
            assert again.tree is None and again.tops is not None and again is not kept
        else:  # the second branch reparsed nothing
            assert (again.tree, again.tops) == (kept.tree, kept.tops) and again.tree is not None


def test_trees_past_the_budget_are_let_go_and_their_entries_still_answer() -> None:
    """Two clean files kept whole with room for one tree: the older loses its tree but keeps its top-level
    nodes, and its next parent is still outlined from a region (no parse of the whole file), as outlining
    it whole finds."""
    other = _C_FILE.replace(b"f", b"g")
    child = _C_FILE.replace(b"a + 4;", b"a + 4 + 1;")
    blobs = {b"p": _C_FILE, b"c": child, b"o": other}
    trees = TreeOutlines(blobs.__getitem__, lambda a, b: diff_hunks(blobs[a], blobs[b]), tree_budget=len(child))
    trees.definitions("x.c", "c", (b"c", None), [], [(1, 1)])
    assert trees._by_path["x.c"].tree is not None
    trees.definitions("y.c", "c", (b"o", None), [], [(1, 1)])
    kept = trees._by_path["x.c"]
    assert kept.tree is None and kept.tops is not None and trees._by_path["y.c"].tree is not None
    hunks = diff_hunks(_C_FILE, child)
    spans = old_side(_C_FILE, hunks)
    found = trees.definitions("x.c", "c", (b"p", b"c"), hunks, spans)
    assert [(d.qualname, d.start, d.end) for d in found] == [("f4", 18, 21)]
    assert entities_in_spans("x.c", found, spans) == entities_in_spans("x.c", outline("x.c", _C_FILE).definitions, spans)
    assert trees._by_path["x.c"].version == b"p"  # from the region: the entry stays the child's


def test_top_level_nodes_are_found_as_tree_sitter_finds_them() -> None:
    """The top-level node holding the first non-blank byte at or after each offset, found from the kept
    summary of the top-level nodes, is the one tree-sitter's own lookup climbs to (comments, blank lines,
    a node with an error and the file's end included)."""
    text = _C_FILE.replace(b"\treturn a + 4;", b"\tint x = ;\n\treturn a + 4;") + b"/* end */\n\n"
    tree = grammar("c").parse(text)
    tops = top_level(tree)
    root = tree.root_node
    assert len(tops.nodes) == root.child_count and not all(node.clean for node in tops.nodes)
    for at in range(len(text) + 1):
        start = len(text) if not text[at:].strip() else at + len(text[at:]) - len(text[at:].lstrip())
        node = root.descendant_for_byte_range(start, start + 1) if start < len(text) else None
        while node is not None and node.parent is not None and node.parent != root:
            node = node.parent
        index = _child_after(tops, at, text)
        expected = None if node is None or node.parent is None else node
        found = None if index is None else root.children[index]
        assert found == expected, at


def test_a_region_holding_an_unedited_error_is_not_tried() -> None:
    """A change to ``f4`` next to an ``f3`` with an error: the region must take in ``f3`` (a frame has no
    error), whose text the change leaves as it is, so its parse would have the error too: the region is
    not tried and the file is parsed whole. When the change itself puts the error in ``f3``, the parent's
    region has none and is read alone."""
    broken = _C_FILE.replace(b"\treturn a + 3;", b"\tint x = ;\n\treturn a + 3;")
    base = broken.replace(b"a + 4;", b"a + 4 + 1;")
    tops, text = top_level(grammar("c").parse(base)), Text(base, line_offsets(base))
    for parent, tried in ((broken, False), (_C_FILE.replace(b"a + 4;", b"a + 4 + 1;"), True)):
        hunks = diff_hunks(parent, base)
        spans = old_side(parent, hunks)
        source = Text(parent, line_offsets(parent))
        found = region_definitions(grammar("c"), tops, text, source, hunks, spans)
        assert (found is not None) == tried
        line = hunks[0][2]  # where the change lies in the base
        region = _grow(tops, text, hunks, line, line)
        assert region is not None and region.doomed == (not tried)
        trees, found_whole, _ = _parent_outlined_after(parent, base)
        expected = entities_in_spans("x.c", outline("x.c", parent).definitions, spans)
        assert entities_in_spans("x.c", found_whole, spans) == expected
        assert expected.functions == (("x.c:f4",) if not tried else ("x.c:f3",))


_MACRO_C = b"#include <stdio.h>\n\n" + b"".join(
    b"static int f%d(void *data UNUSED, int a)\n{\n\tfor_each_item(item, &list) {\n\t\ta += %d;\n\t}\n\treturn a;\n}\n\n"
    % (n, n)
    for n in range(1, 9)
)  # eight functions of seven lines from line 3 on, each with the errors of git's macros: f4 holds lines 27 to 33


def test_a_change_between_functions_with_macro_errors_is_read_from_its_region() -> None:
    """git's attribute macros (``int x UNUSED``) and loop macros (``for_each_item(...) {``) leave an ERROR
    node or a missing ``;`` inside each function that uses them. Such errors stay inside their function, so
    those functions frame and fill regions as clean ones do: the parent is read from ``f4``'s region (the
    kept tree stays the child's) and finds what outlining it whole finds."""
    child = _MACRO_C.replace(b"a += 4;", b"a += 4 + 1;")
    assert grammar("c").parse(_MACRO_C).root_node.has_error
    trees, found, spans = _parent_outlined_after(_MACRO_C, child)
    whole = outline("x.c", _MACRO_C).definitions
    assert entities_in_spans("x.c", found, spans) == entities_in_spans("x.c", whole, spans)
    assert entities_in_spans("x.c", found, spans) == Entities(("x.c:f4",), ("x.c:f4",))
    assert [(d.qualname, d.start, d.end) for d in found] == [("f4", 27, 33)]
    assert trees._by_path["x.c"].blob == b"c"  # not parsed whole


_MACRO_LINES = [
    b"static int g(void *data UNUSED)\n", b"\tfor_each_item(item, &list) {\n", b"\t}\n", b"}\n", b"{\n",
    b"static GIT_PATH_FUNC(git_path_x, \"X\")\n", b"DEFINE_LIST_SORT(static, sort_x, struct x, next);\n",
    b"void NORETURN die_x(const char *m)\n", b"\tcontainer_of(a, const struct entry, ent);\n", b"\treturn a;\n", b"\n",
]


@pytest.mark.parametrize("seed", range(4))
def test_reparsed_c_outlines_with_macro_errors_find_what_whole_outlines_find(seed: int) -> None:
    """Random histories of a C file full of git's macros: outlines read from regions holding their errors
    find what outlining each version whole finds."""
    rng = random.Random(f"{seed}-macros")
    pool = _MACRO_LINES + _MACRO_C.splitlines(True)
    versions = [_MACRO_C]
    for _ in range(40):
        versions.append(_mutate(rng, versions[-1], pool))
    _outline_history("x.c", versions)


_PYTHON_2 = b"""import sys


class Cart(object):
    def add(self, item):
        print "adding", item
        try:
            keep = lambda x: x + 1
        except ValueError, e:
            print >>sys.stderr, e
        return keep(item)

    def total(self):
        def inner():
            return 2
        exec "x = 1"
        return inner()


def fmt(v):
    print v
    return str(v)


def other():
    return 0777
"""
"""Python 2: ``ast`` cannot parse it, so the miner outlines it with tree-sitter (``spans._python_definitions``)."""
_PYTHON_2_LINES = [
    b"@dec\n", b"    @staticmethod\n", b"        print 'x'\n", b"    print >>sys.stderr, 'y'\n", b"def late(a):\n",
    b"class Late:\n", b"    def m(self):\n", b"        return `self`\n", b"        raise ValueError, 'z'\n", b"    pass\n",
    b"\n", b"if True:\n", b"        return 1\n",
]  # fmt: skip


@pytest.mark.parametrize("tree_budget", [TREE_BUDGET, 0], ids=["trees-kept", "trees-let-go"])
@pytest.mark.parametrize("seed", range(3))
def test_python_2_outlines_reparsed_from_the_last_tree_find_what_whole_parses_find(seed: int, tree_budget: int) -> None:
    """Random histories of a Python 2 file (no region is read: Python is reparsed from the kept tree, or whole)
    find what tree-sitter's grammar finds in each version whole."""
    rng = random.Random(f"{seed}-python-2")
    pool = _PYTHON_2_LINES + _PYTHON_2.splitlines(True)
    versions = [_PYTHON_2]
    for _ in range(40):
        versions.append(_mutate(rng, versions[-1], pool))
    assert _outline_history("x.py", versions, tree_budget, language="python") == 0


@pytest.mark.parametrize("seed", range(3))
def test_cpp_headers_reparsed_from_their_last_cpp_tree_find_what_whole_outlines_find(seed: int) -> None:
    """Random histories of a C++ header (``.h``: read as C++ when it holds a construct only C++ has, else as C;
    the tree reparsed from the last version's of the same reading) find what outlining each version whole finds."""
    sample = BY_LANGUAGE["cpp"]
    rng = random.Random(f"{seed}-cpp-header")
    text = next(iter(sample.fixed().values())).encode()
    pool = [line for file in (*sample.files.values(), *sample.fixed().values()) for line in file.encode().splitlines(True)]
    versions = [text]
    for _ in range(40):
        versions.append(_mutate(rng, versions[-1], pool + [b"template <typename T>\n"]))
    _outline_history("x.h", versions)


_WRAPPED = [
    ("x.cpp", b"int a;\n\ntemplate <typename T>\nint f(T x)\n{\n    return x;\n}\n", b"<typename T>", b"<class T>", "x.cpp:f",
     "x.cpp:f"),
    ("x.py", b"class A(object):\n    @staticmethod\n    def m():\n        print 'x'\n", b"@staticmethod", b"@classmethod",
     "x.py:A.m", "x.py:A"),
    ("x.py", b"import sys\n\n\n@dec\n@other\ndef f():\n    return 1\n", b"@other", b"@other(2)", "x.py:f", "x.py:f"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "parent", "old", "new", "function", "module"), _WRAPPED, ids=["template", "method", "function"]
)
def test_a_changed_template_header_or_decorator_names_the_definition_it_wraps(
    path: str, parent: bytes, old: bytes, new: bytes, function: str, module: str
) -> None:
    """A definition's lines start with its template header or decorators, outside its own syntax node: a commit
    that changes only those names the definition, as a whole outline does (the C++ one was missed before)."""
    _, found, spans = _parent_outlined_after(parent, parent.replace(old, new), path)
    assert entities_in_spans(path, found, spans) == Entities((function,), (module,))


_MANY_MACRO_C = b"#include <stdio.h>\n\n" + b"".join(
    b"static int f%d(void *data UNUSED, int a)\n{\n\tfor_each_item(item, &list) {\n\t\ta += %d;\n\t}\n\treturn a;\n}\n\n"
    % (n, n)
    for n in range(1, 41)
)
"""Forty functions with the errors of git's macros: a change touches a small share of the file."""
_BODY_LINES = [b"\t\ta += 1;\n", b"\tcontainer_of(a, const struct entry, ent);\n", b"\treturn a;\n", b"\tint b UNUSED;\n"]


def _edit_functions(rng: random.Random, text: bytes) -> bytes:
    """Return ``text`` with a few lines of function bodies edited, or a function added, as most commits change
    C files: the top-level structure stays, and so do the macros' errors."""
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 3)):
        body = [i for i, line in enumerate(lines) if line.startswith(b"\t")]
        ends = [i for i, line in enumerate(lines) if line == b"}\n"]
        action = rng.random()
        if action < 0.4 and body:
            at = rng.choice(body)
            lines[at] = lines[at].replace(b";", b" + %d;" % rng.randrange(9), 1)
        elif action < 0.7 and body:
            lines.insert(rng.choice(body), rng.choice(_BODY_LINES))
        elif action < 0.85 and ends:
            at = rng.choice(ends) + 1
            lines[at:at] = [b"\n", b"static int g%d(int a)\n" % rng.randrange(99), b"{\n", b"\treturn a;\n", b"}\n"]
        elif body:
            del lines[rng.choice(body)]
    return b"".join(lines)


@pytest.mark.parametrize("tree_budget", [TREE_BUDGET, 0], ids=["trees-kept", "trees-let-go"])
@pytest.mark.parametrize("seed", range(2))
def test_c_functions_edited_as_commits_edit_them_are_outlined_as_whole_outlines_find(seed: int, tree_budget: int) -> None:
    """A C file full of git's macros edited mostly inside function bodies (now and then a line of macros put
    anywhere), as most commits edit C files: most versions are read from regions, and each finds what
    outlining the version whole finds."""
    rng = random.Random(f"{seed}-macro-edits")
    versions = [_MANY_MACRO_C]
    for _ in range(60):
        edit = _edit_functions(rng, versions[-1]) if rng.random() < 0.9 else _mutate(rng, versions[-1], _MACRO_LINES)
        versions.append(edit)
    # regions answered (fewer with trees let go: hunks pile up until the next whole parse)
    assert _outline_history("x.c", versions, tree_budget) >= 5
