"""SWE-bench-style instances: SWE-bench (Lite, Verified, full), Loc-Bench and MULocBench records.

A file holds one instance object, a JSON list of them, or one per line (JSONL). Each instance needs
``instance_id``, ``repo`` (``owner/name``), ``base_commit``, ``problem_statement`` (the query) and ``patch``
(a unified diff). The ground truth is derived from the patch, read against the tree at ``base_commit``
(``goldset/truth.py``): the files it modifies or deletes, their old-side lines, and the changed functions
and top-level definitions of Python files. Every other field is kept under ``x-swebench``.

The repository is found locally, in this order: ``repos[repo]`` (the repository map), a directory named
as ``repo`` relative to the instance file (``django/django``), or one named as SWE-bench names its
mirrors (``django__django``), else (when the options give a ``RemoteCache``) a clone of ``owner/name``
fetched when ``base_commit`` is missing from it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pygit2
from pydantic import ValidationError

from pytest_codesearch.repo.remote import RemoteCache, RemoteError
from pytest_codesearch.repo.resolve import resolve_repo
from pytest_codesearch.repo.revs import peel_commit

from ..entries import (
    LENIENT,
    STRICT,
    CaseEntry,
    LoadedGoldSet,
    claim_id,
    decode_error,
    describe_validation_error,
    json_error,
    json_type,
)
from ..jsontext import LineIndex, elements, skip
from ..model import GoldSetMetadata, TestCase
from ..patch import PatchError, parse_patch
from ..truth import PatchTruth, Reader, truth_from_patch
from ..truthcache import cached_truth, truth_key
from pytest_codesearch.goldsniff import sniff_swebench

from .base import Format, ReadOptions, RepoMap

REQUIRED = ("instance_id", "repo", "base_commit", "problem_statement", "patch")
"""Fields every instance must have, as non-empty strings."""

Record = tuple[int, Any]
"""A decoded instance (or the ``ValueError`` that stopped it) and the line where it starts."""


def load_swebench(path: Path, options: ReadOptions) -> LoadedGoldSet:
    """Return the cases of a file of SWE-bench-style instances; never raises for bad content."""
    records, error = read_records(path)
    if options.truth_share is not None and options.truth_cache is not None:
        derive_share(path, records, options)
    builder = _CaseBuilder(path, options)
    entries = []
    for done, (line, value) in enumerate(records, start=1):
        entries.append(builder.entry(line, value))
        if options.progress is not None:
            options.progress(done, len(records))
    return LoadedGoldSet(path, GoldSetMetadata(), entries, error)


def derive_share(path: Path, records: list[Record], options: ReadOptions) -> None:
    """Derive into ``options.truth_cache`` the truth of this process's share of ``records``
    (``ReadOptions.truth_share``): every ``n``-th instance from the ``k``-th, as reading would, problems
    aside (reading reports them). Each of ``n`` processes reading the file at once (xdist workers, each of
    which collects every case) thus derives about ``1/n`` of it, then reads the rest from the cache."""
    if options.truth_share is None:
        return
    share, count = options.truth_share
    builder = _CaseBuilder(path, options)
    for done, (line, value) in enumerate(records[share::count]):
        builder.entry(line, value)
        if options.progress is not None:
            options.progress(min(share + (done + 1) * count, len(records)), len(records))


def read_records(path: Path) -> tuple[list[Record], str | None]:
    """Return the instances of a JSON (one object or a list) or JSONL file, and any whole-file problem."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return [], f"cannot read: {exc.strerror or exc}"
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        return [], decode_error(exc, data.count(b"\n", 0, exc.start) + 1, 0)
    if path.suffix.lower() == ".jsonl":
        return _jsonl_records(text), None
    return _json_records(text)


def _decode(text: str, offset: int | None = None) -> Any:
    """Return the value of ``text`` (the whole of it), or of the value at ``offset``; the error if invalid."""
    try:
        return STRICT.decode(text) if offset is None else STRICT.raw_decode(text, offset)[0]
    except ValueError as exc:
        return exc


def _jsonl_records(text: str) -> list[Record]:
    return [(number, _decode(line)) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]


def _json_records(text: str) -> tuple[list[Record], str | None]:
    try:
        document = LENIENT.decode(text)
    except json.JSONDecodeError as exc:
        return [], f"line {exc.lineno}: {json_error(exc)}"
    start, line = skip(text, 0), LineIndex(text).line
    if isinstance(document, dict):
        return [(line(start), _decode(text, start))], None
    if isinstance(document, list):
        return [(line(offset), _decode(text, offset)) for offset in elements(text, start)], None
    return [], f"line 1: expected an instance object or a list of them, got {json_type(document)}"


