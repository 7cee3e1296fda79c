"""A file cut into the chunks an embedding model reads: its head, its functions and classes, or windows.

Every source file gives a ``head`` chunk, its first ``head_lines`` lines. A file some outline reads
(``outline/``: Python's ``ast``, tree-sitter for C, C++, JavaScript, TypeScript, Java, C#, Go, Rust,
Ruby, PHP) gives one ``function`` chunk per function or method (``path.py:Class.method``; a nested
function is part of the function that holds it) and one ``class`` chunk per top-level class holding
the class's own lines (its header, docstring and attributes; its methods are theirs), the same
split as bm25's function documents (``agents/index/functions.py``). A file no outline reads gives
``window`` chunks instead: ``window_lines`` lines each, one after the other, at most ``max_windows``
after the head.

Each chunk's text starts with its path (and its qualified name, for a definition) on a line of its
own, so the model reads where the code lives, and is cut at ``max_chars`` characters: a small model
reads 256 tokens at most (``all-MiniLM-L6-v2``), and text past that would cost time for nothing.
The text is what the embedding cache is keyed by.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_codesearch.outline import language_of

HEAD, FUNCTION, CLASS, WINDOW = "head", "function", "class", "window"


@dataclass(frozen=True)
class ChunkOptions:
    """How files are cut: lines of a head and of a window, windows a file, characters a chunk."""

    head_lines: int = 30
    window_lines: int = 40
    max_windows: int = 4
    max_chars: int = 1000


@dataclass(frozen=True)
class Chunk:
    """One piece of a file the model embeds.

    ``entity`` is ``path:Qualified.name`` for a function or class chunk and None for a head or window;
    ``module`` is ``path:Top`` for the top-level definition holding it (None for a head or window).
    """

    path: str
    kind: str
    text: str
    entity: str | None = None
    module: str | None = None


def file_chunks(path: str, text: str, options: ChunkOptions = ChunkOptions()) -> tuple[Chunk, ...]:
    """Return the chunks of the file ``path`` holding ``text``: its head, then its definitions in source
    order (a file some outline reads) or its windows (any other file). An empty file gives none."""
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        return ()
    head = Chunk(path, HEAD, _text(path, lines[: options.head_lines], options.max_chars))
    if language_of(path) is not None:
        return (head, *_definitions(path, text, lines, options.max_chars))
    windows: list[Chunk] = []
    step = options.window_lines
    for start in range(options.head_lines, len(lines), step):
        if len(windows) == options.max_windows:
            break
        part = lines[start : start + step]
        if any(line.strip() for line in part):
            windows.append(Chunk(path, WINDOW, _text(f"{path}:{start + 1}", part, options.max_chars)))
    return (head, *windows)


def _definitions(path: str, text: str, lines: list[str], max_chars: int) -> list[Chunk]:
    """Return a chunk per function and per top-level class of the outlined file, in source order."""
    from pytest_codesearch.outline import outline
    from pytest_codesearch.outline.modules import module_names

    outlined = outline(path, text).definitions
    modules = module_names(outlined)  # the truth's rule (``outline/modules.py``)
    definitions = [d for d in outlined if not d.in_function and (d.is_function or d.top_level)]
    owner = [-1] * len(lines)  # the definition each line counts for: its function, else its class
    for number, definition in sorted(enumerate(definitions), key=lambda pair: pair[1].is_function):
        span = range(definition.start - 1, min(definition.end, len(lines)))
        for line in span:
            owner[line] = number
    own_lines: list[list[str]] = [[] for _ in definitions]
    for line, number in enumerate(owner):
        if number >= 0:
            own_lines[number].append(lines[line])
    chunks = []
    for definition, body in zip(definitions, own_lines):
        if not body:
            continue
        name = f"{path}:{definition.qualname}"
        module = f"{path}:{modules[definition.qualname]}"
        kind = FUNCTION if definition.is_function else CLASS
        chunks.append(Chunk(path, kind, _text(f"{path} {definition.qualname}", body, max_chars), name, module))
    return chunks


def _text(title: str, lines: list[str], max_chars: int) -> str:
    """Return ``title`` and ``lines`` as one text without trailing blank lines, cut at ``max_chars`` characters."""
    return "\n".join([title, *lines]).rstrip()[:max_chars]
