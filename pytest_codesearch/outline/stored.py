"""What scoring needs of a file's outline, kept on disk by the file's content.

Scoring outlines files at every case: the ground-truth files, for the function units of the line metrics
(``scoring/spans.py``), and the files an answer's functions name, for their modules and the functions their
file does not define (``scoring/named.py``). Parsing a large file costs tens of milliseconds, and on the
274 SWE-bench Lite instances that was most of a warm run's scoring, though the files are the same in every
run. :func:`outline_facts` keeps both facts of a text together: in memory (the last :data:`KEPT`) and, with
a folder, in ``<folder>/o1-<code digest>/<key[:2]>/<key>`` (JSON; the key a hash of the text and its
outline language, the digest one of this package's sources), written atomically and read back by later
runs and xdist workers. A file that cannot be read back is outlined again. :func:`blob_facts` keys them
by git blob id instead, so a warm run neither reads nor hashes the file.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pytest_codesearch.atomic import write_cache_file

from . import language_of, outline
from .modules import module_names

Interval = tuple[int, int]
KEPT = 1024
"""Texts whose facts a process keeps in memory, least recently used dropped first."""
_MEMORY: OrderedDict[tuple[str, Path | None], OutlineFacts] = OrderedDict()


@dataclass(frozen=True)
class OutlineFacts:
    """A file's functions as line extents, and the module of each of its definitions."""

    extents: tuple[Interval, ...]
    """(first line, last line) of every function, outer before inner; a decorator or template header starts it."""
    modules: dict[str, str]
    """``module_names`` of the outline: each definition's module, by its qualified name."""


@lru_cache(maxsize=1)
def code_digest() -> str:
    """Return a hash of this package's sources, which decide every fact."""
    digest = hashlib.sha1(usedforsecurity=False)
    for source in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:12]


def outline_facts(path: str, content: str | bytes, folder: Path | None = None) -> OutlineFacts | None:
    """Return the facts of the file ``path`` holding ``content``, None when no outline reads its language."""
    language = language_of(path)
    if language is None:
        return None
    data = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    kind = f"{language}\0{path.lower().endswith('.h')}\0{isinstance(content, str)}\0".encode()
    return _kept(path, hashlib.blake2b(kind + data, digest_size=20).hexdigest(), lambda: content, folder)


def blob_facts(
    path: str, blob_id: str, load: Callable[[], bytes | None], folder: Path | None = None
) -> OutlineFacts | None:
    """Return the facts of the file ``path`` holding the git blob ``blob_id`` (its bytes from ``load``, read
    only when they are not kept already), None when no outline reads its language or the blob is unreadable."""
    language = language_of(path)
    if language is None:
        return None
    kind = f"{language}\0{path.lower().endswith('.h')}\0blob\0{blob_id}".encode()
    return _kept(path, hashlib.blake2b(kind, digest_size=20).hexdigest(), load, folder)


def _kept(
    path: str, key: str, load: Callable[[], str | bytes | None], folder: Path | None
) -> OutlineFacts | None:
    """Return the facts kept under ``key`` in memory or in ``folder``, else outline what ``load`` gives."""
    location = None if folder is None else folder / f"o1-{code_digest()}" / key[:2] / key[2:]
    remembered = (key, location)  # by folder too: a text met without one is still written to one
    found = _MEMORY.pop(remembered, None)
    if found is None and location is not None:
        found = _load(location)
    if found is None:
        content = load()
        found = None if content is None else _facts(path, content)
        if found is None:
            return None
        if location is not None:
            _save(location, found)
    _MEMORY[remembered] = found
    while len(_MEMORY) > KEPT:
        _MEMORY.popitem(last=False)
    return found


def _facts(path: str, content: str | bytes) -> OutlineFacts | None:
    outlined = outline(path, content)
    if outlined.language is None:
        return None
    extents = sorted(((d.start, d.end) for d in outlined.definitions if d.is_function), key=lambda e: (e[0], -e[1]))
    return OutlineFacts(tuple(extents), module_names(outlined.definitions))


def _load(location: Path) -> OutlineFacts | None:
    try:
        stored = json.loads(location.read_bytes())
        extents = tuple((int(start), int(end)) for start, end in stored["extents"])
        modules = stored["modules"]
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in modules.items()):
            return None
        return OutlineFacts(extents, modules)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):  # absent or unreadable: outline again
        return None


def _save(location: Path, found: OutlineFacts) -> None:
    try:
        write_cache_file(location, json.dumps({"extents": found.extents, "modules": found.modules}).encode())
    except OSError:
        pass  # a cache that cannot be written costs time, not results
