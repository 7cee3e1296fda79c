"""What kind of file a repository path holds: test, source, text or binary, and what a gold set leaves out.

The miner (which changed files become ground truth) and the built-in agents (which files they rank,
which they leave out as tests, which they cannot tokenise) ask the same questions of a file; this
module answers them for both, so a file is judged the same way by each (issue 17). The rules are
data: ``docs/mining.md`` shows them as a table generated from this module
(``python -m pytest_codesearch.filekinds``; a test keeps the two equal).

* a **test** file matches a pattern of the ``tests`` group (:func:`is_test_path`);
* a **source** file has a programming language's extension and matches no default exclude pattern,
  except that a test file counts where tests are wanted (:func:`is_source_path`);
* a file is **text by name** when its extension is a known text one (:func:`is_known_text_path`);
* a file is **binary** when it is not text by name and a NUL byte is among the first 8,000 bytes of
  its content, as git decides (:func:`is_binary`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pytest_codesearch.pathglob import PathFilter


@dataclass(frozen=True)
class PathGroup:
    """A named group of default exclude patterns (see ``pathglob.PathFilter`` for their syntax)."""

    name: str
    patterns: tuple[str, ...]
    why: str
    """Why a code-search gold set leaves these paths out of its ground truth."""


PATH_GROUPS: tuple[PathGroup, ...] = (
    PathGroup(
        "documentation",
        ("*.md", "*.rst", "*.txt", "*.adoc", "*.rdoc", "*.org", "docs/", "doc/", "documentation/",
         "LICENSE*", "LICENCE*", "COPYING*", "NOTICE*", "AUTHORS*", "CONTRIBUTORS*", "CHANGELOG*", "CHANGES*",
         "NEWS*", "HISTORY*"),
        "prose: a changelog or a page repeats the words of a change without being its code",
    ),
    PathGroup(
        "configuration",
        (".*", "*.json", "*.yaml", "*.yml", "*.toml", "*.ini", "*.cfg", "*.conf", "*.properties", "*.xml",
         "*.lock", "package-lock.json", "pnpm-lock.yaml", "go.sum", "MANIFEST.in"),
        "configuration and project metadata (dotfiles and dot-directories, lock files)",
    ),
    PathGroup(
        "tests",
        ("test/", "tests/", "testing/", "__tests__/", "spec/", "specs/", "test_*", "*_test.*", "*_tests.*",
         "*.test.*", "*.spec.*", "conftest.py", "test.py", "tests.py", "testsuite/", "test-suite/", "testdata/",
         "testproj/"),
        "tests and their data: a fix seldom lives there, and an issue's words are what its tests spell out",
    ),
    PathGroup(
        "generated and vendored",
        ("*.min.js", "*.min.css", "*.map", "*_pb2.py", "*_pb2_grpc.py", "*.pb.go", "*.generated.*", "dist/",
         "build/", "*.egg-info/", "vendor/", "vendored/", "third_party/", "third-party/", "node_modules/"),
        "code nobody edits by hand in this repository",
    ),
    PathGroup(
        "binary by name",
        ("*.png", "*.jpg", "*.jpeg", "*.gif", "*.bmp", "*.ico", "*.svg", "*.webp", "*.pdf", "*.zip", "*.gz",
         "*.tgz", "*.bz2", "*.xz", "*.tar", "*.whl", "*.jar", "*.so", "*.dylib", "*.dll", "*.exe", "*.a", "*.o",
         "*.pyc", "*.class", "*.woff", "*.woff2", "*.ttf", "*.otf", "*.eot", "*.mp3", "*.mp4", "*.wav", "*.avi",
         "*.mov"),
        "images, archives, compiled objects, fonts and media (their content is checked too: see binary above)",
    ),
)  # fmt: skip
"""The default exclude patterns, by group, in the order ``DEFAULT_EXCLUDE`` lists them."""

DEFAULT_EXCLUDE: tuple[str, ...] = tuple(pattern for group in PATH_GROUPS for pattern in group.patterns)
"""Paths left out of a mined gold set's ground truth unless its ``exclude`` is set (``mining/filters.py``)."""

TEST_PATTERNS: tuple[str, ...] = next(group.patterns for group in PATH_GROUPS if group.name == "tests")
"""The patterns of a test file: the ``tests`` group."""

# fmt: off
SOURCE_EXTENSIONS = frozenset(
    {
        "py", "pyi", "pyx", "pxd", "js", "jsx", "mjs", "cjs", "ts", "tsx", "c", "h", "cc", "cpp", "cxx",
        "hpp", "hh", "cs", "java", "kt", "kts", "scala", "go", "rs", "rb", "php", "swift", "m", "mm",
        "sh", "bash", "pl", "pm", "lua", "r", "jl", "ex", "exs", "erl", "hrl", "hs", "ml", "mli", "clj",
        "dart", "vue", "svelte", "f", "f90", "zig", "nim",
    }
)
# fmt: on
"""Extensions (lowercase, without the dot) of programming-language source files. Markup, styles,
templates, data and message catalogues (``html``, ``css``, ``json``, ``po``) are not source here."""

