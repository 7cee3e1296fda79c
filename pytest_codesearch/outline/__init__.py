"""The definitions of a source file in any supported language: one interface, one module per family.

::

    found = outline("src/cart.go", data)
    [(d.kind, d.qualname, d.start, d.end) for d in found.definitions]   # [("function", "Cart.Add", 12, 20)]

Files are told apart by extension (``LANGUAGES``). Python is read with ``ast`` (``python.py``), exact and
fast; every other language with a tree-sitter grammar installed as a wheel (``treesitter.py``). A file
that does not parse whole gets what tree-sitter recovers, with a note; a file of an unsupported
extension gets no definitions (it stays at file and line level), never an error. Naming rules per
language: ``docs/goldset-format.md``.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache
from pathlib import PurePosixPath

from .clike import C, CPP, header_language
from .dynamic import PHP, PYTHON, RUBY
from .managed import CSHARP, JAVA
from .model import CLASS, FUNCTION, Definition, FileOutline
from .python import python_definitions
from .script import JAVASCRIPT, TSX, TYPESCRIPT
from .systems import GO, RUST
from .treesitter import Grammar

_GRAMMARS = {g.name: g for g in (C, CPP, JAVASCRIPT, TYPESCRIPT, TSX, JAVA, CSHARP, GO, RUST, RUBY, PHP, PYTHON)}

LANGUAGES: dict[str, str] = {
    **dict.fromkeys((".py", ".pyi"), "python"),
    **dict.fromkeys((".c", ".h"), "c"),
    **dict.fromkeys((".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".inl"), "cpp"),
    **dict.fromkeys((".js", ".mjs", ".cjs", ".jsx"), "javascript"),
    **dict.fromkeys((".ts", ".mts", ".cts"), "typescript"),
    ".tsx": "tsx",
    ".java": "java",
    ".cs": "csharp",
    ".go": "go",
    ".rs": "rust",
    **dict.fromkeys((".rb", ".rake"), "ruby"),
    ".php": "php",
}
"""The language of each supported extension (lower case). A ``.h`` file may be C++ (:func:`source_language`)."""


def language_of(path: str) -> str | None:
    """Return the language of the file at ``path`` by its extension (``"c"`` for a ``.h``), or None when it has
    no outline."""
    return LANGUAGES.get(PurePosixPath(path).suffix.lower())


def source_language(path: str, data: bytes) -> str | None:
    """Return the language ``outline`` reads ``data``, the content of the file at ``path``, as: by its extension,
    and a ``.h`` file by its content (C++ when it holds a construct only C++ has, ``clike.header_language``)."""
    language = language_of(path)
    return header_language(data) if language == "c" and path[-2:].lower() == ".h" else language


def outline(path: str, source: str | bytes) -> FileOutline:
    """Return the definitions of ``source``, the content of the file at ``path``, by its language
    (:func:`source_language`)."""
    if language_of(path) is None:
        return FileOutline(None)  # before encoding: most files of a snapshot have no outline
    data = source.encode("utf-8", errors="surrogateescape") if isinstance(source, str) else source
    language = source_language(path, data) or ""
    if _GIVEN:
        given = _GIVEN.get((language, data))
        if given is not None:
            _GIVEN.move_to_end((language, data))
            return given
    return _outline(language, data)


_GIVEN: OrderedDict[tuple[str, bytes], FileOutline] = OrderedDict()
GIVEN = 512
"""Outlines made elsewhere that :func:`outline` answers (the last given kept)."""


def keep_outline(path: str, data: bytes, found: FileOutline) -> None:
    """Let :func:`outline` answer ``found`` for ``data`` at ``path`` while it is among the last :data:`GIVEN`
    given: an outline made another way, the same as :func:`outline` would make (bm25 derives a Python
    file's from its last version, ``agents/index/pyoutlines.py``; scoring then outlines the same files)."""
    language = source_language(path, data)
    if language is None:
        return
    _GIVEN[(language, data)] = found
    _GIVEN.move_to_end((language, data))
    while len(_GIVEN) > GIVEN:
        _GIVEN.popitem(last=False)


@lru_cache(maxsize=512)
def _outline(language: str, data: bytes) -> FileOutline:
    """Return the outline of ``data`` read as ``language`` (cached: unchanged files recur across commits)."""
    if language == "python":
        exact = python_definitions(data)
        if exact is not None:
            return FileOutline(language, exact)
    definitions, note = _GRAMMARS[language].outline(data)
    if language == "python" and note is None:  # Python 2, say: tree-sitter's grammar still reads it
        note = "does not parse with Python's ast: definitions are those tree-sitter finds"
    return FileOutline(language, definitions, note)


def grammar(language: str) -> Grammar:
    """Return the tree-sitter grammar of ``language`` (a value of ``LANGUAGES``)."""
    return _GRAMMARS[language]


__all__ = [
    "CLASS", "FUNCTION", "LANGUAGES", "Definition", "FileOutline", "grammar", "keep_outline", "language_of", "outline",
    "source_language",
]  # fmt: skip
