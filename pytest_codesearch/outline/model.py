"""What an outline is: the definitions of one file, with their qualified names and lines."""

from __future__ import annotations

from dataclasses import dataclass

FUNCTION = "function"
CLASS = "class"


@dataclass(frozen=True, slots=True)
class Definition:
    """A function or class (or a language's equivalent): its qualified name within the file and its lines."""

    qualname: str
    """``Class.method``, ``ns::f``, ``Type.fn``: the file's own nesting (``docs/goldset-format.md``)."""
    start: int
    """Its first line (1-based), decorators and template headers included."""
    end: int
    """Its last line."""
    is_function: bool
    """False for a class, struct, interface, impl block or module-like container with code."""
    top_level: bool
    """True when no other definition encloses it (namespaces do not count): a "module" entity."""
    column: int = 0
    """Columns of indentation of its first line (Python reads insertions after it by this)."""
    in_function: bool = False
    """True when it is defined inside a function (so it is no function-level entity of its own)."""

    @property
    def kind(self) -> str:
        """Return ``function`` or ``class``."""
        return FUNCTION if self.is_function else CLASS


@dataclass(frozen=True)
class FileOutline:
    """The definitions of one file in source order (parents before what they hold), and how they were found."""

    language: str | None
    """``python``, ``c``, ``cpp``, ...; None for a file no outline supports (it has no definitions)."""
    definitions: tuple[Definition, ...] = ()
    note: str | None = None
    """Why the definitions may be incomplete (the file did not parse whole), or None."""
