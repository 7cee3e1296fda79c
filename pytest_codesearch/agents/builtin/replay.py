"""The ``replay`` agent: answers each case with predictions published for it, to score them as a table did.

A predictions file is JSON (a list of records, or an object mapping ids to records) or JSONL, one record
per instance. A record names its case by ``instance_id`` (or ``id``) and gives ranked lists, best first:
files as ``found_files`` or ``files``, module-level entities (``path.py:Name``) as ``found_modules`` or
``modules``, function-level entities (``path.py:Class.method``) as ``found_entities`` or ``functions``.
These are the keys of LocAgent's ``loc_outputs.jsonl``, so its published outputs replay as they are.
Agentless's and CoSIL's outputs give functions as ``found_related_locs`` instead (``function: Name`` and
``class: Name`` entries per file). A SWE-bench prediction (``model_patch``, or a folder of
``INSTANCE_ID/patch.diff`` as SWE-bench's harness writes them) answers with the files and
functions its patch edits at the case's base, an unordered set (``patches.py``). A case without a
prediction gets an empty answer (it scores 0, as in LocAgent's evaluation).

The agent is registered as ``replay`` when ``--codesearch-predictions FILE`` is given (``replay_spec``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.agents.registry import AgentSpec, class_spec
from pytest_codesearch.agents.builtin.patches import answer_from_patch, related_locs
from pytest_codesearch.agents.builtin.sanity import CaseInfo
from pytest_codesearch.agents.contract import UNORDERED
from pytest_codesearch.repo.reader import SnapshotView

ID_KEYS = ("instance_id", "id")
LIST_KEYS = {"files": ("found_files", "files"), "modules": ("found_modules", "modules"),
             "functions": ("found_entities", "functions")}  # fmt: skip
"""Our field -> the keys a record may give it under, LocAgent's first."""


class PredictionsError(ValueError):
    """A predictions file that cannot be read; str() names the file, the line and the field."""


@dataclass(frozen=True)
class Prediction:
    """One case's published answer."""

    files: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    patch: str | None = None
    """A predicted patch (``model_patch``): the answer is what it edits at the base."""


