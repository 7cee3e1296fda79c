"""``outline(path, text)``: each language's naming rules for nested and anonymous definitions, exact lines,
files that do not parse, and files of no supported language."""

from __future__ import annotations

import pytest

from pytest_codesearch.outline import FileOutline, language_of, outline, source_language
from pytest_codesearch.outline.clike import header_language

Row = tuple[str, str, int, int]
"""(kind, qualified name, first line, last line)"""


def _rows(path: str, source: str) -> list[Row]:
    found = outline(path, source)
    assert found.note is None, found.note
    return [(d.kind, d.qualname, d.start, d.end) for d in found.definitions]


def _entities(path: str, source: str) -> tuple[list[str], list[str]]:
    """Return the names that are function-level and module-level entities."""
    definitions = outline(path, source).definitions
    return ([d.qualname for d in definitions if d.is_function and not d.in_function],
            list(dict.fromkeys(d.qualname for d in definitions if d.top_level)))  # fmt: skip


CPP = """\
namespace shop {
class Cart {
 public:
  template <typename T>
  T cast() { return T(); }
  int total() const;
};
int Cart::total() const { return 0; }
namespace {
int helper() { return 1; }
}
}  // namespace shop
template <> int Box<int>::get() { return 0; }
bool operator<(const Cart& a, const Cart& b) { return false; }
"""


def test_cpp_joins_namespaces_and_classes_with_double_colons() -> None:
    assert _rows("a.cc", CPP) == [
        ("class", "shop::Cart", 2, 7),
        ("function", "shop::Cart::cast", 4, 5),  # the template header belongs to it
        ("function", "shop::Cart::total", 8, 8),  # defined outside its class: top level
        ("function", "shop::helper", 10, 10),  # an anonymous namespace is transparent
        ("function", "Box::get", 13, 13),  # type arguments dropped
        ("function", "operator<", 14, 14),
    ]
    assert _entities("a.cc", CPP)[1] == ["shop::Cart", "shop::Cart::total", "shop::helper", "Box::get", "operator<"]


C = "struct cart {\n\tint n;\n};\nint (*getter(void))(int) { return 0; }\nstatic int *add(int x)\n{\n\treturn 0;\n}\n"


def test_c_functions_and_structs_by_their_declared_names() -> None:
    assert _rows("a.c", C) == [("class", "cart", 1, 3), ("function", "getter", 4, 4), ("function", "add", 5, 8)]


JS = """\
class Cart {
  onClick = () => { this.add(1); };
  get size() { return 1; }
}
function total(cart) {
  function inner() { return 1; }
  return cart.items.reduce((a, b) => a + b, 0);
}
const parse = (text) => JSON.parse(text);
const api = { get() { return 1; }, put: function () { return 2; } };
Cart.prototype.remove = function (item) {};
module.exports.helper = function () {};
(function () {
  function hidden() {}
})();
describe("x", () => { it("y", () => {}); });
"""


def test_javascript_names_bound_functions_and_keeps_anonymous_ones_transparent() -> None:
    assert _entities("a.js", JS) == (
        ["Cart.onClick", "Cart.size", "total", "parse", "api.get", "api.put", "Cart.remove", "helper", "hidden"],
        ["Cart", "total", "parse", "api.get", "api.put", "Cart.remove", "helper", "hidden"],
    )  # total.inner is nested in a function: no entity of its own; the callbacks are none at all


def test_typescript_namespaces_prefix_and_abstract_classes_count() -> None:
    source = "namespace Shop {\n  export class Cart { handler = (x: number) => x + 1; }\n}\n" \
             "export abstract class Base { abstract run(): void; stop(): void {} }\n"  # fmt: skip
    assert _entities("a.ts", source) == (["Shop.Cart.handler", "Base.stop"], ["Shop.Cart", "Base"])
    assert _entities("a.tsx", source + "const App = () => <div onClick={() => 1}>hi</div>;\n")[0][-1] == "App"


def test_java_and_csharp_nest_classes_and_name_constructors_by_class() -> None:
    java = "class Cart {\n  Cart() {}\n  static class Inner { void run() {} }\n" \
           "  void sched() { new Thread() { public void run() {} }; }\n}\nrecord P(int x) { P { } }\n"  # fmt: skip
    assert _entities("A.java", java) == (
        ["Cart.Cart", "Cart.Inner.run", "Cart.sched", "P.P"], ["Cart", "P"]
    )
    csharp = "namespace Shop {\n class Cart {\n  Cart() { }\n  ~Cart() { }\n  void Add() { int Local() { return 1; } }\n }\n}\n"
    assert _entities("a.cs", csharp) == (["Cart.Cart", "Cart.~Cart", "Cart.Add"], ["Cart"])


