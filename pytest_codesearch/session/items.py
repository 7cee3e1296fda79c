"""Collection nodes: a gold-set file, its (case x agent) items, and items for broken entries."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import pytest_codesearch
from pytest_codesearch.evaluate import CaseError, CaseSpec, error_record, evaluate_case
from pytest_codesearch.gcpause import paused_gc
from pytest_codesearch.goldset import formats
from pytest_codesearch.goldset.entries import format_error
from pytest_codesearch.goldset.formats.base import PROGRESS_EVERY
from pytest_codesearch.goldset.truthfile import GivenTruth, TruthFileError, apply_truth, load_truth_file
from pytest_codesearch.nodeids import base_nodeid, case_name
from pytest_codesearch.recordtext import MAX_TEXT_CHARS, clip, safe_text
from pytest_codesearch.repo.remote import RemoteCache, default_cache_dir
from pytest_codesearch.printable import visible
from pytest_codesearch.repo.resolve import confined, default_repo, resolve_repo
from pytest_codesearch.report.model import CaseResult, InvalidEntry
from pytest_codesearch.runner.base import AgentCrashed, AgentError, AgentTimeout
from pytest_codesearch.scoring.profiles import get_profile
from pytest_codesearch.settings.model import Settings
from pytest_codesearch.session.junit import junit_properties
from pytest_codesearch.session.progress import collect_progress
from pytest_codesearch.session.state import STATE, RunState

if TYPE_CHECKING:
    from pytest_codesearch.runner.pool import AgentPool

CASE_RESULT = pytest.StashKey[CaseResult]()
"""The record of a CaseItem's call phase (absent until it ran)."""
POOL_FIXTURE = "_codesearch_pool"
"""The session fixture holding this process's agent runners."""
_HIDDEN_DIRS = (os.path.dirname(pytest_codesearch.__file__), os.path.dirname(asyncio.__file__))


def _codesearch_case() -> None:
    """Stand-in test function: CaseItem.runtest does the work.

    It names no fixture: the agent pool is a session fixture that the first case of the process asks for
    (``CaseItem.pool``). A fixture named here would be resolved again for each of thousands of items, with a
    ``request`` made for each (about a tenth of the harness's own time per item, issue 23).
    """


@pytest.fixture(scope="session", name=POOL_FIXTURE)
def codesearch_pool(request: pytest.FixtureRequest) -> Iterator[AgentPool]:
    """The agents of this process: created on first use, torn down at the end of the session."""
    from pytest_codesearch.runner.pool import AgentPool
    from pytest_codesearch.session.setup import store_roots

    settings = request.config.stash[STATE].settings
    pool = AgentPool(request, request.getfixturevalue, isolate=settings.isolation, stores=store_roots(settings))
    yield pool
    pool.close()


