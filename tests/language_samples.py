"""One small project per language: a class (or the language's equivalent) whose two methods a fix
changes, inside an anonymous function and inside a nested definition, and a top-level function of
another file the fix changes too. Used by ``test_outline_languages.py``; expectations are by hand."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    """Two files at the base, the edits of the fix (old text, new text per file), what it changes."""

    language: str
    files: dict[str, str]
    edits: dict[str, tuple[tuple[str, str], ...]]
    functions: tuple[str, ...]
    modules: tuple[str, ...]

    def fixed(self) -> dict[str, str]:
        """Return the files after the fix."""
        result = dict(self.files)
        for path, pairs in self.edits.items():
            for old, new in pairs:
                assert result[path].count(old) == 1, (path, old)
                result[path] = result[path].replace(old, new)
        return result


PYTHON = Sample(
    "python",
    {
        "src/cart.py": "class Cart:\n    def add(self, item):\n        keep = lambda x: x + 1\n        return keep(item)\n\n"
        "    def total(self):\n        def inner():\n            return 2\n        return inner()\n\n"
        "    def size(self):\n        return 3\n",
        "src/util.py": "def fmt(v):\n    return str(v)\n\n\ndef other():\n    return 7\n",
    },
    {"src/cart.py": (("x + 1", "x + 2"), ("return 2", "return 4")), "src/util.py": (("str(v)", "repr(v)"),)},
    ("src/cart.py:Cart.add", "src/cart.py:Cart.total", "src/util.py:fmt"),
    ("src/cart.py:Cart", "src/util.py:fmt"),
)

C = Sample(
    "c",
    {
        "src/cart.c": "struct cart {\n\tint n;\n};\n\nint cart_add(struct cart *c, int item)\n{\n\tc->n += item;\n"
        "\treturn 1;\n}\n\nstatic int *cart_total(struct cart *c)\n{\n\treturn c->n * 2;\n}\n\n"
        "int cart_size(struct cart *c)\n{\n\treturn 3;\n}\n",
        "src/util.c": "int fmt(int v)\n{\n\treturn v + 1;\n}\n\nint other(void)\n{\n\treturn 7;\n}\n",
    },
    {"src/cart.c": (("return 1;", "return 11;"), ("n * 2", "n * 4")), "src/util.c": (("v + 1", "v + 2"),)},
    ("src/cart.c:cart_add", "src/cart.c:cart_total", "src/util.c:fmt"),
    ("src/cart.c:cart_add", "src/cart.c:cart_total", "src/util.c:fmt"),
)

CPP = Sample(
    "cpp",
    {
        "src/cart.cpp": "namespace shop {\nclass Cart {\n public:\n  int add(int item) {\n"
        "    auto keep = [](int x) { return x + 1; };\n    return keep(item);\n  }\n  int total() const;\n"
        "  int size() const { return 3; }\n};\n\nint Cart::total() const {\n  return 2;\n}\n}  // namespace shop\n",
        "src/util.cpp": "namespace util {\nint fmt(int v) { return v + 1; }\nint other() { return 7; }\n}\n",
    },
    {"src/cart.cpp": (("x + 1", "x + 2"), ("return 2;", "return 4;")), "src/util.cpp": (("v + 1", "v + 2"),)},
    ("src/cart.cpp:shop::Cart::add", "src/cart.cpp:shop::Cart::total", "src/util.cpp:util::fmt"),
    ("src/cart.cpp:shop::Cart", "src/cart.cpp:shop::Cart::total", "src/util.cpp:util::fmt"),
)

_JS_CART = (
    "class Cart {\n  add(item) {\n    const keep = (x) => x + 1;\n    return keep(item);\n  }\n\n"
    "  total() {\n    function inner() {\n      return 2;\n    }\n    return inner();\n  }\n\n"
    "  size() {\n    return 3;\n  }\n}\n\nmodule.exports = { Cart };\n"
)

JAVASCRIPT = Sample(
    "javascript",
    {"src/cart.js": _JS_CART, "src/util.js": "function fmt(v) {\n  return String(v);\n}\n\nconst other = () => 7;\n"},
    {"src/cart.js": (("x + 1", "x + 2"), ("return 2", "return 4")), "src/util.js": (("String(v)", "`${v}`"),)},
    ("src/cart.js:Cart.add", "src/cart.js:Cart.total", "src/util.js:fmt"),
    ("src/cart.js:Cart", "src/util.js:fmt"),
)

_TS_CART = (
    "export namespace Shop {\n  export class Cart {\n    private n = 0;\n    add(item: number): number {\n"
    "      return [item].map((x) => x + 1)[0];\n    }\n    total(): number {\n      const inner = (): number => {\n"
    "        return 2;\n      };\n      return inner();\n    }\n    size(): number {\n      return 3;\n    }\n  }\n}\n"
)

TYPESCRIPT = Sample(
    "typescript",
    {"src/cart.ts": _TS_CART, "src/util.ts": "export function fmt(v: number): string {\n  return String(v);\n}\n"},
    {"src/cart.ts": (("x + 1", "x + 2"), ("return 2", "return 4")), "src/util.ts": (("String(v)", "`${v}`"),)},
    ("src/cart.ts:Shop.Cart.add", "src/cart.ts:Shop.Cart.total", "src/util.ts:fmt"),
    ("src/cart.ts:Shop.Cart", "src/util.ts:fmt"),
)

TSX = Sample(
    "tsx",
    {
        "src/view.tsx": "export class View {\n  render() {\n    return <ul>{[1].map((x) => <li>{x + 1}</li>)}</ul>;\n  }\n"
        "  title() {\n    return <h1>2</h1>;\n  }\n}\n",
        "src/app.tsx": "export const App = () => {\n  return <View />;\n};\n",
    },
    {"src/view.tsx": (("x + 1", "x + 2"), ("<h1>2", "<h1>4")), "src/app.tsx": (("<View />", "<View/>"),)},
    ("src/app.tsx:App", "src/view.tsx:View.render", "src/view.tsx:View.title"),
    ("src/app.tsx:App", "src/view.tsx:View"),
)

JAVA = Sample(
    "java",
    {
        "src/Cart.java": "public class Cart {\n    private int n;\n\n    public int add(int item) {\n"
        "        java.util.function.IntUnaryOperator keep = x -> x + 1;\n        return keep.applyAsInt(item);\n    }\n\n"
        "    public int total() {\n        Runnable r = new Runnable() {\n            public void run() { n = 2; }\n"
        "        };\n        return n;\n    }\n\n    public int size() {\n        return 3;\n    }\n}\n",
        "src/Util.java": "class Util {\n    static int fmt(int v) {\n        return v + 1;\n    }\n\n"
        "    static int other() {\n        return 7;\n    }\n}\n",
    },
    {"src/Cart.java": (("x + 1", "x + 2"), ("n = 2", "n = 4")), "src/Util.java": (("v + 1", "v + 2"),)},
    ("src/Cart.java:Cart.add", "src/Cart.java:Cart.total", "src/Util.java:Util.fmt"),
    ("src/Cart.java:Cart", "src/Util.java:Util"),
)

CSHARP = Sample(
    "csharp",
    {
        "src/Cart.cs": "namespace Shop\n{\n    public class Cart\n    {\n        public int Add(int item)\n        {\n"
        "            System.Func<int, int> keep = x => x + 1;\n            return keep(item);\n        }\n\n"
        "        public int Total()\n        {\n            int Inner() { return 2; }\n            return Inner();\n"
        "        }\n\n        public int Size() => 3;\n    }\n}\n",
        "src/Util.cs": "static class Util\n{\n    public static int Fmt(int v) { return v + 1; }\n"
        "    public static int Other() { return 7; }\n}\n",
    },
    {"src/Cart.cs": (("x + 1", "x + 2"), ("return 2", "return 4")), "src/Util.cs": (("v + 1", "v + 2"),)},
    ("src/Cart.cs:Cart.Add", "src/Cart.cs:Cart.Total", "src/Util.cs:Util.Fmt"),
    ("src/Cart.cs:Cart", "src/Util.cs:Util"),
)

GO = Sample(
    "go",
    {
        "src/cart.go": "package shop\n\ntype Cart struct {\n\tn int\n}\n\nfunc (c *Cart) Add(item int) int {\n"
        "\tkeep := func(x int) int { return x + 1 }\n\treturn keep(item)\n}\n\nfunc (c Cart) Total() int {\n"
        "\treturn 2\n}\n\nfunc (c *Cart) Size() int {\n\treturn 3\n}\n",
        "src/util.go": "package shop\n\nfunc Fmt(v int) int {\n\treturn v + 1\n}\n\nfunc other() int {\n\treturn 7\n}\n",
    },
    {"src/cart.go": (("x + 1", "x + 2"), ("return 2", "return 4")), "src/util.go": (("v + 1", "v + 2"),)},
    ("src/cart.go:Cart.Add", "src/cart.go:Cart.Total", "src/util.go:Fmt"),
    ("src/cart.go:Cart.Add", "src/cart.go:Cart.Total", "src/util.go:Fmt"),
)

RUST = Sample(
    "rust",
    {
        "src/cart.rs": "pub struct Cart {\n    n: u32,\n}\n\nimpl Cart {\n    pub fn add(&mut self, item: u32) -> u32 {\n"
        "        let keep = |x: u32| x + 1;\n        keep(item)\n    }\n\n    pub fn total(&self) -> u32 {\n"
        "        fn inner() -> u32 {\n            2\n        }\n        inner()\n    }\n\n"
        "    pub fn size(&self) -> u32 {\n        3\n    }\n}\n",
        "src/util.rs": "pub fn fmt(v: u32) -> u32 {\n    v + 1\n}\n\npub fn other() -> u32 {\n    7\n}\n",
    },
    {"src/cart.rs": (("x + 1", "x + 2"), ("            2\n", "            4\n")), "src/util.rs": (("v + 1", "v + 2"),)},
    ("src/cart.rs:Cart.add", "src/cart.rs:Cart.total", "src/util.rs:fmt"),
    ("src/cart.rs:Cart", "src/util.rs:fmt"),
)

RUBY = Sample(
    "ruby",
    {
        "src/cart.rb": "module Shop\n  class Cart\n    def add(item)\n      [item].map { |x| x + 1 }\n    end\n\n"
        "    def total\n      2\n    end\n\n    def size\n      3\n    end\n  end\nend\n",
        "src/util.rb": "def fmt(v)\n  v.to_s\nend\n\ndef other\n  7\nend\n",
    },
    {"src/cart.rb": (("x + 1", "x + 2"), ("      2\n", "      4\n")), "src/util.rb": (("v.to_s", "v.inspect"),)},
    ("src/cart.rb:Shop.Cart.add", "src/cart.rb:Shop.Cart.total", "src/util.rb:fmt"),
    ("src/cart.rb:Shop.Cart", "src/util.rb:fmt"),
)

PHP = Sample(
    "php",
    {
        "src/Cart.php": "<?php\nnamespace Shop;\n\nclass Cart\n{\n    public function add($item)\n    {\n"
        "        $keep = fn($x) => $x + 1;\n        return $keep($item);\n    }\n\n    public function total()\n    {\n"
        "        $inner = function () {\n            return 2;\n        };\n        return $inner();\n    }\n\n"
        "    public function size()\n    {\n        return 3;\n    }\n}\n",
        "src/util.php": "<?php\nfunction fmt($v)\n{\n    return strval($v);\n}\n\nfunction other()\n{\n    return 7;\n}\n",
    },
    {"src/Cart.php": (("$x + 1", "$x + 2"), ("return 2", "return 4")), "src/util.php": (("strval($v)", "(string) $v"),)},
    ("src/Cart.php:Cart.add", "src/Cart.php:Cart.total", "src/util.php:fmt"),
    ("src/Cart.php:Cart", "src/util.php:fmt"),
)

SAMPLES = (PYTHON, C, CPP, JAVASCRIPT, TYPESCRIPT, TSX, JAVA, CSHARP, GO, RUST, RUBY, PHP)
