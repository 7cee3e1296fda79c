"""Check gold-set cases against the snapshots they search, without running any agent.

``pytest --codesearch-validate`` calls :func:`validate_files`; each finding is a :class:`Problem`::

    problems = validate_goldset(Path("goldsets/self.jsonl"), "goldsets/self.jsonl", store)
    print(format_table(problems))

Checks, per case: the case loads (broken entries are reported as the reader gives them, duplicate ids
included); its repository and ``base_commit`` resolve to a snapshot; every ground-truth file is in the
snapshot's tree; every line range lies inside its file; every symbol is defined in its file; every
function and module (``path:Qualified.name``) of a file in a language ``pytest_codesearch.outline`` reads
is defined in that file at the base; the query does not name its answer (a warning: ``goldset/leaks.py``). Files are read
through ``Snapshot.read``: the object database for a commit, never whatever is checked out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from pytest_codesearch.goldset import formats
from pytest_codesearch.goldset.formats import ReadOptions
from pytest_codesearch.goldset.fqnames import Reader, resolve_fqn
from pytest_codesearch.goldset.leaks import find_leak
from pytest_codesearch.goldset.model import GroundTruthFile, TestCase
from pytest_codesearch.outline import language_of, outline
from pytest_codesearch.repo.resolve import Resolved, default_repo, resolve_repo
from pytest_codesearch.repo.snapshot import Snapshot, SnapshotError, SnapshotStore
from pytest_codesearch.repo.suggest import missing_path_message
from pytest_codesearch.scoring.matching import MatchMode, files_matching

ERROR = "error"
WARNING = "warning"
_FIELD = re.compile(r"^([A-Za-z_][\w.\[\]-]*): (.*)$", re.DOTALL)
_LINE = re.compile(r"^line (\d+): (.*)$", re.DOTALL)
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "venv"})


@dataclass(frozen=True, order=True)
class Problem:
    """One finding, sorted by file, line, case id and field; ``line`` 0 means the whole file."""

    goldset: str
    line: int
    case_id: str
    field: str
    message: str
    level: str = ERROR
    """``error`` (the case cannot be scored as written) or ``warning`` (it can, but is suspect)."""

    def location(self) -> str:
        """Return ``file:line``, or the file alone for a whole-file problem."""
        return f"{self.goldset}:{self.line}" if self.line else self.goldset


@dataclass(frozen=True)
class Validation:
    """What a validation run found: the problems, and how many files and cases it checked."""

    problems: list[Problem]
    files: int
    cases: int

    @property
    def errors(self) -> int:
        """Return the number of error-level problems."""
        return sum(problem.level == ERROR for problem in self.problems)

    @property
    def warnings(self) -> int:
        """Return the number of warning-level problems."""
        return sum(problem.level == WARNING for problem in self.problems)


def goldset_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Yield the gold-set files among ``paths`` (files, or directories walked in name order), once each.

    A file given by name is checked whatever its shape; in a directory, only files some registered format
    claims. Hidden directories, ``__pycache__``, ``node_modules`` and ``venv`` are skipped.
    """
    seen: set[Path] = set()
    for path in paths:
        found = [path] if path.is_file() else sorted(_walk(path))
        for file in found:
            if file.resolve() not in seen:
                seen.add(file.resolve())
                yield file


def _walk(directory: Path) -> Iterator[Path]:
    for child in directory.iterdir():
        if child.is_dir():
            if not child.name.startswith(".") and child.name not in _SKIPPED_DIRS:
                yield from _walk(child)
        elif formats.reader_for(child) is not None:
            yield child


def validate_files(
    paths: Iterable[tuple[Path, str]], store: SnapshotStore, options: ReadOptions | None = None
) -> Validation:
    """Validate each ``(path, display name)``; ``display`` is how problems name the file."""
    problems: list[Problem] = []
    files = cases = 0
    for path, display in paths:
        found, count = validate_goldset(path, display, store, options)
        problems.extend(found)
        files += 1
        cases += count
    return Validation(sorted(problems), files, cases)