class GoldsetFile(pytest.File):
    """A gold-set file: one item per (case x selected agent), one failing item per broken entry."""

    def collect(self) -> list[pytest.Item]:
        """Return the file's items in file order; run order is set later from the seed.

        The garbage collector pauses meanwhile: the cases and items made here all live until the end
        of the session (``pytest_collection_finish`` freezes them), and a 10,000-case file made it walk
        the growing heap five times.
        """
        with paused_gc():
            return list(self._items())

    def _items(self) -> Iterator[pytest.Item]:
        state = self.config.stash[STATE]
        display = self.display_path()
        progress = collect_progress(self.config, display, state.settings.progress)
        options = dataclasses.replace(read_options(state.settings), truth_share=_truth_share(self.config, state.worker_id))
        if progress is not None:
            options = dataclasses.replace(options, progress=lambda done, total: progress.step("reading entries", done, total))
        loaded = formats.load(self.path, options)
        state.goldset_cases[display] = len(loaded.cases)
        if loaded.error is not None:
            yield BrokenEntryItem.from_parent(
                self, name="goldset-file", goldset=display, line=0, error=loaded.error, case_id=None
            )
        project = None if state.settings.allow_any_repo else self.config.rootpath.resolve()
        repo, repo_error = confined(
            default_repo(self.path, loaded.metadata.repo, display, options.repos, options.remotes), project
        )
        base = loaded.metadata.base_commit
        fixtureinfo = None
        for number, entry in enumerate(loaded.entries, start=1):
            if progress is not None and number % PROGRESS_EVERY == 0:
                progress.step("collecting cases", number, len(loaded.entries))
            if entry.case is None:
                yield BrokenEntryItem.from_parent(
                    self,
                    name=f"line-{entry.line}",
                    goldset=display,
                    line=entry.line,
                    error=entry.error or "invalid case",
                    case_id=entry.case_id,
                )
                continue
            case = entry.case
            if case.id in state.given_truth:
                case = apply_truth(case, state.given_truth[case.id])
            commit = case.base_commit if case.base_commit is not None else base
            case_repo, case_error = (repo, repo_error) if case.repo is None else confined(resolve_repo(
                case.repo, self.path, options.repos, remotes=options.remotes, commit=commit
            ), project)
            spec = CaseSpec(
                goldset=display,
                line=entry.line,
                case=case,
                repo=case_repo,
                base_commit=commit,
                repo_error=case_error,
                match=loaded.metadata.match or "exact",
                repo_name=case.repo if case.repo is not None else loaded.metadata.repo,
            )
            for choice in state.choices:
                item = CaseItem.from_parent(
                    self, name=case_name(case.id, choice.name), callobj=_codesearch_case, spec=spec, choice=choice,
                    fixtureinfo=fixtureinfo,
                )
                # every item of the file needs the same fixtures: resolve them once, not per item
                fixtureinfo = fixtureinfo or getattr(item, "_fixtureinfo", None)
                yield item

    def display_path(self) -> str:
        """Return the file's path relative to the rootdir, as in node ids."""
        try:
            return self.path.relative_to(self.config.rootpath).as_posix()
        except ValueError:
            return self.path.as_posix()