def test_go_methods_take_their_receiver_type() -> None:
    source = "package p\n\ntype Cart[T any] struct {\n\titems []T\n}\n\nfunc (c *Cart[T]) Add(x T) {\n" \
             "\tf := func() {}\n\tf()\n}\n\nfunc Total() int { return 0 }\n"  # fmt: skip
    assert _rows("a.go", source) == [
        ("class", "Cart", 3, 5), ("function", "Cart.Add", 7, 10), ("function", "Total", 12, 12)
    ]


def test_rust_impl_blocks_are_their_type_and_mods_prefix_with_double_colons() -> None:
    source = "struct Cart;\nimpl Cart {\n    fn add(&self) {}\n}\nimpl<T> Display for Wrapper<T> {\n" \
             "    fn fmt(&self) {}\n}\nmod store {\n    pub fn total() { fn inner() {} }\n}\n"  # fmt: skip
    assert _entities("a.rs", source) == (
        ["Cart.add", "Wrapper.fmt", "store::total"], ["Cart", "Wrapper", "store::total"]
    )


def test_ruby_modules_prefix_names_without_being_definitions() -> None:
    source = "module Shop\n  class Cart\n    def add; [1].each { |x| x }; end\n    def self.build; end\n" \
             "    class << self\n      def other; end\n    end\n  end\n  def self.helper; end\nend\n"  # fmt: skip
    assert _entities("a.rb", source) == (
        ["Shop.Cart.add", "Shop.Cart.build", "Shop.Cart.other", "Shop.helper"], ["Shop.Cart", "Shop.helper"]
    )


def test_php_leaves_namespaces_out_and_closures_transparent() -> None:
    source = "<?php\nnamespace App;\nclass Cart {\n  function add() { $f = function () { return 1; }; }\n}\n" \
             "function total() { return new class { function m() {} }; }\n"  # fmt: skip
    assert _entities("a.php", source) == (["Cart.add", "total"], ["Cart", "total"])


def test_a_file_that_does_not_parse_gets_what_tree_sitter_recovers_with_a_note() -> None:
    found = outline("a.go", "package p\n\nfunc Good() int {\n\treturn 1\n}\n\nfunc Bad( {\n")
    assert [d.qualname for d in found.definitions] == ["Good"]
    assert found.note == "does not parse as go from line 7: definitions are those tree-sitter recovers"


def test_python_that_ast_cannot_parse_falls_back_to_tree_sitter() -> None:
    found = outline("a.py", "print 'old'\n\n@decorated\ndef kept():\n    pass\n")
    assert [(d.qualname, d.start, d.end) for d in found.definitions] == [("kept", 3, 5)]
    assert found.note == "does not parse with Python's ast: definitions are those tree-sitter finds"
    broken = outline("b.py", "def kept():\n    pass\n\ndef broken(:\n    pass\n")
    assert [d.qualname for d in broken.definitions] == ["kept", "broken"]
    assert broken.note == "does not parse as python from line 4: definitions are those tree-sitter recovers"


def test_a_header_that_is_cpp_is_read_as_cpp() -> None:
    assert outline("a.h", "class Foo { public: int bar() { return 1; } };\n").language == "cpp"
    assert outline("b.h", "struct s { int new; };\nint f(void);\n").language == "c"


CPP_HEADERS = [
    "template <typename T> T twice(T x) { return x + x; }\n",
    "namespace shop {\nint total(void);\n}\n",
    "namespace {\nint hidden;\n}\n",
    "class Cart;\nclass Cart final : Base {\n};\n",
    "int n = std::max(1, 2);\n",
    "void ::global(void);\n",
    "struct S {\n  public:\n  int x;\n};\n",
    'extern "C++" int f(int);\n',
]
C_HEADERS = [
    "/* a::b, template <T>, namespace x { and class K : B { in a comment */\nint f(void);\n",
    "// std::string s; class K {\nint f(void);\n",
    'const char *usage = "git::fetch template<x> namespace y {";\nint f(void);\n',
    "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n#ifdef __cplusplus\n}\n#endif\n",
    "struct s { int class; int template; };\nint new_class(int public);\n",
    "int c = 'a'; /* unterminated comment :: class K {\n",
]


@pytest.mark.parametrize("text", CPP_HEADERS)
def test_a_header_with_a_construct_only_cpp_has_is_cpp(text: str) -> None:
    assert header_language(text.encode()) == "cpp"
    assert source_language("inc/x.H", text.encode()) == "cpp"
    assert outline("inc/x.h", text).language == "cpp"


@pytest.mark.parametrize("text", C_HEADERS)
def test_cpp_words_in_comments_strings_or_as_c_names_leave_a_header_c(text: str) -> None:
    assert header_language(text.encode()) == "c"
    assert outline("inc/x.h", text).language == "c"


