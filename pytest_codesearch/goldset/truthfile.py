"""Ground truth published beside a paper (``--codesearch-truth FILE``), replacing the truth a case derives.

Two shapes, recognised by content:

- a JSON object from instance id to a list of entries ``path`` or ``path::Qualified.name``, CoSIL's
  ``evaluation/gt.json``: the files are the entries' paths, the functions ``path:Qualified.name`` and the
  modules ``path:Qualified`` (the first part of the name);
- JSONL (or a JSON list) of records with ``instance_id`` and any of ``files``, ``modules``, ``functions``
  (entities ``path.py:Name``; ``path.py::Name`` is read the same). A field a record leaves out keeps the
  case's own truth at that level.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .model import GroundTruthFile, TestCase

FIELDS = ("files", "modules", "functions")


class TruthFileError(ValueError):
    """A truth file that cannot be read; str() names the file, the line and the field."""


@dataclass(frozen=True)
class GivenTruth:
    """One case's given truth; None at a level the file does not give."""

    files: tuple[str, ...] | None = None
    modules: tuple[str, ...] | None = None
    functions: tuple[str, ...] | None = None


def load_truth_file(path: Path) -> dict[str, GivenTruth]:
    """Return the truth of a file by case id; raise ``TruthFileError`` naming the line and field if it is broken."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise TruthFileError(f"{path}: cannot read the truth file: {exc}") from None
    stripped = text.lstrip()
    if stripped.startswith("{") and path.suffix.lower() != ".jsonl":
        document = _decode(path, 1, text)
        if "instance_id" not in document:
            return {case_id: _entries(path, case_id, value) for case_id, value in document.items()}
        return dict([_record(path, 1, document)])
    if stripped.startswith("["):
        records = [(1, record) for record in _decode(path, 1, text)]
    else:
        records = [(n, _decode(path, n, line)) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
    return dict(_record(path, line, record) for line, record in records)


def _decode(path: Path, line: int, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TruthFileError(f"{path}:{line + exc.lineno - 1}: not JSON: {exc.msg}") from None


def _entries(path: Path, case_id: str, value: Any) -> GivenTruth:
    """Return CoSIL's ``["path", "path::Class.method", ...]`` as files, functions and modules."""
    if not isinstance(value, list) or not all(isinstance(entry, str) and entry for entry in value):
        raise TruthFileError(f"{path}: {case_id}: expected a list of 'path' or 'path::Qualified.name' entries")
    files: list[str] = []
    functions: list[str] = []
    modules: list[str] = []
    for entry in value:
        file, _, name = entry.partition("::")
        files.append(file)
        if name:
            functions.append(f"{file}:{name}")
            modules.append(f"{file}:{name.split('.')[0]}")
    return GivenTruth(*(tuple(dict.fromkeys(items)) for items in (files, modules, functions)))


def _record(path: Path, line: int, record: Any) -> tuple[str, GivenTruth]:
    where = f"{path}:{line}"
    if not isinstance(record, dict):
        raise TruthFileError(f"{where}: a truth record must be a JSON object, got {type(record).__name__}")
    case_id = record.get("instance_id", record.get("id"))
    if not isinstance(case_id, str) or not case_id:
        raise TruthFileError(f"{where}: instance_id: missing, or not a string (the case id it gives truth for)")
    given: dict[str, tuple[str, ...]] = {}
    for field in FIELDS:
        if field in record:
            value = record[field]
            if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
                raise TruthFileError(f"{where}: {field}: must be a list of non-empty strings")
            given[field] = tuple(dict.fromkeys(item.replace("::", ":") for item in value))
    return case_id, GivenTruth(**given)


def apply_truth(case: TestCase, given: GivenTruth) -> TestCase:
    """Return ``case`` with its truth replaced at each level ``given`` gives (a file keeps its lines when
    the case has it already; an empty list of files keeps the case's own, as a case needs one)."""
    update: dict[str, Any] = {}
    if given.files:
        own = {entry.path: entry for entry in case.ground_truth_files}
        update["ground_truth_files"] = [own.get(p) or GroundTruthFile(path=p) for p in given.files]
    if given.modules is not None:
        update["ground_truth_modules"] = list(given.modules)
    if given.functions is not None:
        update["ground_truth_functions"] = list(given.functions)
    return case.model_copy(update=update)