def load_predictions(path: Path) -> dict[str, Prediction]:
    """Return the predictions of a JSON or JSONL file (or a folder of ``INSTANCE_ID/patch.diff``) by case id;
    raise ``PredictionsError`` if it is broken."""
    if path.is_dir():
        return patch_folder(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise PredictionsError(f"{path}: cannot read the predictions: {exc}") from None
    predictions: dict[str, Prediction] = {}
    for line, record in _records(path, text):
        case_id, prediction = _prediction(path, line, record)
        if case_id in predictions:
            raise PredictionsError(f"{path}:{line}: {case_id!r} has a prediction already; keep one per case")
        predictions[case_id] = prediction
    return predictions


def patch_folder(path: Path) -> dict[str, Prediction]:
    """Return the patches of a folder as SWE-bench's harness writes them (``<instance_id>/patch.diff``, at any
    depth: ``logs/run_evaluation/RUN/MODEL/``), by the name of each patch's folder."""
    predictions: dict[str, Prediction] = {}
    for diff in sorted(path.rglob("patch.diff")):
        case_id = diff.parent.name
        if case_id in predictions:
            raise PredictionsError(f"{diff}: {case_id!r} has a patch already; keep one per case")
        try:
            predictions[case_id] = Prediction(patch=diff.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise PredictionsError(f"{diff}: cannot read the patch: {exc}") from None
    if not predictions:
        raise PredictionsError(f"{path}: no INSTANCE_ID/patch.diff in this folder")
    return predictions


def _records(path: Path, text: str) -> list[tuple[int, Any]]:
    """Return each record with the line it starts on (JSON files: line 1 for all)."""
    if path.suffix.lower() == ".jsonl":
        return [(n, _decode(path, n, line)) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
    document = _decode(path, 1, text)
    if isinstance(document, dict):
        return [(1, {"instance_id": k, **v} if isinstance(v, dict) else v) for k, v in document.items()]
    if isinstance(document, list):
        return [(1, record) for record in document]
    raise PredictionsError(f"{path}:1: expected a list of predictions or an object of them by id")


def _decode(path: Path, line: int, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PredictionsError(f"{path}:{line + exc.lineno - 1}: not JSON: {exc.msg}") from None


def _prediction(path: Path, line: int, record: Any) -> tuple[str, Prediction]:
    where = f"{path}:{line}"
    if not isinstance(record, dict):
        raise PredictionsError(f"{where}: a prediction must be a JSON object, got {type(record).__name__}")
    case_id = next((record[key] for key in ID_KEYS if key in record), None)
    if not isinstance(case_id, str) or not case_id:
        raise PredictionsError(f"{where}: instance_id: missing, or not a string (the case id it answers)")
    if "model_patch" in record:
        patch = record["model_patch"]
        if patch is not None and not isinstance(patch, str):
            raise PredictionsError(f"{where}: model_patch: must be a string (a unified diff) or null")
        return case_id, Prediction(patch=patch or "")
    lists: dict[str, tuple[str, ...]] = {}
    for field, keys in LIST_KEYS.items():
        key = next((k for k in keys if k in record), None)
        value = [] if key is None or record[key] is None else record[key]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise PredictionsError(f"{where}: {key}: must be a list of strings, best first")
        lists[field] = tuple(value)
    if not lists["functions"] and "found_related_locs" in record:
        found = related_locs(record["found_related_locs"], lists["files"])
        if found is None:
            raise PredictionsError(f"{where}: found_related_locs: must map each file to its location strings")
        lists["functions"] = tuple(found)
    return case_id, Prediction(lists["files"], lists["modules"], lists["functions"])


class ReplayAgent:
    """Answers each case with its prediction from a file; reads no repository.

    The harness hands it each case before asking (``observe_case``, as to the sanity agents): the case
    id is how it finds the prediction. It only replays: it never sees the ground truth.
    """

    needs_directory = False

    def __init__(self, predictions: str | Path, convention: str = "native") -> None:
        self.path = Path(predictions)
        self.convention = convention
        self.predictions = load_predictions(self.path)
        self._case_id: str | None = None
        self._read: Callable[[str], bytes | None] = lambda path: None
        self._viewed = False

    def observe_case(self, case: CaseInfo) -> None:
        """Remember which case is about to be asked."""
        self._case_id = case.case_id

    def use_snapshot(self, view: SnapshotView) -> None:
        """Read the base of a predicted patch through the harness's reader (in this process)."""
        self._read = view.read
        self._viewed = True

    def initialize(self, repo_path: str) -> None:
        """Nothing to index: the answers are given; a predicted patch is read against ``repo_path``
        (in a child process, where the snapshot is a directory) unless ``use_snapshot`` gave a reader."""
        if not self._viewed:
            root = Path(repo_path)
            self._read = lambda path: (root / path).read_bytes() if (root / path).is_file() else None
        self._viewed = False

    def reset(self) -> None:
        """Nothing to reset."""

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the prediction of the current case (an empty answer when it has none)."""
        found = self.predictions.get(self._case_id or "", Prediction())
        if found.patch is not None:
            edited = answer_from_patch(found.patch, self._read, self.convention)
            metadata: dict[str, Any] = {UNORDERED: True}
            if edited.problem is not None:
                metadata["patch_problem"] = edited.problem
            return RetrievalResult(files=list(edited.files), functions=list(edited.functions),
                                   modules=list(edited.modules), metadata=metadata)  # fmt: skip
        return RetrievalResult(files=list(found.files), functions=list(found.functions), modules=list(found.modules))


def replay_spec(predictions: Path, convention: str = "native") -> AgentSpec:
    """Return the ``replay`` agent answering from ``predictions``; a predicted patch's entities are named by the
    truth ``convention`` (the scoring profile's)."""
    given = {"predictions": str(predictions), "convention": convention}
    return class_spec("replay", ReplayAgent, given, "--codesearch-predictions")