class _CaseBuilder:
    """Turns instances into cases, opening each repository once per file."""

    def __init__(self, path: Path, options: ReadOptions) -> None:
        self.path = path
        self.options = options
        self.seen: dict[str, int] = {}
        self.opened: dict[str, tuple[pygit2.Repository | None, str | None]] = {}

    def entry(self, line: int, value: Any) -> CaseEntry:
        """Return the case of one decoded instance, or the entry naming its first problem."""
        if isinstance(value, ValueError):
            return CaseEntry(line, None, json_error(value), None)
        if not isinstance(value, dict):
            return CaseEntry(line, None, f"an instance must be a JSON object, got {json_type(value)}", None)
        case_id, duplicate = claim_id({"id": value.get("instance_id")}, line, self.seen)
        if duplicate:
            return CaseEntry(line, None, "instance_" + duplicate, None)
        problem = _missing_field(value)
        if problem is None:
            case_json, problem = self._case_json(value)
            if case_json is not None:
                return _validated(line, case_json, case_id)
        return CaseEntry(line, None, problem, case_id)

    def _case_json(self, record: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
        repository, error = self._open(record["repo"])
        if repository is None:
            return None, error or "repo: cannot be opened"
        commit = peel_commit(repository, record["base_commit"])
        if isinstance(commit, str) and self._cloned(record["repo"], repository):
            repository, error = self._fetch(record["repo"], record["base_commit"])
            if repository is None:
                return None, error or "repo: cannot be opened"
            commit = peel_commit(repository, record["base_commit"])
        if isinstance(commit, str):
            return None, f"base_commit: {record['base_commit']!r} is not in {repository.path}: {commit}"
        try:
            patch = parse_patch(record["patch"])
        except PatchError as exc:
            return None, f"patch: {exc}"
        key = truth_key(record["patch"], str(commit.id), self.options.convention)
        try:
            truth = cached_truth(self.options.truth_cache, key, lambda: truth_from_patch(
                patch, _tree_reader(repository, commit), self.options.convention))  # fmt: skip
        except MissingBlob as exc:
            where = f"base_commit: {record['base_commit'][:12]} needs {exc}"
            return None, f"{where}, but {repository.path} lacks it (a partial clone?)"
        problem = _truth_problem(truth, record["base_commit"])
        if problem is not None:
            return None, problem
        if self.options.entity_truth == "dataset":
            given = dataset_entities(record)
            if isinstance(given, str):
                return None, given
            truth = replace(truth, functions=given[0], modules=given[1])
        case = _case_from(record, truth, repository, self.options.hints)
        if record["repo"] in self.options.repos or self._cloned(record["repo"], repository):
            case["repo"] = record["repo"]  # found again through the map or the cache, wherever the file goes
        return case, ""

    def _cloned(self, repo: str, repository: pygit2.Repository) -> bool:
        """Return True when ``repository`` is the remote cache's clone of ``repo``."""
        remotes = self.options.remotes
        return remotes is not None and Path(repository.path).resolve() == remotes.path_for(repo).resolve()

    def _fetch(self, repo: str, commit: str) -> tuple[pygit2.Repository | None, str | None]:
        """Fetch ``commit`` into the clone of ``repo`` and open it again (or say why not)."""
        remotes = self.options.remotes
        if remotes is None:
            return None, "repo: no cache for remote repositories"
        try:
            path = remotes.ensure(repo, commit)
        except RemoteError as exc:
            return None, str(exc)
        self.opened[repo] = (pygit2.Repository(str(path)), None)
        return self.opened[repo]

    def _open(self, repo: str) -> tuple[pygit2.Repository | None, str | None]:
        if repo not in self.opened:
            self.opened[repo] = _open_repository(repo, self.path, self.options.repos, self.options.remotes)
        return self.opened[repo]


def _missing_field(record: dict[str, Any]) -> str | None:
    """Return ``field: problem`` for the first required field that is not a non-empty string."""
    for name in REQUIRED:
        value = record.get(name)
        if value is None:
            return f"{name}: missing required field"
        if not isinstance(value, str):
            return f"{name}: must be a string"
        if not value.strip():
            return f"{name}: must not be empty"
    return None


def _open_repository(
    repo: str, goldset: Path, repos: RepoMap, remotes: RemoteCache | None = None
) -> tuple[pygit2.Repository | None, str | None]:
    """Return the local repository ``repo`` names (see the module docstring), or None and why."""
    path, error = resolve_repo(repo, goldset, repos)
    if path is None and repo not in repos and "/" in repo:
        path = resolve_repo(repo.replace("/", "__"), goldset)[0]
    if path is None and remotes is not None:
        path, error = resolve_repo(repo, goldset, repos, remotes=remotes)
    if path is None:
        hint = f"; clone it there or beside the file as {repo.replace('/', '__')!r}, or map it to a clone"
        return None, f"{error}{hint}"
    try:
        return pygit2.Repository(str(path)), None
    except pygit2.GitError as exc:
        return None, f"repo: {repo!r} ({path}) is not a git repository: {exc}"


class MissingBlob(Exception):
    """The tree names a file whose blob the repository lacks (a partial clone, a damaged mirror)."""


def _tree_reader(repository: pygit2.Repository, commit: pygit2.Commit) -> Reader:
    """Return a reader of the blobs of ``commit``'s tree: None for paths that are absent, trees or submodules.

    Raises ``MissingBlob`` when the object database lacks the tree or a blob the tree names.
    """
    try:
        tree = commit.tree
    except (KeyError, pygit2.GitError):
        raise MissingBlob(f"tree {str(commit.tree_id)[:12]}") from None

    def read(path: str) -> bytes | None:
        try:
            entry = tree[path]
        except (KeyError, ValueError):
            return None
        if entry.type_str != "blob":
            return None  # a directory, or a submodule whose commit is not in this repository
        try:
            blob = repository[entry.id]
        except KeyError:
            raise MissingBlob(f"{path!r} (blob {str(entry.id)[:12]})") from None
        return blob.data if isinstance(blob, pygit2.Blob) else None

    return read


def dataset_entities(record: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]] | str:
    """Return the functions an instance's own ``edit_functions`` names and their modules, or what is wrong.

    Modules are derived as LocAgent's evaluation derives them: ``path.py:Name`` from the first dotted
    part of each function's name, each once, in order.
    """
    given = record.get("edit_functions")
    if given is None:
        return "edit_functions: missing; --codesearch-entity-truth=dataset takes the function-level truth from it"
    if not isinstance(given, list) or not all(isinstance(e, str) and ":" in e for e in given):
        return "edit_functions: must be a list of 'path.py:Qualified.name' strings"
    functions = tuple(dict.fromkeys(given))
    modules = tuple(dict.fromkeys(f"{e.split(':')[0]}:{e.split(':')[-1].split('.')[0]}" for e in functions))
    return functions, modules


