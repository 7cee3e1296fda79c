"""pytest hooks: options, agent selection, collection of gold sets, ordering, results in reports."""

from __future__ import annotations

import gc
import warnings
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_codesearch.printable import visible
from pytest_codesearch.session.agents import choose_agents
from pytest_codesearch.settings.options import OPTIONS
from pytest_codesearch.settings.types import Names
from pytest_codesearch.settings.load import load_settings, shown
from pytest_codesearch.session.state import STATE

if TYPE_CHECKING:
    from pytest_codesearch.session.items import GoldsetFile

# The library (pydantic, numpy, pygit2) is imported inside the hooks, only once an agent
# is selected: a pytest run that benchmarks nothing does not pay for it.
GOLDSETS_SEEN = pytest.StashKey[set[Path]]()
"""Gold-set files a run without agents came across among the paths it was given (for its hint)."""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register the hooks other plugins may implement (``pytest_codesearch_transform_query``)."""
    from pytest_codesearch import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the --codesearch-* options and their ini keys, one per row of the option table."""
    group = parser.getgroup("codesearch", "code-search benchmarks (pytest-codesearch)")
    for option in OPTIONS:
        text = f"{option.help} (default: {option.default_text})".replace("`", "")
        if option.flag:
            kwargs: dict[str, Any] = {"action": option.action, "help": text.replace("%", "%%")}
            if option.action != "store_true":
                kwargs.update(default=[] if option.action == "append" else None, metavar=option.type.metavar)
            else:  # absent is None, not False, so that an ini key or the YAML file can still turn it on
                kwargs.update(default=None)
            if option.nargs:
                kwargs["nargs"] = option.nargs
            group.addoption(option.flag, **kwargs)
        if option.ini:
            if isinstance(option.type, Names):
                parser.addini(option.ini, text, type="linelist", default=[])
            else:
                parser.addini(option.ini, text, type="string", default="")


def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """``--codesearch-generate`` mines a history into a gold set, ``--codesearch-merge`` merges shards'
    reports, ``--codesearch-validate`` checks gold sets, ``--codesearch-convert`` writes a gold set as native
    JSONL, ``--codesearch-history`` and ``--codesearch-compare`` read saved runs; each ends the run: no
    test runs."""
    if config.getoption("codesearch_validate"):
        from pytest_codesearch.commands.validate import run_validate

        return run_validate(config, load_settings(config)[0])
    if config.getoption("codesearch_convert"):
        from pytest_codesearch.commands.convert import run_convert

        return run_convert(load_settings(config)[0])
    if config.getoption("codesearch_merge"):
        from pytest_codesearch.commands.merge import run_merge

        settings, here = load_settings(config)[0], config.invocation_params.dir
        paths = [Path(shown(p, here)) for p in settings.merge]  # as given, for messages
        return run_merge(paths, settings, here, config.rootpath)
    if config.getoption("codesearch_history") or config.getoption("codesearch_compare"):
        from pytest_codesearch.commands.history import run_history_command

        return run_history_command(load_settings(config)[0], config.invocation_params.dir)
    if not config.getoption("codesearch_generate"):
        return None
    from pytest_codesearch.commands.generate import run_generate

    settings, bench = load_settings(config)
    return run_generate(config, settings, None if bench is None else bench.filters)


def pytest_configure(config: pytest.Config) -> None:
    """Select the agents (exit 4 on an unknown name) and set up the run when any is selected."""
    config.addinivalue_line("markers", "codesearch: a pytest-codesearch benchmark case")
    settings, bench = load_settings(config)
    if not settings.active:
        return
    registry, choices = choose_agents(config, bench, settings)
    from pytest_codesearch.session.setup import start_run

    start_run(config, settings, registry, choices)




BADLY_NAMED = pytest.StashKey[list[str]]()
"""Gold-set files left out because their names hold control characters, shown escaped."""


class GoldsetNameWarning(pytest.PytestWarning):
    """A gold-set file was left out because its name holds control characters (issue 18 item 12)."""


class WorktreeWarning(pytest.PytestWarning):
    """Cases search a working tree as it is rather than a commit: their results follow its current files."""