def validate_goldset(
    path: Path, display: str, store: SnapshotStore, options: ReadOptions | None = None
) -> tuple[list[Problem], int]:
    """Return the problems of the gold-set file ``path`` and the number of its entries."""
    options = options or ReadOptions()
    loaded = formats.load(path, options)
    problems: list[Problem] = []
    if loaded.error is not None:
        line, error = _split_line(loaded.error)
        problems.append(_from_error(display, line, "", error))
    repo = default_repo(path, loaded.metadata.repo, display, options.repos)
    for entry in loaded.entries:
        if entry.case is None:
            problems.append(_from_error(display, entry.line, entry.case_id or "", entry.error or "invalid case"))
            continue
        case_repo = repo if entry.case.repo is None else resolve_repo(entry.case.repo, path, options.repos)
        base = entry.case.base_commit if entry.case.base_commit is not None else loaded.metadata.base_commit
        problems.extend(_check_case(display, entry.line, entry.case, case_repo, base, store, loaded.metadata.match or "exact"))
    return problems, len(loaded.entries)


def _split_line(error: str) -> tuple[int, str]:
    """Return the line a whole-file error names (``line 3: ...``) and the rest, or 0 and the error."""
    match = _LINE.match(error)
    return (int(match.group(1)), match.group(2)) if match else (0, error)


def _from_error(goldset: str, line: int, case_id: str, error: str) -> Problem:
    """Return a reader's ``field: message`` error (or a bare message) as an error-level problem."""
    match = _FIELD.match(error)
    field, message = (match.group(1), match.group(2)) if match else ("", error)
    return Problem(goldset, line, case_id, field, " ".join(message.split()))


def _check_case(
    goldset: str, line: int, case: TestCase, repo: Resolved, base: str | None, store: SnapshotStore,
    mode: MatchMode,
) -> list[Problem]:
    """Return the problems of one loaded case: its snapshot, its ground truth, and its query."""
    path, repo_error = repo
    if path is None:
        problem = _from_error(goldset, line, case.id, repo_error or "repo: cannot be resolved")
        return [replace(problem, field=problem.field or "repo")]
    try:
        snapshot = store.get(path, base)
    except SnapshotError as exc:
        field = "repo" if base is None else "base_commit"
        return [Problem(goldset, line, case.id, field, str(exc))]
    return [
        Problem(goldset, line, case.id, field, message, level)
        for field, message, level in _case_problems(case, snapshot, mode)
    ]


def _case_problems(case: TestCase, snapshot: Snapshot, mode: MatchMode) -> Iterator[tuple[str, str, str]]:
    """Yield ``(field, message, level)`` for each problem of ``case`` in ``snapshot``.

    An entry is found as a run finds it (``scoring.matching.files_matching``, the gold set's rule); under
    ``substring`` its lines and symbols are checked in each file it may match, and pass when one holds them.
    """
    for index, truth in enumerate(case.ground_truth_files):
        where = f"ground_truth_files[{index}]"
        candidates = files_matching(truth.path, snapshot.files, mode)
        if not candidates:
            yield where, _missing_message(truth.path, snapshot), ERROR
            continue
        found: list[tuple[str, str, str]] = []
        for path in candidates:
            data = snapshot.read(path)
            if data is None:
                continue
            named = truth.model_copy(update={"path": path})
            found = [*_line_problems(where, named, data), *_symbol_problems(where, named, data, snapshot.read)]
            if not found:
                break
        yield from found
    yield from _entity_problems("ground_truth_functions", case.ground_truth_functions, snapshot)
    yield from _entity_problems("ground_truth_modules", case.ground_truth_modules, snapshot)
    leak = query_leak(case)
    if leak is not None:
        yield "query", leak, WARNING


def _missing_message(path: str, snapshot: Snapshot) -> str:
    """Say that ``path`` is not in the snapshot, suggesting the closest file it has (as a run does)."""
    return missing_path_message(path, snapshot.files, snapshot.label, is_tree=bool(snapshot.tree_id))


def _line_problems(where: str, truth: GroundTruthFile, data: bytes) -> Iterator[tuple[str, str, str]]:
    """Yield a problem for each line range of ``truth`` that ends past the last line of ``data``."""
    count = line_count(data)
    for index, (start, end) in enumerate(truth.lines):
        if end > count:
            yield (
                f"{where}.lines[{index}]",
                f"[{start}, {end}] ends past the last line of {truth.path!r} ({count} lines)",
                ERROR,
            )