def _truth_problem(truth: PatchTruth, base_commit: str) -> str | None:
    if truth.missing:
        names = ", ".join(repr(path) for path in truth.missing)
        return f"patch: changes {names}, not in the tree of base_commit {base_commit[:12]} (does the patch fit it?)"
    if truth.misfits:
        return f"patch: does not fit base_commit {base_commit[:12]}: {truth.misfits[0]}"
    if not truth.files:
        return "patch: changes no file that exists at base_commit (it only adds files)"
    return None


def _case_from(record: dict[str, Any], truth: PatchTruth, repository: pygit2.Repository, hints: bool) -> dict[str, Any]:
    """Return the native case (as JSON) of an instance and the ground truth of its patch."""
    query = record["problem_statement"]
    if hints and isinstance(record.get("hints_text"), str) and record["hints_text"].strip():
        query = f"{query}\n\n{record['hints_text']}"
    files: list[Any] = [
        {"path": path, "lines": [list(span) for span in truth.lines[path]]} if path in truth.lines else path
        for path in truth.files
    ]
    workdir = repository.workdir or repository.path
    if not (Path(workdir) / ".git").exists():  # a git directory whose config says non-bare: it is the repository
        workdir = repository.path
    return {
        "id": record["instance_id"],
        "query": query,
        "ground_truth_files": files,
        "repo": str(Path(workdir).resolve()),
        "base_commit": record["base_commit"],
        "added_files": list(truth.added_files),
        "tags": [record["repo"]],
        "ground_truth_functions": list(truth.functions),
        "ground_truth_modules": list(truth.modules),
        "x-swebench": {key: value for key, value in record.items() if key not in REQUIRED},
    }


_FIELD_NAMES = {"id": "instance_id", "query": "problem_statement"}
"""Native fields named as the instance names them, in error messages."""


def _validated(line: int, case_json: dict[str, Any], case_id: str | None) -> CaseEntry:
    """Validate the derived case; errors name the instance's field (``instance_id``, not ``id``)."""
    try:
        return CaseEntry(line, TestCase.model_validate(case_json), None, case_id)
    except ValidationError as exc:  # e.g. an instance_id with a space, or a patch path with '..'
        messages = describe_validation_error(exc).split("; ")
        for native, own in _FIELD_NAMES.items():
            messages = [own + m[len(native) :] if m.startswith(native + ":") else m for m in messages]
        return CaseEntry(line, None, "; ".join(messages), case_id)


FORMAT = Format(name="swebench", suffixes=(".json", ".jsonl"), sniff=sniff_swebench, read=load_swebench)