def test_only_headers_are_read_by_their_content() -> None:
    assert source_language("x.c", b"namespace a {}\n") == "c"
    assert source_language("x.hpp", b"int f(void);\n") == "cpp"
    assert source_language("x.txt", b"int f(void);\n") is None


def test_a_cpp_header_with_errors_is_named_as_cpp() -> None:
    """Read as C, this header's recovery made ``shop`` a function and lost the class: a header is read as C++
    alone, whatever errors its C++ reading holds (here a macro tree-sitter cannot expand)."""
    text = "namespace shop {\ntemplate <typename T>\nclass Cart {\n public:\n  int total() const { return 1; }\n};\n}\n"
    found = outline("cart.h", text + "int API f(int x) { return x; }\n")
    assert found.language == "cpp"
    assert [(d.qualname, d.start, d.end) for d in found.definitions] == [
        ("shop::Cart", 2, 6), ("shop::Cart::total", 5, 5), ("f", 8, 8)
    ]  # fmt: skip
    assert found.note == "does not parse as cpp from line 8: definitions are those tree-sitter recovers"


@pytest.mark.parametrize("path", ["README.md", "Makefile", "a.kt", "x.swift", "data.json"])
def test_unsupported_files_have_no_definitions(path: str) -> None:
    assert language_of(path) is None
    assert outline(path, "fun main() {}\n") == FileOutline(None)


BLOCKS = b'''import sys

try:
    def in_try(): pass
except ImportError:
    def in_except(): pass
else:
    class InElse:
        @property
        @staticmethod
        def method(self):
            async def inner(): pass
            class Local:
                def deep(self): pass
finally:
    def in_finally(): pass

match sys.argv:
    case [_, "a"]:
        def in_case(): pass
    case _:
        for arg in sys.argv:
            while arg:
                with open(arg) as f:
                    if f:
                        lam = lambda: None
                        async def in_loop(): pass
                    elif sys:
                        def in_elif(): pass
            else:
                def in_for_else(): pass
'''


def test_definitions_in_blocks_are_read_at_the_blocks_level_in_source_order_handlers_after_finally() -> None:
    found = [(d.qualname, d.start, d.end, d.is_function, d.top_level, d.column, d.in_function)
             for d in outline("blocks.py", BLOCKS).definitions]  # fmt: skip
    assert found == [
        ("in_try", 4, 4, True, True, 4, False),
        ("InElse", 8, 14, False, True, 4, False),
        ("InElse.method", 9, 14, True, False, 8, False),  # from its first decorator
        ("InElse.method.inner", 12, 12, True, False, 12, True),
        ("InElse.method.Local", 13, 14, False, False, 12, True),
        ("InElse.method.Local.deep", 14, 14, True, False, 16, True),
        ("in_finally", 16, 16, True, True, 4, False),
        ("in_except", 6, 6, True, True, 4, False),  # a try's handlers come after its finally
        ("in_case", 20, 20, True, True, 8, False),
        ("in_loop", 27, 27, True, True, 24, False),
        ("in_elif", 29, 29, True, True, 24, False),
        ("in_for_else", 31, 31, True, True, 16, False),
    ]


def test_a_comment_inside_a_name_is_left_out() -> None:
    text = "int Foo /* the class */ ::bar() { return 1; }\nint Foo:: // its\n baz() { return 2; }\n"
    assert [(d.qualname, d.start, d.end) for d in outline("v.cpp", text).definitions] == [
        ("Foo::bar", 1, 1), ("Foo::baz", 2, 3)
    ]  # fmt: skip


def test_names_tree_sitter_made_from_errors_are_no_definitions() -> None:
    """fmt opens its namespaces with macros tree-sitter cannot expand: ``MACRO namespace detail {`` read as a
    function named ``namespace`` that held the whole file, and ``MACRO /** doc */ template <...> class`` as a
    function named ``MACROtemplate``, once with the comment's text. Such a function is transparent now."""
    text = "FMT_BEGIN_NAMESPACE\nnamespace detail {\nint f() { return 1; }\n"
    text += "class K { public: int g() { return 2; } };\n}\n"
    assert [(d.qualname, d.start, d.end) for d in outline("v.cc", text).definitions] == [
        ("f", 3, 3), ("K", 4, 4), ("K::g", 4, 4)
    ]  # fmt: skip
    text = "FMT_BEGIN_NAMESPACE\nFMT_BEGIN_EXPORT\n\n/** A view. */\ntemplate <typename Char> class view {\n private:\n"
    text += "  int n;\n public:\n  int size() const { return n; }\n};\n"
    assert outline("v.h", text).definitions == ()