def _warn_about_worktrees(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Warn once per run (from one process) when a case searches a directory as it is, and about gold-set
    files left out for their names."""
    from pytest_codesearch.session.items import CaseItem

    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and workerinput.get("workerid") != "gw0":  # every worker collects the same
        return
    for printed in config.stash.get(BADLY_NAMED, []):
        message = f"{printed}: a gold-set file whose name holds control characters is not collected; rename it"
        warnings.warn(GoldsetNameWarning(message), stacklevel=1)
    specs = [i.spec for i in items if isinstance(i, CaseItem) and i.spec.repo is not None]
    trees = sorted({str(spec.repo) for spec in specs if spec.base_commit is None})
    if trees:
        message = (
            f"cases search a working tree as it is, not a commit ({', '.join(trees)}): their results follow"
            " whatever its files hold now; give base_commit to search a fixed commit"
        )
        warnings.warn(WorktreeWarning(message), stacklevel=1)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Build every selected agent once before any case runs: one that cannot be built is a usage error."""
    state = session.config.stash.get(STATE, None)
    if state is None:
        return
    from pytest_codesearch.runner.inprocess import watch_ctrl_c

    watch_ctrl_c()  # from now on an agent's own KeyboardInterrupt is its error, not the end of the run
    if hasattr(session.config, "workerinput") or session.config.option.collectonly:
        return
    from pytest_codesearch.runner.pool import check_agents

    problems, notes = check_agents(state.choices, state.settings.isolation)
    if problems:
        raise pytest.UsageError("\n".join(problems))
    if session.config.get_verbosity() >= 0 and not session.config.option.no_header:
        session.config.stash[AGENT_NOTES] = notes  # the run header, printed next, says them
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for note in notes:
        if reporter is not None:
            reporter.write_line(f"codesearch: {note}", yellow=True)


AGENT_NOTES = pytest.StashKey[list[str]]()
"""What the run header says about where agents run (one that stays in process, and why)."""


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Give SIGINT back to pytest's handler; move the run's records and reports out of the garbage
    collector's sight before pytest's own last full collections.

    pytest collects the whole heap as the session ends (its unraisable-exception check); the records,
    reports and progress of a 10,000-case run made that walk cost about 0.5 s of CPU (issue 23). Frozen
    objects are still freed by reference counting, as at the end of collection.
    """
    if STATE in config.stash:
        gc.collect(1)  # young cycles (an agent's last calls) are still collected, and checked by pytest
        gc.freeze()
        from pytest_codesearch.runner.inprocess import unwatch_ctrl_c

        unwatch_ctrl_c()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """Print the seed and the agents, so that a run can be repeated."""
    state = config.stash.get(STATE, None)
    if state is None:
        return None
    names = ", ".join(c.name for c in state.choices)
    lines = [f"codesearch: agents {names}; seed {state.seed} (repeat with --codesearch-seed={state.seed})"]
    from pytest_codesearch.session.setup import RESUME_NOTE

    note = config.stash.get(RESUME_NOTE, None)
    dist = config.getvalue("dist") if config.pluginmanager.hasplugin("xdist") else "no"
    if dist not in ("no", "loadgroup"):
        lines.append(
            f"codesearch: --dist {dist} spreads the cases of one snapshot over several workers, which each "
            "list and index it; --dist loadgroup keeps a snapshot on one worker"
        )
    agent_notes = [f"codesearch: {line}" for line in config.stash.get(AGENT_NOTES, [])]
    return lines + agent_notes + ([f"codesearch: {note}"] if note else [])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Say how to benchmark when gold sets were collected or named but no agent was selected."""
    if STATE in config.stash:
        return
    named = {path for path in _arg_paths(config) if _mentions_cases(path)}
    seen = len(config.stash.get(GOLDSETS_SEEN, set()) | named)
    if seen:
        files = "1 gold-set file" if seen == 1 else f"{seen} gold-set files"
        terminalreporter.write_line(f"codesearch: {files} found but no agent selected, so nothing was benchmarked; "
                                    f"choose one with {_agent_choices()}")


def _agent_choices() -> str:
    """Return how to choose an agent, naming every built-in (from the registry) and ``all``."""
    from pytest_codesearch.agents.builtin import fixtures
    from pytest_codesearch.agents.registry import module_specs

    first, *others = [spec.name for spec in module_specs(fixtures)]
    return f"--codesearch-agent={first} (or {', '.join(others)}, all)"


def _arg_paths(config: pytest.Config) -> list[Path]:
    """Return the files and folders pytest's arguments name (node ids without their ``::`` part)."""
    here = config.invocation_params.dir
    return [(here / arg.split("::")[0]).absolute() for arg in config.args]


def _given(config: pytest.Config, path: Path) -> bool:
    """Return True when ``path`` is one of the paths pytest was given or lies in one (pytest looks at the
    files of their parent folders too)."""
    path = path.absolute()
    return any(path == given or given in path.parents for given in _arg_paths(config))


_SNIFFED_BYTES = 4 * 1024 * 1024
"""Larger files are not looked into for the hint (a run without agents reads little)."""


def _mentions_cases(path: Path) -> bool:
    """Return True when ``path`` is a file some gold-set reader claims (``goldsniff.shape_of``).

    A cheap look for the hint above: it must not import the readers (pydantic, PyYAML) in a run without agents.
    """
    from pytest_codesearch.goldsniff import SHAPES, shape_of

    if not any(path.suffix.lower() in suffixes for _, suffixes, _ in SHAPES):
        return False
    try:
        if not path.is_file() or path.stat().st_size > _SNIFFED_BYTES:
            return False
    except OSError:
        return False
    return shape_of(path) is not None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> GoldsetFile | None:
    """Collect gold sets of any known shape when an agent is selected; other files are left alone."""
    if STATE not in parent.config.stash:
        if _given(parent.config, file_path) and _mentions_cases(file_path):  # for the hint of a run without agents
            parent.config.stash.setdefault(GOLDSETS_SEEN, set()).add(file_path.absolute())
        return None
    from pytest_codesearch.goldset.formats import reader_for
    from pytest_codesearch.session.items import GoldsetFile

    if reader_for(file_path) is None:
        return None
    parent.config.stash[STATE].snapshots.exclude(file_path)  # no agent may read a gold set of the run
    printed = visible(str(file_path))
    if printed != str(file_path):  # pytest prints node ids as they are: a name could drive the terminal
        parent.config.stash.setdefault(BADLY_NAMED, []).append(printed)  # warned about after collection
        return None
    return GoldsetFile.from_parent(parent, path=file_path)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the cases in their seeded run order and keep the run's selection (``session/selection.py``).

    It runs after pytest's own ``-k`` and ``-m``, so ``--codesearch-limit`` counts the cases they kept.
    With ``randomize: false`` in the YAML config the gold-set order is kept.
    """
    state = config.stash.get(STATE, None)
    if state is None:
        return
    _warn_about_worktrees(config, items)
    from pytest_codesearch.session.selection import select_items

    # from collected items and the seed alone, so every xdist worker keeps the same ones
    items[:], dropped = select_items(items, state.settings, state.seed, skip=state.skip, universe=state.universe)
    if dropped:
        config.hook.pytest_deselected(items=dropped)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, Any, Any]:
    """Pause the garbage collector over the whole collection (``gcpause.py``); its end freezes what it made.

    The items and their cases live until the end of the session: a full collection in between (pytest's
    own ``-k``, ordering, selection) walked all of them, twice at 10,000 cases (about 0.3 s, issue 23).
    """
    if STATE not in session.config.stash:
        return (yield)
    from pytest_codesearch.gcpause import paused_gc

    with paused_gc():
        return (yield)


@pytest.hookimpl(tryfirst=True)  # an xdist worker's counts are written before it reports its collection
def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what collection built (thousands of items) out of the garbage collector's sight; an xdist worker
    hands its gold sets' case counts to the controller (``session/records.py``).

    Every later full collection would walk them again; frozen objects are still freed by reference
    counting. This cut a 5,000-item run's CPU time by about 15%.
    """
    state = session.config.stash.get(STATE, None)
    if state is not None:
        gc.freeze()
        from pytest_codesearch.session.records import hand_over_goldset_counts

        hand_over_goldset_counts(state)


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, Any, Any]:
    """Make full garbage collections rarer while cases run (``gcpause.rare_full_collections``); at the end of
    the loop, move what it kept out of the collector's sight, as ``pytest_unconfigure`` does later.

    Each full pass walks every record and report kept so far: five passes cost about 0.4 s of CPU at 10,000
    cases (issue 23), and the end of the run (its report) started another over all of them.
    """
    if STATE not in session.config.stash:
        return (yield)
    from pytest_codesearch.gcpause import rare_full_collections

    try:
        with rare_full_collections():
            return (yield)
    finally:
        gc.collect(1)  # young cycles (an agent's last calls) are still collected
        gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """Hand the case record to the controller with the call report; an xdist worker packs the JUnit XML
    properties of its call and teardown reports (``session/records.py``)."""
    report = yield
    if call.when != "setup" and STATE in item.config.stash:
        from pytest_codesearch.session.records import attach_record, pack_properties

        if call.when == "call":
            attach_record(item, report)
        else:
            pack_properties(item, report)
    return report
