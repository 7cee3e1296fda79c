"""Patch-derived truth kept on disk, so a SWE-bench-style file is read again without parsing its bases.

Deriving a case's functions and modules reads each changed file at the base commit and outlines it: on
the 274 SWE-bench Lite instances that was 8.6 s of a 17.7 s warm run, paid again by every run and by
every xdist worker. The truth depends only on the patch, the base commit (which fixes every file read),
the naming convention and the code that derives it, so it is kept under
``<cache_dir>/truth/t1-<code digest>/<key[:2]>/<key>.json`` (the key a hash of the first three) and read
back instead. A file is written atomically and never changed; one that cannot be read is derived again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from pytest_codesearch.atomic import write_cache_file

from .truth import PatchTruth

FORMAT = "t1"
_CODE_PACKAGES = ("goldset", "outline")
"""Packages whose source decides the truth: a change to any of their files starts a new folder."""


@lru_cache(maxsize=1)
def code_digest() -> str:
    """Return a hash of the sources that derive truth (``goldset/`` and ``outline/``)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha1(usedforsecurity=False)
    for package in _CODE_PACKAGES:
        for source in sorted((root / package).rglob("*.py")):
            digest.update(source.relative_to(root).as_posix().encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:16]


def truth_key(patch: str, commit: str, convention: str) -> str:
    """Return the key of the truth ``patch`` gives against ``commit`` under ``convention``."""
    digest = hashlib.sha256(f"{commit}\0{convention}\0".encode())
    digest.update(patch.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def cached_truth(folder: Path | None, key: str, derive: Callable[[], PatchTruth]) -> PatchTruth:
    """Return the truth stored under ``key`` in ``folder``, else ``derive()`` it and store it (``folder``
    None: always derive). What ``derive`` raises passes through, and nothing is stored then."""
    if folder is None:
        return derive()
    path = folder / f"{FORMAT}-{code_digest()}" / key[:2] / f"{key[2:]}.json"
    try:
        return _loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        pass  # absent, or unreadable: derive it again
    truth = derive()
    try:
        write_cache_file(path, _dumps(truth).encode("utf-8"))
    except OSError:
        pass  # a cache that cannot be written costs time, not results
    return truth


def _dumps(truth: PatchTruth) -> str:
    return json.dumps({
        "files": truth.files, "added_files": truth.added_files,
        "lines": {path: [list(span) for span in spans] for path, spans in truth.lines.items()},
        "functions": truth.functions, "modules": truth.modules, "missing": truth.missing,
        "misfits": truth.misfits,
    })  # fmt: skip


def _loads(text: str) -> PatchTruth:
    data = json.loads(text)
    return PatchTruth(
        files=tuple(data["files"]),
        added_files=tuple(data["added_files"]),
        lines={path: tuple((int(a), int(b)) for a, b in spans) for path, spans in data["lines"].items()},
        functions=tuple(data["functions"]),
        modules=tuple(data["modules"]),
        missing=tuple(data["missing"]),
        misfits=tuple(data["misfits"]),
    )
