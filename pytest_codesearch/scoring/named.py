"""An answer's functions read against the outline of the case's snapshot: the modules they belong to, and
those their file does not define there.

The outline is the one patch-derived truth and ``--codesearch-validate`` read (``pytest_codesearch.outline``),
made only for the files the answer's functions name, and kept by content (``outline/stored.py``: a file
unchanged between snapshots is outlined once, and with a folder once for every run). Nothing here changes a metric: undefined functions are counted, not dropped,
and modules derived from the outline equal the names' own reading wherever a name shows its module
(Python, Java, C#, PHP, Rust, Go; ``outline/modules.py``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pytest_codesearch.outline import language_of
from pytest_codesearch.outline.modules import Modules, modules_of_functions
from pytest_codesearch.outline.stored import blob_facts, outline_facts

OUTLINES_KEPT = 256
"""Files whose ``module_names`` are kept per process by snapshot and path, so a snapshot's later cases do
not read and hash a file again (by content they are kept in ``outline/stored.py``)."""
_BY_PATH: OrderedDict[tuple[str, str], Modules | None] = OrderedDict()
BlobOf = Callable[[str], "str | None"]
"""Returns the git blob id of a snapshot file by path, None when unknown (a directory searched as it is)."""
K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class NamedFunctions:
    """What the outlines of the snapshot say of an answer's functions."""

    modules: list[str]
    """The module of each function (``outline/modules.py``), in order of first appearance."""
    undefined: list[str]
    """The functions whose file (of a language with an outline) does not define them, in answer order."""


def read_functions(
    functions: Sequence[str],
    read: Callable[[str], bytes | None],
    snapshot: str | None = None,
    folder: Path | None = None,
    blob_of: BlobOf | None = None,
) -> NamedFunctions:
    """Return the modules and the undefined ones of ``functions``: normalised entities (``path:Qualified.name``,
    the path a file of the snapshot that ``read`` gives the bytes of). ``snapshot`` (a tree id) names a
    snapshot whose files never change: their outlines are then also kept by path. With a ``folder``, the
    outlines' facts are kept there by content (``outline/stored.py``), for later runs and workers, or by
    blob id where ``blob_of`` gives a file's (then a kept file is not even read)."""

    def outlines(path: str) -> Modules | None:
        if snapshot is None:
            return _modules(path, read, folder, blob_of)
        key = (snapshot, path)
        if key not in _BY_PATH:
            _BY_PATH[key] = _modules(path, read, folder, blob_of)
            _bound(_BY_PATH)
        return _BY_PATH[key]

    undefined = []
    for entity in functions:
        path, _, name = entity.partition(":")  # normalised: the path ends at the first colon
        names = outlines(path)
        if names is not None and name not in names:
            undefined.append(entity)
    return NamedFunctions(modules_of_functions(functions, outlines), undefined)


def _modules(
    path: str, read: Callable[[str], bytes | None], folder: Path | None, blob_of: BlobOf | None
) -> Modules | None:
    """Return the ``module_names`` of the snapshot file ``path``, or None when no outline reads its language."""
    if language_of(path) is None:
        return None
    blob_id = None if blob_of is None else blob_of(path)
    if blob_id is not None:
        found = blob_facts(path, blob_id, lambda: read(path), folder)
    else:
        data = read(path)
        found = None if data is None else outline_facts(path, data, folder)
    return None if found is None else found.modules


def _bound(cache: OrderedDict[K, V]) -> None:
    """Drop the oldest entries of ``cache`` past ``OUTLINES_KEPT``."""
    while len(cache) > OUTLINES_KEPT:
        cache.popitem(last=False)


def named_fields(
    functions: Sequence[str],
    read: Callable[[str], bytes | None],
    derived: bool,
    snapshot: str | None = None,
    folder: Path | None = None,
    blob_of: BlobOf | None = None,
) -> dict[str, object]:
    """Return the case-record fields ``read_functions`` gives for an answer's normalised ``functions``:
    ``undefined_functions`` (their count, when some are), and ``retrieved_modules`` when the answer's
    modules were ``derived`` from its functions (then read from the outlines, as the truth's are)."""
    named = read_functions(functions, read, snapshot, folder, blob_of)
    fields: dict[str, object] = {"retrieved_modules": named.modules} if derived else {}
    if named.undefined:
        fields["undefined_functions"] = len(named.undefined)
    return fields