TEXT_EXTENSIONS = SOURCE_EXTENSIONS | frozenset(
    "hxx fs zsh fish cljs sql html htm css scss sass less el vim groovy gradle cmake proto thrift tf sv vhd pas "
    "perl po pot".split()
)
"""Extensions of source and other text files: their content is text without being read to check.
Reading every blob is the miner's largest cost after the tree diff (gettext catalogs, ``po`` and
``pot``, were 2.7 s of the 4.3 s spent sniffing git's history, issue 12)."""

BINARY_SNIFF_BYTES = 8000
"""A NUL byte among a file's first this many bytes makes it binary: git's ``buffer_is_binary``."""


def extension(path: str) -> str:
    """Return the extension of ``path``'s file name, lowercase, without the dot ("" for none or ``.bashrc``)."""
    name = path.rpartition("/")[2]
    stem, dot, ext = name.rpartition(".")
    return ext.lower() if dot and stem.strip(".") else ""


@lru_cache(maxsize=65536)
def is_test_path(path: str) -> bool:
    """Return whether ``path`` (posix, relative) is a test file: it matches a ``tests`` pattern.

    The miner leaves these files out of ground truth by default, and every built-in agent's
    ``exclude_tests`` leaves them out of its answer. Cached: agents ask it of every path they rank.
    """
    return _tests().excluded(path)


@lru_cache(maxsize=1)
def _tests() -> PathFilter:
    return PathFilter(TEST_PATTERNS)


@lru_cache(maxsize=1)
def _not_tests() -> PathFilter:
    return PathFilter([pattern for group in PATH_GROUPS if group.name != "tests" for pattern in group.patterns])


def is_source_path(path: str, tests: bool = False) -> bool:
    """Return whether ``path`` is a source file: a source extension after a name, and no default exclude
    pattern matches it, except that a test file counts when ``tests`` is true."""
    if extension(path) not in SOURCE_EXTENSIONS:
        return False
    if is_test_path(path):
        return tests
    return not _not_tests().excluded(path)


def is_known_text_path(path: str) -> bool:
    """Return whether ``path`` is text by name: its extension is in ``TEXT_EXTENSIONS``."""
    return extension(path) in TEXT_EXTENSIONS


def looks_binary(data: bytes) -> bool:
    """Return whether content looks binary the way git decides it: a NUL byte among its first 8000 bytes."""
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def is_binary(path: str, data: bytes | Callable[[], bytes]) -> bool:
    """Return whether the file ``path`` with content ``data`` is binary: not text by name, and its content
    looks binary. ``data`` may be a callable, called only when the name does not settle it."""
    if is_known_text_path(path):
        return False
    return looks_binary(data() if callable(data) else data)


_KINDS: tuple[tuple[str, str, str], ...] = (
    (
        "test",
        "a pattern of the `tests` group below matches its path",
        "the miner leaves it out of ground truth (by default); every built-in agent leaves it out of its "
        "answer (`exclude_tests`, on by default)",
    ),
    (
        "source",
        "its extension is one of {source} after a name, and no default exclude pattern matches its path "
        "(a test file counts where tests are wanted)",
        "`bm25` ranks source files alone (`files=\"source\"`, the default)",
    ),
    (
        "text by name",
        "its extension is a source one or one of {text}",
        "never binary: the miner does not read it to check, the built-in agents tokenise it",
    ),
    (
        "binary",
        "not text by name, and a NUL byte is among the first {sniff:,} bytes of its content (git's rule)",
        "the miner leaves it out of ground truth (`exclude_binary`); `bm25` and `keyword` do not index it",
    ),
)


def kinds_markdown() -> str:
    """Return the tables of ``docs/mining.md``: each file kind with its rule, then the default exclude groups."""
    source = ", ".join(f"`{ext}`" for ext in sorted(SOURCE_EXTENSIONS))
    text = ", ".join(f"`{ext}`" for ext in sorted(TEXT_EXTENSIONS - SOURCE_EXTENSIONS))
    rows = ["| kind | rule | what it decides |", "|---|---|---|"]
    for kind, rule, use in _KINDS:
        rows.append(f"| {kind} | {rule.format(source=source, text=text, sniff=BINARY_SNIFF_BYTES)} | {use} |")
    rows += ["", "| group | default exclude patterns | why |", "|---|---|---|"]
    for group in PATH_GROUPS:
        patterns = ", ".join(f"`{pattern}`" for pattern in group.patterns)
        rows.append(f"| `{group.name}` | {patterns} | {group.why} |")
    return "\n".join(rows)


DOCS = "docs/mining.md"
_MARKED = re.compile(r"(<!-- file-kinds table: generated[^\n]*-->\n)(?:.*?\n)??(<!-- end -->)", re.DOTALL)


def render_docs(text: str) -> str:
    """Return ``text`` with the generated file-kinds tables (between their markers) rewritten."""
    return _MARKED.sub(lambda match: match.group(1) + kinds_markdown() + "\n" + match.group(2), text)


def main(root: Path) -> int:
    """Rewrite the generated tables of ``docs/mining.md`` under ``root``; return 0."""
    path = root / DOCS
    path.write_text(render_docs(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