class CaseItem(pytest.Function):
    """One case run against one agent: passes when the agent answered, whatever the score."""

    def __init__(self, *, spec: CaseSpec, choice: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _restructure_node_id(self)
        self.spec = spec
        self.choice = choice
        case = spec.case
        self.extra_keyword_matches.update(
            k for k in (choice.name, choice.spec.name, case.complexity, case.category, *case.tags) if k
        )
        self.extra_keyword_matches.update(_repo_keywords(spec.repo, case.repo))
        self.add_marker(_codesearch_mark())
        # --dist loadgroup then runs all cases of one snapshot on one worker: it is listed and indexed once.
        self.add_marker(_group_mark(snapshot_group(spec)))

    # pytest-xdist 3.8's --dist loadgroup appends "@<group>" to a node id by assigning item._nodeid, which
    # pytest 9.2 no longer reads (node ids became structured values), so groups were silently ignored:
    # https://github.com/pytest-dev/pytest-xdist/issues/1386. Route that assignment to the id pytest reads.
    # Older pytest keeps its id in _nodeid itself, which this property stores in _id and reads back.
    # (setattr: _id is a NodeId slot in pytest 9.2, a plain string here before.)
    @property
    def _nodeid(self) -> str:
        return str(self._id)

    @_nodeid.setter
    def _nodeid(self, value: str) -> None:
        parse = getattr(type(getattr(self, "_id", None)), "parse", None)
        setattr(self, "_id", parse(value) if callable(parse) else value)

    def runtest(self) -> None:
        """Run the case, keep its record, publish its figures, and fail if the agent raised."""
        state: RunState = self.config.stash[STATE]
        try:
            outcome = evaluate_case(
                self.spec,
                self.choice,
                self.pool(),
                state.snapshots,
                state.settings,
                seed=state.seed,
                nodeid=base_nodeid(self.nodeid),
                worker=state.worker_id,
            )
        except Exception as exc:  # outside the agent call (a tree that cannot be read, a record that cannot be made)
            message = f"{type(exc).__name__}: {exc}"
            self.stash[CASE_RESULT] = self.error_record(message)
            raise CaseError(message) from exc
        self.stash[CASE_RESULT] = outcome.result
        self.user_properties.extend(junit_properties(outcome.result))
        if outcome.failure is not None:
            raise outcome.failure

    def pool(self) -> AgentPool:
        """Return this process's agent pool, the session fixture ``POOL_FIXTURE`` (set up by the first case
        that runs, torn down at the end of the session)."""
        state: RunState = self.config.stash[STATE]
        if state.pool is None:
            # Function._request: the item's own fixture request (pytest has no public way for an item to
            # ask for a fixture its function does not name)
            state.pool = self._request.getfixturevalue(POOL_FIXTURE)
        pool: AgentPool = state.pool
        return pool

    def error_record(self, message: str) -> CaseResult:
        """Return this item's ``error`` record with ``message``, for a failure outside the agent call."""
        state: RunState = self.config.stash[STATE]
        return error_record(
            self.spec, self.choice, state.settings, message, nodeid=base_nodeid(self.nodeid), worker=state.worker_id
        )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        """Show the agent's own traceback, or our one-line message for a case that cannot run; control
        characters from the gold set, the repository or the agent show as escapes (``printable.py``)."""
        shown = self._repr_failure(excinfo)
        text = shown if isinstance(shown, str) else str(shown)
        return visible(text) if visible(text) != text else shown

    def _repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
        failure = excinfo.value
        if isinstance(failure, CaseError):
            return f"{self.spec.goldset}:{self.spec.line}: {_shown(failure)}"
        if isinstance(failure, (AgentTimeout, AgentCrashed)):
            return f"agent {self.choice.name!r}, case {self.spec.case.id!r}: {_shown(failure)}"
        if isinstance(failure, AgentError) and hasattr(failure.__cause__, "traceback_text"):
            text = getattr(failure.__cause__, "traceback_text")
            return f"{text}\nagent {self.choice.name!r} raised this {failure} in its child process (case {self.spec.case.id!r})"
        if isinstance(failure, AgentError) and failure.__cause__ is not None:
            cause = pytest.ExceptionInfo.from_exception(failure.__cause__)
            style = self.config.getoption("tbstyle", "auto")
            rep = cause.getrepr(style="long" if style == "auto" else style, tbfilter=_agent_frames)
            rep.addsection("codesearch", f"agent {self.choice.name!r} raised this {failure} (case {self.spec.case.id!r})")
            return rep
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Point reports at the case's line in the gold set."""
        return self.path, self.spec.line - 1, self.name

    @functools.cached_property
    def location(self) -> tuple[str, int | None, str]:
        """Return ``(gold set relative to the rootdir, line, name)``, as pytest makes it from ``reportinfo``, the
        gold set's part made once per file: pytest makes each item's path absolute again (issue 23)."""
        parent = self.parent
        relpath: str | None = getattr(parent, "_case_relpath", None)
        if relpath is None:
            relpath = super().location[0]
            setattr(parent, "_case_relpath", relpath)
        return (relpath, self.spec.line - 1, self.name)


def given_truth(settings: Settings) -> dict[str, GivenTruth]:
    """Return the ``--codesearch-truth`` file's truth by case id (none without it); a broken file is a usage error."""
    if settings.truth is None:
        return {}
    try:
        return load_truth_file(settings.truth)
    except TruthFileError as exc:
        raise pytest.UsageError(f"--codesearch-truth: {exc}") from None


def read_options(settings: Settings) -> formats.ReadOptions:
    """Return what readers need from the run's settings: the repository map, the clone cache, the entity truth
    and the scoring profile's truth convention."""
    return formats.ReadOptions(
        repos=dict(settings.repo_map), remotes=RemoteCache(default_cache_dir()), entity_truth=settings.entity_truth,
        convention=get_profile(settings.profile).truth, truth_cache=settings.truth_cache,
    )


def _truth_share(config: pytest.Config, worker: str | None) -> tuple[int, int] | None:
    """Return xdist worker ``worker``'s share of deriving truth from patches (``ReadOptions.truth_share``):
    every worker collects every case, so each derives a part and reads the others' from the cache. None
    outside xdist."""
    count = getattr(config, "workerinput", {}).get("workercount")
    if worker is None or not (worker.startswith("gw") and worker[2:].isdigit() and isinstance(count, int) and count > 1):
        return None
    return int(worker[2:]) % count, count


@functools.lru_cache(maxsize=4096)
def _repo_keywords(repo: Path | None, written: str | None) -> frozenset[str]:
    """Return the names ``-k`` selects a case's repository by: ``repo`` as the gold set writes it
    (``owner/name``, a relative path) and the name of the directory searched ``repo`` (cached: the cases
    of a gold set mostly share both)."""
    names = {Path(repo).name.removesuffix(".git")} if repo is not None else set()
    if written and not Path(written).is_absolute():
        names.add(written)
    return frozenset(name for name in names if name)


@functools.cache
def _codesearch_mark() -> pytest.MarkDecorator:
    """Return the ``codesearch`` marker of every case item, made once, after the plugin registered it
    (``pytest.mark.<name>`` makes a new one each time; marks are immutable)."""
    return pytest.mark.codesearch


@functools.lru_cache(maxsize=4096)
def _group_mark(group: str) -> pytest.MarkDecorator:
    """Return the ``xdist_group`` marker of ``group``, made once and shared by the group's items (marks
    are immutable)."""
    return pytest.mark.xdist_group(name=group)


def snapshot_group(spec: CaseSpec) -> str:
    """Return the xdist group of the snapshot ``spec`` searches (see ``_snapshot_group``)."""
    return _snapshot_group(spec.snapshot_key)


@functools.lru_cache(maxsize=4096)
def _snapshot_group(key: tuple[str, str]) -> str:
    """Return the xdist group of the snapshot ``spec`` searches: ``<repo name>-<revision>-<digest>``.

    Only letters, digits, ``_``, ``.`` and ``-`` appear (xdist reads the group back from the node id);
    the digest of the full key tells apart repositories of the same name.
    """
    repo, revision = key
    digest = hashlib.sha1(f"{repo}\0{revision}".encode(), usedforsecurity=False).hexdigest()[:8]
    name = re.sub(r"[^\w.-]+", "_", Path(repo).name, flags=re.ASCII) or "repo"
    revision = re.sub(r"[^\w.-]+", "_", revision[:12], flags=re.ASCII) or "worktree"
    return f"{name}-{revision}-{digest}"


def _restructure_node_id(item: pytest.Item) -> None:
    """Give ``case[agent]`` the structure pytest >= 9.2 gives parametrized ids, so --lf matches it.

    pytest 9.2 keeps node ids as structured values and parses a saved ``name[params]`` into a name
    and params; an item built by name alone would keep the bracket in its name and never match.
    Older pytest keeps plain strings, which already match.
    """
    node_id = getattr(item, "_id", None)
    parse = getattr(type(node_id), "parse", None)
    if node_id is not None and callable(parse):
        item._id = parse(str(node_id))


def _shown(error: object) -> str:
    """Return an error's text as records and the terminal show it: safe, and cut to ``MAX_TEXT_CHARS``."""
    return safe_text(clip(str(error), MAX_TEXT_CHARS))


def _agent_frames(excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
    """Keep the traceback entries of the agent's code, dropping the harness's and asyncio's."""
    kept = [e for e in excinfo.traceback if not str(e.path).startswith(_HIDDEN_DIRS)]
    return type(excinfo.traceback)(kept) if kept else excinfo.traceback


class BrokenEntryItem(pytest.Item):
    """A gold-set entry that cannot be read: it fails with file, line and field, the rest still runs."""

    def __init__(
        self, *, goldset: str, line: int, error: str, case_id: str | None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        error = _shown(error)
        self.entry = InvalidEntry(goldset=goldset, line=line, case_id=case_id, error=error)
        self.message = format_error(goldset, line, error) if line else f"{goldset}: {error}"
        if case_id:
            self.extra_keyword_matches.add(case_id)
        self.add_marker(_codesearch_mark())

    def invalid_entry(self) -> InvalidEntry:
        """Return the entry as the report records it."""
        return self.entry

    def runtest(self) -> None:
        """Fail with the gold-set error."""
        raise InvalidGoldsetEntry(self.message)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        """Show the error message alone, without our traceback (control characters escaped)."""
        if isinstance(excinfo.value, InvalidGoldsetEntry):
            return visible(self.message)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Point reports at the gold-set file."""
        return self.path, 0, self.name


class InvalidGoldsetEntry(Exception):
    """Raised by a BrokenEntryItem; carries the user-facing message."""
