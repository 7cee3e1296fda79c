"""An answer's functions read against the outline of the case's snapshot: the modules they belong to, and
those their file does not define there.

The outline is the one patch-derived truth and ``--codesearch-validate`` read (``pytest_codesearch.outline``),
made only for the files the answer's functions name, and kept by blob id (a file unchanged between
snapshots is outlined once). Nothing here changes a metric: undefined functions are counted, not dropped,
and modules derived from the outline equal the names' own reading wherever a name shows its module
(Python, Java, C#, PHP, Rust, Go; ``outline/modules.py``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pytest_codesearch.outline import language_of, outline
from pytest_codesearch.outline.model import Definition
from pytest_codesearch.outline.modules import modules_of_functions
from pytest_codesearch.repo.reader import git_blob_id

OUTLINES_KEPT = 256
"""Outlines kept per process, by language and blob id."""
_OUTLINES: OrderedDict[tuple[str, bool, str], tuple[Definition, ...]] = OrderedDict()


@dataclass(frozen=True)
class NamedFunctions:
    """What the outlines of the snapshot say of an answer's functions."""

    modules: list[str]
    """The module of each function (``outline/modules.py``), in order of first appearance."""
    undefined: list[str]
    """The functions whose file (of a language with an outline) does not define them, in answer order."""


def read_functions(functions: Sequence[str], read: Callable[[str], bytes | None]) -> NamedFunctions:
    """Return the modules and the undefined ones of ``functions``: normalised entities (``path:Qualified.name``,
    the path a file of the snapshot that ``read`` gives the bytes of)."""
    outlines: dict[str, tuple[Definition, ...] | None] = {}

    def definitions(path: str) -> tuple[Definition, ...] | None:
        if path not in outlines:
            outlines[path] = _definitions(path, read)
        return outlines[path]

    undefined = []
    for entity in functions:
        path, _, name = entity.partition(":")  # normalised: the path ends at the first colon
        found = definitions(path)
        if found is not None and all(d.qualname != name for d in found):
            undefined.append(entity)
    return NamedFunctions(modules_of_functions(functions, definitions), undefined)


def _definitions(path: str, read: Callable[[str], bytes | None]) -> tuple[Definition, ...] | None:
    """Return the outline of the snapshot file ``path``, or None when no outline reads its language."""
    language = language_of(path)
    if language is None:
        return None
    data = read(path)
    if data is None:
        return None
    key = (language, path.lower().endswith(".h"), git_blob_id(data))  # a .h may be read as C++
    found = _OUTLINES.get(key)
    if found is None:
        found = _OUTLINES[key] = outline(path, data).definitions
        while len(_OUTLINES) > OUTLINES_KEPT:
            _OUTLINES.popitem(last=False)
    else:
        _OUTLINES.move_to_end(key)
    return found


def named_fields(functions: Sequence[str], read: Callable[[str], bytes | None], derived: bool) -> dict[str, object]:
    """Return the case-record fields ``read_functions`` gives for an answer's normalised ``functions``:
    ``undefined_functions`` (their count, when some are), and ``retrieved_modules`` when the answer's
    modules were ``derived`` from its functions (then read from the outlines, as the truth's are)."""
    named = read_functions(functions, read)
    fields: dict[str, object] = {"retrieved_modules": named.modules} if derived else {}
    if named.undefined:
        fields["undefined_functions"] = len(named.undefined)
    return fields
