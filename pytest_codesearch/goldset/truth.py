"""Ground truth derived from a patch read against the base tree: files, old-side lines, functions, modules."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..outline import language_of
from .align import Placed, base_lines, hunk_offsets, place
from .conventions import apply_convention
from .entities import changed_entities
from .patch import FileChange, ParsedPatch, Span

PYTHON_SUFFIXES = (".py", ".pyi")
"""Python files (functions and modules of every supported language come from ``pytest_codesearch.outline``)."""

Reader = Callable[[str], bytes | None]
"""Returns a file's bytes at the base, or None when the base has no such file (a snapshot reader's ``read``)."""


@dataclass(frozen=True)
class PatchTruth:
    """What a patch says a localizer should find in the base tree."""

    files: tuple[str, ...]
    """Files the patch modifies, renames or deletes (base paths), in patch order."""
    added_files: tuple[str, ...]
    """Files the patch adds: absent at the base, recorded but not scored."""
    lines: dict[str, tuple[Span, ...]]
    """Old-side spans of each file that has any."""
    functions: tuple[str, ...]
    """``path:Class.method`` of every function or method containing a changed old-side line (any language
    ``pytest_codesearch.outline`` reads; other files stay at file and line level)."""
    modules: tuple[str, ...]
    """``path:Name`` of every top-level class or function containing one."""
    missing: tuple[str, ...]
    """Files the patch changes that the base does not have (the patch does not fit this base)."""
    misfits: tuple[str, ...] = ()
    """``path:line: ...`` for each file whose base text differs from the lines the patch shows."""


def truth_from_patch(patch: ParsedPatch, read: Reader, convention: str = "native") -> PatchTruth:
    """Return the ground truth of ``patch`` against the base that ``read`` gives files of.

    Hunks that sit some lines off their headers in the base are found there (``goldset/align.py``).
    Entities are named by the truth ``convention`` (``goldset/conventions.py``).
    """
    lines = patch.old_lines()
    functions: list[str] = []
    modules: list[str] = []
    missing: list[str] = []
    misfits: list[str] = []
    for change in patch.changes:
        if change.old_path is None:
            continue  # an added file: nothing at the base to read
        path = change.path
        data = read(path)
        if data is None:
            missing.append(path)
            continue
        placed, misfit = _placed(change, data)
        if misfit is not None:
            misfits.append(misfit)
        if placed.lines:
            lines[path] = placed.lines
        if path in lines and language_of(path) is not None:
            entities = changed_entities(path, data, placed.removed, placed.insertions)
            entities = apply_convention(convention, path, data, placed.removed, placed.insertions, entities)
            functions.extend(entities.functions)
            modules.extend(entities.modules)
    return PatchTruth(
        files=tuple(patch.scored_files),
        added_files=tuple(patch.added_files),
        lines=lines,
        functions=tuple(functions),
        modules=tuple(modules),
        missing=tuple(missing),
        misfits=tuple(misfits),
    )


def _placed(change: FileChange, data: bytes) -> tuple[Placed, str | None]:
    """Return the change's hunks where ``data`` holds them, and why they fit nowhere (None if they fit)."""
    text = base_lines(data)
    offsets = [0] * len(change.hunks)
    if text is not None:  # a file that is not UTF-8 cannot be compared: its hunks stay where they say
        found = hunk_offsets(text, change.hunks)
        if found is None:
            problem = fit_problem(change.path, data, change.old_text) or f"{change.path}: the hunks fit nowhere"
            return place(change.hunks, offsets), problem
        offsets = found
    return place(change.hunks, offsets), None


def fit_problem(path: str, data: bytes, shown: Iterable[tuple[int, str]]) -> str | None:
    """Return ``path:line: ...`` for the first line the patch shows that the base text lacks, or None.

    Trailing whitespace is ignored. Files that are not UTF-8 are not checked (the patch's text cannot
    be compared with their bytes).
    """
    lines = base_lines(data)
    if lines is None:
        return None
    for number, expected in shown:
        if number > len(lines):
            return f"{path}:{number}: the patch shows line {number}, but the file has {len(lines)} lines"
        found = lines[number - 1]
        if found.rstrip() != expected.rstrip():
            return f"{path}:{number}: the patch expects {expected.strip()[:60]!r}, the file has {found.strip()[:60]!r}"
    return None