def line_count(data: bytes) -> int:
    """Return the number of lines of ``data``: a last line without a newline counts, an empty file has 0."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _entity_problems(field: str, names: Iterable[str], snapshot: Snapshot) -> Iterator[tuple[str, str, str]]:
    """Yield a problem for each ``path:Qualified.name`` whose file (in a language with an outline) lacks it."""
    for index, name in enumerate(names):
        path, _, qualname = name.partition(":")  # C++ names hold colons too: the path ends at the first
        if not path or language_of(path) is None:
            continue  # no outline to check it against: it stays at file level
        data = snapshot.read(path)
        if data is None:
            message = _missing_message(path, snapshot)
        elif qualname not in {d.qualname for d in outline(path, data).definitions}:
            message = f"{qualname!r} is not a function, class or method defined in {path!r} at the base"
        else:
            continue
        yield f"{field}[{index}]", message, ERROR


def _symbol_problems(
    where: str, truth: GroundTruthFile, data: bytes, read: Reader
) -> Iterator[tuple[str, str, str]]:
    """Yield a problem for each symbol of ``truth`` that ``data`` does not define."""
    outlined = language_of(truth.path) is not None
    for index, symbol in enumerate(truth.symbols):
        if outlined and not defines_symbol(truth.path, data, symbol, read):
            message = f"{symbol!r} is not a function, class or method defined in {truth.path!r}"
        elif not outlined and symbol_tail(symbol).encode() not in data:
            message = f"{symbol_tail(symbol)!r} does not occur in {truth.path!r}"
        else:
            continue
        yield f"{where}.symbols[{index}]", message, ERROR


def symbol_tail(symbol: str) -> str:
    """Return the last name of ``symbol``: ``hash_password`` of ``shop.auth.hashing.hash_password`` or ``a.py:f``."""
    return re.split(r"[.:#/]|::", symbol.strip())[-1]


def defines_symbol(path: str, data: bytes, symbol: str, read: Reader | None = None) -> bool:
    """Return True when ``data`` (the file at ``path``) defines ``symbol`` as a function, class or method.

    ``symbol`` matches a definition's qualified name (``Cart.add`` for ``add`` in ``class Cart``) written
    alone, after a ``path:`` prefix (``pkg/shop.py:Cart.add``), or after the file's dotted module name or
    any tail of it (``pkg.shop.Cart.add``, ``shop.Cart.add``; ``src/pkg/shop.py`` gives ``src.pkg.shop``
    too; a package's ``__init__.py`` is the package: ``pkg.helper``). The definitions are the file's
    outline in its language (``pytest_codesearch.outline``). Given the tree's ``read``, a dotted name is
    also resolved as a run resolves FQN names (``goldset/fqnames.py``: re-exports followed, names a
    module assigns), and is defined here when it resolves to ``path`` (``flask.Flask`` in
    ``src/flask/app.py``).
    """
    head, colon, tail = symbol.strip().partition(":")
    name = tail.strip() if colon and language_of(head) is not None else symbol.strip()
    qualnames = {definition.qualname for definition in outline(path, data).definitions}
    if name in qualnames:
        return True
    parts = PurePosixPath(path).with_suffix("").parts
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    modules = [".".join(parts[i:]) for i in range(len(parts))]
    if any(name.startswith(module + ".") and name[len(module) + 1 :] in qualnames for module in modules):
        return True
    found = resolve_fqn(name, read) if read is not None and ":" not in symbol else None
    return found is not None and found.path == path


def query_leak(case: TestCase) -> str | None:
    """Return why the query names its answer (``goldset/leaks.py``, the miner's rule too), or None."""
    leak = find_leak(case.query, [truth.path for truth in case.ground_truth_files])
    return None if leak is None else f"names its answer: {leak.describe()}"


def format_table(problems: Iterable[Problem]) -> str:
    """Return one line per problem: ``file:line  level  case-id  field  message``, columns aligned."""
    rows = [(p.location(), p.level, p.case_id or "-", p.field or "-", p.message) for p in sorted(problems)]
    if not rows:
        return ""
    header = ("location", "level", "case", "field", "message")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    lines = ["  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)) for row in [header, *rows]]
    return "\n".join(line.rstrip() for line in lines)


def summary(result: Validation) -> str:
    """Return the closing line: files, cases, errors and warnings."""
    return (
        f"codesearch: validated {result.files} gold-set file(s), {result.cases} case(s): "
        f"{result.errors} error(s), {result.warnings} warning(s)"
    )


__all__ = [
    "ERROR",
    "WARNING",
    "Problem",
    "Validation",
    "defines_symbol",
    "format_table",
    "goldset_files",
    "line_count",
    "query_leak",
    "summary",
    "validate_files",
    "validate_goldset",
]
